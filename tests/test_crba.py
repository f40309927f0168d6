"""The mass matrix: Pinocchio, RNEA columns, symmetry and positive definiteness."""

import numpy as np

import fastdyn as fd
from conftest import close, pin, random_state


def test_crba_matches_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(0)
    for _ in range(10):
        q, _, _ = random_state(pm, rng)
        M = fd.crba(m, d, q)
        Mp = pin.crba(pm, pd, q)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T  # Pinocchio fills the upper triangle
        close(M, Mp)


def test_crba_columns_are_rnea_minus_gravity(pair):
    """Column j of M is rnea(q, 0, e_j) - g(q): an identity independent of Pinocchio."""
    m, pm = pair
    d = m.create_data()
    q, _, _ = random_state(pm, np.random.default_rng(1))
    M = fd.crba(m, d, q).copy()
    g = fd.compute_generalized_gravity(m, d, q).copy()
    z = np.zeros(m.nv)
    for j in range(m.nv):
        close(M[:, j], fd.rnea(m, d, q, z, np.eye(m.nv)[j]) - g)


def test_mass_matrix_symmetric_positive_definite(pair):
    m, pm = pair
    d = m.create_data()
    rng = np.random.default_rng(2)
    for _ in range(5):
        q, _, _ = random_state(pm, rng)
        M = fd.crba(m, d, q)
        assert np.array_equal(M, M.T)
        assert np.linalg.eigvalsh(M).min() > 0


def test_crba_rnea_is_crba_and_rnea(pair):
    """The simulator's fused call (kernels crba_rnea: RNEA reusing CRBA's joint calculations)
    gives Pinocchio's M and tau = rnea(q, v, a), and the very bits of the two separate calls
    (and leaves the same workspace)."""
    from fastdyn.kernels import layout as L
    from fastdyn.kernels.algorithms.crba import crba, crba_rnea
    from fastdyn.kernels.algorithms.rnea import rnea

    m, pm = pair
    pd = pm.createData()
    ws, ws2 = L.workspace(m.jnt), L.workspace(m.jnt)
    M, M2 = np.zeros((m.nv, m.nv)), np.zeros((m.nv, m.nv))
    tau, tau2 = np.zeros(m.nv), np.zeros(m.nv)
    fext = np.zeros((0, 6))
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, v, a = random_state(pm, rng)
        crba_rnea(m.jnt, m.prm, q, v, a, fext, ws, M, tau)
        Mp = pin.crba(pm, pd, q)
        close(M, np.triu(Mp) + np.triu(Mp, 1).T)
        close(tau, pin.rnea(pm, pd, q, v, a))
        crba(m.jnt, m.prm, q, ws2, M2, q[:0])
        rnea(m.jnt, m.prm, q, v, a, fext, ws2, tau2)
        assert np.array_equal(M, M2) and np.array_equal(tau, tau2)
        assert np.array_equal(ws, ws2)
