"""Rotation parametrizations, their conversions, and exp/log on SO(3) and SE(3); the Euler
angle conventions listed below are implemented in euler.py.

Source: Bloesch et al., "Kinematics and dynamics for robotics: Kindr cheat sheet", ETH Zurich,
"Position & Orientation" and "Rotation Quaternion"; exp/log are checked against Pinocchio
(pin.exp3, log3, exp6, log6).

Conventions (the README's Conventions section), and how they map onto the sheet:
- R = ^W R_B maps body coordinates to world coordinates: the sheet's active rotation matrix
  R_IB; its direction cosine matrix C is R^T.
- Quaternion q = (x, y, z, w), Hamilton, unit. The sheet's p = (p0, p1, p2, p3) has p0 = w;
  only functions with ``wxyz`` in their name take that order.
- Euler ZYX e = [z, y, x] = [yaw psi, pitch theta, roll phi]: R = Rz(e0) Ry(e1) Rx(e2), the
  sheet's "Euler Angles ZYX" (Tait-Bryan z-y'-x'') and Pinocchio's SphericalZYX q.
- RPY r = [roll, pitch, yaw]: the SAME matrix, R = Rz(r2) Ry(r1) Rx(r0) (pin.rpy.rpyToMatrix).
- Euler XYZ e = [alpha, beta, gamma]: R = Rx(e0) Ry(e1) Rz(e2), the sheet's "Euler Angles XYZ"
  (Cardan x-y'-z''). Not Pinocchio's rpy: same letters, opposite composition order.
- Rotation vector phi = theta n, angle-axis (theta, n) with theta in [0, pi].
- SE(3) tangent vectors nu = [v; w], linear part first.
Euler angles are returned with pitch in [-pi/2, pi/2], the other two in [-pi, pi] (sheet).

Notes on the sheet: euler.py derives the expanded Euler products again rather than transcribing
them, and the rate maps (rotation_rates.py) agree with the sheet's. The sheet's
quaternion-from-matrix formula covers tr(C) > 0 only; all four branches are used here.
"""

import math

from .._jit import jit

# Below this angle the closed forms are 0/0 or lose digits: use their Taylor series.
SMALL_ANGLE = 1e-2
# cos(pitch) at or below which Euler angles are at gimbal lock (sheet: theta = +-pi/2).
GIMBAL_TOL = 1e-12


@jit
def exp3_coeffs(t):
    """(cos t, sin t / t, (1 - cos t) / t^2, (t - sin t) / t^3) for the angle t >= 0."""
    c = math.cos(t)
    if t < SMALL_ANGLE:
        t2 = t * t
        return (c, 1.0 - t2 / 6.0 * (1.0 - t2 / 20.0), 0.5 - t2 / 24.0 * (1.0 - t2 / 30.0),
                1.0 / 6.0 - t2 / 120.0 * (1.0 - t2 / 42.0))
    s = math.sin(t)
    h = math.sin(0.5 * t)
    # 2 sin^2(t/2) is 1 - cos t without the cancellation.
    return (c, s / t, 2.0 * h * h / (t * t), (t - s) / (t * t * t))


@jit
def log3_coeffs(t):
    """(e, d) = ((t/2) cot(t/2), (1 - e) / t^2): Jr^-1(phi) = e I + phi^/2 + d phi phi^T."""
    if t < SMALL_ANGLE:
        t2 = t * t
        return (1.0 - t2 / 12.0 - t2 * t2 / 720.0, 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0)
    e = 0.5 * t * math.cos(0.5 * t) / math.sin(0.5 * t)
    return (e, (1.0 - e) / (t * t))


@jit
def put_so3_poly(out, r0, c0, x, y, z, alpha, beta, gamma):
    """out[r0:r0+3, c0:c0+3] = alpha I + beta u^ + gamma u u^T for u = (x, y, z).

    Every SO(3) closed form here (exp, Jr, Jr^-1, V) has this shape, as u^2 = u u^T - |u|^2 I.
    """
    out[r0, c0] = alpha + gamma * x * x
    out[r0, c0 + 1] = gamma * x * y - beta * z
    out[r0, c0 + 2] = gamma * x * z + beta * y
    out[r0 + 1, c0] = gamma * y * x + beta * z
    out[r0 + 1, c0 + 1] = alpha + gamma * y * y
    out[r0 + 1, c0 + 2] = gamma * y * z - beta * x
    out[r0 + 2, c0] = gamma * z * x - beta * y
    out[r0 + 2, c0 + 1] = gamma * z * y + beta * x
    out[r0 + 2, c0 + 2] = alpha + gamma * z * z


@jit
def so3_poly_apply(x, y, z, alpha, beta, gamma, vx, vy, vz):
    """(alpha I + beta u^ + gamma u u^T) v as a tuple, u = (x, y, z)."""
    g = gamma * (x * vx + y * vy + z * vz)
    return (alpha * vx + beta * (y * vz - z * vy) + g * x,
            alpha * vy + beta * (z * vx - x * vz) + g * y,
            alpha * vz + beta * (x * vy - y * vx) + g * z)


# ---------------------------------------------------------------- quaternions (x, y, z, w)

@jit
def quat_mul(ax, ay, az, aw, bx, by, bz, bw):
    """Hamilton product a b as (x, y, z, w).

    Kindr cheat sheet, "Rotation Quaternion": Q P = (q0 p0 - q.p, q0 p + p0 q + q x p).
    """
    return (aw * bx + bw * ax + ay * bz - az * by,
            aw * by + bw * ay + az * bx - ax * bz,
            aw * bz + bw * az + ax * by - ay * bx,
            aw * bw - ax * bx - ay * by - az * bz)


@jit
def quat_multiply(a, b, out):
    """out = a b (Hamilton); out may alias a or b."""
    x, y, z, w = quat_mul(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
    out[0] = x
    out[1] = y
    out[2] = z
    out[3] = w


@jit
def quat_conjugate(q, out):
    """out = q* = (-x, -y, -z, w), the inverse of a unit quaternion (Kindr cheat sheet,
    "Conjugate")."""
    out[0] = -q[0]
    out[1] = -q[1]
    out[2] = -q[2]
    out[3] = q[3]


@jit
def quat_xyzw_to_wxyz(q, out):
    out[0] = q[3]
    out[1] = q[0]
    out[2] = q[1]
    out[3] = q[2]


@jit
def quat_wxyz_to_xyzw(p, out):
    out[0] = p[1]
    out[1] = p[2]
    out[2] = p[3]
    out[3] = p[0]


@jit
def _quat_to_matrix(x, y, z, w, out):
    out[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    out[0, 1] = 2.0 * (x * y - w * z)
    out[0, 2] = 2.0 * (x * z + w * y)
    out[1, 0] = 2.0 * (x * y + w * z)
    out[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    out[1, 2] = 2.0 * (y * z - w * x)
    out[2, 0] = 2.0 * (x * z - w * y)
    out[2, 1] = 2.0 * (y * z + w * x)
    out[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@jit
def quat_to_matrix(q, out):
    """R(q) = I + 2 w v^ + 2 v^2 for a unit q = (v, w).

    Kindr cheat sheet, "Rotation Quaternion <=> Direction Cosine Matrix" (its C_AB expression).
    """
    _quat_to_matrix(q[0], q[1], q[2], q[3], out)


@jit
def quat_wxyz_to_matrix(p, out):
    """quat_to_matrix for the sheet's order p = (p0, p1, p2, p3), p0 the scalar."""
    _quat_to_matrix(p[1], p[2], p[3], p[0], out)


@jit
def matrix_to_quat(R, out):
    """Unit quaternion (x, y, z, w) of R, branching on the largest of tr R, R00, R11, R22.

    The Kindr cheat sheet gives w = sqrt(1 + tr R)/2, v = vee(R - R^T)/(4w), stable only for
    tr R > 0; otherwise the largest diagonal element d_i gives q_i = sqrt(1 + 2 d_i - tr R)/2 and
    the others follow from off-diagonal sums (Shepperd; Eigen's choice too). The sign of q is
    whatever the branch gives (w >= 0 when tr R > 0).
    """
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr > 0.0:
        s = math.sqrt(tr + 1.0)
        out[3] = 0.5 * s
        s = 0.5 / s
        out[0] = (R[2, 1] - R[1, 2]) * s
        out[1] = (R[0, 2] - R[2, 0]) * s
        out[2] = (R[1, 0] - R[0, 1]) * s
        return
    i = 0
    if R[1, 1] > R[0, 0]:
        i = 1
    if R[2, 2] > R[i, i]:
        i = 2
    j = (i + 1) % 3
    k = (j + 1) % 3
    s = math.sqrt(R[i, i] - R[j, j] - R[k, k] + 1.0)
    out[i] = 0.5 * s
    s = 0.5 / s
    out[3] = (R[k, j] - R[j, k]) * s
    out[j] = (R[j, i] + R[i, j]) * s
    out[k] = (R[k, i] + R[i, k]) * s


@jit
def matrix_to_quat_wxyz(R, out):
    """matrix_to_quat in the sheet's order (p0, p1, p2, p3)."""
    matrix_to_quat(R, out)
    x, y, z, w = out[0], out[1], out[2], out[3]
    out[0] = w
    out[1] = x
    out[2] = y
    out[3] = z


# ---------------------------------------------------------------- rotation vector, angle-axis

@jit
def exp3(phi, out):
    """R = exp(phi^) = cos t I + (sin t / t) phi^ + ((1 - cos t)/t^2) phi phi^T, t = |phi|.

    Rodrigues; Kindr cheat sheet, "Rotation Vector" (axis phi/|phi|, angle |phi|). Taylor near
    t = 0.
    """
    x, y, z = phi[0], phi[1], phi[2]
    c, a, b, _ = exp3_coeffs(math.sqrt(x * x + y * y + z * z))
    put_so3_poly(out, 0, 0, x, y, z, c, a, b)


@jit
def log3_tuple(R):
    """(x, y, z, theta) with phi = (x, y, z) = log(R), |phi| = theta in [0, pi].

    theta = atan2(|s|, c) with s = vee(R - R^T)/2 = sin(theta) n and c = (tr R - 1)/2, which
    keeps full precision at both ends (acos does not near 0). For c >= 0, phi = (theta/|s|) s.
    Near pi, s carries no direction, so n comes from the symmetric part
    (R + R^T)/2 - c I = (1 - c) n n^T (largest diagonal first) and s only fixes its sign.
    """
    sx = 0.5 * (R[2, 1] - R[1, 2])
    sy = 0.5 * (R[0, 2] - R[2, 0])
    sz = 0.5 * (R[1, 0] - R[0, 1])
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    sn = math.sqrt(sx * sx + sy * sy + sz * sz)
    t = math.atan2(sn, c)
    if c >= 0.0:
        if t < SMALL_ANGLE:
            f = 1.0 + t * t / 6.0 * (1.0 + 7.0 * t * t / 60.0)
        else:
            f = t / sn
        return f * sx, f * sy, f * sz, t
    omc = 1.0 - c
    i = 0
    if R[1, 1] > R[0, 0]:
        i = 1
    if R[2, 2] > R[i, i]:
        i = 2
    j = (i + 1) % 3
    k = (j + 1) % 3
    ni = math.sqrt(max(R[i, i] - c, 0.0) / omc)
    nj = 0.5 * (R[i, j] + R[j, i]) / (omc * ni)
    nk = 0.5 * (R[i, k] + R[k, i]) / (omc * ni)
    if i == 0:
        x, y, z = ni, nj, nk
    elif i == 1:
        x, y, z = nk, ni, nj
    else:
        x, y, z = nj, nk, ni
    f = t if x * sx + y * sy + z * sz >= 0.0 else -t
    return f * x, f * y, f * z, t


@jit
def log3(R, out):
    """out = phi = log(R), |phi| in [0, pi] (see log3_tuple); returns theta = |phi|."""
    x, y, z, t = log3_tuple(R)
    out[0] = x
    out[1] = y
    out[2] = z
    return t


@jit
def exp3_quat(phi, out):
    """q = (sin(t/2) phi/t, cos(t/2)), t = |phi|, as pin.exp3_quat.

    Kindr cheat sheet, "Rotation Quaternion <=> Rotation Angle-Axis" with theta = t, n = phi/t.
    """
    x, y, z = phi[0], phi[1], phi[2]
    t2 = x * x + y * y + z * z
    t = math.sqrt(t2)
    if t < SMALL_ANGLE:
        f = 0.5 - t2 / 48.0 * (1.0 - t2 / 80.0)
    else:
        f = math.sin(0.5 * t) / t
    out[0] = f * x
    out[1] = f * y
    out[2] = f * z
    out[3] = math.cos(0.5 * t)


@jit
def log3_quat(q, out):
    """phi = log(q) with |phi| = theta in [0, pi]; returns theta.

    The sheet's theta = 2 acos(p0) loses half the digits near p0 = 1; 2 atan2(|v|, |w|) does not,
    and taking q or -q with w >= 0 keeps theta <= pi.
    """
    x, y, z, w = q[0], q[1], q[2], q[3]
    n = math.sqrt(x * x + y * y + z * z)
    aw = abs(w)
    t = 2.0 * math.atan2(n, aw)
    if n < 1e-8 * aw:
        f = 2.0 / aw * (1.0 - n * n / (3.0 * aw * aw))
    else:
        f = t / n
    if w < 0.0:
        f = -f
    out[0] = f * x
    out[1] = f * y
    out[2] = f * z
    return t


@jit
def angle_axis_to_matrix(angle, axis, out):
    """R = cos t I + sin t n^ + (1 - cos t) n n^T for a unit axis n (Rodrigues)."""
    put_so3_poly(out, 0, 0, axis[0], axis[1], axis[2],
                 math.cos(angle), math.sin(angle), 1.0 - math.cos(angle))


@jit
def angle_axis_to_quat(angle, axis, out):
    """q = (n sin(t/2), cos(t/2)) (Kindr cheat sheet, "Rotation Quaternion <=> Rotation
    Angle-Axis")."""
    s = math.sin(0.5 * angle)
    out[0] = s * axis[0]
    out[1] = s * axis[1]
    out[2] = s * axis[2]
    out[3] = math.cos(0.5 * angle)


@jit
def _rotvec_to_angle_axis(phi, t, axis_out):
    # Kindr cheat sheet: below machine precision the axis is arbitrary; the sheet picks (1, 0, 0).
    if t < 2.220446049250313e-16:
        axis_out[0] = 1.0
        axis_out[1] = 0.0
        axis_out[2] = 0.0
        return 0.0
    axis_out[0] = phi[0] / t
    axis_out[1] = phi[1] / t
    axis_out[2] = phi[2] / t
    return t


@jit
def matrix_to_angle_axis(R, axis_out):
    """(theta, n) of R with theta in [0, pi]; returns theta, writes n ((1, 0, 0) at theta = 0)."""
    t = log3(R, axis_out)
    return _rotvec_to_angle_axis(axis_out, t, axis_out)


@jit
def quat_to_angle_axis(q, axis_out):
    """(theta, n) of q, theta in [0, pi] (Kindr cheat sheet, "Rotation Quaternion <=>
    Angle-Axis")."""
    t = log3_quat(q, axis_out)
    return _rotvec_to_angle_axis(axis_out, t, axis_out)


# ---------------------------------------------------------------- SE(3), nu = [v; w]

@jit
def exp6(nu, R_out, p_out):
    """(R, p) = exp(nu) for nu = [v; w]: R = exp3(w), p = V(w) v, as pin.exp6.

    V = (sin t/t) I + ((1 - cos t)/t^2) w^ + ((t - sin t)/t^3) w w^T, t = |w|.
    """
    x, y, z = nu[3], nu[4], nu[5]
    c, a, b, d = exp3_coeffs(math.sqrt(x * x + y * y + z * z))
    put_so3_poly(R_out, 0, 0, x, y, z, c, a, b)
    px, py, pz = so3_poly_apply(x, y, z, a, b, d, nu[0], nu[1], nu[2])
    p_out[0] = px
    p_out[1] = py
    p_out[2] = pz


@jit
def log6(R, p, out):
    """nu = [v; w] = log(R, p), as pin.log6: w = log3(R), v = V(w)^-1 p with
    V^-1 = e I - w^/2 + d w w^T, (e, d) from log3_coeffs. Returns |w|."""
    x, y, z, t = log3_tuple(R)
    e, d = log3_coeffs(t)
    vx, vy, vz = so3_poly_apply(x, y, z, e, -0.5, d, p[0], p[1], p[2])
    out[0] = vx
    out[1] = vy
    out[2] = vz
    out[3] = x
    out[4] = y
    out[5] = z
    return t
