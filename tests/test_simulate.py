"""The Lie-group semi-implicit Euler integrator: closed form, energy, manifold."""

import numpy as np
import pytest

import fastdyn as fd
from conftest import get_pair, pin


def test_small_pendulum_matches_closed_form():
    """A point mass on a massless rod: t(t) = t0 cos(sqrt(g/L) t) for small angles."""
    b = fd.ModelBuilder("pendulum")
    j = b.add_joint("hinge", "revolute_y")
    L, m = 0.8, 2.0
    b.add_body(j, m, (0, 0, -L), np.zeros((3, 3)))
    model = b.build()
    t0, dt, T = 1e-3, 1e-4, 2.0
    steps = int(T / dt)
    qs, _ = fd.simulate(model, [t0], [0.0], np.zeros((steps, 1)), dt)
    t = np.arange(steps + 1) * dt
    exact = t0 * np.cos(np.sqrt(9.81 / L) * t)
    # first order in dt, small-angle model: reached 1.75e-4 t0
    assert np.abs(qs[:, 0] - exact).max() < 2e-3 * t0


@pytest.mark.parametrize("name", ["humanoid", "tree_free"])
def test_torque_free_rollout_conserves_energy_to_first_order(name):
    m, pm = get_pair(name)
    g = m.gravity.copy()
    m.gravity = (0, 0, 0)
    try:
        d = m.create_data()
        rng = np.random.default_rng(0)
        q0 = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
        v0 = rng.normal(scale=0.3, size=m.nv)
        drift = []
        for dt in (2e-4, 1e-4):
            steps = int(0.2 / dt)
            qs, vs = fd.simulate(m, q0, v0, np.zeros((steps, m.nv)), dt)
            e = [fd.compute_mechanical_energy(m, d, qs[k], vs[k]) for k in (0, steps)]
            drift.append(abs(e[1] - e[0]) / e[0])
            # the state stays on the manifold: quaternions and (cos, sin) pairs are unit
            assert fd.configuration.is_normalized(m, qs[-1], 1e-9)
    finally:
        m.gravity = g
    assert drift[0] < 1e-3  # reached 1.5e-5 (humanoid), 2.4e-5 (tree_free) at dt = 2e-4
    assert drift[1] < 0.7 * drift[0]  # halving dt shrinks the drift (first-order method)
