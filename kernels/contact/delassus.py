"""The Delassus matrix G = J M^-1 J^T of a step's constraint rows, with the tree-sparse
factorization M = U D U^T (cholesky.py), never a dense inverse.

With Z = D^-1/2 U^-1 J^T, G = Z^T Z: one triangular pass over the dofs (Featherstone 2008,
sec. 6.5: dof k's entries pass to its ancestors only), applied to all rows at once (rows of
one tree) or to each block of rows on the dofs it can reach (below), then the products of the
columns of Z. Those are non-zero on shared supports only (the branch-induced
sparsity, Featherstone 2008 sec. 6.5, carried to the rows): a contact's or a joint's row is
non-zero on one dof and its ancestors (a chain), so a product of two chains runs over the
dofs of the deepest dof they share and its ancestors (for two feet of a legged robot, the
base's), and a row on two bodies (a contact between them) is non-zero between the root of
its first dof and its last dof (dofs are numbered parents first, each subtree contiguous), so
two rows on bodies of different trees (free objects) share nothing: their entry of G is
zero without a product. Consecutive rows on the same dofs (a contact's three, the contacts
of one pair of bodies) are taken as one block, their shared dofs found once, and each block
of G made in tiles of two rows by four columns (each entry's products over the shared dofs
summed in ascending order in a register: the same sums as entry by entry). G is symmetric
and positive semi-definite (definite when the rows are independent). The blocks that are not
zero give each row's span: the first and last column of G that can be non-zero on it (the
solvers sweep those only: pgs.py, active_set.py).
The compliance R = r diag(G) is added to its diagonal (the regularization of the contact
problem, as MuJoCo's soft constraints and Pinocchio's proximal solvers regularize theirs: it
keeps redundant rows, e.g. the four corners of a box flat on the ground, well posed), except
on joint-limit rows, which hold exactly: unit rows on distinct dofs are independent, and the
other rows' compliance keeps G + R definite (a Schur complement of a positive semi-definite
G plus a positive diagonal; with R, a limit gave way by r G_rr P_r dt, 5e-5 rad on a UR5
at dt = 0.1 s, its rows coupled through M). A soft
contact (softness.py) has instead MuJoCo's regularizer R on its three rows (constraint_rows.py
computes it). The velocity change M^-1 J^T lambda takes one full solve after the percussions
are known.
"""

from math import sqrt

from .._jit import jit
from ..linalg.cholesky import solve_upper_rows

TIP = 20  # a row's code (``_code``): its root dof in the low TIP bits, 1 + its last above
MASK = (1 << TIP) - 1  # (models have fewer than a million dofs)


@jit
def delassus(dof, U, D, J, m, regularization, soft, Z, G, tip, known=0):
    """G[:m, :m] = J M^-1 J^T + R, with R_rr = soft[r] on soft contact rows (soft[r] > 0),
    none on rigid rows (soft[r] < 0: joint limits, constraint_rows.RIGID) and
    regularization G_rr on the others. Z (C-contiguous, >= m nv floats) and tip (>= 3m) are
    scratch: tip[:m] gets each row's ``_code``, Z's first m nv floats Z^T = D^-1/2 U^-1 J^T
    (nv, m), dof by dof, so that each step of the triangular pass updates every row's entry
    of one dof at once (contiguous, independent), instead of one row's entries in a
    dependent chain. On return tip[m + r] and tip[2m + r] hold row r's span: the first and
    the last column s of G[r] whose rows share a dof with r (G[r, s] = 0 outside), or
    tip[m] = -1 when every row spans every column (rows of one tree: pgs._full). ``known``:
    rows 0..known-1 come with their codes in tip (``chain_code``: a sphere's contact rows,
    whose chain its maker knows), the others' are read off J."""
    nv = J.shape[1]
    Zt = Z.reshape((Z.shape[0] * Z.shape[1],))[:nv * m].reshape((nv, m))
    for r in range(known, m):
        tip[r] = _code(dof, J, r)
    for r in range(m):
        tip[m + r] = r
        tip[2 * m + r] = r
    if _one_tree(tip, m):
        _columns(dof, U, D, J, Zt, 0, m, 0, nv - 1)
        _chains(dof, Zt, m, G, tip)
    else:
        _block_columns(dof, U, D, J, m, Zt, tip)
        _blocks(dof, Zt, m, G, tip)
    for r in range(m):
        if soft[r] > 0.0:
            G[r, r] += soft[r]
        elif soft[r] == 0.0:
            G[r, r] *= 1.0 + regularization


@jit
def _one_tree(tip, m):
    """True when every row is a chain of one tree (a legged robot's contacts and joint rows):
    every pair of rows may share dofs, and ``_chains`` bounds each product by the pair's
    deepest shared dof."""
    for r in range(m):
        if tip[r] < 0.0 or (int(tip[r]) & MASK) != (int(tip[0]) & MASK):
            return False
    return True


@jit
def _chains(dof, Zt, m, G, tip):
    """G[:m, :m] from Zt when every row is a chain of one tree; every span is every column.
    The upper triangle two rows at a time (``_two_rows``), over the dofs up to the pair's
    deeper tip, skipping the dofs where both rows are zero; the dofs the two rows do not
    share add exact zeros (Zt is exactly zero off a row's chain: U^-1 moves entries to
    ancestors only). Then the lower triangle is the upper's mirror image."""
    for r in range(0, m, 2):
        r1 = r + 1 if r + 1 < m else r  # (an odd last row: its tile's second row is itself)
        _two_rows(Zt, r, r1, r, m, 0, max(_last(tip[r]), _last(tip[r1])), G, True, False)
    for r in range(m):
        for s in range(r + 1, m):
            G[s, r] = G[r, s]
        tip[m + r] = 0.0
        tip[2 * m + r] = m - 1
    if m > 0:
        tip[m] = -1.0  # (the mark of spans that are every column: pgs._full)


@jit(inline="always")  # (into _chains' loop: a call per pair of rows)
def _last(code):
    """The last dof a chain's row (``_code``, >= 0) can be non-zero on: -1 for a zero row."""
    return (int(code) >> TIP) - 1


@jit
def _block_columns(dof, U, D, J, m, Zt, tip):
    """Zt's columns of each block of rows with one code (``_block_end``), on the dofs
    [lo, t] the code bounds only (``code_range``; a row on two free bodies of a stack of ten: 12
    of its 60): the same triangular pass and scaling as on every dof, without the entries
    that stay zero. The entries outside a block's dofs are not written: ``_blocks`` reads a
    pair of blocks on the dofs both share only."""
    r = 0
    while r < m:
        re = _block_end(tip, r, m)
        lo, t = code_range(tip[r])
        _columns(dof, U, D, J, Zt, r, re, lo, t)
        r = re


@jit(inline="always")  # (once per block of rows)
def _columns(dof, U, D, J, Zt, r, re, lo, t):
    """Zt[lo:t+1, r:re] = D^-1/2 U^-1 J[r:re, lo:t+1]^T, for rows whose entries of U^-1 J^T
    are zero outside the dofs [lo, t] (a subtree's dofs are contiguous, its root first:
    every ancestor of a dof in [lo, t] is in it when lo is a root)."""
    for k in range(lo, t + 1):
        for i in range(r, re):
            Zt[k, i] = J[i, k]
    solve_upper_rows(dof, U, Zt, lo, t, r, re)
    for k in range(lo, t + 1):
        d = 1.0 / sqrt(D[k])
        for i in range(r, re):
            Zt[k, i] *= d


@jit
def _blocks(dof, Zt, m, G, tip):
    """G[:m, :m] from Zt by blocks of rows with one code (module docstring), zero where two
    blocks share no dof; the rows' spans from the blocks that are not zero."""
    for r in range(m):
        for s in range(m):
            G[r, s] = 0.0
    r = 0
    while r < m:  # blocks [r, re) of rows with one code, by blocks [s, se) at or after it
        re = _block_end(tip, r, m)
        s = r
        while s < m:
            se = _block_end(tip, s, m)
            k0, k1 = _shared(dof, tip[r], tip[s])
            if k0 <= k1:
                _tiles(Zt, r, re, s, se, k0, k1, G)
                for i in range(r, re):
                    tip[2 * m + i] = max(tip[2 * m + i], se - 1)
                for j in range(s, se):
                    tip[m + j] = min(tip[m + j], r)
            s = se
        r = re


@jit(inline="always")  # (a call per block costs more than the block: quadruped)
def _block_end(tip, r, m):
    """The end of the block of rows that share row r's code."""
    e = r + 1
    while e < m and tip[e] == tip[r]:
        e += 1
    return e


@jit(inline="always")  # (into _blocks' loop: a call per pair of blocks)
def _tiles(Zt, r, re, s, se, k0, k1, G):
    """G's entries of rows [r, re) by columns [s, se) over the shared dofs k0..k1, and their
    mirror images, two rows at a time (``_two_rows``). Where the two blocks are one, a row's
    tiles start at the tile of its diagonal (the few entries left of it in that tile are
    their mirror images' numbers: a product's two factors commute exactly)."""
    for i in range(r, re, 2):
        i1 = i + 1 if i + 1 < re else i  # (an odd last row: its tile's second row is itself)
        j = s if s != r else r + (i - r) // 4 * 4  # (one block: from the diagonal's tile)
        _two_rows(Zt, i, i1, j, se, k0, k1, G, False, True)


@jit(inline="always")  # (into the loops over pairs of rows: a call per pair)
def _two_rows(Zt, i, i1, j, se, k0, k1, G, sparse, mirror):
    """G[i, j:se] and G[i1, j:se] = the products of Zt's columns over the dofs k0..k1, in
    tiles of two rows by four columns, each entry's products summed in its own register in
    ascending k (a multiply-add each: the same sums, in the same order, as entry by entry;
    eight independent sums share their loads and their loop). ``sparse``: skip the dofs where
    both rows are zero (rows of one tree, mostly zero below their chains; the skipped
    products are exact zeros, which change no sum: one that starts at +0 never becomes -0).
    ``mirror``: write G[j:se, i] and G[j:se, i1] too. Entry by entry, the quadruped's 12 rows
    took 0.55 us, in tiles 0.35 us; the stack of ten boxes' 120 rows about 25 us, in tiles
    about 10 us."""
    n = k1 - k0 + 1
    Y = Zt[k0:k1 + 1]
    while j + 4 <= se:
        a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
        for t in range(n):
            y, z = Y[t, i], Y[t, i1]
            if sparse and y == 0.0 and z == 0.0:
                continue
            x0, x1, x2, x3 = Y[t, j], Y[t, j + 1], Y[t, j + 2], Y[t, j + 3]
            a0 += y * x0
            a1 += y * x1
            a2 += y * x2
            a3 += y * x3
            b0 += z * x0
            b1 += z * x1
            b2 += z * x2
            b3 += z * x3
        G[i, j], G[i, j + 1], G[i, j + 2], G[i, j + 3] = a0, a1, a2, a3
        G[i1, j], G[i1, j + 1], G[i1, j + 2], G[i1, j + 3] = b0, b1, b2, b3
        if mirror:
            G[j, i], G[j + 1, i], G[j + 2, i], G[j + 3, i] = a0, a1, a2, a3
            G[j, i1], G[j + 1, i1], G[j + 2, i1], G[j + 3, i1] = b0, b1, b2, b3
        j += 4
    while j < se:
        a0 = b0 = 0.0
        for t in range(n):
            x0 = Y[t, j]
            a0 += Y[t, i] * x0
            b0 += Y[t, i1] * x0
        G[i, j], G[i1, j] = a0, b0
        if mirror:
            G[j, i], G[j, i1] = a0, b0
        j += 1


@jit(inline="always")
def code_range(code):
    """The dofs [lo, t] a row with this ``_code`` can be non-zero on (t = -1: none)."""
    x = int(code) if code >= 0.0 else -1 - int(code)
    return x & MASK, (x >> TIP) - 1


@jit
def chain_code(dof, t):
    """The ``_code`` of a row that can be non-zero on dof t and its ancestors only (a chain:
    t = -1, none), known without reading the row. Where the row is zero at t and below it,
    the code is a bound beyond its last non-zero: the products then add exact zeros (the
    same sums) and the spans can only be wider (G is zero there: the same sweeps)."""
    if t < 0:
        return 0.0
    lo = t
    while dof[lo].parent >= 0:
        lo = dof[lo].parent
    return float((t + 1) << TIP | lo)


@jit
def pair_code(dof, t1, t2):
    """The ``_code`` of a row on two bodies' chains (a contact between them: J_p(b2) -
    J_p(b1)), from the last dofs t1, t2 of their chains (-1: the world), known without
    reading the row: a chain where one body's chain holds the other's (the dofs both share
    cancel: the row is then on the deeper one's chain), else the dofs from the root of the
    first of the two chains to the last dof of either. A bound as ``chain_code``'s: the
    row's own zeros only add exact zeros (the same G) and can only widen the spans."""
    if t1 < 0 or t2 < 0:
        return chain_code(dof, max(t1, t2))
    a, b = max(t1, t2), min(t1, t2)
    x = a
    while x > b:  # (parents are numbered before their children)
        x = dof[x].parent
    if x == b:
        return chain_code(dof, a)
    lo = b
    while dof[lo].parent >= 0:
        lo = dof[lo].parent
    hi = a
    while dof[hi].parent >= 0:
        hi = dof[hi].parent
    return float(-1 - ((a + 1) << TIP | min(lo, hi)))


@jit
def _code(dof, J, r):
    """Row r's code, from its last non-zero dof t (-1 for a zero row) and the root lo of the
    dofs it can reach: ((t + 1) << TIP | lo) when J[r] is non-zero on t and its ancestors only
    (a chain: a contact's or a joint's row; then so is row r of U^-1 J^T: dofs are numbered
    parents first, and U^-1 moves entries only to ancestors; lo is t's root), else minus one
    less that (U^-1 J^T's row is then non-zero between lo, the root of its first non-zero
    dof, and t: a subtree's dofs are contiguous, its root first)."""
    nv = J.shape[1]
    t = nv - 1
    while t >= 0 and J[r, t] == 0.0:
        t -= 1
    if t < 0:
        return 0.0
    off = 0  # non-zeros up to t, then less those on t's chain
    for k in range(t + 1):
        off += J[r, k] != 0.0
    k = t
    lo = t
    while k >= 0:
        off -= J[r, k] != 0.0
        lo = k
        k = dof[k].parent
    if off == 0:
        return float((t + 1) << TIP | lo)
    lo = 0
    while J[r, lo] == 0.0:  # (the first non-zero, then its root)
        lo += 1
    while dof[lo].parent >= 0:
        lo = dof[lo].parent
    return float(-1 - ((t + 1) << TIP | lo))


@jit(inline="always")  # (called per pair of codes: inlined, the quadruped's Delassus
# matrix costs what it did entry by entry, 1.14 against 1.05 us; called, 1.36 us)
def _shared(dof, a, b):
    """The dofs k0..k1 (empty when k1 < k0) on which two rows of U^-1 J^T with codes a, b
    (``_code``) can both be non-zero: both chains, the deepest common ancestor of their tips
    and its ancestors; otherwise the overlap of their ranges [lo, t]."""
    ca, cb = a >= 0.0, b >= 0.0
    x = int(a) if ca else -1 - int(a)
    y = int(b) if cb else -1 - int(b)
    i, j = (x >> TIP) - 1, (y >> TIP) - 1
    k0 = max(x & MASK, y & MASK)
    if i < 0 or j < 0:  # a row of zeros
        return k0, -1
    if not (ca and cb):
        return k0, min(i, j)
    if (x & MASK) != (y & MASK):  # chains of different trees
        return k0, -1
    while i != j:  # (parents are numbered before their children)
        if i > j:
            i = dof[i].parent
        else:
            j = dof[j].parent
    return k0, i
