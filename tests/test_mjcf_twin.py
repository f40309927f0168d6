"""Scene.to_mjcf: the MJCF MuJoCo compiles into the same system as the scene.

Oracles that did not come from the writer: MuJoCo's own algorithms on the written file (its
CRBA, mj_fullM; its time step, mj_step) against fastdyn's, and MuJoCo's compile of the
bundled quadruped's URDF with hand-placed foot spheres (tests/mujoco_twin.py) against the
written twin of the same scene.
"""

import warnings

import numpy as np
import pytest

import fastdyn as fd
import fastdyn.models as fm
from fastdyn import samples
from fastdyn.errors import MJCFWarning
from fastdyn.kernels.joints import codes
from fastdyn.sim.mjcf_twin import MujocoMap

mujoco = pytest.importorskip("mujoco")

from mujoco_twin import bare_model, standing  # noqa: E402 (needs mujoco)
from test_simulator import standing_quadruped  # noqa: E402

DT = 1e-3
# Every joint type MuJoCo can stand for (helical cannot: test_refusals)
TYPES = tuple(t for t in codes.NAMES[1:] if t not in ("freeflyer", "helical"))


def _no_linear_armature(model):
    """A planar joint's armature on its translation acts in other axes in MuJoCo (the
    writer warns: test_warnings); the tree's other joints keep theirs."""
    for j in range(1, model.njoints):
        if model.joint_type(j) == "planar":
            model = model.with_armature(j, [0.0, 0.0, 0.0])
    return model


def _robot(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = fm.load(name, source="example-robot-data")
    # dry friction is a rigid row in fastdyn, MuJoCo's frictionloss a soft one (test_warnings)
    return model.with_parameters(_without_friction(model))


def _without_friction(model):
    prm = np.array(model.prm)
    prm[:, fd.kernels.layout.P_FRICTION:fd.kernels.layout.P_FRICTION + 6] = 0.0
    return prm


MODELS = {
    "ur5": lambda: _robot("ur5"),
    "solo12": lambda: _robot("solo12"),
    "talos": lambda: _robot("talos"),  # damping kept: both steps take it implicitly
    "tree_free": lambda: _no_linear_armature(samples.random_tree(20, seed=5, types=TYPES,
                                                                 root="freeflyer")),
    "tree_fixed": lambda: _no_linear_armature(samples.random_tree(20, seed=6, types=TYPES)),
}


def _twin(scene):
    m = mujoco.MjModel.from_xml_string(scene.to_mjcf())
    return m, mujoco.MjData(m), MujocoMap(scene.model)


@pytest.mark.parametrize("name", list(MODELS))
def test_mass_matrix_and_steps_equal_mujoco_on_the_twin(name):
    model = MODELS[name]()
    scene = fd.Scene(model, dt=DT, ground=False, limits=False)
    m, d, twin = _twin(scene)
    assert (m.nq, m.nv, m.nu) == (twin.nq, twin.nv, twin.nu)
    rng = np.random.default_rng(3)
    q = fd.random_configuration(model)
    v = rng.normal(size=model.nv)
    d.qpos[:], d.qvel[:] = twin.to_mujoco(q, v)
    # the state map is one: back and forth is the identity (a quaternion's w, a planar angle)
    qb, vb = twin.from_mujoco(d.qpos, d.qvel)
    assert np.abs(fd.difference(model, q, qb)).max() < 1e-14
    assert np.abs(vb - v).max() < 1e-14
    mujoco.mj_forward(m, d)
    M_mj = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M_mj)
    # v = T qvel (T from the map's columns): MuJoCo's M is T^T M T
    T = np.column_stack([twin.from_mujoco(d.qpos, e)[1] for e in np.eye(m.nv)])
    M = fd.crba(model, model.create_data(), q)
    # reached 2e-16 (UR5) to 6e-16 (Talos) of max |M|
    assert np.abs(T.T @ M @ T - M_mj).max() < 1e-13 * np.abs(M_mj).max()
    tau = np.zeros(model.nv)
    tau[twin.actuated] = rng.normal(size=twin.nu)
    d.ctrl[:] = twin.ctrl(tau)
    for _ in range(100):
        q, v = scene.step(q, v, tau)
        mujoco.mj_step(m, d)
    qm, vm = twin.from_mujoco(d.qpos, d.qvel)
    # reached 4e-16 / 1e-14 (UR5) to 2e-13 / 3e-11 (Solo12: |v| grows to 400) after 100 steps
    scale = max(1.0, np.abs(v).max())
    assert np.abs(fd.difference(model, q, qm)).max() < 1e-11
    assert np.abs(vm - v).max() < 1e-11 * scale


def test_sites_are_the_model_frames():
    model = MODELS["talos"]()
    m, d, twin = _twin(fd.Scene(model, ground=False))
    q = fd.random_configuration(model)
    d.qpos[:], _ = twin.to_mujoco(q, np.zeros(model.nv))
    mujoco.mj_kinematics(m, d)
    data = model.create_data()
    fd.frames_forward_kinematics(model, data, q)
    checked = 0
    for s in range(m.nsite):
        f = model.frame_id(m.site(s).name)
        assert np.abs(d.site_xpos[s] - data.oMf_p[f]).max() < 1e-12  # reached 4e-16
        # reached 6e-16, but 1.0e-11 on the frames below gripper_right_fingertip_3_joint,
        # whose URDF yaw of 3.14159265359 leaves a 1e-11 rotation that MuJoCo rounds away
        assert np.abs(d.site_xmat[s].reshape(3, 3) - data.oMf_R[f]).max() < 2e-11
        checked += 1
    assert checked > 20  # Talos's sole, gripper and sensor frames among them


def test_standing_quadruped_twin_equals_mujocos_own_compile_of_the_urdf():
    """The written twin of a contact scene and MuJoCo's compile of the same URDF with the feet
    placed by hand: one drop onto the floor and a second of PD standing, step by step."""
    model, q0, feet, (kp, kd) = standing_quadruped()
    scene = fd.Scene(model, dt=DT, mu=0.8)
    for f in feet:
        scene.add_sphere(f, 0.016)
    m, d, twin = _twin(scene)
    hand = standing(model, fm.path("quadruped"), feet, 0.016, 0.8, 5.0, 0.2, DT)
    dh = mujoco.MjData(hand.m)
    q = q0.copy()
    q[2] += 0.05
    d.qpos[:], d.qvel[:] = twin.to_mujoco(q, np.zeros(model.nv))
    dh.qpos[:], dh.qvel[:] = hand.to_mujoco(q, np.zeros(model.nv))
    dh.ctrl[:] = hand.joint_refs(q0)  # position actuators: kp (ctrl - q) - kd v
    for _ in range(1000):
        qf, vf = twin.from_mujoco(d.qpos, d.qvel)
        tau = np.zeros(model.nv)
        tau[6:] = kp[6:] * (q0[7:] - qf[7:]) - kd[6:] * vf[6:]
        d.ctrl[:] = twin.ctrl(tau)
        mujoco.mj_step(m, d)
        mujoco.mj_step(hand.m, dh)
    (qa, va), (qb, vb) = twin.from_mujoco(d.qpos, d.qvel), hand.from_mujoco(dh.qpos, dh.qvel)
    assert d.ncon == dh.ncon == 4
    # reached 4e-16 and 7e-15: the same bodies, inertias, contacts and soft parameters
    assert np.abs(qa - qb).max() < 1e-12 and np.abs(va - vb).max() < 1e-11
    np.testing.assert_array_equal(m.body_invweight0, hand.m.body_invweight0)


def test_soft_half_space_parameters_reach_the_pairs():
    model, _, feet, _ = standing_quadruped()
    scene = fd.Scene(model, mu=0.6, solref=(0.01, 0.8), solimp=(0.8, 0.9, 0.002, 0.4, 3.0))
    scene.add_sphere(feet[0], 0.02)
    m = mujoco.MjModel.from_xml_string(scene.to_mjcf())
    assert m.npair == 1 and m.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC
    np.testing.assert_array_equal(m.pair_solref[0], [0.01, 0.8])
    np.testing.assert_array_equal(m.pair_solimp[0], [0.8, 0.9, 0.002, 0.4, 3.0])
    np.testing.assert_array_equal(m.pair_friction[0, :2], [0.6, 0.6])
    assert m.geom_contype.sum() == m.geom_conaffinity.sum() == 0  # only the pairs collide


def test_limits_effort_and_written_file(tmp_path):
    model = _robot("ur5")
    scene = fd.Scene(model, ground=False)
    path = tmp_path / "ur5.xml"
    text = scene.to_mjcf(path)
    assert path.read_text() == text
    m = mujoco.MjModel.from_xml_path(str(path))
    for j in range(1, model.njoints):
        jm = m.joint(model.joint_names[j])
        lo, hi = model.lower_position_limit[j - 1], model.upper_position_limit[j - 1]
        assert bool(m.jnt_limited[jm.id]) and tuple(m.jnt_range[jm.id]) == (lo, hi)
        a = m.actuator(model.joint_names[j])
        assert tuple(a.ctrlrange) == (-model.effort_limit[j - 1], model.effort_limit[j - 1])
    off = mujoco.MjModel.from_xml_string(fd.Scene(model, ground=False, limits=False).to_mjcf())
    assert not off.jnt_limited.any()


def test_refusals_name_the_joint():
    b = fd.ModelBuilder("screw")
    b.add_joint("screw_joint", "helical", 0, None, axis=(0, 0, 1), pitch=0.01)
    b.add_body("screw_joint", 1.0, (0, 0, 0), np.eye(3) * 0.1)
    with pytest.raises(ValueError, match="'screw_joint' is helical"):
        fd.Scene(b.build(), ground=False).to_mjcf()
    b = fd.ModelBuilder("deep_free")
    b.add_joint("hinge", "revolute_z", 0, None)
    b.add_body("hinge", 1.0, (0, 0, 0), np.eye(3) * 0.1)
    b.add_joint("floating", "freeflyer", 1, None)
    b.add_body("floating", 1.0, (0, 0, 0), np.eye(3) * 0.1)
    with pytest.raises(ValueError, match="freeflyer joint 'floating' is not on a root body"):
        fd.Scene(b.build(), ground=False).to_mjcf()
    ball = samples.random_tree(1, seed=0, types=("spherical",))
    ball = ball.with_armature(1, [0.1, 0.2, 0.1])
    with pytest.raises(ValueError, match="armature .0.1, 0.2, 0.1.; MuJoCo's ball joint"):
        fd.Scene(ball, ground=False).to_mjcf()


def test_warnings_where_the_twin_steps_differently():
    planar = samples.random_tree(1, seed=0, types=("planar",))
    with pytest.warns(MJCFWarning, match="'j0_planar' .planar. has armature on its transl"):
        fd.Scene(planar, ground=False).to_mjcf()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fd.Scene(bare_model(_robot("talos")), ground=False).to_mjcf()
    assert not caught  # no friction, no warning
    rough = fm.load("ur5", source="example-robot-data").with_friction(1, [0.5])
    with pytest.warns(MJCFWarning, match="has dry friction"):
        fd.Scene(rough, ground=False).to_mjcf()


GEOM_XML = """
<mujoco>
  <option timestep="0.001" cone="elliptic" integrator="Euler"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <geom name="step" type="box" size="0.2 0.2 0.05" pos="0.5 0 0.05"/>
    <body name="box" pos="0 0 0.3" euler="0.3 0.2 0.1">
      <freejoint/>
      <geom type="box" size="0.1 0.08 0.06" mass="1.5" friction="0.7 0.005 0.0001"/>
    </body>
    <body name="pill" pos="0.05 0.02 0.6" euler="1.2 0 0">
      <freejoint/>
      <geom type="capsule" size="0.04 0.1" mass="0.5"/>
    </body>
    <body name="ball" pos="0.45 0 0.4">
      <freejoint/>
      <geom type="sphere" size="0.05" mass="0.3" solref="0.01 1" margin="0.002"/>
    </body>
    <body name="ghost" pos="0.05 0.02 0.6">
      <freejoint/>
      <geom type="cylinder" size="0.05 0.05" mass="0.3"/>
    </body>
  </worldbody>
  <contact><exclude body1="ghost" body2="pill"/></contact>
</mujoco>
"""


def test_the_twin_of_a_scene_with_geoms_steps_as_mujocos_own_file():
    """A scene built from an MJCF (load_mjcf + fastdyn.io.collision_geoms: a tilted box, a
    capsule landing on it, a soft ball with a margin on a fixed world box, a cylinder that
    starts inside the capsule, excluded from it) and its twin (Scene.to_mjcf) step in MuJoCo
    as the original file does: the same contacts at every step and the same states until
    round-off differences (the twin's inertia is written as a full tensor, whose principal
    axes MuJoCo orders differently) meet a contact's activation. A size, a friction, a
    solref, a margin or the exclusion lost on the way changes the contacts within the
    first 300 steps (without the exclusion, the cylinder and the capsule fly apart)."""
    model = fd.load_mjcf(GEOM_XML)
    geoms = fd.io.collision_geoms(model, GEOM_XML)
    scene = fd.Scene(model, dt=1e-3, ground=False)
    scene.add_geoms(geoms)  # (its geoms and its exclusion)
    assert scene.geom_names == list(geoms.names) and len(geoms.exclude) == 1
    m0, m1 = (mujoco.MjModel.from_xml_string(x) for x in (GEOM_XML, scene.to_mjcf()))
    assert (m0.nq, m0.ngeom) == (m1.nq, m1.ngeom)
    d0, d1 = mujoco.MjData(m0), mujoco.MjData(m1)
    d1.qpos[:] = d0.qpos
    touched = 0
    for k in range(300):
        mujoco.mj_step(m0, d0)
        mujoco.mj_step(m1, d1)
        assert d0.ncon == d1.ncon, k
        touched = max(touched, d0.ncon)
        # reached: 1.7e-18 (bit for bit until the first contacts, ~step 220)
        assert np.abs(d0.qpos - d1.qpos).max() < 1e-16, k
    assert touched >= 6
