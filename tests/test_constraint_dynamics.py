"""fastdyn.constraint_dynamics and impulse_dynamics: against Pinocchio 4.1's constraintDynamics
and impulseDynamics (Solo12 on four point contacts, Talos on two frame contacts, a random tree
of mixed joints with contacts and loop closures), against physical identities that need no
oracle (the equations of motion, the constraint's acceleration, ABA without constraints,
restitution, energy), and on bad input.

Tolerances: the largest errors measured against Pinocchio are 7e-14 relative to the
quantity's largest entry (Talos; 2e-14 on Solo12, the random tree and its loops); TOL allows
about 15x that.
"""

import warnings

import numba
import numpy as np
import pytest

import fastdyn as fd
from conftest import close, get_pair, needs_pinocchio, pin, random_state
from fastdyn.errors import ConstraintError, SingularConstraintError
from fastdyn.kernels import constraint_dynamics, constraint_work_size, impulse_dynamics

TOL = 1e-12  # relative to the largest entry (conftest.close)
SOLO_FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
TALOS_FEET = ("left_sole_link", "right_sole_link")
REFS = (fd.LOCAL, fd.LOCAL_WORLD_ALIGNED)
GAINS = ((0.0, 0.0), (30.0, 4.0))


def _target(k):
    """A world placement to hold a frame to (the Baumgarte term pulls toward it)."""
    a = 0.3 + 0.2 * k
    R = np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
    return R, np.array([0.1 * k, -0.2, 0.05 * k])


def _contacts(model, frames, kinds, ref, gains):
    kp, kd = gains
    return [fd.RigidConstraint(model, kind, f, placement=_target(k), reference=ref, kp=kp, kd=kd)
            for k, (f, kind) in enumerate(zip(frames, kinds))]


# --- the oracle: the same constraints as Pinocchio's RigidConstraintModel -------------------

def _pin_constraint(pm, c, names):
    """Pinocchio's twin of c, from Pinocchio's own frames (names: fastdyn's frame names)."""
    f1 = pm.frames[pm.getFrameId(names[c.frame])]
    R, p = c.placement
    if c.frame2 is None:
        j2, M2 = 0, pin.SE3(R, p)
    else:
        f2 = pm.frames[pm.getFrameId(names[c.frame2])]
        j2, M2 = f2.parentJoint, f2.placement * pin.SE3(R, p)
    kind = pin.ContactType.CONTACT_3D if c.size == 3 else pin.ContactType.CONTACT_6D
    ref = pin.LOCAL if c.reference == fd.LOCAL else pin.LOCAL_WORLD_ALIGNED
    M1 = f1.placement * pin.SE3(*c.placement1)
    cm = pin.RigidConstraintModel(kind, pm, f1.parentJoint, M1, j2, M2, ref)
    cm.m_baumgarte_parameters.Kp = c.kp
    cm.m_baumgarte_parameters.Kd = c.kd
    return cm


def _pinocchio(pm, model, constraints, mu=0.0, iterations=1):
    cms = [_pin_constraint(pm, c, model.frame_names) for c in constraints]
    cds = [cm.createData() for cm in cms]
    pd = pm.createData()
    pin.initConstraintDynamics(pm, pd, cms, cds)
    return pd, cms, cds, pin.ProximalSettings(1e-12, 1e-12, mu, iterations)


def _pin_dynamics(pm, model, constraints, q, v, tau, mu=0.0, iterations=1):
    pd, cms, cds, prox = _pinocchio(pm, model, constraints, mu, iterations)
    ddq = pin.constraintDynamics(pm, pd, q, v, tau, cms, cds, prox).copy()
    return ddq, pd.lambda_c.copy()


def _pin_impulse(pm, model, constraints, q, v, e):
    pd, cms, cds, prox = _pinocchio(pm, model, constraints)
    vp = pin.impulseDynamics(pm, pd, q, v, cms, cds, e, prox).copy()
    return vp, pd.impulse_c.copy()


def _state(pm, seed):
    rng = np.random.default_rng(seed)
    q, v, _ = random_state(pm, rng)
    return q, v, rng.normal(size=pm.nv) * 5.0


CASES = {  # robot: (frames, contact types)
    "solo12": (SOLO_FEET, (3, 3, 3, 3)),
    "talos": (TALOS_FEET, (6, 6)),
    "tree_free": (("j21_universal", "j16_planar", "j24_prismatic_y", "j15_revolute_y"),
                  (6, 3, 3, 6)),
}


@pytest.mark.parametrize("gains", GAINS, ids=("no_gains", "baumgarte"))
@pytest.mark.parametrize("ref", REFS, ids=("local", "lwa"))
@pytest.mark.parametrize("robot", list(CASES))
def test_constraint_dynamics_matches_pinocchio(robot, ref, gains):
    model, pm = get_pair(robot)
    frames, kinds = CASES[robot]
    cs = _contacts(model, frames, kinds, ref, gains)
    data = model.create_data()
    for seed in range(3):
        q, v, tau = _state(pm, seed)
        ddq, lam = fd.constraint_dynamics(model, data, q, v, tau, cs)
        ddq_p, lam_p = _pin_dynamics(pm, model, cs, q, v, tau)
        close(ddq, ddq_p, TOL)
        close(lam, lam_p, TOL)
        assert data.constraint_iterations == 1


@pytest.mark.parametrize("ref", REFS, ids=("local", "lwa"))
@pytest.mark.parametrize("robot", list(CASES))
def test_impulse_dynamics_matches_pinocchio(robot, ref):
    model, pm = get_pair(robot)
    frames, kinds = CASES[robot]
    cs = _contacts(model, frames, kinds, ref, GAINS[1])  # (gains play no part in impulses)
    data = model.create_data()
    for seed, e in ((0, 0.0), (1, 0.4), (2, 1.0)):
        q, v, _ = _state(pm, seed)
        vp, imp = fd.impulse_dynamics(model, data, q, v, cs, restitution=e)
        vp_p, imp_p = _pin_impulse(pm, model, cs, q, v, e)
        close(vp, vp_p, TOL)
        close(imp, imp_p, TOL)


LOOPS = (  # (contact type, frame, frame2) on tree_free: branches that meet only at the base
    (3, "j9_prismatic_x", "j23_revolute_y"),
    (6, "j18_helical", "j14_prismatic_z"),
)


@pytest.mark.parametrize("ref", REFS, ids=("local", "lwa"))
def test_loop_closures_match_pinocchio(ref):
    """A "connect" and a "weld" (with a relative placement) between branches of the tree,
    beside a point contact, with Baumgarte gains: the relative rows and their drift; the
    connect and the contact at points off their frames' origins (placement1)."""
    model, pm = get_pair("tree_free")
    cs = [fd.RigidConstraint(model, kind, a, frame2=b, placement=_target(k), reference=ref,
                             kp=20.0, kd=3.0, placement1=_target(2) if k == 0 else None)
          for k, (kind, a, b) in enumerate(LOOPS)]
    cs.append(fd.RigidConstraint(model, fd.CONTACT_3D, "j16_planar", reference=ref, kd=2.0,
                                 placement1=_target(3)))
    data = model.create_data()
    for seed in range(3):
        q, v, tau = _state(pm, seed)
        ddq, lam = fd.constraint_dynamics(model, data, q, v, tau, cs)
        ddq_p, lam_p = _pin_dynamics(pm, model, cs, q, v, tau)
        close(ddq, ddq_p, TOL)
        close(lam, lam_p, TOL)


# --- identities, no oracle ---------------------------------------------------------------

def _relative_velocity(model, data, q, v, c):
    """J v of a loop closure, from frame velocities alone: the velocity of c1 relative to c2's
    body (points: R^T (p1' - p2'); frames: the twist difference at c1), in c1's rows."""
    fd.forward_kinematics(model, data, q, v)
    M1 = fd.frame_placement(model, data, c.frame).copy()
    R1, p1 = M1[:3, :3], M1[:3, 3]
    w1 = fd.get_frame_velocity(model, data, c.frame, fd.WORLD)  # the bodies' twists at the origin
    w2 = fd.get_frame_velocity(model, data, c.frame2, fd.WORLD)
    if c.size == 3:
        M2 = fd.frame_placement(model, data, c.frame2)
        p2 = M2[:3, 3] + M2[:3, :3] @ c.placement[1]
        u = w1[:3] + np.cross(w1[3:], p1) - w2[:3] - np.cross(w2[3:], p2)
        return R1.T @ u if c.reference == fd.LOCAL else u
    d = w1 - w2
    lin, ang = d[:3] + np.cross(d[3:], p1), d[3:]
    return np.concatenate([R1.T @ lin, R1.T @ ang] if c.reference == fd.LOCAL else [lin, ang])


@pytest.mark.parametrize("ref", REFS, ids=("local", "lwa"))
def test_an_impulse_on_loop_closures_sets_their_relative_velocity(ref):
    """J v+ = -e J v- with J v the relative velocity of the closed frames. (Not against
    Pinocchio: its impulseDynamics reads only the first frame's velocity on a loop, and its
    v+ misses this identity by ~3 m/s here.)"""
    model, pm = get_pair("tree_free")
    cs = [fd.RigidConstraint(model, kind, a, frame2=b, placement=_target(k), reference=ref)
          for k, (kind, a, b) in enumerate(LOOPS)]
    aux = model.create_data()
    q, v, _ = _state(pm, 1)
    for e in (0.0, 0.5):
        vp = fd.impulse_dynamics(model, model.create_data(), q, v, cs, restitution=e)[0].copy()
        for c in cs:
            before = _relative_velocity(model, aux, q, v, c)
            close(_relative_velocity(model, aux, q, vp, c), -e * before, 1e-12)
            assert np.abs(before).max() > 0.5  # (a loop that moves)



def _rows(model, data, q, c):
    """c's rows of J from fastdyn's frame Jacobian (contacts with the world only)."""
    J = fd.compute_frame_jacobian(model, data, q, c.frame, c.reference).copy()
    return J[:c.size]


@pytest.mark.parametrize("robot", list(CASES))
def test_equations_of_motion_and_the_constraint_acceleration_hold(robot):
    """M ddq + h = tau + J^T lam with J from frame_jacobian (the sign and frame of lam), and
    the constraint's acceleration (classical for points, spatial for frames, from
    forward_kinematics at ddq) is Baumgarte's -kp e - kd de/dt; zero without gains."""
    model, pm = get_pair(robot)
    frames, kinds = CASES[robot]
    data, aux = model.create_data(), model.create_data()
    for ref in REFS:
        for gains in GAINS:
            cs = _contacts(model, frames, kinds, ref, gains)
            q, v, tau = _state(pm, 7)
            ddq, lam = (x.copy() for x in fd.constraint_dynamics(model, data, q, v, tau, cs))
            J = np.vstack([_rows(model, aux, q, c) for c in cs])
            M = fd.crba(model, aux, q).copy()
            h = fd.non_linear_effects(model, aux, q, v).copy()
            close(M @ ddq + h, tau + J.T @ lam, TOL)
            fd.forward_kinematics(model, aux, q, v, ddq)
            for k, c in enumerate(cs):
                kp, kd = gains
                Mf = fd.frame_placement(model, aux, c.frame)
                R1, p1 = Mf[:3, :3], Mf[:3, 3]
                Rt, pt = _target(k)
                vel = fd.get_frame_velocity(model, aux, c.frame, fd.LOCAL)  # [v; w] in the frame
                if c.size == 3:
                    acc = fd.get_frame_classical_acceleration(model, aux, c.frame, fd.LOCAL)[:3]
                    want = -kp * R1.T @ (p1 - pt) - kd * vel[:3]
                else:
                    acc = fd.get_frame_acceleration(model, aux, c.frame, fd.LOCAL)
                    e = -pin.log6(pin.SE3(R1, p1).actInv(pin.SE3(Rt, pt))).vector
                    want = -kp * e - kd * vel
                close(acc, want, 1e-10)  # (a difference of ~1e2 terms)


def test_no_constraints_is_aba():
    model, pm = get_pair("tree_free")
    data = model.create_data()
    q, v, tau = _state(pm, 3)
    ddq, lam = fd.constraint_dynamics(model, data, q, v, tau, [])
    assert lam.shape == (0,)
    close(ddq, fd.aba(model, model.create_data(), q, v, tau), 1e-12)
    vp, imp = fd.impulse_dynamics(model, data, q, v, [])
    assert imp.shape == (0,) and np.array_equal(vp, v)


@pytest.mark.parametrize("e", (0.0, 0.5, 1.0))
def test_an_impulse_sets_the_contact_velocity_and_never_adds_energy(e):
    """A point contact: J v+ = -e J v- (restitution 0 stops the point, 1 reverses its
    velocity), the rest of the robot follows M's coupling; the kinetic energy does not
    grow, and e = 1 keeps it (a bilateral, elastic impulse)."""
    model, pm = get_pair("solo12")
    data, aux = model.create_data(), model.create_data()
    c = fd.RigidConstraint(model, fd.CONTACT_3D, "FR_FOOT", reference=fd.LOCAL_WORLD_ALIGNED)
    q, v, _ = _state(pm, 4)
    vp, imp = (x.copy() for x in fd.impulse_dynamics(model, data, q, v, [c], restitution=e))
    J = _rows(model, aux, q, c)
    close(J @ vp, -e * (J @ v), 1e-12)
    M = fd.crba(model, aux, q)
    close(M @ (vp - v), J.T @ imp, 1e-12)
    before, after = 0.5 * v @ M @ v, 0.5 * vp @ M @ vp
    assert after <= before * (1 + 1e-12)
    if e == 1.0:
        close(after, before, 1e-12)
    else:
        assert after < before


# --- redundant sets and the proximal mode ------------------------------------------------

def _redundant(model):
    """Talos's left sole held twice (a frame contact and a point contact at its origin) and
    the right one once: 3 rows depend on the others. Consistent at rest only: a frame
    contact zeroes the spatial acceleration, a point contact the classical one, which differ
    by w x v."""
    return [fd.RigidConstraint(model, fd.CONTACT_6D, "left_sole_link", name="left"),
            fd.RigidConstraint(model, fd.CONTACT_6D, "right_sole_link", name="right"),
            fd.RigidConstraint(model, fd.CONTACT_3D, "left_sole_link", name="left again")]


def test_a_redundant_set_without_mu_names_the_dependent_constraint():
    model, pm = get_pair("talos")
    q, _, tau = _state(pm, 5)
    v = np.zeros(model.nv)
    with pytest.raises(SingularConstraintError, match="'left again': its row 0") as err:
        fd.constraint_dynamics(model, model.create_data(), q, v, tau, _redundant(model))
    assert err.value.constraint == "left again"
    assert "mu > 0" in str(err.value)
    with pytest.raises(SingularConstraintError, match="'left again'"):
        fd.impulse_dynamics(model, model.create_data(), q, v, _redundant(model))


def test_the_proximal_mode_gives_the_least_norm_forces_of_a_redundant_set():
    """ddq as without the duplicate, lam = G^+ b (the least-norm forces, from a dense
    pseudo-inverse here), and Pinocchio's iterations step for step."""
    model, pm = get_pair("talos")
    data = model.create_data()
    cs = _redundant(model)
    q, _, tau = _state(pm, 5)
    v = np.zeros(model.nv)
    ddq, lam = (x.copy() for x in fd.constraint_dynamics(model, data, q, v, tau, cs, mu=1e-6,
                                                         max_iterations=200))
    assert data.constraint_residual <= 1e-12 and data.constraint_iterations < 10  # (3 here)
    ddq_2 = fd.constraint_dynamics(model, data, q, v, tau, cs[:2])[0]
    close(ddq, ddq_2, 1e-14)  # (1.2e-16 here)
    aux = model.create_data()
    J = np.vstack([_rows(model, aux, q, c) for c in cs])
    M = fd.crba(model, aux, q).copy()
    h = fd.non_linear_effects(model, aux, q, v)
    fd.forward_kinematics(model, aux, q, v, np.zeros(model.nv))
    drift = np.concatenate([fd.get_frame_acceleration(model, aux, c.frame, fd.LOCAL) if c.size == 6
                            else fd.get_frame_classical_acceleration(model, aux, c.frame,
                                                                 fd.LOCAL)[:3] for c in cs])
    Minv = np.linalg.inv(M)
    b = -drift - J @ Minv @ (tau - h)
    # (3.4e-11 here: the dense inverse and pseudo-inverse's own round-off)
    close(lam, np.linalg.pinv(J @ Minv @ J.T, rcond=1e-10) @ b, 1e-9)
    # lam has no part in G's null space: the two contacts at the left sole share its force
    close(lam[:3], lam[12:15], 1e-9)
    for iterations in (1, 3):  # too few to converge: the same unconverged steps
        with pytest.warns(fd.ConvergenceWarning, match=f"max_iterations = {iterations} "):
            ddq_i, lam_i = fd.constraint_dynamics(model, data, q, v, tau, cs, mu=1e-3,
                                                  max_iterations=iterations)
        ddq_p, lam_p = _pin_dynamics(pm, model, cs, q, v, tau, mu=1e-3, iterations=iterations)
        close(ddq_i, ddq_p, 1e-11)  # (2e-13 here: Pinocchio solves the regularized KKT)
        close(lam_i, lam_p, 1e-11)


def test_a_conflicting_set_warns_that_the_proximal_iterations_did_not_converge():
    """The same frame held to two different targets by Baumgarte terms: no ddq satisfies
    both, the proximal iterations cannot converge and say so."""
    model, pm = get_pair("talos")
    cs = [fd.RigidConstraint(model, fd.CONTACT_3D, "left_sole_link", placement=_target(k),
                             kp=50.0, name=f"pull {k}") for k in range(2)]
    q, v, tau = _state(pm, 6)
    with pytest.warns(fd.ConvergenceWarning, match="max_iterations = 20"):
        fd.constraint_dynamics(model, model.create_data(), q, v, tau, cs, mu=1e-6,
                               max_iterations=20)


# --- the raw kernels in a user's @njit loop -------------------------------------------------

@numba.njit(cache=False)
def _user_loop(jnt, prm, dof, table, q, v, tau, prox, ws, work, ddq, lam, out):
    """Calls the kernels repeatedly with the caller's buffers (nothing allocated here)."""
    for k in range(out.shape[0]):
        tau[0] = 0.1 * k
        status = constraint_dynamics(jnt, prm, dof, table, q, v, tau, prox, ws, work, ddq, lam)
        out[k] = ddq[-1] + lam[0] + status[0]
    return impulse_dynamics(jnt, prm, dof, table, q, v, 0.5, prox, ws, work, ddq, lam)


def test_the_raw_kernels_run_in_user_njit_code():
    model, pm = get_pair("solo12")
    cs = _contacts(model, SOLO_FEET, (3, 3, 3, 3), fd.LOCAL, GAINS[1])
    table = fd.constraint_table(model, cs)
    m = int(table["kind"].sum())
    assert m == 12 and list(table["row"]) == [0, 3, 6, 9]
    q, v, tau = _state(pm, 8)
    data = model.create_data()
    prox = np.array([0.0, 1.0, 1e-12, 1e-12, 0.0, 0.0, 0.0])
    work = np.empty(constraint_work_size(model.nv, m))
    ddq, lam, out = np.empty(model.nv), np.empty(m), np.empty(3)
    status = _user_loop(model.jnt, model.prm, model.dof, table, q, v, tau.copy(), prox, data.ws,
                        work, ddq, lam, out)
    assert status == (0, 0)
    vp, imp = fd.impulse_dynamics(model, model.create_data(), q, v, cs, restitution=0.5)
    np.testing.assert_array_equal(ddq, vp)
    np.testing.assert_array_equal(lam, imp)
    t = tau.copy()
    t[0] = 0.2
    a, f = fd.constraint_dynamics(model, model.create_data(), q, v, t, cs)
    assert out[2] == a[-1] + f[0]


# --- bad input -------------------------------------------------------------------------------

def _model():
    return get_pair("solo12")[0]


@pytest.mark.parametrize("kwargs, match", [
    (dict(frame="FL_FOT"), r"constraint 'c': frame: .*no frame named 'FL_FOT'"),
    (dict(frame=999), r"constraint 'c': frame: frame index 999 out of range"),
    (dict(frame2="FL_FOT2"), r"constraint 'c': frame2: .*no frame named 'FL_FOT2'"),
    (dict(frame2="FL_FOOT"), r"'c': frame 'FL_FOOT' is constrained to itself"),
    (dict(frame2="FL_ANKLE"), r"'c': frames 'FL_FOOT' and 'FL_ANKLE' are both fixed to joint"),
    (dict(frame="universe"), r"'c': frame 'universe' is fixed to the world"),
    (dict(kp=float("nan")), r"'c': Baumgarte gain kp must be finite, got nan"),
    (dict(kd=float("inf")), r"'c': Baumgarte gain kd must be finite, got inf"),
    (dict(kd=-1.0), r"'c': Baumgarte gain kd must be >= 0"),
    (dict(kp=10.0), r"'c': kp = 10.0 pulls frame 'FL_FOOT' to its target"),
    (dict(reference=fd.WORLD), r"'c': reference must be fastdyn.LOCAL or"),
    (dict(reference=7), r"'c': reference must be fastdyn.LOCAL \(0\)"),
    (dict(contact_type=1), r"'c': contact_type must be fastdyn.CONTACT_3D"),
    (dict(placement=np.ones((4, 4))), r"'c': placement's rotation is not a rotation matrix"),
    (dict(placement=(np.eye(3), [0.0, np.nan, 0.0])), r"'c': placement's position has non"),
    (dict(placement=np.eye(3)), r"'c': placement \(a 4x4 homogeneous matrix or an \(R, p\)"),
])
def test_a_bad_constraint_is_refused_naming_it(kwargs, match):
    args = dict(contact_type=fd.CONTACT_3D, frame="FL_FOOT", name="c")
    args.update(kwargs)
    with pytest.raises(ConstraintError, match=match) as err:
        fd.RigidConstraint(_model(), **args)
    assert err.value.constraint == "c"


def test_a_default_name_is_the_frames_and_pinocchio_enums_get_a_hint():
    needs_pinocchio()
    with pytest.raises(ConstraintError, match=r"'FL_FOOT-HR_FOOTx': frame2: .*'HR_FOOTx'"):
        fd.RigidConstraint(_model(), 3, "FL_FOOT", frame2="HR_FOOTx")
    with pytest.raises(ConstraintError, match="a Pinocchio ContactType"):
        fd.RigidConstraint(_model(), pin.ContactType.CONTACT_3D, "FL_FOOT")
    with pytest.raises(ConstraintError, match="a Pinocchio ReferenceFrame"):
        fd.RigidConstraint(_model(), 3, "FL_FOOT", reference=pin.LOCAL)


def test_constraints_are_immutable_pickle_and_belong_to_their_model():
    import pickle
    model = _model()
    c = fd.RigidConstraint(model, 6, "FL_FOOT", name="foot")
    with pytest.raises(AttributeError, match="'foot'"):
        c.kp = 3.0
    with pytest.raises(ValueError):
        c.placement[0][0, 0] = 2.0  # read-only
    c2 = pickle.loads(pickle.dumps(c))
    assert c2.name == "foot" and c2.record == c.record and c2.size == 6
    with pytest.raises(ValueError):
        c2.record["kp"] = 1.0  # the copy is as immutable
    other = fd.samples.humanoid()
    with pytest.raises(ConstraintError, match="'foot': it was built for another model"):
        fd.constraint_table(other, [c])
    with pytest.raises(TypeError, match=r"constraints\[1\] must be a fastdyn.RigidConstraint"):
        fd.constraint_table(model, [c, "FL_FOOT"])


def test_bad_arguments_of_the_calls_are_refused():
    model, pm = get_pair("solo12")
    data = model.create_data()
    cs = _contacts(model, SOLO_FEET, (3, 3, 3, 3), fd.LOCAL, GAINS[0])
    q, v, tau = _state(pm, 9)
    with pytest.raises(ValueError, match="v must have shape"):
        fd.constraint_dynamics(model, data, q, v[:-1], tau, cs)
    with pytest.raises(ValueError, match="tau has non-finite"):
        fd.constraint_dynamics(model, data, q, v, np.full(model.nv, np.nan), cs)
    with pytest.raises(ValueError, match="quaternion"):
        fd.constraint_dynamics(model, data, 2 * q, v, tau, cs)
    bad = q.copy()
    bad[8] = np.nan
    with pytest.raises(ValueError, match=r"q has non-finite entries at indices \[8\]"):
        fd.constraint_dynamics(model, data, bad, v, tau, cs)
    with pytest.raises(ValueError, match=r"v_before has non-finite entries at indices \[8\]"):
        fd.impulse_dynamics(model, data, q, bad[:model.nv], cs)
    with pytest.raises(fd.NumericalOverflowError, match="overflow"):
        fd.constraint_dynamics(model, data, q, np.full(model.nv, 1e200), tau, cs)
    # and the Data still serves (a refused call leaves nothing stale)
    close(fd.constraint_dynamics(model, data, q, v, tau, cs)[0],
          fd.constraint_dynamics(model, model.create_data(), q, v, tau, cs)[0], 0.0)
    with pytest.raises(ValueError, match="mu must be >= 0"):
        fd.constraint_dynamics(model, data, q, v, tau, cs, mu=-1.0)
    with pytest.raises(ValueError, match="max_iterations must be >= 1"):
        fd.constraint_dynamics(model, data, q, v, tau, cs, mu=1e-6, max_iterations=0)
    with pytest.raises(ValueError, match=r"restitution must be in \[0, 1\]"):
        fd.impulse_dynamics(model, data, q, v, cs, restitution=1.5)
    with pytest.raises(ValueError, match="not created by"):
        fd.constraint_dynamics(model, fd.samples.humanoid().create_data(), q, v, tau, cs)
