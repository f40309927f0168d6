"""Generated derivatives of forward dynamics: ddq/dq, ddq/dv and ddq/dtau = M(q)^-1, for one
robot (the generic kernel: kernels/algorithms/aba_derivatives.py).

Source: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS
2018, sec. V: differentiating ID(q, v, FD(q, v, tau)) = tau at a = FD(q, v, tau) gives
  ddq/dq = -M^-1 dtau/dq,   ddq/dv = -M^-1 dtau/dv,   ddq/dtau = M^-1,
with dtau/dq, dtau/dv and M from codegen/rnea_derivatives.py at (q, v, a). Generated as
``abad_dynamics``: the generated ABA (codegen/aba.py) for a, then the traced RNEA derivatives
at a, reusing ABA's placements, J, v and body inertias, written into the outputs; and
``abad_solve``: M^-1 applied through the tree-sparse factorization M = U D U^T (Featherstone,
"Rigid Body Dynamics Algorithms" (2008), sec. 6.5, Tables 6.3 and 6.4;
kernels/linalg/cholesky.py), traced on M's entries in the first and handed to the second
in Minv's storage (U above the diagonal, W = U D below it, 1 / D on it). With b the
right-hand sides, both sweeps pull, so each row is stored once:
  z_j = 1/D_j (b_j - sum_{k below j} W[j, k] z_k)   (j = nv-1 .. 0;  b = -X for -M^-1 X)
  x_k = z_k - sum_{j above k} U[j, k] x_j          (k = 0 .. nv-1).
For ddq/dq and ddq/dv each step is a whole row (fq, fv: flat views of the C-contiguous
arrays, so each row is a constant offset and its loop vectorizes), a row and its parent on a
chain sharing one loop. M^-1 is the same solve on the identity, kept to its upper triangle
(row j of U^-1 is nonzero on j's subtree only; each row touched only on the columns it can be
nonzero in, tracked through the sweeps) and mirrored, symmetric to the bit as the generic
inverse_sparse.
A non-positive pivot is not tested for (the kernel is unchecked: inf/nan come out, as for the
generated aba; the checked call names it).
"""

from __future__ import annotations

from . import aba
from .kinematics import read
from .parameters import LITERALS
from .rnea_derivatives import index_table, segments, trace, traced, zero_loop
from .tracer import Tracer, lit


def dof_parents(jnt, nv: int) -> list[int]:
    """The parent dof of every dof (-1 at the root), Featherstone's lambda for dofs."""
    out = [-1] * nv
    for i in range(1, jnt.shape[0]):
        iv, nvi, par = int(jnt[i]["idx_v"]), int(jnt[i]["nv"]), int(jnt[i]["parent"])
        for d in range(nvi):
            if d:
                out[iv + d] = iv + d - 1
            elif par:
                out[iv] = int(jnt[par]["idx_v"]) + int(jnt[par]["nv"]) - 1
    return out


def ancestors(lam, k: int) -> list[int]:
    out = []
    j = lam[k]
    while j >= 0:
        out.append(j)
        j = lam[j]
    return out


def factor(T: Tracer, lam, M: dict):
    """U (dict (j, k) for j an ancestor of k), W = U D (the same keys) and 1 / D (a list) of
    M = U D U^T, traced (kernels/linalg/cholesky.py's LTDL on the related entries of M,
    r <= c)."""
    nv = len(lam)
    H = dict(M)
    dinv = [None] * nv
    for k in range(nv - 1, -1, -1):
        dinv[k] = T.assign(f"1.0 / {lit(H[k, k])}", "di")
        for i in ancestors(lam, k):
            a = T.sop([(1.0, H[i, k], dinv[k])])
            for j in [i] + ancestors(lam, i):
                H[j, i] = T.sop([(1.0, H[j, i]), (-1.0, H[j, k], a)])
            H[i, k] = a
    U = {(j, k): H[j, k] for k in range(nv) for j in ancestors(lam, k)}
    W = {(j, k): T.sop([(1.0, u, H[k, k])]) for (j, k), u in U.items()}
    return U, W, dinv


def _coef(x, sign: str = "") -> str:
    """A factor's text: its variable (with ``sign``) or its literal value."""
    if isinstance(x, str):
        return f"{sign}{x}"
    return lit(-x if sign else x)


def _chains(rows, joined) -> list[list[int]]:
    """``rows`` (in sweep order) cut into runs of at most two: a row joins the previous one
    when ``joined(previous, row)``."""
    out = []
    for r in rows:
        if out and len(out[-1]) < 2 and joined(out[-1][-1], r):
            out[-1].append(r)
        else:
            out.append([r])
    return out


def solve_rows(lines: list, lam, U, W, dinv, flats, nv: int) -> None:
    """Lines that apply -M^-1 to whole rows of the (nv, nv) arrays, each seen through a flat
    C-order view (``flats``: the views' names), every entry a row may not reach already 0.
    Both sweeps pull (one store per row): with W = U D,
      z_j = -1/D_j (b_j + sum_{k below j} W[j, k] z_k)   (j = nv-1 .. 0),
      x_k = z_k - sum_{j above k} U[j, k] x_j            (k = 0 .. nv-1).
    Why whole rows through flat views: every access is then a constant offset plus c, so
    LLVM proves the rows apart and vectorizes each row's loop (a 2-D index carries the
    run-time row stride, and the loops stayed scalar). Why pairs of rows, a row and its
    parent on a chain, in one loop with both arrays: the rows they pull from are loaded
    once for both, and loads, not arithmetic, bound these loops."""
    n = nv
    below = [[k for k in range(j + 1, nv) if j in ancestors(lam, k)] for j in range(nv)]

    def up(j, p):  # p = j's parent, j its only child: p pulls from j and what j pulls from
        return lam[j] == p and set(below[p]) == {j} | set(below[j])

    for blk in _chains(range(nv - 1, -1, -1), up):
        src = below[blk[0]]
        _block(lines, flats, n, blk, {j: [(W[j, k], "", k) for k in src] for j in blk},
               lambda j, p: (W[j, p], ""), {j: f"-{dinv[j]}" for j in blk})
    for blk in _chains(range(nv), lambda k, c: lam[c] == k):
        above = ancestors(lam, blk[0])
        if above or len(blk) > 1:
            _block(lines, flats, n, blk, {k: [(U[j, k], "-", j) for j in above] for k in blk},
                   lambda k, p: (U[p, k], "-"), {})


def _block(lines, flats, n, blk, pulls, link, scale) -> None:
    """One loop over the columns computing the rows of ``blk`` in order, in each flat array X:
    x_j = scale_j (X[j] + sum coef X[src] over pulls[j] + sum link(j, p) x_p over the block's
    earlier rows p), coefficients given as (value, sign); zero ones are left out."""
    lines.append(f"    for c in range({n}):")
    for X in flats:
        for j in blk:
            terms = [f"{X}[{j * n} + c]"] + [f"{_coef(u, sign)} * {X}[{k * n} + c]"
                                             for u, sign, k in pulls[j] if not u == 0.0]
            lines.append(f"        s{j} = " + " + ".join(terms))
        for i, j in enumerate(blk):
            inner = " + ".join([f"s{j}"] + [f"{_coef(*link(j, p))} * x{p}" for p in blk[:i]
                                            if not link(j, p)[0] == 0.0])
            lines.append(f"        x{j} = {scale[j]} * ({inner})" if j in scale
                         else f"        x{j} = {inner}")
            lines.append(f"        {X}[{j * n} + c] = x{j}")


def _pull(lines, row, G, n, own, others, scale=None):
    """Lines for G[row, c] = scale * (base + sum_i coef_i G[src_i, c]) (G flat, rows of n)
    over the columns that own (the row's columns that may be nonzero: its base, else 0) or
    any source holds; ``others`` is [(coef text, src row, its columns)]; ``scale`` None
    means 1."""
    for a, b, who in segments([own] + [cols for _, _, cols in others]):
        lines.append(f"    for c in range({a}, {b}):")
        terms = [f"{others[w - 1][0]} * {G}[{others[w - 1][1] * n} + c]" for w in who if w]
        if 0 in who:
            terms.insert(0, f"{G}[{row * n} + c]")
        expr = " + ".join(terms)
        if scale is not None:
            expr = f"{scale} * ({expr})"
        lines.append(f"        {G}[{row * n} + c] = {expr}")


def inverse_upper(lines: list, lam, U, W, dinv, G: str, nv: int, nz: list) -> None:
    """Lines that write M^-1's upper triangle into the flat view ``G``: the two sweeps of
    ``solve_rows`` on the identity, each row only on the columns it can be nonzero in (nz[r],
    empty sets on entry, the columns row r reached on exit: row j of U^-1 lives on j's
    subtree), each contiguous run of them one short loop (here runs beat whole rows:
    measured on Talos)."""
    n = nv
    below = [[k for k in range(j + 1, nv) if j in ancestors(lam, k)] for j in range(nv)]
    for j in range(nv - 1, -1, -1):  # b = e_j: z_j[j] = 1 / D_j, and descendants beyond
        lines.append(f"    {G}[{j * n + j}] = {dinv[j]}")
        others = [(_coef(W[j, k], "-"), k, nz[k]) for k in below[j] if not W[j, k] == 0.0]
        _pull(lines, j, G, n, set(), others, dinv[j])
        nz[j].add(j)
        for _, _, cols in others:
            nz[j] |= cols
    for k in range(nv):
        others = [(_coef(U[j, k], "-"), j, {c for c in nz[j] if c >= k})
                  for j in ancestors(lam, k) if not U[j, k] == 0.0]
        _pull(lines, k, G, n, nz[k], others)
        for _, _, cols in others:
            nz[k] |= cols


def aba_derivatives(jnt, nq: int, nv: int) -> str:
    """The source of ``aba_derivatives(gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv)``: ddq =
    ABA(q, v, tau) (no external forces) and the three (nv, nv) matrices, both triangles.

    Two functions it calls, because numba's compile time grows faster than the length of
    one function: ``abad_dynamics`` (the generated ABA, then the RNEA derivatives at ddq
    reusing ABA's placements, J, v and inertias, into ddq_dq, ddq_dv, and M's factors into
    Minv) and ``abad_solve`` (the solves, Minv last)."""
    def tracing(T, table, looped):
        qn, vn, tn = read(T, "q", nq), read(T, "v", nv), read(T, "tau", nv)
        g = LITERALS.gravity(T)
        kept: dict = {}
        a = aba.trace(T, jnt, qn, vn, tn, g, keep=kept)
        return trace(T, jnt, qn, vn, a, g, "dq", "dv", shared=kept, table=table,
                     looped=looped)

    T, M, looped = traced(jnt, nv, tracing)  # M's entries stay traced: factor reads them
    lam = dof_parents(jnt, nv)
    U, W, dinv = factor(T, lam, M)
    for (j, k), u in sorted(U.items()):
        if isinstance(u, str):
            T.line(f"F[{j}, {k}] = {u}")
        if isinstance(W[j, k], str):
            T.line(f"F[{k}, {j}] = {W[j, k]}")
    for k, x in enumerate(dinv):
        T.line(f"F[{k}, {k}] = {x}")
    first = (["@jit", "def abad_dynamics(gravity, q, v, tau, ddq, dq, dv, F):",
              '    """ddq = ABA(q, v, tau); dtau/dq, dtau/dv at (q, v, ddq) into dq, dv; M = U D '
              'U^T into F: U above the diagonal, U D below (transposed), 1 / D on it."""',
              # the solve reads whole rows: the entries the recursion does not write are 0
              ] + ([f"    W = stack_matrix(24, {nv})"] if looped else []) + [
              f"    for r in range({nv}):", f"        for c in range({nv}):",
              "            dq[r, c] = 0.0", "            dv[r, c] = 0.0"]
             + T.lines)
    un, wn, lines = {}, {}, []
    for (j, k), u in sorted(U.items()):
        un[j, k] = f"u{j}_{k}" if isinstance(u, str) else u
        wn[j, k] = f"w{j}_{k}" if isinstance(W[j, k], str) else W[j, k]
        if isinstance(u, str):
            lines.append(f"    u{j}_{k} = Minv[{j}, {k}]")
        if isinstance(W[j, k], str):
            lines.append(f"    w{j}_{k} = Minv[{k}, {j}]")
    lines += [f"    d{k} = Minv[{k}, {k}]" for k in range(nv)]
    dn = [f"d{k}" for k in range(nv)]
    # flat views: numba's reshape of a C-contiguous array; any other array is refused
    lines += [f"    fq = dq.reshape({nv * nv})", f"    fv = dv.reshape({nv * nv})",
              f"    fi = Minv.reshape({nv * nv})"]
    solve_rows(lines, lam, un, wn, dn, ("fq", "fv"), nv)
    nz = [set() for _ in range(nv)]
    inverse_upper(lines, lam, un, wn, dn, "fi", nv, nz)
    inv_rest = [(r, c) for r in range(nv) for c in range(r, nv) if c not in nz[r]]
    lines += zero_loop("ABAD_INV_REST", ("Minv",))
    lines += [f"    for r in range({nv}):", f"        for c in range(r + 1, {nv}):",
              "            Minv[c, r] = Minv[r, c]"]
    third = ["@jit", "def abad_solve(dq, dv, Minv):",
             '    """dq <- -M^-1 dq, dv <- -M^-1 dv, Minv = M^-1 from the factors '
             'abad_dynamics left in Minv."""'] + lines
    main = ["@jit", "def aba_derivatives(gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv):",
            '    """ddq = ABA(q, v, tau) and ddq/dq, ddq/dv, M^-1 (nv, nv), both triangles; no '
            'external forces."""',
            "    abad_dynamics(gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv)",
            "    abad_solve(ddq_dq, ddq_dv, Minv)"]
    return "\n".join([index_table("ABAD_INV_REST", inv_rest), "", ""]
                     + first + ["", ""] + third + ["", ""] + main) + "\n"
