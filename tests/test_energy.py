"""Energies, centre of mass and frames against Pinocchio and identities."""

import numpy as np

import fastdyn as fd
from conftest import close, pin, random_state


def test_energies_match_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(0)
    for _ in range(5):
        q, v, _ = random_state(pm, rng)
        M = pin.crba(pm, pd, q)
        M = np.triu(M) + np.triu(M, 1).T
        T = fd.compute_kinetic_energy(m, d, q, v)
        close(T, 0.5 * v @ M @ v)  # includes the rotor energy of the armature
        V = fd.compute_potential_energy(m, d, q)
        close(V, pin.computePotentialEnergy(pm, pd, q))
        close(fd.compute_mechanical_energy(m, d, q, v), T + V)


def test_gravity_is_minus_gradient_of_potential(pair):
    """g(q) = dV/dq along every tangent direction, by central differences through integrate."""
    m, pm = pair
    d = m.create_data()
    q, _, _ = random_state(pm, np.random.default_rng(1))
    g = fd.compute_generalized_gravity(m, d, q).copy()
    h = 1e-6
    for j in range(m.nv):
        e = np.zeros(m.nv)
        e[j] = h
        vp = fd.compute_potential_energy(m, d, pin.integrate(pm, q, e))
        vm = fd.compute_potential_energy(m, d, pin.integrate(pm, q, -e))
        assert abs((vp - vm) / (2 * h) - g[j]) < 1e-6 * max(1.0, abs(g[j]))


def test_center_of_mass_matches_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, v, a = random_state(pm, np.random.default_rng(2))
    close(fd.center_of_mass(m, d, q), pin.centerOfMass(pm, pd, q))
    fd.center_of_mass(m, d, q, v, a)
    pin.centerOfMass(pm, pd, q, v, a)
    close(d.com[0], pd.com[0])
    close(d.vcom[0], pd.vcom[0])
    close(d.acom[0], pd.acom[0])
    close(d.mass[0], pd.mass[0])


def test_frames_match_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, _, _ = random_state(pm, np.random.default_rng(3))
    fd.frames_forward_kinematics(m, d, q)
    pin.framesForwardKinematics(pm, pd, q)
    assert pm.nframes == m.nframes
    for k in range(m.nframes):
        close(d.oMf_R[k], pd.oMf[k].rotation)
        close(d.oMf_p[k], pd.oMf[k].translation)
        close(fd.frame_placement(m, d, k), pd.oMf[k].homogeneous)
    for j in range(m.njoints):
        close(fd.joint_placement(m, d, m.joint_names[j]), pd.oMi[j].homogeneous)
