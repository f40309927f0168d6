"""Small dense helpers: the per-joint nv x nv blocks (nv <= 6) of ABA, y = A x + b, and the
Cholesky factorization of the contact solvers' m x m systems (dense, or within an envelope)."""

from math import sqrt

from .._jit import jit


@jit
def invert_spd(A, a, n, tmp, t):
    """Invert the symmetric positive-definite n x n block A[a:a+n*n] in place (Cholesky
    A = L L^T, then A^-1 = L^-T L^-1); tmp[t:t+n*n] is scratch. False if not positive definite
    (the block is then left filled with NaN so a caller that ignores the flag cannot miss it)."""
    if n == 1:
        d = A[a]
        if not d > 0.0:
            A[a] = 0.0 / 0.0 if d == d else d
            return False
        A[a] = 1.0 / d
        return True
    for k in range(n * n):
        tmp[t + k] = 0.0
    for j in range(n):  # L into tmp (lower)
        s = A[a + n * j + j]
        for k in range(j):
            s -= tmp[t + n * j + k] * tmp[t + n * j + k]
        if not s > 0.0:
            for k in range(n * n):
                A[a + k] = 0.0 / 0.0
            return False
        ljj = s ** 0.5
        tmp[t + n * j + j] = ljj
        for r in range(j + 1, n):
            s = A[a + n * r + j]
            for k in range(j):
                s -= tmp[t + n * r + k] * tmp[t + n * j + k]
            tmp[t + n * r + j] = s / ljj
    for j in range(n):  # invert L in place (lower triangular)
        tmp[t + n * j + j] = 1.0 / tmp[t + n * j + j]
        for r in range(j + 1, n):
            s = 0.0
            for k in range(j, r):
                s -= tmp[t + n * r + k] * tmp[t + n * k + j]
            tmp[t + n * r + j] = s / tmp[t + n * r + r]
    for r in range(n):  # A^-1 = L^-T L^-1
        for c in range(r, n):
            s = 0.0
            for k in range(c, n):
                s += tmp[t + n * k + r] * tmp[t + n * k + c]
            A[a + n * r + c] = s
            A[a + n * c + r] = s
    return True


@jit
def affine(A, b, x, n, y, span=None):
    """y[:n] = A[:n, :n] x[:n] + b[:n] (row by row, b first: the contact solvers' velocities
    u = G lam + c, the computed-torque law's tau = M x + h); with ``span`` (2n,), row r over
    the columns span[r]..span[n + r] only (A is zero outside them: the same sums; span[0] =
    -1: every column, delassus.py's mark)."""
    full = _every_column(span)
    for r in range(n):
        acc = b[r]
        k0, k1 = _row_columns(span, n, r, full)
        for k in range(k0, k1):
            acc += A[r, k] * x[k]
        y[r] = acc


@jit(inline="always")
def _every_column(span):
    if span is None:
        return True
    return span[0] < 0.0


@jit(inline="always")
def _row_columns(span, n, r, full):
    if span is None:
        return 0, n
    if full:
        return 0, n
    return int(span[r]), int(span[n + r]) + 1


@jit
def factor_shifted(G, m, rho, F):
    """F[:m, :m]'s lower triangle = the Cholesky factor of G[:m, :m] + rho I (F may be G: in
    place); False if a pivot is not positive."""
    for j in range(m):
        d = G[j, j] + rho
        for k in range(j):
            d -= F[j, k] * F[j, k]
        if not d > 0.0:
            return False
        d = sqrt(d)
        F[j, j] = d
        inv = 1.0 / d  # (one division per column, not one per entry)
        for i in range(j + 1, m):
            acc = G[i, j]
            for k in range(j):
                acc -= F[i, k] * F[j, k]
            F[i, j] = acc * inv
    return True


@jit
def solve_factored(F, m, b):
    """b[:m] <- (F F^T)^-1 b[:m], F from ``factor_shifted``."""
    # (1 / F_ii does not wait on b: the division runs ahead, and each entry's wait on the
    # previous ones ends in a multiplication)
    for i in range(m):
        inv = 1.0 / F[i, i]
        acc = b[i]
        for k in range(i):
            acc -= F[i, k] * b[k]
        b[i] = acc * inv
    for i in range(m - 1, -1, -1):
        inv = 1.0 / F[i, i]
        acc = b[i]
        for k in range(i + 1, m):
            acc -= F[k, i] * b[k]
        b[i] = acc * inv


@jit
def factor_envelope(A, m, first, reach, F, shift=0.0):
    """``factor_shifted(A, m, shift, F)`` for a symmetric A whose row i is zero left of column
    first[i] (its envelope): the factor has no entry outside the envelope (George & Liu,
    "Computer Solution of Large Sparse Positive Definite Systems", 1981, ch. 4), so its
    entries are the same sums without their zero terms. Made column by column, each column
    then taken off the columns right of it (right-looking: every entry still loses its
    products in ascending order, so the numbers are factor_shifted's), with column j of the
    factor kept in row j's upper part too, so that the update reads two rows (contiguous).
    A's lower envelope is read only (F may be A). first, reach (m,) floats: reach[j] <- the
    last row whose envelope reaches column j. False if a pivot is not positive."""
    for j in range(m):
        reach[j] = j
    for i in range(m):
        for j in range(int(first[i]), i):
            reach[j] = i
    for i in range(m):
        for j in range(int(first[i]), i + 1):
            F[i, j] = A[i, j]
        F[i, i] = A[i, i] + shift
    for j in range(m):
        d = F[j, j]
        if not d > 0.0:
            return False
        d = sqrt(d)
        F[j, j] = d
        inv = 1.0 / d  # (one division per column, not one per entry)
        e = int(reach[j])
        for i in range(j + 1, e + 1):  # (a row below j whose envelope starts after j: a zero)
            F[j, i] = F[i, j] * inv if int(first[i]) <= j else 0.0
            F[i, j] = F[j, i]
        for i in range(j + 1, e + 1):
            x = F[j, i]
            if x != 0.0:
                for k in range(j + 1, i + 1):
                    F[i, k] -= x * F[j, k]
    return True


@jit
def solve_envelope(F, m, first, reach, b):
    """``solve_factored`` with F, first and reach from ``factor_envelope``: the envelope's
    terms only (the backward pass reads the factor's columns from the rows' upper parts)."""
    for i in range(m):
        inv = 1.0 / F[i, i]
        acc = b[i]
        for k in range(int(first[i]), i):
            acc -= F[i, k] * b[k]
        b[i] = acc * inv
    for i in range(m - 1, -1, -1):
        inv = 1.0 / F[i, i]
        acc = b[i]
        for k in range(i + 1, int(reach[i]) + 1):
            acc -= F[i, k] * b[k]
        b[i] = acc * inv
