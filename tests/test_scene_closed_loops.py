"""Closed loops in the simulator: Scene.add_constraint / add_mjcf_equalities
(kernels/contact/equality_rows.py) against closed forms, fd.constraint_dynamics and MuJoCo.

- A hard four-bar (MJCF connect) run 10 s: its loop stays closed within a bound, the rollout
  is Scene.step's sequence to the bit (warm starts included) and so is the generated one.
- A hard joint coupling holds q1 = ratio q2 + offset to round-off (its row is linear in q).
- A body hanging from a connect at rest: the constraint force is m g (closed form); tilted at
  rest, it is fd.constraint_dynamics' lambda (the step's KKT system at v = 0 is the same).
- MuJoCo files with connect, weld (bodies, sites) and joint equalities, MuJoCo's soft
  parameters, MuJoCo's Euler integrator: the trajectories agree over 300 steps.
- Bad input names the constraint; step derivatives see a constraint added after a first call
  (tests/test_step_derivatives_equalities.py checks their values).
"""

import warnings

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.errors import ConstraintError, MJCFWarning
from mechanisms import arms, fourbar

mujoco = pytest.importorskip("mujoco")

DT = 1e-3
FOURBAR = fourbar('<option gravity="0 0 -9.81" timestep="0.001" integrator="Euler"/>',
                  geom='contype="0" conaffinity="0"')


def _arms(equality: str) -> str:
    return arms(equality, f'<option timestep="{DT}" integrator="Euler" tolerance="1e-14" '
                f'iterations="50"/>', geom='contype="0" conaffinity="0"')


def _load(xml):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MJCFWarning)
        return fd.load_mjcf(xml)


def _gap(model, data, q, c):
    """The world distance between a connect's two points."""
    fd.forward_kinematics(model, data, q)
    fd.update_frame_placements(model, data)
    T1 = fd.frame_placement(model, data, c.frame)
    T2 = fd.frame_placement(model, data, c.frame2)
    p1 = T1[:3, :3] @ c.placement1[1] + T1[:3, 3]
    p2 = T2[:3, :3] @ c.placement[1] + T2[:3, 3]
    return np.linalg.norm(p1 - p2)


@pytest.fixture(scope="module")
def fourbar():
    model = _load(FOURBAR)
    scene = fd.Scene(model, dt=DT, ground=False)
    scene.add_constraints(fd.io.mjcf_constraints(model, FOURBAR))  # hard: the scene's erp
    return model, scene


def test_a_hard_fourbar_stays_closed_for_ten_seconds(fourbar):
    """The crank thrown at 3 rad/s under gravity (the other joints' velocities projected on
    the loop by the first step). Semi-implicit Euler leaves a gap of second order per step,
    dt^2 |v|^2 / L, which erp (0.2) pulls back: measured 9.5e-5 m at most over 10 s (the
    rigid fd.constraint_dynamics run of tests/test_mjcf_constraints.py reaches 7.4e-4 m with
    MuJoCo's gains)."""
    model, scene = fourbar
    v0 = np.array([3.0, 0.0, 0.0])
    out = scene.rollout(np.zeros(model.nq), v0, 10_000, record=("q", "stats"))
    assert out.status == "ok"
    data = model.create_data()
    c = scene.constraints[0]
    worst = max(_gap(model, data, out.q[k], c) for k in range(0, 10_001, 50))
    assert worst < 2e-3, worst
    assert np.all(out.stats[:, 0] == 2)  # the out-of-plane row is left out: it cannot move
    assert np.ptp(out.q[:, 0]) > 1.0  # (it does move: the crank swings)


def test_the_rollout_is_the_steps_and_the_generated_rollout_too(fourbar):
    model, scene = fourbar
    q, v = np.zeros(model.nq), np.array([3.0, 0.0, 0.0])
    scene.reset()
    Q, F = [q], []
    for _ in range(40):
        q, v = scene.step(q, v)
        Q.append(q)
        F.append(scene.constraint_forces)
    out = scene.rollout(Q[0], np.array([3.0, 0.0, 0.0]), 40, record=("q", "constraints"))
    assert np.array_equal(out.q, np.array(Q))  # warm starts included: bit for bit
    assert np.array_equal(out.constraint_forces, np.array(F)) and out.constraint_forces.shape \
        == (40, 3) and np.all(out.constraint_forces[:, 1] == 0.0)  # (the left-out row: 0)
    gen = fd.codegen.generate(model, algorithms=("free_velocity",))
    g = scene.rollout(Q[0], np.array([3.0, 0.0, 0.0]), 40, record=("q",), generated=gen)
    assert np.abs(g.q - out.q).max() < 1e-12  # reached: 0 to 1e-16 (another M's round-off)
    soft = fd.Scene(model, dt=DT, ground=False)  # (soft rows read the bodies' motions too)
    soft.add_mjcf_equalities(FOURBAR)
    a, b = (soft.rollout(Q[0], np.array([3.0, 0.0, 0.0]), 40, record=("q",), generated=x)
            for x in (None, gen))
    assert np.abs(a.q - b.q).max() < 1e-12  # reached: 2.8e-17 (hard: 1.7e-16)


def test_a_hard_coupling_holds_its_ratio():
    xml = _arms('<joint joint1="aj1" joint2="bj2" polycoef="0.1 -0.5"/>')
    model = _load(xml)
    scene = fd.Scene(model, dt=DT, ground=False)
    scene.add_constraints(fd.io.mjcf_constraints(model, xml))
    (c,) = scene.constraints
    i1, i2 = model.joint_id("aj1") - 1, model.joint_id("bj2") - 1  # (hinges: q index)
    rng = np.random.default_rng(1)
    tau = rng.normal(size=(500, model.nv))
    q0 = np.zeros(model.nq)
    out = scene.rollout(q0, np.zeros(model.nv), 500, torques=tau, record=("q",))
    err = out.q[:, i1] - (c.ratio * out.q[:, i2] + c.offset)
    assert c.ratio == -0.5 and c.offset == pytest.approx(0.1)
    assert abs(err[0] + 0.1) < 1e-15  # (drawn at 0: the coupling starts violated by 0.1)
    # e_k = 0.8^k e_0 (erp = 0.2 per step on a row linear in q), but for what the hard
    # row's regularization (R = 1e-8 G_rr) lets it yield: reached 2.0e-10 rad on the first
    # steps' large percussions, 4.1e-12 rad later
    assert abs(err[1] + 0.08) < 2e-8 and abs(err[2] + 0.064) < 2e-8
    assert np.abs(err[200:]).max() < 2e-10, np.abs(err[200:]).max()
    assert np.ptp(out.q[:, i2]) > 0.1


HANG = """<mujoco><worldbody><body name="bob" pos="0 0 1"><freejoint/>
  <geom type="box" size="0.05 0.05 0.2" mass="2" contype="0" conaffinity="0"/></body>
  </worldbody><equality><connect body1="bob" anchor="0 0 0.2"/></equality></mujoco>"""


def test_a_hanging_body_pulls_its_weight_and_the_force_is_constraint_dynamics():
    model = _load(HANG)
    cs = fd.io.mjcf_constraints(model, HANG)
    scene = fd.Scene(model, dt=DT, ground=False, regularization=0.0)
    scene.add_constraints(cs)
    q = fd.neutral(model)
    q[2] = 1.0
    qn, vn = scene.step(q, np.zeros(model.nv))
    weight = 2.0 * 9.81
    assert np.abs(scene.constraint_forces - [0, 0, weight]).max() < 4e-13  # reached 3.6e-15 N
    assert np.abs(vn).max() < 1e-16  # (it stays: reached 1.7e-18 m/s)
    # tilted about x at rest, the anchor where the connect holds it: constraint_dynamics' KKT
    a = 0.4
    R = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    q[:3] = np.array([0, 0, 1.2]) - R @ [0, 0, 0.2]
    q[3:7] = [np.sin(a / 2), 0, 0, np.cos(a / 2)]
    scene.reset()
    scene.step(q, np.zeros(model.nv))
    _, lam = fd.constraint_dynamics(model, model.create_data(), q, np.zeros(model.nv),
                                    np.zeros(model.nv), cs)  # LOCAL_WORLD_ALIGNED: world force
    assert np.abs(scene.constraint_forces - lam).max() < 4e-9, (
        scene.constraint_forces, lam)  # reached: 8.0e-11 N
    assert abs(lam[2]) < weight and abs(lam[1]) > 0.1  # (not the hanging answer)


def _mujoco_twin(xml, steps, tau_scale=0.5):
    """(MuJoCo's qpos, fastdyn's q) over ``steps`` steps from the drawn pose, a fixed random
    torque on every hinge; fastdyn's scene with the file's equalities as MuJoCo softens them."""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    model = _load(xml)
    scene = fd.Scene(model, dt=DT, ground=False)
    scene.add_mjcf_equalities(xml)
    order = [m.joint(n).qposadr[0] for n in model.joint_names[1:]]  # hinges: one each
    tau = np.random.default_rng(2).normal(size=model.nv) * tau_scale
    d.qfrc_applied[order] = tau
    Qm = [d.qpos.copy()]
    for _ in range(steps):
        mujoco.mj_step(m, d)
        Qm.append(d.qpos.copy())
    out = scene.rollout(Qm[0][order], np.zeros(model.nv), steps, torques=tau, record=("q",))
    return np.array(Qm)[:, order], out.q, scene


TWINS = {
    "connect": FOURBAR,
    "connect sites": _arms('<connect site1="atip" site2="btip" solref="0.05 0.8"/>'),
    "weld": _arms('<weld body1="a3" body2="b3" solimp="0.95 0.99 0.01"/>'),
    "weld sites": _arms('<weld site1="atip" site2="btip"/>'),
    "weld relpose": _arms('<weld body1="a3" body2="b3" relpose="0.28 0.01 0 0.999 0.04 0 0"/>'),
    "weld world": _arms('<weld body1="a3" relpose="0.02 0.01 0.24 0.99 0.05 0.02 0.01"/>'),
    "connect world": _arms('<connect body1="a3" anchor="0.01 0.02 0.3"/>'),
    "joint": _arms('<joint joint1="aj1" joint2="bj2" polycoef="0.1 -0.5"/>'),
    "joint lock": _arms('<joint joint1="aj2" polycoef="0.2" solref="-1000 -20"/>'),
}


@pytest.mark.parametrize("name", list(TWINS))
def test_mujoco_equalities_simulate_as_in_mujoco(name):
    """300 steps (0.3 s) from the drawn pose (a weld with relpose, the joint equalities:
    violated there, pulled in by the soft reference) under gravity and a constant random
    torque. The same soft rows (MuJoCo's residuals, Jacobians, impedance at the residual's
    norm, R from body_invweight0 / dof_invweight0, a_ref), each step solved exactly by both
    (MuJoCo's Newton to 1e-14, fastdyn's active-set solve), the velocity product dJ/dt v
    of the connect and weld rows included as MuJoCo 4 includes it (without it they part by
    4e-2 rad): the trajectories agree to round-off growing with the motion, measured 3e-16
    (weld) to 6.1e-14 rad (joint lock) over swings of 0.5 to 8.8 rad."""
    xml = TWINS[name]
    Qm, Qf, scene = _mujoco_twin(xml, 300)
    err = np.abs(Qm - Qf).max()
    assert err < 5e-12, err
    assert np.ptp(Qf, axis=0).max() > 1e-2  # (the mechanism moves)


def test_inverse_weights_are_mujocos():
    from fastdyn.sim.scene_constraints import inverse_weights
    xml = _arms("")
    m = mujoco.MjModel.from_xml_string(xml)
    model = _load(xml)
    trans, rot, dof = inverse_weights(model)
    for j, name in enumerate(model.joint_names[1:], 1):
        b = m.jnt_bodyid[m.joint(name).id]
        assert abs(trans[j] - m.body_invweight0[b, 0]) <= 1e-12 * m.body_invweight0[b, 0]
        assert abs(rot[j] - m.body_invweight0[b, 1]) <= 1e-12 * m.body_invweight0[b, 1]
        k = m.joint(name).dofadr[0]
        assert abs(dof[j - 1] - m.dof_invweight0[k]) <= 1e-12 * m.dof_invweight0[k]


def test_bad_constraints_are_named(fourbar):
    model, _ = fourbar
    scene = fd.Scene(model, dt=DT, ground=False)
    other = _load(FOURBAR)
    c = fd.io.mjcf_constraints(other, FOURBAR)[0]
    with pytest.raises(ConstraintError, match=r"'close'.*another model"):
        scene.add_constraint(c)
    mine = fd.io.mjcf_constraints(model, FOURBAR)[0]
    with pytest.raises(ConstraintError, match=r"'close'.*solref"):
        scene.add_constraint(mine, solref=(np.nan, 1.0))
    with pytest.raises(ConstraintError, match=r"'close'.*dmax must be in"):
        scene.add_constraint(mine, solimp=(0.9, 1.5, 0.001, 0.5, 2))
    with pytest.raises(TypeError, match=r"constraints\[1\] must be a fastdyn.RigidConstraint"):
        scene.add_constraints([mine, "close"])
    with pytest.raises(TypeError, match="constraints must be a list.*got int"):
        scene.add_constraints(3)
    with pytest.raises(ConstraintError, match=r"'x'.*frame2.*no_such_frame"):
        fd.RigidConstraint(model, fd.CONTACT_3D, "coupler", "no_such_frame", name="x")
    assert scene.constraints == []  # nothing half-added
    z = np.zeros(model.nv)
    A0, _ = scene.step_derivatives(np.zeros(model.nq), z, z)  # (prepared: adding must
    scene.add_constraint(mine)  # forget it: the closure's rows then enter the Jacobians)
    A1, _ = scene.step_derivatives(np.zeros(model.nq), z, z)
    assert not np.allclose(A0, A1)
    with pytest.raises(NotImplementedError, match="1 constraints.*does not write <equality>"):
        scene.to_mjcf()




def _everything():
    """The four-bar with a contact point at its crank's tip above a floor at z = -0.05 (a
    sphere contact), and beside it a free ball (a sphere geom) thrown from a world box (geom
    contacts) onto the floor. ADMM: the crank resting on the floor with friction is
    statically indeterminate (a 1-dof loop held at a point in two directions), where PGS
    stalls at 2e-9 m/s."""
    model = _load(FOURBAR.replace("</worldbody>", '<body name="ball" pos="1 0 0.3"><freejoint/>'
                                  '<geom type="sphere" size="0.05" mass="0.2" contype="0" '
                                  'conaffinity="0"/></body></worldbody>'))
    scene = fd.Scene(model, dt=DT, solver="admm", tolerance=1e-10, ground=False)
    scene.add_halfspace((0.0, 0.0, 1.0), -0.05)
    scene.add_sphere("crank", 0.0, (0.2, 0.0, 0.0))
    scene.add_geom("ball", "sphere", size=(0.05,))
    scene.add_geom(None, "box", size=(0.1, 0.1, 0.1), pos=(1.05, 0.0, 0.1))
    scene.add_constraints(fd.io.mjcf_constraints(model, FOURBAR))
    q = fd.neutral(model)
    q[3:6] = (1.0, 0.0, 0.3)
    v = np.zeros(model.nv)
    v[:3] = (3.0, 0.0, 0.0)  # the crank thrown toward the floor
    v[-6] = -1.5  # the ball thrown off the box
    return model, scene, q, v


def test_constraints_with_contacts_and_geoms_share_one_step():
    """Sphere, constraint and geom rows in one step, each in its own warm-start slots (sphere
    pairs, then the constraints' room, then geoms): the rollout is Scene.step's sequence bit
    for bit, the loop stays closed and both contacts push."""
    model, scene, q, v = _everything()
    a = scene.rollout(q, v, 400, record=("q", "v", "contacts", "ncontacts"))
    assert a.status == "ok", a.failures
    qk, vk = q, v
    for k in range(400):
        qk, vk = scene.step(qk, vk)
        assert np.array_equal(qk, a.q[k + 1]) and np.array_equal(vk, a.v[k + 1]), k
    assert a.ncontacts[:300].max() > 0 and a.contact_forces[:300, 0, 2].max() > 0
    data = model.create_data()
    c = scene.constraints[0]
    assert max(_gap(model, data, a.q[k], c) for k in range(0, 401, 20)) < 2e-3
