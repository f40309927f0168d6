"""The constraint forces of a rigid constraint set: G lambda = b, directly or by proximal steps.

Source: Carpentier, Budhiraja, Mansard, "Proximal and sparse resolution of constrained dynamic
equations", RSS 2021, sec. III-IV (the proximal method of multipliers on the KKT system), as
Pinocchio's constraintDynamics runs it. G = J M^-1 J^T (the Delassus matrix) is positive
semi-definite; it is singular when rows are redundant (two contacts at one point, a foot's
frame contact beside point contacts on it). The proximal step
    (G + mu I) lambda_k+1 = b + mu lambda_k,    lambda_0 = 0,
solves a positive-definite system for any mu > 0. For b in the range of G (a consistent set)
it converges to the least-norm solution G^+ b: the error along an eigenvector of G with
eigenvalue s shrinks by mu / (s + mu) per step, and the part in G's null space, zero at the
start, stays zero. It stops when |G lambda - b|_inf (the constraint's violation, J ddq - rhs)
or |lambda_k+1 - lambda_k|_inf is within its accuracy (prox, layout.X_*), or after
X_MAX_ITER steps. With mu = 0 it is one Cholesky solve, refused on a singular G.
"""

from .._jit import jit
from ..layout import X_ABS_ACC, X_ABS_RES, X_ITER, X_MAX_ITER, X_MU, X_REL_ACC, X_REL_RES
from ..linalg.dense import solve_factored

# With mu = 0, a pivot of G at most this fraction of its diagonal entry makes row j dependent
# on the rows before it: 1e-10 is an angle of 1e-5 rad (in M^-1's metric) between the row and
# their span, where exactly dependent rows give round-off, 1e-16 to 1e-14.
DEPENDENT = 1e-10


@jit
def factor(G, m, mu, F):
    """F[:m, :m]'s lower triangle = the Cholesky factor of G + mu I. Returns -1, or the first
    row j whose pivot is not positive or (mu = 0) at most DEPENDENT G_jj."""
    for j in range(m):
        d = G[j, j] + mu
        for k in range(j):
            d -= F[j, k] * F[j, k]
        floor = DEPENDENT * G[j, j] if mu == 0.0 else 0.0
        if not d > floor:
            return j
        d = d ** 0.5
        F[j, j] = d
        inv = 1.0 / d
        for i in range(j + 1, m):
            acc = G[i, j]
            for k in range(j):
                acc -= F[i, k] * F[j, k]
            F[i, j] = acc * inv
    return -1


@jit
def proximal_solve(G, F, b, prox, lam, prev):
    """lam (m,) from G lam = b with F = ``factor``(G, m, mu): one solve (mu = 0) or the
    proximal steps above; prev (m,) is scratch. Writes X_ITER, X_ABS_RES, X_REL_RES."""
    m = lam.shape[0]
    mu = prox[X_MU]
    steps = 1 if mu == 0.0 else max(1, int(prox[X_MAX_ITER]))
    for r in range(m):
        prev[r] = 0.0
    it = 0
    absolute = relative = 0.0
    while it < steps:
        it += 1
        for r in range(m):
            lam[r] = b[r] + mu * prev[r]
        solve_factored(F, m, lam)
        absolute = relative = 0.0
        for r in range(m):
            acc = -b[r]
            for k in range(m):
                acc += G[r, k] * lam[k]
            absolute = max(absolute, abs(acc))
            relative = max(relative, abs(lam[r] - prev[r]))
            prev[r] = lam[r]
        if absolute <= prox[X_ABS_ACC] or relative <= prox[X_REL_ACC]:
            break
    prox[X_ITER] = it
    prox[X_ABS_RES] = absolute
    prox[X_REL_RES] = relative
