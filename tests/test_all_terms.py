"""fastdyn.compute_all_terms and fastdyn.forward_step (fastdyn/tick.py), against Pinocchio's
computeAllTerms, updateFramePlacements, getFrameJacobian, aba and integrate on the same model
and state; the bench's three control loops (bench/tick_loops.py) against each other."""

import importlib.util
import warnings
from pathlib import Path

import numba
import numpy as np
import pytest
from conftest import close, get_pair, needs_pinocchio, random_state, semi_implicit_euler

import fastdyn as fd
from fastdyn.kernels import all_terms

MODELS = ("ur5", "solo12", "humanoid", "tree_free", "tree_planar", "manipulator")


def _pin():
    needs_pinocchio()
    import pinocchio as pin
    return pin


def _oMf(pd, k):
    M = pd.oMf[k]
    return np.concatenate([M.rotation.ravel(), M.translation])


@pytest.mark.parametrize("name", MODELS)
def test_every_term_equals_pinocchio(name):
    pin = _pin()
    m, pm = get_pair(name)
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(0)
    for _ in range(3):
        q, v, _a = random_state(pm, rng)
        assert fd.compute_all_terms(m, d, q, v) is None
        pin.computeAllTerms(pm, pd, q, v)
        pin.updateFramePlacements(pm, pd)
        # Pinocchio keeps subtree coms and their velocities in the joint frames; ours are
        # in the world frame (fastdyn.center_of_mass's)
        pc = pm.createData()
        pin.centerOfMass(pm, pc, q, v, True)
        pin.forwardKinematics(pm, pc, q)
        close(d.com[0], pd.com[0])
        close(d.vcom[0], pd.vcom[0])
        close(np.triu(d.M), np.triu(pd.M))
        assert np.array_equal(d.M, d.M.T)  # both triangles, symmetric to the bit
        close(d.nle, pd.nle)
        close(d.J, pd.J)
        close(d.Jcom, pd.Jcom)
        for i in range(m.njoints):
            close(d.oMi_R[i], pd.oMi[i].rotation)
            close(d.oMi_p[i], pd.oMi[i].translation)
            close(d.v[i], pd.v[i].vector)  # LOCAL velocities, linear first
            close(d.com[i], pc.oMi[i].act(pc.com[i]))  # subtree coms, velocities, masses
            close(d.vcom[i], pc.oMi[i].rotation @ pc.vcom[i])
            close(d.mass[i], pc.mass[i])
        for k in range(m.nframes):
            close(d.oMf[k], _oMf(pd, k))


@pytest.mark.parametrize("name", ("ur5", "solo12", "tree_free"))
def test_one_tracked_frame_placement_and_jacobian(name):
    pin = _pin()
    m, pm = get_pair(name)
    d, pd = m.create_data(), pm.createData()
    q, v, _a = random_state(pm, np.random.default_rng(1))
    f = m.nframes - 1
    refs = {fd.LOCAL: pin.LOCAL, fd.WORLD: pin.WORLD,
            fd.LOCAL_WORLD_ALIGNED: pin.LOCAL_WORLD_ALIGNED}
    pin.computeJointJacobians(pm, pd, q)
    pin.updateFramePlacements(pm, pd)
    for ref, pref in refs.items():
        d.oMf[:] = 7.0  # the other rows must be left alone
        fd.compute_all_terms(m, d, q, v, m.frame_names[f], ref, com=False)
        close(d.J_frame, pin.getFrameJacobian(pm, pd, f, pref))
        close(d.oMf[f], _oMf(pd, f))
        assert np.all(d.oMf[:f] == 7.0)
    # the frame Jacobian is fastdyn's own frame_jacobian to rounding
    close(d.J_frame, fd.compute_frame_jacobian(m, m.create_data(), q, f, fd.LOCAL_WORLD_ALIGNED), 1e-13)


def test_com_false_leaves_the_com_arrays_and_the_rest_still_matches():
    pin = _pin()
    m, pm = get_pair("solo12")
    d, pd = m.create_data(), pm.createData()
    q, v, _a = random_state(pm, np.random.default_rng(2))
    d.com[:] = d.Jcom[:] = 3.0
    fd.compute_all_terms(m, d, q, v, com=False)
    assert np.all(d.com == 3.0) and np.all(d.Jcom == 3.0)
    pin.computeAllTerms(pm, pd, q, v)
    close(d.nle, pd.nle)
    close(np.triu(d.M), np.triu(pd.M))


def test_kinematics_are_fresh_for_the_velocity_queries():
    """compute_all_terms leaves what forward_kinematics(q, v) does: frame velocities follow."""
    pin = _pin()
    m, pm = get_pair("tree_free")
    d, pd = m.create_data(), pm.createData()
    q, v, _a = random_state(pm, np.random.default_rng(3))
    fd.compute_all_terms(m, d, q, v)
    pin.forwardKinematics(pm, pd, q, v)
    pin.updateFramePlacements(pm, pd)
    f = m.nframes - 1
    close(fd.get_frame_velocity(m, d, f, fd.WORLD),
          pin.getFrameVelocity(pm, pd, f, pin.WORLD).vector)


@pytest.mark.parametrize("name", ("ur5", "solo12", "tree_planar"))
def test_forward_step_is_aba_then_semi_implicit_euler(name):
    pin = _pin()
    m, pm = get_pair(name)
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(4)
    dt = 2e-3
    for with_f in (False, True):
        q, v, _a = random_state(pm, rng)
        tau = rng.normal(size=m.nv)
        fext = rng.normal(size=(m.njoints, 6)) if with_f else None
        pf = [pin.Force(x) for x in fext] if with_f else None
        ddq = pin.aba(pm, pd, q, v, tau, pf) if with_f else pin.aba(pm, pd, q, v, tau)
        q_next, v_next = semi_implicit_euler(pm, q, v, ddq, dt)
        qn, vn = fd.forward_step(m, d, q, v, tau, dt, fext)
        assert qn is d.q_next and vn is d.v_next
        close(d.ddq, ddq, 1e-9)
        close(vn, v_next, 1e-9)
        close(qn, q_next, 1e-9)


def test_forward_step_may_take_its_own_outputs_back():
    """q, v = forward_step(..., q, v, ...) with q, v the Data's own arrays: each entry is read
    before it is written, so the step is the one from copies."""
    m, pm = get_pair("solo12")
    d, ref = m.create_data(), m.create_data()
    q, v, _a = random_state(pm, np.random.default_rng(5))
    tau = np.linspace(-1.0, 1.0, m.nv)
    qa, va = q.copy(), v.copy()
    qb, vb = q, v
    for _ in range(20):
        qa, va = (x.copy() for x in fd.forward_step(m, ref, qa, va, tau, 1e-3))
        qb, vb = fd.forward_step(m, d, qb, vb, tau, 1e-3)
    assert qb is d.q_next and vb is d.v_next
    assert np.array_equal(qa, qb) and np.array_equal(va, vb)


@pytest.mark.parametrize("robot", ("ur5", "solo12"))
def test_the_three_bench_loops_give_one_trajectory(robot):
    """bench/tick_loops.py: Pinocchio's loop, fastdyn's single calls, fastdyn's fused calls,
    the compiled law; the same q, v and tool placement at each of 100 ticks. The fused and
    compiled ticks step with fastdyn.forward_step, whose free-flyer step (frozen axes) the
    first two do not take: on Solo12 they are held to Pinocchio's loop with
    ``conftest.semi_implicit_euler``."""
    _pin()
    # by path: the repository root is not on sys.path when fastdyn is installed (CI)
    spec = importlib.util.spec_from_file_location(
        "tick_loops", Path(__file__).resolve().parents[1] / "bench" / "tick_loops.py")
    tick_loops = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tick_loops)
    Loop, placement = tick_loops.Loop, tick_loops.placement

    loop = Loop(robot)
    frozen = loop.pinocchio_tick(
        lambda q, v, a: semi_implicit_euler(loop.pm, q, v, a, tick_loops.DT))
    ticks = (loop.pinocchio_tick(), loop.fastdyn_tick(), frozen, loop.fused_tick(),
             loop.compiled_tick())
    states = [(loop.q0.copy(), loop.v0.copy())] * len(ticks)
    for _ in range(100):
        out = [t(q, v) for t, (q, v) in zip(ticks, states)]
        states = [(q, v) for q, v, _X in out]
        for ref, others in ((out[0], out[1:2]), (out[2], out[3:])):
            X0 = placement(ref[2])
            for q, v, X in others:
                close(q, ref[0])
                close(v, ref[1])
                close(placement(X), X0)
    if robot == "ur5":  # no free-flyer: one trajectory
        close(states[2][0], states[0][0])
    # the loop moved: 100 ticks of 1 ms from a random start with v0 != 0
    assert np.abs(states[0][0] - loop.q0).max() > 1e-3


def test_bad_inputs_name_the_cause():
    m, pm = get_pair("solo12")
    d = m.create_data()
    q, v, _a = random_state(pm, np.random.default_rng(6))
    with pytest.raises(ValueError, match=r"q must have shape \(19,\)"):
        fd.compute_all_terms(m, d, q[:-1], v)
    with pytest.raises(ValueError, match=r"v must have shape \(18,\)"):
        fd.compute_all_terms(m, d, q, np.zeros(3))
    bad = v.copy()
    bad[4] = np.nan
    with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[4\]"):
        fd.compute_all_terms(m, d, q, bad)
    off = q.copy()
    off[3:7] *= 1.5
    with pytest.raises(ValueError, match="quaternion.*root_joint.*normalize"):
        fd.compute_all_terms(m, d, off, v)
    with pytest.raises(KeyError, match="FL_FOOOT"):
        fd.compute_all_terms(m, d, q, v, "FL_FOOOT")
    with pytest.raises(IndexError, match="frame index 99"):
        fd.compute_all_terms(m, d, q, v, 99)
    with pytest.raises(ValueError, match="reference must be"):
        fd.compute_all_terms(m, d, q, v, 3, reference=7)
    with pytest.raises(TypeError, match="com must be True or False"):
        fd.compute_all_terms(m, d, q, v, com=1)
    other = fd.samples.manipulator()
    with pytest.raises(ValueError, match="not created by"):
        fd.compute_all_terms(m, other.create_data(), q, v)
    with pytest.raises(TypeError, match="data must be a fastdyn.Data"):
        fd.compute_all_terms(m, None, q, v)
    with pytest.raises(TypeError, match="model must be a fastdyn.Model"):
        fd.compute_all_terms(pm, d, q, v)
    tau = np.zeros(m.nv)
    with pytest.raises(ValueError, match=r"tau must have shape \(18,\)"):
        fd.forward_step(m, d, q, v, tau[1:], 1e-3)
    for dt in (0.0, -1e-3, float("nan")):
        with pytest.raises(ValueError, match="dt must be"):
            fd.forward_step(m, d, q, v, tau, dt)
    with pytest.raises(TypeError, match="dt must be a real number"):
        fd.forward_step(m, d, q, v, tau, "1e-3")
    with pytest.raises(ValueError, match="fext"):
        fd.forward_step(m, d, q, v, tau, 1e-3, np.zeros((2, 6)))
    with pytest.raises(ValueError, match="quaternion.*root_joint"):
        fd.forward_step(m, d, off, v, tau, 1e-3)
    with pytest.raises(ValueError, match="not created by"):
        fd.forward_step(m, other.create_data(), q, v, tau, 1e-3)


def test_a_rebound_data_array_is_refused_not_overrun():
    m, pm = get_pair("ur5")
    q, v, _a = random_state(pm, np.random.default_rng(7))
    d = m.create_data()
    d.M = np.zeros((2, 2))  # forbidden, but the compiled call must not write past it
    with pytest.raises(ValueError, match="do not fit"):
        fd.compute_all_terms(m, d, q, v)
    d = m.create_data()
    d.q_next = np.zeros(2)
    with pytest.raises(ValueError, match="do not fit"):
        fd.forward_step(m, d, q, v, np.zeros(m.nv), 1e-3)


def test_overflow_and_divergence_are_reported():
    m, pm = get_pair("ur5")
    d = m.create_data()
    q, v, _a = random_state(pm, np.random.default_rng(8))
    with pytest.raises(fd.NumericalOverflowError, match=r"\|v\|"):
        fd.compute_all_terms(m, d, q, np.full(m.nv, 1e200))
    with pytest.raises(fd.NumericalOverflowError, match="forward_step"):
        fd.forward_step(m, d, q, v, np.full(m.nv, 1e307), 1e3)


def _step_from_scratch(m, q, v, tau, dt, fext=None):
    """forward_step on a fresh Data: ABA, no record to reuse."""
    return tuple(x.copy() for x in fd.forward_step(m, m.create_data(), q, v, tau, dt, fext))


@pytest.mark.parametrize("name", ("ur5", "solo12", "humanoid", "tree_free"))
def test_a_step_after_compute_all_terms_solves_with_its_m_and_h(name):
    """Same (q, v), same model, no fext: ddq from the recorded M and h (the factor is kept:
    _tick_x[0] becomes 2); the step equals ABA's to rounding, for two torques in a row."""
    m, pm = get_pair(name)
    d = m.create_data()
    rng = np.random.default_rng(11)
    q, v, _a = random_state(pm, rng)
    fd.compute_all_terms(m, d, q, v)
    assert d._tick_x[0] == 1.0
    for _ in range(2):
        tau = rng.normal(size=m.nv)
        qn, vn = fd.forward_step(m, d, q, v, tau, 1e-3)
        assert d._tick_x[0] == 2.0  # the recorded M was factored and used
        ref_q, ref_v = _step_from_scratch(m, q, v, tau, 1e-3)
        close(vn, ref_v, 1e-12)
        close(qn, ref_q, 1e-12)


def test_the_record_is_used_only_for_its_own_state_and_model():
    m, pm = get_pair("solo12")
    rng = np.random.default_rng(12)
    q, v, _a = random_state(pm, rng)
    tau = rng.normal(size=m.nv)

    def recorded_data(model=m):
        d = model.create_data()
        fd.compute_all_terms(model, d, q, v)
        return d

    # another q, another v, external forces: ABA, the record left unused (still 1)
    fext = rng.normal(size=(m.njoints, 6))
    for args, fx in (((q * 1.0, v + 1e-9), None), ((fd.normalize(m, q + 1e-3), v), None),
                     ((q, v), fext)):
        d = recorded_data()
        qn, vn = fd.forward_step(m, d, *args, tau, 1e-3, fx)
        assert d._tick_x[0] == 1.0
        ref_q, ref_v = _step_from_scratch(m, *args, tau, 1e-3, fx)
        assert np.array_equal(vn, ref_v) and np.array_equal(qn, ref_q)
    # a variant of the model (same joints, the same Data fits it) or a new gravity
    heavy = m.with_inertia(3, mass=float(m.mass[3]) * 2.0)
    d = recorded_data()
    qn, vn = fd.forward_step(heavy, d, q, v, tau, 1e-3)
    assert d._tick_x[0] == 1.0
    assert np.array_equal(vn, _step_from_scratch(heavy, q, v, tau, 1e-3)[1])
    moon = m.with_gravity((0.0, 0.0, -1.62))
    d = recorded_data(moon)
    moon.gravity = (0.0, 0.0, -9.81)  # in place: the same prm array, another gravity
    vn = fd.forward_step(moon, d, q, v, tau, 1e-3)[1].copy()
    assert d._tick_x[0] == 1.0
    assert np.array_equal(vn, _step_from_scratch(moon, q, v, tau, 1e-3)[1])
    # a failed compute_all_terms leaves no record behind
    d = recorded_data()
    with pytest.raises(fd.NumericalOverflowError):
        fd.compute_all_terms(m, d, q, np.full(m.nv, 1e200))
    fd.forward_step(m, d, q, v, tau, 1e-3)
    assert d._tick_x[0] == 0.0


def test_a_pickled_data_steps_by_aba():
    import pickle
    m, pm = get_pair("ur5")
    q, v, _a = random_state(pm, np.random.default_rng(13))
    d = m.create_data()
    fd.compute_all_terms(m, d, q, v)
    d2 = pickle.loads(pickle.dumps(d))
    tau = np.ones(m.nv)
    qn, vn = fd.forward_step(m, d2, q, v, tau, 1e-3)
    assert d2._tick_x[0] == 1.0  # its parameters are a copy: not vouched for
    assert np.array_equal(vn, _step_from_scratch(m, q, v, tau, 1e-3)[1])


def test_a_massless_subtree_is_reported():
    b = fd.ModelBuilder("massless")
    j1 = b.add_joint("j1", "revolute_z")
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    b.add_joint("j2", "revolute_x", j1, (np.eye(3), (0.2, 0, 0)))  # carries nothing
    m = b.build()
    d = m.create_data()
    d.q_next[:] = 5.0
    with pytest.raises(fd.SingularMassMatrixError, match="j2"):
        fd.forward_step(m, d, np.zeros(2), np.zeros(2), np.zeros(2), 1e-3)
    assert np.all(d.q_next == 5.0)  # nothing written
    fd.compute_all_terms(m, d, np.zeros(2), np.zeros(2))  # M singular: the recorded route
    with pytest.raises(fd.SingularMassMatrixError, match="j2"):
        fd.forward_step(m, d, np.zeros(2), np.zeros(2), np.zeros(2), 1e-3)
    assert np.all(d.q_next == 5.0)


def test_a_mimic_model_is_refused_with_its_name():
    import fastdyn.models as fm
    from fastdyn._internal.checks import MimicNotSupportedError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = fd.load_urdf(str(fm.path("panda", source="example-robot-data")), mimic=True)
    d = m.create_data()
    q, v = fd.neutral(m), np.zeros(m.nv)
    with pytest.raises(MimicNotSupportedError, match="compute_all_terms"):
        fd.compute_all_terms(m, d, q, v)
    with pytest.raises(MimicNotSupportedError, match="forward_step"):
        fd.forward_step(m, d, q, v, np.zeros(m.nv), 1e-3)


@numba.njit(cache=False)
def _terms_along(jnt, prm, frm, Q, V, ws, oMf, M, nle, J, mass, com, vcom, acom, Jcom, zero,
                 out):
    """A user's own loop: all_terms at each state, keep h(q, v)."""
    for r in range(Q.shape[0]):
        all_terms(jnt, prm, frm, Q[r], V[r], -1, True, ws, oMf, M, nle, J, mass, com, vcom,
                  acom, Jcom, zero)
        for k in range(nle.shape[0]):
            out[r, k] = nle[k]


def test_the_kernel_runs_in_a_users_njit_loop():
    pin = _pin()
    m, pm = get_pair("tree_free")
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(9)
    states = [random_state(pm, rng)[:2] for _ in range(4)]
    Q = np.array([s[0] for s in states])
    V = np.array([s[1] for s in states])
    out = np.empty((4, m.nv))
    _terms_along(m.jnt, m.prm, m.frm, Q, V, d.ws, d.oMf, d.M, d.nle, d.J, d.mass, d.com,
                 d.vcom, d.acom, d.Jcom, np.empty(m.nv), out)
    for r in range(4):
        close(out[r], pin.nonLinearEffects(pm, pd, Q[r], V[r]))
    pin.computeAllTerms(pm, pd, Q[-1], V[-1])  # the last state's other terms stay in Data
    close(np.triu(d.M), np.triu(pd.M))
    close(d.Jcom, pd.Jcom)


def test_a_model_without_joints():
    m = fd.ModelBuilder("empty").build()
    d = m.create_data()
    fd.compute_all_terms(m, d, np.zeros(0), np.zeros(0))
    assert d.M.shape == (0, 0) and d.mass[0] == 0.0
    q, v = fd.forward_step(m, d, np.zeros(0), np.zeros(0), np.zeros(0), 1e-3)
    assert q.shape == v.shape == (0,)


def test_after_a_step_the_placements_are_not_taken_for_the_new_state():
    m, pm = get_pair("ur5")
    d = m.create_data()
    q, v, _a = random_state(pm, np.random.default_rng(10))
    fd.compute_all_terms(m, d, q, v)
    fd.frame_placement(m, d, "tool0")  # fresh after compute_all_terms
    fd.forward_step(m, d, q, v, np.zeros(m.nv), 1e-3)
    with pytest.raises(RuntimeError, match="forward_kinematics"):
        fd.frame_placement(m, d, "tool0")


def test_the_record_does_not_count_the_models_table_in_data_nbytes():
    m, pm = get_pair("talos")
    d = m.create_data()
    before = d.nbytes
    fd.compute_all_terms(m, d, fd.neutral(m), np.zeros(m.nv))
    assert d.nbytes == before
