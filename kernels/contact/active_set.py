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
solves that system (Cholesky of G_AA within its envelope, G being positive definite with
its compliance), and refines the set by block pivoting on what the solution shows (Judice &
Pires, "A block principal pivoting algorithm for large-scale strictly monotone linear
complementarity problems", Computers & OR 21(5), 1994): a sticking contact whose lam_n <= 0
parts, a parted contact that approaches (u_n < 0) closes, an interior row past a bound goes
to it, a row at a bound whose velocity pushes against it is released; then it solves again,
up to PIVOTS times. Gauss-Seidel's iterates alone show the wrong set where contacts are
redundant (a humanoid's sole corners: which corners carry the load is decided by the
compliance, and the iterates creep there) and coupled with joint dry friction: on Talos
settling on its soles, PGS then stalled at residuals of 1e-9 to 3e-7 m/s for its whole 200
sweeps in one step of seven, where one to four pivots find the exact solution. A set with a
sliding contact (lam on the cone's boundary: its tangent equations are not linear) is not
tried. A sweep of the solver from the result then checks every condition (time_step._pgs
keeps it only when that sweep changes nothing beyond the solver's tolerance).
"""

from math import sqrt

from .._jit import jit
from ..linalg.dense import factor_envelope, factor_shifted, solve_envelope, solve_factored
from .pgs import columns, full_spans, row_velocity  # (u_r = c_r + G_r . x)


PIVOTS = 8  # sets tried from one guess (block pivoting: 1-4 sufficed on a standing humanoid)
FLIP = 1e-12  # [m/s or rad/s] a velocity this far past zero flips a row: far below any
# solver tolerance, so round-off on a touching, unloaded contact does not flip it back and forth


@jit
def active_set_start(G, c, mu, nc, lo, hi, m, lam, work, boundary=False, span=None):
    """lam[:m] <- the solution on lam's active set (module docstring), refined by block
    pivoting, when one agrees with it; returns True then, False with lam unchanged
    otherwise. ``boundary``: a loaded contact on or outside its cone is guessed sticking
    instead of refusing the guess (ADMM's iterates sit on the cone's boundary long before
    they stick; the pivots and the caller's check then decide). work: work_size(m) floats
    (admm.py; the solver's workspace), of which [m*m + 3m, m*m + 4m) and [m*m + 5m, m*m + 6m)
    are left alone (time_step._pgs keeps its saved iterate in the first, admm._polished its
    saved iterates in both). ``span`` (optional, 2m): the columns of each row of G that can
    be non-zero (delassus.py): the system is then factored within its envelope (a stack of
    objects, whose contacts couple only with their neighbours', costs its band, not m^3)."""
    flag = work[:m]  # 1: the row is solved for (a sticking contact's, an interior row)
    trial = work[m * m + 4 * m:m * m + 5 * m]  # the set's percussions, every row
    for i in range(nc):
        n = 3 * i
        ln = lam[n]
        stick = 0.0
        if ln > 0.0:
            if not boundary and not sqrt(lam[n + 1] ** 2 + lam[n + 2] ** 2) < mu[i] * ln:
                return False  # sliding: its tangent rows are not linear equations
            stick = 1.0
        flag[n] = flag[n + 1] = flag[n + 2] = stick
        trial[n] = trial[n + 1] = trial[n + 2] = 0.0
    for r in range(3 * nc, m):
        flag[r] = 1.0 if lo[r] < lam[r] < hi[r] else 0.0
        trial[r] = lam[r] if flag[r] == 0.0 else 0.0  # (a row off its set sits at a bound)
    for _ in range(PIVOTS):
        if not _solve_set(G, c, m, flag, trial, work, span):
            return False
        changed, slides = False, False
        for i in range(nc):  # (a NaN parts its contact or refuses the set; _pgs's sweep checks)
            n = 3 * i
            if flag[n] != 0.0:
                ln, t1, t2 = trial[n], trial[n + 1], trial[n + 2]
                if not ln > 0.0:  # pulls on the ground: let it part
                    flag[n] = flag[n + 1] = flag[n + 2] = 0.0
                    trial[n] = trial[n + 1] = trial[n + 2] = 0.0
                    changed = True
                elif not sqrt(t1 * t1 + t2 * t2) <= mu[i] * ln:
                    slides = True  # out of its cone: wrong unless another pivot mends it
            elif row_velocity(G, c, trial, m, n, span) < -FLIP:  # parted, yet it approaches: closes
                flag[n] = flag[n + 1] = flag[n + 2] = 1.0
                changed = True
        for r in range(3 * nc, m):
            x = trial[r]
            if flag[r] != 0.0:
                if not lo[r] <= x <= hi[r]:
                    if not (x == x):
                        return False
                    flag[r] = 0.0
                    trial[r] = lo[r] if x < lo[r] else hi[r]
                    changed = True
            else:
                u = row_velocity(G, c, trial, m, r, span)
                if (x == lo[r] and u < -FLIP) or (x == hi[r] and u > FLIP):
                    flag[r] = 1.0  # the bound pushes the wrong way: release it
                    changed = True
        if not changed:
            if slides:
                return False  # a sliding contact: not a set of linear equations
            for r in range(m):
                lam[r] = trial[r]
            return True
    return False


@jit
def _solve_set(G, c, m, flag, trial, work, span):
    """trial's flagged rows <- the solution of G_AA x_A = -(c_A + G_AB x_B), the others
    (trial's) fixed; False if no row is flagged or G_AA is not positive definite. G_AA is
    G itself when every row is flagged (a robot standing on all its contacts). With
    ``span``, row a of G_AA is zero left of the first flagged row in its row's span: the
    factor is made within that envelope (work[m m + 6m:], first and reach)."""
    rows = work[m:2 * m]  # the flagged rows, in order (as floats)
    full = full_spans(span)
    first = work[m * m + 6 * m:m * m + 7 * m]
    reach = work[m * m + 7 * m:m * m + 8 * m]
    k = 0
    for r in range(m):
        if flag[r] != 0.0:
            rows[k] = r
            k += 1
    if k == 0:
        return False
    b = work[2 * m:2 * m + k]
    A = work[2 * m + k:2 * m + k + k * k].reshape((k, k))
    for a in range(k):
        r = int(rows[a])
        acc = c[r]
        s0, s1 = columns(span, m, r, full)
        if k < m:
            for s in range(s0, s1):  # (the fixed rows: parted contacts hold 0)
                if flag[s] == 0.0 and trial[s] != 0.0:
                    acc += G[r, s] * trial[s]
        b[a] = -acc
        e = a  # the first flagged row in r's span (rows ascend)
        while e > 0 and not full and rows[e - 1] >= s0:
            e -= 1
        first[a] = 0 if full else e
    if k == m:
        ok = factor_shifted(G, k, 0.0, A) if full else factor_envelope(G, k, first, reach, A)
    else:
        for a in range(k):  # (the factor reads the lower triangle's envelope only)
            r = int(rows[a])
            for e in range(int(first[a]), a + 1):
                A[a, e] = G[r, int(rows[e])]
        ok = factor_shifted(A, k, 0.0, A) if full else factor_envelope(A, k, first, reach, A)
    if not ok:
        return False
    if full:  # (rows of one robot: the dense factor, without the envelope's bookkeeping)
        solve_factored(A, k, b)
    else:
        solve_envelope(A, k, first, reach, b)
    for a in range(k):
        trial[int(rows[a])] = b[a]
    return True
