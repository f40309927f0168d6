"""SE(3), the configuration space of free-flyer joints: q = [x, y, z, qx, qy, qz, qw],
v = body-fixed (LOCAL) [v; w], linear first (code FREEFLYER). Pinocchio's
SpecialEuclideanOperation<3>, whose arithmetic choices are kept (quoted below).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint" (q_t = q_0 exp(t v_q));
Bloesch et al., "Kinematics and dynamics for robotics: Kindr cheat sheet", ETH Zurich, "Rotation
Quaternion"; with t = |w|, c/a/b/cc = cos t, sin t / t, (1 - cos t)/t^2, (t - sin t)/t^3 (lie.py):
  exp6([v; w]) = (exp3(w), a v + b w x v + cc (w . v) w) = (exp3(w), v + b w x v + cc w x (w x v))
  log6(R, p)   = [p - (w x p)/2 + d w x (w x p); w],  w = log3(R), d = (1 - e)/t^2 (lie.py)
  integrate(q, v)    = q exp6(v); quaternion sign chosen so that <q_out, q> >= 0, then
                       firstOrderNormalize (Pinocchio's SE(3) integrate; its SO(3) one does not
                       flip the sign)
  difference(q0, q1) = log6(q0^-1 q1) with the quaternion log (shortest rotation)
  interpolate        = integrate(q0, u difference(q0, q1))
  d_integrate/dq = Ad(exp6(v)^-1) = [[R^T, -R^T p^], [0, R^T]]
  d_integrate/dv = Jexp6(v) = [[J3, -J3 M], [0, J3]],  J3 = Jexp3(w), p = J3^T v,
      M = p^/2 + d'/t (w.p) w w^T - k p w^T + d (w.p) I + d w p^T,  k = t d'(t) + 2 d = cc/(2b)
  d_difference/dq1 = Jlog6(q0^-1 q1) = [[A, C A], [0, A]],  A = Jlog3(w),
      C = (d'/t (w.p) w - k p) w^T + d w p^T + d (w.p) I + p^/2  (p the relative translation)
  d_difference/dq0 = Jlog6 [[-R^T, (R1^T (p1 - p0))^ R^T], [0, -R^T]].
"""

import math

from .._jit import jit
from . import so3
from .lie import (exp_coeffs, first_order_normalize, log_coeffs, mat3_mul, mat3_t, poly3, put3,
                  quat_exp3, quat_log3, quat_matrix, quat_mul, quat_rotate)


@jit
def _step(q, iq, vx, vy, vz, wx, wy, wz, out):
    x = q[iq]
    y = q[iq + 1]
    z = q[iq + 2]
    qx = q[iq + 3]
    qy = q[iq + 4]
    qz = q[iq + 5]
    qw = q[iq + 6]
    _, _, b, cc = exp_coeffs(math.sqrt(wx * wx + wy * wy + wz * wz))
    cx = wy * vz - wz * vy  # w x v
    cy = wz * vx - wx * vz
    cz = wx * vy - wy * vx
    tx = vx + b * cx + cc * (wy * cz - wz * cy)
    ty = vy + b * cy + cc * (wz * cx - wx * cz)
    tz = vz + b * cz + cc * (wx * cy - wy * cx)
    dx, dy, dz = quat_rotate(qx, qy, qz, qw, tx, ty, tz)
    ex, ey, ez, ew = quat_exp3(wx, wy, wz)
    rx, ry, rz, rw = quat_mul(qx, qy, qz, qw, ex, ey, ez, ew)
    if rx * qx + ry * qy + rz * qz + rw * qw < 0.0:
        rx, ry, rz, rw = -rx, -ry, -rz, -rw
    rx, ry, rz, rw = first_order_normalize(rx, ry, rz, rw)
    out[iq] = dx + x
    out[iq + 1] = dy + y
    out[iq + 2] = dz + z
    out[iq + 3] = rx
    out[iq + 4] = ry
    out[iq + 5] = rz
    out[iq + 6] = rw


@jit
def integrate(q, v, dt, iq, iv, out):
    _step(q, iq, v[iv] * dt, v[iv + 1] * dt, v[iv + 2] * dt, v[iv + 3] * dt, v[iv + 4] * dt,
          v[iv + 5] * dt, out)


@jit
def _relative(q0, q1, iq):
    """(q0^* q1 (4), R0^T (p1 - p0) (3), p1 - p0 (3))."""
    x0 = q0[iq + 3]
    y0 = q0[iq + 4]
    z0 = q0[iq + 5]
    w0 = q0[iq + 6]
    ddx = q1[iq] - q0[iq]
    ddy = q1[iq + 1] - q0[iq + 1]
    ddz = q1[iq + 2] - q0[iq + 2]
    dq = quat_mul(-x0, -y0, -z0, w0, q1[iq + 3], q1[iq + 4], q1[iq + 5], q1[iq + 6])
    p = quat_rotate(-x0, -y0, -z0, w0, ddx, ddy, ddz)
    return dq, p, (ddx, ddy, ddz)


@jit
def _log6(q0, q1, iq):
    dq, p, _ = _relative(q0, q1, iq)
    wx, wy, wz, t = quat_log3(dq[0], dq[1], dq[2], dq[3])
    d = log_coeffs(t)[1]
    px, py, pz = p
    cx = wy * pz - wz * py  # w x p
    cy = wz * px - wx * pz
    cz = wx * py - wy * px
    return (px - 0.5 * cx + d * (wy * cz - wz * cy), py - 0.5 * cy + d * (wz * cx - wx * cz),
            pz - 0.5 * cz + d * (wx * cy - wy * cx), wx, wy, wz)


@jit
def difference(q0, q1, iq, iv, out):
    r = _log6(q0, q1, iq)
    for k in range(6):
        out[iv + k] = r[k]


@jit
def interpolate(q0, q1, u, iq, out):
    r = _log6(q0, q1, iq)
    _step(q0, iq, u * r[0], u * r[1], u * r[2], u * r[3], u * r[4], u * r[5], out)


@jit
def _coupling(wx, wy, wz, px, py, pz, d, dd, k):
    """(d'/t (w.p) w - k p) w^T + d w p^T + d (w.p) I + p^/2, shared by Jexp6 and Jlog6."""
    wp = wx * px + wy * py + wz * pz
    ax = dd * wp * wx - k * px
    ay = dd * wp * wy - k * py
    az = dd * wp * wz - k * pz
    g = d * wp
    return (ax * wx + d * wx * px + g, ax * wy + d * wx * py - 0.5 * pz,
            ax * wz + d * wx * pz + 0.5 * py,
            ay * wx + d * wy * px + 0.5 * pz, ay * wy + d * wy * py + g,
            ay * wz + d * wy * pz - 0.5 * px,
            az * wx + d * wz * px - 0.5 * py, az * wy + d * wz * py + 0.5 * px,
            az * wz + d * wz * pz + g)


@jit
def d_integrate(v, arg, iv, J):
    vx = v[iv]
    vy = v[iv + 1]
    vz = v[iv + 2]
    wx = v[iv + 3]
    wy = v[iv + 4]
    wz = v[iv + 5]
    t = math.sqrt(wx * wx + wy * wy + wz * wz)
    c, a, b, cc = exp_coeffs(t)
    for r in range(3):
        for k in range(3):
            J[iv + 3 + r, iv + k] = 0.0
    if arg == 0:
        Rt = mat3_t(poly3(wx, wy, wz, c, a, b))
        wv = cc * (wx * vx + wy * vy + wz * vz)
        px = a * vx + wv * wx + b * (wy * vz - wz * vy)
        py = a * vy + wv * wy + b * (wz * vx - wx * vz)
        pz = a * vz + wv * wz + b * (wx * vy - wy * vx)
        put3(J, iv, iv, Rt, 1.0)
        put3(J, iv + 3, iv + 3, Rt, 1.0)
        put3(J, iv, iv + 3, mat3_mul(Rt, poly3(px, py, pz, 0.0, 1.0, 0.0)), -1.0)
        return
    J3 = poly3(wx, wy, wz, a, -b, cc)
    px = J3[0] * vx + J3[3] * vy + J3[6] * vz  # J3^T v
    py = J3[1] * vx + J3[4] * vy + J3[7] * vz
    pz = J3[2] * vx + J3[5] * vy + J3[8] * vz
    _, d, dd = log_coeffs(t)
    M = _coupling(wx, wy, wz, px, py, pz, d, dd, cc / (2.0 * b))
    put3(J, iv, iv, J3, 1.0)
    put3(J, iv + 3, iv + 3, J3, 1.0)
    put3(J, iv, iv + 3, mat3_mul(J3, M), -1.0)


@jit
def d_difference(q0, q1, arg, iq, iv, J):
    dq, p, dp = _relative(q0, q1, iq)
    wx, wy, wz, t = quat_log3(dq[0], dq[1], dq[2], dq[3])
    e, d, dd = log_coeffs(t)
    A = poly3(wx, wy, wz, e, 0.5, d)
    B = mat3_mul(_coupling(wx, wy, wz, p[0], p[1], p[2], d, dd, t * t * dd + 2.0 * d), A)
    for r in range(3):
        for k in range(3):
            J[iv + 3 + r, iv + k] = 0.0
    if arg == 1:
        put3(J, iv, iv, A, 1.0)
        put3(J, iv + 3, iv + 3, A, 1.0)
        put3(J, iv, iv + 3, B, 1.0)
        return
    Rt = mat3_t(quat_matrix(dq[0], dq[1], dq[2], dq[3]))
    ARt = mat3_mul(A, Rt)
    sx, sy, sz = quat_rotate(-q1[iq + 3], -q1[iq + 4], -q1[iq + 5], q1[iq + 6], dp[0], dp[1],
                             dp[2])
    AS = mat3_mul(A, poly3(sx, sy, sz, 0.0, 1.0, 0.0))
    put3(J, iv, iv, ARt, -1.0)
    put3(J, iv + 3, iv + 3, ARt, -1.0)
    put3(J, iv, iv + 3, mat3_mul((AS[0] - B[0], AS[1] - B[1], AS[2] - B[2], AS[3] - B[3],
                                  AS[4] - B[4], AS[5] - B[5], AS[6] - B[6], AS[7] - B[7],
                                  AS[8] - B[8]), Rt), 1.0)


@jit
def random(u, lower, upper, iq, out):
    """x, y, z uniform in [lower, upper]; the quaternion uniform on SO(3) (so3.random)."""
    for k in range(3):
        out[iq + k] = lower[iq + k] + (upper[iq + k] - lower[iq + k]) * u[iq + k]
    so3.random(u, iq + 3, out)
