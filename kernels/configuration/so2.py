"""SO(2), the configuration space of continuous (unbounded revolute) joints: q = [cos t, sin t],
v = [dt/dt] (codes CONTINUOUS_X/Y/Z and CONTINUOUS).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint" (q_t = q_0 exp(t v_q));
Pinocchio's SpecialOrthogonalOperation<2>, whose semantics these reproduce:
  integrate:   (c, s) -> R(v) (c, s), then (3 - |q|^2) / 2 scaling (first-order renormalization)
  difference:  angle of R0^T R1 in (-pi, pi]  (the shortest rotation; +pi when opposite)
  interpolate: slerp on the unit circle, Pinocchio's three branches (see ``interpolate``)
  Jacobians:   d_integrate = 1 for q and v; d_difference = -1 (q0), +1 (q1).
Every function takes the joint's offsets iq (into q) and iv (into v); outputs come last.
"""

import math

from .._jit import jit


@jit
def angle(cs, sn):
    """log of the rotation (cs, sn) in (-pi, pi]. Pinocchio's SO(2)::log picks asin/acos
    branches; atan2 gives the same angle without acos's lost digits near +-pi, and the
    exactly opposite case is +pi as there."""
    if sn == 0.0 and cs < 0.0:
        return math.pi
    return math.atan2(sn, cs)


@jit
def integrate(q, v, dt, iq, iv, out):
    c = q[iq]
    s = q[iq + 1]
    w = v[iv] * dt
    cw = math.cos(w)
    sw = math.sin(w)
    x = cw * c - sw * s
    y = sw * c + cw * s
    a = 0.5 * (3.0 - (x * x + y * y))
    out[iq] = a * x
    out[iq + 1] = a * y


@jit
def difference(q0, q1, iq, iv, out):
    c0 = q0[iq]
    s0 = q0[iq + 1]
    c1 = q1[iq]
    s1 = q1[iq + 1]
    out[iv] = angle(c0 * c1 + s0 * s1, c0 * s1 - s0 * c1)


@jit
def interpolate(q0, q1, u, iq, out):
    """Pinocchio's SO(2) interpolation: linear below 1e-6 rad apart (no renormalization), slerp
    sin((1-u)t)/sin t q0 + sin(ut)/sin t q1 below pi - 1e-6, and q0 itself when opposite."""
    c0 = q0[iq]
    s0 = q0[iq + 1]
    c1 = q1[iq]
    s1 = q1[iq + 1]
    cs = c0 * c1 + s0 * s1
    sn = c0 * s1 - s0 * c1
    t = math.atan2(sn, cs)
    at = abs(t)
    if at < 1e-6:
        out[iq] = (1.0 - u) * c0 + u * c1
        out[iq + 1] = (1.0 - u) * s0 + u * s1
    elif at < math.pi - 1e-6:
        a = math.sin((1.0 - u) * t) / sn
        b = math.sin(u * t) / sn
        out[iq] = a * c0 + b * c1
        out[iq + 1] = a * s0 + b * s1
    else:
        out[iq] = c0
        out[iq + 1] = s0


@jit
def random(u, iq, out):
    """Angle uniform in [-pi, pi) from u[iq] in [0, 1); joint limits do not apply (Pinocchio)."""
    a = -math.pi + 2.0 * math.pi * u[iq]
    out[iq] = math.cos(a)
    out[iq + 1] = math.sin(a)
