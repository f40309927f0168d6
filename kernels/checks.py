"""The checks every entry point makes inside its compiled call: sizes, finite entries, unit
parts of q, and the error codes they return (code * 1_000_000 + detail; the codes are listed in
kernels/entry/guard.py, and fastdyn/_internal/checks.py words them). Plain @jit functions,
callable from any kernel; they import nothing above the joint tables and the layout.
"""

from math import sqrt

from ._jit import jit
from .joints.codes import LIE_GROUP, UNIT_LENGTH, UNIT_OFFSET
from .layout import A, NP, NW, OM, V

CODE = 1_000_000


@jit
def first_nonfinite(x):
    for k in range(x.shape[0]):
        if not (x[k] - x[k] == 0.0):  # false for nan and +-inf
            return k
    return -1


@jit
def first_nonfinite_row(ws, col, width, rows):
    """-1, or the first of ``rows`` rows whose columns col..col+width are not all finite."""
    for i in range(rows):
        for k in range(col, col + width):
            if not (ws[i, k] - ws[i, k] == 0.0):
                return i
    return -1


@jit
def nq_nv(jnt):
    """(nq, nv) of the model: joints are numbered depth first with idx_q, idx_v increasing."""
    n = jnt.shape[0]
    if n < 2:
        return 0, 0
    return jnt[n - 1].idx_q + jnt[n - 1].nq, jnt[n - 1].idx_v + jnt[n - 1].nv


@jit
def check_state(jnt, prm, q, v, a, fext, ws, tol):
    """0, or the code of the first problem found (see the module docstring). ``v`` and ``a``
    may be empty (not given)."""
    if (ws.shape[0] != jnt.shape[0] or ws.shape[1] != NW or prm.shape[0] != jnt.shape[0]
            or prm.shape[1] != NP):
        return 8 * CODE
    return check_inputs(jnt, q, v, a, fext, tol)


@jit
def check_inputs(jnt, q, v, a, fext, tol):
    """check_state without a workspace: sizes, finiteness, unit parts of q."""
    nq, nv = nq_nv(jnt)
    n = jnt.shape[0]
    if (q.shape[0] != nq or (v.shape[0] != nv and v.shape[0] != 0)
            or (a.shape[0] != nv and a.shape[0] != 0)
            or (fext.shape[0] != n and fext.shape[0] != 0) or fext.shape[1] != 6):
        return 8 * CODE
    k = first_nonfinite(q)
    if k >= 0:
        return 1 * CODE + k
    k = first_nonfinite(v)
    if k >= 0:
        return 2 * CODE + k
    k = first_nonfinite(a)
    if k >= 0:
        return 3 * CODE + k
    for r in range(fext.shape[0]):
        for c in range(6):
            if not (fext[r, c] - fext[r, c] == 0.0):
                return 4 * CODE + r
    for i in range(1, n):
        g = LIE_GROUP[jnt[i].type]
        if UNIT_LENGTH[g] == 0:
            continue
        o = jnt[i].idx_q + UNIT_OFFSET[g]
        s = 0.0
        for k in range(UNIT_LENGTH[g]):
            s += q[o + k] ** 2
        if abs(sqrt(s) - 1.0) > tol:
            return 5 * CODE + i
    return 0


@jit
def all_nv(jnt, x, y, z):
    nv = nq_nv(jnt)[1]
    return x.shape[0] == nv and y.shape[0] == nv and z.shape[0] == nv


@jit
def overflow_code(k):
    """Code 7 for a non-finite result entry k (-1: none)."""
    return 0 if k < 0 else 7 * CODE + k


@jit
def placements_overflow(jnt, ws, v, a):
    """Code 7 if a placement (or, when given, a velocity or acceleration) is not finite."""
    n = jnt.shape[0]
    k = first_nonfinite_row(ws, OM + 9, 3, n)
    if k < 0 and v.shape[0] > 0:
        k = first_nonfinite_row(ws, V, 6, n)
    if k < 0 and a.shape[0] > 0:
        k = first_nonfinite_row(ws, A, 6, n)
    return overflow_code(k)


@jit
def is_square(nv, X):
    return X.shape[0] == nv and X.shape[1] == nv


@jit
def diagonal_overflow(X):
    """Code 7 for the first non-finite diagonal entry of X (0: none). A non-finite entry
    anywhere comes with one on the diagonal or in the vector results (they are computed from
    the same products of the inputs), so the diagonal is the cheap witness."""
    for k in range(X.shape[0]):
        if not (X[k, k] - X[k, k] == 0.0):
            return 7 * CODE + k
    return 0
