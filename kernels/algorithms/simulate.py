"""Semi-implicit (symplectic) Euler on the configuration Lie group.

  v_{k+1} = v_k + dt * aba(q_k, v_k, tau_k)
  q_{k+1} = q_k (+) (dt v_{k+1})        (integrate: exponential map)
Never q + v dt: quaternions and (cos, sin) pairs stay on their manifold. The integrator is the
exponential map of the configuration Lie group (Pinocchio documentation, "SE(3) operations"
cheat sheet, "Joint"). Free-flyer and planar joints advance their body-fixed linear velocity
in the step's start axes and rotate it exactly into the new ones (p+ = p + dt R+ v_lin+):
kernels/configuration/frozen.py, which says why (a spinning body no longer speeds up).
"""

from .._jit import jit
from ..configuration.frozen import euler
from .aba import aba
from ..checks import first_nonfinite


@jit
def euler_step(jnt, prm, q, v, tau, dt, fext, ws, ddq, qn, vn):
    """One step: ddq = aba(q, v, tau), vn = v + dt ddq, qn = q (+) dt vn (frozen.euler: the
    linear velocity of free-flyer and planar joints rotated exactly). Returns -1, or the
    joint whose articulated inertia is singular (qn, vn then not written)."""
    bad = aba(jnt, prm, q, v, tau, fext, ws, ddq)
    if bad >= 0:
        return bad
    euler(jnt, q, v, ddq, dt, qn, vn)
    return -1


@jit
def simulate(jnt, prm, q0, v0, torques, dt, fext, ws, qs, vs, scratch):
    """Trajectory from (q0, v0) under torques (T, nv): qs (T + 1, nq), vs (T + 1, nv).
    ``scratch`` (nv,) receives each step's acceleration. Returns -1, or the first step k whose
    forward dynamics were singular or whose next state is not finite (the rollout diverged):
    rows k + 1 onwards of qs and vs are then not written."""
    for j in range(q0.shape[0]):  # element loops: slice assignment needs numba's runtime
        qs[0, j] = q0[j]
    for j in range(v0.shape[0]):
        vs[0, j] = v0[j]
    for k in range(torques.shape[0]):
        if euler_step(jnt, prm, qs[k], vs[k], torques[k], dt, fext, ws, scratch, qs[k + 1],
                      vs[k + 1]) >= 0:
            return k
        if first_nonfinite(vs[k + 1]) >= 0 or first_nonfinite(qs[k + 1]) >= 0:
            return k
    return -1
