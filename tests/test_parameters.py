"""Editing a model's parameters (with_*) and sampling physically consistent inertias.

Oracles: Pinocchio's RNEA on a Pinocchio model edited through its own Inertia type; an
eigenvalue test of the 4x4 pseudo-inertia written here (not the library's consistency test);
NumPy statistics of the samples; the regressors (Y pi = rnea) tying samples to models."""

import numpy as np
import pytest

import fastdyn as fd
from conftest import close, needs_pinocchio, pin


@pytest.fixture(scope="module")
def arm():
    return fd.samples.manipulator()


def _state(m, seed=0):
    rng = np.random.default_rng(seed)
    return fd.random_configuration(m, seed), rng.normal(size=m.nv), rng.normal(size=m.nv)


def test_with_inertia_matches_pinocchio_edited_the_same_way(arm):
    needs_pinocchio()
    from oracle import to_pinocchio
    j, mass, com, I = 3, 2.7, np.array([0.01, -0.02, 0.1]), np.diag([0.03, 0.02, 0.025])
    m2 = arm.with_inertia(j, mass=mass, com=com, inertia=I)
    pm = to_pinocchio(arm)
    pm.inertias[j] = pin.Inertia(mass, com, I)
    q, v, a = _state(arm)
    close(fd.rnea(m2, m2.create_data(), q, v, a), pin.rnea(pm, pm.createData(), q, v, a))
    assert arm.mass[j] != mass  # the original is untouched


def test_variants_share_the_topology_and_its_data(arm):
    m2 = arm.with_inertia(2, mass=3.0).with_damping(1, 0.3).with_gravity((0, 0, -1.62))
    assert m2.token == arm.token and m2.nv == arm.nv
    d = arm.create_data()
    q, v, a = _state(arm)
    tau = fd.rnea(m2, d, q, v, a).copy()  # the original's Data serves the variant
    np.testing.assert_array_equal(tau, fd.rnea(m2, m2.create_data(), q, v, a))
    assert np.array_equal(m2.gravity, [0, 0, -1.62]) and arm.gravity[2] == -9.81
    assert m2.damping[0] == 0.3 and arm.damping[0] == 0.0


def test_other_edits(arm):
    T = np.eye(4)
    T[:3, 3] = (0.1, 0.2, 0.3)
    m2 = arm.with_placement(2, T).with_armature(1, 0.5).with_friction(3, [0.2])
    assert np.array_equal(m2.params[2]["p"], [0.1, 0.2, 0.3]) and m2.armature[0] == 0.5
    assert m2.friction[2] == 0.2
    m3 = arm.with_limits(1, lower=-1.0, upper=[2.0], velocity=3.0, effort=np.inf)
    assert (m3.lower_position_limit[0], m3.upper_position_limit[0],
            m3.velocity_limit[0], m3.effort_limit[0]) == (-1.0, 2.0, 3.0, np.inf)
    q, v, a = _state(arm)
    M = fd.crba(m2, m2.create_data(), q)
    assert M[0, 0] == pytest.approx(fd.crba(arm.with_placement(2, T), arm.create_data(), q)[0, 0]
                                    + 0.5)


@pytest.mark.parametrize("kw, message", [
    (dict(mass=-1.0), "mass must be positive"),
    (dict(mass=0.0), "mass must be positive"),
    (dict(mass=np.nan), "mass must be finite"),
    (dict(inertia=np.diag([1.0, 1.0, 3.0])), "triangle inequality"),
    (dict(inertia=np.diag([-1.0, 1.0, 1.0])), "negative principal moment"),
    (dict(inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "not symmetric"),
    (dict(com=[0, 0]), "com must have shape"),
])
def test_inconsistent_inertia_is_refused(arm, kw, message):
    with pytest.raises(ValueError, match=message):
        arm.with_inertia("wrist_1_joint" if "wrist_1_joint" in arm.joint_names else 2, **kw)


def test_edit_errors_name_the_joint_and_field(arm):
    with pytest.raises(KeyError, match="no joint named 'nosuch'"):
        arm.with_inertia("nosuch", mass=1.0)
    with pytest.raises(ValueError, match="universe"):
        arm.with_damping(0, 0.1)
    with pytest.raises(ValueError, match="damping of joint .* >= 0"):
        arm.with_damping(1, -0.1)
    with pytest.raises(ValueError, match="lower > upper"):
        arm.with_limits(1, lower=2.0, upper=1.0)
    with pytest.raises(ValueError, match="gravity"):
        arm.with_gravity((0, np.nan, 0))


def _pseudo_inertia_psd(pi):
    """J = [[tr(I_o)/2 1 - I_o, h], [h^T, m]] >= 0 with m > 0: a rigid body's parameters."""
    m, h = pi[0], pi[1:4]
    xx, xy, yy, xz, yz, zz = pi[4:]
    Io = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    J = np.zeros((4, 4))
    J[:3, :3] = 0.5 * np.trace(Io) * np.eye(3) - Io
    J[:3, 3] = J[3, :3] = h
    J[3, 3] = m
    return m > 0 and np.linalg.eigvalsh(J)[0] >= -1e-12 * max(1.0, np.abs(J).max())


def test_samples_are_consistent_reproducible_and_spread_as_asked():
    m = fd.samples.humanoid()
    S = fd.sample_parameters(m, 20_000, seed=5, mass=0.1, com=0.01, inertia=0.2)
    assert S.shape == (20_000, m.njoints - 1, 10)
    np.testing.assert_array_equal(S, fd.sample_parameters(m, 20_000, seed=5, mass=0.1,
                                                          com=0.01, inertia=0.2))
    assert not np.array_equal(S[:10], fd.sample_parameters(m, 10, seed=6, mass=0.1))
    massive = m.mass[1:] > 0
    for b in np.flatnonzero(massive)[:8]:
        assert all(_pseudo_inertia_psd(p) for p in S[:200, b])
    assert fd.parameters.is_physically_consistent(S[:, massive]).all()
    nominal = fd.dynamic_parameters(m).reshape(-1, 10)
    logm = np.log(S[:, massive, 0] / nominal[massive, 0])
    assert np.allclose(logm.std(axis=0), 0.1, rtol=0.05) and abs(logm.mean()) < 0.01
    com = S[:, massive, 1:4] / S[:, massive, :1]
    dc = com - (nominal[massive, 1:4] / nominal[massive, :1])
    assert np.allclose(dc.std(axis=0), 0.01, rtol=0.05)


def test_zero_spread_is_the_nominal_model_and_per_joint_spreads():
    m = fd.samples.manipulator()
    nominal = fd.dynamic_parameters(m).reshape(-1, 10)
    close(fd.sample_parameters(m, 3, seed=1)[1], nominal, 1e-12)
    name = m.joint_names[2]
    S = fd.sample_parameters(m, 50, seed=2, mass={name: 0.2})
    changed = ~np.all(np.isclose(S[:, :, 0], nominal[:, 0]), axis=0)
    assert changed.tolist() == [k == 1 for k in range(m.njoints - 1)]


def test_samples_drive_the_regressor_route_and_the_edited_models_alike():
    m = fd.samples.manipulator()
    S = fd.sample_parameters(m, 4, seed=3, mass=0.2, com=0.02, inertia=0.2)
    Q = np.array([fd.random_configuration(m, s) for s in range(3)])
    rng = np.random.default_rng(0)
    V, A = rng.normal(size=(3, m.nv)), rng.normal(size=(3, m.nv))
    TAU = np.einsum("tvp,np->ntv", fd.batch.compute_joint_torque_regressor(m, Q, V, A),
                    S.reshape(4, -1)) + m.armature * A
    for k in range(4):
        mk = m
        for j in range(1, m.njoints):
            p = S[k, j - 1]
            c = p[1:4] / p[0]
            xx, xy, yy, xz, yz, zz = p[4:]
            Io = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
            Ic = Io - p[0] * (c @ c * np.eye(3) - np.outer(c, c))
            mk = mk.with_inertia(j, mass=p[0], com=c, inertia=Ic)
        close(TAU[k], fd.batch.rnea(mk, Q, V, A))


@pytest.mark.parametrize("kw, err, message", [
    (dict(n=0), ValueError, "n .* >= 1"),
    (dict(n=2.5), TypeError, "n .*integer"),
    (dict(n=2, mass=-0.1), ValueError, "spreads must be finite and >= 0"),
    (dict(n=2, com=[0.1, 0.2]), ValueError, "com must have shape"),
    (dict(n=2, inertia={"nosuch": 0.1}), KeyError, "nosuch"),
    (dict(n=2, seed=-1), ValueError, "seed"),
])
def test_sampler_bad_input(kw, err, message):
    with pytest.raises(err, match=message):
        fd.sample_parameters(fd.samples.manipulator(), **kw)
    with pytest.raises(TypeError, match="model must be"):
        fd.sample_parameters(None, 2)


def test_generated_kernels_refuse_a_variant(tmp_path):
    """A variant shares the token (its Data fits) but not the parameters generated code holds
    as literals: batch calls with the original's kernels are refused for it."""
    import fastdyn.codegen as cg
    m = fd.samples.double_pendulum()
    g = cg.generate(m, ("rnea",), directory=str(tmp_path))
    Q, V = np.zeros((2, m.nq)), np.zeros((2, m.nv))
    close(fd.batch.rnea(m, Q, V, V, generated=g), fd.batch.rnea(m, Q, V, V))
    with pytest.raises(ValueError, match="another model"):
        fd.batch.rnea(m.with_inertia(1, mass=3.0), Q, V, V, generated=g)
