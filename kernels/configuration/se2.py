"""SE(2), the configuration space of planar joints: q = [x, y, cos t, sin t], v = body-fixed
[vx, vy, w] (code PLANAR). Pinocchio's SpecialEuclideanOperation<2>.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint": q_t = q_0 exp(t v_q)
with the SE(2) exponential
  exp(v) = (R(w), V(w) [vx; vy]),  V(w) = [[sin w / w, -(1 - cos w) / w],
                                           [(1 - cos w) / w, sin w / w]],
  log(R, p) = [e p + (w/2) J p; w],  J = [[0, 1], [-1, 0]],  e = (w/2) cot(w/2) = V^-1's diagonal,
  integrate(q, v) = q exp(v),  difference(q0, q1) = log(q0^-1 q1),
  interpolate(q0, q1, u) = integrate(q0, u difference(q0, q1)).
Jacobians (right/body, as Pinocchio): d_integrate/dq = Ad(exp(v)^-1), d_integrate/dv = Jexp(v)
(the SE(3) Jexp6 restricted to (vx, vy, wz)), d_difference/dq1 = Jlog(q0^-1 q1),
d_difference/dq0 = Jlog(q0^-1 q1) [[-R^T, R1^T (y1 - y0, x0 - x1)], [0, -1]].
Two departures, both below 1e-15 for unit input: V uses sin w / w and (1 - cos w) / w^2 from
``lie.exp_coeffs`` (Pinocchio divides a difference by w, losing digits at small w), and the
(cos, sin) pair of integrate gets the first-order renormalization Pinocchio applies to SO(2)
but not here, so long integrations do not drift off the circle.
"""

import math

from .._jit import jit
from .lie import exp_coeffs, log_coeffs
from .so2 import angle


@jit
def _exp(vx, vy, w):
    """(cos w, sin w, tx, ty) of exp([vx, vy, w])."""
    c, a, b, _ = exp_coeffs(abs(w))
    bw = b * w
    return c, math.sin(w), a * vx - bw * vy, bw * vx + a * vy


@jit
def _relative(q0, q1, iq):
    """(cos, sin, px, py) of q0^-1 q1 = (R0^T R1, R0^T (p1 - p0))."""
    c0 = q0[iq + 2]
    s0 = q0[iq + 3]
    c1 = q1[iq + 2]
    s1 = q1[iq + 3]
    dx = q1[iq] - q0[iq]
    dy = q1[iq + 1] - q0[iq + 1]
    return (c0 * c1 + s0 * s1, c0 * s1 - s0 * c1, c0 * dx + s0 * dy, c0 * dy - s0 * dx)


@jit
def _step(x0, y0, c0, s0, vx, vy, w, iq, out):
    c, s, tx, ty = _exp(vx, vy, w)
    cc = c0 * c - s0 * s
    ss = s0 * c + c0 * s
    a = 0.5 * (3.0 - (cc * cc + ss * ss))
    out[iq] = c0 * tx - s0 * ty + x0
    out[iq + 1] = s0 * tx + c0 * ty + y0
    out[iq + 2] = a * cc
    out[iq + 3] = a * ss


@jit
def integrate(q, v, dt, iq, iv, out):
    _step(q[iq], q[iq + 1], q[iq + 2], q[iq + 3], v[iv] * dt, v[iv + 1] * dt, v[iv + 2] * dt,
          iq, out)


@jit
def _log(q0, q1, iq):
    cs, sn, px, py = _relative(q0, q1, iq)
    t = angle(cs, sn)
    e = log_coeffs(abs(t))[0]
    h = 0.5 * t
    return e * px + h * py, e * py - h * px, t


@jit
def difference(q0, q1, iq, iv, out):
    vx, vy, w = _log(q0, q1, iq)
    out[iv] = vx
    out[iv + 1] = vy
    out[iv + 2] = w


@jit
def interpolate(q0, q1, u, iq, out):
    vx, vy, w = _log(q0, q1, iq)
    _step(q0[iq], q0[iq + 1], q0[iq + 2], q0[iq + 3], u * vx, u * vy, u * w, iq, out)


@jit
def _put(J, o, a00, a01, a02, a10, a11, a12, a22):
    J[o, o] = a00
    J[o, o + 1] = a01
    J[o, o + 2] = a02
    J[o + 1, o] = a10
    J[o + 1, o + 1] = a11
    J[o + 1, o + 2] = a12
    J[o + 2, o] = 0.0
    J[o + 2, o + 1] = 0.0
    J[o + 2, o + 2] = a22


@jit
def d_integrate(v, arg, iv, J):
    """arg 0: d/dq = Ad(exp(v)^-1) = [[R^T, (-(R^T t)_y, (R^T t)_x)], [0, 1]]; arg 1: Jexp(v)."""
    vx = v[iv]
    vy = v[iv + 1]
    w = v[iv + 2]
    if arg == 0:
        c, s, tx, ty = _exp(vx, vy, w)
        ax = c * tx + s * ty
        ay = c * ty - s * tx
        _put(J, iv, c, s, -ay, -s, c, ax, 1.0)
        return
    # Jexp6 with w = (0, 0, wz), v = (vx, vy, 0): Jexp3's xy block is [[a, bw], [-bw, a]],
    # p = that^T v, and the coupling column is -Jexp3 (p^/2 - k p w^T) e_z with
    # k = t^2 beta'/t + 2 beta = (t - sin t) / t^3 / (2 (1 - cos t) / t^2).
    _, a, b, cc = exp_coeffs(abs(w))
    bw = b * w
    px = a * vx - bw * vy
    py = bw * vx + a * vy
    kw = cc / (2.0 * b) * w
    m0 = 0.5 * py - kw * px
    m1 = -0.5 * px - kw * py
    _put(J, iv, a, bw, -(a * m0 + bw * m1), -bw, a, bw * m0 - a * m1, 1.0)


@jit
def d_difference(q0, q1, arg, iq, iv, J):
    """arg 1: Jlog(M) = [[V R, r], [0, 1]] with V = [[e, w/2], [-w/2, e]] and
    r = (e' px + py/2, e' py - px/2); arg 0: Jlog(M) [[-R^T, R1^T pc], [0, -1]]."""
    cs, sn, px, py = _relative(q0, q1, iq)
    t = angle(cs, sn)
    at = abs(t)
    e = log_coeffs(at)[0]
    _, _, b, cc = exp_coeffs(at)
    ed = -t * cc / (2.0 * b)  # e'(t) = (sin t - t) / (2 (1 - cos t)) without cancellation
    h = 0.5 * t
    l00 = e * cs + h * sn
    l01 = h * cs - e * sn
    l10 = e * sn - h * cs
    l11 = h * sn + e * cs
    r0 = ed * px + 0.5 * py
    r1 = ed * py - 0.5 * px
    if arg == 1:
        _put(J, iv, l00, l01, r0, l10, l11, r1, 1.0)
        return
    c1 = q1[iq + 2]
    s1 = q1[iq + 3]
    pcx = q1[iq + 1] - q0[iq + 1]
    pcy = q0[iq] - q1[iq]
    mx = c1 * pcx + s1 * pcy
    my = c1 * pcy - s1 * pcx
    # -L R^T, R = [[cs, -sn], [sn, cs]]
    _put(J, iv, -(l00 * cs - l01 * sn), -(l00 * sn + l01 * cs), l00 * mx + l01 * my - r0,
         -(l10 * cs - l11 * sn), -(l10 * sn + l11 * cs), l10 * mx + l11 * my - r1, -1.0)


@jit
def random(u, lower, upper, iq, out):
    """x, y uniform in [lower, upper]; the angle uniform in [-pi, pi) (limits do not apply)."""
    for k in range(2):
        out[iq + k] = lower[iq + k] + (upper[iq + k] - lower[iq + k]) * u[iq + k]
    a = -math.pi + 2.0 * math.pi * u[iq + 2]
    out[iq + 2] = math.cos(a)
    out[iq + 3] = math.sin(a)
