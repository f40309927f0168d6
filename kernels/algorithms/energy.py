"""Kinetic and potential energy.

Source: Siciliano, Sciavicco, Villani & Oriolo, "Robotics: Modelling, Planning and Control",
Springer 2009, ch. 7 (kinetic and potential energy of a manipulator, Lagrange formulation);
Pinocchio documentation, "SE(3) operations" cheat sheet, "Inertia" (Y nu). With LOCAL
velocities v_i from forward kinematics:
  T = 1/2 sum_i v_i . (Y_i v_i) (+ 1/2 sum armature qdot^2, the rotor energy, so that
      T = 1/2 v^T M v with M from crba);  V = - sum_i m_i g . (^0M_i c_i).
"""

from .._jit import jit
from ..layout import OM, P_ARMATURE, P_GRAVITY, P_PI, V
from ..spatial import inertia


@jit
def kinetic_energy(jnt, prm, qd, ws):
    """Needs ws velocities (forward_kinematics with v)."""
    e = 0.0
    for i in range(1, jnt.shape[0]):
        w = ws[i]
        f = inertia.apply(prm[i], P_PI, w, V)
        for k in range(6):
            e += f[k] * w[V + k]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            e += prm[i, P_ARMATURE + d] * qd[iv + d] * qd[iv + d]
    return 0.5 * e


@jit
def potential_energy(jnt, prm, ws):
    """Needs ws placements (forward_kinematics)."""
    e = 0.0
    g = prm[0]
    for i in range(1, jnt.shape[0]):
        c = inertia.world_first_moment(ws[i], OM, prm[i], P_PI)
        e -= g[P_GRAVITY] * c[0] + g[P_GRAVITY + 1] * c[1] + g[P_GRAVITY + 2] * c[2]
    return e
