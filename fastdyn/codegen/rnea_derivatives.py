"""Generated derivatives of inverse dynamics: dtau/dq, dtau/dv and dtau/da = M(q), one robot's
recursion unrolled as straight-line code (the generic kernel: kernels/algorithms/
rnea_derivatives.py, whose equations these are).

Sources: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms",
RSS 2018, sec. IV (world-frame chain rule through RNEA); Singh, Russell & Wensing, "Efficient
Analytical Derivatives of Rigid-Body Dynamics using Spatial Vector Algebra", IEEE RA-L 2022,
arXiv:2105.05102 (IDSVA, Algorithm 1: per column of joint i a few 6-vectors that every ancestor
dots with); Traversaro & Saccon, "Multibody dynamics notation (version 2)" (2019), sec. 5.3
(the inertia's time variation). Derivatives with respect to q are along tangent vectors,
q (+) dq = integrate(q, dq), as pinocchio.computeRNEADerivatives.

Frame: one fixed frame for every spatial quantity, joint 1's frame at this q when joint 1 is the
universe's only child (kinematics.world_placements, frame="first"), with gravity rotated into it.
Every entry is a pairing J_l . t of a motion and a force written in that frame, so it does not
depend on which fixed frame is chosen, and in joint 1's frame its columns J (the identity's for a
free-flyer) are constants the tracer folds away. With J_k = ^0X_i S_k, lambda = parent(i),
a_0 = -g, Y_i the body inertia:
  forward:  v_i = v_lambda + sum J_k qdot_k,  a_i = a_lambda + v_lambda x v_J + sum J_k qddot_k
            h_i = Y_i v_i,  f_i = Y_i a_i + v_i x* h_i,  dY_i = v_i x* Y_i - Y_i (v_i x)
            dV/dq_k = v_lambda x J_k,  dA/dq_k = a_lambda x J_k + v_lambda x dV/dq_k,
            dA/dv_k = (v_i + v_lambda) x J_k
  backward: subtree sums Yc, dYc, hc, Fc; with B u = dYc u + u x* hc, per column k of joint i
            t1 = Yc J_k,  t2 = dYc J_k - J_k x* hc,  tq = Yc dA/dq_k + B dV/dq_k,
            tv = Yc dA/dv_k + B J_k,  tau_k = J_k . Fc + armature_k qddot_k;
            for j = i and its ancestors, column l of j:
              dtau_l/dq_k = J_l . (tq + [j != i] J_k x* Fc),  dtau_l/dv_k = J_l . tv,
              M_lk = J_l . t1;  if j != i:  dtau_k/dq_l = t1 . dA/dq_l + t2 . dV/dq_l,
              dtau_k/dv_l = t1 . dA/dv_l + t2 . J_l.
Entries between dofs on different branches are structurally zero: a clear of the whole arrays
before the recursion leaves them so (straight-line stores are what make numba's compile time
grow, codegen/crba.py).
Big models (LOOP_PAIRS) write the pairs of a dof with its ancestors as loops instead: the
forward pass stores every ancestor dof's J, dA/dq, dV/dq and dA/dv into a (24, nv) table in
the kernel's stack frame (kernels/stack.py: no allocation, no workspace argument), and each
column's pairs become one loop per run of consecutive ancestor dofs reading it. The dofs of a
joint whose J folded to constants keep their straight lines: in joint 1's frame, those of
joint 1 (a free-flyer's are the identity's) and of its children, whose placements in that
frame are constants.
Only joints with a constant S are generated (codegen/joints.py), so no dS/dq terms arise.
"""

from __future__ import annotations

from . import joints, spatial
from .kinematics import read, world_placements
from .parameters import LITERALS, Literals
from .tracer import Tracer, is_zero, lit


def variation(T: Tracer, Y, nu) -> list:
    """dY = nu x* Y - Y (nu x) of the 10 parameters Y [m, h, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] moving
    with the twist nu (Traversaro & Saccon 2019, sec. 5.3; kernels/spatial/inertia.variation):
    m' = 0, h' = m v + w x h, I' = [w]x I - I [w]x - (v h^T + h v^T - 2 (v . h) I3)."""
    m, hx, hy, hz, I0, I1, I2, I3, I4, I5 = Y
    vx, vy, vz, wx, wy, wz = nu
    vh = T.dot([vx, vy, vz], [hx, hy, hz])
    return [0.0,
            T.sop([(1.0, m, vx), (1.0, wy, hz), (-1.0, wz, hy)]),
            T.sop([(1.0, m, vy), (1.0, wz, hx), (-1.0, wx, hz)]),
            T.sop([(1.0, m, vz), (1.0, wx, hy), (-1.0, wy, hx)]),
            T.sop([(2.0, wy, I3), (-2.0, wz, I1), (-2.0, vx, hx), (2.0, vh)]),
            T.sop([(1.0, wy, I4), (-1.0, wz, I2), (1.0, wz, I0), (-1.0, wx, I3),
                   (-1.0, vx, hy), (-1.0, hx, vy)]),
            T.sop([(2.0, wz, I1), (-2.0, wx, I4), (-2.0, vy, hy), (2.0, vh)]),
            T.sop([(1.0, wy, I5), (-1.0, wz, I4), (1.0, wx, I1), (-1.0, wy, I0),
                   (-1.0, vx, hz), (-1.0, hx, vz)]),
            T.sop([(1.0, wz, I3), (-1.0, wx, I5), (1.0, wx, I2), (-1.0, wy, I1),
                   (-1.0, vy, hz), (-1.0, hy, vz)]),
            T.sop([(2.0, wx, I4), (-2.0, wy, I3), (-2.0, vz, hz), (2.0, vh)])]


def _six(T: Tracer, *vectors):
    return [T.sop([(1.0, x[k]) for x in vectors]) for k in range(6)]


def trace(T: Tracer, jnt, qn, vn, an, g, dq: str, dv: str, tau: str | None = None,
          params: Literals = LITERALS, shared: dict | None = None,
          table: str | None = None, loop_m: str | None = None, looped: list | None = None
          ) -> dict:
    """The recursion (module docstring) traced into ``T``: writes ``dq[r, c] = ...`` and
    ``dv[r, c] = ...`` for every related pair (arrays named ``dq``, ``dv``), ``tau[k]`` unless
    ``tau`` is None, and returns M's entries {(r, c): value} (r <= c, related pairs).
    ``shared``: what codegen/aba.trace kept (placements, J, v, inertias in the same frame),
    reused instead of traced again.

    ``table``: the name of a (24, nv) array; the pairs of a dof with its ancestors whose
    columns J are not constants are then written as loops (``pair_loops``) over that table,
    the M entries of those pairs too when ``loop_m`` names M's array (else they are returned
    as above). ``looped`` receives the number of pairs each loop covers."""
    n = jnt.shape[0]
    if shared is None:
        world, axes = world_placements(T, jnt, qn, frame="first")
    else:
        world, axes = shared["world"], shared["axes"]
    gw = g if axes is None else T.mattvec(axes, g)
    a0 = [T.sop([(-1.0, x)]) for x in gw] + [0.0, 0.0, 0.0]
    zero = [0.0] * 6
    has_child = [False] * n
    for i in range(1, n):
        has_child[int(jnt[i]["parent"])] = True
    J, ov, oa, Yc, dYc, hc, Fc, dVq, dAq, dAv = ([None] * n for _ in range(10))
    for i in range(1, n):
        jr = jnt[i]
        par = int(jr["parent"])
        iv, nvi = int(jr["idx_v"]), int(jr["nv"])
        R, p = world[i]
        J[i] = ([spatial.act(T, R, p, col) for col in joints.subspace(jr)] if shared is None
                else shared["J"][i])
        vp, ap = (ov[par], oa[par]) if par else (zero, a0)
        vj = [T.sop([(1.0, col[r], x) for col, x in zip(J[i], vn[iv:iv + nvi])])
              for r in range(6)]
        aj = [T.sop([(1.0, col[r], x) for col, x in zip(J[i], an[iv:iv + nvi])])
              for r in range(6)]
        ov[i] = T.add(vp, vj) if shared is None else shared["v"][i]
        oa[i] = _six(T, ap, aj, spatial.cross_motion(T, vp, vj))
        Y = params.body_in(T, jr, i, R, p) if shared is None else shared["Y"][i]
        Yc[i] = Y
        dYc[i] = variation(T, Y, ov[i])
        hc[i] = spatial.apply_inertia(T, Y, ov[i])
        Fc[i] = T.add(spatial.apply_inertia(T, Y, oa[i]), spatial.cross_force(T, ov[i], hc[i]))
        dVq[i] = [spatial.cross_motion(T, vp, c) for c in J[i]]
        dAv[i] = [T.add(spatial.cross_motion(T, ov[i], c), d) for c, d in zip(J[i], dVq[i])]
        dAq[i] = [T.add(spatial.cross_motion(T, ap, c), spatial.cross_motion(T, vp, d))
                  for c, d in zip(J[i], dVq[i])]
        if table is not None and has_child[i] and not _constant(J[i]):
            for e in range(nvi):
                for b, vec in enumerate((J[i][e], dAq[i][e], dVq[i][e], dAv[i][e])):
                    for r in range(6):
                        T.line(f"{table}[{6 * b + r}, {iv + e}] = {lit(vec[r])}")
    const = [True] + [table is None or _constant(J[i]) for i in range(1, n)]
    M = {}
    for i in range(n - 1, 0, -1):
        jr = jnt[i]
        par = int(jr["parent"])
        iv, nvi = int(jr["idx_v"]), int(jr["nv"])
        for d, c in enumerate(J[i]):
            k = iv + d
            t1 = spatial.apply_inertia(T, Yc[i], c)
            yj = spatial.apply_inertia(T, dYc[i], c)
            jh = spatial.cross_force(T, c, hc[i])
            tq = _six(T, spatial.apply_inertia(T, Yc[i], dAq[i][d]),
                      spatial.apply_inertia(T, dYc[i], dVq[i][d]),
                      spatial.cross_force(T, dVq[i][d], hc[i]))
            tv = _six(T, spatial.apply_inertia(T, Yc[i], dAv[i][d]), yj, jh)
            t2 = T.sub(yj, jh)
            arm = params.armature(T, jr, i, d)
            if tau is not None:
                x = T.sop([(1.0, y, z) for y, z in zip(c, Fc[i])] + [(1.0, arm, an[k])])
                T.line(f"{tau}[{k}] = {lit(x)}")
            for e, ce in enumerate(J[i]):
                T.line(f"{dq}[{iv + e}, {k}] = {lit(T.dot(ce, tq))}")
                T.line(f"{dv}[{iv + e}, {k}] = {lit(T.dot(ce, tv))}")
                if e <= d:
                    x = T.dot(ce, t1)
                    M[iv + e, k] = T.sop([(1.0, x), (1.0, arm)]) if e == d else x
            tf = T.add(tq, spatial.cross_force(T, c, Fc[i]))
            if table is not None:
                n_loop = pair_loops(T, jnt, const, par, k, (table, dq, dv, loop_m),
                                    (tf, tv, t1, t2))
                if looped is not None:
                    looped.append(n_loop)
            j = par
            while j > 0:
                inline = const[j]
                jv = int(jnt[j]["idx_v"])
                for e, ce in enumerate(J[j]):
                    r = jv + e
                    if not inline:
                        if loop_m is None:
                            M[r, k] = T.dot(ce, t1)
                        continue
                    T.line(f"{dq}[{r}, {k}] = {lit(T.dot(ce, tf))}")
                    T.line(f"{dv}[{r}, {k}] = {lit(T.dot(ce, tv))}")
                    M[r, k] = T.dot(ce, t1)
                    x = T.sop([(1.0, y, z) for y, z in zip(dAq[j][e], t1)]
                              + [(1.0, y, z) for y, z in zip(dVq[j][e], t2)])
                    T.line(f"{dq}[{k}, {r}] = {lit(x)}")
                    x = T.sop([(1.0, y, z) for y, z in zip(dAv[j][e], t1)]
                              + [(1.0, y, z) for y, z in zip(ce, t2)])
                    T.line(f"{dv}[{k}, {r}] = {lit(x)}")
                j = int(jnt[j]["parent"])
        if par:
            Yc[par] = [T.sop([(1.0, x), (1.0, y)]) for x, y in zip(Yc[par], Yc[i])]
            dYc[par] = [T.sop([(1.0, x), (1.0, y)]) for x, y in zip(dYc[par], dYc[i])]
            hc[par] = T.add(hc[par], hc[i])
            Fc[par] = T.add(Fc[par], Fc[i])
    return M


def _constant(columns) -> bool:
    """Whether every entry of a joint's columns J folded to a constant (joint 1's and its
    children's, in joint 1's frame): their pairs stay straight-line, where the products by 0
    and 1 vanish."""
    return not any(isinstance(x, str) for col in columns for x in col)


def pair_loops(T: Tracer, jnt, const, par: int, k: int, arrays, tvecs) -> int:
    """Column k's entries with every ancestor dof whose joint's J is not constant (``const``:
    per joint; the module docstring's dtau_l/dq_k, dtau_l/dv_k, dtau_k/dq_l, dtau_k/dv_l and
    M_lk, M_kl when the M array is named), one loop per run of consecutive such dofs, reading
    each ancestor dof's J, dA/dq, dV/dq, dA/dv from rows 0-5, 6-11, 12-17, 18-23 of the
    table. arrays: (table, dq, dv, M or None); tvecs: column k's (tf, tv, t1, t2). Returns
    the pair count."""
    W, dq, dv, M = arrays
    tf, tv, t1, t2 = tvecs
    dofs = set()
    j = par
    while j > 0:
        if not const[j]:
            jv = int(jnt[j]["idx_v"])
            dofs.update(range(jv, jv + int(jnt[j]["nv"])))
        j = int(jnt[j]["parent"])

    def dot(row: int, t) -> str:
        return " + ".join(f"{W}[{row + c}, r]*{lit(x)}" for c, x in enumerate(t)
                          if not is_zero(x)) or "0.0"

    for a, b, _ in segments([dofs]):
        T.line(f"for r in range({a}, {b}):")
        T.line(f"    {dq}[r, {k}] = {dot(0, tf)}")
        T.line(f"    {dv}[r, {k}] = {dot(0, tv)}")
        T.line(f"    {dq}[{k}, r] = {dot(6, t1)} + {dot(12, t2)}")
        T.line(f"    {dv}[{k}, r] = {dot(18, t1)} + {dot(0, t2)}")
        if M is not None:
            T.line(f"    m = {dot(0, t1)}")
            T.line(f"    {M}[r, {k}] = m")
            T.line(f"    {M}[{k}, r] = m")
    return len(dofs)


def segments(parts):
    """Split the columns that any of ``parts`` (sets) holds by which parts hold them:
    [(start, stop, indices of the parts)], contiguous runs."""
    owner = {}
    for n, cols in enumerate(parts):
        for c in cols:
            owner.setdefault(c, []).append(n)
    out = []
    for c in sorted(owner):
        key = tuple(owner[c])
        if out and out[-1][1] == c and out[-1][2] == key:
            out[-1] = (out[-1][0], c + 1, key)
        else:
            out.append((c, c + 1, key))
    return out


def index_table(name: str, pairs) -> str:
    """A module-level constant (k, 2) int64 table of index pairs (a placeholder row when
    empty, cut away by the slice: numba needs one shape for the literal)."""
    pairs = sorted(pairs)
    return (f"{name} = np.array({[list(z) for z in pairs] or [[0, 0]]}, dtype=np.int64)"
            f"[:{len(pairs)}]")


def zero_loop(table: str, arrays) -> list[str]:
    """Lines that write 0 into each array's entries listed in ``table``."""
    return ([f"    for k in range({table}.shape[0]):",
             f"        r, c = {table}[k, 0], {table}[k, 1]"]
            + [f"        {a}[r, c] = 0.0" for a in arrays])


# Ancestor pairs (those pair_loops would cover) from which a model's pairs are written as loops.
# Loops against straight lines (njit loop, per-process best of alternating fresh processes):
# Talos (95 pairs) 5.9-8.0 -> 4.9-5.2 us a call and a 63 s compile instead of 217 s (the
# straight-line stores are what numba's compile time grows with); Panda (20) 0.91 -> 0.86 us;
# Solo12 (4) even; UR5 (6) 0.267 -> 0.282 us: on a small model the loops cost more than they
# save.
LOOP_PAIRS = 16


def traced(jnt, nv: int, tracing) -> tuple[Tracer, object, bool]:
    """(tracer, result, looped) of ``tracing(T, table, looped)`` with the pair loops over a
    table when the model has at least LOOP_PAIRS such pairs, else straight-line (traced
    again, without the table)."""
    counts: list[int] = []
    T = Tracer()
    out = tracing(T, "W", counts)
    if sum(counts) >= LOOP_PAIRS:
        return T, out, True
    T = Tracer()
    return T, tracing(T, None, None), False


def rnea_derivatives(jnt, nq: int, nv: int) -> str:
    """The source of ``rnea_derivatives(gravity, q, v, a, tau, dtau_dq, dtau_dv, M)``: tau =
    RNEA(q, v, a) (no external forces) and the three (nv, nv) matrices, both triangles."""
    def tracing(T, table, looped):
        qn, vn, an = read(T, "q", nq), read(T, "v", nv), read(T, "a", nv)
        g = LITERALS.gravity(T)
        return trace(T, jnt, qn, vn, an, g, "dtau_dq", "dtau_dv", "tau", table=table,
                     loop_m="M", looped=looped)

    T, M, looped = traced(jnt, nv, tracing)
    for (r, c), x in sorted(M.items()):
        T.line(f"M[{r}, {c}] = {lit(x)}")
        if r < c:  # both triangles from the value in hand: no reload, no index table
            T.line(f"M[{c}, {r}] = {lit(x)}")
    # Every entry the recursion does not write is 0: one contiguous clear first costs less
    # than a loop over a table of the scattered entries (Talos, 744 entries per array: the
    # table loops, with M's mirror, took 1.35 us).
    head = [f"    W = stack_matrix(24, {nv})"] if looped else []
    head += [f"    for r in range({nv}):", f"        for c in range({nv}):"] + [
        f"            {X}[r, c] = 0.0" for X in ("dtau_dq", "dtau_dv", "M")]
    return "\n".join(["@jit",
                      "def rnea_derivatives(gravity, q, v, a, tau, dtau_dq, dtau_dv, M):",
                      '    """tau = RNEA(q, v, a) and dtau/dq, dtau/dv, M (nv, nv), both '
                      'triangles; no external forces."""'] + head + T.lines) + "\n"
