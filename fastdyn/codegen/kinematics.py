"""Generated forward kinematics and joint Jacobians.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "RNEA / Forward loop"
and "Nota": ^0M_i = ^0M_{l(i)} ^{l(i)}M_i; the world Jacobian column of dof k of joint i is
^0X_i S_k (Pinocchio's computeJointJacobians).
"""

from __future__ import annotations

from . import joints, spatial
from ..kernels.layout import LI, OM
from .tracer import Tracer, lit


def world_placements(T: Tracer, jnt, qn, frame: str = "world", local: list | None = None):
    """[(R, p)] of every joint (index 0, the universe: None) and the rotation that maps the
    frame they are expressed in to the world's axes (None: the world's own axes).

    frame="world": the world frame. frame="first": the frame of joint 1 at this q, when joint 1
    is the universe's only child, else the world's axes at joint 1's origin. M(q) and qddot do
    not depend on which fixed frame the spatial quantities are written in; in joint 1's frame
    its placement is the identity, so its subspace, and everything that multiplies it, are
    constants, and digits are kept far from the world origin (kernels/algorithms/world_origin.py
    makes the translation-only choice for the same reason). ``local`` collects liMi."""
    n = jnt.shape[0]
    roots = [i for i in range(1, n) if int(jnt[i]["parent"]) == 0]
    out = [None]
    axes = None
    origin = None
    eye = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    for i in range(1, n):
        par = int(jnt[i]["parent"])
        if frame == "first" and roots == [1] and i == 1:
            axes, p1 = joints.placement(T, jnt[1], qn)
            if local is not None:
                local.append((axes, p1))
            out.append((eye, [0.0, 0.0, 0.0]))
            continue
        R, p = joints.placement(T, jnt[i], qn)
        if local is not None:
            local.append((R, p))
        if par == 0:
            if frame == "first":
                if origin is None:
                    origin = p
                p = T.sub(p, origin)
            out.append((R, p))
        else:
            Rp, pp = out[par]
            out.append((T.matmul(Rp, R), T.add(pp, T.matvec(Rp, p))))
    return out, axes


def read(T: Tracer, array: str, n: int) -> list[str]:
    return [T.assign(f"{array}[{k}]", array) for k in range(n)]


def _store_placements(T: Tracer, jnt, qn):
    """liMi and oMi of every joint into ws (as the generic forward kinematics leaves them);
    returns the world placements."""
    local: list = []
    world, _ = world_placements(T, jnt, qn, local=local)
    for i in range(1, jnt.shape[0]):
        for col, (R, p) in ((LI, local[i - 1]), (OM, world[i])):
            for k, x in enumerate([R[r][c] for r in range(3) for c in range(3)] + p):
                T.line(f"ws[{i}, {col + k}] = {lit(x)}")
    return world


def forward_kinematics(jnt, nq: int) -> str:
    T = Tracer()
    _store_placements(T, jnt, read(T, "q", nq))
    return "\n".join(["@jit", "def forward_kinematics(q, ws):",
                      f'    """liMi and oMi of every joint into ws[:, {LI}:{LI + 12}] and '
                      f'ws[:, {OM}:{OM + 12}]."""'] + T.lines) + "\n"


def joint_jacobians(jnt, nq: int, nv: int) -> str:
    T = Tracer()
    world = _store_placements(T, jnt, read(T, "q", nq))
    for i in range(1, jnt.shape[0]):
        R, p = world[i]
        iv = int(jnt[i]["idx_v"])
        for d, col in enumerate(joints.subspace(jnt[i])):
            for r, x in enumerate(spatial.act(T, R, p, col)):
                T.line(f"J[{r}, {iv + d}] = {lit(x)}")
    return "\n".join(["@jit", "def joint_jacobians(q, ws, J):",
                      '    """liMi and oMi into ws (as forward_kinematics) and the world Jacobian '
                      'J (6, nv)."""'] + T.lines) + "\n"
