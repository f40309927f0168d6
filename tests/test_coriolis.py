"""The Coriolis matrix: Pinocchio, C v = nle - g, and dM/dt - 2C skew by differences."""

import numpy as np
import pytest

pytest.importorskip("pinocchio")  # compares with Pinocchio at import time

import fastdyn as fd
from conftest import close, pin, random_state
from fastdyn.representations import coriolis_matrix
from test_jacobians import constant_s_columns


def test_coriolis_matches_pinocchio(pair):
    """Every column of a dof with constant S (entry (r, c) involves dS_c/dt only)."""
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    keep = constant_s_columns(m)
    rng = np.random.default_rng(0)
    for _ in range(3):
        q, v, _ = random_state(pm, rng)
        close(coriolis_matrix(m, d, q, v)[:, keep],
              pin.computeCoriolisMatrix(pm, pd, q, v)[:, keep])


def test_coriolis_identities(pair):
    m, pm = pair
    d = m.create_data()
    q, v, _ = random_state(pm, np.random.default_rng(1))
    C = coriolis_matrix(m, d, q, v).copy()
    nle = fd.non_linear_effects(m, d, q, v).copy()
    close(C @ v, nle - fd.compute_generalized_gravity(m, d, q))
    h = 1e-6
    Mp = fd.crba(m, d, pin.integrate(pm, q, h * v)).copy()
    Mdot = (Mp - fd.crba(m, d, pin.integrate(pm, q, -h * v))) / (2 * h)
    N = Mdot - 2 * C
    close(N + N.T, np.zeros_like(N), 1e-7)
    assert np.abs(coriolis_matrix(m, d, q, np.zeros(m.nv))).max() == 0.0


def test_coriolis_bad_input():
    m = fd.samples.manipulator()
    d = m.create_data()
    with pytest.raises(ValueError, match="shape"):
        coriolis_matrix(m, d, np.zeros(m.nq), np.zeros(m.nv - 1))
    with pytest.raises(ValueError, match="free-flyer"):
        coriolis_matrix(m, d, np.zeros(m.nq), np.zeros(m.nv), "mixed")
