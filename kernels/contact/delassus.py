"""The Delassus matrix G = J M^-1 J^T of a step's constraint rows, with the tree-sparse
factorization M = U D U^T (cholesky.py), never a dense inverse.

With Z = D^-1/2 U^-1 J^T, G = Z^T Z: one triangular pass over the dofs (Featherstone 2008,
sec. 6.5: dof k's entries pass to its ancestors only), applied to all rows at once, then the
products of the columns of Z. Those are non-zero on shared supports only: a contact's or a
joint's row is non-zero on one dof and its ancestors, so a product runs up to the deepest dof
the two rows share (for two feet of a legged robot, the base's last dof), which halves a
quadruped's products. G is symmetric and positive semi-definite (definite when the rows are
independent).
The compliance R = r diag(G) is added to its diagonal (the regularization of the contact
problem, as MuJoCo's soft constraints and Pinocchio's proximal solvers regularize theirs: it
keeps redundant rows, e.g. the four corners of a box flat on the ground, well posed), except
on joint-limit rows, which hold exactly: unit rows on distinct dofs are independent, and the
other rows' compliance keeps G + R definite (a Schur complement of a positive semi-definite
G plus a positive diagonal; with R, a limit gave way by r G_rr P_r dt, 5e-5 rad on a UR5
at dt = 0.1 s, its rows coupled through M). A soft
contact (softness.py) has instead MuJoCo's regularizer R on its three rows (constraint_rows.py
computes it). The velocity change M^-1 J^T lambda takes one full solve after the percussions
are known.
"""

from math import nan, sqrt

from .._jit import jit
from ..linalg.cholesky import solve_upper_rows


@jit
def delassus(dof, U, D, J, m, regularization, soft, Z, G, tip):
    """G[:m, :m] = J M^-1 J^T + R, with R_rr = soft[r] on soft contact rows (soft[r] > 0),
    none on rigid rows (soft[r] < 0: joint limits, constraint_rows.RIGID) and
    regularization G_rr on the others. Z (C-contiguous, >= m nv floats) and tip (>= m,) are
    scratch: tip gets each row's ``_code``, Z's first m nv floats Z^T = D^-1/2 U^-1 J^T
    (nv, m), dof by dof, so that each step of the triangular pass updates every row's entry
    of one dof at once (contiguous, independent), instead of one row's entries in a
    dependent chain."""
    nv = J.shape[1]
    Zt = Z.reshape((Z.shape[0] * Z.shape[1],))[:nv * m].reshape((nv, m))
    for r in range(m):
        tip[r] = _code(dof, J, r)
    for k in range(nv):
        for r in range(m):
            Zt[k, r] = J[r, k]
    solve_upper_rows(dof, U, Zt)
    for k in range(nv):
        d = 1.0 / sqrt(D[k])
        for r in range(m):
            Zt[k, r] *= d
    for r in range(m):
        a = tip[r]
        seen, bound = nan, -1  # (the bound of the last s's code: a contact's rows share it)
        for s in range(r, m):
            b = tip[s]
            if b != seen:
                seen, bound = b, _shared(dof, a, b)
            acc = 0.0
            for k in range(bound + 1):
                acc += Zt[k, r] * Zt[k, s]
            G[r, s] = acc
            G[s, r] = acc
        if soft[r] > 0.0:
            G[r, r] += soft[r]
        elif soft[r] == 0.0:
            G[r, r] *= 1.0 + regularization


@jit
def _code(dof, J, r):
    """Row r's code: t, J[r]'s last non-zero dof (-1 for a zero row), when J[r] is non-zero on
    t and its ancestors only (a chain: a contact's or a joint's row), then so is row r of
    U^-1 J^T (dofs are numbered parents first, and U^-1 moves entries only to ancestors);
    -2 - t otherwise, when that row is non-zero up to t at most."""
    nv = J.shape[1]
    t = nv - 1
    while t >= 0 and J[r, t] == 0.0:
        t -= 1
    off = 0  # non-zeros up to t, then less those on t's chain
    for k in range(t + 1):
        off += J[r, k] != 0.0
    k = t
    while k >= 0:
        off -= J[r, k] != 0.0
        k = dof[k].parent
    return float(t) if off == 0 else float(-2 - t)


@jit
def _shared(dof, a, b):
    """The last dof on which two rows of U^-1 J^T with codes a, b (``_code``) can both be
    non-zero: their tips' deepest common ancestor when both are chains (the rows are non-zero
    on their tips' ancestors only), else the lower of their last non-zero dofs."""
    if a >= -1.0 and b >= -1.0:
        i, j = int(a), int(b)
        while i != j:  # (parents are numbered before their children)
            if i > j:
                i = dof[i].parent
            else:
                j = dof[j].parent
        return i
    i = int(a) if a >= -1.0 else -2 - int(a)
    j = int(b) if b >= -1.0 else -2 - int(b)
    return min(i, j)
