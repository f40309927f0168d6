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
    entries are the same sums without their zero terms, each taken in ascending order (the
    numbers are factor_shifted's). Made row by row (left-looking), two rows that start in
    the same column at a time (a block of rows of one contact pair), their entries in tiles
    of four columns: eight sums in flight instead of one, each still its own chain in order.
    Column j of the factor is also left in row j's upper part (``solve_envelope``'s backward
    pass reads rows); until then F[j, j + 1] keeps 1 / F[j, j] (one division per column). A's
    lower envelope is read only (F may be A). first, reach (m,) floats: reach[j] <- the last
    row whose envelope reaches column j. False if a pivot is not positive. On a stack of ten
    boxes' 120-132 rows, right-looking (each column taken off the rows below it, an entry
    loaded and stored per column) took 24-31 us, this way 15-18 us."""
    for j in range(m):
        reach[j] = j
    for i in range(m):
        for j in range(int(first[i]), i):
            reach[j] = i
    i = 0
    while i < m:
        fi = int(first[i])
        if i + 1 < m and int(first[i + 1]) == fi:
            if not _two_rows(A, m, first, F, shift, i, fi):
                return False
            i += 2
            continue
        for j in range(fi, i):
            F[i, j] = _dot(F, i, j, max(fi, int(first[j])), A[i, j]) * F[j, j + 1]
        d = _dot(F, i, i, fi, A[i, i] + shift)
        if not d > 0.0:
            return False
        d = sqrt(d)
        F[i, i] = d
        if i + 1 < m:
            F[i, i + 1] = 1.0 / d
        i += 1
    for j in range(m):
        for i in range(j + 1, int(reach[j]) + 1):
            F[j, i] = F[i, j] if int(first[i]) <= j else 0.0
    return True


@jit(inline="always")  # (into factor_envelope's loop: a call per pair of rows)
def _two_rows(A, m, first, F, shift, i, fi):
    """Rows i and i + 1 of ``factor_envelope``'s factor, both starting at column fi: tiles of
    two rows by four columns whose sums all start at fi, then column by column, then row i's
    pivot, row i + 1's entry below it and its pivot (their sums over k < i together)."""
    j = fi
    while j + 4 <= i and _start_by(first, fi, j):
        a0, a1, a2, a3 = A[i, j], A[i, j + 1], A[i, j + 2], A[i, j + 3]
        b0, b1, b2, b3 = A[i + 1, j], A[i + 1, j + 1], A[i + 1, j + 2], A[i + 1, j + 3]
        if j > fi:  # (slices from 0: the indices are known non-negative, no wraparound)
            x, y = F[i, fi:j], F[i + 1, fi:j]
            z0, z1, z2, z3 = F[j, fi:j], F[j + 1, fi:j], F[j + 2, fi:j], F[j + 3, fi:j]
            for t in range(j - fi):
                p, q = x[t], y[t]
                w0, w1, w2, w3 = z0[t], z1[t], z2[t], z3[t]
                a0 -= p * w0
                a1 -= p * w1
                a2 -= p * w2
                a3 -= p * w3
                b0 -= q * w0
                b1 -= q * w1
                b2 -= q * w2
                b3 -= q * w3
        F[i, j], F[i, j + 1], F[i, j + 2], F[i, j + 3] = _last_four(a0, a1, a2, a3, F, j)
        F[i + 1, j], F[i + 1, j + 1], F[i + 1, j + 2], F[i + 1, j + 3] = \
            _last_four(b0, b1, b2, b3, F, j)
        j += 4
    while j < i:
        s = max(fi, int(first[j]))
        a, b = A[i, j], A[i + 1, j]
        if j > s:
            x, y, z = F[i, s:j], F[i + 1, s:j], F[j, s:j]
            for t in range(j - s):
                w = z[t]
                a -= x[t] * w
                b -= y[t] * w
        F[i, j] = a * F[j, j + 1]
        F[i + 1, j] = b * F[j, j + 1]
        j += 1
    d, b, e = A[i, i] + shift, A[i + 1, i], A[i + 1, i + 1] + shift
    if i > fi:
        x, y = F[i, fi:i], F[i + 1, fi:i]
        for t in range(i - fi):
            p, q = x[t], y[t]
            d -= p * p
            b -= q * p
            e -= q * q
    if not d > 0.0:
        return False
    d = sqrt(d)
    F[i, i] = d
    inv = 1.0 / d
    F[i, i + 1] = inv
    b *= inv
    F[i + 1, i] = b
    e -= b * b
    if not e > 0.0:
        return False
    e = sqrt(e)
    F[i + 1, i + 1] = e
    if i + 2 < m:
        F[i + 1, i + 2] = 1.0 / e
    return True


@jit(inline="always")
def _start_by(first, fi, j):
    """Whether rows j..j + 3 all start at or before column fi (a tile's sums then all run
    over fi..j - 1 inside every envelope)."""
    return (int(first[j]) <= fi and int(first[j + 1]) <= fi and int(first[j + 2]) <= fi
            and int(first[j + 3]) <= fi)


@jit(inline="always")
def _last_four(a0, a1, a2, a3, F, j):
    """A tile row's four entries of columns j..j + 3 from their sums over k < j: each sum's
    last terms, over the tile's own columns (the entries just made), in ascending k, then
    times its column's 1 / pivot (kept in F[c, c + 1])."""
    r0 = a0 * F[j, j + 1]
    a1 -= r0 * F[j + 1, j]
    r1 = a1 * F[j + 1, j + 2]
    a2 -= r0 * F[j + 2, j]
    a2 -= r1 * F[j + 2, j + 1]
    r2 = a2 * F[j + 2, j + 3]
    a3 -= r0 * F[j + 3, j]
    a3 -= r1 * F[j + 3, j + 1]
    a3 -= r2 * F[j + 3, j + 2]
    return r0, r1, r2, a3 * F[j + 3, j + 4]


@jit(inline="always")
def _dot(F, i, j, lo, acc):
    """acc - sum over k in [lo, j) of F[i, k] F[j, k], in ascending k."""
    if j > lo:
        x, z = F[i, lo:j], F[j, lo:j]
        for t in range(j - lo):
            acc -= x[t] * z[t]
    return acc


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
