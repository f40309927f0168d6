"""Dense Gaussian elimination with partial pivoting for a small general (non-symmetric) system.

Golub & Van Loan, "Matrix Computations", 4th ed., sec. 3.4 (Algorithm 3.4.1, partial pivoting):
at column k the row with the largest |H[i, k]|, i >= k, is swapped into place, then eliminated
below; back substitution follows. Here the row operations are applied to the right-hand sides
as they happen (no pivot vector is kept), for the few dozen unknowns of a linearized contact
problem (step_derivatives.py), where the tree-sparse Cholesky factorization does not apply.
"""

from .._jit import jit


@jit
def gauss_solve(H, n, X, rcond):
    """X[:n] <- H[:n, :n]^-1 X[:n] (all columns of X), destroying H. Returns -1, or the
    column whose pivot is at most rcond times H's largest entry (H singular or nearly so, to
    working precision: X is then meaningless)."""
    k_cols = X.shape[1]
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(H[i, j]))
    for k in range(n):
        p = k
        big = abs(H[k, k])
        for i in range(k + 1, n):
            if abs(H[i, k]) > big:
                big = abs(H[i, k])
                p = i
        if not big > rcond * scale:
            return k
        if p != k:
            for j in range(k, n):
                H[k, j], H[p, j] = H[p, j], H[k, j]
            for j in range(k_cols):
                X[k, j], X[p, j] = X[p, j], X[k, j]
        for i in range(k + 1, n):
            f = H[i, k] / H[k, k]
            if f != 0.0:
                for j in range(k + 1, n):
                    H[i, j] -= f * H[k, j]
                for j in range(k_cols):
                    X[i, j] -= f * X[k, j]
    for k in range(n - 1, -1, -1):
        for i in range(k + 1, n):  # whole rows of X: contiguous inner loops
            h = H[k, i]
            if h != 0.0:
                for j in range(k_cols):
                    X[k, j] -= h * X[i, j]
        d = 1.0 / H[k, k]
        for j in range(k_cols):
            X[k, j] *= d
    return -1
