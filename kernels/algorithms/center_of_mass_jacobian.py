"""Jacobians of the centre of mass of the whole robot or of any subtree: cdot = Jc v.

Source: Traversaro & Saccon (2019), sec. 8 (world Jacobian columns J_k = [J_v; J_w], the
velocity of the body point at x being J_v + J_w x x); Orin, Goswami & Lee (2013) (the linear
momentum of the robot is m times the velocity of its centre of mass). With
m_i, c_i the mass and com of the subtree of joint i (world), for the subtree of r:
  column k of a dof of joint i in subtree(r):  (m_i / m_r) (J_k,v + J_k,w x c_i)
  column k of a dof of a strict ancestor of r:  J_k,v + J_k,w x c_r
  every other column: 0
(every body of subtree(i) moves rigidly with dof k, and sum_b m_b (v + w x c_b) = m_i (v + w x
c_i)). r = 0 is the whole robot (Pinocchio's jacobianCenterOfMass; jacobianSubtreeCenterOfMass
otherwise). Joints are numbered depth first, so subtree(r) is the index range [r, end).
References: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019; Orin, Goswami & Lee, "Centroidal dynamics of a humanoid robot",
Autonomous Robots, 2013.
"""

from .._jit import jit
from ..layout import OJ, OM, P_PI
from ..spatial import inertia, motion
from .forward_kinematics import forward_kinematics
from .jacobian import world_columns


@jit
def subtree_coms(jnt, prm, ws, mass, com):
    """mass[i], com[i] (world) of the subtree of every joint i (row 0: the whole robot)."""
    n = jnt.shape[0]
    for i in range(n):
        mass[i] = 0.0
        com[i, 0] = 0.0
        com[i, 1] = 0.0
        com[i, 2] = 0.0
    for i in range(n - 1, 0, -1):
        jr = jnt[i]
        c = inertia.world_first_moment(ws[i], OM, prm[i], P_PI)
        mass[i] += prm[i, P_PI]
        for k in range(3):
            com[i, k] += c[k]
        par = jr.parent
        mass[par] += mass[i]
        for k in range(3):
            com[par, k] += com[i, k]
    for i in range(n):
        if mass[i] > 0.0:
            for k in range(3):
                com[i, k] /= mass[i]


@jit
def subtree_end(jnt, r):
    """One past the last joint of the subtree of r (depth-first numbering)."""
    e = r + 1
    while e < jnt.shape[0] and jnt[e].parent >= r:
        e += 1
    return e if r > 0 else jnt.shape[0]


@jit
def jacobian_subtree_center_of_mass(jnt, prm, q, r, ws, mass, com, Jc):
    """Placements, subtree masses and coms (mass, com), then Jc (3, nv) of the com of the
    subtree of joint r (r = 0: the whole robot)."""
    forward_kinematics(jnt, prm, q, q[:0], q[:0], ws)
    subtree_coms(jnt, prm, ws, mass, com)
    Jc[:, :] = 0.0
    for i in range(max(r, 1), subtree_end(jnt, r)):
        world_columns(jnt, i, ws)
        s = mass[i] / mass[r]
        com_columns(jnt, i, ws, s, com[i, 0], com[i, 1], com[i, 2], Jc)
    i = jnt[r].parent if r > 0 else 0
    while i > 0:
        world_columns(jnt, i, ws)
        com_columns(jnt, i, ws, 1.0, com[r, 0], com[r, 1], com[r, 2], Jc)
        i = jnt[i].parent


@jit
def com_columns(jnt, i, ws, s, cx, cy, cz, Jc):
    """Jc[:, dofs of i] = s (J_v + J_w x c) from ws[i, OJ:]."""
    w = ws[i]
    iv = jnt[i].idx_v
    for d in range(jnt[i].nv):
        o = OJ + 6 * d
        wc = motion.cross3(w[o + 3], w[o + 4], w[o + 5], cx, cy, cz)
        Jc[0, iv + d] = s * (w[o] + wc[0])
        Jc[1, iv + d] = s * (w[o + 1] + wc[1])
        Jc[2, iv + d] = s * (w[o + 2] + wc[2])
