"""Kernels called from a user's own @njit code: a computed-torque controller loop."""

import numba
import numpy as np

import fastdyn as fd
from fastdyn.kernels import aba, integrate, rnea


@numba.njit(cache=False)
def computed_torque_rollout(jnt, gravity, q, v, q_ref, kp, kd, dt, steps, fext, ws, a_des,
                            tau, ddq, q_next):
    """tau = rnea(q, v, kp (q_ref - q) - kd v); the plant is aba; the step is a Lie-group
    integrate. The closed loop is then e'' = -kp e - kd e' exactly (a revolute arm: q and v
    share indices)."""
    for _ in range(steps):
        for k in range(q.shape[0]):
            a_des[k] = kp * (q_ref[k] - q[k]) - kd * v[k]
        rnea(jnt, gravity, q, v, a_des, fext, ws, tau)
        aba(jnt, gravity, q, v, tau, fext, ws, ddq)
        for k in range(v.shape[0]):
            v[k] += dt * ddq[k]
        integrate(jnt, q, v, dt, q_next)
        q[:] = q_next
    return q


def test_computed_torque_in_user_njit_reaches_the_target():
    model = fd.samples.manipulator()
    data = model.create_data()
    q = np.zeros(model.nq)
    v = np.zeros(model.nv)
    q_ref = np.linspace(-0.5, 0.5, model.nq)
    nv = model.nv
    computed_torque_rollout(model.jnt, model.prm, q, v, q_ref, 100.0, 20.0, 1e-3, 3000,
                            np.zeros((0, 6)), data.ws, np.empty(nv), data.tau, data.ddq,
                            np.empty(model.nq))
    # critically damped at 10 rad/s: after 3 s the error is ~ (1 + 30) e^-30 of the start
    assert np.abs(q - q_ref).max() < 1e-6
    assert np.abs(v).max() < 1e-5


def test_a_workspace_from_the_kernels_constructor_serves_the_kernels():
    """fastdyn.kernels.workspace gives what Data.ws holds (a np.zeros one would give NaN)."""
    import numpy as np

    import fastdyn as fd
    from fastdyn.kernels import rnea, workspace
    m = fd.samples.humanoid()
    q = fd.random_configuration(m, 2)
    v, a = np.ones(m.nv), np.zeros(m.nv)
    tau = np.empty(m.nv)
    ws = workspace(m.jnt)
    assert np.array_equal(ws, m.create_data().ws)
    rnea(m.jnt, m.prm, q, v, a, np.zeros((0, 6)), ws, tau)
    np.testing.assert_array_equal(tau, fd.rnea(m, m.create_data(), q, v, a))
    assert workspace(m.jnt, 3).shape == (3, m.njoints, ws.shape[1])
    assert np.array_equal(workspace(m.jnt, 3)[2], workspace(m.njoints))
