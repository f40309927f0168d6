"""Generated free velocity of a simulator step with constraint rows: M, h, the factorization.

The simulator's step (kernels/contact/time_step.py, ``free_velocity``) starts every step
that may have contact, limit or friction rows with
  M_d = M(q) + dt diag(damping) = U D U^T,     vf = v + dt M_d^-1 (tau - h(q, v) - damping v)
(h = RNEA(q, v, 0), no external forces), and the rows and the Delassus matrix read U, D and
the placements and world Jacobian columns CRBA leaves in the workspace. This generator writes
all of that for one robot as straight-line code:
- M by CRBA and h by RNEA (codegen/crba.py and codegen/rnea.py traced into one function, the
  joints' sines and cosines written once), never stored: the factorization reads the traced
  entries;
- the tree-sparse factorization M_d = U D U^T (Featherstone 2008, "Rigid Body Dynamics
  Algorithms", sec. 6.5, Table 6.3, the recursion of kernels/linalg/cholesky.py) unrolled
  over the dof tree: only ancestor pairs exist, and the literal kernel folds the free-flyer's
  constant block (its mass times the identity, in its own frame) into constants;
- the solve (Table 6.4) of vf;
- oMi of every joint (the world frame) and every dof's world Jacobian column about joint 1's
  origin, world axes (kernels/algorithms/world_origin.py), into the workspace rows that
  kernels/contact/constraint_rows.py reads.
U is written at its ancestor entries only, the entries its solves read (cholesky.solve,
solve_upper); D whole. The division by each pivot is a product with its reciprocal, so results
agree with the generic kernels to rounding, not bit for bit.
"""

from __future__ import annotations

from ..kernels.layout import OJ, OM, P_DAMPING
from . import crba, rnea
from .kinematics import read
from .parameters import OWN, Literals
from .tracer import Tracer, lit


def free_velocity(jnt, dof_parent, nq: int, nv: int, params: Literals = OWN) -> str:
    """The source of ``free_velocity_own(prm, q, v, tau, dt, ws, U, D, vf)`` (inertias and
    rotor inertias as literals, gravity and damping from prm), or with
    ``params=parameters.TABLE`` of ``free_velocity_prm`` (the same arguments, every dynamic
    parameter from prm). Returns -1, or the largest dof whose pivot is not positive (as
    cholesky.py's first one found)."""
    T = Tracer()
    qn, vn = read(T, "q", nq), read(T, "v", nv)
    H: dict = {}
    keep: dict = {}
    crba.trace(T, jnt, qn, params, lambda r, c, x: H.__setitem__((r, c), x), keep)
    h = [0.0] * nv
    rnea.trace(T, jnt, qn, vn, [0.0] * nv, params.gravity(T), params,
               lambda k, x: h.__setitem__(k, x), local=keep["local"])
    _store_workspace(T, jnt, keep)
    x = [0.0] * nv
    for i in range(1, jnt.shape[0]):
        for d in range(int(jnt[i]["nv"])):
            k = int(jnt[i]["idx_v"]) + d
            damping = T.assign(f"prm[{i}, {P_DAMPING + d}]", "c")
            H[(k, k)] = T.sop([(1.0, H[(k, k)]), (1.0, "dt", damping)])
            x[k] = T.sop([(1.0, T.assign(f"tau[{k}]", "tau")), (-1.0, h[k]),
                          (-1.0, damping, vn[k])])
    ancestors = [_path(dof_parent, k) for k in range(nv)]
    inv = [0.0] * nv
    for k in range(nv - 1, -1, -1):  # Table 6.3: a dof's row is final once its subtree is done
        T.line(f"D[{k}] = {lit(H[(k, k)])}")
        inv[k] = 1.0 / H[(k, k)] if isinstance(H[(k, k)], float) else \
            T.assign(f"1.0 / {H[(k, k)]}", "inv")
        for i in ancestors[k]:
            a = T.sop([(1.0, H.get((i, k), 0.0), inv[k])])
            for j in [i] + ancestors[i]:
                H[(j, i)] = T.sop([(1.0, H.get((j, i), 0.0)), (-1.0, H.get((j, k), 0.0), a)])
            H[(i, k)] = a
            T.line(f"U[{i}, {k}] = {lit(a)}")
    for k in range(nv - 1, -1, -1):  # x <- U^-1 x
        for j in ancestors[k]:
            x[j] = T.sop([(1.0, x[j]), (-1.0, H[(j, k)], x[k])])
    for k in range(nv):  # x <- D^-1 x, then U^-T x
        x[k] = T.sop([(1.0, x[k], inv[k])] + [(-1.0, H[(j, k)], x[j]) for j in ancestors[k]])
        T.line(f"vf[{k}] = {lit(T.sop([(1.0, vn[k]), (1.0, 'dt', x[k])]))}")
    head = [f"def free_velocity{params.suffix}(prm, q, v, tau, dt, ws, U, D, vf):",
            '    """vf = v + dt M_d^-1 (tau - h - damping v) and its factorization U, D, with '
            'oMi and',
            '    the world Jacobian columns in ws (codegen/free_velocity.py); -1, or the dof '
            'whose pivot',
            '    is not positive."""']
    tail = [f"    for k in range({nv - 1}, -1, -1):",
            "        if not D[k] > 0.0:",
            "            return k",
            "    return -1"]
    return "\n".join(["@jit"] + head + T.lines + tail) + "\n"


def _path(dof_parent, k: int) -> list[int]:
    """The ancestors of dof k, nearest first."""
    out = []
    j = int(dof_parent[k])
    while j >= 0:
        out.append(j)
        j = int(dof_parent[j])
    return out


def _store_workspace(T: Tracer, jnt, keep: dict) -> None:
    """ws[i, OM:OM + 12] = oMi in the world (R row-major, then p) and ws[i, OJ + 6 d:...] the
    world Jacobian column of dof d about joint 1's origin, world axes (what the generic CRBA
    leaves: kernels/algorithms/world_origin.py), from the placements in joint 1's frame.
    With joint 1 the universe's only child that frame is joint 1's (axes R1, origin p1):
    oRi = R1 R'_i, opi = p1 + R1 p'_i, a column's two halves each rotated by R1. Otherwise it
    has the world's axes at p1 and only the positions move."""
    world, axes, local, J = keep["world"], keep["axes"], keep["local"], keep["J"]
    p1 = local[0][1]
    for i in range(1, jnt.shape[0]):
        R, p = world[i]
        if axes is not None:
            R, p = T.matmul(axes, R), T.add(p1, T.matvec(axes, p))
        else:
            p = T.add(p1, p)
        for k, x in enumerate([R[r][c] for r in range(3) for c in range(3)] + p):
            T.line(f"ws[{i}, {OM + k}] = {lit(x)}")
        for d, col in enumerate(J[i]):
            if axes is not None:
                col = T.matvec(axes, col[:3]) + T.matvec(axes, col[3:])
            for k, x in enumerate(col):
                T.line(f"ws[{i}, {OJ + 6 * d + k}] = {lit(x)}")
