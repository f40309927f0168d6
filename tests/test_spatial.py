"""Spatial algebra against independent 4x4 / 6x6 matrix formulas and Pinocchio.

The formulas are those of the Pinocchio documentation, "SE(3) operations" cheat sheet ("the
cheat sheet" below, with the section cited), and Traversaro & Saccon, "Multibody dynamics
notation (version 2)", Technische Universiteit Eindhoven, 2019, for the 6D cross product."""

import numpy as np
import pytest

pytest.importorskip("pinocchio")  # every test here compares with Pinocchio's spatial algebra

from conftest import close, pin  # noqa: E402
from fastdyn.builder import dynamic_parameters
from fastdyn.kernels.spatial import force, inertia, matrix6, motion, se3

rng = np.random.default_rng(42)


def skew(x):
    return np.array([[0, -x[2], x[1]], [x[2], 0, -x[0]], [-x[1], x[0], 0]])


def random_placement():
    M = pin.SE3.Random()
    return M, np.concatenate([M.rotation.ravel(), M.translation])


def X_motion(M):  # ^A X_B, cheat sheet, "Motion Application"
    R, p = M.rotation, M.translation
    return np.block([[R, skew(p) @ R], [np.zeros((3, 3)), R]])


def X_force(M):  # ^A X_B^*, cheat sheet, "Force Application"
    R, p = M.rotation, M.translation
    return np.block([[R, np.zeros((3, 3))], [skew(p) @ R, R]])


def random_inertia():
    m = rng.uniform(0.1, 5)
    c = rng.normal(size=3)
    A = rng.normal(size=(3, 3))
    Ic = A @ A.T + 0.1 * np.eye(3)
    return m, c, Ic


def Y_matrix(m, c, Ic):  # cheat sheet, "Inertia": [[m, m c_x^T], [m c_x, I + m c_x c_x^T]]
    C = skew(c)
    return np.block([[m * np.eye(3), m * C.T], [m * C, Ic + m * C @ C.T]])


@pytest.mark.parametrize("trial", range(20))
def test_placement_algebra(trial):
    A, a = random_placement()
    B, b = random_placement()
    out = np.zeros(12)
    se3.compose(a, 0, b, 0, out, 0)
    close(out, np.concatenate([(A * B).rotation.ravel(), (A * B).translation]), 1e-14)
    se3.compose_inv(a, 0, b, 0, out, 0)
    AiB = A.inverse() * B
    close(out, np.concatenate([AiB.rotation.ravel(), AiB.translation]), 1e-13)
    se3.inverse(a, 0, out, 0)
    close(out, np.concatenate([A.inverse().rotation.ravel(), A.inverse().translation]), 1e-14)
    x = rng.normal(size=3)
    close(se3.act_point(a, 0, *x), A.act(x), 1e-14)
    close(se3.act_inv_point(a, 0, *se3.act_point(a, 0, *x)), x, 1e-13)


@pytest.mark.parametrize("trial", range(20))
def test_motion_force_transforms(trial):
    A, a = random_placement()
    nu = rng.normal(size=6)
    phi = rng.normal(size=6)
    close(motion.act(a, 0, nu, 0), X_motion(A) @ nu, 1e-13)
    close(motion.act_inv(a, 0, nu, 0), np.linalg.solve(X_motion(A), nu), 1e-12)
    close(force.act(a, 0, phi, 0), X_force(A) @ phi, 1e-13)
    close(force.act_inv(a, 0, phi, 0), np.linalg.solve(X_force(A), phi), 1e-12)
    # act_inv after act is the identity
    close(motion.act_inv(a, 0, np.array(motion.act(a, 0, nu, 0)), 0), nu, 1e-13)
    close(force.act_inv(a, 0, np.array(force.act(a, 0, phi, 0)), 0), phi, 1e-13)
    # the duality pairing phi . nu is frame invariant
    pair_b = phi @ nu
    pair_a = np.array(force.act(a, 0, phi, 0)) @ np.array(motion.act(a, 0, nu, 0))
    assert abs(pair_a - pair_b) <= 1e-12 * max(1.0, abs(pair_b))
    # against Pinocchio's Motion / Force
    close(motion.act(a, 0, nu, 0), A.act(pin.Motion(nu)).vector, 1e-13)
    close(force.act_inv(a, 0, phi, 0), A.actInv(pin.Force(phi)).vector, 1e-12)


@pytest.mark.parametrize("trial", range(20))
def test_cross_products(trial):
    x, y, f = rng.normal(size=6), rng.normal(size=6), rng.normal(size=6)
    v, w = x[:3], x[3:]
    # the 6D cross product on motions (Traversaro & Saccon, sec. 5.3)
    crm = np.block([[skew(w), skew(v)], [np.zeros((3, 3)), skew(w)]])
    close(motion.cross(x, 0, y, 0), crm @ y, 1e-13)
    close(motion.cross_force(x, 0, f, 0), -crm.T @ f, 1e-13)  # x* = -(x)^T
    close(motion.cross(x, 0, y, 0), pin.Motion(x).cross(pin.Motion(y)).vector, 1e-13)


@pytest.mark.parametrize("trial", range(20))
def test_inertia(trial):
    m, c, Ic = random_inertia()
    Yb = Y_matrix(m, c, Ic)
    pi = np.zeros(10)
    inertia.from_triplet(m, c, Ic, pi, 0)
    close(pi, dynamic_parameters(m, c, Ic), 1e-12)
    close(pi, pin.Inertia(m, c, Ic).toDynamicParameters(), 1e-12)  # Pinocchio's order
    Y6 = np.zeros((6, 6))
    inertia.to_matrix(pi, 0, Y6)
    close(Y6, Yb, 1e-12)
    Y36 = np.zeros(36)
    matrix6.from_inertia(pi, 0, Y36, 0)
    close(Y36.reshape(6, 6), Yb, 1e-12)
    nu = rng.normal(size=6)
    close(inertia.apply(pi, 0, nu, 0), Yb @ nu, 1e-12)
    # nu x* (Y nu), the cheap form of the cheat sheet ("Cross products")
    v, w = nu[:3], nu[3:]
    crf = -np.block([[skew(w), skew(v)], [np.zeros((3, 3)), skew(w)]]).T
    close(inertia.bias_force(pi, 0, nu, 0), crf @ Yb @ nu, 1e-12)
    # inertia in another frame: ^A Y = ^A X_B^* ^B Y ^B X_A  (cheat sheet, "Inertia application")
    A, a = random_placement()
    Ya = X_force(A) @ Yb @ np.linalg.inv(X_motion(A))
    pa = np.zeros(10)
    inertia.act(a, 0, pi, 0, pa, 0)
    inertia.to_matrix(pa, 0, Y6)
    close(Y6, Ya, 1e-11)
    close(pa, A.act(pin.Inertia(m, c, Ic)).toDynamicParameters(), 1e-11)
    back = np.zeros(10)
    inertia.act_inv(a, 0, pa, 0, back, 0)
    close(back, pi, 1e-11)
    # the 6x6 product ABA uses
    x = rng.normal(size=6)
    close(matrix6.mul_vec(Y36, 0, x, 0), Yb @ x, 1e-12)
