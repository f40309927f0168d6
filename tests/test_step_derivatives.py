"""Transition Jacobians of one simulator step (Scene.step_derivatives) and the parameter
derivative of forward dynamics (compute_aba_parameter_derivatives).

Checked against central finite differences of Scene.step through integrate / difference (the
independent check: it knows nothing of the chain rule), against the same Jacobians composed
from Pinocchio's computeRNEADerivatives, crba and dIntegrate (implicit damping written out
with NumPy), against MuJoCo's mjd_transitionFD on UR5, and against finite differences over
the inertial parameters."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from conftest import close, get_pair, pin, random_state, step_jacobians_by_differences
from fastdyn.kernels import layout as L
from fastdyn.kernels import step_derivatives as step_kernel
from fastdyn.sim.step_derivatives import step_buffers, step_options

# Central differences. At 1e-6 their round-off reached 2.7e-6 of the scale on the humanoid for
# some of Pinocchio's random configurations (the draw depends on the tests run before); at 1e-5
# they stayed within 2e-7 of the analytical Jacobians on 12 draws.
EPS = 1e-5
FD_TOL = 1e-6
DT = 1e-2  # large enough that the dynamics weigh in A and B, not just the identity


def _state(pm, seed):
    rng = np.random.default_rng(seed)
    q, v, tau = random_state(pm, rng)
    return q, v, tau, rng


def _fd_jacobians(scene, q, v, tau, fext=None):
    """A, B by central differences of scene.step (conftest.step_jacobians_by_differences)."""
    return step_jacobians_by_differences(scene.model, lambda *x: scene.step(*x, fext), q, v,
                                         tau, EPS)


def _pinocchio_jacobians(pm, q, v, tau, dt, damping, fext=None, clamped=()):
    """A, B composed from Pinocchio: a = (M + dt D)^-1 (tau - h - D v), the implicit function
    theorem on RNEA(q, v, a) + D (v + dt a) = tau, and dIntegrate at (q, dt v+); a
    free-flyer steps from u = v + dt (a + [w x v_lin; 0]) in the step's start axes
    (kernels/configuration/frozen.py), written out here with Pinocchio's exp3 and Jexp3:
    with x = dt u, E = exp3(x_ang), Jr = Jexp3(x_ang), d q+/d q = [[E^T, -E^T x_lin^],
    [0, E^T]], d q+/d x = [[E^T, 0], [0, Jr]], d v+/d u = [[E^T, (E^T x_lin)^ Jr], [0, I]]."""
    pd = pm.createData()
    nv = pm.nv
    forces = () if fext is None else ([pin.Force(f) for f in fext],)
    M = pin.crba(pm, pd, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.rnea(pm, pd, q, v, np.zeros(nv), *forces)
    Mi = np.linalg.inv(M + dt * np.diag(damping))
    a = Mi @ (tau - h - damping * v)
    dq, dv, _ = pin.computeRNEADerivatives(pm, pd, q, v, a, *forces)
    aq, av = -Mi @ dq, -Mi @ (dv + np.diag(damping))
    at = Mi.copy()
    at[:, list(clamped)] = 0.0
    u = v + dt * a
    Rv = np.eye(nv)
    free = [jm.idx_v for jm in pm.joints[1:] if jm.shortname() == "JointModelFreeFlyer"]
    for iv in free:
        lin, ang = slice(iv, iv + 3), slice(iv + 3, iv + 6)
        u[lin] += dt * np.cross(v[ang], v[lin])
        av[lin, lin] += pin.skew(v[ang])
        av[lin, ang] -= pin.skew(v[lin])
    Gq = pin.dIntegrate(pm, q, dt * u, pin.ARG0)
    Gu = pin.dIntegrate(pm, q, dt * u, pin.ARG1)
    for iv in free:
        lin, ang = slice(iv, iv + 3), slice(iv + 3, iv + 6)
        x = dt * u
        Et, Jr = pin.exp3(x[ang]).T, pin.Jexp3(x[ang])
        Gq[lin, lin], Gq[lin, ang], Gq[ang, ang] = Et, -Et @ pin.skew(x[lin]), Et
        Gu[lin, lin], Gu[lin, ang], Gu[ang, ang] = Et, 0.0, Jr
        Rv[lin, lin], Rv[lin, ang] = Et, pin.skew(Et @ x[lin]) @ Jr
    eye = np.eye(nv)
    A = np.block([[Gq + dt * dt * Gu @ aq, dt * Gu @ (eye + dt * av)],
                  [Rv @ (dt * aq), Rv @ (eye + dt * av)]])
    B = np.vstack([dt * dt * Gu @ at, Rv @ (dt * at)])
    return A, B


CASES = {
    # (robot, scene keywords, damping, armature): which path of the step each one takes
    "ur5": ("ur5", dict(limits=False), 0.0, 0.0),  # no constraint possible: ABA's step
    "solo12": ("solo12", dict(), 0.0, 0.0),  # limits far away: the factorized step
    "solo12_damped": ("solo12", dict(limits=False), 0.7, 0.03),  # implicit damping, armature
}


def _case(name):
    robot, kw, damping, armature = CASES[name]
    m, pm = get_pair(robot)
    if damping or armature:
        P = np.array(m.prm)
        first = 2 if m.joint_type(1) == "freeflyer" else 1  # the base stays as it is
        P[first:, L.P_DAMPING:L.P_DAMPING + 6] = damping
        P[first:, L.P_ARMATURE:L.P_ARMATURE + 6] = armature
        m = m.with_parameters(P)
        pm = pm.copy()
        pm.armature = m.armature.copy()
    return m, pm, fd.Scene(m, dt=DT, ground=False, **kw)


@pytest.mark.parametrize("name", list(CASES))
def test_step_jacobians_match_pinocchio_and_finite_differences(name):
    m, pm, scene = _case(name)
    q, v, tau, rng = _state(pm, 0)
    fext = rng.normal(size=(m.njoints, 6))
    for f in (None, fext):
        A, B = scene.step_derivatives(q, v, tau, f)
        assert A.shape == (2 * m.nv, 2 * m.nv) and B.shape == (2 * m.nv, m.nv)
        pA, pB = _pinocchio_jacobians(pm, q, v, tau, DT, m.damping, f)
        close(A, pA, 1e-9)
        close(B, pB, 1e-9)
    fA, fB = _fd_jacobians(scene, q, v, tau, fext)
    close(A, fA, FD_TOL)
    close(B, fB, FD_TOL)


def test_every_joint_type_against_finite_differences():
    """The humanoid's spherical, ZYX, universal, helical and prismatic joints, where
    Pinocchio's derivatives omit dS/dq: finite differences decide."""
    m, pm = get_pair("humanoid")
    m = m.with_damping("left_knee", 0.5)
    scene = fd.Scene(m, dt=DT, ground=False, limits=False)
    q, v, tau, rng = _state(pm, 1)
    fext = rng.normal(size=(m.njoints, 6))
    A, B = scene.step_derivatives(q, v, tau, fext)
    fA, fB = _fd_jacobians(scene, q, v, tau, fext)
    close(A, fA, FD_TOL)
    close(B, fB, FD_TOL)


def test_clamped_torques_have_zero_columns():
    m, pm, scene = _case("ur5")
    q, v, tau, _ = _state(pm, 2)
    emax = m.effort_limit
    tau[0], tau[3] = -2 * emax[0], emax[3] + 1.0  # beyond the limits
    tau[4] = emax[4]  # exactly at it: the unclamped side
    A, B = scene.step_derivatives(q, v, tau)
    assert not B[:, [0, 3]].any() and np.abs(B[:, 4]).max() > 0
    pA, pB = _pinocchio_jacobians(pm, q, v, np.clip(tau, -emax, emax), DT, m.damping,
                                  clamped=(0, 3))
    close(A, pA, 1e-9)
    close(B, pB, 1e-9)
    tau[4] -= 1.0  # off the limit, for the finite differences
    fA, fB = _fd_jacobians(scene, q, v, tau)
    A, B = scene.step_derivatives(q, v, tau)
    close(A, fA, FD_TOL)
    close(B, fB, FD_TOL)


def test_against_mujoco_transition_fd():
    """MuJoCo's own finite-difference transition Jacobian of its semi-implicit Euler step, on
    the UR5 twin (revolute joints: the tangent space is the coordinates' own)."""
    mujoco = pytest.importorskip("mujoco")
    from mujoco_twin import bare_model, spec
    import fastdyn.models as fm
    m, _ = get_pair("ur5")
    m = bare_model(m)
    s = spec(m, fm.path("ur5", source="example-robot-data"), DT)
    s.option.disableflags |= (mujoco.mjtDisableBit.mjDSBL_CONTACT
                              | mujoco.mjtDisableBit.mjDSBL_LIMIT)
    for j in range(1, m.njoints):
        s.add_actuator(name=m.joint_names[j], target=m.joint_names[j],
                       trntype=mujoco.mjtTrn.mjTRN_JOINT)  # a motor: ctrl is the torque
    mm = s.compile()
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(3)
    q, v, tau = rng.uniform(-1, 1, (3, m.nv))
    ids = [mm.joint(m.joint_names[j]).qposadr[0] for j in range(1, m.njoints)]
    assert ids == list(range(m.nv))  # one chain, the same order
    md.qpos[:], md.qvel[:], md.ctrl[:] = q, v, tau
    nv = m.nv
    A = np.zeros((2 * nv, 2 * nv))
    B = np.zeros((2 * nv, nv))
    mujoco.mjd_transitionFD(mm, md, 1e-7, 1, A, B, None, None)
    fA, fB = fd.Scene(m, dt=DT, ground=False).step_derivatives(q, v, tau)
    close(fA, A, 1e-5)
    close(fB, B, 1e-5)


def test_next_state_and_jacobians_from_user_njit_code():
    """The kernel in an @njit loop: an iLQR-like forward pass taking the Jacobians of every
    step; its states are Scene.step's to the bit, its Jacobians the object API's."""
    m, pm, scene = _case("solo12_damped")
    q, v, tau, _ = _state(pm, 4)
    opt = step_options(scene, m.prm[None])
    ws, fbuf, ibuf, dbuf = step_buffers(scene)
    nv = m.nv
    steps = 5
    QS, VS = np.zeros((steps + 1, m.nq)), np.zeros((steps + 1, nv))
    AS, BS = np.zeros((steps, 2 * nv, 2 * nv)), np.zeros((steps, 2 * nv, nv))
    QS[0], VS[0] = q, v
    code = _forward_pass(m.jnt, m.prm, m.dof, scene.spheres, scene.halfspaces, opt, tau,
                         np.zeros((0, 6)), ws, fbuf, ibuf, dbuf, QS, VS, AS, BS)
    assert code == 0
    for k in range(steps):
        qn, vn = scene.step(QS[k], VS[k], tau)
        assert np.array_equal(qn, QS[k + 1]) and np.array_equal(vn, VS[k + 1])
        A, B = scene.step_derivatives(QS[k], VS[k], tau)
        assert np.array_equal(A, AS[k]) and np.array_equal(B, BS[k])


@numba.njit(cache=False)
def _forward_pass(jnt, prm, dof, sph, hsp, opt, tau, fext, ws, fbuf, ibuf, dbuf, QS, VS, AS,
                  BS):
    for k in range(AS.shape[0]):
        code = step_kernel(jnt, prm, dof, sph, hsp, None, None, opt, QS[k], VS[k], tau, fext, ws,
                           fbuf, ibuf, dbuf, QS[k + 1], VS[k + 1], AS[k], BS[k])
        if code != 0:
            return code
    return 0


# --- refusals and bad input ----------------------------------------------------------------

def test_constraint_rows_are_differentiated_and_rk4_refused():
    """States where limit, friction or contact rows enter the step (their own finite-difference
    checks are in test_step_derivatives_contacts.py): a limit row that ends up pushing nothing
    (lam = 0, fixed) leaves the contact-free Jacobians; a foot far above the ground too."""
    m, pm = get_pair("ur5")
    q, v, tau, _ = _state(pm, 5)
    q[2] = m.upper_position_limit[2] - 1e-4  # a limit row enters the step
    v[2] = -1.0  # moving away from it: the row pushes nothing
    A, B = fd.Scene(m, dt=DT, ground=False).step_derivatives(q, v, tau)
    fA, fB = fd.Scene(m, dt=DT, ground=False, limits=False).step_derivatives(q, v, tau)
    close(A, fA, 1e-12)
    close(B, fB, 1e-12)
    s12, pm12 = get_pair("solo12")
    scene = fd.Scene(s12, dt=DT)  # the ground
    foot = scene.add_sphere("FL_FOOT", 0.02)
    qs = fd.neutral(s12)
    qs[2] = 10.0  # far above: no contact enters, the step is contact-free
    A, B = scene.step_derivatives(qs, np.zeros(s12.nv))
    pA, pB = _pinocchio_jacobians(pm12, qs, np.zeros(s12.nv), np.zeros(s12.nv), DT,
                                  s12.damping)
    close(A, pA, 1e-9)
    assert foot == 0
    with pytest.raises(ValueError, match="rk4"):
        fd.Scene(m, dt=DT, ground=False, limits=False, integrator="rk4").step_derivatives(
            q, v, tau)


def test_bad_input_is_named():
    m, pm = get_pair("solo12")
    scene = fd.Scene(m, dt=DT, ground=False)
    q, v, tau, _ = _state(pm, 6)
    with pytest.raises(ValueError, match=r"q must have shape \(19,\)"):
        scene.step_derivatives(q[:-1], v, tau)
    bad = v.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[3\]"):
        scene.step_derivatives(q, bad, tau)
    with pytest.raises(ValueError, match=r"tau must have shape \(18,\)"):
        scene.step_derivatives(q, v, tau[:3])
    with pytest.raises(ValueError, match="fext .*must have shape"):
        scene.step_derivatives(q, v, tau, np.zeros((m.njoints, 3)))
    qb = q.copy()
    qb[3:7] = [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="quaternion of joint 'root_joint'"):
        scene.step_derivatives(qb, v, tau)
    with pytest.raises(fd.DivergenceError):
        scene.step_derivatives(q, np.full(m.nv, 1e200), tau)


def test_an_edited_scene_is_prepared_again():
    """The single call keeps its options and buffers on the scene: editing the options in
    place (dt, the limits, the integrator) or adding geometry is seen by the next call, which
    then equals a fresh scene's bit for bit."""
    m, pm = get_pair("ur5")
    q, v, tau, _ = _state(pm, 7)
    q[2] = m.upper_position_limit[2] - 1e-5  # a limit row enters the step once limits are on
    v[2] = 1.0  # moving into it: the row pushes
    scene = fd.Scene(m, dt=DT, ground=False, limits=False)
    first = scene.step_derivatives(q, v, tau)
    for edit, fresh in ((lambda s: setattr(s, "dt", 2 * DT),
                         dict(dt=2 * DT, ground=False, limits=False)),
                        (lambda s: s.opt.__setitem__(L.O_LIMITS, 1.0),
                         dict(dt=2 * DT, ground=False, limits=True))):
        edit(scene)
        got = scene.step_derivatives(q, v, tau)
        want = fd.Scene(m, **fresh).step_derivatives(q, v, tau)
        assert all(np.array_equal(g, w) for g, w in zip(got, want))
        assert not np.allclose(got[0], first[0])
        first = got
    scene.opt[L.O_INTEGRATOR] = L.RK4
    with pytest.raises(ValueError, match="rk4"):
        scene.step_derivatives(q, v, tau)
    s12, _ = get_pair("solo12")
    scene = fd.Scene(s12, dt=DT)
    qs = fd.neutral(s12)
    qs[2] = 0.335  # the feet 5 mm into the ground once they are 2 cm spheres
    scene.step_derivatives(qs, np.zeros(s12.nv))
    fresh = fd.Scene(s12, dt=DT)
    for s in (scene, fresh):
        for foot in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"):
            s.add_sphere(foot, 0.02)
    got, want = scene.step_derivatives(qs, np.zeros(s12.nv)), fresh.step_derivatives(
        qs, np.zeros(s12.nv))
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    fresh.step(qs, np.zeros(s12.nv))
    assert fresh.stats[0] == 12  # four contacts: the edit changed the step


def test_massless_subtree_is_singular():
    b = fd.ModelBuilder("massless")
    j1 = b.add_joint("j1", "revolute_z")
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    b.add_joint("j2", "revolute_x", j1, (np.eye(3), (0.2, 0, 0)))  # carries nothing
    m = b.build()
    for kw in (dict(), dict(limits=False)):
        with pytest.raises(fd.SingularMassMatrixError, match="'j2'"):
            fd.Scene(m.with_damping("j1", 0.1) if kw else m, ground=False,
                     **kw).step_derivatives(np.zeros(2), np.zeros(2))


# --- derivatives with respect to the inertial parameters -----------------------------------

@pytest.mark.parametrize("name", ["solo12", "humanoid"])
def test_aba_parameter_derivatives_match_finite_differences(name):
    """d(ddq)/dpi against central differences of ABA over each of the 10 (njoints - 1)
    parameters, moved one at a time through fastdyn.parameter_batch (all at once, one robot
    per row, in fastdyn.batch.aba)."""
    m, pm = get_pair(name)
    m = m.with_armature(m.njoints - 1, 0.02)
    d = m.create_data()
    q, v, tau, rng = _state(pm, 7)
    fext = rng.normal(size=(m.njoints, 6))
    G = fd.compute_aba_parameter_derivatives(m, d, q, v, tau, fext).copy()
    assert G.shape == (m.nv, 10 * (m.njoints - 1))
    close(d.ddq, fd.aba(m, m.create_data(), q, v, tau, fext), 1e-12)
    pi = fd.dynamic_parameters(m).reshape(m.njoints - 1, 10)
    P = pi.size
    step = 1e-6 * np.maximum(1e-3, np.abs(pi.reshape(-1)))  # tiny link inertias: relative
    PI = np.repeat(pi[None], 2 * P, axis=0).reshape(2 * P, P)
    PI[np.arange(P), np.arange(P)] += step
    PI[P + np.arange(P), np.arange(P)] -= step
    PRM = fd.parameter_batch(m, pi=PI.reshape(2 * P, m.njoints - 1, 10))
    DDQ = _aba_rows(m, PRM, q, v, tau, fext)
    ref = ((DDQ[:P] - DDQ[P:]) / (2 * step[:, None])).T
    close(G, ref, 1e-6)


def _aba_rows(m, PRM, q, v, tau, fext):
    out = []
    for r in range(PRM.shape[0]):
        mr = m.with_parameters(PRM[r])
        out.append(fd.aba(mr, mr.create_data(), q, v, tau, fext).copy())
    return np.stack(out)


def test_aba_parameter_derivatives_identity_with_pinocchio_regressor():
    """-M^-1 Y with Pinocchio's M and joint torque regressor at a = ABA (no fext)."""
    m, pm = get_pair("ur5")
    d, pd = m.create_data(), pm.createData()
    q, v, tau, _ = _state(pm, 8)
    G = fd.compute_aba_parameter_derivatives(m, d, q, v, tau)
    a = pin.aba(pm, pd, q, v, tau)
    Y = pin.computeJointTorqueRegressor(pm, pd, q, v, a)
    M = pin.crba(pm, pd, q)
    M = np.triu(M) + np.triu(M, 1).T
    close(G, -np.linalg.solve(M, Y), 1e-9)


def test_aba_parameter_derivatives_bad_input():
    m, pm = get_pair("solo12")
    d = m.create_data()
    q, v, tau, _ = _state(pm, 9)
    with pytest.raises(ValueError, match=r"tau must have shape \(18,\)"):
        fd.compute_aba_parameter_derivatives(m, d, q, v, tau[:2])
    bad = tau.copy()
    bad[1] = np.inf
    with pytest.raises(ValueError, match=r"tau has non-finite entries at indices \[1\]"):
        fd.compute_aba_parameter_derivatives(m, d, q, v, bad)
    with pytest.raises(ValueError, match="not created by"):
        fd.compute_aba_parameter_derivatives(m, fd.samples.humanoid().create_data(), q, v, tau)
    with pytest.raises(fd.NumericalOverflowError):
        fd.compute_aba_parameter_derivatives(m, d, q, np.full(m.nv, 1e200), tau)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_velocity_row_is_reported(bad):
    """finish and flat_rows (kernels/contact/step_derivatives.py) count non-finite entries
    of the velocity rows without a branch: one NaN or infinity anywhere is DIVERGED (detail
    1: the Jacobians), a finite overflow-free row is OK, on a free-flying and a flat model."""
    from fastdyn.kernels.contact import step_derivatives as sd
    for name in ("solo12", "ur5"):
        m, _ = get_pair(name)
        nv = m.nv
        q = fd.neutral(m)
        rng = np.random.default_rng(3)
        A, B = rng.normal(size=(2 * nv, 2 * nv)), rng.normal(size=(2 * nv, nv))
        u, G = np.zeros(nv), np.zeros((nv, nv))
        assert sd.finish(m.jnt, q, np.zeros(nv), DT, u, G, A.copy(), B.copy()) == sd.OK
        for X, r, k in ((A, nv + 1, 2 * nv - 1), (B, 2 * nv - 1, 0)):
            Xb = X.copy()
            Xb[r, k] = bad
            args = (Xb, B.copy()) if X is A else (A.copy(), Xb)
            assert sd.finish(m.jnt, q, np.zeros(nv), DT, u, G, *args) == \
                sd.DIVERGED * sd.CODE + 1
        Aq = rng.normal(size=(nv, nv))
        tau = np.zeros(nv)
        assert sd.flat_rows(DT, tau, tau, Aq, Aq, Aq, A.copy(), B.copy())
        Aq[-1, 0] = bad
        assert not sd.flat_rows(DT, tau, tau, Aq, Aq, Aq, A.copy(), B.copy())
