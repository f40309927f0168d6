"""Batches of states in parallel: prange over one contiguous chunk of rows per thread.

Each thread owns one workspace (ws3[t], a shared one would be a silent race) and calls the
very same single-state kernel, so every row is bit-for-bit the serial result. Rows are split
in contiguous chunks (not interleaved) so a thread walks memory forward.
"""

from numba import prange

from .._jit import jit
from ..layout import OM
from .aba import aba
from .crba import crba
from .forward_kinematics import forward_kinematics
from .rnea import rnea
from .simulate import simulate


@jit
def chunk(n, nthreads, t):
    size = (n + nthreads - 1) // nthreads
    lo = t * size
    return lo, min(n, lo + size)


@jit(parallel=True)
def rnea_batch(jnt, gravity, Q, V, A, fext, ws3, TAU):
    nt = ws3.shape[0]
    for t in prange(nt):
        lo, hi = chunk(Q.shape[0], nt, t)
        for r in range(lo, hi):
            rnea(jnt, gravity, Q[r], V[r], A[r], fext, ws3[t], TAU[r])


@jit(parallel=True)
def aba_batch(jnt, gravity, Q, V, TAU, fext, ws3, DDQ, bad):
    nt = ws3.shape[0]
    for t in prange(nt):
        lo, hi = chunk(Q.shape[0], nt, t)
        for r in range(lo, hi):
            bad[r] = aba(jnt, gravity, Q[r], V[r], TAU[r], fext, ws3[t], DDQ[r])


@jit(parallel=True)
def crba_batch(jnt, Q, ws3, MM, empty):
    nt = ws3.shape[0]
    for t in prange(nt):
        lo, hi = chunk(Q.shape[0], nt, t)
        for r in range(lo, hi):
            crba(jnt, Q[r], ws3[t], MM[r], empty)


@jit(parallel=True)
def forward_kinematics_batch(jnt, Q, ws3, OMI, empty):
    """OMI (N, njoints, 12): oMi of every row (R row-major, then p)."""
    nt = ws3.shape[0]
    for t in prange(nt):
        lo, hi = chunk(Q.shape[0], nt, t)
        ws = ws3[t]
        for r in range(lo, hi):
            forward_kinematics(jnt, Q[r], empty, empty, ws)
            for i in range(jnt.shape[0]):
                for k in range(12):
                    OMI[r, i, k] = ws[i, OM + k]


@jit(parallel=True)
def simulate_batch(jnt, gravity, Q0, V0, TORQUES, dt, fext, ws3, QS, VS, scratch, bad):
    """Rollouts: row r from (Q0[r], V0[r]) under TORQUES[r] (T, nv) into QS[r], VS[r]."""
    nt = ws3.shape[0]
    for t in prange(nt):
        lo, hi = chunk(Q0.shape[0], nt, t)
        for r in range(lo, hi):
            bad[r] = simulate(jnt, gravity, Q0[r], V0[r], TORQUES[r], dt, fext, ws3[t], QS[r],
                              VS[r], scratch[t])
