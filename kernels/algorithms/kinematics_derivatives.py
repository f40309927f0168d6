"""Analytical derivatives of joint and frame velocities and accelerations w.r.t. q, v and a.

Sources: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms",
Robotics: Science and Systems 2018, sec. IV (the world-frame partial derivatives of the body
velocities and accelerations, the forward pass of rnea_derivatives.py); Traversaro & Saccon,
"Multibody dynamics notation (version 2)", Technische Universiteit Eindhoven, 2019, sec. 5 (the
LOCAL, WORLD and LOCAL_WORLD_ALIGNED references). q is perturbed along tangent vectors,
q (+) dq = integrate(q, dq), Pinocchio's convention: the matrices are interchangeable with
pinocchio.getJointVelocityDerivatives / getJointAccelerationDerivatives /
getFrameVelocityDerivatives / getFrameAccelerationDerivatives.

The pass (kinematics_derivatives) stores per joint i, world frame: oMi, J_k (OJ), ov_i (OV),
oa_i (OAG, gravity excluded here), and for its columns k, with lambda = parent(i),
  DV_k = ov_lambda x J_k (+ W_k),  DA_k = oa_lambda x J_k + ov_lambda x DV_k (+ ...),
  DW_k = (ov_i + ov_lambda) x J_k (+ ...)
(rnea_derivatives.py; "+ ..." the terms of joints whose S depends on q). Moving q_k turns the
subtree of its joint about J_k, so for a body b whose support holds k (world frame):
  d ov_b / dq_k = DV_k - ov_b x J_k,   d ov_b / dv_k = J_k,
  d oa_b / dq_k = DA_k - oa_b x J_k - ov_b x DV_k,   d oa_b / dv_k = DW_k - ov_b x J_k,
  d oa_b / da_k = J_k
(the second line from oa_b = d/dt ov_b, differentiated once more). For a frame E fixed to b at
oM_E = (R, p), with X = ^0X_E and T(p) x = [x_v + x_w x p; x_w] (reference point moved to p):
  WORLD                the world rows above;
  LOCAL                x^E = X^-1 x: d/dq_k = X^-1 (d x/dq_k + x x J_k), so
                       dv/dq_k = X^-1 DV_k,  da/dq_k = X^-1 (DA_k - ov_b x DV_k);
  LOCAL_WORLD_ALIGNED  x^E[A] = T(p) x: d/dq_k = T(p) d x/dq_k + [x_w x dp_k; 0], with
                       dp_k = J_k,v + J_k,w x p the velocity of the body point at p;
and d/dv, d/da are the world rows carried to the reference by X^-1 or T(p). The acceleration
is the spatial one, as getFrameAcceleration's (not the classical one).

The pass runs in world axes with the origin at the first joint (world_origin.py: keeps the
digits far from the origin); oMi is moved back after it, and the origin it used is kept in the
universe's row at ORIGIN, which the getters read. It also leaves what forward kinematics does
(liMi, oMi, LOCAL v and a), so frame velocities and accelerations can be read after it.
"""

from .._jit import jit
from ..layout import A, DADQ, DADV, DVDQ, LOCAL, OAG, OJ, OM, OV, V, WORLD
from ..spatial import motion
from .frames import frame_placement
from .rnea_derivatives import joint_motion, motion_columns
from .world_origin import restore_origin, shift_origin

ORIGIN = DVDQ  # universe row: the origin the pass used (3); no joint's column lives there


@jit
def forward_pass(jnt, prm, q, v, a, ws):
    """Placements, J, ov, oa and the columns DV, DA, DW of every joint (module docstring) in
    the world frame the caller's origin puts ws[0] in; LOCAL v and a in V and A."""
    w0 = ws[0]
    for k in range(6):
        w0[OV + k] = 0.0
        w0[OAG + k] = 0.0
        w0[V + k] = 0.0
        w0[A + k] = 0.0
    for i in range(1, jnt.shape[0]):
        w = ws[i]
        wp = ws[jnt[i].parent]
        joint_motion(jnt, prm, i, q, v, a, w, wp)
        motion_columns(jnt[i], prm[i], q, v, a, w, wp)
        motion.put6(w, V, motion.act_inv(w, OM, w, OV))
        motion.put6(w, A, motion.act_inv(w, OM, w, OAG))


@jit
def kinematics_derivatives(jnt, prm, q, v, a, ws):
    """The pass (module docstring) at (q, v, a), Pinocchio's computeForwardKinematicsDerivatives:
    what the getters below read, and forward kinematics' placements, v and a."""
    rx, ry, rz = shift_origin(jnt, prm, q, v, ws)
    forward_pass(jnt, prm, q, v, a, ws)
    restore_origin(ws, rx, ry, rz)
    ws[0, ORIGIN] = rx
    ws[0, ORIGIN + 1] = ry
    ws[0, ORIGIN + 2] = rz


@jit
def _x(a, b):
    """a x b for motion 6-tuples."""
    return (a[1] * b[5] - a[2] * b[4] + a[4] * b[2] - a[5] * b[1],
            a[2] * b[3] - a[0] * b[5] + a[5] * b[0] - a[3] * b[2],
            a[0] * b[4] - a[1] * b[3] + a[3] * b[1] - a[4] * b[0],
            a[4] * b[5] - a[5] * b[4],
            a[5] * b[3] - a[3] * b[5],
            a[3] * b[4] - a[4] * b[3])


@jit
def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4], a[5] - b[5])


@jit
def _at(x, px, py, pz):
    """T(p) x = [x_v + x_w x p; x_w]: the motion x with its reference point moved to p."""
    return (x[0] + x[4] * pz - x[5] * py, x[1] + x[5] * px - x[3] * pz,
            x[2] + x[3] * py - x[4] * px, x[3], x[4], x[5])


@jit
def _rot_t(M, m, x):
    """R^T x on both halves (R at M[m:m+9])."""
    return (M[m] * x[0] + M[m + 3] * x[1] + M[m + 6] * x[2],
            M[m + 1] * x[0] + M[m + 4] * x[1] + M[m + 7] * x[2],
            M[m + 2] * x[0] + M[m + 5] * x[1] + M[m + 8] * x[2],
            M[m] * x[3] + M[m + 3] * x[4] + M[m + 6] * x[5],
            M[m + 1] * x[3] + M[m + 4] * x[4] + M[m + 7] * x[5],
            M[m + 2] * x[3] + M[m + 5] * x[4] + M[m + 8] * x[5])


@jit
def _put_col(X, k, t):
    for r in range(6):
        X[r, k] = t[r]


@jit
def _zero_cols(X, lo, hi):
    for r in range(X.shape[0]):
        for k in range(lo, hi):
            X[r, k] = 0.0


@jit
def _plus_lin(x, w, d):
    """x + [w_w x d; 0] for 6-tuples x, w and a 3-vector d (the moving reference point)."""
    c = motion.cross3(w[3], w[4], w[5], d[0], d[1], d[2])
    return (x[0] + c[0], x[1] + c[1], x[2] + c[2], x[3], x[4], x[5])


@jit
def motion_derivatives(jnt, ws, joint, M, m, reference, dv_dq, dv_dv, da_dq, da_dv, da_da):
    """dv_dq, dv_dv (6, nv) of the velocity of a frame fixed to ``joint`` and placed at
    M[m:m+12] in the world, in ``reference``; da_dq, da_dv, da_da (6, nv) of its spatial
    acceleration too unless they are empty ((6, 0)). Reads what kinematics_derivatives left in
    ws; columns off the support of ``joint`` are zero (every entry is written)."""
    acc = da_dq.shape[1] > 0
    w0 = ws[0]
    rx, ry, rz = w0[ORIGIN], w0[ORIGIN + 1], w0[ORIGIN + 2]
    if reference == WORLD:  # T(-r): from the pass's origin back to the world's
        px, py, pz = -rx, -ry, -rz
    else:  # the frame's origin, seen from the pass's origin
        px, py, pz = M[m + 9] - rx, M[m + 10] - ry, M[m + 11] - rz
    wb = ws[joint]
    ov = motion.get6(wb, OV)
    oa = motion.get6(wb, OAG)
    top = dv_dq.shape[1]
    j = joint
    while j > 0:
        w = ws[j]
        iv = jnt[j].idx_v
        nvj = jnt[j].nv
        _zero_cols(dv_dq, iv + nvj, top)
        _zero_cols(dv_dv, iv + nvj, top)
        if acc:
            _zero_cols(da_dq, iv + nvj, top)
            _zero_cols(da_dv, iv + nvj, top)
            _zero_cols(da_da, iv + nvj, top)
        for d in range(nvj):
            k = iv + d
            J = motion.get6(w, OJ + 6 * d)
            DV = motion.get6(w, DVDQ + 6 * d)
            vxJ = _x(ov, J)
            if reference == LOCAL:
                vq = _rot_t(M, m, _at(DV, px, py, pz))
            else:
                vq = _at(_sub(DV, vxJ), px, py, pz)
            Jr = _at(J, px, py, pz)
            if reference != WORLD and reference != LOCAL:  # the point p moves with q_k
                vq = _plus_lin(vq, ov, Jr)
            if reference == LOCAL:
                Jr = _rot_t(M, m, Jr)
            _put_col(dv_dq, k, vq)
            _put_col(dv_dv, k, Jr)
            if not acc:
                continue
            vxDV = _x(ov, DV)
            aq = _sub(motion.get6(w, DADQ + 6 * d), vxDV)
            av = _at(_sub(motion.get6(w, DADV + 6 * d), vxJ), px, py, pz)
            if reference == LOCAL:
                aq = _rot_t(M, m, _at(aq, px, py, pz))
                av = _rot_t(M, m, av)
            else:
                aq = _at(_sub(aq, _x(oa, J)), px, py, pz)
                if reference != WORLD:
                    aq = _plus_lin(aq, oa, _at(J, px, py, pz))
            _put_col(da_dq, k, aq)
            _put_col(da_dv, k, av)
            _put_col(da_da, k, Jr)
        top = iv
        j = jnt[j].parent
    _zero_cols(dv_dq, 0, top)
    _zero_cols(dv_dv, 0, top)
    if acc:
        _zero_cols(da_dq, 0, top)
        _zero_cols(da_dv, 0, top)
        _zero_cols(da_da, 0, top)


@jit
def joint_motion_derivatives(jnt, ws, joint, reference, dv_dq, dv_dv, da_dq, da_dv, da_da):
    """motion_derivatives of joint ``joint``'s own frame (Pinocchio's
    getJointVelocityDerivatives / getJointAccelerationDerivatives)."""
    motion_derivatives(jnt, ws, joint, ws[joint], OM, reference, dv_dq, dv_dv, da_dq, da_dv,
                       da_da)


@jit
def frame_motion_derivatives(jnt, frm, ws, f, reference, oMf, dv_dq, dv_dv, da_dq, da_dv,
                             da_da):
    """oMf[f], then motion_derivatives of frame f (Pinocchio's getFrameVelocityDerivatives /
    getFrameAccelerationDerivatives)."""
    frame_placement(frm, f, ws, oMf[f], 0)
    motion_derivatives(jnt, ws, frm[f].parent_joint, oMf[f], 0, reference, dv_dq, dv_dv, da_dq,
                       da_dv, da_da)
