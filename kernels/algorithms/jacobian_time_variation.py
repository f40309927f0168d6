"""Time derivative of the geometric Jacobians along a motion (q, v): dJ/dt.

Source: Traversaro & Saccon (2019), eq. (37) d/dt ^A X_B = ^A X_B (^B v_{A,B} x), and
sec. 5.4 (apparent vs intrinsic acceleration). For the world column J_k = ^0X_i S_k of a dof of
joint i, with ov_i = ^0X_i v_i the world-frame velocity of body i:
  dJ_k/dt = ov_i x J_k + ^0X_i dS_k/dt
(Pinocchio 4.1 drops the last term, exact only where S is constant in the joint frame: see
kernels/joints/subspace_rate.py). For a frame E (world placement (R, p), twist ov_E):
  LOCAL:  J^E = ^E X_0 J  =>  dJ^E = ^E X_0 dJ - v^E x J^E        (d/dt ^E X_0 = -(v^E x) ^E X_0)
  LOCAL_WORLD_ALIGNED: J^{E[A]} = [J_v + J_w x p; J_w]
          =>  dJ^{E[A]} = [dJ_v + dJ_w x p + J_w x pdot; dJ_w],  pdot = ov_v + ov_w x p
so that dJ v + J a is the time derivative of the frame velocity in that reference: LOCAL and
WORLD give the spatial acceleration, LOCAL_WORLD_ALIGNED the classical one (their eq. 52).
Reference: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019.
"""

from .._jit import jit
from ..joints import subspace_rate
from ..layout import LOCAL, LOCAL_WORLD_ALIGNED, ODJ, OJ, OM, OV, S, TMP, V, WORLD
from ..spatial import motion
from .forward_kinematics import forward_kinematics
from .frames import frame_placement
from .jacobian import express


@jit
def world_columns_rate(jnt, prm, q, v, ws):
    """Placements, LOCAL velocities, then per joint i: ws[i, OV] = ov_i, ws[i, OJ + 6k] = J_k
    and ws[i, ODJ + 6k] = dJ_k/dt (all world frame)."""
    forward_kinematics(jnt, prm, q, v, q[:0], ws)
    for i in range(1, jnt.shape[0]):
        w = ws[i]
        jr = jnt[i]
        motion.put6(w, OV, motion.act(w, OM, w, V))
        for d in range(jr.nv):
            motion.put6(w, OJ + 6 * d, motion.act(w, OM, w, S + 6 * d))
            motion.put6(w, TMP, subspace_rate.column(jr, prm[i], q, v, w, d))
            a = motion.cross(w, OV, w, OJ + 6 * d)
            b = motion.act(w, OM, w, TMP)
            for r in range(6):
                w[ODJ + 6 * d + r] = a[r] + b[r]


@jit
def joint_jacobians_time_variation(jnt, prm, q, v, ws, J, dJ):
    """World J and dJ/dt (6, nv) of every dof (Pinocchio's computeJointJacobiansTimeVariation)."""
    world_columns_rate(jnt, prm, q, v, ws)
    for i in range(1, jnt.shape[0]):
        w = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            for r in range(6):
                J[r, iv + d] = w[OJ + 6 * d + r]
                dJ[r, iv + d] = w[ODJ + 6 * d + r]


@jit
def frame_jacobian_time_variation(jnt, prm, frm, q, v, f, reference, ws, oMf, J, dJ):
    """J and dJ/dt (6, nv) of frame f in ``reference`` (Pinocchio's
    getFrameJacobianTimeVariation after computeJointJacobiansTimeVariation); zero off the
    support of the frame's joint. Also writes oMf[f]."""
    world_columns_rate(jnt, prm, q, v, ws)
    frame_placement(frm, f, ws, oMf[f], 0)
    M = oMf[f]
    j = frm[f].parent_joint
    wj = ws[j]
    px, py, pz = M[9], M[10], M[11]
    # the frame's own motion: its LOCAL twist, or the world velocity of its origin
    vf = express(wj[OV], wj[OV + 1], wj[OV + 2], wj[OV + 3], wj[OV + 4], wj[OV + 5], M, 0, LOCAL)
    pdx = wj[OV] + wj[OV + 4] * pz - wj[OV + 5] * py
    pdy = wj[OV + 1] + wj[OV + 5] * px - wj[OV + 3] * pz
    pdz = wj[OV + 2] + wj[OV + 3] * py - wj[OV + 4] * px
    J[:, :] = 0.0
    dJ[:, :] = 0.0
    i = j
    while i > 0:
        w = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            c = express(w[o], w[o + 1], w[o + 2], w[o + 3], w[o + 4], w[o + 5], M, 0, reference)
            o = ODJ + 6 * d
            dc = express(w[o], w[o + 1], w[o + 2], w[o + 3], w[o + 4], w[o + 5], M, 0,
                         reference)
            if reference == WORLD:
                e = dc
            elif reference == LOCAL_WORLD_ALIGNED:
                wx, wy, wz = c[3], c[4], c[5]
                e = (dc[0] + wy * pdz - wz * pdy, dc[1] + wz * pdx - wx * pdz,
                     dc[2] + wx * pdy - wy * pdx, dc[3], dc[4], dc[5])
            else:
                vxc = (vf[1] * c[5] - vf[2] * c[4] + vf[4] * c[2] - vf[5] * c[1],
                       vf[2] * c[3] - vf[0] * c[5] + vf[5] * c[0] - vf[3] * c[2],
                       vf[0] * c[4] - vf[1] * c[3] + vf[3] * c[1] - vf[4] * c[0],
                       vf[4] * c[5] - vf[5] * c[4],
                       vf[5] * c[3] - vf[3] * c[5],
                       vf[3] * c[4] - vf[4] * c[3])
                e = (dc[0] - vxc[0], dc[1] - vxc[1], dc[2] - vxc[2], dc[3] - vxc[3],
                     dc[4] - vxc[4], dc[5] - vxc[5])
            for r in range(6):
                J[r, iv + d] = c[r]
                dJ[r, iv + d] = e[r]
        i = jnt[i].parent
