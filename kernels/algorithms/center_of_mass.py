"""Centres of mass of every subtree (row 0: the whole robot), with velocity and acceleration.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Inertia" (a body's
inertia as (m, c, I), c its centre of mass in the body frame): the com of body i in the world is
^0M_i c_i; its velocity and classical acceleration, from LOCAL (v, w) and (a, alpha) of body i:
  vdot_c = R (v + w x c),  a_c = R (a + alpha x c + w x (v + w x c)).
Computed mass-weighted from the dynamic parameters (m, h = m c), with no division per body:
  m c_0 = R h + m p,  m vdot_c = R (m v + w x h),  m a_c = R (m a + alpha x h + w x (m v + w x h))
Subtrees accumulate from the leaves: m_S = sum m,  c_S = sum m c / m_S (likewise v, a).
"""

from .._jit import jit
from ..layout import A, OM, P_PI, V
from ..spatial import inertia, motion, se3


@jit
def center_of_mass(jnt, prm, ws, order, mass, com, vcom, acom):
    """order: 0 positions, 1 + velocities, 2 + accelerations (ws from forward_kinematics)."""
    n = jnt.shape[0]
    for i in range(n):
        mass[i] = 0.0
        for k in range(3):
            com[i, k] = 0.0
            vcom[i, k] = 0.0
            acom[i, k] = 0.0
    for i in range(1, n):
        pr = prm[i]
        m = pr[P_PI]
        hx, hy, hz = pr[P_PI + 1], pr[P_PI + 2], pr[P_PI + 3]
        w = ws[i]
        c = inertia.world_first_moment(w, OM, pr, P_PI)
        mass[i] = m
        com[i, 0] = c[0]
        com[i, 1] = c[1]
        com[i, 2] = c[2]
        if order >= 1:
            wx, wy, wz = w[V + 3], w[V + 4], w[V + 5]
            wh = motion.cross3(wx, wy, wz, hx, hy, hz)
            vl = (m * w[V] + wh[0], m * w[V + 1] + wh[1], m * w[V + 2] + wh[2])
            vo = se3.rot(w, OM, vl[0], vl[1], vl[2])
            for k in range(3):
                vcom[i, k] = vo[k]
            if order >= 2:
                ah = motion.cross3(w[A + 3], w[A + 4], w[A + 5], hx, hy, hz)
                wv = motion.cross3(wx, wy, wz, vl[0], vl[1], vl[2])
                ao = se3.rot(w, OM, m * w[A] + ah[0] + wv[0], m * w[A + 1] + ah[1] + wv[1],
                             m * w[A + 2] + ah[2] + wv[2])
                for k in range(3):
                    acom[i, k] = ao[k]
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
