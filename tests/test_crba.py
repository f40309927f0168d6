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
    g = fd.generalized_gravity(m, d, q).copy()
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
