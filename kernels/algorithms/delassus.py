"""The Delassus matrix G = J M^-1 J^T of a step's constraint rows, with the tree-sparse
factorization M = U D U^T (cholesky.py), never a dense inverse.

With Z = D^-1/2 U^-1 J^T, G = Z^T Z: one triangular pass per row of J (Featherstone 2008,
sec. 6.5: the pass touches only the ancestors of a dof, so a contact's row costs its
support), then the products of the columns of Z, which are non-zero on shared supports
only. G is symmetric and positive semi-definite (definite when the rows are independent).
The compliance R = r diag(G) is added to its diagonal (the regularization of the contact
problem, as MuJoCo's soft constraints and Pinocchio's proximal solvers regularize theirs: it
keeps redundant rows, e.g. the four corners of a box flat on the ground, well posed). A soft
contact (softness.py) has instead MuJoCo's regularizer R on its three rows (constraint_rows.py
computes it). The velocity change M^-1 J^T lambda takes one full solve after the percussions
are known.
"""

from math import sqrt

from .._jit import jit
from .cholesky import solve_upper


@jit
def delassus(dof, U, D, J, m, regularization, soft, Z, G):
    """Z[:m] = rows of D^-1/2 U^-1 J^T, G[:m, :m] = J M^-1 J^T + R, with R_rr = soft[r] on
    soft contact rows (soft[r] > 0) and regularization G_rr on the others."""
    nv = J.shape[1]
    for r in range(m):
        z = Z[r]
        for k in range(nv):
            z[k] = J[r, k]
        solve_upper(dof, U, z)
        for k in range(nv):
            z[k] /= sqrt(D[k])
    for r in range(m):
        for s in range(r, m):
            acc = 0.0
            for k in range(nv):
                acc += Z[r, k] * Z[s, k]
            G[r, s] = acc
            G[s, r] = acc
        if soft[r] > 0.0:
            G[r, r] += soft[r]
        else:
            G[r, r] *= 1.0 + regularization
