"""Scalar building blocks of the configuration-space kernels: SO(3) coefficient functions,
Hamilton quaternions stored (x, y, z, w), and 3x3 matrices as row-major 9-tuples.

Sources: Bloesch et al., "Kinematics and dynamics for robotics: Kindr cheat sheet", ETH Zurich,
"Rotation Quaternion" (product, conjugate, angle-axis) and "Rotation Vector"; Pinocchio
documentation, "SE(3) operations" cheat sheet, "Joint" (the integrator is the exponential map).
Everything returns tuples so that kernels allocate nothing.

Closed forms, t = |phi|, u^ the skew matrix of u (u^ x = u cross x):
  exp3(phi)  = cos t I + (sin t / t) phi^ + ((1 - cos t) / t^2) phi phi^T
  Jexp3(phi) = (sin t / t) I - ((1 - cos t) / t^2) phi^ + ((t - sin t) / t^3) phi phi^T
  Jlog3(phi) = e I + phi^ / 2 + d phi phi^T,  e = (t/2) cot(t/2),  d = (1 - e) / t^2
(right Jacobians, Pinocchio's Jexp3 / Jlog3). Pinocchio switches to Taylor series at
eps^(1/4) ~ 1.2e-4 and loses digits just above it; here the quotients are rebuilt from
sin t / t and 2 sin^2(t/2) / t^2, which have no cancellation, and series are used below
SMALL only where a difference of near-equal terms remains.

Deliberately local (not kernels/spatial/rotations.py, written in parallel): a few lines each,
and numba's cache only tracks a function's own file.
"""

import math

from .._jit import jit
from ..spatial.rotations import exp3_coeffs as exp_coeffs  # noqa: F401 (re-exported)

EPS = 2.220446049250313e-16  # float64 machine epsilon, as Eigen's NumTraits<double>::epsilon()
SMALL = 1e-2  # below this angle: Taylor series, truncation error < 1e-16


@jit
def log_coeffs(t):
    """(e, d, dd) for 0 <= t <= pi: e = (t/2) cot(t/2), d = (1 - e) / t^2, dd = d'(t) / t.

    d and dd are Pinocchio's beta and beta_dot_over_theta (Jexp6, Jlog6); e is its Jlog3
    diagonal and its SE(2) alpha. The series are those of x cot x (Bernoulli numbers).
    """
    t2 = t * t
    if t < SMALL:
        return (1.0 - t2 / 12.0 - t2 * t2 / 720.0, 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0,
                1.0 / 360.0 + t2 / 7560.0 + t2 * t2 / 201600.0)
    c, a, b, cc = exp_coeffs(t)
    e = a / (2.0 * b)  # t sin t / (2 (1 - cos t)) without 0/0 at small t or t = pi
    d = (1.0 - e) / t2
    # d' = -e'/t^2 - 2 d / t with e' = -t cc / (2 b): the error this leaves (eps / t^2) only
    # ever meets dd multiplied by t^2 or more.
    return (e, d, (cc / (2.0 * b) - 2.0 * d) / t2)


# --- quaternions (x, y, z, w) ----------------------------------------------------------------

@jit
def quat_mul(ax, ay, az, aw, bx, by, bz, bw):
    """a b, Hamilton product (Kindr cheat sheet, "Quaternion multiplication"), Eigen's
    arithmetic."""
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by + ay * bw + az * bx - ax * bz,
            aw * bz + az * bw + ax * by - ay * bx,
            aw * bw - ax * bx - ay * by - az * bz)


@jit
def quat_rotate(x, y, z, w, vx, vy, vz):
    """R(q) v as Eigen's Quaternion * Vector3: u = 2 q_v x v, R v = v + w u + q_v x u."""
    ux = 2.0 * (y * vz - z * vy)
    uy = 2.0 * (z * vx - x * vz)
    uz = 2.0 * (x * vy - y * vx)
    return (vx + w * ux + (y * uz - z * uy), vy + w * uy + (z * ux - x * uz),
            vz + w * uz + (x * uy - y * ux))


@jit
def quat_exp3(px, py, pz):
    """exp of the rotation vector phi as a quaternion: (sin(t/2) phi / t, cos(t/2))."""
    t2 = px * px + py * py + pz * pz
    t = math.sqrt(t2)
    if t < SMALL:
        s = 0.5 * (1.0 - t2 / 24.0 * (1.0 - t2 / 80.0))
        c = 1.0 - t2 / 8.0 * (1.0 - t2 / 48.0)
    else:
        s = math.sin(0.5 * t) / t
        c = math.cos(0.5 * t)
    return (s * px, s * py, s * pz, c)


@jit
def quat_log3(x, y, z, w):
    """(phi_x, phi_y, phi_z, t): the rotation vector of q, |phi| = t in [0, pi].

    q and -q are the same rotation (Kindr cheat sheet); like Pinocchio's quaternion::log3 this
    takes the representative with w >= 0, i.e. the shortest path, and scales by t / sin(t/2)
    computed from q itself (so a slightly non-unit q gives Pinocchio's answer, not a
    renormalized one).
    """
    if w < 0.0:
        x, y, z, w = -x, -y, -z, -w
    n2 = x * x + y * y + z * z
    n = math.sqrt(n2 + EPS * EPS)  # Pinocchio's guard: t and the quotient stay regular at 0
    h = math.atan2(n, w)
    t = 2.0 * h
    if n2 < 6.0554544523933395e-06:  # eps^(1/3), Pinocchio's switch; series error < 1e-18
        x2 = 0.25 * t * t
        f = 2.0 * (1.0 + x2 / 6.0 + 7.0 / 360.0 * x2 * x2)
    else:
        f = t / math.sin(h)
    return (f * x, f * y, f * z, t)


@jit
def first_order_normalize(x, y, z, w):
    """q (3 - |q|^2) / 2: one Newton step towards |q| = 1, Pinocchio's firstOrderNormalize."""
    a = 0.5 * (3.0 - (x * x + y * y + z * z + w * w))
    return (a * x, a * y, a * z, a * w)


@jit
def quat_matrix(x, y, z, w):
    """R(q) row-major, Eigen's toRotationMatrix arithmetic (as kernels/joints/common.py)."""
    tx, ty, tz = 2.0 * x, 2.0 * y, 2.0 * z
    twx, twy, twz = tx * w, ty * w, tz * w
    txx, txy, txz = tx * x, ty * x, tz * x
    tyy, tyz, tzz = ty * y, tz * y, tz * z
    return (1.0 - (tyy + tzz), txy - twz, txz + twy,
            txy + twz, 1.0 - (txx + tzz), tyz - twx,
            txz - twy, tyz + twx, 1.0 - (txx + tyy))


# --- 3x3 matrices as row-major 9-tuples ----------------------------------------------------

@jit
def poly3(x, y, z, alpha, beta, gamma):
    """alpha I + beta u^ + gamma u u^T for u = (x, y, z): the shape of every SO(3) form above."""
    return (alpha + gamma * x * x, gamma * x * y - beta * z, gamma * x * z + beta * y,
            gamma * y * x + beta * z, alpha + gamma * y * y, gamma * y * z - beta * x,
            gamma * z * x - beta * y, gamma * z * y + beta * x, alpha + gamma * z * z)


@jit
def mat3_mul(A, B):
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6], A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8],
            A[3] * B[0] + A[4] * B[3] + A[5] * B[6], A[3] * B[1] + A[4] * B[4] + A[5] * B[7],
            A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6], A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])


@jit
def mat3_t(A):
    return (A[0], A[3], A[6], A[1], A[4], A[7], A[2], A[5], A[8])


@jit
def put3(J, r, c, A, s):
    """J[r:r+3, c:c+3] = s A."""
    for i in range(3):
        for k in range(3):
            J[r + i, c + k] = s * A[3 * i + k]

