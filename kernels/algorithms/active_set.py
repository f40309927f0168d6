"""A start for the contact solver: the exact solution on a guessed active set.

The problem is pgs.py's (u = G lam + c, G with the compliance; contacts in their Coulomb cones
with De Saxce's correction, 1-D rows in [lo, hi]). Once the active set is known -- which
contacts stick (lam_n > 0 strictly inside the cone: u = 0 on their three rows, the correction
vanishes with u_t), which are apart (lam = 0), which 1-D rows are between their bounds
(u_r = 0) or at one (lam_r = that bound) -- the problem is the linear system
    G_AA lam_A = -(c_A + G_AB lam_B)
on the sticking and interior rows A, the others B fixed: the basis of a complementarity
problem determines its solution (Cottle, Pang & Stone, "The Linear Complementarity Problem",
1992, sec. 1.1 and 4.1, the idea of pivoting methods; Acary & Brogliato 2008, sec. 12.4, on
active-set methods for frictional contact). A robot standing, landing or creeping on its feet
keeps its active set from one step to the next, where Gauss-Seidel, slowed by the coupling of
the feet through the base, takes tens of sweeps to reach the tolerance.

``active_set_start`` reads the active set from lam (the warm start after a few sweeps),
solves that system (dense Cholesky of G_AA, G being positive definite with its
compliance) and keeps the solution only if it is consistent with the set (sticking contacts
inside their cones with lam_n > 0, interior rows within their bounds); a set with a sliding
contact (lam on the cone's boundary: its tangent equations are not linear) is not tried. A
sweep of the solver from it then checks the conditions that were not imposed (the contacts
apart must not approach, u_n >= 0; rows at a bound must push the right way): when the guess
was right it changes nothing (residual at round-off), and the solution meets the solver's
tolerance (time_step._pgs keeps it only then).
"""

from math import sqrt

from .._jit import jit
from .dense import factor_shifted, solve_factored


@jit
def active_set_start(G, c, mu, nc, lo, hi, m, lam, work):
    """lam[:m] <- the solution on lam's active set (module docstring) when there is one that
    agrees with it; returns True then, False with lam unchanged otherwise. work: at least
    m * m + 3 m floats (PGS's share of the solver workspace, which ADMM uses otherwise)."""
    flag = work[:m]
    k = 0
    for i in range(nc):
        n = 3 * i
        ln = lam[n]
        stick = 0.0
        if ln > 0.0:
            if not sqrt(lam[n + 1] ** 2 + lam[n + 2] ** 2) < mu[i] * ln:
                return False  # sliding: its tangent rows are not linear equations
            stick = 1.0
            k += 3
        flag[n] = flag[n + 1] = flag[n + 2] = stick
    for r in range(3 * nc, m):
        flag[r] = 1.0 if lo[r] < lam[r] < hi[r] else 0.0
        k += int(flag[r])
    if k == 0:
        return False
    b = work[m:m + k]
    x = work[m + k:m + 2 * k]
    A = work[m + 2 * k:m + 2 * k + k * k].reshape((k, k))
    a = 0
    for r in range(m):
        if flag[r] == 0.0:
            continue
        acc = c[r]
        e = 0
        for s in range(m):
            if flag[s] == 0.0:
                acc += G[r, s] * lam[s]
            else:
                A[a, e] = G[r, s]
                e += 1
        b[a] = -acc
        a += 1
    if not factor_shifted(A, k, 0.0, A):
        return False
    for a in range(k):
        x[a] = b[a]
    solve_factored(A, k, x)
    a = 0
    for r in range(m):  # consistent with the set? (NaN fails every test)
        if flag[r] != 0.0:
            if r >= 3 * nc and not lo[r] <= x[a] <= hi[r]:
                return False
            a += 1
    a = 0
    for i in range(nc):
        n = 3 * i
        if flag[n] != 0.0:
            ln, t1, t2 = x[a], x[a + 1], x[a + 2]
            if not (ln > 0.0 and sqrt(t1 * t1 + t2 * t2) <= mu[i] * ln):
                return False
            a += 3
    a = 0
    for r in range(m):
        if flag[r] != 0.0:
            lam[r] = x[a]
            a += 1
    return True
