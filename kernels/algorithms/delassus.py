"""The Delassus matrix G = J M^-1 J^T of a step's constraint rows, with the tree-sparse
factorization M = U D U^T (cholesky.py), never a dense inverse.

Y = M^-1 J^T is computed one row of J at a time (Featherstone 2008, sec. 6.5: each solve
touches only the ancestors of a dof), then G_rs = J_r . Y_s; G is symmetric and positive
semi-definite (definite when the rows are independent). The compliance R = r diag(G) is added
to its diagonal (the regularization of the contact problem, as MuJoCo's soft constraints and
Pinocchio's proximal solvers regularize theirs: it keeps redundant rows, e.g. the four
corners of a box flat on the ground, well posed).
"""

from .._jit import jit
from .cholesky import solve


@jit
def delassus(dof, U, D, J, m, regularization, Y, G):
    """Y[:m] = rows of M^-1 J^T, G[:m, :m] = J M^-1 J^T + R."""
    nv = J.shape[1]
    for r in range(m):
        for k in range(nv):
            Y[r, k] = J[r, k]
        solve(dof, U, D, Y[r])
    for r in range(m):
        for s in range(r, m):
            acc = 0.0
            for k in range(nv):
                acc += J[r, k] * Y[s, k]
            G[r, s] = acc
            G[s, r] = acc
        G[r, r] *= 1.0 + regularization
