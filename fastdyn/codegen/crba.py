"""Generated composite-rigid-body algorithm, in the world frame like kernels/algorithms/crba.py.

Source: Featherstone, "Rigid Body Dynamics Algorithms" (2008), sec. 6.2 and Table 6.2;
Pinocchio documentation, "SE(3) operations" cheat sheet, "Inertia application" (an inertia
in another frame); Pinocchio's world-frame variant:
  oY_i = ^0X_i^* Y_i ^iX_0,   oYc_i = oY_i + sum_{children c} oYc_c,   J_i = ^0X_i S_i,
  F_i = oYc_i J_i,   M[j, i] = J_j^T F_i for every ancestor j of i (and i itself),
plus the rotor inertias (armature) on the diagonal. Written in joint 1's frame
(kinematics.world_placements): M does not depend on the frame, and there joint 1's columns are
constants. Entries are stored as soon as they are known (short live ranges in a long function).
"""

from __future__ import annotations

from . import joints, spatial
from .parameters import LITERALS, Literals
from .kinematics import read, world_placements
from .tracer import Tracer, lit


def crba(jnt, nq: int, nv: int, params: Literals = LITERALS) -> str:
    """The source of ``crba(q, M)``; with ``params=parameters.TABLE`` of ``crba_prm(prm, q,
    M)``, the inertias and rotor inertias read from the parameter table; with
    ``parameters.INERTIAS`` of ``crba_pi(pi, q, M)``, the bodies' inertias read from pi."""
    T = Tracer()
    qn = read(T, "q", nq)

    def emit(r, c, x):  # both triangles from the value in hand
        T.line(f"M[{r}, {c}] = {lit(x)}")
        if r != c:
            T.line(f"M[{c}, {r}] = {lit(x)}")

    trace(T, jnt, qn, params, emit)
    # Entries between dofs on different branches are zero: one contiguous clear first, then
    # each structural entry stored into both triangles. Against a loop over a constant table of
    # the zeros and another for the mirror image: Talos 1.27 -> 1.06 us, Solo12 0.255 ->
    # 0.227 us, Panda and UR5 within 2 %; numba's compile time grows with the stores
    # (Talos: 8 -> 12 s; 89 s with all 1444 entries written out, zeros included).
    clear = [f"    for r in range({nv}):", f"        for c in range({nv}):",
             "            M[r, c] = 0.0"]
    head = f"def crba{params.suffix}({params.arguments(False)}q, M):"
    return "\n".join(["@jit", head,
                      '    """The joint-space inertia matrix M(q) (nv, nv), both triangles."""']
                     + clear + T.lines) + "\n"


def trace(T: Tracer, jnt, qn, params: Literals, emit, keep: dict | None = None) -> set:
    """CRBA traced into ``T`` (the module docstring's recursion, in joint 1's frame), q given
    as traced values: ``emit(row, col, value)`` receives each structural entry of M's upper
    triangle (row <= col) as soon as it is known. Returns the set of related (ancestor,
    descendant) dof pairs. ``keep`` receives what generators that go on from M need
    (codegen/free_velocity.py): "world", "axes" (kinematics.world_placements'), "local"
    (every joint's liMi) and "J" (the subspace columns in that frame)."""
    n = jnt.shape[0]
    local = [] if keep is not None else None
    world, axes = world_placements(T, jnt, qn, frame="first", local=local)
    Jc = [None] * n
    Yc = [None] * n
    for i in range(1, n):
        R, p = world[i]
        Jc[i] = [spatial.act(T, R, p, col) for col in joints.subspace(jnt[i])]
        Yc[i] = params.body_in(T, jnt[i], i, R, p)
    related = set()
    for i in range(1, n):
        j = i
        while j > 0:
            for e in range(int(jnt[j]["nv"])):
                for d in range(int(jnt[i]["nv"])):
                    related.add((int(jnt[j]["idx_v"]) + e, int(jnt[i]["idx_v"]) + d))
            j = int(jnt[j]["parent"])
    for i in range(n - 1, 0, -1):
        jr = jnt[i]
        iv = int(jr["idx_v"])
        par = int(jr["parent"])
        F = [spatial.apply_inertia(T, Yc[i], col) for col in Jc[i]]
        j = i
        while j > 0:
            jv = int(jnt[j]["idx_v"])
            for e, colj in enumerate(Jc[j]):
                for d, f in enumerate(F):
                    if j == i and e > d:
                        continue  # the block's other triangle: its transpose
                    x = T.dot(colj, f)
                    if j == i and e == d:
                        x = T.sop([(1.0, x), (1.0, params.armature(T, jr, i, d))])
                    emit(jv + e, iv + d, x)
            j = int(jnt[j]["parent"])
        if par:
            Yc[par] = [T.sop([(1.0, x), (1.0, y)]) for x, y in zip(Yc[par], Yc[i])]
    if keep is not None:
        keep.update(world=world, axes=axes, local=local, J=Jc)
    return related
