"""fastdyn.computed_torque (fastdyn/tick.py, kernels/entry/computed_torque.py): the
computed-torque law built from Pinocchio's crba, rnea and difference on the same model and
state; what it leaves in Data equals compute_all_terms'; forward_step after it equals
Pinocchio's aba + semi-implicit Euler; bad references and gains are named."""

import numpy as np
import pytest
from conftest import close, get_pair, needs_pinocchio, random_state, semi_implicit_euler

import fastdyn as fd


def _pin():
    needs_pinocchio()
    import pinocchio as pin
    return pin


def _law(pin, pm, q, v, q_ref, v_ref, a_ref, kp, kd):
    """Pinocchio's M, h and difference, the law in NumPy."""
    pd = pm.createData()
    M = pin.crba(pm, pd, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.rnea(pm, pd, q, v, np.zeros(pm.nv))
    e = pin.difference(pm, q, q_ref)
    return M @ (a_ref + kp * e + kd * (v_ref - v)) + h


@pytest.mark.parametrize("name", ("ur5", "solo12", "humanoid", "tree_free"))
def test_the_law_equals_pinocchios_terms(name):
    pin = _pin()
    m, pm = get_pair(name)
    d = m.create_data()
    rng = np.random.default_rng(0)
    for gains in ("numbers", "arrays"):
        q, v, a_ref = random_state(pm, rng)
        q_ref, v_ref, _ = random_state(pm, rng)
        if gains == "numbers":
            kp, kd = 50.0, 7.0
        else:
            kp, kd = rng.uniform(1, 100, m.nv), rng.uniform(0, 20, m.nv)
        tau = fd.computed_torque(m, d, q, v, q_ref, v_ref, a_ref, kp, kd)
        assert tau is d.tau
        close(tau, _law(pin, pm, q, v, q_ref, v_ref, a_ref, kp, kd), 1e-10)


def test_it_leaves_what_compute_all_terms_leaves_and_the_step_uses_it():
    """The same M, h, J, tracked frame placement and Jacobian as compute_all_terms, to the
    bit; forward_step then solves with the recorded M and h and equals Pinocchio's step."""
    pin = _pin()
    m, pm = get_pair("solo12")
    d, d2 = m.create_data(), m.create_data()
    rng = np.random.default_rng(1)
    q, v, a_ref = random_state(pm, rng)
    q_ref, v_ref, _ = random_state(pm, rng)
    f = m.frame_id("FL_FOOT")
    tau = fd.computed_torque(m, d, q, v, q_ref, v_ref, a_ref, 30.0, 5.0, f, fd.WORLD,
                             com=True)
    fd.compute_all_terms(m, d2, q, v, f, fd.WORLD, com=True)
    for name in ("M", "nle", "J", "J_frame", "Jcom", "com", "vcom", "mass", "ws", "_tick_M"):
        assert np.array_equal(getattr(d, name), getattr(d2, name)), name
    assert np.array_equal(d.oMf[f], d2.oMf[f])
    assert d._tick_x[0] == 1.0  # M and h recorded for the step
    pd = pm.createData()
    dt = 1e-3
    tau = tau.copy()
    qn, vn = fd.forward_step(m, d, q, v, tau, dt)
    assert d._tick_x[0] == 2.0  # it solved with the recorded M (factored now), not ABA
    q_next, v_next = semi_implicit_euler(pm, q, v, pin.aba(pm, pd, q, v, tau), dt)
    close(vn, v_next, 1e-9)
    close(qn, q_next, 1e-9)


def test_zero_gains_and_references_at_the_state_give_inverse_dynamics():
    """kp = kd = 0: tau = M a_ref + h = rnea(q, v, a_ref), Pinocchio's inverse dynamics."""
    pin = _pin()
    m, pm = get_pair("humanoid")
    d = m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(2))
    tau = fd.computed_torque(m, d, q, v, q, v, a, 0.0, 0.0)
    close(tau, pin.rnea(pm, pm.createData(), q, v, a), 1e-10)


def test_bad_references_and_gains_are_named():
    m, pm = get_pair("solo12")
    d = m.create_data()
    rng = np.random.default_rng(3)
    q, v, a = random_state(pm, rng)
    args = dict(q_ref=q.copy(), v_ref=v.copy(), a_ref=a.copy(), kp=10.0, kd=1.0)

    def call(**kw):
        return fd.computed_torque(m, d, q, v, **{**args, **kw})

    bad = q.copy()
    bad[8] = np.nan
    with pytest.raises(ValueError, match=r"q_ref has non-finite entries at indices \[8\]"):
        call(q_ref=bad)
    off = q.copy()
    off[3:7] *= 2.0
    with pytest.raises(ValueError, match="q_ref.*quaternion.*root_joint"):
        call(q_ref=off)
    bad = v.copy()
    bad[2] = np.inf
    with pytest.raises(ValueError, match=r"v_ref has non-finite entries at indices \[2\]"):
        call(v_ref=bad)
    with pytest.raises(ValueError, match=r"a_ref has non-finite entries at indices \[2\]"):
        call(a_ref=bad)
    with pytest.raises(ValueError, match=r"a_ref must have shape \(18,\)"):
        call(a_ref=a[:3])
    with pytest.raises(ValueError, match=r"kp has non-finite entries at indices \[0\]"):
        call(kp=float("nan"))
    gains = np.ones(m.nv)
    gains[5] = np.nan
    with pytest.raises(ValueError, match=r"kd has non-finite entries at indices \[5\]"):
        call(kd=gains)
    with pytest.raises(ValueError, match=r"kp must have shape \(18,\)"):
        call(kp=np.ones(3))
    with pytest.raises(TypeError, match="kd must be a number or an array of 18 floats"):
        call(kd="1.0")
    with pytest.raises(KeyError, match="FL_FOOOT"):
        fd.computed_torque(m, d, q, v, q, v, a, 1.0, 1.0, "FL_FOOOT")
    bad = v.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[0\]"):
        fd.computed_torque(m, d, q, bad, q, v, a, 1.0, 1.0)
    other = fd.samples.manipulator()
    with pytest.raises(ValueError, match="not created by"):
        fd.computed_torque(m, other.create_data(), q, v, q, v, a, 1.0, 1.0)
    # ints and NumPy scalars are numbers too
    close(fd.computed_torque(m, d, q, v, q, v, a, 2, np.float32(1.0)).copy(),
          fd.computed_torque(m, d, q, v, q, v, a, 2.0, 1.0))


def test_the_kernel_runs_in_a_users_njit_loop():
    """kernels.computed_torque_law from a user's @njit function, with M and h from the
    kernels crba and rnea, equals the object API's."""
    import numba

    from fastdyn.kernels import computed_torque_law, crba, rnea

    m, pm = get_pair("ur5")
    rng = np.random.default_rng(4)
    q, v, a = random_state(pm, rng)
    q_ref, v_ref, _ = random_state(pm, rng)
    kp, kd = np.full(1, 40.0), np.full(m.nv, 3.0)

    @numba.njit
    def law(jnt, prm, q, v, q_ref, v_ref, a_ref, kp, kd, ws, M, h, x, tau):
        crba(jnt, prm, q, ws, M, q[:0])
        for k in range(x.shape[0]):
            x[k] = 0.0
        rnea(jnt, prm, q, v, x, ws[:0, :6], ws, h)
        computed_torque_law(jnt, q, v, q_ref, v_ref, a_ref, kp, kd, M, h, x, tau)

    w = fd.kernels.workspace(m.jnt)
    nv = m.nv
    tau = np.empty(nv)
    law(m.jnt, m.prm, q, v, q_ref, v_ref, a, kp, kd, w, np.empty((nv, nv)), np.empty(nv),
        np.empty(nv), tau)
    close(tau, fd.computed_torque(m, m.create_data(), q, v, q_ref, v_ref, a, 40.0, kd),
          1e-13)
