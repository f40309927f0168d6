"""The Delassus matrix G = J M^-1 J^T of a step's constraint rows, with the tree-sparse
factorization M = U D U^T (cholesky.py), never a dense inverse.

With Z = D^-1/2 U^-1 J^T, G = Z^T Z: one triangular pass per row of J (Featherstone 2008,
sec. 6.5: the pass touches only the ancestors of a dof, so a contact's row costs its
support), then the products of the columns of Z, which are non-zero on shared supports
only. G is symmetric and positive semi-definite (definite when the rows are independent).
Every row fastdyn builds is non-zero on one chain of the tree only (a contact's row on the
dofs from its body to the root, a joint row on its dof): the chain of its deepest non-zero
dof, listed from the root down. U^-1 moves entries to ancestors only, so row r of Z lives on
that chain too, and two rows share the dofs of the common beginning of their chains (the
path from the root to their deepest common ancestor): G_rs is summed there, in the same
ascending order as the dense product, so G is the same to the bit at a fraction of the cost
(4 feet of a quadruped: 9 dofs a row, 6 shared). A row that is not on one chain (not built by
constraint_rows.py) sends the whole matrix to the dense products.
The compliance R = r diag(G) is added to its diagonal (the regularization of the contact
problem, as MuJoCo's soft constraints and Pinocchio's proximal solvers regularize theirs: it
keeps redundant rows, e.g. the four corners of a box flat on the ground, well posed). A soft
contact (softness.py) has instead MuJoCo's regularizer R on its three rows (constraint_rows.py
computes it). The velocity change M^-1 J^T lambda takes one full solve after the percussions
are known.
"""

from math import sqrt

from .._jit import jit
from .cholesky import solve_upper


@jit
def delassus(dof, U, D, J, m, regularization, soft, Z, G, chain, length):
    """G[:m, :m] = J M^-1 J^T + R, with R_rr = soft[r] on soft contact rows (soft[r] > 0)
    and regularization G_rr on the others. Z (>= m, nv) is scratch: the rows of
    D^-1/2 U^-1 J^T, row r compact on its chain (Z[r, i] at dof chain[r, i]) or, when a row
    is not on one chain, full. chain (>= m, nv) and length (>= m,) are int64 scratch: row
    r's chain of dofs, root first (module docstring)."""
    if _chains(dof, J, m, chain, length):
        r = 0
        while r < m:  # rows on the same chain (a contact's three) in one pass
            n = length[r]
            e = r + 1
            while e < m and length[e] == n and chain[e, n - 1] == chain[r, n - 1]:
                e += 1
            _chain_rows(U, D, J, r, e, chain[r], n, Z)
            r = e
        for r in range(m):
            cr = chain[r]
            for s in range(r, m):
                cs = chain[s]
                n = min(length[r], length[s])
                shared = 0
                while shared < n and cr[shared] == cs[shared]:
                    shared += 1
                acc = 0.0
                for i in range(shared):
                    acc += Z[r, i] * Z[s, i]
                G[r, s] = acc
                G[s, r] = acc
    else:
        _dense(dof, U, D, J, m, Z, G)
    for r in range(m):
        if soft[r] > 0.0:
            G[r, r] += soft[r]
        else:
            G[r, r] *= 1.0 + regularization


@jit
def _chains(dof, J, m, chain, length):
    """Each row's chain (the ancestors of its deepest non-zero dof, root first) into chain,
    length (a row with the deepest dof of the row before it copies that row's chain); False
    if a row has a non-zero entry off its chain."""
    nv = J.shape[1]
    last = -2
    for r in range(m):
        leaf = nv - 1
        while leaf >= 0 and J[r, leaf] == 0.0:
            leaf -= 1
        if leaf == last:
            n = length[r - 1]
            for i in range(n):
                chain[r, i] = chain[r - 1, i]
        else:
            n = 0
            k = leaf
            while k >= 0:
                n += 1
                k = dof[k].parent
            k = leaf
            for i in range(n - 1, -1, -1):
                chain[r, i] = k
                k = dof[k].parent
        length[r] = n
        last = leaf
        i = n - 1  # every non-zero entry on the chain (one pass down both)
        for k in range(leaf, -1, -1):
            if i >= 0 and chain[r, i] == k:
                i -= 1
            elif J[r, k] != 0.0:
                return False
    return True


@jit
def _chain_rows(U, D, J, r0, r1, chain, n, Z):
    """Z[r, :n] = D^-1/2 U^-1 J[r]^T for the rows r0..r1-1 on the chain of dofs chain[:n]
    (compact: entry i is dof chain[i]'s): cholesky.solve_upper's pass, where the ancestors of
    chain[i] are chain[:i]; each entry receives its descendants' terms in the same order as
    there. The rows go side by side (independent chains of operations)."""
    for r in range(r0, r1):
        for i in range(n):
            Z[r, i] = J[r, chain[i]]
    for i in range(n - 1, 0, -1):
        k = chain[i]
        for r in range(r0, r1):
            zk = Z[r, i]
            if zk != 0.0:
                for j in range(i):
                    Z[r, j] -= U[chain[j], k] * zk
    for i in range(n):
        d = sqrt(D[chain[i]])
        for r in range(r0, r1):
            Z[r, i] /= d


@jit
def _dense(dof, U, D, J, m, Z, G):
    """Z and G (without R) by full rows: for rows that are not on one chain."""
    nv = J.shape[1]
    for r in range(m):
        z = Z[r]
        for k in range(nv):
            z[k] = J[r, k]
        solve_upper(dof, U, z)
        for k in range(nv):
            z[k] /= sqrt(D[k])
    for r in range(m):
        for s in range(r, m):
            acc = 0.0
            for k in range(nv):
                acc += Z[r, k] * Z[s, k]
            G[r, s] = acc
            G[s, r] = acc
