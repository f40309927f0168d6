"""fastdyn.simulate and fastdyn.batch.simulate against a step-by-step oracle written here.

The oracle is Pinocchio's aba and integrate composed into semi-implicit Euler in this file:
  v_{k+1} = v_k + dt aba(q_k, v_k, tau_k),   q_{k+1} = integrate(q_k, dt v_{k+1}).
The torques change every step (a sum of sines of a different frequency per dof), so reading
the table one row late, or explicit Euler (q advanced with v_k), moves the trajectory far
beyond the tolerance; each batch row has torques of its own, and is checked against the same
oracle (not against fastdyn.simulate, which shares its kernel)."""

import numpy as np
import pytest

import fastdyn as fd
from conftest import close, get_pair

pin = pytest.importorskip("pinocchio")

DT, STEPS = 2e-3, 60


def _torques(nv, phase, steps=STEPS):
    t = np.arange(steps)[:, None] * DT
    freq = 3.0 + 2.0 * np.arange(nv)[None, :]
    return 0.3 * np.sin(freq * t + phase) + 0.1 * np.cos(0.5 * freq * t * (1 + phase))


def _oracle(pm, q0, v0, torques):
    pd = pm.createData()
    qs, vs = [np.array(q0)], [np.array(v0)]
    for tau in torques:
        v = vs[-1] + DT * pin.aba(pm, pd, qs[-1], vs[-1], tau)
        qs.append(pin.integrate(pm, qs[-1], DT * v))
        vs.append(v)
    return np.array(qs), np.array(vs)


@pytest.mark.parametrize("name", ["manipulator", "ur5"])
def test_simulate_follows_aba_and_integrate_step_by_step(name):
    """Chains of revolute joints (the sample manipulator, UR5): every state of the trajectory,
    to round-off grown over 60 steps. (Free-flyer and planar joints advance their linear
    velocity with the rotation of the step: tests/test_integrator_physics.py.)"""
    m, pm = get_pair(name)
    rng = np.random.default_rng(11)
    q0 = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
    v0 = rng.normal(size=m.nv)
    torques = _torques(m.nv, 0.3)
    qs, vs = fd.simulate(m, q0, v0, torques, DT)
    ref_q, ref_v = _oracle(pm, q0, v0, torques)
    assert qs.shape == (STEPS + 1, m.nq) and vs.shape == (STEPS + 1, m.nv)
    close(vs, ref_v, 4e-12)
    close(qs, ref_q, 4e-12)


def test_batch_simulate_rows_follow_the_oracle_with_their_own_torques():
    """Three rows, three torque tables, three starting states: row r is the oracle's
    trajectory under torques r (a row given another row's torques, or shifted, fails)."""
    m, pm = get_pair("manipulator")
    rng = np.random.default_rng(12)
    Q0 = np.array([pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
                   for _ in range(3)])
    V0 = rng.normal(size=(3, m.nv))
    T = np.stack([_torques(m.nv, phase) for phase in (0.0, 1.0, 2.0)])
    QS, VS = fd.batch.simulate(m, Q0, V0, T, DT)
    for r in range(3):
        ref_q, ref_v = _oracle(pm, Q0[r], V0[r], T[r])
        close(VS[r], ref_v, 4e-12)
        close(QS[r], ref_q, 4e-12)
