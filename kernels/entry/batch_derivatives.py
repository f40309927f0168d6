"""Batches of dynamics derivatives and step Jacobians: prange over contiguous chunks of rows,
as batch.py (its docstring says why: one workspace per thread, every row the single-state
kernel's bits, parameters one robot for all rows or one per row); the step Jacobians' rows
run on Python threads instead (``step_derivatives_rows``).

External forces FEXT are (1, 0, 6) for none, (1, njoints, 6) for the same forces on every row,
or (N, njoints, 6), one set per row.

The input rows are taken as ``Q[r, ::1]``: numba types such a slice as an any-layout vector,
the type the object API's single calls give q, v and a (fastdyn/_internal/fastcall.py), so the
derivative kernels compile once for both (a C-contiguous row is another type: the whole
kernel tree compiled again, ~20-40 s). The rows are read a few times per state against
thousands of operations, so the layout costs nothing measurable here; batch.py's cheap
kernels keep C rows (measured 0-10 % faster per row there; here interleaved runs showed no
difference beyond the noise, about 3 %).
"""

from numba import int64, prange

from .._jit import jit
from ..algorithms.aba_derivatives import aba_derivatives
from .batch import chunk, robot
from ..checks import first_nonfinite
from ..algorithms.rnea_derivatives import rnea_derivatives
from ..contact.step_derivatives import step_derivatives_inlined


@jit
def forces(FEXT, r):
    """Which forces row r uses: r, or 0 when every row shares them (an index, as
    batch.robot: a kernel compiled without numba's runtime cannot return a view)."""
    return r if FEXT.shape[0] > 1 else 0


@jit
def _diagonal(X):
    """-1, or the first non-finite diagonal entry of X (the cheap witness of guard.py)."""
    for k in range(X.shape[0]):
        if not (X[k, k] - X[k, k] == 0.0):
            return k
    return -1


@jit
def rnea_derivatives_chunk(t, nt, jnt, PRM, Q, V, A, FEXT, ws3, DQ, DV, MM, empty, bad):
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        rnea_derivatives(jnt, PRM[robot(PRM, r)], Q[r, ::1], V[r, ::1], A[r, ::1],
                         FEXT[forces(FEXT, r)], ws3[t], empty, DQ[r], DV[r], MM[r])
        bad[r] = max(_diagonal(DQ[r]), _diagonal(DV[r]), _diagonal(MM[r]))


@jit(parallel=True)
def rnea_derivatives_batch(jnt, PRM, Q, V, A, FEXT, ws3, DQ, DV, MM, empty, bad):
    """DQ[r], DV[r], MM[r] = rnea_derivatives(Q[r], V[r], A[r]); bad[r] = -1, or >= 0 where a
    diagonal is not finite (an overflow)."""
    nt = ws3.shape[0]
    for t in prange(nt):
        rnea_derivatives_chunk(int64(t), nt, jnt, PRM, Q, V, A, FEXT, ws3, DQ, DV, MM, empty, bad)


@jit
def aba_derivatives_chunk(t, nt, jnt, PRM, dof, Q, V, TAU, FEXT, ws3, DDQ, DQ, DV, MINV, MS,
                          US, DS, bad):
    """MS, US (nt, s, nv, nv), DS (nt, s, nv): thread t's M and factorization (scratch) at
    [t, 0] (fastdyn.kernels.layout.per_thread)."""
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        bad[r] = aba_derivatives(jnt, PRM[robot(PRM, r)], dof, Q[r, ::1], V[r, ::1],
                                 TAU[r, ::1], FEXT[forces(FEXT, r)], ws3[t], DDQ[r], DQ[r],
                                 DV[r], MS[t, 0], US[t, 0], DS[t, 0], MINV[r])
        if bad[r] < 0 and max(first_nonfinite(DDQ[r]), _diagonal(DQ[r]), _diagonal(DV[r]),
                              _diagonal(MINV[r])) >= 0:
            bad[r] = 0


@jit(parallel=True)
def aba_derivatives_batch(jnt, PRM, dof, Q, V, TAU, FEXT, ws3, DDQ, DQ, DV, MINV, MS, US, DS,
                          bad):
    """DDQ[r], DQ[r], DV[r], MINV[r] = aba_derivatives(Q[r], V[r], TAU[r]); bad[r] = -1, the
    joint whose inertia is singular, or 0 (the universe) where a result is not finite."""
    nt = ws3.shape[0]
    for t in prange(nt):
        aba_derivatives_chunk(int64(t), nt, jnt, PRM, dof, Q, V, TAU, FEXT, ws3, DDQ, DQ, DV,
                              MINV, MS, US, DS, bad)


@jit
def step_derivatives_rows(t, lo, hi, jnt, PRM, dof, sph, hsp, geo, eqc, opt, Q, V, TAU, FEXT,
                          ws3, FBUF, IBUF, DBUF, QN, VN, AA, BB, bad):
    """QN[r], VN[r], AA[r], BB[r] = step_derivatives(Q[r], V[r], TAU[r]) for rows lo..hi-1 with
    thread t's buffers FBUF[t, 0], IBUF[t, 0], DBUF[t, 0] (layout.per_thread); bad[r] = -1, or
    the kernel's code (CODE multiples). Run on Python threads (fastdyn/_internal/threads.py),
    not in a prange kernel: a parallel kernel links and optimizes the whole step and its
    derivatives again (measured 46 s of the first batch's 56 s compile on the quadruped)."""
    for r in range(lo, hi):
        code = step_derivatives_inlined(jnt, PRM[robot(PRM, r)], dof, sph, hsp, geo, eqc, opt,
                                        Q[r, ::1], V[r, ::1], TAU[r, ::1], FEXT[forces(FEXT, r)],
                                        ws3[t], FBUF[t, 0], IBUF[t, 0], DBUF[t, 0], QN[r], VN[r],
                                        AA[r], BB[r])
        bad[r] = -1 if code == 0 else code
