"""One classical Runge-Kutta (RK4) step of the contact-free dynamics on the configuration
Lie group.

Stages (Hairer, Lubich & Wanner, "Geometric Numerical Integration", Springer 2006, sec. IV.8,
Runge-Kutta methods in the Lie algebra with the base point frozen at q):
  k1 = ABA(q, v);                       q2 = q (+) dt/2 v,   v2 = v + dt/2 k1
  k2 = ABA(q2, v2);                     q3 = q (+) dt/2 v2,  v3 = v + dt/2 k2
  k3 = ABA(q3, v3);                     q4 = q (+) dt v3,    v4 = v + dt k3
  k4 = ABA(q4, v4)
  v+ = v + dt/6 (k1 + 2 k2 + 2 k3 + k4);   q+ = q (+) dt/6 (v + 2 v2 + 2 v3 + v4)
with (+) the exponential map (integrate). Fourth order for joints whose configuration space
is a vector space; for SO(3) and SE(3) joints the stage velocities are added in the Lie
algebra without the dexp^-1 correction of Munthe-Kaas' method, which makes the step second
order in their rotation (still on the manifold, never q + v dt).
"""

from .._jit import jit
from ..configuration.dispatch import integrate
from .aba import aba


@jit
def rk4_step(jnt, prm, dt, q, v, tau, fext, ws, buf, qn, vn):
    """(qn, vn) after one RK4 step under tau; buf (>= 8 nv) holds the stages. Returns -1, or
    the joint whose articulated inertia is singular at a stage."""
    nv = v.shape[0]
    qs = buf[:2 * nv]  # a stage configuration: nq <= 2 nv
    vs = buf[2 * nv:3 * nv]
    k = buf[3 * nv:4 * nv]
    dv = buf[4 * nv:5 * nv]  # accumulates k1 + 2 k2 + 2 k3 + k4
    dq = buf[5 * nv:6 * nv]  # accumulates v + 2 v2 + 2 v3 + v4
    for j in range(nv):
        vs[j] = v[j]
        dv[j] = 0.0
        dq[j] = 0.0
    for j in range(qn.shape[0]):
        qs[j] = q[j]
    for stage in range(4):
        w = 1.0 if stage == 0 or stage == 3 else 2.0
        bad = aba(jnt, prm, qs[:qn.shape[0]], vs, tau, fext, ws, k)
        if bad >= 0:
            return bad
        for j in range(nv):
            dv[j] += w * k[j]
            dq[j] += w * vs[j]
        if stage < 3:
            h = dt if stage == 2 else 0.5 * dt
            integrate(jnt, q, vs, h, qs[:qn.shape[0]])  # q (+) h v_stage, then the next v
            for j in range(nv):
                vs[j] = v[j] + h * k[j]
    for j in range(nv):
        vn[j] = v[j] + dt / 6.0 * dv[j]
    integrate(jnt, q, dq, dt / 6.0, qn)
    return -1
