"""Batch kinematics and centroidal derivatives (fastdyn.batch.get_frame_velocity_derivatives and
friends): every row equals the single calls bit for bit (the pass, then the getter) in the
three references, with 1 and 2 threads and with one robot per row; the batch against
Pinocchio's computeForwardKinematicsDerivatives + getFrame*Derivatives and
computeCentroidalDynamicsDerivatives where the two agree (LOCAL; the module docstring of
fastdyn/kinematics_derivatives.py lists where they differ); preallocated outputs; bad input."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from conftest import (close, get_pair, needs_pinocchio, pin, random_state,
                      set_threads as _threads, to_pinocchio)
from fastdyn import batch
from fastdyn.kernels.joints import codes

N = 5  # not a multiple of the thread count
REFS = (fd.LOCAL, fd.WORLD, fd.LOCAL_WORLD_ALIGNED)
PIN_TYPES = tuple(t for t in codes.NAMES[1:]
                  if t not in ("freeflyer", "spherical_zyx", "universal"))


@pytest.fixture(scope="module")
def states():
    """Every joint type under a free flyer, N random states and one robot per row."""
    m, pm = get_pair("tree_free")
    rng = np.random.default_rng(3)
    S = [random_state(pm, rng) for _ in range(N)]
    Q, V, A = (np.array([s[k] for s in S]) for k in range(3))
    pi = fd.sample_parameters(m, N, seed=4, mass=0.2, com=0.01, inertia=0.2)
    return m, Q, V, A, fd.parameter_batch(m, pi=pi)


def _deep_frame(m) -> int:
    """The last frame (on a deep joint of the random tree: a long support)."""
    return m.nframes - 1


def _single(m, q, v, a, kind, target, ref):
    """The single calls' (velocity, acceleration) derivatives, copied out of the Data."""
    d = m.create_data()
    fd.compute_forward_kinematics_derivatives(m, d, q, v, a)
    vel = getattr(fd, f"get_{kind}_velocity_derivatives")(m, d, target, ref)
    vel = tuple(x.copy() for x in vel)
    acc = getattr(fd, f"get_{kind}_acceleration_derivatives")(m, d, target, ref)
    return vel, tuple(x.copy() for x in acc)


def _check_rows(m, Q, V, A, kind, target, ref, prm=None):
    vel = getattr(batch, f"get_{kind}_velocity_derivatives")(m, Q, V, target, ref, prm=prm)
    acc = getattr(batch, f"get_{kind}_acceleration_derivatives")(m, Q, V, A, target, ref, prm=prm)
    for r in range(Q.shape[0]):
        mr = m if prm is None else m.with_parameters(prm[r])
        sv, sa = _single(mr, Q[r], V[r], A[r], kind, target, ref)
        for got, want in zip(vel, sv):  # the velocity pass ran at a = 0: no difference
            assert np.array_equal(got[r], want)
        for got, want in zip(acc, sa):
            assert np.array_equal(got[r], want)


@pytest.mark.parametrize("ref", REFS, ids=["LOCAL", "WORLD", "LWA"])
def test_frame_rows_equal_single_calls_bitwise(states, ref):
    m, Q, V, A, _ = states
    old = _threads(2)
    try:
        _check_rows(m, Q, V, A, "frame", _deep_frame(m), ref)
    finally:
        numba.set_num_threads(old)


def test_joint_rows_and_one_thread(states):
    m, Q, V, A, _ = states
    old = _threads(1)
    try:
        _check_rows(m, Q, V, A, "joint", m.njoints - 1, fd.LOCAL_WORLD_ALIGNED)
        _check_rows(m, Q, V, A, "frame", m.frame_names[_deep_frame(m)], fd.WORLD)
    finally:
        numba.set_num_threads(old)


def test_one_robot_per_row(states):
    m, Q, V, A, P = states
    _check_rows(m, Q, V, A, "frame", _deep_frame(m), fd.LOCAL, prm=P)
    H = batch.compute_centroidal_dynamics_derivatives(m, Q, V, A, prm=P)
    for r in range(N):
        mr = m.with_parameters(P[r])
        ref = fd.compute_centroidal_dynamics_derivatives(mr, mr.create_data(), Q[r], V[r], A[r])
        for got, want in zip(H, ref):
            assert np.array_equal(got[r], want)


def test_centroidal_rows_equal_single_calls_bitwise(states):
    m, Q, V, A, _ = states
    H = batch.compute_centroidal_dynamics_derivatives(m, Q, V, A)
    d = m.create_data()
    for r in range(N):
        for got, want in zip(H, fd.compute_centroidal_dynamics_derivatives(m, d, Q[r], V[r],
                                                                          A[r])):
            assert np.array_equal(got[r], want)


def test_against_pinocchio_local():
    """Where Pinocchio 4.1 and fastdyn agree (LOCAL, joints whose S does not move)."""
    needs_pinocchio()
    m = fd.samples.random_tree(12, seed=11, types=PIN_TYPES, root="freeflyer")
    pm = to_pinocchio(m)
    pd = pm.createData()
    rng = np.random.default_rng(5)
    S = [random_state(pm, rng) for _ in range(3)]
    Q, V, A = (np.array([s[k] for s in S]) for k in range(3))
    f = m.nframes - 1
    vel = batch.get_frame_velocity_derivatives(m, Q, V, f, fd.LOCAL)
    acc = batch.get_frame_acceleration_derivatives(m, Q, V, A, f, fd.LOCAL)
    H = batch.compute_centroidal_dynamics_derivatives(m, Q, V, A)
    for r in range(3):
        pin.computeForwardKinematicsDerivatives(pm, pd, Q[r], V[r], A[r])
        for got, want in zip(vel, pin.getFrameVelocityDerivatives(pm, pd, f, pin.LOCAL)):
            close(got[r], want, 1e-10)
        for got, want in zip(acc, pin.getFrameAccelerationDerivatives(pm, pd, f, pin.LOCAL)):
            close(got[r], want, 1e-10)
        for got, want in zip(H, pin.computeCentroidalDynamicsDerivatives(pm, pd, Q[r], V[r],
                                                                         A[r])):
            close(got[r], want, 1e-10)


def test_preallocated_outputs(states):
    m, Q, V, A, _ = states
    nv = m.nv
    out = tuple(np.full((N, 6, nv), np.nan) for _ in range(4))
    got = batch.get_frame_acceleration_derivatives(m, Q, V, A, 3, fd.WORLD, out=out)
    assert all(g is o for g, o in zip(got, out))
    for g, w in zip(got, batch.get_frame_acceleration_derivatives(m, Q, V, A, 3, fd.WORLD)):
        assert np.array_equal(g, w)
    out2 = out[:2]
    got = batch.get_frame_velocity_derivatives(m, Q, V, 3, out=out2)
    assert got[0] is out2[0] and got[1] is out2[1]
    got = batch.compute_centroidal_dynamics_derivatives(m, Q, V, A, out=out)
    assert all(g is o for g, o in zip(got, out))
    with pytest.raises(TypeError, match="out must be a tuple of 2"):
        batch.get_frame_velocity_derivatives(m, Q, V, 3, out=out)
    with pytest.raises(ValueError, match=r"out\[1\] must be of shape"):
        batch.get_frame_velocity_derivatives(m, Q, V, 3, out=(out[0], np.empty((N, 6, nv + 1))))
    with pytest.raises(ValueError, match="overlap"):
        batch.compute_centroidal_dynamics_derivatives(m, Q, V, A, out=(out[0],) * 4)


def test_bad_input(states):
    m, Q, V, A, _ = states
    f = batch.get_frame_acceleration_derivatives
    with pytest.raises(ValueError, match="Q must have shape"):
        f(m, Q[:, :-1], V, A, 1)
    with pytest.raises(ValueError, match="V must have shape"):
        f(m, Q, V[:-1], A, 1)
    with pytest.raises(ValueError, match="A must have shape"):
        f(m, Q, V, A[:, 1:], 1)
    bad = A.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="A has non-finite"):
        f(m, Q, V, bad, 1)
    with pytest.raises(ValueError, match="V has non-finite"):
        batch.get_frame_velocity_derivatives(m, Q, bad, 1)
    bad = Q.copy()
    bad[1, 3:7] *= 2.0  # the free flyer's quaternion
    with pytest.raises(ValueError, match="Q row 1: .* non-unit quaternion"):
        f(m, bad, V, A, 1)
    with pytest.raises(ValueError, match="Q row 1"):
        batch.compute_centroidal_dynamics_derivatives(m, bad, V, A)
    with pytest.raises(KeyError, match="no_such_frame"):
        f(m, Q, V, A, "no_such_frame")
    with pytest.raises(IndexError, match="frame index"):
        batch.get_frame_velocity_derivatives(m, Q, V, m.nframes)
    with pytest.raises(KeyError, match="no_such_joint"):
        batch.get_joint_velocity_derivatives(m, Q, V, "no_such_joint")
    with pytest.raises(ValueError, match="reference must be"):
        f(m, Q, V, A, 1, reference=7)
    with pytest.raises(ValueError, match="prm holds"):
        f(m, Q, V, A, 1, prm=fd.parameter_batch(m, pi=fd.sample_parameters(m, 2, seed=0)))


def test_overflow_names_the_row(states):
    m, Q, V, A, _ = states
    big = V.copy()
    big[3] = 1e300
    with pytest.raises(ValueError, match="row 3"):
        batch.get_frame_acceleration_derivatives(m, Q, big, A, 1)


def test_massless_robot_is_refused():
    b = fd.ModelBuilder("massless")
    b.add_joint("j1", "revolute_z")
    m = b.build()
    z = np.zeros((2, 1))
    with pytest.raises(ValueError, match="row 0 .*has no mass"):
        batch.compute_centroidal_dynamics_derivatives(m, z, z, z)
