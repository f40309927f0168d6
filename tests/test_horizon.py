"""Scene.horizon: a horizon's states, torques and Jacobians in one call. The oracle is the
step-by-step route it replaces, itself tested against Pinocchio, MuJoCo and finite
differences (tests/test_simulator.py, tests/test_step_derivatives.py): Scene.step after
Scene.reset and Scene.step_derivatives at every step, and the feedback law written out with
fastdyn.difference. Equal bit for bit: the same kernels on the same inputs."""

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.sim.horizon import empty

from test_simulator import standing_quadruped

H = 12


@pytest.fixture(scope="module")
def quadruped():
    """The quadruped on its four feet: contact rows in every step, a free-flyer base (its
    quaternion makes q (-) q_ref a Lie-group difference)."""
    model, q0, feet, _ = standing_quadruped()
    scene = fd.Scene(model, dt=1e-3, mu=0.8)
    for f in feet:
        scene.add_sphere(f, 0.016)
    rng = np.random.default_rng(2)
    U = rng.normal(scale=2.0, size=(H, model.nv))
    return scene, q0, np.zeros(model.nv), U, rng


def _step_by_step(scene, q, v, U):
    Q, V, TAU, A, B = [q], [v], [], [], []
    for u in U:
        scene.reset()
        a, b = scene.step_derivatives(q, v, u)
        q, v = scene.step(q, v, u)
        for x, y in zip((Q, V, TAU, A, B), (q, v, u, a, b)):
            x.append(y)
    return [np.array(x) for x in (Q, V, TAU, A, B)]


def test_the_horizon_is_the_steps_and_their_jacobians(quadruped):
    scene, q0, v0, U, _ = quadruped
    h = scene.horizon(q0, v0, U)
    for name, got, want in zip(("q", "v", "tau", "A", "B"), h, _step_by_step(scene, q0, v0, U)):
        assert np.array_equal(got, want), name


def test_the_feedback_law_is_ilqrs_forward_pass(quadruped):
    """tau_k = U_k + K_k [difference(q_ref,k, q_k); v_k - v_ref,k] at the horizon's own
    states, with references off the trajectory (a first pass) so that dx is not zero; the
    torques so commanded, replayed open loop step by step, give the same horizon bit for bit
    (the law's sums run in another order than NumPy's: equal to round-off only)."""
    scene, q0, v0, U, rng = quadruped
    model, nv = scene.model, scene.model.nv
    ref = scene.horizon(q0, v0, 0.5 * U)
    K = rng.normal(scale=0.5, size=(H, nv, 2 * nv))
    h = scene.horizon(q0, v0, U, gains=K, q_ref=ref.q[:-1], v_ref=ref.v[:-1])
    law = [U[k] + K[k] @ np.concatenate([fd.difference(model, ref.q[k], h.q[k]),
                                         h.v[k] - ref.v[k]]) for k in range(H)]
    # reached: 7e-15 N m, 1.5e-16 of the feedback's largest torque (48 N m)
    np.testing.assert_allclose(h.tau, law, rtol=0, atol=1e-14 * np.abs(h.tau - U).max())
    assert np.abs(h.tau - U).max() > 0.1  # the feedback acted
    for name, got, w in zip(("q", "v", "tau", "A", "B"), h, _step_by_step(scene, q0, v0, h.tau)):
        assert np.array_equal(got, w), name


def test_out_is_filled_in_place_and_checked(quadruped):
    scene, q0, v0, U, _ = quadruped
    out = empty(scene.model, H)
    h = scene.horizon(q0, v0, U, out=out)
    assert all(x is y for x, y in zip(h, out))
    assert np.array_equal(out.q, scene.horizon(q0, v0, U).q)
    bad = out._replace(B=np.empty((H, 2, 2)))
    with pytest.raises(ValueError, match=r"out\.B must be of shape"):
        scene.horizon(q0, v0, U, out=bad)


def test_bad_inputs_are_named(quadruped):
    scene, q0, v0, U, _ = quadruped
    nv = scene.model.nv
    with pytest.raises(ValueError, match="gains, q_ref and v_ref go together"):
        scene.horizon(q0, v0, U, gains=np.zeros((H, nv, 2 * nv)))
    bad = U.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="U .*non-finite"):
        scene.horizon(q0, v0, bad)
    huge = U.copy()
    huge[5] = 1e300  # finite torques whose step overflows: named with its step
    with pytest.raises(fd.errors.DivergenceError, match="step 5 of the horizon"):
        scene.horizon(q0, v0, huge)
    with pytest.raises(ValueError, match=r"U \(one torque vector per step\) must"):
        scene.horizon(q0, v0, U[:, :3])

