"""SO(3), the configuration space of spherical joints: q = unit quaternion (x, y, z, w),
v = body angular velocity (code SPHERICAL). Pinocchio's SpecialOrthogonalOperation<3>.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint" (q_t = q_0 exp(t v_q));
Bloesch et al., "Kinematics and dynamics for robotics: Kindr cheat sheet", ETH Zurich, "Rotation
Quaternion" (product, conjugate = inverse, angle-axis <-> quaternion):
  integrate(q, v)      = firstOrderNormalize(q exp(v))     (no sign flip, as Pinocchio)
  difference(q0, q1)   = log(q0^* q1), the shortest rotation (|result| <= pi: q ~ -q)
  interpolate(q0, q1, u) = integrate(q0, u difference(q0, q1))
  d_integrate/dq = exp3(-v) = R(v)^T,    d_integrate/dv = Jexp3(v)
  d_difference/dq1 = Jlog3(R),  d_difference/dq0 = -Jlog3(R) R^T,  R = R(q0^* q1).
Pinocchio evaluates Jlog3 from the matrix log of R; the quaternion log used here gives the same
(t, phi) (both in [0, pi]) more accurately.
"""

import math

from .._jit import jit
from .lie import (exp_coeffs, first_order_normalize, log_coeffs, mat3_mul, mat3_t, poly3, put3,
                  quat_exp3, quat_log3, quat_matrix, quat_mul)


@jit
def _step(x, y, z, w, px, py, pz, iq, out):
    ex, ey, ez, ew = quat_exp3(px, py, pz)
    rx, ry, rz, rw = quat_mul(x, y, z, w, ex, ey, ez, ew)
    rx, ry, rz, rw = first_order_normalize(rx, ry, rz, rw)
    out[iq] = rx
    out[iq + 1] = ry
    out[iq + 2] = rz
    out[iq + 3] = rw


@jit
def _delta(q0, q1, iq):
    """q0^* q1."""
    return quat_mul(-q0[iq], -q0[iq + 1], -q0[iq + 2], q0[iq + 3],
                    q1[iq], q1[iq + 1], q1[iq + 2], q1[iq + 3])


@jit
def integrate(q, v, dt, iq, iv, out):
    _step(q[iq], q[iq + 1], q[iq + 2], q[iq + 3], v[iv] * dt, v[iv + 1] * dt, v[iv + 2] * dt,
          iq, out)


@jit
def difference(q0, q1, iq, iv, out):
    dx, dy, dz, dw = _delta(q0, q1, iq)
    px, py, pz, _ = quat_log3(dx, dy, dz, dw)
    out[iv] = px
    out[iv + 1] = py
    out[iv + 2] = pz


@jit
def interpolate(q0, q1, u, iq, out):
    dx, dy, dz, dw = _delta(q0, q1, iq)
    px, py, pz, _ = quat_log3(dx, dy, dz, dw)
    _step(q0[iq], q0[iq + 1], q0[iq + 2], q0[iq + 3], u * px, u * py, u * pz, iq, out)


@jit
def d_integrate(v, arg, iv, J):
    """arg 0: R(v)^T; arg 1: Jexp3(v) (lie.py)."""
    x = v[iv]
    y = v[iv + 1]
    z = v[iv + 2]
    c, a, b, cc = exp_coeffs(math.sqrt(x * x + y * y + z * z))
    if arg == 0:
        put3(J, iv, iv, poly3(x, y, z, c, -a, b), 1.0)
    else:
        put3(J, iv, iv, poly3(x, y, z, a, -b, cc), 1.0)


@jit
def d_difference(q0, q1, arg, iq, iv, J):
    dx, dy, dz, dw = _delta(q0, q1, iq)
    px, py, pz, t = quat_log3(dx, dy, dz, dw)
    e, d, _ = log_coeffs(t)
    A = poly3(px, py, pz, e, 0.5, d)
    if arg == 1:
        put3(J, iv, iv, A, 1.0)
    else:
        put3(J, iv, iv, mat3_mul(A, mat3_t(quat_matrix(dx, dy, dz, dw))), -1.0)


@jit
def random(u, iq, out):
    """Uniform on SO(3) from three uniforms in [0, 1) (Shoemake's method, as Pinocchio's
    quaternion::uniformRandom): w = sqrt(1-u1) sin 2pi u2, x = sqrt(1-u1) cos 2pi u2,
    y = sqrt(u1) sin 2pi u3, z = sqrt(u1) cos 2pi u3."""
    u1 = u[iq]
    m1 = math.sqrt(1.0 - u1)
    m2 = math.sqrt(u1)
    a2 = 2.0 * math.pi * u[iq + 1]
    a3 = 2.0 * math.pi * u[iq + 2]
    out[iq] = m1 * math.cos(a2)
    out[iq + 1] = m2 * math.sin(a3)
    out[iq + 2] = m2 * math.cos(a3)
    out[iq + 3] = m1 * math.sin(a2)
