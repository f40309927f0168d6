"""Centres of mass of every subtree (row 0: the whole robot), with velocity and acceleration.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Inertia" (a body's
inertia as (m, c, I), c its centre of mass in the body frame): the com of body i in the world is
^0M_i c_i; its velocity and classical acceleration, from LOCAL (v, w) and (a, alpha) of body i:
  vdot_c = R (v + w x c),  a_c = R (a + alpha x c + w x (v + w x c))
Subtrees accumulate from the leaves: m_S = sum m,  c_S = sum m c / m_S (likewise v, a).
"""

from .._jit import jit
from ..layout import A, OM, V
from ..spatial import motion, se3


@jit
def center_of_mass(jnt, ws, order, mass, com, vcom, acom):
    """order: 0 positions, 1 + velocities, 2 + accelerations (ws from forward_kinematics)."""
    n = jnt.shape[0]
    for i in range(n):
        mass[i] = 0.0
        for k in range(3):
            com[i, k] = 0.0
            vcom[i, k] = 0.0
            acom[i, k] = 0.0
    for i in range(1, n):
        jr = jnt[i]
        m = jr.mass
        w = ws[i]
        cx, cy, cz = jr.com[0], jr.com[1], jr.com[2]
        c = se3.act_point(w, OM, cx, cy, cz)
        mass[i] = m
        com[i, 0] = m * c[0]
        com[i, 1] = m * c[1]
        com[i, 2] = m * c[2]
        if order >= 1:
            wx, wy, wz = w[V + 3], w[V + 4], w[V + 5]
            wc = motion.cross3(wx, wy, wz, cx, cy, cz)
            vl = (w[V] + wc[0], w[V + 1] + wc[1], w[V + 2] + wc[2])
            vo = se3.rot(w, OM, vl[0], vl[1], vl[2])
            for k in range(3):
                vcom[i, k] = m * vo[k]
            if order >= 2:
                ac = motion.cross3(w[A + 3], w[A + 4], w[A + 5], cx, cy, cz)
                wv = motion.cross3(wx, wy, wz, vl[0], vl[1], vl[2])
                ao = se3.rot(w, OM, w[A] + ac[0] + wv[0], w[A + 1] + ac[1] + wv[1],
                             w[A + 2] + ac[2] + wv[2])
                for k in range(3):
                    acom[i, k] = m * ao[k]
    for i in range(n - 1, 0, -1):  # mass-weighted sums up the tree, then divide
        par = jnt[i].parent
        mass[par] += mass[i]
        for k in range(3):
            com[par, k] += com[i, k]
            vcom[par, k] += vcom[i, k]
            acom[par, k] += acom[i, k]
    for i in range(n):
        if mass[i] > 0.0:
            for k in range(3):
                com[i, k] /= mass[i]
                vcom[i, k] /= mass[i]
                acom[i, k] /= mass[i]
