"""Dynamic regressors against Pinocchio's, and the identities that define them:
Y pi + armature a = rnea, y_T . pi + armature v^2 / 2 = kinetic energy, y_V . pi = potential
energy, S [m, m c] = centre of mass; batch rows equal single calls bit for bit."""

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.kernels.layout import P_PI
from conftest import close, pin, random_state


def test_joint_torque_regressor_matches_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(7)
    pi = fd.dynamic_parameters(m)
    for _ in range(3):
        q, v, a = random_state(pm, rng)
        Y = fd.compute_joint_torque_regressor(m, d, q, v, a)
        close(Y, pin.computeJointTorqueRegressor(pm, pd, q, v, a))
        close(Y @ pi + m.armature * a, pin.rnea(pm, pd, q, v, a))


def test_energy_regressors_match_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    pi = fd.dynamic_parameters(m)
    q, v, _ = random_state(pm, np.random.default_rng(8))
    yk = fd.compute_kinetic_energy_regressor(m, d, q, v)
    close(yk, pin.computeKineticEnergyRegressor(pm, pd, q, v))
    close(yk @ pi + 0.5 * m.armature @ (v * v), fd.compute_kinetic_energy(m, m.create_data(), q, v))
    yp = fd.compute_potential_energy_regressor(m, d, q)
    close(yp, pin.computePotentialEnergyRegressor(pm, pd, q))
    close(yp @ pi, fd.compute_potential_energy(m, m.create_data(), q))


def test_static_regressor_matches_pinocchio(pair):
    m, pm = pair
    q, _, _ = random_state(pm, np.random.default_rng(9))
    S = fd.compute_static_regressor(m, m.create_data(), q)
    close(S, pin.computeStaticRegressor(pm, pm.createData(), q))
    mc = np.concatenate([[mj, *(mj * cj)] for mj, cj in zip(m.mass[1:], m.com[1:])])
    close(S @ mc, fd.center_of_mass(m, m.create_data(), q))


def test_dynamic_parameters_are_pinocchios(pair):
    m, pm = pair
    close(fd.dynamic_parameters(m),
          np.concatenate([pm.inertias[i].toDynamicParameters() for i in range(1, pm.njoints)]))


def test_batch_rows_equal_single_calls():
    m = fd.samples.humanoid()
    rng = np.random.default_rng(3)
    Q = np.array([fd.random_configuration(m, s) for s in range(7)])
    V, A = rng.normal(size=(7, m.nv)), rng.normal(size=(7, m.nv))
    YS = fd.batch.compute_joint_torque_regressor(m, Q, V, A)
    d = m.create_data()
    for r in range(7):
        np.testing.assert_array_equal(YS[r], fd.compute_joint_torque_regressor(m, d, Q[r], V[r],
                                                                                A[r]))


def test_monte_carlo_by_one_product():
    """The documented route: torques of N parameter samples along a trajectory from the
    trajectory's regressors, equal to RNEA on each sample's model."""
    m = fd.samples.manipulator()
    rng = np.random.default_rng(4)
    Q = np.array([fd.random_configuration(m, s) for s in range(5)])
    V, A = rng.normal(size=(5, m.nv)), rng.normal(size=(5, m.nv))
    YS = fd.batch.compute_joint_torque_regressor(m, Q, V, A)
    scales = 1.0 + 0.1 * rng.uniform(-1, 1, size=(3, m.njoints - 1))  # whole bodies: consistent
    PI = np.stack([(fd.dynamic_parameters(m).reshape(-1, 10) * s[:, None]).ravel()
                   for s in scales])
    TAU = np.einsum("tvp,np->ntv", YS, PI) + m.armature * A
    for k, s in enumerate(scales):
        prm = m.prm.copy()
        prm[1:, P_PI:P_PI + 10] *= s[:, None]
        mk = m.with_parameters(prm)
        close(TAU[k], fd.batch.rnea(mk, Q, V, A))


def test_bad_input():
    m = fd.samples.manipulator()
    d = m.create_data()
    q = fd.neutral(m)
    with pytest.raises(ValueError, match="v must have shape"):
        fd.compute_joint_torque_regressor(m, d, q, np.zeros(2), np.zeros(m.nv))
    with pytest.raises(ValueError, match="non-finite"):
        fd.compute_kinetic_energy_regressor(m, d, q, np.full(m.nv, np.nan))
    with pytest.raises(fd.NumericalOverflowError, match="overflow"):
        fd.compute_joint_torque_regressor(m, d, q, np.full(m.nv, 1e200), np.zeros(m.nv))
    with pytest.raises(TypeError, match="model must be a fastdyn.Model"):
        fd.dynamic_parameters(None)
    with pytest.raises(ValueError, match="not created by"):
        fd.compute_potential_energy_regressor(m, fd.samples.humanoid().create_data(), q)
