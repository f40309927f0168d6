"""Rotation kernels (kernels/spatial/rotations.py, rotation_rates.py) against Pinocchio, against
series oracles, and against finite differences of rotations integrated along known omegas."""

import math

import numba
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")  # compares with Pinocchio at import time

from fastdyn.kernels.spatial import euler as eul
from fastdyn.kernels.spatial import rotation_rates as rr
from fastdyn.kernels.spatial import rotations as rot

TOL = 1e-12  # agreement with Pinocchio / with exact identities
FD_TOL = 1e-7  # central differences, h = 1e-5
H = 1e-5
N = 100  # random samples per check

# Pinocchio's own Taylor switches lose digits for |w| around 1e-4..1e-1 (Jexp6 and Jlog6 by up
# to 2e-7 near |w| = 1e-3, Jlog3 by 7e-11, Jexp3 by 8e-14; measured against the series below).
# Comparisons with Pinocchio therefore use generic rotations and tiny ones; the small-angle
# range is checked against the series oracle instead.
PIN_SCALES = (1e-9, 0.3, 1.0, 2.0, 3.0)
ALL_SCALES = (0.0, 1e-12, 1e-6, 1e-4, 1e-3, 9.9e-3, 1.01e-2, 0.05, 0.29, 0.31, 1.0, 3.0, 3.14)


def hat(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def ad(nu):
    """ad of nu = [v; w] (linear first): [[w^, v^], [0, w^]]."""
    A = np.zeros((6, 6))
    A[:3, :3] = hat(nu[3:])
    A[:3, 3:] = hat(nu[:3])
    A[3:, 3:] = hat(nu[3:])
    return A


def jr_series(A):
    """Right Jacobian of exp: sum_k (-A)^k / (k+1)!  (oracle; |A| <= ~6 here)."""
    S = np.zeros_like(A)
    T = np.eye(A.shape[0])
    for k in range(60):
        S += T / math.factorial(k + 1)
        T = -T @ A
    return S


def rand_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def rand_vec(rng, scale):
    v = rng.normal(size=3)
    n = np.linalg.norm(v)
    return v * (scale / n) if n > 0 else v


def call(f, *args, shape=(3,)):
    """Allocating convenience wrapper: f(*args, out) -> (out, return value)."""
    out = np.empty(shape)
    ret = f(*args, out)
    return out, ret


def mat(f, *args):
    return call(f, *args, shape=(3, 3))[0]


def same_quat(a, b, tol=TOL):
    return min(np.abs(a - b).max(), np.abs(a + b).max()) < tol


def pin_quat(q):
    return pin.Quaternion(q[3], q[0], q[1], q[2])  # Eigen's constructor takes w first


# ---------------------------------------------------------------- conversions

def test_quaternion_matrix():
    rng = np.random.default_rng(0)
    axes_pi = [np.diag([1.0, -1, -1]), np.diag([-1.0, 1, -1]), np.diag([-1.0, -1, 1])]
    for k in range(N + 3):
        q = rand_quat(rng)
        R = mat(rot.quat_to_matrix, q) if k < N else axes_pi[k - N]
        if k < N:
            assert np.abs(R - pin_quat(q).toRotationMatrix()).max() < TOL
            p = np.array([q[3], q[0], q[1], q[2]])
            assert np.abs(mat(rot.quat_wxyz_to_matrix, p) - R).max() < TOL
            assert np.abs(call(rot.quat_xyzw_to_wxyz, q, shape=(4,))[0] - p).max() == 0
            assert np.abs(call(rot.quat_wxyz_to_xyzw, p, shape=(4,))[0] - q).max() == 0
        q2 = call(rot.matrix_to_quat, R, shape=(4,))[0]
        assert np.abs(q2 - pin.Quaternion(R).coeffs()).max() < TOL  # same branch as Eigen
        assert np.abs(mat(rot.quat_to_matrix, q2) - R).max() < TOL
        p2 = call(rot.matrix_to_quat_wxyz, R, shape=(4,))[0]
        assert np.abs(p2 - np.r_[q2[3], q2[:3]]).max() == 0
    a, b = rand_quat(rng), rand_quat(rng)
    ab = call(rot.quat_multiply, a, b, shape=(4,))[0]
    assert np.abs(ab - (pin_quat(a) * pin_quat(b)).coeffs()).max() < TOL
    ac = call(rot.quat_conjugate, a, shape=(4,))[0]
    assert np.abs(ac - pin_quat(a).conjugate().coeffs()).max() == 0


def test_angle_axis():
    rng = np.random.default_rng(1)
    for k in range(N):
        angle = rng.uniform(0.0, math.pi)
        axis = rand_vec(rng, 1.0)
        R = mat(rot.angle_axis_to_matrix, angle, axis)
        assert np.abs(R - pin.AngleAxis(angle, axis).matrix()).max() < TOL
        n, t = call(rot.matrix_to_angle_axis, R)
        assert abs(t - angle) < TOL and np.abs(n - axis).max() < 1e-10
        q = call(rot.angle_axis_to_quat, angle, axis, shape=(4,))[0]
        assert np.abs(mat(rot.quat_to_matrix, q) - R).max() < TOL
        n, t = call(rot.quat_to_angle_axis, -q if k % 2 else q)  # both signs give theta <= pi
        assert abs(t - angle) < TOL and np.abs(n - axis).max() < 1e-10
    for f, x in ((rot.matrix_to_angle_axis, np.eye(3)),
                 (rot.quat_to_angle_axis, np.array([0.0, 0, 0, 1]))):
        n, t = call(f, x)  # Kindr cheat sheet (Bloesch et al.): angle 0 -> axis (1, 0, 0)
        assert t == 0.0 and np.all(n == [1.0, 0, 0])


def test_exp3_log3_against_pinocchio():
    rng = np.random.default_rng(2)
    for scale in ALL_SCALES:
        for _ in range(10):
            phi = rand_vec(rng, scale)
            R = mat(rot.exp3, phi)
            assert np.abs(R - pin.exp3(phi)).max() < TOL
            w, t = call(rot.log3, R)
            assert np.abs(w - pin.log3(R)).max() < TOL and np.abs(w - phi).max() < TOL
            assert abs(t - np.linalg.norm(phi)) < TOL
            q = call(rot.exp3_quat, phi, shape=(4,))[0]
            assert np.abs(q - pin.exp3_quat(phi)).max() < TOL
            assert np.abs(mat(rot.quat_to_matrix, q) - R).max() < TOL
            for s in (1.0, -1.0):
                w, t = call(rot.log3_quat, s * q)
                assert np.abs(w - phi).max() < TOL and abs(t - np.linalg.norm(phi)) < TOL
            assert np.abs(pin.log3(q) - phi).max() < TOL  # pin reads (x, y, z, w) too


@pytest.mark.parametrize("delta", [0.0, 1e-15, 1e-12, 1e-9, 1e-6, 1e-3, 0.5])
def test_log3_near_pi(delta):
    rng = np.random.default_rng(3)
    axes = [rand_vec(rng, 1.0) for _ in range(5)] + [np.array([1.0, 1e-9, -1e-10]),
                                                    np.array([1e-12, 0.0, -1.0])]
    for axis in axes:
        axis = axis / np.linalg.norm(axis)
        phi = (math.pi - delta) * axis
        R = pin.exp3(phi)
        w, t = call(rot.log3, R)
        if delta == 0.0:  # phi and -phi are the same rotation at pi
            assert min(np.abs(w - phi).max(), np.abs(w + phi).max()) < TOL
        else:
            assert np.abs(w - phi).max() < TOL
            assert np.abs(w - pin.log3(R)).max() < TOL
        assert abs(t - (math.pi - delta)) < TOL
        assert np.abs(mat(rot.exp3, w) - R).max() < TOL


@pytest.mark.parametrize("to_m, from_m, last", [  # last: the angle set to 0 at gimbal lock
    (eul.euler_zyx_to_matrix, eul.matrix_to_euler_zyx, 2),  # [yaw, pitch, roll]: roll
    (eul.rpy_to_matrix, eul.matrix_to_rpy, 0),  # [roll, pitch, yaw]: roll
    (eul.euler_xyz_to_matrix, eul.matrix_to_euler_xyz, 2),  # [alpha, beta, gamma]: gamma
])
def test_euler_round_trips(to_m, from_m, last):
    lo = 1  # the middle angle is the one limited to [-pi/2, pi/2]
    rng = np.random.default_rng(4)
    for _ in range(N):
        e = rng.uniform(-math.pi, math.pi, 3)
        e[lo] = rng.uniform(-0.5, 0.5) * math.pi  # pitch / beta in the sheet's range
        R = mat(to_m, e)
        e2, ok = call(from_m, R)
        assert ok and np.abs(e2 - e).max() < 1e-10
        R = mat(rot.quat_to_matrix, rand_quat(rng))
        e2, ok = call(from_m, R)
        assert ok and abs(e2[lo]) <= math.pi / 2 and np.abs(mat(to_m, e2) - R).max() < TOL
    for pitch in (math.pi / 2, -math.pi / 2):  # gimbal lock: flagged, still a valid answer
        for _ in range(10):
            e = rng.uniform(-math.pi, math.pi, 3)
            e[lo] = pitch
            R = mat(to_m, e)
            e2, ok = call(from_m, R)
            assert not ok and np.abs(mat(to_m, e2) - R).max() < TOL
            assert abs(e2[lo] - pitch) < 1e-7 and abs(e2[last]) < TOL


def test_euler_against_pinocchio():
    rng = np.random.default_rng(5)
    model = pin.Model()
    model.addJoint(0, pin.JointModelSphericalZYX(), pin.SE3.Identity(), "j")
    data = model.createData()
    X, Y, Z = np.eye(3)
    for _ in range(N):
        rpy = rng.uniform(-math.pi, math.pi, 3)
        rpy[1] = rng.uniform(-0.5, 0.5) * math.pi
        R = pin.rpy.rpyToMatrix(rpy)
        assert np.abs(mat(eul.rpy_to_matrix, rpy) - R).max() < TOL
        assert np.abs(mat(eul.euler_zyx_to_matrix, rpy[::-1].copy()) - R).max() < TOL
        assert np.abs(call(eul.matrix_to_rpy, R)[0] - pin.rpy.matrixToRpy(R)).max() < TOL
        pin.forwardKinematics(model, data, rpy[::-1].copy())  # SphericalZYX q = [z, y, x]
        assert np.abs(data.oMi[1].rotation - R).max() < TOL
        # Kindr's EulerAnglesXyz: R = Rx(a) Ry(b) Rz(g), the opposite order of rpy
        Rxyz = pin.exp3(rpy[0] * X) @ pin.exp3(rpy[1] * Y) @ pin.exp3(rpy[2] * Z)
        assert np.abs(mat(eul.euler_xyz_to_matrix, rpy) - Rxyz).max() < TOL


def test_se3_exp_log():
    rng = np.random.default_rng(6)
    for scale in ALL_SCALES:
        for _ in range(5):
            nu = np.r_[rng.normal(size=3), rand_vec(rng, scale)]
            R, p = np.empty((3, 3)), np.empty(3)
            rot.exp6(nu, R, p)
            X = np.zeros((4, 4))
            X[:3, :3], X[:3, 3] = hat(nu[3:]), nu[:3]
            T = sum(np.linalg.matrix_power(X, k) / math.factorial(k) for k in range(40))
            assert np.abs(R - T[:3, :3]).max() < TOL and np.abs(p - T[:3, 3]).max() < TOL
            nu2, t = call(rot.log6, R, p, shape=(6,))
            assert np.abs(nu2 - nu).max() < TOL
            if scale in PIN_SCALES:
                M = pin.exp6(nu)
                assert np.abs(R - M.rotation).max() < TOL
                assert np.abs(p - M.translation).max() < TOL
                assert np.abs(nu2 - pin.log6(M).vector).max() < TOL


def test_jacobians():
    rng = np.random.default_rng(7)
    J3, J6 = np.empty((3, 3)), np.empty((6, 6))
    for scale in ALL_SCALES:
        for _ in range(5):
            nu = np.r_[rng.normal(size=3), rand_vec(rng, scale)]
            phi = nu[3:].copy()
            R = pin.exp3(phi)
            M = pin.exp6(nu)
            rr.jexp3(phi, J3)
            assert np.abs(J3 - jr_series(hat(phi))).max() < TOL
            if scale in PIN_SCALES:
                assert np.abs(J3 - pin.Jexp3(phi)).max() < TOL
            rr.jlog3(R, J3)
            assert np.abs(J3 - np.linalg.inv(jr_series(hat(phi)))).max() < TOL
            if scale in PIN_SCALES:
                assert np.abs(J3 - pin.Jlog3(R)).max() < TOL
            rr.jexp6(nu, J6)
            assert np.abs(J6 - jr_series(ad(nu))).max() < TOL
            if scale in PIN_SCALES:
                assert np.abs(J6 - pin.Jexp6(nu)).max() < TOL
            rr.jlog6(M.rotation, M.translation, J6)
            assert np.abs(J6 - np.linalg.inv(jr_series(ad(nu)))).max() < TOL
            if scale in PIN_SCALES:
                assert np.abs(J6 - pin.Jlog6(M)).max() < TOL


# ---------------------------------------------------------------- rate maps

def omega_path(R0, w, world, t):
    """R(t) with R(0) = R0 and constant omega: world exp(t w) R0, local R0 exp(t w)."""
    E = pin.exp3(t * w)
    return E @ R0 if world else R0 @ E


def fd(param, R0, w, world):
    return (param(omega_path(R0, w, world, H)) - param(omega_path(R0, w, world, -H))) / (2 * H)


EULER = [  # (to matrix, from matrix, rates -> omega, omega -> rates, Jacobian, inverse, pitch)
    (eul.euler_zyx_to_matrix, eul.matrix_to_euler_zyx, rr.euler_zyx_rates_to_omega,
     rr.omega_to_euler_zyx_rates, rr.euler_zyx_jacobian, rr.euler_zyx_jacobian_inverse, 1),
    (eul.rpy_to_matrix, eul.matrix_to_rpy, None, None,
     rr.rpy_jacobian, rr.rpy_jacobian_inverse, 1),
    (eul.euler_xyz_to_matrix, eul.matrix_to_euler_xyz, rr.euler_xyz_rates_to_omega,
     rr.omega_to_euler_xyz_rates, rr.euler_xyz_jacobian, rr.euler_xyz_jacobian_inverse, 1),
]


@pytest.mark.parametrize("world", [True, False])
@pytest.mark.parametrize("conv", range(len(EULER)))
def test_euler_rates(conv, world):
    to_m, from_m, fwd, inv, jac, jac_inv, lo = EULER[conv]
    rng = np.random.default_rng(8)
    for _ in range(20):
        e = rng.uniform(-2.5, 2.5, 3)
        e[lo] = rng.uniform(-1.3, 1.3)
        w = rng.normal(size=3)
        de = fd(lambda R: call(from_m, R)[0], mat(to_m, e), w, world)
        E = mat(jac, e, world)
        Einv, ok = call(jac_inv, e, world, shape=(3, 3))
        assert ok and np.abs(Einv @ E - np.eye(3)).max() < 1e-10
        assert np.abs(E @ de - w).max() < FD_TOL and np.abs(Einv @ w - de).max() < FD_TOL
        if fwd is not None:
            assert np.abs(call(fwd, e, de, world)[0] - E @ de).max() < TOL
            de2, ok = call(inv, e, w, world)
            assert ok and np.abs(de2 - Einv @ w).max() < TOL
        else:  # rpy: Pinocchio has both maps
            ref = pin.WORLD if world else pin.LOCAL
            assert np.abs(E - pin.rpy.computeRpyJacobian(e, ref)).max() < TOL
            assert np.abs(Einv - pin.rpy.computeRpyJacobianInverse(e, ref)).max() < TOL
    for pitch in (math.pi / 2, -math.pi / 2, math.pi / 2 + 1e-14):  # gimbal lock is reported
        e = rng.uniform(-2.5, 2.5, 3)
        e[lo] = pitch
        Einv, ok = call(jac_inv, e, world, shape=(3, 3))
        assert not ok and np.all(np.isnan(Einv))
        if inv is not None:
            de, ok = call(inv, e, rng.normal(size=3), world)
            assert not ok and np.all(np.isnan(de))


@pytest.mark.parametrize("world", [True, False])
def test_quaternion_rates(world):
    rng = np.random.default_rng(9)
    Hm = np.empty((3, 4))
    for _ in range(20):
        q0, w = rand_quat(rng), rng.normal(size=3)

        def q_at(t):  # dq = (0, w) q / 2 (world) or q (0, w) / 2 (local)
            e = pin.exp3_quat(t * w)
            a, b = (e, q0) if world else (q0, e)
            return call(rot.quat_multiply, a, b, shape=(4,))[0]

        dq = (q_at(H) - q_at(-H)) / (2 * H)
        assert np.abs(call(rr.omega_to_quat_rate, q0, w, world, shape=(4,))[0] - dq).max() < FD_TOL
        assert np.abs(call(rr.quat_rate_to_omega, q0, dq, world)[0] - w).max() < FD_TOL
        rr.quat_h_matrix(q0, world, Hm)
        assert np.abs(2 * Hm @ dq - w).max() < FD_TOL and np.abs(Hm @ Hm.T - np.eye(3)).max() < TOL
        p = np.r_[q0[3], q0[:3]]  # the sheet's H(p), H-bar(p), written out for p = (p0, p1, p2, p3)
        sheet = (np.array([[-p[1], p[0], -p[3], p[2]], [-p[2], p[3], p[0], -p[1]],
                           [-p[3], -p[2], p[1], p[0]]]) if world else
                 np.array([[-p[1], p[0], p[3], -p[2]], [-p[2], -p[3], p[0], p[1]],
                           [-p[3], p[2], -p[1], p[0]]]))
        assert np.abs(Hm - sheet[:, [1, 2, 3, 0]]).max() == 0


@pytest.mark.parametrize("world", [True, False])
def test_rotvec_rates(world):
    rng = np.random.default_rng(10)
    for scale in (1e-3, 0.5, 1.5, 2.5):
        for _ in range(5):
            phi, w = rand_vec(rng, scale), rng.normal(size=3)
            dphi = fd(lambda R: call(rot.log3, R)[0], pin.exp3(phi), w, world)
            dphi2, ok = call(rr.omega_to_rotvec_rate, phi, w, world)
            assert ok and np.abs(dphi2 - dphi).max() < FD_TOL
            assert np.abs(call(rr.rotvec_rate_to_omega, phi, dphi, world)[0] - w).max() < FD_TOL
            Jr = mat(rr.jexp3, phi if not world else -phi)  # omega_W = Jr(-phi) dphi
            assert np.abs(Jr @ dphi2 - w).max() < 1e-10
    phi = rand_vec(rng, 2 * math.pi)  # |phi| = 2 pi: no rate maps to this omega
    dphi, ok = call(rr.omega_to_rotvec_rate, phi, rng.normal(size=3), world)
    assert not ok and np.all(np.isnan(dphi))


def test_callable_from_njit():
    @numba.njit
    def chain(phi):
        R = np.empty((3, 3))
        q = np.empty(4)
        w = np.empty(3)
        e = np.empty(3)
        de = np.empty(3)
        rot.exp3(phi, R)
        rot.matrix_to_quat(R, q)
        rot.log3_quat(q, w)
        ok = eul.matrix_to_euler_zyx(R, e)
        ok2 = rr.omega_to_euler_zyx_rates(e, w, True, de)
        x, y, z, t = rot.log3_tuple(R)
        return w, ok and ok2, t

    phi = np.array([0.3, -0.2, 0.1])
    w, ok, t = chain(phi)
    assert ok and np.abs(w - phi).max() < TOL and abs(t - np.linalg.norm(phi)) < TOL
