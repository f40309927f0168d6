"""Centre-of-mass Jacobians and centroidal momentum: Pinocchio, differences, identities."""

import numpy as np
import pytest

pytest.importorskip("pinocchio")  # compares with Pinocchio at import time

import fastdyn as fd
from conftest import close, pin, random_state
from fastdyn.centroidal import (ccrba, compute_centroidal_map, compute_centroidal_momentum,
                                compute_centroidal_momentum_time_variation, dccrba,
                                jacobian_center_of_mass, jacobian_subtree_center_of_mass)
from test_jacobians import constant_s_columns


def test_com_jacobians_match_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, _, _ = random_state(pm, np.random.default_rng(0))
    close(jacobian_center_of_mass(m, d, q), pin.jacobianCenterOfMass(pm, pd, q))
    close(d.com, np.array(pd.com))
    close(d.mass, np.array(pd.mass))
    for r in range(m.njoints):
        close(jacobian_subtree_center_of_mass(m, d, q, r),
              pin.jacobianSubtreeCenterOfMass(pm, pd, q, r))
    close(jacobian_subtree_center_of_mass(m, d, q, m.joint_names[1]),
          pin.jacobianSubtreeCenterOfMass(pm, pd, q, 1))


def test_com_jacobian_is_derivative_of_com(pair):
    m, pm = pair
    d = m.create_data()
    q, v, _ = random_state(pm, np.random.default_rng(1))
    Jc = jacobian_center_of_mass(m, d, q).copy()
    h = 1e-6
    cp = fd.center_of_mass(m, d, pin.integrate(pm, q, h * v)).copy()
    cm = fd.center_of_mass(m, d, pin.integrate(pm, q, -h * v))
    close(Jc @ v, (cp - cm) / (2 * h), 1e-7)
    fd.center_of_mass(m, d, q, v)
    close(Jc @ v, d.vcom[0])


def test_ccrba_matches_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(2)
    for _ in range(3):
        q, v, _ = random_state(pm, rng)
        close(compute_centroidal_map(m, d, q), pin.computeCentroidalMap(pm, pd, q))
        close(ccrba(m, d, q, v), pin.ccrba(pm, pd, q, v))
        close(d.hg, pd.hg.vector)
        close(d.Ig, pd.Ig.matrix())
        # linear momentum is m c'
        fd.center_of_mass(m, d, q, v)
        close(d.hg[:3], d.mass[0] * d.vcom[0])


def test_dccrba(pair):
    """Pinocchio on constant-S columns; central differences of A_g along v everywhere."""
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, v, _ = random_state(pm, np.random.default_rng(3))
    keep = constant_s_columns(m)
    dAg = dccrba(m, d, q, v).copy()
    pin.dccrba(pm, pd, q, v)
    close(d.Ag, pd.Ag)
    close(d.hg, pd.hg.vector)
    close(dAg[:, keep], pd.dAg[:, keep])
    h = 1e-6
    Ap = compute_centroidal_map(m, d, pin.integrate(pm, q, h * v)).copy()
    Am = compute_centroidal_map(m, d, pin.integrate(pm, q, -h * v))
    close(dAg, (Ap - Am) / (2 * h), 1e-7)


def test_centroidal_momentum_and_its_rate(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, v, a = random_state(pm, np.random.default_rng(4))
    close(compute_centroidal_momentum(m, d, q, v), pin.computeCentroidalMomentum(pm, pd, q, v))
    dhg = compute_centroidal_momentum_time_variation(m, d, q, v, a).copy()
    pin.computeCentroidalMomentumTimeVariation(pm, pd, q, v, a)
    close(dhg, pd.dhg.vector)
    close(d.hg, pd.hg.vector)
    dAg = dccrba(m, d, q, v)
    close(dhg, d.Ag @ a + dAg @ v, 1e-9)


def test_centroidal_bad_input():
    m = fd.samples.manipulator()
    d = m.create_data()
    q = np.zeros(m.nq)
    with pytest.raises(KeyError, match="no joint named"):
        jacobian_subtree_center_of_mass(m, d, q, "nope")
    with pytest.raises(IndexError):
        jacobian_subtree_center_of_mass(m, d, q, 99)
    with pytest.raises(ValueError, match="shape"):
        ccrba(m, d, q, np.zeros(m.nv + 1))
    b = fd.ModelBuilder("massless")
    b.add_joint("j", "revolute_z", 0, None)
    z = b.build()
    with pytest.raises(ValueError, match="no mass"):
        jacobian_center_of_mass(z, z.create_data(), np.zeros(1))
    with pytest.raises(ValueError, match="no mass"):
        compute_centroidal_momentum(z, z.create_data(), np.zeros(1), np.zeros(1))
