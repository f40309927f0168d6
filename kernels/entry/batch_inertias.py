"""Batches over inertias: every row its own body inertias, everything else the model's.

A Monte Carlo study over a robot's masses, centres of mass and rotational inertias changes 10
numbers a body. These kernels read them from PI (Np, njoints - 1, 10), body i of robot s in
PI[s, i - 1] (fastdyn.sample_parameters' layout, Pinocchio's dynamic-parameter order), and the
placements, axes, armature and gravity from the model's one table prm (njoints, NP). A row then
streams 80 bytes a body where a full parameter batch (batch.py) streams a whole NP-column
row: on Talos, 10,000 robots of full tables are 180 MB and RNEA spends more time waiting for
them than computing (bench/test_montecarlo.py).

Np = 1 (one set of inertias for every row) or N (row r with PI[r]), as batch.py's PRM. Each row
is checked first (parameter_check.pi_violation: finite, mass >= 0) where its numbers are about
to be read anyway; a row that fails is left NaN for fastdyn.batch to name. Rows are split in
contiguous chunks, one workspace per thread, and call the single-state kernels
(rnea_inertias, aba_inertias, crba_inertias), so each row is the serial result bit for bit.
"""

import numpy as np
from numba import int64, prange

from .._jit import jit
from ..algorithms.aba import aba_inertias
from .batch import chunk, diagonal_bad, robot
from ..algorithms.crba import crba_inertias
from ..checks import first_nonfinite
from .parameter_check import pi_violation
from ..algorithms.rnea import rnea_inertias


@jit
def rnea_chunk(t, nt, jnt, prm, PI, Q, V, A, fext, ws3, TAU, bad):
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        pi = PI[robot(PI, r)]
        if pi_violation(pi) < 0:
            rnea_inertias(jnt, prm, pi, Q[r], V[r], A[r], fext, ws3[t], TAU[r])
        else:
            TAU[r, :] = np.nan
        bad[r] = first_nonfinite(TAU[r])


@jit(parallel=True)
def rnea_batch(jnt, prm, PI, Q, V, A, fext, ws3, TAU, bad):
    """TAU[r] = rnea(Q[r], V[r], A[r]) with inertias PI[r]; bad[r] = -1, or the first
    non-finite entry of TAU[r]."""
    nt = ws3.shape[0]
    for t in prange(nt):
        rnea_chunk(int64(t), nt, jnt, prm, PI, Q, V, A, fext, ws3, TAU, bad)


@jit
def aba_chunk(t, nt, jnt, prm, PI, Q, V, TAU, fext, ws3, DDQ, bad):
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        pi = PI[robot(PI, r)]
        if pi_violation(pi) < 0:
            bad[r] = aba_inertias(jnt, prm, pi, Q[r], V[r], TAU[r], fext, ws3[t], DDQ[r])
        else:
            DDQ[r, :] = np.nan
            bad[r] = -1
        if bad[r] < 0 and first_nonfinite(DDQ[r]) >= 0:
            bad[r] = 0


@jit(parallel=True)
def aba_batch(jnt, prm, PI, Q, V, TAU, fext, ws3, DDQ, bad):
    """DDQ[r] = aba(Q[r], V[r], TAU[r]) with inertias PI[r]; bad[r] as batch.aba_batch."""
    nt = ws3.shape[0]
    for t in prange(nt):
        aba_chunk(int64(t), nt, jnt, prm, PI, Q, V, TAU, fext, ws3, DDQ, bad)


@jit
def crba_chunk(t, nt, jnt, prm, PI, Q, ws3, MM, empty, bad):
    lo, hi = chunk(Q.shape[0], nt, t)
    for r in range(lo, hi):
        pi = PI[robot(PI, r)]
        if pi_violation(pi) < 0:
            crba_inertias(jnt, prm, pi, Q[r], ws3[t], MM[r], empty)
        else:
            MM[r] = np.nan
        bad[r] = diagonal_bad(MM[r])


@jit(parallel=True)
def crba_batch(jnt, prm, PI, Q, ws3, MM, empty, bad):
    """MM[r] = crba(Q[r]) with inertias PI[r]; bad[r] as batch.crba_batch."""
    nt = ws3.shape[0]
    for t in prange(nt):
        crba_chunk(int64(t), nt, jnt, prm, PI, Q, ws3, MM, empty, bad)
