"""The topology + parameters split: a model's parameter table, its derived inertia views, and
batches of robots in fastdyn.batch (``prm=``).

Oracles: Pinocchio on models whose inertias, placements and gravity were edited through its
own types (to_pinocchio + pin.Inertia / pin.SE3), row by row; the regressor identity
rnea = Y pi + armature a (Y from Pinocchio's computeJointTorqueRegressor); ABA inverting RNEA
robot by robot."""

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.kernels import layout
from conftest import close, needs_pinocchio, pin


@pytest.fixture(scope="module")
def arm():
    return fd.samples.manipulator()


@pytest.fixture(scope="module")
def legged():
    return fd.samples.humanoid()  # a free-flyer: quaternions in q, many bodies


def _states(m, n, seed=0):
    rng = np.random.default_rng(seed)
    Q = np.stack([fd.random_configuration(m, seed + k) for k in range(n)])
    return Q, rng.normal(size=(n, m.nv)), rng.normal(size=(n, m.nv))


def test_inertia_is_stored_once_and_the_views_agree_with_pinocchio(legged):
    needs_pinocchio()
    from oracle import to_pinocchio
    pm = to_pinocchio(legged)
    m = legged
    assert "mass" not in m.jnt.dtype.names and "pi" not in m.jnt.dtype.names
    assert m.prm.shape == (m.njoints, layout.NP) and not m.prm.flags.writeable
    for i in range(1, m.njoints):
        Y = pm.inertias[i]
        close(m.params["pi"][i], Y.toDynamicParameters(), 1e-12)
        close(m.mass[i], Y.mass, 1e-12)
        if Y.mass > 0:
            close(m.com[i], Y.lever, 1e-12)
        close(m.inertia[i], Y.inertia, 1e-12)
    for view in (m.mass, m.com, m.inertia, m.params, m.gravity):
        with pytest.raises(ValueError):
            view.flat[0] = 1.0
    assert np.shares_memory(m.mass, m.prm) and np.shares_memory(m.gravity, m.prm)


def test_gravity_lives_in_the_universe_row(arm):
    m = arm.with_gravity((0.0, 1.0, -3.0))
    assert np.array_equal(m.prm[0, layout.P_GRAVITY:layout.P_GRAVITY + 3], [0, 1, -3])
    assert np.array_equal(m.params["gravity"][0], m.gravity)
    bad = m.prm.copy()
    bad[1, layout.P_GRAVITY] = 1.0
    with pytest.raises(ValueError, match="universe"):
        m.with_parameters(bad)


def _pin_robot(m, prm_row):
    """A Pinocchio model of ``m`` with parameter table prm_row set through Pinocchio's types."""
    from oracle import to_pinocchio
    pm = to_pinocchio(m)
    p = layout.named(prm_row)
    for i in range(1, m.njoints):
        pm.inertias[i] = pin.Inertia.FromDynamicParameters(p["pi"][i].copy())
        pm.jointPlacements[i] = pin.SE3(p["R"][i].copy(), p["p"][i].copy())
    pm.gravity.linear = p["gravity"][0].copy()
    return pm


@pytest.mark.parametrize("which", ["arm", "legged"])
def test_batch_of_robots_matches_pinocchio_robot_by_robot(which, request):
    needs_pinocchio()
    m = request.getfixturevalue(which)
    n = 6
    pi = fd.sample_parameters(m, n, seed=3, mass=0.1, com=0.01, inertia=0.1)
    g = np.random.default_rng(4).normal([0, 0, -9.81], 0.5, size=(n, 3))
    PRM = fd.parameter_batch(m, pi=pi, gravity=g)
    PRM = np.array(PRM)
    named = layout.named(PRM)
    named["p"][:, 1] += np.random.default_rng(5).normal(0, 0.01, size=(n, 3))  # placements too
    Q, V, A = _states(m, n, seed=7)
    TAU = fd.batch.rnea(m, Q, V, A, prm=PRM)
    MM = fd.batch.crba(m, Q, prm=PRM)
    DDQ = fd.batch.aba(m, Q, V, TAU, prm=PRM)
    R, p = fd.batch.forward_kinematics(m, Q, prm=PRM)
    for s in range(n):
        pm = _pin_robot(m, PRM[s])
        pd = pm.createData()
        close(TAU[s], pin.rnea(pm, pd, Q[s], V[s], A[s]))
        M = pin.crba(pm, pd, Q[s])
        close(MM[s], np.triu(M) + np.triu(M, 1).T)
        # ABA: Pinocchio's on the same robot; and it inverts RNEA up to M's conditioning
        close(DDQ[s], pin.aba(pm, pd, Q[s], V[s], TAU[s]), 1e-8 * np.linalg.cond(MM[s]))
        close(DDQ[s], A[s], 1e-13 * np.linalg.cond(MM[s]))
        pin.forwardKinematics(pm, pd, Q[s])
        close(p[s, -1], pd.oMi[m.njoints - 1].translation)
        close(R[s, -1], pd.oMi[m.njoints - 1].rotation)


def test_batch_rows_equal_single_calls_on_the_same_robot_bitwise(arm):
    n = 5
    PRM = fd.parameter_batch(arm, pi=fd.sample_parameters(arm, n, seed=1, mass=0.2))
    Q, V, A = _states(arm, n, seed=2)
    TAU = fd.batch.rnea(arm, Q, V, A, prm=PRM)
    QS, VS = fd.batch.simulate(arm, Q, V, np.zeros((n, 20, arm.nv)), 1e-3, prm=PRM)
    for s in range(n):
        ms = arm.with_parameters(PRM[s])
        assert ms.token == arm.token
        assert np.array_equal(TAU[s], fd.rnea(ms, ms.create_data(), Q[s], V[s], A[s]))
        qs, vs = fd.simulate(ms, Q[s], V[s], np.zeros((20, arm.nv)), 1e-3)
        assert np.array_equal(QS[s], qs) and np.array_equal(VS[s], vs)
    # one robot for every row is the model itself
    assert np.array_equal(fd.batch.rnea(arm, Q, V, A, prm=arm.prm), fd.batch.rnea(arm, Q, V, A))


def test_regressor_route_equals_parameter_batch(arm):
    """tau = Y(q, v, a) pi + armature a for every robot: the batch of robots and the regressor
    agree (Y is the same for every robot whose placements are the model's)."""
    needs_pinocchio()
    from oracle import to_pinocchio
    n = 8
    pi = fd.sample_parameters(arm, n, seed=11, mass=0.1, com=0.02, inertia=0.2)
    Q, V, A = _states(arm, 1, seed=12)
    PRM = fd.parameter_batch(arm, pi=pi)
    TAU = fd.batch.rnea(arm, np.repeat(Q, n, 0), np.repeat(V, n, 0), np.repeat(A, n, 0),
                        prm=PRM)
    pm = to_pinocchio(arm)
    Y = pin.computeJointTorqueRegressor(pm, pm.createData(), Q[0], V[0], A[0])
    close(TAU, pi.reshape(n, -1) @ Y.T + arm.armature * A[0])


@pytest.mark.parametrize("edit, message", [
    (lambda P: P.__setitem__((0, 1, layout.P_PI), -1.0), "negative mass"),
    (lambda P: P.__setitem__((1, 2, layout.P_PI + 4), np.nan), "robot 1, joint .*pi is not finite"),
    (lambda P: P.__setitem__((0, 1, layout.P_R), 2.0), "rotation"),
    (lambda P: P.__setitem__((0, 1, layout.P_DAMPING), -0.1), "damping must be >= 0"),
    (lambda P: P.__setitem__((0, 1, layout.P_Q_LOWER), np.nan), "q_lower contains NaN"),
    (lambda P: P.__setitem__((0, 0, layout.P_GRAVITY), np.inf), "gravity is not finite"),
])
def test_bad_parameter_batches_are_named(arm, edit, message):
    PRM = np.array(fd.parameter_batch(arm, pi=fd.sample_parameters(arm, 2, seed=0)))
    edit(PRM)
    Q, V, A = _states(arm, 2)
    with pytest.raises(ValueError, match=message):
        fd.batch.rnea(arm, Q, V, A, prm=PRM)


def test_parameter_batch_shapes_and_counts(arm, legged):
    Q, V, A = _states(arm, 3)
    PRM = fd.parameter_batch(arm, pi=fd.sample_parameters(arm, 2, seed=0))
    with pytest.raises(ValueError, match="2 robots for 3 rows"):
        fd.batch.rnea(arm, Q, V, A, prm=PRM)
    with pytest.raises(ValueError, match="shape"):
        fd.batch.rnea(arm, Q, V, A, prm=legged.prm)
    with pytest.raises(ValueError, match="shape"):
        fd.batch.crba(arm, Q, prm=np.zeros((3, arm.njoints, layout.NP - 1)))
    with pytest.raises(TypeError):
        fd.batch.crba(arm, Q, prm="heavy")
    n = arm.njoints - 1
    with pytest.raises(ValueError, match=rf"pi must have shape \(N, {n}, 10\).*got shape "
                                         rf"\(2, {n + 1}, 10\)"):
        fd.parameter_batch(arm, pi=np.zeros((2, arm.njoints, 10)))
    pi = fd.sample_parameters(arm, 2, seed=0)  # one joint's row dropped: refused, not shifted
    with pytest.raises(ValueError, match=rf"pi must have shape \(N, {n}, 10\).*got "
                                         rf"shape \(2, {n - 1}, 10\)"):
        fd.parameter_batch(arm, pi=pi[:, 1:])
    with pytest.raises(ValueError, match=r"needs pi= .*gravity= .*got pi=None"):
        fd.parameter_batch(arm)
    # an axis-aligned joint's axis is topology, not a parameter
    P = np.array(arm.prm)
    j = next(i for i in range(1, arm.njoints) if arm.jnt[i]["type"] in (1, 2, 3))
    P[j, layout.P_AXIS:layout.P_AXIS + 3] = [0.6, 0.8, 0.0]
    with pytest.raises(ValueError, match="axis differs"):
        fd.batch.rnea(arm, Q, V, A, prm=P)


@pytest.mark.parametrize("column, value, words", [
    (layout.P_DAMPING, -0.1, "damping must be >= 0"),
    (layout.P_Q_UPPER, np.nan, "q_upper contains NaN"),
    (layout.P_R, 2.0, "R is not a rotation"),
    (layout.P_AXIS, 0.6, "axis differs"),
])
def test_a_model_and_a_batch_are_checked_by_one_rule(arm, column, value, words):
    """Model.check and the batch check are one function: a bad table is refused by both in
    the same words, naming the joint and field (a batch also names the robot)."""
    from fastdyn.parameters import check_parameters
    P = np.array(arm.prm)
    P[2, column] = value
    with pytest.raises(ValueError, match=words) as single:
        arm.with_parameters(P)
    with pytest.raises(ValueError) as batch:
        check_parameters(arm, P)
    assert str(single.value).startswith(f"joint {arm.joint_names[2]!r}: ")
    assert str(batch.value) == "prm: robot 0, " + str(single.value)


def test_a_models_own_table_passes_as_a_batch():
    """A rotation written to 6 decimals (R R^T = I to 6e-7) is one the builder takes; the
    batch check once refused the table of the model built from it."""
    c = 0.707107
    b = fd.ModelBuilder()
    j = b.add_joint("a", "revolute_z", 0, ([[c, -c, 0], [c, c, 0], [0, 0, 1]], np.zeros(3)))
    b.add_body(j, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    m = b.build()
    assert fd.parameter_batch(m, gravity=np.zeros((2, 3))).shape == (2,) + m.prm.shape


def test_old_pickles_and_files_still_load(arm, tmp_path):
    """A Model pickled or saved before the split (every field in one joint record)."""
    import pickle

    from fastdyn.model import joint_records
    rec = joint_records(arm)
    old = {"jnt": rec, "frm": np.array(arm.frm), "joint_names": arm.joint_names,
           "frame_names": arm.frame_names, "gravity": arm.gravity.copy(), "name": arm.name,
           "mimic": {}, "token": arm.token}
    m = fd.Model.__new__(fd.Model)
    m.__setstate__(old)
    assert np.array_equal(m.prm, arm.prm) and m.token == arm.token
    assert np.array_equal(pickle.loads(pickle.dumps(arm)).prm, arm.prm)
    arrays = {"format": np.array(1), "name": np.array(arm.name), "gravity": arm.gravity.copy(),
              "joint_names": np.array(arm.joint_names), "frame_names": np.array(arm.frame_names),
              "mimic_joint": np.array([], str), "mimic_mimicked": np.array([], str),
              "mimic_coeffs": np.zeros((0, 2))}
    for f in rec.dtype.names:
        arrays[f"jnt.{f}"] = rec[f]
    for f in arm.frm.dtype.names:
        arrays[f"frm.{f}"] = arm.frm[f]
    np.savez(tmp_path / "old.npz", **arrays)
    assert np.array_equal(fd.load_npz(tmp_path / "old.npz").prm, arm.prm)


def test_a_made_batch_is_checked_once_and_stays_read_only(arm):
    """parameter_batch checks its batch and hands it out read-only, so batch calls need not
    read it all again; unlocked by hand, it is no longer trusted and is checked at each use."""
    PRM = fd.parameter_batch(arm, pi=fd.sample_parameters(arm, 3, seed=0))
    with pytest.raises(ValueError, match="read-only"):
        layout.named(PRM)["damping"][1, 1, 0] = 1.0
    Q, V, A = _states(arm, 3)
    fd.batch.rnea(arm, Q, V, A, prm=PRM)
    PRM.flags.writeable = True
    PRM[1, 2, layout.P_PI] = np.nan
    with pytest.raises(ValueError, match=f"robot 1, joint '{arm.joint_names[2]}': pi is not "
                                         f"finite"):
        fd.batch.rnea(arm, Q, V, A, prm=PRM)
    with pytest.raises(ValueError, match="robot 0, joint .*pi is not finite"):
        fd.batch.rnea(arm, Q[:1], V[:1], A[:1], prm=PRM[1:2])
