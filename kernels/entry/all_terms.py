"""Everything a controller reads at a state (q, v), in one pass: Pinocchio's computeAllTerms.

Source: Pinocchio documentation, "computeAllTerms" (algorithm/compute-all-terms.hpp): at
(q, v), the joint placements and velocities, the joint-space inertia matrix M(q), the
nonlinear effects h(q, v) = C(q, v) v + g(q), the world joint Jacobians J(q), the centre of
mass, its velocity and its Jacobian Jcom; here also the frame placements a controller asks
for next (Pinocchio's updateFramePlacements, or updateFramePlacement of the one frame it
tracks, with that frame's Jacobian). Each quantity comes from the kernel that computes it
alone, so each is what the single call gives:
  M     crba.py (Featherstone 2008, Table 6.2), both triangles, armature on the diagonal
  h     rnea.py at a = 0 (Featherstone 2008, Table 5.1): h = rnea(q, v, 0)
  J     jacobian.world_columns: column k = ^0X_i S_k (Traversaro & Saccon 2019, sec. 8)
  oMf   frames.py: ^0M_f = ^0M_j ^jM_f
  com   center_of_mass.py, subtree centres of mass and their velocities (row 0: the robot)
  Jcom  center_of_mass_jacobian.py: column k of a dof of joint i is
        (m_i / m_0) (J_k,v + J_k,w x c_i), c_i the com of the subtree of i
The checked entry point also records (q, v, gravity, M, h) for forward_step.py, which solves
with them instead of running ABA when it steps from that same state.
CRBA leaves the world placements oMi, RNEA the LOCAL velocities v and the joint transforms
liMi, so no separate forward kinematics pass is needed: ws then holds what
forward_kinematics(q, v) leaves (placements and velocities).
"""

from .._jit import jit
from ..layout import OJ, P_GRAVITY
from ..algorithms.center_of_mass import center_of_mass
from ..algorithms.center_of_mass_jacobian import com_columns
from ..algorithms.crba import crba
from ..algorithms.frames import frame_placement, update_frame_placements
from ..checks import (CODE, check_state, diagonal_overflow, first_nonfinite, nq_nv, overflow_code,
                      placements_overflow)
from ..algorithms.jacobian import support_jacobian, world_columns
from ..algorithms.rnea import rnea


@jit
def all_terms(jnt, prm, frm, q, v, frame, with_com, ws, oMf, M, nle, J, mass, com, vcom, acom,
              Jcom, zero):
    """M, nle = h(q, v), J (6, nv); oMf (nframes, 12) of every frame when frame < 0, else of
    frame ``frame`` only; when with_com: subtree mass / com / vcom (acom zeroed) and Jcom
    (3, nv) of the whole robot. ``zero`` (nv,) is scratch (set to zero: RNEA's acceleration).
    ws holds placements and LOCAL velocities afterwards, as after forward_kinematics(q, v)."""
    crba(jnt, prm, q, ws, M, q[:0])
    for k in range(zero.shape[0]):
        zero[k] = 0.0
    rnea(jnt, prm, q, v, zero, ws[:0, :6], ws, nle)  # (0, 6): no external forces
    for i in range(1, jnt.shape[0]):
        world_columns(jnt, i, ws)  # CRBA's columns sit at a shifted origin: recomputed
        w = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            for r in range(6):
                J[r, iv + d] = w[OJ + 6 * d + r]
    if frame < 0:
        update_frame_placements(frm, ws, oMf)
    else:
        frame_placement(frm, frame, ws, oMf[frame], 0)
    if with_com:
        center_of_mass(jnt, prm, ws, 1, mass, com, vcom, acom)
        m0 = mass[0]
        for i in range(1, jnt.shape[0]):
            com_columns(jnt, i, ws, mass[i] / m0 if m0 > 0.0 else 0.0, com[i, 0], com[i, 1],
                     com[i, 2], Jcom)


@jit
def record(prm, q, v, M, nle, TM, tx):
    """Keep what forward_step.py may solve with: tx = [1, q, v, gravity, h, (D)], TM = M."""
    nq, nv = q.shape[0], v.shape[0]
    tx[0] = 1.0
    for k in range(nq):
        tx[1 + k] = q[k]
    for k in range(nv):
        tx[1 + nq + k] = v[k]
        tx[4 + nq + nv + k] = nle[k]
        for c in range(nv):
            TM[k, c] = M[k, c]
    for k in range(3):
        tx[1 + nq + nv + k] = prm[0, P_GRAVITY + k]


@jit
def recorded(prm, q, v, tx):
    """Whether the record in tx is of this state (q, v, gravity the same, entry by entry)."""
    nq, nv = q.shape[0], v.shape[0]
    if tx[0] == 0.0:
        return False
    for k in range(nq):
        if q[k] != tx[1 + k]:
            return False
    for k in range(nv):
        if v[k] != tx[1 + nq + k]:
            return False
    for k in range(3):
        if prm[0, P_GRAVITY + k] != tx[1 + nq + nv + k]:
            return False
    return True


@jit
def all_terms_checked(jnt, prm, frm, q, v, frame, reference, with_com, ws, oMf, M, nle, J, Jf,
                      mass, com, vcom, acom, Jcom, TM, tx, tol):
    """The object API's entry point (codes as guard.py's): q, v and every size checked, then
    all_terms, then, when frame >= 0, the frame's Jacobian Jf (6, nv) in ``reference``
    (jacobian.support_jacobian, from the placements just computed); on success, M and h are
    recorded in (TM, tx) for forward_step.py."""
    no_forces = ws[:0, :6]
    code = check_state(jnt, prm, q, v, v[:0], no_forces, ws, tol)
    nv = nq_nv(jnt)[1]
    nj = jnt.shape[0]
    nf = frm.shape[0]
    ok = (v.shape[0] == nv and oMf.shape[0] == nf and oMf.shape[1] == 12
          and M.shape[0] == nv and M.shape[1] == nv and nle.shape[0] == nv
          and J.shape[0] == 6 and J.shape[1] == nv and Jf.shape[0] == 6 and Jf.shape[1] == nv
          and Jcom.shape[0] == 3 and Jcom.shape[1] == nv
          and mass.shape[0] == nj and com.shape[0] == nj and vcom.shape[0] == nj
          and acom.shape[0] == nj and com.shape[1] == 3 and vcom.shape[1] == 3
          and acom.shape[1] == 3 and frame < nf  # frm and jnt: one checked Model
          and TM.shape[0] == nv and TM.shape[1] == nv
          and tx.shape[0] == 1 + q.shape[0] + 3 * nv + 3)
    if code == 0 and not ok:
        code = 8 * CODE
    if code != 0:
        return code
    tx[0] = 0.0  # no record until this call has succeeded: its D part is free scratch
    nq = q.shape[0]
    zero = tx[4 + nq + 2 * nv:4 + nq + 3 * nv]  # (one array fewer to pass: ~30 ns a call)
    all_terms(jnt, prm, frm, q, v, frame, with_com, ws, oMf, M, nle, J, mass, com, vcom, acom,
              Jcom, zero)
    if frame >= 0:
        support_jacobian(jnt, ws, frm[frame].parent_joint, oMf[frame], 0, reference, Jf)
    code = overflow_code(first_nonfinite(nle))
    if code == 0:
        code = diagonal_overflow(M)
    if code == 0:
        code = placements_overflow(jnt, ws, v, v[:0])
    if code == 0:
        record(prm, q, v, M, nle, TM, tx)
    return code
