"""Inverse kinematics: reachable targets converge, unreachable ones report, limits hold."""

import numpy as np
import pytest

import fastdyn as fd
from conftest import get_pair, random_state
from fastdyn.ik import inverse_kinematics, inverse_kinematics_batch

TOL = 1e-6


def _pose_error(m, d, q, frame, T):
    fd.forward_kinematics(m, d, q)
    M = fd.frame_placement(m, d, frame)
    dR = M[:3, :3].T @ T[:3, :3]
    angle = np.arccos(np.clip((np.trace(dR) - 1) / 2, -1, 1))
    return max(np.linalg.norm(M[:3, 3] - T[:3, 3]), angle)


def _targets(m, n, seed):
    """Frame placements of random configurations within the limits: reachable by design."""
    d = m.create_data()
    rng = np.random.default_rng(seed)
    lo, hi = m.lower_position_limit, m.upper_position_limit
    out = []
    for _ in range(n):
        fd.forward_kinematics(m, d, rng.uniform(lo, hi))
        out.append(fd.frame_placement(m, d, "tool0"))
    return np.array(out)


def _sweep(n, seed):
    m = fd.samples.manipulator()
    d = m.create_data()
    T = _targets(m, n, seed)
    r = inverse_kinematics_batch(m, "tool0", T, tol=1e-10, max_iter=300)
    ok = r.converged & (r.residual <= TOL)
    assert ok.mean() >= 0.99, f"{ok.mean():.1%} converged"
    assert np.all(r.iterations <= 300)
    lo, hi = m.lower_position_limit, m.upper_position_limit
    assert np.all((r.q >= lo) & (r.q <= hi))
    for k in np.flatnonzero(ok)[:20]:  # independent check of the answer
        assert _pose_error(m, d, r.q[k], "tool0", T[k]) < TOL
    return r


def test_ik_100_reachable_targets():
    _sweep(100, seed=0)


@pytest.mark.slow
def test_ik_1000_reachable_targets():
    _sweep(1000, seed=1)


def test_batch_is_the_serial_solver():
    m = fd.samples.manipulator()
    d = m.create_data()
    T = _targets(m, 8, seed=2)
    b = inverse_kinematics_batch(m, "tool0", T, seed=5)
    for k in range(len(T)):
        r = inverse_kinematics(m, d, "tool0", T[k], seed=5 + k)
        assert np.array_equal(r.q, b.q[k]) and r.iterations == b.iterations[k]
        assert r.converged == b.converged[k] and r.residual == b.residual[k]


def test_batch_over_robots_solves_each_on_its_own_robot():
    """Row r on robot r of a parameter batch (edited link placements): each answer is the
    serial solver's on a model built with that robot's parameters, and reaches its target on
    that robot (checked by forward kinematics), not on the nominal one."""
    from fastdyn.kernels import layout
    m = fd.samples.manipulator()
    n = 4
    PRM = np.array(fd.parameter_batch(m, pi=fd.sample_parameters(m, n, seed=1)))
    layout.named(PRM)["p"][:, 2, 2] += np.linspace(0.01, 0.04, n)  # longer upper arms
    T = _targets(m, n, seed=7)
    b = inverse_kinematics_batch(m, "tool0", T, seed=3, prm=PRM)
    assert b.converged.all()
    for k in range(n):
        mk = m.with_parameters(PRM[k])
        r = inverse_kinematics(mk, mk.create_data(), "tool0", T[k], seed=3 + k)
        assert np.array_equal(r.q, b.q[k])
        assert _pose_error(mk, mk.create_data(), b.q[k], "tool0", T[k]) < TOL
        assert _pose_error(m, m.create_data(), b.q[k], "tool0", T[k]) > 1e-3
    with pytest.raises(ValueError, match="prm holds 4 robots for 2 rows"):
        inverse_kinematics_batch(m, "tool0", T[:2], prm=PRM)


def test_position_and_orientation_tasks():
    m = fd.samples.manipulator()
    d = m.create_data()
    T = _targets(m, 5, seed=3)
    for Tk in T:
        r = inverse_kinematics(m, d, "tool0", Tk[:3, 3], task="position")
        assert r.converged and r.residual <= TOL
        fd.forward_kinematics(m, d, r.q)
        assert np.linalg.norm(fd.frame_placement(m, d, "tool0")[:3, 3] - Tk[:3, 3]) < TOL
        r = inverse_kinematics(m, d, "tool0", Tk[:3, :3], task="orientation")
        assert r.converged and r.residual <= TOL
        fd.forward_kinematics(m, d, r.q)
        R = fd.frame_placement(m, d, "tool0")[:3, :3]
        assert np.abs(R - Tk[:3, :3]).max() < TOL
        r = inverse_kinematics(m, d, "tool0", (Tk[:3, :3], Tk[:3, 3]))
        assert r.converged and _pose_error(m, d, r.q, "tool0", Tk) < TOL


def test_unreachable_target_reports_without_raising():
    m = fd.samples.manipulator()
    d = m.create_data()
    r = inverse_kinematics(m, d, "tool0", np.array([5.0, 0.0, 0.5]), task="position",
                           max_iter=100)
    assert not r.converged and r.iterations == 100
    assert 3.0 < r.residual < 5.1  # the arm is about 1.4 m long
    fd.forward_kinematics(m, d, r.q)
    assert np.isclose(r.residual,
                      np.linalg.norm(fd.frame_placement(m, d, "tool0")[:3, 3] - [5, 0, 0.5]))
    T = np.eye(4)
    T[:3, 3] = [0.0, 0.0, 3.0]
    b = inverse_kinematics_batch(m, "tool0", np.array([T, T]), max_iter=50)
    assert not b.converged.any() and np.all(b.residual > 1.0)


def test_humanoid_foot_placement():
    """Free-flyer humanoid: put "left_sole" at a pose reached by a random configuration."""
    m, pm = get_pair("humanoid")
    d = m.create_data()
    rng = np.random.default_rng(4)
    for _ in range(3):
        qr, _, _ = random_state(pm, rng)
        fd.forward_kinematics(m, d, qr)
        T = fd.frame_placement(m, d, "left_sole")
        r = inverse_kinematics(m, d, "left_sole", T)
        assert r.converged and r.residual <= 1e-10 and r.iterations < 50
        assert _pose_error(m, d, r.q, "left_sole", T) < TOL
        assert np.isclose(np.linalg.norm(r.q[3:7]), 1.0)
        knee = m.jnt[m.joint_id("left_knee")]["idx_q"]
        assert 0.0 <= r.q[knee] <= 2.5


def test_ik_bad_input():
    m = fd.samples.manipulator()
    d = m.create_data()
    with pytest.raises(KeyError, match="no frame named"):
        inverse_kinematics(m, d, "hand", np.eye(4))
    with pytest.raises(IndexError):
        inverse_kinematics(m, d, 1000, np.eye(4))
    with pytest.raises(ValueError, match="task must be"):
        inverse_kinematics(m, d, "tool0", np.eye(4), task="twist")
    with pytest.raises(ValueError, match="target for this task"):
        inverse_kinematics(m, d, "tool0", np.zeros(3))
    with pytest.raises(ValueError, match="not a rotation"):
        inverse_kinematics(m, d, "tool0", 2 * np.eye(4))
    with pytest.raises(ValueError, match="tol"):
        inverse_kinematics(m, d, "tool0", np.eye(4), tol=0.0)
    with pytest.raises(ValueError, match="q0"):
        inverse_kinematics_batch(m, "tool0", np.stack([np.eye(4)] * 2), q0=np.zeros((3, 6)))
