"""The everyday calls' compiled checks and preallocated outputs (bench/test_api.py times them):
results against Pinocchio on the same state, strided and converted inputs against contiguous
ones, ``out=`` against the fresh array, identities for the random draws, and bad input refused
with a message naming the cause."""

import os

import numpy as np
import pytest

import fastdyn as fd
from fastdyn._internal import checks
from conftest import get_pair

pin = pytest.importorskip("pinocchio")

TOL = 1e-10


@pytest.fixture(scope="module")
def humanoid():
    m, pm = get_pair("humanoid")  # free-flyer root: quaternions in q
    rng = np.random.default_rng(3)
    q0, q1 = fd.random_configuration(m, rng), fd.random_configuration(m, rng)
    v, a = rng.uniform(-1, 1, m.nv), rng.uniform(-1, 1, m.nv)
    return m, pm, m.create_data(), pm.createData(), q0, q1, v, a


def strided(x):
    """x as a non-contiguous view holding the same numbers."""
    y = np.zeros(2 * len(x))
    y[::2] = x
    return y[::2]


def off_manifold(m, q):
    bad = q.copy()
    bad[6] = 2.0  # the free-flyer quaternion's w
    return bad


# --- configuration -------------------------------------------------------------------------

def test_interpolate_and_jacobians_match_pinocchio_with_strided_inputs(humanoid):
    m, pm, _, _, q0, q1, v, _ = humanoid
    np.testing.assert_allclose(fd.interpolate(m, strided(q0), strided(q1), 0.3),
                               pin.interpolate(pm, q0, q1, 0.3), atol=TOL)
    np.testing.assert_allclose(fd.d_integrate(m, strided(q0), strided(v), "v"),
                               pin.dIntegrate(pm, q0, v, pin.ARG1), atol=TOL)
    np.testing.assert_allclose(fd.d_difference(m, q0, strided(q1), "q0"),
                               pin.dDifference(pm, q0, q1, pin.ARG0), atol=TOL)
    # int inputs are converted, not misread: neutral as integers on a fixed-base model
    mm, pmm = get_pair("manipulator")
    qi = np.zeros(mm.nq, dtype=np.int64)
    np.testing.assert_allclose(fd.interpolate(mm, qi, qi + 1, 0.5), np.full(mm.nq, 0.5))


def test_configuration_bad_input_names_the_cause(humanoid):
    m, _, _, _, q0, q1, v, _ = humanoid
    bad = off_manifold(m, q1)
    for call in (lambda: fd.interpolate(m, q0, bad, 0.5),
                 lambda: fd.d_difference(m, q0, bad, "q1")):
        with pytest.raises(ValueError, match=r"q1: the quaternion of joint .* has norm"):
            call()
    with pytest.raises(ValueError, match=r"q: the quaternion of joint"):
        fd.d_integrate(m, off_manifold(m, q0), v, "q")
    nan = q1.copy()
    nan[9] = np.nan
    with pytest.raises(ValueError, match=r"q1 has non-finite entries at indices \[9\]"):
        fd.interpolate(m, q0, nan, 0.5)
    with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[2\]"):
        fd.d_integrate(m, q0, np.where(np.arange(m.nv) == 2, np.inf, v), "v")
    with pytest.raises(ValueError, match=rf"q0 must have shape \({m.nq},\)"):
        fd.interpolate(m, q0[:-1], q1, 0.5)
    with pytest.raises(ValueError, match=r"q must have shape"):
        fd.d_integrate(m, np.zeros((2, m.nq)), v, "q")
    with pytest.raises(TypeError, match="u must be a real number"):
        fd.interpolate(m, q0, q1, "0.5")
    with pytest.raises(fd.NumericalOverflowError, match=r"largest entry is \|u\|"):
        fd.interpolate(m, q0, q1, 1e307)


def test_neutral_is_a_fresh_copy_every_call(humanoid):
    m, pm = humanoid[:2]
    a = fd.neutral(m)
    np.testing.assert_array_equal(a, pin.neutral(pm))
    a[:] = 7.0  # the caller owns it: the next call is unaffected
    np.testing.assert_array_equal(fd.neutral(m), pin.neutral(pm))
    assert fd.neutral(m) is not fd.neutral(m)


def test_random_configuration_default_bounds_cached_equal_explicit(humanoid):
    m = humanoid[0]
    lo, hi = m.lower_position_limit, m.upper_position_limit
    for seed in (0, 1):  # first call fills the cache, second reads it
        np.testing.assert_array_equal(fd.random_configuration(m, seed),
                                      fd.random_configuration(m, seed, lo, hi))
    a, b = fd.random_configuration(m), fd.random_configuration(m)
    assert not np.array_equal(a, b)  # the process-wide generator advances
    assert fd.is_normalized(m, a)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_random_configuration_forked_children_do_not_repeat(humanoid):
    m = humanoid[0]
    fd.random_configuration(m)
    draws = []
    for _ in range(2):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: one draw, written back as bytes
            try:
                os.write(w, fd.random_configuration(m).tobytes())
            finally:
                os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            draws.append(np.frombuffer(f.read(), dtype=np.float64))
        os.waitpid(pid, 0)
    assert draws[0].shape == (m.nq,) and not np.array_equal(draws[0], draws[1])


def test_batch_random_configuration_rows_are_the_single_draws(humanoid):
    m = humanoid[0]
    Q = fd.batch.random_configuration(m, 5, 7)
    rng = np.random.default_rng(7)  # rng.random((n, nq)): the same stream as n (nq,) draws
    np.testing.assert_array_equal(Q, [fd.random_configuration(m, rng) for _ in range(5)])
    lo, hi = m.lower_position_limit.copy(), m.upper_position_limit.copy()
    lo[7:], hi[7:] = -0.1, 0.2  # a custom box on the non-free-flyer coordinates
    Q = fd.batch.random_configuration(m, 200, np.random.default_rng(1), lo, hi)
    assert Q.shape == (200, m.nq)
    box = np.ones(m.nq, dtype=bool)  # the bounds of quaternions are not used (unit norm)
    for _, o, k in checks.unit_parts(m):
        box[o:o + k] = False
    box[:7] = False
    assert box.sum() > 5 and np.all(Q[:, box] >= -0.1) and np.all(Q[:, box] <= 0.2)
    assert all(fd.is_normalized(m, q) for q in Q)
    assert fd.batch.random_configuration(m, 0).shape == (0, m.nq)
    with pytest.raises(ValueError, match="n must be >= 0"):
        fd.batch.random_configuration(m, -1)
    with pytest.raises(TypeError, match="n must be an integer"):
        fd.batch.random_configuration(m, 2.0)
    with pytest.raises(ValueError, match="lower > upper"):
        fd.batch.random_configuration(m, 2, 0, np.ones(m.nq), np.zeros(m.nq))


# --- placements and frame motion -------------------------------------------------------------

def test_placements_and_frame_motion_out_match_fresh_and_pinocchio(humanoid):
    m, pm, d, pd, q, _, v, a = humanoid
    fd.forward_kinematics(m, d, q, v, a)
    pin.forwardKinematics(pm, pd, q, v, a)
    f, j = m.nframes - 1, m.njoints - 1
    T = np.full((4, 4), np.nan)
    assert fd.frame_placement(m, d, f, out=T) is T
    np.testing.assert_allclose(T, pin.updateFramePlacement(pm, pd, f).homogeneous, atol=TOL)
    assert fd.joint_placement(m, d, j, out=T) is T
    np.testing.assert_allclose(T, pd.oMi[j].homogeneous, atol=TOL)
    x = np.full(6, np.nan)
    for call, ref in ((fd.get_frame_velocity, pin.getFrameVelocity),
                      (fd.get_frame_acceleration, pin.getFrameAcceleration),
                      (fd.get_frame_classical_acceleration, pin.getFrameClassicalAcceleration)):
        for fr, pr in ((fd.LOCAL, pin.LOCAL), (fd.WORLD, pin.WORLD),
                       (fd.LOCAL_WORLD_ALIGNED, pin.LOCAL_WORLD_ALIGNED)):
            assert call(m, d, f, fr, out=x) is x
            np.testing.assert_allclose(x, ref(pm, pd, f, pr).vector, atol=TOL)
            np.testing.assert_array_equal(call(m, d, f, fr), x)


def test_placements_and_frame_motion_bad_input(humanoid):
    m, _, d, _, q, _, v, _ = humanoid
    fd.forward_kinematics(m, d, q, v)
    with pytest.raises(ValueError, match=r"out must be of shape \(4, 4\)"):
        fd.frame_placement(m, d, 0, out=np.zeros((3, 4)))
    with pytest.raises(TypeError, match="out must be float64"):
        fd.joint_placement(m, d, 0, out=np.zeros((4, 4), dtype=np.float32))
    with pytest.raises(ValueError, match=r"out must be of shape \(6,\)"):
        fd.get_frame_velocity(m, d, 0, out=np.zeros(3))
    with pytest.raises(ValueError, match="reference must be fastdyn.LOCAL"):
        fd.get_frame_velocity(m, d, 0, 7)
    with pytest.raises(IndexError, match="frame index"):
        fd.get_frame_velocity(m, d, m.nframes)
    with pytest.raises(RuntimeError, match="needs joint accelerations"):
        fd.get_frame_acceleration(m, d, 0)
    fd.rnea(m, d, q, v, v)  # placements now stale: a misspelt name is still the error given
    with pytest.raises(KeyError, match="no frame named 'nosuch'"):
        fd.get_frame_velocity(m, d, "nosuch")
    with pytest.raises(RuntimeError, match="call forward_kinematics"):
        fd.update_frame_placements(m, d)
    with pytest.raises(ValueError, match="not created by"):
        fd.update_frame_placements(m, fd.samples.manipulator().create_data())


# --- Jacobians, centre of mass, centroidal, energies, Cholesky ------------------------------

def test_compiled_checks_results_match_pinocchio_with_strided_inputs(humanoid):
    m, pm, d, pd, q, _, v, _ = humanoid
    qs, vs = strided(q), strided(v)
    j = m.njoints - 1
    np.testing.assert_allclose(fd.compute_joint_jacobian(m, d, qs, j),
                               pin.computeJointJacobian(pm, pd, q, j), atol=TOL)
    np.testing.assert_allclose(fd.jacobian_center_of_mass(m, d, qs),
                               pin.jacobianCenterOfMass(pm, pd, q), atol=TOL)
    np.testing.assert_allclose(fd.ccrba(m, d, qs, vs), pin.ccrba(pm, pd, q, v), atol=TOL)
    np.testing.assert_allclose(d.hg, pd.hg.vector, atol=TOL)
    np.testing.assert_allclose(fd.compute_centroidal_map(m, d, qs),
                               pin.computeCentroidalMap(pm, pd, q), atol=TOL)
    np.testing.assert_allclose(fd.compute_centroidal_momentum(m, d, qs, vs),
                               pin.computeCentroidalMomentum(pm, pd, q, v).vector, atol=TOL)
    assert fd.compute_kinetic_energy(m, d, qs, vs) == pytest.approx(
        pin.computeKineticEnergy(pm, pd, q, v), rel=TOL)
    assert fd.compute_potential_energy(m, d, qs) == pytest.approx(
        pin.computePotentialEnergy(pm, pd, q), rel=TOL)
    assert fd.compute_mechanical_energy(m, d, qs, vs) == pytest.approx(
        pin.computeMechanicalEnergy(pm, pd, q, v), rel=TOL)
    fd.crba(m, d, q)
    fd.cholesky(m, d)
    b = np.linspace(-1.0, 1.0, m.nv)
    x = fd.cholesky_solve(m, d, strided(b))
    np.testing.assert_allclose(d.M @ x, b, atol=TOL)
    y = np.empty(m.nv)
    assert fd.cholesky_solve(m, d, b, out=y) is y
    np.testing.assert_array_equal(y, x)
    y[:] = b
    assert fd.cholesky_solve(m, d, y, out=y) is y  # in place, as the docstring allows
    np.testing.assert_array_equal(y, x)


def test_compiled_checks_bad_input_names_the_cause(humanoid):
    m, _, d, _, q, _, v, _ = humanoid
    bad = off_manifold(m, q)
    nan_v = np.where(np.arange(m.nv) == 4, np.nan, v)
    for call in (lambda: fd.compute_joint_jacobian(m, d, bad, 1),
                 lambda: fd.jacobian_center_of_mass(m, d, bad),
                 lambda: fd.compute_centroidal_map(m, d, bad),
                 lambda: fd.ccrba(m, d, bad, v),
                 lambda: fd.compute_kinetic_energy(m, d, bad, v)):
        with pytest.raises(ValueError, match=r"q: the quaternion of joint .* has norm 2"):
            call()
    for call in (lambda: fd.ccrba(m, d, q, nan_v),
                 lambda: fd.compute_centroidal_momentum(m, d, q, nan_v),
                 lambda: fd.compute_kinetic_energy(m, d, q, nan_v)):
        with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[4\]"):
            call()
    with pytest.raises(ValueError, match=r"a has non-finite entries"):
        fd.compute_centroidal_momentum_time_variation(m, d, q, v, nan_v)
    with pytest.raises(TypeError, match="v must be an array"):
        fd.ccrba(m, d, q, None)
    with pytest.raises(KeyError, match="no joint named 'nosuch'"):
        fd.compute_joint_jacobian(m, d, bad, "nosuch")  # the name first: it is the real cause
    with pytest.raises(ValueError, match=rf"q must have shape \({m.nq},\)"):
        fd.jacobian_center_of_mass(m, d, q[:-1])
    fd.crba(m, d, q)
    fd.cholesky(m, d)
    with pytest.raises(ValueError, match=r"b has non-finite entries at indices \[4\]"):
        fd.cholesky_solve(m, d, nan_v)
    with pytest.raises(ValueError, match=r"b must have shape"):
        fd.cholesky_solve(m, d, v[:-1])
    with pytest.raises(TypeError, match="data must be a fastdyn.Data"):
        fd.cholesky(m, None)


# --- inverse kinematics: the target's rotation check in plain floats ------------------------

def test_ik_rotation_check_agrees_with_the_matrix_test():
    from fastdyn.ik import _is_rotation
    rng = np.random.default_rng(5)
    verdicts = []
    for k in range(400):
        R = pin.exp3(rng.normal(size=3))
        if k % 4 == 1:
            R = R @ np.diag([1.0, 1.0, -1.0])  # a reflection: det -1
        elif k % 4 == 2:
            R = R + rng.normal(scale=10.0 ** rng.uniform(-9, -4), size=(3, 3))  # near the tol
        elif k % 4 == 3:
            R = R * np.nan if k % 8 == 3 else 2.0 * R
        want = bool(np.abs(R.T @ R - np.eye(3)).max() <= 1e-6 and np.linalg.det(R) > 0)
        assert _is_rotation(R.ravel().tolist()) == want, R
        verdicts.append(want)
    assert 50 < sum(verdicts) < 350  # both verdicts met, near the tolerance too


def test_fused_kinematics_calls_match_pinocchio(humanoid):
    m, pm, d, pd, q, _, v, a = humanoid
    oMf = fd.frames_forward_kinematics(m, d, strided(q))
    pin.framesForwardKinematics(pm, pd, q)
    for f in range(m.nframes):
        T = pd.oMf[f]
        np.testing.assert_allclose(oMf[f], np.r_[T.rotation.ravel(), T.translation], atol=TOL)
    assert d.kinematics == 1
    for args, level in (((q,), 1), ((q, v), 2), ((q, v, a), 3)):
        c = fd.center_of_mass(m, d, *args)
        np.testing.assert_allclose(c, pin.centerOfMass(pm, pd, *args), atol=TOL)
        assert d.kinematics == level
    np.testing.assert_allclose(d.vcom[0], pd.vcom[0], atol=TOL)
    np.testing.assert_allclose(d.acom[0], pd.acom[0], atol=TOL)
    with pytest.raises(ValueError, match="accelerations need velocities"):
        fd.center_of_mass(m, d, q, None, a)
    with pytest.raises(ValueError, match=r"q: the quaternion of joint"):
        fd.frames_forward_kinematics(m, d, off_manifold(m, q))
    assert d.kinematics == 0  # refused: nothing stale is left readable
    with pytest.raises(ValueError, match=r"a has non-finite entries at indices \[0\]"):
        fd.center_of_mass(m, d, q, v, np.where(np.arange(m.nv) == 0, np.nan, a))
    with pytest.raises(fd.NumericalOverflowError, match="overflow"):
        fd.center_of_mass(m, d, q, np.full(m.nv, 1e200), np.full(m.nv, 1e200))


def test_configuration_calls_on_a_mimic_model():
    from fastdyn.mimic import MimicModel
    mm = MimicModel(fd.samples.manipulator(), {"joint6": ("joint5", -2.0, 0.1)})
    assert mm.nq == 5
    Q = fd.batch.random_configuration(mm, 4, 3)  # the independent joints' q
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(Q, [fd.random_configuration(mm, rng) for _ in range(4)])
    np.testing.assert_array_equal(fd.neutral(mm), np.zeros(5))
    v = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_allclose(fd.difference(mm, Q[0], fd.integrate(mm, Q[0], v)), v, atol=TOL)
    np.testing.assert_allclose(fd.interpolate(mm, Q[0], Q[1], 0.25),
                               Q[0] + 0.25 * (Q[1] - Q[0]), atol=TOL)
