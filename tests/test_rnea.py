"""RNEA and its special cases against Pinocchio, on sample models and random trees."""

import numpy as np

import fastdyn as fd
from conftest import close, pin, random_state


def test_rnea_matches_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(0)
    for _ in range(10):
        q, v, a = random_state(pm, rng)
        close(fd.rnea(m, d, q, v, a), pin.rnea(pm, pd, q, v, a))
        fext = rng.normal(size=(m.njoints, 6))
        close(fd.rnea(m, d, q, v, a, fext), pin.rnea(pm, pd, q, v, a, [pin.Force(f) for f in fext]))
        close(fd.non_linear_effects(m, d, q, v), pin.nonLinearEffects(pm, pd, q, v))
        close(fd.compute_generalized_gravity(m, d, q), pin.computeGeneralizedGravity(pm, pd, q))
        close(fd.compute_static_torque(m, d, q, fext),
              pin.computeStaticTorque(pm, pd, q, [pin.Force(f) for f in fext]))


def test_rnea_fills_kinematics_like_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, v, a = random_state(pm, np.random.default_rng(1))
    fd.rnea(m, d, q, v, a)
    pin.rnea(pm, pd, q, v, a)
    for i in range(m.njoints):
        close(d.liMi_R[i], pd.liMi[i].rotation)
        close(d.liMi_p[i], pd.liMi[i].translation)
        close(d.v[i], pd.v[i].vector)
        close(d.f[i] if i else 0 * d.f[i], pd.f[i].vector if i else 0 * d.f[i])


def test_nle_is_rnea_at_zero_acceleration(pair):
    m, pm = pair
    d = m.create_data()
    q, v, _ = random_state(pm, np.random.default_rng(2))
    nle = fd.non_linear_effects(m, d, q, v).copy()
    close(fd.rnea(m, d, q, v, np.zeros(m.nv)), nle, 1e-14)
