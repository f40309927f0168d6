"""Maps between angular velocity and the time derivative of each rotation parametrization,
and the Jacobians of exp/log on SO(3) and SE(3).

Source: Bloesch et al., "Kinematics and dynamics for robotics: Kindr cheat sheet", ETH Zurich,
"Time Derivative of Rotation Quaternion / Rotation Vector / Euler Angles ZYX / Euler Angles XYZ
<=> Angular Velocity"; Jexp/Jlog are checked against Pinocchio (pin.Jexp3, Jlog3, Jexp6, Jlog6).

Frames. R = ^W R_B (body to world); omega_W = vee(dR R^T) is expressed in the world (the
sheet's inertial I_omega_IB, fastdyn WORLD) and omega_L = vee(R^T dR) = R^T omega_W in the body
(the sheet's B_omega_IB, fastdyn LOCAL). Functions taking ``world`` use omega_W when it is True
and omega_L otherwise. Parametrizations and storage orders are those of rotations.py.

Every inverse map (omega -> rates) returns ok; where the map is singular it returns False and
writes NaN, so an ignored flag still shows.
"""

import math

from .._jit import jit
from .rotations import (GIMBAL_TOL, exp3_coeffs, log3_coeffs, log3_tuple, put_so3_poly,
                        so3_poly_apply)

_NAN = math.nan


@jit
def _put3(out, a, b, c):
    out[0] = a
    out[1] = b
    out[2] = c


@jit
def _put33(out, m):
    for k in range(9):
        out[k // 3, k % 3] = m[k]


@jit
def _mul33(m, x, y, z):
    return (m[0] * x + m[1] * y + m[2] * z, m[3] * x + m[4] * y + m[5] * z,
            m[6] * x + m[7] * y + m[8] * z)


# ---------------------------------------------------------------- SO(3) / SE(3) Jacobians

@jit
def jexp3(phi, out):
    """Right Jacobian Jr(phi) = (sin t/t) I - ((1 - cos t)/t^2) phi^ + ((t - sin t)/t^3) phi phi^T,
    exp(phi + d) = exp(phi) exp(Jr d), as pin.Jexp3.

    It is the rotation-vector rate map: omega_L = Jr(phi) dphi (Kindr cheat sheet, "Time
    Derivative of Rotation Vector"); omega_W = Jr(-phi) dphi = Jr(phi)^T dphi.
    """
    x, y, z = phi[0], phi[1], phi[2]
    _, a, b, d = exp3_coeffs(math.sqrt(x * x + y * y + z * z))
    put_so3_poly(out, 0, 0, x, y, z, a, -b, d)


@jit
def jlog3(R, out):
    """Jr(log R)^-1 = e I + phi^/2 + d phi phi^T, (e, d) from log3_coeffs, as pin.Jlog3."""
    x, y, z, t = log3_tuple(R)
    e, d = log3_coeffs(t)
    put_so3_poly(out, 0, 0, x, y, z, e, 0.5, d)


@jit
def _jexp6_coupling(out, vx, vy, vz, x, y, z, t):
    """out[0:3, 3:6] = Q_r, the upper-right block of the SE(3) right Jacobian.

    Barfoot's Q_l(rho, phi) reduced with u^ v^ = v u^T - (u.v) I (k = rho.phi, t = |phi|):
    Q_l = rho^/2 + A (rho phi^T + phi rho^T - 2k I - k phi^) + B (2k phi - t^2 rho)^
          - 2 C k (phi phi^T - t^2 I),   Q_r(rho, phi) = Q_l(-rho, -phi).
    A = (t - sin t)/t^3, B = (t^2 + 2 cos t - 2)/(2 t^4), C = (2t - 3 sin t + t cos t)/(2 t^5).
    Source: Barfoot, "State Estimation for Robotics", SE(3) Jacobians (not in the Kindr cheat
    sheet); the tests check it against the series sum_k (-ad_nu)^k / (k+1)!.
    """
    t2 = t * t
    if t < 0.3:
        # A, B, C lose 6 eps/t^2, 24 eps/t^4, 60 eps/t^4 to cancellation, and here multiply
        # terms of size |rho| t, not t^2: series to t^10 / t^8 (truncation < 1e-16).
        t4 = t2 * t2
        A = (1.0 / 6.0 - t2 / 120.0 + t4 / 5040.0 - t4 * t2 / 362880.0
             + t4 * t4 / 39916800.0 - t4 * t4 * t2 / 6227020800.0)
        B = (1.0 / 24.0 - t2 / 720.0 + t4 / 40320.0 - t4 * t2 / 3628800.0
             + t4 * t4 / 479001600.0)
        C = (1.0 / 120.0 - t2 / 2520.0 + t4 / 120960.0 - t4 * t2 / 9979200.0
             + t4 * t4 / 1245404160.0)
    else:
        c, s = math.cos(t), math.sin(t)
        A = (t - s) / (t2 * t)
        B = (t2 + 2.0 * c - 2.0) / (2.0 * t2 * t2)
        C = (2.0 * t - 3.0 * s + t * c) / (2.0 * t2 * t2 * t)
    k = vx * x + vy * y + vz * z
    diag = -2.0 * A * k + 2.0 * C * k * t2
    # antisymmetric part: -rho^/2 + A k phi^ - B (2k phi - t^2 rho)^
    ax = -0.5 * vx + A * k * x - B * (2.0 * k * x - t2 * vx)
    ay = -0.5 * vy + A * k * y - B * (2.0 * k * y - t2 * vy)
    az = -0.5 * vz + A * k * z - B * (2.0 * k * z - t2 * vz)
    v = (vx, vy, vz)
    p = (x, y, z)
    a = (ax, ay, az)
    for i in range(3):
        for j in range(3):
            m = A * (v[i] * p[j] + p[i] * v[j]) - 2.0 * C * k * p[i] * p[j]
            if i == j:
                m += diag
            out[i, 3 + j] = m
    for i in range(3):
        j = (i + 1) % 3
        h = (i + 2) % 3
        out[i, 3 + j] -= a[h]
        out[j, 3 + i] += a[h]


@jit
def jexp6(nu, out):
    """Right Jacobian of exp on SE(3) at nu = [v; w] (6x6, linear first), as pin.Jexp6:
    [[Jr(w), Q_r(v, w)], [0, Jr(w)]]."""
    x, y, z = nu[3], nu[4], nu[5]
    t = math.sqrt(x * x + y * y + z * z)
    _, a, b, d = exp3_coeffs(t)
    put_so3_poly(out, 0, 0, x, y, z, a, -b, d)
    put_so3_poly(out, 3, 3, x, y, z, a, -b, d)
    for i in range(3):
        for j in range(3):
            out[3 + i, j] = 0.0
    _jexp6_coupling(out, nu[0], nu[1], nu[2], x, y, z, t)


@jit
def jlog6(R, p, out):
    """Jexp6(log6(R, p))^-1 = [[Jr^-1, -Jr^-1 Q_r Jr^-1], [0, Jr^-1]], as pin.Jlog6."""
    x, y, z, t = log3_tuple(R)
    e, d = log3_coeffs(t)
    vx, vy, vz = so3_poly_apply(x, y, z, e, -0.5, d, p[0], p[1], p[2])
    put_so3_poly(out, 0, 0, x, y, z, e, 0.5, d)
    put_so3_poly(out, 3, 3, x, y, z, e, 0.5, d)
    _jexp6_coupling(out, vx, vy, vz, x, y, z, t)
    # The zero lower-left block is scratch for Q_r Jr^-1 until the last step.
    for i in range(3):
        for j in range(3):
            out[3 + i, j] = (out[i, 3] * out[0, j] + out[i, 4] * out[1, j]
                             + out[i, 5] * out[2, j])
    for i in range(3):
        for j in range(3):
            out[i, 3 + j] = -(out[i, 0] * out[3, j] + out[i, 1] * out[4, j]
                              + out[i, 2] * out[5, j])
    for i in range(3):
        for j in range(3):
            out[3 + i, j] = 0.0


# ---------------------------------------------------------------- rotation vector

@jit
def rotvec_rate_to_omega(phi, dphi, world, out):
    """omega = (I +- ((1 - cos t)/t^2) phi^ + ((t - sin t)/t^3) phi^2) dphi, t = |phi|;
    + for omega_W, - for omega_L (Kindr cheat sheet, "Time Derivative of Rotation Vector")."""
    x, y, z = phi[0], phi[1], phi[2]
    _, a, b, d = exp3_coeffs(math.sqrt(x * x + y * y + z * z))
    wx, wy, wz = so3_poly_apply(x, y, z, a, b if world else -b, d, dphi[0], dphi[1], dphi[2])
    _put3(out, wx, wy, wz)


@jit
def omega_to_rotvec_rate(phi, omega, world, out):
    """dphi = (e I -+ phi^/2 + d phi phi^T) omega (the inverse of rotvec_rate_to_omega).

    Singular where t = |phi| is a nonzero multiple of 2 pi: returns False there (log3 keeps
    t <= pi, so only rotation vectors from elsewhere can reach it).
    """
    x, y, z = phi[0], phi[1], phi[2]
    t = math.sqrt(x * x + y * y + z * z)
    if t > math.pi and abs(math.sin(0.5 * t)) < GIMBAL_TOL:
        _put3(out, _NAN, _NAN, _NAN)
        return False
    e, d = log3_coeffs(t)
    vx, vy, vz = so3_poly_apply(x, y, z, e, -0.5 if world else 0.5, d,
                                omega[0], omega[1], omega[2])
    _put3(out, vx, vy, vz)
    return True


# ---------------------------------------------------------------- quaternion (x, y, z, w)

@jit
def quat_h_matrix(q, world, out):
    """3x4 map omega = 2 H dq with dq ordered (dx, dy, dz, dw).

    Kindr cheat sheet, "Time Derivative of Rotation Quaternion": H(p) = [-v, v^ + w I] gives
    omega_W, Hbar(p) = [-v, -v^ + w I] gives omega_L; the sheet's first (scalar) column is last
    here.
    For a unit q, dq = H^T omega / 2 inverts it.
    """
    x, y, z, w = q[0], q[1], q[2], q[3]
    sg = 1.0 if world else -1.0
    put_so3_poly(out, 0, 0, x, y, z, w, sg, 0.0)
    out[0, 3] = -x
    out[1, 3] = -y
    out[2, 3] = -z


@jit
def quat_rate_to_omega(q, dq, world, out):
    """omega = 2 H dq: omega_W = 2 vec(dq q*), omega_L = 2 vec(q* dq) (Kindr cheat sheet, H and
    Hbar)."""
    x, y, z, w = q[0], q[1], q[2], q[3]
    sg = 1.0 if world else -1.0
    cx, cy, cz = so3_poly_apply(x, y, z, w, sg, 0.0, dq[0], dq[1], dq[2])
    _put3(out, 2.0 * (cx - x * dq[3]), 2.0 * (cy - y * dq[3]), 2.0 * (cz - z * dq[3]))


@jit
def omega_to_quat_rate(q, omega, world, out):
    """dq = H^T omega / 2: dq = (0, omega_W) q / 2 or q (0, omega_L) / 2 (Kindr cheat sheet)."""
    x, y, z, w = q[0], q[1], q[2], q[3]
    sg = -1.0 if world else 1.0  # H^T = [v^T; -v^ + w I] applied to omega
    cx, cy, cz = so3_poly_apply(x, y, z, w, sg, 0.0, omega[0], omega[1], omega[2])
    out[0] = 0.5 * cx
    out[1] = 0.5 * cy
    out[2] = 0.5 * cz
    out[3] = -0.5 * (x * omega[0] + y * omega[1] + z * omega[2])


# ---------------------------------------------------------------- Euler angles

@jit
def _zyx_jac(z, y, x, world):
    """E (row-major 9-tuple) with omega = E [dz, dy, dx], R = Rz(z) Ry(y) Rx(x)."""
    if world:
        cz, sz, cy, sy = math.cos(z), math.sin(z), math.cos(y), math.sin(y)
        return (0.0, -sz, cz * cy, 0.0, cz, sz * cy, 1.0, 0.0, -sy)
    cy, sy, cx, sx = math.cos(y), math.sin(y), math.cos(x), math.sin(x)
    return (-sy, 0.0, 1.0, cy * sx, cx, 0.0, cy * cx, -sx, 0.0)


@jit
def _zyx_jac_inv(z, y, x, world):
    """(E^-1 as a 9-tuple, ok); ok is False at cos y ~ 0, where E^-1 is NaN."""
    cy, sy = math.cos(y), math.sin(y)
    if abs(cy) <= GIMBAL_TOL:
        return (_NAN, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN), False
    ty = sy / cy
    if world:
        cz, sz = math.cos(z), math.sin(z)
        return (cz * ty, sz * ty, 1.0, -sz, cz, 0.0, cz / cy, sz / cy, 0.0), True
    cx, sx = math.cos(x), math.sin(x)
    return (0.0, sx / cy, cx / cy, 0.0, cx, -sx, 1.0, sx * ty, cx * ty), True


@jit
def euler_zyx_jacobian(e, world, out):
    """out = E(e), omega = E de for e = [yaw, pitch, roll] (Kindr cheat sheet, "Time Derivative
    of Euler Angles ZYX"): E_W = [[0, -sz, cz cy], [0, cz, sz cy], [1, 0, -sy]],
    E_L = [[-sy, 0, 1], [cy sx, cx, 0], [cx cy, -sx, 0]]."""
    _put33(out, _zyx_jac(e[0], e[1], e[2], world))


@jit
def euler_zyx_jacobian_inverse(e, world, out):
    """out = E(e)^-1, de = E^-1 omega (Kindr cheat sheet); returns False (NaN) at pitch = +-pi/2."""
    m, ok = _zyx_jac_inv(e[0], e[1], e[2], world)
    _put33(out, m)
    return ok


@jit
def euler_zyx_rates_to_omega(e, de, world, out):
    """omega = E(e) de, e = [yaw, pitch, roll]."""
    wx, wy, wz = _mul33(_zyx_jac(e[0], e[1], e[2], world), de[0], de[1], de[2])
    _put3(out, wx, wy, wz)


@jit
def omega_to_euler_zyx_rates(e, omega, world, out):
    """de = E(e)^-1 omega; returns False (NaN) at pitch = +-pi/2."""
    m, ok = _zyx_jac_inv(e[0], e[1], e[2], world)
    a, b, c = _mul33(m, omega[0], omega[1], omega[2])
    _put3(out, a, b, c)
    return ok


@jit
def rpy_jacobian(rpy, world, out):
    """out = J(rpy), omega = J d(rpy), as pin.rpy.computeRpyJacobian (LOCAL or WORLD)."""
    m = _zyx_jac(rpy[2], rpy[1], rpy[0], world)
    _put33(out, (m[2], m[1], m[0], m[5], m[4], m[3], m[8], m[7], m[6]))


@jit
def rpy_jacobian_inverse(rpy, world, out):
    """out = J(rpy)^-1, as pin.rpy.computeRpyJacobianInverse; returns False (NaN) at p = +-pi/2."""
    m, ok = _zyx_jac_inv(rpy[2], rpy[1], rpy[0], world)
    _put33(out, (m[6], m[7], m[8], m[3], m[4], m[5], m[0], m[1], m[2]))
    return ok


@jit
def _xyz_jac(a, b, g, world):
    """E with omega = E [da, db, dg], R = Rx(a) Ry(b) Rz(g)."""
    if world:
        ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
        return (1.0, 0.0, sb, 0.0, ca, -cb * sa, 0.0, sa, ca * cb)
    cb, sb, cg, sg = math.cos(b), math.sin(b), math.cos(g), math.sin(g)
    return (cb * cg, sg, 0.0, -cb * sg, cg, 0.0, sb, 0.0, 1.0)


@jit
def _xyz_jac_inv(a, b, g, world):
    cb, sb = math.cos(b), math.sin(b)
    if abs(cb) <= GIMBAL_TOL:
        return (_NAN, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN), False
    tb = sb / cb
    if world:
        ca, sa = math.cos(a), math.sin(a)
        return (1.0, sa * tb, -ca * tb, 0.0, ca, sa, 0.0, -sa / cb, ca / cb), True
    cg, sg = math.cos(g), math.sin(g)
    return (cg / cb, -sg / cb, 0.0, sg, cg, 0.0, -cg * tb, sg * tb, 1.0), True


@jit
def euler_xyz_jacobian(e, world, out):
    """out = E(e), omega = E de for e = [alpha, beta, gamma], R = Rx Ry Rz (Kindr cheat sheet, "Time
    Derivative of Euler Angles XYZ"): E_W = [[1, 0, sb], [0, ca, -cb sa], [0, sa, ca cb]],
    E_L = [[cb cg, sg, 0], [-cb sg, cg, 0], [sb, 0, 1]]."""
    _put33(out, _xyz_jac(e[0], e[1], e[2], world))


@jit
def euler_xyz_jacobian_inverse(e, world, out):
    """out = E(e)^-1 (Kindr cheat sheet); returns False (NaN) at beta = +-pi/2."""
    m, ok = _xyz_jac_inv(e[0], e[1], e[2], world)
    _put33(out, m)
    return ok


@jit
def euler_xyz_rates_to_omega(e, de, world, out):
    """omega = E(e) de, e = [alpha, beta, gamma]."""
    wx, wy, wz = _mul33(_xyz_jac(e[0], e[1], e[2], world), de[0], de[1], de[2])
    _put3(out, wx, wy, wz)


@jit
def omega_to_euler_xyz_rates(e, omega, world, out):
    """de = E(e)^-1 omega; returns False (NaN) at beta = +-pi/2."""
    m, ok = _xyz_jac_inv(e[0], e[1], e[2], world)
    a, b, c = _mul33(m, omega[0], omega[1], omega[2])
    _put3(out, a, b, c)
    return ok
