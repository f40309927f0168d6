"""Generated forward kinematics and joint Jacobians.

Source: seed 000 "RNEA / Forward loop" and "Nota": ^0M_i = ^0M_{l(i)} ^{l(i)}M_i; the world
Jacobian column of dof k of joint i is ^0X_i S_k (Pinocchio's computeJointJacobians).
"""

from __future__ import annotations

from . import joints, spatial
from ..kernels.layout import OM
from .tracer import Tracer, lit


def world_placements(T: Tracer, jnt, qn, frame: str = "world"):
    """[(R, p)] of every joint (index 0, the universe: None) and the rotation that maps the
    frame they are expressed in to the world's axes (None: the world's own axes).

    frame="world": the world frame. frame="first": the frame of joint 1 at this q, when joint 1
    is the universe's only child, else the world's axes at joint 1's origin. M(q) and qddot do
    not depend on which fixed frame the spatial quantities are written in; in joint 1's frame
    its placement is the identity, so its subspace, and everything that multiplies it, are
    constants, and digits are kept far from the world origin (kernels/algorithms/world_origin.py
    makes the translation-only choice for the same reason)."""
    n = jnt.shape[0]
    roots = [i for i in range(1, n) if int(jnt[i]["parent"]) == 0]
    out = [None]
    axes = None
    origin = None
    eye = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    for i in range(1, n):
        par = int(jnt[i]["parent"])
        if frame == "first" and roots == [1] and i == 1:
            axes, _ = joints.placement(T, jnt[1], qn)
            out.append((eye, [0.0, 0.0, 0.0]))
            continue
        R, p = joints.placement(T, jnt[i], qn)
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


def forward_kinematics(jnt, nq: int) -> str:
    T = Tracer()
    qn = read(T, "q", nq)
    for i, (R, p) in enumerate(world_placements(T, jnt, qn)[0][1:], start=1):
        for k, x in enumerate([R[r][c] for r in range(3) for c in range(3)] + p):
            T.line(f"ws[{i}, {OM + k}] = {lit(x)}")
    return "\n".join(["@jit", "def forward_kinematics(q, ws):",
                      f'    """oMi of every joint into ws[:, {OM}:{OM + 12}]."""'] + T.lines) + "\n"


def joint_jacobians(jnt, nq: int, nv: int) -> str:
    T = Tracer()
    qn = read(T, "q", nq)
    for i, (R, p) in enumerate(world_placements(T, jnt, qn)[0][1:], start=1):
        for k, x in enumerate([R[r][c] for r in range(3) for c in range(3)] + p):
            T.line(f"ws[{i}, {OM + k}] = {lit(x)}")
        iv = int(jnt[i]["idx_v"])
        for d, col in enumerate(joints.subspace(jnt[i])):
            for r, x in enumerate(spatial.act(T, R, p, col)):
                T.line(f"J[{r}, {iv + d}] = {lit(x)}")
    return "\n".join(["@jit", "def joint_jacobians(q, ws, J):",
                      f'    """oMi into ws[:, {OM}:{OM + 12}] and the world Jacobian J (6, nv)."""']
                     + T.lines) + "\n"
