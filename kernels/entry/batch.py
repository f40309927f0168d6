"""Batches of states in parallel: prange over one contiguous chunk of rows per thread.

Each thread owns one workspace (ws3[t], a shared one would be a silent race) and calls the
very same single-state kernel, so every row is bit-for-bit the serial result. Rows are split
in contiguous chunks (not interleaved) so a thread walks memory forward.

Parameters come as a batch PRM (Np, njoints, NP) with Np = 1 (one robot for every row) or
Np = N (row r is robot r's: domain randomization, Monte Carlo over parameters); the rows of
one robot must stay together in memory, so a robot is one (njoints, NP) block.

Rollouts (``simulate_rows``) run on Python threads instead, as the simulator's do
(fastdyn/_internal/threads.py): their rows are long, and a parallel kernel compiles the
whole simulation over again. Every other ``*_batch`` kernel is a ``prange`` over
``*_chunk(t, nt, ...)``, which runs chunk t of
nt serially with workspace ws3[t]; ``*_chunk(0, 1, ...)`` is the whole batch on one thread
without entering numba's threading layer (what fastdyn.batch does in a process forked after
its parent ran GNU OpenMP threads, where a parallel region would hang).

The prange loops pass ``int64(t)``: numba types the loop index int64 while it infers the
function and uint64 in the parallel body it then builds, so a bare ``t`` compiles every chunk
kernel twice (about 1 s each on this project's 2-core machine); the cast makes both int64, the
signature the serial ``*_chunk(0, 1, ...)`` calls use too.
"""

from numba import int64, prange

from .._jit import jit
from ..layout import OM
from ..algorithms.aba import aba
from ..algorithms.crba import crba
from ..algorithms.forward_kinematics import forward_kinematics
from ..checks import first_nonfinite
from ..algorithms.regressor import joint_torque_regressor
from ..algorithms.rnea import rnea
from ..algorithms.simulate import simulate


@jit
def chunk(n, nthreads, t):
    size = (n + nthreads - 1) // nthreads
    lo = t * size
    return lo, min(n, lo + size)


@jit
def robot(PRM, r):
    """Which robot row r uses: r, or 0 for every row when the batch has one robot."""
    return r if PRM.shape[0] > 1 else 0


@jit
def diagonal_bad(M):
    """-1, or the first non-finite diagonal entry of a mass matrix M (a non-finite entry
    anywhere in CRBA's result puts one on the diagonal)."""
    for k in range(M.shape[0]):
        if not (M[k, k] - M[k, k] == 0.0):
            return k
    return -1


@jit
def rnea_chunk(t, nt, jnt, PRM, Q, V, A, fext, ws3, TAU, bad):
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        rnea(jnt, PRM[robot(PRM, r)], Q[r], V[r], A[r], fext, ws3[t], TAU[r])
        bad[r] = first_nonfinite(TAU[r])


@jit(parallel=True)
def rnea_batch(jnt, PRM, Q, V, A, fext, ws3, TAU, bad):
    """TAU[r] = rnea(Q[r], V[r], A[r]); bad[r] = -1, or the first non-finite entry of TAU[r]."""
    nt = ws3.shape[0]
    for t in prange(nt):
        rnea_chunk(int64(t), nt, jnt, PRM, Q, V, A, fext, ws3, TAU, bad)


@jit
def aba_chunk(t, nt, jnt, PRM, Q, V, TAU, fext, ws3, DDQ, bad):
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        bad[r] = aba(jnt, PRM[robot(PRM, r)], Q[r], V[r], TAU[r], fext, ws3[t], DDQ[r])
        if bad[r] < 0 and first_nonfinite(DDQ[r]) >= 0:
            bad[r] = 0


@jit(parallel=True)
def aba_batch(jnt, PRM, Q, V, TAU, fext, ws3, DDQ, bad):
    """DDQ[r] = aba(Q[r], V[r], TAU[r]); bad[r] = -1, or the joint whose D is not positive
    definite, or 0 (the universe) where DDQ[r] is not finite for another reason."""
    nt = ws3.shape[0]
    for t in prange(nt):
        aba_chunk(int64(t), nt, jnt, PRM, Q, V, TAU, fext, ws3, DDQ, bad)


@jit
def crba_chunk(t, nt, jnt, PRM, Q, ws3, MM, empty, bad):
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        crba(jnt, PRM[robot(PRM, r)], Q[r], ws3[t], MM[r], empty)
        bad[r] = diagonal_bad(MM[r])


@jit(parallel=True)
def crba_batch(jnt, PRM, Q, ws3, MM, empty, bad):
    """MM[r] = crba(Q[r]); bad[r] = -1, or the first non-finite diagonal entry of MM[r]."""
    nt = ws3.shape[0]
    for t in prange(nt):
        crba_chunk(int64(t), nt, jnt, PRM, Q, ws3, MM, empty, bad)


@jit
def forward_kinematics_chunk(t, nt, jnt, PRM, Q, ws3, OMI, empty, bad):
    lo, hi = chunk(Q.shape[0], nt, t)
    ws = ws3[t]
    for r in range(lo, hi):
        forward_kinematics(jnt, PRM[robot(PRM, r)], Q[r], empty, empty, ws)
        bad[r] = -1
        for i in range(jnt.shape[0]):
            for k in range(12):
                OMI[r, i, k] = ws[i, OM + k]
            if bad[r] < 0 and first_nonfinite(OMI[r, i]) >= 0:
                bad[r] = i


@jit(parallel=True)
def forward_kinematics_batch(jnt, PRM, Q, ws3, OMI, empty, bad):
    """OMI (N, njoints, 12): oMi of every row (R row-major, then p); bad[r] = -1, or the
    first joint whose placement in row r is not finite."""
    nt = ws3.shape[0]
    for t in prange(nt):
        forward_kinematics_chunk(int64(t), nt, jnt, PRM, Q, ws3, OMI, empty, bad)


@jit
def simulate_rows(t, lo, hi, jnt, PRM, Q0, V0, TORQUES, dt, fext, ws3, QS, VS, scratch, bad):
    """Rollouts lo..hi-1 with thread t's buffers: row r from (Q0[r], V0[r]) under TORQUES[r]
    (T, nv) into QS[r], VS[r]. On Python threads (fastdyn/_internal/threads.py, as the
    simulator's rollouts): rows are long, and a prange kernel would link and optimize the
    whole simulation again."""
    for r in range(lo, hi):
        bad[r] = simulate(jnt, PRM[robot(PRM, r)], Q0[r], V0[r], TORQUES[r], dt, fext, ws3[t],
                          QS[r], VS[r], scratch[t, 0])


@jit
def regressor_chunk(t, nt, jnt, PRM, Q, V, A, fext, ws3, YS, scratch, bad):
    """YS[r] = the joint torque regressor at (Q[r], V[r], A[r]) (regressor.py); bad[r] = -1,
    or its first column with a non-finite entry."""
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        bad[r] = joint_torque_regressor(jnt, PRM[robot(PRM, r)], Q[r], V[r], A[r], fext, ws3[t],
                                        YS[r], scratch[t, 0])


@jit(parallel=True)
def regressor_batch(jnt, PRM, Q, V, A, fext, ws3, YS, scratch, bad):
    nt = ws3.shape[0]
    for t in prange(nt):
        regressor_chunk(int64(t), nt, jnt, PRM, Q, V, A, fext, ws3, YS, scratch, bad)
