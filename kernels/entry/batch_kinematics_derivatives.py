"""Batches of kinematics and centroidal derivatives: prange over contiguous chunks of rows, as
batch.py (its docstring says why: one workspace per thread, every row the single-state kernels'
bits, parameters one robot for all rows or one per row).

Row r runs what the single calls run on one Data: the checked pass
(guard.kinematics_derivatives_checked, or guard.centroidal_dynamics_derivatives_checked), then
for the kinematics one getter (kinematics_derivatives.py's joint_motion_derivatives or
frame_motion_derivatives). The equations are in kinematics_derivatives.py and
centroidal_derivatives.py (Carpentier & Mansard, RSS 2018; Traversaro & Saccon, 2019).

One kernel serves the four getters: ``is_frame`` picks the frame or the joint getter, and
acceleration arrays of zero columns ((N, 6, 0)) ask for the velocity derivatives only, as the
single getters' empty arrays do. DVDV holds one matrix per row (velocity getters: it is a
result) or one per thread (acceleration getters: the pass needs it, the caller does not).
Input rows are taken as ``Q[r, ::1]`` (any-layout, the single calls' type: one compile for
both; batch_derivatives.py says why).
"""

from numba import int64, prange

from .._jit import jit
from ..layout import OYC
from .batch import chunk, robot
from .guard import centroidal_dynamics_derivatives_checked, kinematics_derivatives_checked
from ..algorithms.kinematics_derivatives import frame_motion_derivatives, joint_motion_derivatives


@jit
def motion_derivatives_chunk(t, nt, jnt, PRM, frm, Q, V, A, target, is_frame, reference, ws3,
                             OMF, DVDQ, DVDV, DADQ, DADV, DADA, no_forces, tol, bad):
    """OMF (nt, s, nframes, 12): thread t's frame placements at [t, 0] (the frame getter
    writes one; fastdyn.kernels.layout.per_thread). DVDV: the results (N, 6, nv), or, when
    DADQ holds results, every thread's scratch (nt * s, 6, nv), thread t's at t * s."""
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        ws = ws3[t]
        code = kinematics_derivatives_checked(jnt, PRM[robot(PRM, r)], Q[r, ::1], V[r, ::1],
                                              A[r, ::1], ws, no_forces, tol)
        bad[r] = -1 if code == 0 else code
        if code != 0:
            continue
        k = r if DADQ.shape[2] == 0 else t * (DVDV.shape[0] // nt)
        if is_frame:
            frame_motion_derivatives(jnt, frm, ws, target, reference, OMF[t, 0], DVDQ[r], DVDV[k],
                                     DADQ[r], DADV[r], DADA[r])
        else:
            joint_motion_derivatives(jnt, ws, target, reference, DVDQ[r], DVDV[k], DADQ[r],
                                     DADV[r], DADA[r])


@jit(parallel=True)
def motion_derivatives_batch(jnt, PRM, frm, Q, V, A, target, is_frame, reference, ws3, OMF,
                             DVDQ, DVDV, DADQ, DADV, DADA, no_forces, tol, bad):
    """Row r: kinematics_derivatives at (Q[r], V[r], A[r]), then the getter of frame (or joint)
    ``target`` in ``reference`` into DVDQ[r], DVDV[r] (or thread t's), DADQ[r], DADV[r],
    DADA[r]; bad[r] = -1, or the checked pass's code (guard.py)."""
    nt = ws3.shape[0]
    for t in prange(nt):
        motion_derivatives_chunk(int64(t), nt, jnt, PRM, frm, Q, V, A, target, is_frame,
                                 reference, ws3, OMF, DVDQ, DVDV, DADQ, DADV, DADA, no_forces,
                                 tol, bad)


@jit
def centroidal_derivatives_chunk(t, nt, jnt, PRM, Q, V, A, ws3, DHDQ, DHDOTDQ, DHDOTDV, AG, HG,
                                 DHG, no_forces, tol, bad):
    """HG, DHG (nt, s, 6): thread t's h_g and dh_g/dt (scratch) at [t, 0]
    (fastdyn.kernels.layout.per_thread)."""
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        ws = ws3[t]
        code = centroidal_dynamics_derivatives_checked(
            jnt, PRM[robot(PRM, r)], Q[r, ::1], V[r, ::1], A[r, ::1], ws, DHDQ[r], DHDOTDQ[r],
            DHDOTDV[r], AG[r], HG[t, 0], DHG[t, 0], no_forces, tol)
        if code == 0 and not ws[0, OYC] > 0.0:  # no mass: the single call refuses it
            code = 1
        bad[r] = -1 if code == 0 else code


@jit(parallel=True)
def centroidal_derivatives_batch(jnt, PRM, Q, V, A, ws3, DHDQ, DHDOTDQ, DHDOTDV, AG, HG, DHG,
                                 no_forces, tol, bad):
    """DHDQ[r], DHDOTDQ[r], DHDOTDV[r], AG[r] = centroidal_dynamics_derivatives at (Q[r],
    V[r], A[r]); bad[r] = -1, the checked kernel's code, or 1 for a massless robot."""
    nt = ws3.shape[0]
    for t in prange(nt):
        centroidal_derivatives_chunk(int64(t), nt, jnt, PRM, Q, V, A, ws3, DHDQ, DHDOTDQ,
                                     DHDOTDV, AG, HG, DHG, no_forces, tol, bad)
