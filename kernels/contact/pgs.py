"""Projected Gauss-Seidel: the contact percussions of one time step.

The problem (Moreau-Jean time stepping: Acary & Brogliato, "Numerical Methods for Nonsmooth
Dynamical Systems", Springer 2008, ch. 10; Jean, "The non-smooth contact dynamics method",
CMAME 177, 1999). With G the Delassus matrix W^T M^-1 W of the rows, R >= 0 a diagonal
compliance and c the rows' velocity before any percussion (target velocities folded in),
  u = (G + R) lam + c
- contact i (rows 3i, 3i+1, 3i+2: normal, tangent 1, tangent 2): lam_i in the Coulomb cone
  K = {||lam_t|| <= mu lam_n} (the exact disc, not a pyramid) and, with De Saxce's correction,
  K* contains u_i + (mu ||u_t||, 0, 0) orthogonal to lam_i: Signorini's condition on the
  normal and Coulomb's law with maximal dissipation on the tangent (the friction NCP that
  Pinocchio's solvers solve with ``solve_ncp``);
- 1-D row r (joint limits, dry joint friction): lo_r <= lam_r <= hi_r with u_r >= 0 where
  lam_r = lo_r, u_r <= 0 where lam_r = hi_r and u_r = 0 between (a box-constrained LCP).
A sweep visits the contacts, then the rows, each with its latest neighbours (Gauss-Seidel):
  normal:   lam_n <- max(0, lam_n - u_n / G_nn)
  tangent:  lam_t <- Proj_{||.|| <= mu lam_n}(lam_t - u_t / g_t)   (u_t after the normal update)
  row:      lam_r <- clip(lam_r - u_r / G_rr, lo_r, hi_r)
with g_t the largest eigenvalue of the contact's 2x2 tangent block, so each block step is a
contraction (the projected step of Pinocchio's PGS solver, Carpentier et al., "Proximal and
sparse resolution of constrained dynamic equations", RSS 2021, sec. V).
A fixed point of the sweep solves the problem; the sweep's largest change, measured as a
velocity (|d lam_r| times G_rr, in m/s or rad/s), is the residual that stops it (<= tol).
"""

from math import nan as NAN
from math import sqrt

from .._jit import jit


@jit
def row_velocity(G, c, lam, m, r, span=None):
    """u_r = c_r + G[r] . lam; with ``span`` (2m,: delassus.py's), over the columns
    span[r]..span[m + r] of row r only (G is zero outside them: the same sum)."""
    a, b = columns(span, m, r, full_spans(span))
    return _velocity(G, c, lam, r, a, b)


@jit(inline="always")  # (as a call with the span's arithmetic in it, LLVM kept it a call:
def columns(span, m, r, full=False):  # PGS on the quadruped's 12 rows took 2x its time)
    """The columns [a, b) of row r of G that can be non-zero: all without a span, or where
    ``full`` (``full_spans``) says every row spans every column."""
    if span is None:
        return 0, m
    if full:
        return 0, m
    return int(span[r]), int(span[m + r]) + 1


@jit(inline="always")
def full_spans(span):
    """Whether every row spans every column (no span, or delassus.py's mark span[0] = -1:
    rows of one robot, which all share its root), read once a solve."""
    if span is None:
        return True
    return span[0] < 0.0


@jit(inline="always")
def _velocity(G, c, lam, r, a, b):
    """c_r + G[r, a:b] . lam[a:b], in ascending order."""
    acc = c[r]
    for s in range(a, b):
        acc += G[r, s] * lam[s]
    return acc


@jit
def pgs(G, c, mu, nc, lo, hi, m, lam, tol, iterations, span=None):
    """Solve for lam[:m] in place, starting from its content (warm start): rows 0..3nc-1
    are nc contacts with friction coefficients mu[:nc]; rows 3nc..m-1 are bounded by
    lo, hi. G (>= m, >= m) includes the compliance; ``span`` (optional, 2m): the columns of
    each row of G that can be non-zero (delassus.py), the only ones a sweep reads. Returns
    (sweeps, residual); a warm start at the solution returns after one sweep that changes
    nothing: (0, residual <= tol). A sweep that meets a NaN (a non-finite G or c) stops with
    residual NaN: max() would drop it and report convergence."""
    residual = 0.0
    full = full_spans(span)
    for it in range(int(iterations)):
        residual, nan = 0.0, False
        for i in range(nc):
            n = 3 * i
            gnn = G[n, n]
            if not gnn <= 0.0:  # (a NaN enters, to be reported)
                old = lam[n]
                a0, b0 = columns(span, m, n, full)
                new = old - _velocity(G, c, lam, n, a0, b0) / gnn
                if new < 0.0:
                    new = 0.0
                lam[n] = new
                d = abs(new - old) * gnn
                residual = max(residual, d)
                nan |= d != d
            a, b, d = G[n + 1, n + 1], G[n + 1, n + 2], G[n + 2, n + 2]
            gt = 0.5 * (a + d) + sqrt(0.25 * (a - d) * (a - d) + b * b)
            if not gt <= 0.0:
                o1, o2 = lam[n + 1], lam[n + 2]
                a1, b1 = columns(span, m, n + 1, full)
                a2, b2 = columns(span, m, n + 2, full)
                t1 = o1 - _velocity(G, c, lam, n + 1, a1, b1) / gt
                t2 = o2 - _velocity(G, c, lam, n + 2, a2, b2) / gt
                radius = mu[i] * lam[n]
                norm = sqrt(t1 * t1 + t2 * t2)
                if norm > radius:
                    s = radius / norm if norm > 0.0 else 0.0
                    t1 *= s
                    t2 *= s
                lam[n + 1], lam[n + 2] = t1, t2
                d = sqrt((t1 - o1) ** 2 + (t2 - o2) ** 2) * gt
                residual = max(residual, d)
                nan |= d != d
        for r in range(3 * nc, m):
            grr = G[r, r]
            if not grr <= 0.0:  # (a NaN enters, to be reported)
                old = lam[r]
                a0, b0 = columns(span, m, r, full)
                new = min(max(old - _velocity(G, c, lam, r, a0, b0) / grr, lo[r]), hi[r])
                lam[r] = new
                d = abs(new - old) * grr
                residual = max(residual, d)
                nan |= d != d
        if nan:
            return it + 1, NAN
        if residual <= tol:
            return it, residual
    return int(iterations), residual
