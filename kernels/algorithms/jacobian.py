"""Geometric Jacobians of joints and frames, in the LOCAL, WORLD or LOCAL_WORLD_ALIGNED frame.

Source: Traversaro & Saccon (2019; T&S below), sec. 8 "The geometric Jacobians", and sec.
5.1-5.2 for the frame changes; Pinocchio documentation, "SE(3) operations" cheat sheet, "Motion
Application". Column k of the world Jacobian (Pinocchio's data.J) is the motion subspace column
of dof k seen from the world: for a dof of joint i,
  J_k = ^0X_i S_k = [R_i s_v + p_i x (R_i s_w); R_i s_w]        (WORLD, ^A J_{A,E} in sec. 8)
A frame E with world placement (R, p) rigidly attached to joint j moves with every dof on the
path from the root to j (its support) and with no other; for those columns
  LOCAL_WORLD_ALIGNED (E[A], T&S eq. 35):       [J_k,v + J_k,w x p; J_k,w]
  LOCAL (E, the left-trivialized ^E J_{A,E}):    [R^T (J_k,v + J_k,w x p); R^T J_k,w]
since J_k,v + J_k,w x p is the velocity of the body point at p. For a moving base these are
Pinocchio's Jacobians, with the base velocity body-fixed: ^D J_{A,E/B} in the notation of
eq. (75); other base representations are fastdyn.representations' business.
References: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019; Pinocchio documentation, "SE(3) operations" cheat sheet.
"""

from .._jit import jit
from ..layout import LOCAL_WORLD_ALIGNED, OJ, OM, S, WORLD
from ..spatial import motion
from .forward_kinematics import forward_kinematics
from .frames import frame_placement


@jit
def express(c0, c1, c2, c3, c4, c5, M, m, reference):
    """The world-origin motion [c0..c2; c3..c5] in ``reference`` for a frame placed at
    M[m:m+12] in the world (WORLD: unchanged; any code but WORLD and LOCAL_WORLD_ALIGNED is
    LOCAL: the object API validates it)."""
    if reference == WORLD:
        return (c0, c1, c2, c3, c4, c5)
    px, py, pz = M[m + 9], M[m + 10], M[m + 11]
    # velocity of the body point that sits at the frame origin: v + w x p
    vx = c0 + c4 * pz - c5 * py
    vy = c1 + c5 * px - c3 * pz
    vz = c2 + c3 * py - c4 * px
    if reference == LOCAL_WORLD_ALIGNED:
        return (vx, vy, vz, c3, c4, c5)
    return (M[m] * vx + M[m + 3] * vy + M[m + 6] * vz,
            M[m + 1] * vx + M[m + 4] * vy + M[m + 7] * vz,
            M[m + 2] * vx + M[m + 5] * vy + M[m + 8] * vz,
            M[m] * c3 + M[m + 3] * c4 + M[m + 6] * c5,
            M[m + 1] * c3 + M[m + 4] * c4 + M[m + 7] * c5,
            M[m + 2] * c3 + M[m + 5] * c4 + M[m + 8] * c5)


@jit
def world_columns(jnt, i, ws):
    """ws[i, OJ + 6k] = ^0X_i S_k for the dofs k of joint i (placements and S must be fresh)."""
    w = ws[i]
    for d in range(jnt[i].nv):
        motion.put6(w, OJ + 6 * d, motion.act(w, OM, w, S + 6 * d))


@jit
def joint_jacobians(jnt, prm, q, ws, J):
    """Placements, then the world Jacobian J (6, nv) of every dof (Pinocchio's
    computeJointJacobians); joint i's columns also stay in ws[i, OJ:]."""
    forward_kinematics(jnt, prm, q, q[:0], q[:0], ws)
    for i in range(1, jnt.shape[0]):
        world_columns(jnt, i, ws)
        iv = jnt[i].idx_v
        w = ws[i]
        for d in range(jnt[i].nv):
            for r in range(6):
                J[r, iv + d] = w[OJ + 6 * d + r]


@jit
def support_jacobian(jnt, ws, joint, M, m, reference, J):
    """J (6, nv) of a frame fixed to ``joint`` and placed at M[m:m+12] in the world, from the
    placements and S in ws; columns off the support of ``joint`` are zero."""
    J[:, :] = 0.0
    i = joint
    while i > 0:
        w = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            c = motion.act(w, OM, w, S + 6 * d)
            e = express(c[0], c[1], c[2], c[3], c[4], c[5], M, m, reference)
            for r in range(6):
                J[r, iv + d] = e[r]
        i = jnt[i].parent


@jit
def joint_jacobian(jnt, prm, q, joint, reference, ws, J):
    """Placements, then J (6, nv) of joint ``joint``'s frame in ``reference``."""
    forward_kinematics(jnt, prm, q, q[:0], q[:0], ws)
    support_jacobian(jnt, ws, joint, ws[joint], OM, reference, J)


@jit
def frame_jacobian(jnt, prm, frm, q, f, reference, ws, oMf, J):
    """Placements, oMf[f], then J (6, nv) of frame f in ``reference`` (Pinocchio's
    computeFrameJacobian)."""
    forward_kinematics(jnt, prm, q, q[:0], q[:0], ws)
    frame_placement(frm, f, ws, oMf[f], 0)
    support_jacobian(jnt, ws, frm[f].parent_joint, oMf[f], 0, reference, J)

