"""ADMM: the contact percussions of one time step, for problems Gauss-Seidel cannot solve.

The problem is pgs.py's: u = G lam + c (G includes the compliance R), lam_i in the Coulomb
disc cone K_i = {||lam_t|| <= mu_i lam_n} of contact i (rows 3i: normal, 3i+1, 3i+2:
tangents) with De Saxce's correction (u_i + s_i in the dual cone K_i* = {||u_t|| <= u_n / mu_i},
orthogonal to lam_i, s_i = (mu_i ||u_t,i||, 0, 0)), and lo_r <= lam_r <= hi_r on the 1-D rows
(u_r >= 0 at lo_r, u_r <= 0 at hi_r, u_r = 0 between). With the shift s frozen, this is the
optimality condition of the conic program min 1/2 lam^T G lam + (c + s)^T lam over K, which the
alternating direction method of multipliers splits into a linear solve and a projection
(Boyd et al., "Distributed Optimization and Statistical Learning via the Alternating Direction
Method of Multipliers", FnT ML 3(1), 2011, sec. 3 and 5; applied to the De Saxce fixed point
of the friction NCP by Carpentier, Le Lidec, Montaut, "From Compliant to Rigid Contact
Simulation: a Unified and Efficient Approach", RSS 2024, the method of Pinocchio's
ADMMConstraintSolver; the proximal view: Carpentier, Budhiraja, Mansard, "Proximal and Sparse
Resolution of Constrained Dynamic Equations", RSS 2021). One iteration, x the percussions of
the linear step, y their copy in K, z the dual variable (a velocity):
  s  = (mu_i ||z_t,i||, 0, 0) per contact, 0 on 1-D rows       (De Saxce, from the last z)
  x  = (G + rho I)^-1 (rho y + z - c - s)
  y  = Proj_K(x - z / rho)
  z  = z - rho (x - y)
Projections: on the disc cone K_mu, (n, t) with r = ||t|| is kept when r <= mu n, sent to 0
when mu r <= -n (its polar cone) and otherwise to alpha (1, mu t / r) with
alpha = (n + mu r) / (1 + mu^2) (the nearest point of the cone's boundary ray); on a 1-D row a
clip to [lo, hi]. By Moreau's decomposition of x - z / rho, the new z is rho times minus its
polar part: z lies in K* (the right signs on 1-D rows) and is orthogonal to y, whatever the
iterate; y is in K. What is left to converge is u + s(u) = z, u = G y + c. The residual that
stops the iteration is, in m/s (rad/s on joint rows), the distance (largest component) from
u + s(u) to the velocities that the conditions admit at y, Z(y) = {w in K*, w orthogonal to y}:
  contact, y = 0:                 K* itself           (distance to the dual-cone projection)
  contact, y inside K:            {0}
  contact, y on the boundary:     the ray alpha (mu, -y_t / ||y_t||), alpha >= 0  (sliding
                                  opposite the friction; "on" within 1e-9 relative)
  1-D row at lo (at hi, between): w >= 0 (w <= 0, w = 0)
(<= tol: y solves the problem with velocities within tol of exact; NaN if any is NaN). The
same residual is taken at the warm start first: when it is within tol there, no iteration is
made. lam = y on return.
The penalty rho follows the spectral rule (Carpentier et al. 2024, after Ghadimi et al.,
"Optimal Parameter Selection for the ADMM: Quadratic Problems", IEEE TAC 60(3), 2015, whose
optimum for a quadratic with Hessian spectrum in [l, L] is of the order of sqrt(l L)): with L
the largest eigenvalue of G (power iteration) and l = L / KAPPA (G's smallest eigenvalue is
not estimated: with redundant contacts it is the compliance's, or 0), rho starts at
sqrt(l L) (L / l)^RHO_POWER, and after each iteration whose primal residual
L ||x - y||_inf (made a velocity by L) exceeds RATIO times its dual residual
rho ||y - y_prev||_inf (or the reverse) rho is multiplied (divided) by (L / l)^RHO_STEP,
within [l, KAPPA L]. G + rho I is factorized (Cholesky within G's envelope, the rows' spans
of delassus.py: a band for a stack of objects, all of G for one robot's contacts) at the
start and again only when rho changes.
Polishing (Stellato et al., "OSQP: an operator splitting solver for quadratic programs",
Math. Prog. Comp. 12, 2020, sec. 4): after POLISH iterations, then 2 POLISH, 4 POLISH, ...
and after the last, the exact solution on the active set the iterate y shows
(active_set.py: a linear solve on the sticking and interior rows, refined by block pivoting)
is taken when its residual is within tol (after the last iteration: below y's); otherwise
the iterations go on from y and z as they were. ADMM converges linearly, and slowly on a
humanoid's redundant sole corners coupled with joint dry friction (Talos standing: 952 of
3000 steps at the 200-iteration cap, residuals up to 8e-3 m/s); polished, 16 steps miss, and
random problems of sticking and separating contacts end at iteration POLISH to round-off
where 5 to 160 iterations reached 1e-12 m/s. A set with a sliding contact is not linear:
there ADMM's own iterate is the answer.
The warm start lam is projected on K, and z starts at the dual-cone projection of u + s(u)
there; a warm start at the solution returns (0, residual) (pgs.py's count is the same: its
last sweep, which changes nothing, is not counted).
"""

from math import sqrt

from .._jit import jit
from .active_set import active_set_start
from .pgs import columns, full_spans
from ..linalg.dense import (affine, factor_envelope, factor_shifted, solve_envelope,
                            solve_factored)

KAPPA = 1e8  # assumed condition number of G: the spectral window [L / KAPPA, L]
RHO_POWER = 0.2  # rho = sqrt(l L) (L / l)^RHO_POWER at the start (Pinocchio's default)
RHO_STEP = 0.05  # rho changes by (L / l)^RHO_STEP (Pinocchio's default)
RATIO = 10.0  # primal / dual residual ratio that changes rho (Boyd et al. 2011, sec. 3.4.1)
POWER_ITERATIONS = 8
POLISH = 4  # iterations before the first polish; again after 8, 16, ... and at the last
NAN = float("nan")


@jit
def work_size(m):
    """Floats of the workspace ``admm`` needs for m rows: a factor and six vectors (and two
    for active_set.py's envelope)."""
    return m * m + 8 * m


@jit
def _cone(mu, n, t1, t2):
    """The projection of (n, t1, t2) on the disc cone {||t|| <= mu n}."""
    r = sqrt(t1 * t1 + t2 * t2)
    if r <= mu * n:
        return n, t1, t2
    if mu * r <= -n:
        return 0.0, 0.0, 0.0
    a = (n + mu * r) / (1.0 + mu * mu)
    return a, mu * a * t1 / r, mu * a * t2 / r


@jit
def _dual_cone(mu, n, t1, t2):
    """The projection of (n, t1, t2) on the dual cone {mu ||t|| <= n} (a half-space when
    mu = 0)."""
    r = sqrt(t1 * t1 + t2 * t2)
    if mu * r <= n:
        return n, t1, t2
    if r <= -mu * n:
        return 0.0, 0.0, 0.0
    a = (mu * n + r) / (1.0 + mu * mu)
    return mu * a, a * t1 / r, a * t2 / r


@jit
def _shift(mu, nc, m, z, s):
    """s = De Saxce's shift of the velocities z: (mu ||z_t||, 0, 0) per contact, 0 on 1-D
    rows."""
    for i in range(nc):
        n = 3 * i
        s[n] = mu[i] * sqrt(z[n + 1] * z[n + 1] + z[n + 2] * z[n + 2])
        s[n + 1] = 0.0
        s[n + 2] = 0.0
    for r in range(3 * nc, m):
        s[r] = 0.0


@jit(inline="always")  # returns views: compiled into its caller (_jit.py)
def _envelope(span, m, work):
    """(first, reach): views of work[m m + 6m:], first the first column of each row of G
    that can be non-zero (span's, or 0: dense), for ``factor_envelope`` (the polish's active
    set writes over them: made again before each factorization)."""
    first = work[m * m + 6 * m:m * m + 7 * m]
    reach = work[m * m + 7 * m:m * m + 8 * m]
    full = full_spans(span)
    for r in range(m):
        first[r] = float(columns(span, m, r, full)[0])
    return first, reach


@jit
def _refactor(G, m, rho, step, limit, F, span, work):
    """Factor G + rho I (within G's envelope), raising rho by ``step`` while a pivot is not
    positive (rounding, on a singular G); returns rho, or NaN once it passes ``limit`` (G is
    not finite)."""
    first, reach = _envelope(span, m, work)
    while not (factor_shifted(G, m, rho, F) if full_spans(span)
               else factor_envelope(G, m, first, reach, F, rho)):
        rho *= step
        if not rho <= limit:
            return NAN
    return rho


@jit
def _largest_eigenvalue(G, m, v, w, span):
    """A power-iteration estimate of G's largest eigenvalue (G symmetric, >= 0)."""
    for r in range(m):
        v[r] = 1.0 + r / m  # not orthogonal to the leading eigenvector in practice
    ev = 0.0
    for _ in range(POWER_ITERATIONS):
        norm = 0.0
        for r in range(m):
            norm += v[r] * v[r]
        norm = sqrt(norm)
        if not norm > 0.0:
            return 0.0
        for r in range(m):
            v[r] /= norm
        ev = 0.0
        for r in range(m):
            acc = 0.0
            k0, k1 = columns(span, m, r, full_spans(span))
            for k in range(k0, k1):
                acc += G[r, k] * v[k]
            w[r] = acc
            ev += acc * v[r]
        for r in range(m):
            v[r] = w[r]
    return ev


@jit
def _contact_gap(mu, y0, y1, y2, w0, w1, w2):
    """The distance (largest component) from w to Z(y) of one contact (module docstring)."""
    if y0 <= 0.0:  # the projection on K left y = 0
        p0, p1, p2 = _dual_cone(mu, w0, w1, w2)
        return max(abs(w0 - p0), abs(w1 - p1), abs(w2 - p2))
    r = sqrt(y1 * y1 + y2 * y2)
    if r < mu * y0 * (1.0 - 1e-9):
        return max(abs(w0), abs(w1), abs(w2))
    if r == 0.0:  # mu = 0: Z(y) = {(0, t)}
        return abs(w0)
    k = 1.0 / sqrt(1.0 + mu * mu)
    d0, d1, d2 = mu * k, -k * y1 / r, -k * y2 / r
    a = max(0.0, w0 * d0 + w1 * d1 + w2 * d2)
    return max(abs(w0 - a * d0), abs(w1 - a * d1), abs(w2 - a * d2))


@jit
def _residual(mu, nc, lo, hi, m, y, u):
    """The distance from u + s(u) to Z(y) (module docstring), NaN if any entry is NaN."""
    res, bad = 0.0, False
    for i in range(nc):
        n = 3 * i
        d = _contact_gap(mu[i], y[n], y[n + 1], y[n + 2],
                         u[n] + mu[i] * sqrt(u[n + 1] * u[n + 1] + u[n + 2] * u[n + 2]),
                         u[n + 1], u[n + 2])
        res = max(res, d)
        bad |= d != d
    for r in range(3 * nc, m):
        w = u[r]
        if y[r] <= lo[r] and y[r] >= hi[r]:
            d = 0.0 * w
        elif y[r] <= lo[r]:
            d = max(0.0, -w)
        elif y[r] >= hi[r]:
            d = max(0.0, w)
        else:
            d = abs(w)
        res = max(res, d)
        bad |= d != d
    return NAN if bad else res


@jit
def admm(G, c, mu, nc, lo, hi, m, lam, tol, iterations, work, span=None):
    """Solve for lam[:m] in place from its content (warm start), as pgs.py's ``pgs`` (same
    arguments, rows 0..3nc-1 the nc contacts, 3nc..m-1 bounded by lo, hi; G includes the
    compliance), with ``work`` (>= work_size(m) floats) for the factor and vectors and
    ``span`` (optional: G's non-zero columns by row, delassus.py) for the polish. Returns
    (iterations made, residual [m/s]): (0, residual <= tol) for a warm start at the
    solution."""
    F = work[:m * m].reshape((m, m))
    o = m * m
    x, y, z = work[o:o + m], work[o + m:o + 2 * m], work[o + 2 * m:o + 3 * m]
    s, b, u = work[o + 3 * m:o + 4 * m], work[o + 4 * m:o + 5 * m], work[o + 5 * m:o + 6 * m]
    # warm start: y in K, z the admissible velocity nearest to u + s there
    for i in range(nc):
        n = 3 * i
        y[n], y[n + 1], y[n + 2] = _cone(mu[i], lam[n], lam[n + 1], lam[n + 2])
    for r in range(3 * nc, m):
        y[r] = min(max(lam[r], lo[r]), hi[r])
    affine(G, c, y, m, u, span)
    residual = _residual(mu, nc, lo, hi, m, y, u)
    if residual <= tol:
        for r in range(m):
            lam[r] = y[r]
        return 0, residual
    _shift(mu, nc, m, u, s)
    for i in range(nc):
        n = 3 * i
        z[n], z[n + 1], z[n + 2] = _dual_cone(mu[i], u[n] + s[n], u[n + 1], u[n + 2])
    for r in range(3 * nc, m):
        z[r] = u[r]
    full = full_spans(span)
    big = _largest_eigenvalue(G, m, b, x, span)
    if not big > 0.0:
        big = 1.0  # G = 0: any positive rho works
    small = big / KAPPA
    step = KAPPA ** RHO_STEP
    rho = _refactor(G, m, sqrt(small * big) * KAPPA ** RHO_POWER, step, big * KAPPA, F, span,
                    work)
    if rho != rho:
        return 0, NAN
    polish = POLISH
    for it in range(int(iterations)):
        _shift(mu, nc, m, z, s)
        for r in range(m):
            b[r] = rho * y[r] + z[r] - c[r] - s[r]
        if full:  # (one robot's rows: the dense factor, without the envelope's bookkeeping)
            solve_factored(F, m, b)
        else:
            solve_envelope(F, m, work[m * m + 6 * m:m * m + 7 * m], work[m * m + 7 * m:], b)
        for r in range(m):
            x[r] = b[r]
        dual = 0.0
        for i in range(nc):
            n = 3 * i
            p0, p1, p2 = _cone(mu[i], x[n] - z[n] / rho, x[n + 1] - z[n + 1] / rho,
                               x[n + 2] - z[n + 2] / rho)
            dual = max(dual, abs(p0 - y[n]), abs(p1 - y[n + 1]), abs(p2 - y[n + 2]))
            y[n], y[n + 1], y[n + 2] = p0, p1, p2
        for r in range(3 * nc, m):
            p = min(max(x[r] - z[r] / rho, lo[r]), hi[r])
            dual = max(dual, abs(p - y[r]))
            y[r] = p
        primal = 0.0
        for r in range(m):
            primal = max(primal, abs(x[r] - y[r]))
            z[r] -= rho * (x[r] - y[r])
        affine(G, c, y, m, u, span)
        residual = _residual(mu, nc, lo, hi, m, y, u)
        if residual <= tol:
            for r in range(m):
                lam[r] = y[r]
            return it + 1, residual
        if it + 1 == polish and it + 1 < iterations:  # (the last one's polish is below)
            polish *= 2
            polished = _polished(G, c, mu, nc, lo, hi, m, lam, tol, work, residual, span)
            if polished >= 0.0:
                return it + 1, polished
            rho = _refactor(G, m, rho, step, big * KAPPA, F, span, work)  # (the polish wrote
            # over F, first and reach)
            if rho != rho:
                return it + 1, NAN
        primal *= big
        dual *= rho
        if primal > RATIO * dual and rho * step <= big * KAPPA:
            rho *= step
        elif dual > RATIO * primal and rho / step >= small:
            rho /= step
        else:
            continue
        rho = _refactor(G, m, rho, step, big * KAPPA, F, span, work)
        if rho != rho:
            return it + 1, NAN
    for r in range(m):
        lam[r] = y[r]
    polished = _polished(G, c, mu, nc, lo, hi, m, lam, residual, work, residual, span)
    if polished >= 0.0:
        return int(iterations), polished
    return int(iterations), residual


@jit
def _polished(G, c, mu, nc, lo, hi, m, lam, tol, work, residual, span):
    """Solution polishing (Stellato et al., "OSQP: an operator splitting solver for quadratic
    programs", Math. Prog. Comp. 12, 2020, sec. 4): the exact solution on the active set the
    iterate y shows, refined by block pivoting (active_set.py), put in lam when its residual
    is at most ``tol`` and below ``residual`` (y's). Returns that residual, or -1 with lam = y
    and y, z as they were (F, x, b and u are overwritten: the caller factors again)."""
    o = m * m
    x, y, z = work[o:o + m], work[o + m:o + 2 * m], work[o + 2 * m:o + 3 * m]
    # active_set_start leaves [o + 3m, o + 4m) and [o + 5m, o + 6m) alone
    saved_z, saved_y = work[o + 3 * m:o + 4 * m], work[o + 5 * m:o + 6 * m]
    for r in range(m):
        lam[r] = y[r]
        saved_y[r] = y[r]
        saved_z[r] = z[r]
    if active_set_start(G, c, mu, nc, lo, hi, m, lam, work, True, span):
        affine(G, c, lam, m, x, span)
        polished = _residual(mu, nc, lo, hi, m, lam, x)
        if polished <= tol and polished < residual:
            return polished
    for r in range(m):
        lam[r] = y[r] = saved_y[r]
        z[r] = saved_z[r]
    return -1.0
