"""MuJoCo-style soft contacts (Scene(solref=, solimp=)), checked against MuJoCo itself and a
physical identity.

The oracle is MuJoCo on a model built here from an MJCF string: a ball (free joint, one
sphere geom, explicit inertia) over a plane, elliptic cones, the same dt, mass, radius, mu,
solref and solimp. fastdyn's twin is the same ball (the MJCF's tree, loaded by fastdyn) with
a contact sphere on the ground half-space. MuJoCo's free joint keeps the linear velocity in
world axes and its quaternion w first; a ball that does not turn has the same coordinates in
both (tests/mujoco_twin.py converts the quadruped's states). Also: a box and the bundled
quadruped against MuJoCo's twins, Coulomb's deceleration while sliding, the step derivatives
of soft steps against central differences, and bad parameters.
"""

import mujoco
import numpy as np
import pytest

import fastdyn as fd
from fastdyn.kernels import layout as L
from fastdyn.kernels.contact.softness import impedance, stiffness_damping

DT, RADIUS, MASS, MU = 0.002, 0.1, 1.0, 0.8
INERTIA = 0.4 * MASS * RADIUS ** 2
DEFAULT = ((0.02, 1.0), (0.9, 0.95, 0.001, 0.5, 2.0))
SOFTER = ((0.05, 0.7), (0.5, 0.99, 0.01, 0.3, 3.0))
DIRECT = ((-5000.0, -30.0), (0.8, 0.9, 0.002, 0.5, 1.0))


def ball_xml(z0, solref, solimp, dt=DT, mass=MASS):
    inertia = 0.4 * mass * RADIUS ** 2
    ref, imp = " ".join(map(repr, solref)), " ".join(map(repr, solimp))
    geom = f'friction="{MU} 0 0" solref="{ref}" solimp="{imp}" condim="3"'
    return f"""<mujoco><option timestep="{dt}" cone="elliptic" gravity="0 0 -9.81"/>
  <worldbody><geom type="plane" size="1 1 0.1" {geom}/>
    <body name="ball" pos="0 0 {z0:.17g}"><freejoint name="root"/>
      <inertial pos="0 0 0" mass="{mass!r}" diaginertia="{inertia!r} {inertia!r} {inertia!r}"/>
      <geom type="sphere" size="{RADIUS!r}" {geom}/></body></worldbody></mujoco>"""


def twins(z0, solref, solimp, dt=DT, mass=MASS):
    xml = ball_xml(z0, solref, solimp, dt, mass)
    m = mujoco.MjModel.from_xml_string(xml)
    scene = fd.Scene(fd.load_mjcf(xml), dt=dt, mu=MU, solref=solref, solimp=solimp,
                     tolerance=1e-12)
    scene.add_sphere("ball", RADIUS)
    return m, mujoco.MjData(m), scene


def mujoco_run(m, d, steps, qvel=None):
    if qvel is not None:
        d.qvel[:] = qvel
    out = np.empty((steps, 7))
    for k in range(steps):
        mujoco.mj_step(m, d)
        out[k] = d.qpos
    return out


@pytest.mark.parametrize("soft", [DEFAULT, SOFTER, DIRECT], ids=["default", "softer", "direct"])
def test_resting_penetration_is_mujocos(soft):
    """After 1 s at rest the ball's gap is MuJoCo's data.contact[0].dist: both solve the
    same soft equilibrium R f = -K d(r) r (softness.py), to their solvers' tolerances."""
    m, d, scene = twins(RADIUS, *soft)
    mujoco_run(m, d, 500)
    assert d.ncon == 1
    out = scene.rollout(np.array([0, 0, RADIUS, 0, 0, 0, 1.0]), np.zeros(6), 500)
    gap = out.final_q[2] - RADIUS
    assert d.contact[0].dist < -1e-5  # a real penetration, not a resting touch
    assert gap == pytest.approx(d.contact[0].dist, rel=1e-6)
    assert np.abs(out.final_v - d.qvel).max() < 1e-7  # (g dt = 0.02 m/s) both settle alike


@pytest.mark.parametrize("soft", [DEFAULT, SOFTER, DIRECT], ids=["default", "softer", "direct"])
def test_drop_follows_mujocos_trajectory(soft):
    """A ball dropped from 5 cm above the plane: its height over 0.2 s (impact, the damped
    oscillation of the soft contact, rest) is MuJoCo's, step by step. Both take the same
    semi-implicit Euler steps with the same soft law; what separates them is each solver's
    stopping tolerance (ours 1e-12 m/s, MuJoCo's Newton 1e-8 relative), far below 1e-9 m."""
    m, d, scene = twins(RADIUS + 0.05, *soft)
    ref = mujoco_run(m, d, 100)
    out = scene.rollout(np.array([0, 0, RADIUS + 0.05, 0, 0, 0, 1.0]), np.zeros(6), 100)
    z = out.q[1:, 2]
    assert z.min() < RADIUS - 1e-4  # the impact penetrates: the soft law is exercised
    assert np.abs(z - ref[:, 2]).max() < 1e-9


def test_admm_solves_the_same_soft_problem():
    """Scene(solver="admm") on the soft drop: MuJoCo's heights too (measured 2.6e-14 m)."""
    m, d, scene = twins(RADIUS + 0.05, *DEFAULT)
    scene.solver = "admm"
    ref = mujoco_run(m, d, 100)
    out = scene.rollout(np.array([0, 0, RADIUS + 0.05, 0, 0, 0, 1.0]), np.zeros(6), 100)
    assert np.abs(out.q[1:, 2] - ref[:, 2]).max() < 1e-9


def slider_xml(solref, solimp, impratio=1.0):
    """The ball on three slide joints (x, y, z): it cannot turn, so its friction rows see
    the same inverse inertia 1 / m as MuJoCo's approximation of them."""
    ref, imp = " ".join(map(repr, solref)), " ".join(map(repr, solimp))
    geom = f'friction="{MU} 0 0" solref="{ref}" solimp="{imp}" condim="3"'
    joints = "".join(f'<joint name="{a}" type="slide" axis="{x}"/>'
                     for a, x in (("x", "1 0 0"), ("y", "0 1 0"), ("z", "0 0 1")))
    return f"""<mujoco><option timestep="{DT}" cone="elliptic" gravity="0 0 -9.81"
    impratio="{impratio!r}"/>
  <worldbody><geom type="plane" size="5 5 0.1" {geom}/>
    <body name="ball" pos="0 0 {RADIUS!r}">{joints}
      <inertial pos="0 0 0" mass="{MASS!r}" diaginertia="0.004 0.004 0.004"/>
      <geom type="sphere" size="{RADIUS!r}" {geom}/></body></worldbody></mujoco>"""


def slider(soft=DEFAULT, impratio=1.0):
    xml = slider_xml(*soft, impratio)
    m = mujoco.MjModel.from_xml_string(xml)
    scene = fd.Scene(fd.load_mjcf(xml), dt=DT, mu=MU, solref=soft[0], solimp=soft[1],
                     tolerance=1e-12, impratio=impratio)
    scene.add_sphere("ball", RADIUS)
    return m, mujoco.MjData(m), scene


@pytest.mark.parametrize("push, impratio", [(5.0, 1.0), (7.0, 1.0), (7.0, 10.0)])
def test_friction_creep_is_mujocos(push, impratio):
    """A settled ball pushed sideways below the friction limit (mu m g = 7.85 N) creeps, the
    mark of MuJoCo's soft friction (its rows' R, over impratio, and damping-only reference);
    its path over 0.4 s is MuJoCo's."""
    m, d, scene = slider(impratio=impratio)
    tau = np.zeros((300, 3))
    tau[100:, 0] = push
    ref = np.empty((300, 3))
    for k in range(300):
        d.qfrc_applied[:] = tau[k]
        mujoco.mj_step(m, d)
        ref[k] = d.qpos
    out = scene.rollout(np.zeros(3), np.zeros(3), 300, torques=tau)
    assert ref[-1, 0] > 1e-3 / impratio  # it does creep, by millimetres over impratio
    assert np.abs(out.q[1:] - ref).max() < 1e-8


def test_sliding_decelerates_at_mu_g():
    """A settled ball launched at 1 m/s slides with Coulomb's deceleration mu g (the normal
    force stays m g: fastdyn's cone keeps the normal row's law while sliding, where
    MuJoCo's convex cone lifts the ball a little, see fastdyn/docs/mujoco.md)."""
    _, _, scene = slider()
    rest = scene.rollout(np.zeros(3), np.zeros(3), 200)
    out = scene.rollout(rest.final_q, rest.final_v + [1.0, 0, 0], 50, record=("v", "q"))
    dv = np.diff(out.v[:, 0])
    assert np.allclose(dv, -MU * 9.81 * DT, rtol=0, atol=1e-9)
    assert np.abs(out.q[:, 2] - rest.final_q[2]).max() < 1e-9


@pytest.mark.parametrize("soft", [DEFAULT, SOFTER, DIRECT], ids=["default", "softer", "direct"])
def test_impedance_and_regularizer_are_mujocos(soft):
    """softness.impedance and the rows' R against MuJoCo's own (efc_KBIP's impedance, efc_R)
    for the ball at depths across solimp's width, and (K, B) against efc_KBIP."""
    h = np.zeros(L.NH)
    h[L.H_SOLREF:L.H_SOLREF + 2], h[L.H_SOLIMP:L.H_SOLIMP + 5] = soft
    width = soft[1][2]
    for depth in np.array([0.05, 0.2, 0.3, 0.5, 0.7, 0.95, 1.5]) * width:
        m = mujoco.MjModel.from_xml_string(ball_xml(RADIUS - depth, *soft))
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        K, B, imp = d.efc_KBIP[0, :3]
        ours = impedance(h, -depth)
        assert ours == pytest.approx(imp, rel=1e-12)
        assert (1 - ours) / ours / MASS == pytest.approx(d.efc_R[0], rel=1e-12)
        assert stiffness_damping(h, DT) == pytest.approx((K, B), rel=1e-12)


def test_box_rests_on_four_soft_corners():
    """A 20 kg box on its four lower corners (redundant rows) at dt = 2 ms: it comes to rest
    and each corner sits at the depth where MuJoCo's soft law balances its load, m g / 4:
    R f = -K d r with R = (1 - d) / d w, w = 1 / m MuJoCo's inverse weight of a free body
    (trace of its 3x3 translational block at the centre of mass, over 3); MuJoCo's own box
    on a plane rests at that depth too."""
    mass, (a, b, c) = 20.0, (0.2, 0.15, 0.1)
    Ixx, Iyy, Izz = (mass / 3 * (b * b + c * c), mass / 3 * (a * a + c * c),
                     mass / 3 * (a * a + b * b))
    xml = f"""<mujoco><worldbody><body name="box"><freejoint name="root"/>
      <inertial pos="0 0 0" mass="{mass}" diaginertia="{Ixx!r} {Iyy!r} {Izz!r}"/>
      </body></worldbody></mujoco>"""
    scene = fd.Scene(fd.load_mjcf(xml), dt=0.002, solref=DEFAULT[0], solimp=DEFAULT[1],
                     tolerance=1e-12, iterations=1000)
    scene.add_box("box", (2 * a, 2 * b, 2 * c))
    out = scene.rollout(np.array([0, 0, c, 0, 0, 0, 1.0]), np.zeros(6), 1000,
                        record=("contacts",))
    assert out.status == "ok"
    assert np.abs(out.final_v).max() < 1e-7
    depth = c - out.final_q[2]
    assert 1e-4 < depth < DEFAULT[1][2]
    f = out.contact_forces[-1, :, 2]
    assert np.allclose(f[f > 0], mass * 9.81 / 4, rtol=1e-6) and np.sum(f > 0) == 4
    h = scene.halfspaces[0]
    K, _ = stiffness_damping(h, 0.002)
    dd = impedance(h, -depth)
    assert depth == pytest.approx((1 - dd) / mass * mass * 9.81 / 4 / (K * dd * dd), rel=1e-6)
    mj = mujoco.MjModel.from_xml_string(xml.replace(
        "<worldbody>", '<option timestep="0.002" cone="elliptic"/><worldbody>'
        '<geom type="plane" size="1 1 0.1"/>').replace(
        "</body>", f'<geom type="box" size="{a} {b} {c}"/></body>').replace(
        'name="box"', f'name="box" pos="0 0 {c}"'))
    d = mujoco.MjData(mj)
    for _ in range(1000):
        mujoco.mj_step(mj, d)
    assert d.ncon == 4  # MuJoCo's box-plane contact: the four corners too
    assert [-d.contact[i].dist for i in range(4)] == pytest.approx([depth] * 4, rel=1e-6)


@pytest.mark.parametrize("kw, match", [
    (dict(solref=(-0.02, 1.0)), "direct solref"),
    (dict(solref=(0.02, -1.0)), "dampratio"),
    (dict(solref=(0.0, 1.0)), r"solref\[0\]"),
    (dict(solref=(np.nan, 1.0)), "solref has non-finite"),
    (dict(solref=(0.02,)), "solref must have shape"),
    (dict(solimp=(0.95, 0.9, 0.001, 0.5, 2)), "dmin = 0.95 > dmax = 0.9"),
    (dict(solimp=(0.9, 1.0, 0.001, 0.5, 2)), "solimp dmax must be in"),
    (dict(solimp=(0.0, 0.95, 0.001, 0.5, 2)), "solimp dmin must be in"),
    (dict(solimp=(0.9, 0.95, 0.0, 0.5, 2)), "solimp width"),
    (dict(solimp=(0.9, 0.95, 0.001, 1.0, 2)), "solimp midpoint"),
    (dict(solimp=(0.9, 0.95, 0.001, 0.5, 0.5)), "solimp power"),
    (dict(solimp=(0.9, 0.95, np.nan, 0.5, 2)), "solimp has non-finite"),
    (dict(solref=(0.02, 1.0), restitution=0.5), "restitution"),
    (dict(impratio=0.0), "impratio"),
])
def test_bad_softness_is_refused(kw, match):
    model = fd.load_mjcf(ball_xml(RADIUS, *DEFAULT))
    with pytest.raises(ValueError, match=match):
        fd.Scene(model, **kw)
    if "impratio" in kw:
        return  # a scene option, not a half-space's
    scene = fd.Scene(model, ground=False)
    with pytest.raises(ValueError, match=match):
        scene.add_halfspace((0, 0, 1), **kw)


# --- step derivatives of soft steps, against central differences of Scene.step --------------

def test_step_derivatives_of_a_soft_ball_sticking_and_sliding():
    """A ball 0.3 mm deep in a soft plane (the impedance's slope is not zero there), rolling
    a little (sticking) and sliding: Scene.step_derivatives equal the central differences of
    Scene.step on the step's active set (test_step_derivatives_contacts' check)."""
    from test_step_derivatives_contacts import agree, ball_scene

    rng = np.random.default_rng(3)
    quat = rng.normal(size=4)
    q = np.r_[0.1, 0.2, 0.1 - 3e-4, quat / np.linalg.norm(quat)]
    for scene in (ball_scene(solref=DEFAULT[0]), ball_scene(solref=SOFTER[0], impratio=5.0),
                  ball_scene(solref=DIRECT[0], solimp=DIRECT[1])):
        agree(scene, q, 1e-3 * rng.normal(size=6), 0.1 * rng.normal(size=6), (["stick"], {}))
        world = np.array([1.0, 0.5, -0.01])  # sliding along the plane (base-frame v below)
        agree(scene, q, np.r_[_rotation(q[3:]).T @ world, 0.3, -0.2, 0.1], np.zeros(6),
              (["slide"], {}))


def test_step_derivatives_of_a_soft_box_and_robot():
    """Four soft corners of a box (redundant rows), and the quadruped standing on soft feet."""
    from test_step_derivatives_contacts import BOTTOM, agree, box_scene, yawed

    rng = np.random.default_rng(4)
    scene = box_scene(solref=DEFAULT[0])
    agree(scene, yawed(0.1 - 3e-4, 0.3), 1e-3 * rng.normal(size=6), 0.1 * rng.normal(size=6),
          (BOTTOM("stick"), {}))
    twin, scene, q0, kp, kd = quadruped_twins(1.0)
    scene.tolerance, scene.iterations = 1e-15, 5000
    q = q0.copy()
    q[2] -= 4e-4
    agree(scene, q, 1e-3 * rng.normal(size=scene.model.nv), np.zeros(scene.model.nv),
          (["stick"] * 4, {}))


def _rotation(quat):
    x, y, z, w = quat
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def test_rigid_half_spaces_stay_rigid_in_a_soft_scene():
    """A half-space's own solref/solimp win over the scene's, and a scene without them keeps
    the rigid model (zeros in the half-space row)."""
    model = fd.load_mjcf(ball_xml(RADIUS, *DEFAULT))
    assert not fd.Scene(model).halfspaces[0, L.H_SOLREF:].any()
    scene = fd.Scene(model, solref=(0.05, 1.0))
    assert list(scene.halfspaces[0, L.H_SOLREF:]) == [0.05, 1.0, *Scene_imp()]
    e = scene.add_halfspace((1, 0, 0), -1.0, solimp=(0.5, 0.6, 0.01, 0.5, 1.0))
    assert list(scene.halfspaces[e, L.H_SOLREF:]) == [0.02, 1.0, 0.5, 0.6, 0.01, 0.5, 1.0]


def Scene_imp():
    return list(fd.Scene.MUJOCO_SOLIMP)


# --- a robot: the bundled quadruped standing on four soft feet, MuJoCo's twin beside it ------

def quadruped_twins(impratio):
    from mujoco_twin import standing
    from test_simulator import standing_quadruped

    model, q0, feet, (kp, kd) = standing_quadruped()
    twin = standing(model, fd.models.path("quadruped"), feet, 0.016, MU, kp[6], kd[6], DT,
                    impratio=impratio)
    scene = fd.Scene(model, dt=DT, mu=MU, solref=DEFAULT[0], solimp=DEFAULT[1],
                     impratio=impratio)
    for f in feet:
        scene.add_sphere(f, 0.016)
    return twin, scene, q0, kp, kd


def test_inverse_weights_are_mujocos():
    """Each foot's R scale is MuJoCo's body_invweight0 of the foot's body (computed by MuJoCo
    at its qpos0, the neutral configuration)."""
    twin, scene, *_ = quadruped_twins(1.0)
    m = twin.m
    for s in scene.spheres:
        body = m.jnt_bodyid[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT,
                                              twin.model.joint_names[s["joint"]])]
        assert s["invweight"] == pytest.approx(m.body_invweight0[body, 0], rel=1e-10)


@pytest.mark.parametrize("impratio", [1.0, 10.0])
def test_quadruped_stands_as_in_mujoco(impratio):
    """The quadruped under the same PD at dt = 2 ms for 1 s on soft feet: its base height,
    the feet's depth and the creep of the loaded feet (impratio 1: the base sinks ~4 mm as
    the feet slide outwards, in both) follow MuJoCo's twin (MuJoCo's defaults otherwise)."""
    twin, scene, q0, kp, kd = quadruped_twins(impratio)
    m = twin.m
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = twin.to_mujoco(q0, np.zeros(twin.model.nv))
    d.ctrl[:] = twin.joint_refs(q0)
    ref = np.empty((500, twin.model.nq))
    for k in range(500):
        mujoco.mj_step(m, d)
        ref[k] = twin.from_mujoco(d.qpos, d.qvel)[0]
    out = scene.rollout(q0, np.zeros(twin.model.nv), 500, kp=kp, kd=kd, record=("q",))
    sink = q0[2] - ref[-1, 2]
    assert sink > 0.01  # the legs give under kp = 5 and the feet sink into the plane
    # measured 29 um (impratio 1) and 17 um (10): the residue of MuJoCo's Newton tolerance
    # and of the two integrators of the base (exponential map here), against the 1.4 mm by
    # which the rigid model stands higher
    assert np.abs(out.q[1:, 2] - ref[:, 2]).max() < 1e-4
    assert np.abs(out.q[1:, :2] - ref[:, :2]).max() < 1e-9
    assert np.abs(out.q[1:, 7:] - ref[:, 7:]).max() < 1e-3  # joint angles [rad]
