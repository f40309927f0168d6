"""Analytical derivatives of joint and frame velocities and accelerations w.r.t. q, v and a.

Sources: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms",
Robotics: Science and Systems 2018, sec. IV (the world-frame partial derivatives of the body
velocities and accelerations, the forward pass of rnea_derivatives.py); Traversaro & Saccon,
"Multibody dynamics notation (version 2)", Technische Universiteit Eindhoven, 2019, sec. 5 (the
LOCAL, WORLD and LOCAL_WORLD_ALIGNED references). q is perturbed along tangent vectors,
q (+) dq = integrate(q, dq), Pinocchio's convention: the matrices are interchangeable with
pinocchio.getJointVelocityDerivatives / getJointAccelerationDerivatives /
getFrameVelocityDerivatives / getFrameAccelerationDerivatives.

The pass (kinematics_derivatives) is forward kinematics (liMi, oMi, LOCAL v and a) plus, per
joint i in the world frame, ov_i (OV) and oa_i (OAG, gravity excluded here); the columns of
dof k of joint i, with lambda = parent(i),
  J_k = ^0X_i S_k,  DV_k = ov_lambda x J_k (+ W_k),  DA_k = oa_lambda x J_k + ov_lambda x DV_k
  (+ ...),  DW_k = (ov_i + ov_lambda) x J_k (+ ...)
("+ ...": the terms of joints whose S depends on q, rnea_derivatives.py, which the pass
stores in their rows' DVDQ, DADQ, DADV columns) are formed by columns() when a getter asks,
for the dofs of its support only: forming them all in the pass costs as much as a getter for
every frame, and most callers read a few. Moving q_k turns the subtree of its joint about J_k,
so for a body b whose support holds k (world frame):
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
universe's row at ORIGIN, which the getters read. As it leaves what forward kinematics does,
frame velocities and accelerations can be read after it too.
"""

from .._jit import jit
from ..joints.codes import S_MOVES
from ..joints.jcalc import jcalc
from ..layout import (A, CJ, DADQ, DADV, DVDQ, LI, LOCAL, OAG, OM, OV, S, V, VJ, WORLD)
from ..spatial import motion, se3
from .frames import frame_placement
from .rnea_derivatives import moving_subspace
from .world_origin import restore_origin, shift_origin

ORIGIN = DVDQ  # universe row: the origin the pass used (3); no dof has columns there


@jit
def forward_pass(jnt, prm, q, v, a, ws):
    """Placements, LOCAL v and a (V, A) as forward kinematics, ov and oa in the world frame the
    caller's origin puts ws[0] in, and the extra terms of joints whose S moves (DVDQ: W,
    DADQ: ov x W + X + C, DADV: dc_J/dv; rnea_derivatives.py); the columns themselves are
    formed when asked (columns())."""
    w0 = ws[0]
    for k in range(6):
        w0[OV + k] = 0.0
        w0[OAG + k] = 0.0
        w0[V + k] = 0.0
        w0[A + k] = 0.0
    for i in range(1, jnt.shape[0]):
        w = ws[i]
        jr = jnt[i]
        wp = ws[jr.parent]
        jcalc(jnt, prm, i, q, v, w)
        se3.compose(wp, OM, w, LI, w, OM)
        vp = motion.act_inv(w, LI, wp, V)
        ap = motion.act_inv(w, LI, wp, A)
        for k in range(6):
            w[V + k] = vp[k] + w[VJ + k]
        vxvj = motion.cross(w, V, w, VJ)
        iv = jr.idx_v
        for k in range(6):
            acc = ap[k] + w[CJ + k] + vxvj[k]
            for d in range(jr.nv):
                acc += w[S + 6 * d + k] * a[iv + d]
            w[A + k] = acc
        motion.put6(w, OV, motion.act(w, OM, w, V))
        motion.put6(w, OAG, motion.act(w, OM, w, A))
        if S_MOVES[jr.type]:
            for k in range(6 * jr.nv):
                w[DVDQ + k] = 0.0
                w[DADV + k] = 0.0
            moving_subspace(jr, prm[i], q, v, a, w)


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
def columns(jnt, ws, i, d, rx, ry, rz):
    """(J, DV, DA, DW) of dof d of joint i (module docstring), 6-tuples in the world frame at the
    pass's origin (rx, ry, rz) (oMi back in the world's)."""
    w = ws[i]
    wp = ws[jnt[i].parent]
    o = S + 6 * d
    wx, wy, wz = se3.rot(w, OM, w[o + 3], w[o + 4], w[o + 5])
    lx, ly, lz = se3.rot(w, OM, w[o], w[o + 1], w[o + 2])
    px, py, pz = w[OM + 9] - rx, w[OM + 10] - ry, w[OM + 11] - rz
    t = motion.cross3(px, py, pz, wx, wy, wz)
    J = (lx + t[0], ly + t[1], lz + t[2], wx, wy, wz)
    u = motion.get6(wp, OV)
    DV = _x(u, J)
    DW = _x(motion.get6(w, OV), J)
    if S_MOVES[jnt[i].type]:
        DV = _add(DV, motion.get6(w, DVDQ + 6 * d))
        DW = _add(DW, motion.get6(w, DADV + 6 * d))
        DA = _add(_add(_x(motion.get6(wp, OAG), J), _x(u, DV)), motion.get6(w, DADQ + 6 * d))
    else:
        DA = _add(_x(motion.get6(wp, OAG), J), _x(u, DV))
    return J, DV, DA, _add(DW, _x(u, J))


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
def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])


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
            J, DV, DA, DW = columns(jnt, ws, j, d, rx, ry, rz)
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
            aq = _sub(DA, vxDV)
            av = _at(_sub(DW, vxJ), px, py, pz)
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
