"""Tree-sparse factorization M = U D U^T and solves with it (never a dense inverse).

Source: Featherstone (2008) sec. 6.5, Tables 6.3 (LTDL) and 6.4 (solve): with the branch-induced
sparsity, M = L^T D L where L is unit lower triangular and L[k, i] != 0 only when dof i is an
ancestor of dof k (i on the path from k to the root, dof parent array lambda). We store
U = L^T (unit upper), Pinocchio's data.U / data.D convention, so M = U D U^T.
  for k = n-1 .. 0:  i = lambda(k)
      while i >= 0:  a = H[k, i] / H[k, k];  j = i
          while j >= 0:  H[i, j] -= H[k, j] a;  j = lambda(j)
          H[k, i] = a;  i = lambda(i)
"""

from .._jit import jit


@jit
def cholesky(dof, M, U, D):
    """Factor M (nv, nv) into U (unit upper, tree-sparse) and D (nv,); returns the index of the
    first non-positive pivot, or -1 when M is positive definite."""
    nv = M.shape[0]
    # work in U's upper triangle: U[i, k] holds H[k, i] for i ancestor of k (i < k)
    for r in range(nv):
        for c in range(nv):
            U[r, c] = M[r, c] if r <= c else 0.0
    bad = -1
    for k in range(nv - 1, -1, -1):
        dk = U[k, k]
        if not dk > 0.0 and bad < 0:
            bad = k
        i = dof[k].parent
        while i >= 0:
            a = U[i, k] / dk
            j = i
            while j >= 0:
                U[j, i] -= U[j, k] * a
                j = dof[j].parent
            U[i, k] = a
            i = dof[i].parent
    for k in range(nv):
        D[k] = U[k, k]
        U[k, k] = 1.0
    return bad


@jit
def solve_upper(dof, U, x):
    """x <- U^-1 x in place (U z = x: ancestors pick up their descendants). A zero entry has
    nothing to pass on, so a sparse x (a contact's Jacobian row) costs its support only."""
    for k in range(x.shape[0] - 1, -1, -1):
        xk = x[k]
        if xk != 0.0:
            j = dof[k].parent
            while j >= 0:
                x[j] -= U[j, k] * xk
                j = dof[j].parent


@jit
def solve(dof, U, D, x):
    """x <- M^-1 x in place, with M = U D U^T from ``cholesky``: x = U^-T D^-1 U^-1 x."""
    nv = x.shape[0]
    solve_upper(dof, U, x)
    for k in range(nv):
        x[k] /= D[k]
    for k in range(nv):  # U^T y = z: descendants read their ancestors
        j = dof[k].parent
        while j >= 0:
            x[k] -= U[j, k] * x[j]
            j = dof[j].parent


@jit
def solve_pair(dof, U, D, X, Y):
    """X <- M^-1 X and Y <- M^-1 Y for X, Y (nv, k), in one walk over the tree: ``solve``'s
    sweeps, each step applied to whole (contiguous) rows of X and Y instead of one entry."""
    nv = X.shape[0]
    k = X.shape[1]
    for r in range(nv - 1, -1, -1):
        j = dof[r].parent
        while j >= 0:
            u = U[j, r]
            for c in range(k):
                X[j, c] -= u * X[r, c]
                Y[j, c] -= u * Y[r, c]
            j = dof[j].parent
    for r in range(nv):
        d = 1.0 / D[r]
        for c in range(k):
            X[r, c] *= d
            Y[r, c] *= d
    for r in range(nv):
        j = dof[r].parent
        while j >= 0:
            u = U[j, r]
            for c in range(k):
                X[r, c] -= u * X[j, c]
                Y[r, c] -= u * Y[j, c]
            j = dof[j].parent


@jit
def solve_upper_rows(dof, U, X, lo, t, c0, c1):
    """X[lo:t+1, c0:c1] <- U^-1 X[lo:t+1, c0:c1]: ``solve_upper`` applied to whole rows of X
    at a time (each step of the walk updates c1 - c0 independent, contiguous entries), on
    the dofs lo..t only, which must hold every ancestor of each dof in them (lo = 0, or lo
    a root: a subtree's dofs are contiguous, its root first). ``solve_rows`` takes every
    dof and column; the Delassus matrix (contact/delassus.py) a block of rows' columns on
    the dofs its rows reach."""
    for r in range(t, lo - 1, -1):
        j = dof[r].parent
        while j >= 0:
            u = U[j, r]
            for c in range(c0, c1):
                X[j, c] -= u * X[r, c]
            j = dof[j].parent


@jit
def solve_rows(dof, U, D, X):
    """X <- M^-1 X for X (nv, k): ``solve`` applied to whole rows of X at a time (contiguous
    inner loops), as ``solve_pair`` does for two right-hand sides in one walk."""
    nv = X.shape[0]
    k = X.shape[1]
    solve_upper_rows(dof, U, X, 0, nv - 1, 0, k)
    for r in range(nv):
        d = 1.0 / D[r]
        for c in range(k):
            X[r, c] *= d
    for r in range(nv):
        j = dof[r].parent
        while j >= 0:
            u = U[j, r]
            for c in range(k):
                X[r, c] -= u * X[j, c]
            j = dof[j].parent


@jit
def inverse_sparse(dof, U, D, Minv):
    """Minv = M^-1 as ``solve_pair``'s sweeps on the identity, both cut to what they reach:
    row r of U^-1 is nonzero only on the dofs of r's subtree (contiguous: r up to the first
    later dof whose parent precedes r), and the second sweep, which reads row r's ancestors at
    the same columns, is run on the upper triangle only and mirrored (symmetric to the bit)."""
    nv = Minv.shape[0]
    for r in range(nv):
        for c in range(nv):
            Minv[r, c] = 1.0 if r == c else 0.0
    for r in range(nv - 1, -1, -1):
        e = r + 1
        while e < nv and dof[e].parent >= r:
            e += 1
        j = dof[r].parent
        while j >= 0:
            u = U[j, r]
            for c in range(r, e):
                Minv[j, c] -= u * Minv[r, c]
            j = dof[j].parent
    for r in range(nv):
        d = 1.0 / D[r]
        for c in range(r, nv):
            Minv[r, c] *= d
    for r in range(nv):
        j = dof[r].parent
        while j >= 0:
            u = U[j, r]
            for c in range(r, nv):
                Minv[r, c] -= u * Minv[j, c]
            j = dof[j].parent
    for r in range(nv):
        for c in range(r + 1, nv):
            Minv[c, r] = Minv[r, c]


@jit
def inverse(dof, U, D, Minv):
    """Minv = U^-T D^-1 U^-1, column by column through ``solve`` (for users who need the
    matrix itself, e.g. operational-space control); symmetric by construction."""
    nv = Minv.shape[0]
    for c in range(nv):
        for r in range(nv):
            Minv[r, c] = 1.0 if r == c else 0.0
    for c in range(nv):  # row c = column c (M symmetric); a row is contiguous
        solve(dof, U, D, Minv[c])
    for r in range(nv):
        for c in range(r + 1, nv):
            s = 0.5 * (Minv[r, c] + Minv[c, r])
            Minv[r, c] = s
            Minv[c, r] = s
