"""Batches of constrained and impulse dynamics: rows lo..hi-1 on thread t's buffers.

``*_rows(t, lo, hi, ...)`` runs the checked single-state kernel of guard_constrained.py on
each row r in lo..hi-1 with robot PRM[r] (or PRM[0] for every row), thread t's workspace
ws3[t], scratch WORK[t, 0] and proximal settings PROX[t, 0] (each thread its own copy: the
kernel writes its iteration count and residuals there; layout.per_thread's rows). The object
API hands blocks of rows to Python threads as they free up (fastdyn/_internal/threads.py):
no parallel kernel is compiled, and a row is bit for bit the single call, whichever thread
runs it.

Per row: STATUS[r] = (code, status, detail, iterations) as the single call's (code: the
input check's, 0 when the kernel ran; status, detail: the kernel's; iterations: of the
proximal solve, 0 for a direct one) and RES[r] = (|J ddq - rhs|_inf, last relative change
of lambda) when the proximal solve ran.
"""

from .._jit import jit
from ..layout import X_ABS_RES, X_ITER, X_REL_RES
from .batch import robot
from .guard_constrained import constraint_dynamics_checked, impulse_dynamics_checked


@jit
def _record(r, code, status, detail, prox, STATUS, RES):
    STATUS[r, 0] = code
    STATUS[r, 1] = status
    STATUS[r, 2] = detail
    STATUS[r, 3] = int(prox[X_ITER])
    RES[r, 0] = prox[X_ABS_RES]
    RES[r, 1] = prox[X_REL_RES]


@jit
def constraint_dynamics_rows(t, lo, hi, jnt, PRM, dof, cst, Q, V, TAU, PROX, ws3, WORK, DDQ,
                             LAM, no_forces, tol, STATUS, RES):
    """DDQ[r], LAM[r] = constraint_dynamics(Q[r], V[r], TAU[r]) for r in lo..hi-1."""
    prox, ws, work = PROX[t, 0], ws3[t], WORK[t, 0]
    for r in range(lo, hi):
        prox[X_ITER] = 0.0
        code, status, detail = constraint_dynamics_checked(
            jnt, PRM[robot(PRM, r)], dof, cst, Q[r], V[r], TAU[r], prox, ws, work, DDQ[r],
            LAM[r], no_forces, tol)
        _record(r, code, status, detail, prox, STATUS, RES)


@jit
def impulse_dynamics_rows(t, lo, hi, jnt, PRM, dof, cst, Q, V, restitution, PROX, ws3, WORK,
                          VA, LAM, no_forces, tol, STATUS, RES):
    """VA[r], LAM[r] = impulse_dynamics(Q[r], V[r], restitution) for r in lo..hi-1."""
    prox, ws, work = PROX[t, 0], ws3[t], WORK[t, 0]
    for r in range(lo, hi):
        prox[X_ITER] = 0.0
        code, status, detail = impulse_dynamics_checked(
            jnt, PRM[robot(PRM, r)], dof, cst, Q[r], V[r], restitution, prox, ws, work,
            VA[r], LAM[r], no_forces, tol)
        _record(r, code, status, detail, prox, STATUS, RES)
