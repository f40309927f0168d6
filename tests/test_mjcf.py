"""MJCF loader: MuJoCo compiles the same files and is the oracle (tests/mjcf_oracle.py says how
states, forces and mass matrices convert); Pinocchio's MJCF parser agrees where it loads a file.

Models: MJCF written here (a cart-pole; a small humanoid with default classes, childclass,
nested includes, frames, every orientation, several joints in a body, ref, ball and free
joints, inertia from geoms; bodies of every geom kind under each <compiler> mass option) and
MJCF that MuJoCo writes from example-robot-data URDFs (mj_saveLastXML of the URDF with its
mesh geoms removed, fixed and with a floating base).
"""

import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.io import MJCFError, MJCFWarning, load_mjcf, mjcf_collisions, parse_mjcf

mujoco = pytest.importorskip("mujoco")
import mjcf_oracle as mo  # noqa: E402

TOL = 1e-9  # relative; MuJoCo and fastdyn agree to ~1e-13 on these models

CARTPOLE = """<mujoco model="cartpole">
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <geom name="rail" type="capsule" fromto="-2 0 1 2 0 1" size=".02" contype="0" conaffinity="0"/>
    <body name="cart" pos="0 0 1">
      <joint name="slider" type="slide" axis="1 0 0" range="-1.8 1.8" damping=".5" armature=".1"/>
      <geom name="cart" type="box" size=".2 .1 .05" mass="1"/>
      <body name="pole">
        <joint name="hinge" axis="0 1 0" damping=".05" range="-170 170"/>
        <geom name="pole" type="capsule" fromto="0 0 0 0 0 .6" size=".045" mass=".1"/>
        <site name="tip" pos="0 0 .6"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

HUMANOID = """<mujoco model="small_humanoid">
  <compiler angle="degree" eulerseq="zyx"/>
  <option gravity="0.1 -0.2 -9.81" timestep="0.005"/>
  <include file="defaults.xml"/>
  <asset>
    <texture name="grid" type="2d" builtin="checker" width="64" height="64" rgb1=".1 .2 .3"
             rgb2=".2 .3 .4"/>
    <material name="grid" texture="grid"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 .1" material="grid"/>
    <light name="top" pos="0 0 3"/>
    <site name="origin" pos=".1 .2 0" euler="0 0 30"/>
    <body name="torso" pos="0 0 1.3" childclass="body">
      <freejoint name="root"/>
      <camera name="track" pos="0 -3 0" xyaxes="1 0 0 0 0 1"/>
      <geom name="torso" type="capsule" fromto="0 -.07 0 0 .07 0" size=".07"/>
      <geom name="upper_waist" type="ellipsoid" size=".06 .08 .05" pos="-.01 0 -.12"
            euler="10 20 5"/>
      <geom name="torso_visual" class="visual" type="box" size=".1 .1 .1"/>
      <site name="imu" pos="0 0 .05" xyaxes="0 1 0 -1 0 0"/>
      <body name="head" pos="0 0 .19">
        <inertial pos="0 0 .02" quat=".9 .1 .2 .3" mass="2" diaginertia=".01 .012 .013"/>
        <joint name="neck" type="ball" pos="0 0 -.03"/>
        <geom name="head" type="sphere" size=".09"/>
      </body>
      <include file="parts/arm.xml"/>
      <body name="pelvis" pos="0 0 -.26" axisangle="0 0 1 10">
        <joint name="abdomen_z" pos="0 0 .1" axis="0 0 1" class="stiff"/>
        <joint name="abdomen_y" pos="0 0 .1" axis="0 1 0" range="-75 30"/>
        <geom name="pelvis" type="box" size=".09 .14 .06"/>
        <body name="thigh_r" pos="0 -.1 -.04" zaxis=".1 0 1" childclass="leg">
          <joint name="hip_x_r" axis="1 0 0" class="hip"/>
          <joint name="hip_z_r" axis="0 0 1" range="-60 35"/>
          <joint name="hip_y_r" axis="0 1 0" range="-110 20" ref="-10"/>
          <geom name="thigh_r" type="cylinder" fromto="0 0 0 0 .01 -.34" size=".06"/>
          <body name="shin_r" pos="0 .01 -.403">
            <joint name="knee_r" pos="0 0 .02" axis="0 -1 0" range="-160 -2"/>
            <geom name="shin_r" type="capsule" fromto="0 0 0 0 0 -.3" size=".049"/>
            <frame pos="0 0 -.39" euler="20 0 0">
              <body name="foot_r">
                <geom name="foot_r" type="box" size=".08 .04 .02" pos=".03 0 0"/>
                <site name="sole_r" pos="0 0 -.02" quat="0 0 0 1"/>
              </body>
            </frame>
          </body>
        </body>
        <body name="thigh_l" pos="0 .1 -.04" xyaxes="1 0 .1 0 1 0" childclass="leg">
          <joint name="hip_x_l" axis="-1 0 0" class="hip"/>
          <joint name="hip_y_l" axis="0 1 0" range="-110 20"/>
          <geom name="thigh_l" type="capsule" fromto="0 0 0 0 -.01 -.34" size=".06" mass="4"/>
          <body name="shin_l" pos="0 -.01 -.403">
            <joint name="knee_l" type="slide" axis="0 0 1" range="-.05 .05" ref=".02"/>
            <geom name="shin_l" type="ellipsoid" size=".05 .05 .15" pos="0 0 -.15"/>
          </body>
        </body>
      </body>
    </body>
    <body name="crate" pos="1 0 .5" euler="0 0 40">
      <freejoint/>
      <geom type="box" size=".1 .2 .1"/>
      <site pos=".1 0 0" euler="0 90 0"/>
    </body>
    <body pos="2 0 0">
      <geom type="sphere" size=".1"/>
    </body>
    <body name="target" mocap="true" pos="0 1 1" quat="0 1 0 0">
      <geom type="sphere" size=".05" contype="0" conaffinity="0"/>
      <site name="target" pos="0 0 .1"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="hip_y_r" gear="100"/>
  </actuator>
  <sensor>
    <framepos objtype="site" objname="imu"/>
  </sensor>
</mujoco>
"""

DEFAULTS = """<mujoco>
  <default>
    <joint damping=".2" armature=".01" frictionloss=".01"/>
    <geom density="800" friction=".7"/>
    <default class="body">
      <geom contype="1" conaffinity="1"/>
      <default class="stiff">
        <joint damping="1" armature=".05" range="-45 45"/>
      </default>
      <default class="leg">
        <default class="hip">
          <joint range="-30 30" damping="2" armature=".02"/>
        </default>
        <joint damping=".5" frictionloss=".03"/>
        <geom density="1100"/>
      </default>
      <default class="visual">
        <geom contype="0" conaffinity="0" group="3" density="0"/>
      </default>
    </default>
  </default>
</mujoco>
"""

ARM = """<mujoco>
  <body name="upper_arm_r" pos="0 -.17 .06" euler="0 0 -30">
    <joint name="shoulder1_r" axis="2 1 1" range="-85 60"/>
    <joint name="shoulder2_r" axis="0 -1 1" range="-85 60" pos=".01 0 0"/>
    <geom name="upper_arm_r" type="capsule" fromto="0 0 0 .16 -.16 -.16" size=".04"/>
    <body name="lower_arm_r" pos=".18 -.18 -.18" quat="1 .2 .1 0">
      <joint name="elbow_r" axis="0 -1 1" range="-90 50" ref="15"/>
      <geom name="lower_arm_r" type="capsule" fromto=".01 .01 .01 .17 .17 .17" size=".031"/>
      <include file="hand.xml"/>
    </body>
  </body>
</mujoco>
"""

HAND = """<mujoco>
  <body name="hand_r" pos=".18 .18 .18">
    <geom name="hand_r" type="sphere" size=".04"/>
    <site name="palm_r" zaxis="1 1 1"/>
  </body>
</mujoco>
"""


def _write(folder: Path, files: dict) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder / next(iter(files))


@pytest.fixture(scope="module")
def cartpole(tmp_path_factory):
    return _write(tmp_path_factory.mktemp("cartpole"), {"cartpole.xml": CARTPOLE})


@pytest.fixture(scope="module")
def humanoid(tmp_path_factory):
    return _write(tmp_path_factory.mktemp("humanoid"), {
        "humanoid.xml": HUMANOID, "defaults.xml": DEFAULTS, "parts/arm.xml": ARM,
        "parts/hand.xml": HAND})


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MJCFWarning)
        return fn(*args, **kw)


def check_against_mujoco(path, nstates=3, root_joint=None):
    """Joints, frames, masses and dynamics of ``path`` as MuJoCo compiles it."""
    model = _quiet(load_mjcf, path)
    m = mo.mj_load(path)
    assert (model.nq, model.nv) == (m.nq, m.nv)
    assert mo.joint_errors(model, m) == []
    assert mo.inertia_errors(_quiet(parse_mjcf, path), m) < 1e-10
    assert mo.frame_errors(model, m) < 1e-12
    errs = mo.dynamics_errors(model, m, nstates)
    assert np.all(errs < TOL), f"RNEA, nonlinear effects, M, ABA relative errors {errs}"
    return model, m


def test_cartpole_has_two_dofs_and_matches_mujoco(cartpole):
    """Pinocchio #2364's model class: a slider carrying a hinge is 2 dofs, not 1."""
    model, m = check_against_mujoco(cartpole)
    assert model.nv == 2 and model.joint_names == ("universe", "slider", "hinge")
    assert model.joint_type("slider") == "prismatic_x"
    assert model.joint_type("hinge") == "revolute_y"
    assert np.allclose(model.gravity, m.opt.gravity)
    assert model.upper_position_limit[1] == pytest.approx(np.radians(170), rel=1e-15)


def test_humanoid_defaults_includes_and_orientations_match_mujoco(humanoid):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # this model has nothing fastdyn leaves out
        model = load_mjcf(humanoid)
    model2, m = check_against_mujoco(humanoid)
    assert model2.nq == model.nq == m.nq == 7 + 4 + 3 + 2 + 3 + 1 + 2 + 1 + 7
    assert np.allclose(model.gravity, m.opt.gravity)
    # several joints in one body: massless links between them, every joint kept by name
    assert "pelvis_abdomen_z" in model.frame_names and "thigh_r_hip_z_r" in model.frame_names
    assert model.joint_type("root") == "freeflyer" and model.joint_type("neck") == "spherical"
    assert model.joint_names[-1] == "joint14"  # the crate's unnamed free joint: MuJoCo's id
    assert "body13" in model.frame_names and "hand_r_fixed" in model.frame_names
    assert "site4" in model.frame_names  # the crate's site, after origin, imu, palm_r, sole_r


def test_gravity_option_and_flag(tmp_path):
    """<option gravity> is the model's gravity; <flag gravity="disable"> makes it zero (MuJoCo
    keeps opt.gravity and skips it; the dynamics agree)."""
    for option, g in (('<option gravity="0 1 -3"/>', (0, 1, -3)),
                      ('<option gravity="0 1 -3"><flag gravity="disable"/></option>', (0, 0, 0))):
        path = tmp_path / "g.xml"
        path.write_text(CARTPOLE.replace("<worldbody>", option + "<worldbody>"))
        model, _ = check_against_mujoco(path, nstates=1)
        assert np.array_equal(model.gravity, g)


def test_inputs_path_string_bytes_and_from_mjcf(cartpole):
    ref = load_mjcf(cartpole)
    for arg in (str(cartpole), CARTPOLE, CARTPOLE.encode()):
        m = load_mjcf(arg)
        assert m.joint_names == ref.joint_names and np.array_equal(m.prm, ref.prm)
    with pytest.warns(DeprecationWarning, match="fastdyn.load_mjcf"):
        m = fd.Model.from_mjcf(CARTPOLE)  # deprecated, still the same model this release
    assert np.array_equal(m.prm, ref.prm)
    assert fd.load_mjcf is load_mjcf


@pytest.mark.parametrize("seq", ["xyz", "XYZ", "zyx", "ZYX", "xyx", "xYz"])
@pytest.mark.parametrize("angle", ["degree", "radian"])
def test_orientations_and_euler_sequences(tmp_path, seq, angle):
    """Every orientation form, composed through bodies, frames and sites, places every body
    and site where MuJoCo does."""
    k = 1.0 if angle == "degree" else np.pi / 180
    a = lambda *x: " ".join(f"{v * k:.17g}" for v in x)  # noqa: E731
    xml = f"""<mujoco><compiler angle="{angle}" eulerseq="{seq}"/><worldbody>
      <body name="a" pos="0 0 1" euler="{a(10, 20, 30)}">
        <joint axis="1 2 3"/><geom size=".1"/>
        <site name="s_aa" axisangle="1 -1 2 {a(40)}"/>
        <body name="b" pos=".1 .2 .3" axisangle="1 1 0 {a(-35)}">
          <joint type="slide" axis="0 1 1"/><geom type="box" size=".1 .2 .3"/>
          <frame pos=".05 0 0" euler="{a(0, 30, 60)}"><joint axis="1 0 0" pos="0 .1 0"/>
            <geom type="capsule" size=".02 .1" pos="0 0 .1"/><site name="s_f" pos="0 .1 0"/>
          </frame>
          <frame euler="{a(5, -15, 25)}" pos="0 .1 0">
            <body name="c" xyaxes="1 1 0 -1 1 .5"><joint type="ball"/><geom size=".1"/>
              <site name="s_z" zaxis="0 0 -1"/><site name="s_q" quat="1 2 3 4"/>
              <body name="d" zaxis="1 -2 .5" pos="0 0 .2"><joint axis="0 0 1" pos=".1 0 0"/>
                <geom type="cylinder" size=".05 .1"/><site name="s_e" euler="{a(90, 45, -30)}"/>
              </body>
            </body>
          </frame>
        </body>
      </body></worldbody></mujoco>"""
    path = tmp_path / "orient.xml"
    path.write_text(xml)
    check_against_mujoco(path, nstates=2)


GEOMS = """<mujoco><compiler {compiler}/><worldbody>
  <body name="spheres" pos="0 0 1"><joint/>
    <geom type="sphere" size=".1" pos=".1 .2 .3"/><geom type="sphere" size=".2" mass="3"/>
  </body>
  <body name="capsules" pos="1 0 1"><joint axis="1 0 0"/>
    <geom type="capsule" size=".05 .2" quat="1 1 0 0"/>
    <geom type="capsule" size=".07" fromto="0 0 0 .3 .1 -.2" density="300"/>
  </body>
  <body name="cylinders" pos="2 0 1"><joint type="slide"/>
    <geom type="cylinder" size=".1 .3" euler="30 60 10"/>
    <geom type="cylinder" size=".05" fromto="-.1 0 0 .2 .2 .2" mass=".5"/>
  </body>
  <body name="boxes" pos="3 0 1"><joint type="ball"/>
    <geom type="box" size=".1 .2 .3" pos="0 .1 0" axisangle="1 2 3 40"/>
    <geom type="box" size=".05 .3" fromto="0 0 0 .1 .2 .3"/>
  </body>
  <body name="ellipsoids" pos="4 0 1"><joint axis="0 1 0"/>
    <geom type="ellipsoid" size=".1 .2 .3" xyaxes="0 1 0 -1 0 .2"/>
    <geom type="ellipsoid" size=".04" fromto="0 0 0 0 .2 0" group="4"/>
    <geom type="sphere" size=".3" group="5" contype="0" conaffinity="0"/>
  </body>
  <body name="declared" pos="5 0 1"><joint/>
    <inertial pos=".1 0 .2" euler="10 20 30" mass="2" diaginertia=".1 .2 .25"/>
    <geom type="box" size=".1 .1 .1"/>
  </body>
  <body name="full" pos="6 0 1"><joint/>
    <inertial pos="0 .1 0" mass="1.5" fullinertia=".3 .4 .5 .01 -.02 .03"/>
    <geom type="sphere" size=".1"/>
    <body name="welded" pos=".2 0 0"><geom type="box" size=".05 .05 .05"/></body>
  </body>
</worldbody></mujoco>"""


@pytest.mark.parametrize("compiler", [
    "", 'inertiafromgeom="true"', 'inertiagrouprange="0 3"', 'boundmass="20" boundinertia="0.7"',
    'settotalmass="50"', 'balanceinertia="true" inertiafromgeom="true"',
    'angle="radian" inertiafromgeom="auto"'])
def test_masses_from_geoms_and_inertials(tmp_path, monkeypatch, compiler):
    """Mass, centre of mass and inertia of every body, from geoms (every primitive, fromto,
    mass or density, group range) or <inertial>, under each <compiler> mass option."""
    monkeypatch.chdir(tmp_path)  # MuJoCo logs settotalmass's deprecation to ./MUJOCO_LOG.TXT
    path = tmp_path / "geoms.xml"
    path.write_text(GEOMS.format(compiler=compiler))
    check_against_mujoco(path, nstates=2)


def test_inertiafromgeom_false_needs_inertials(tmp_path, monkeypatch):
    """Bodies without <inertial> are then massless, and moving ones are refused, by MuJoCo too."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "geoms.xml"
    path.write_text(GEOMS.format(compiler='inertiafromgeom="false"'))
    with pytest.raises(ValueError, match="mjMINVAL"):
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(MJCFError, match="body 'spheres' moves but has mass 0") as e:
        load_mjcf(path)
    assert e.value.line == 2


def test_ref_keeps_q_equal_to_mujoco_qpos(humanoid):
    """With ref, the body is where the file draws it at q = ref (MuJoCo's qpos0), so q is
    qpos and the limits are the file's range."""
    model = _quiet(load_mjcf, humanoid)
    m = mo.mj_load(humanoid)
    i = model.jnt[model.joint_id("hip_y_r")]["idx_q"]
    assert m.qpos0[m.joint("hip_y_r").qposadr[0]] == pytest.approx(np.radians(-10))
    assert model.lower_position_limit[i] == pytest.approx(np.radians(-110), rel=1e-14)
    assert model.upper_position_limit[i] == pytest.approx(np.radians(20), rel=1e-14)
    d, data = mujoco.MjData(m), model.create_data()
    mujoco.mj_kinematics(m, d)  # at qpos0
    fd.forward_kinematics(model, data, mo.q_of(m, m.qpos0))
    for body in ("shin_r", "hand_r"):
        T = fd.frame_placement(model, data, body)
        assert np.allclose(T[:3, 3], d.xpos[m.body(body).id], rtol=0, atol=1e-14)
        assert np.allclose(T[:3, :3].ravel(), d.xmat[m.body(body).id], rtol=0, atol=1e-14)


def test_includes_resolve_as_mujoco_does(tmp_path):
    """A relative include is looked up in the main file's folder first, then in the including
    file's: MuJoCo's order, checked against MuJoCo on the same files."""
    main = _write(tmp_path, {
        "main.xml": '<mujoco><include file="sub/a.xml"/><worldbody><body><joint/>'
                    '<geom size=".1"/></body></worldbody></mujoco>',
        "sub/a.xml": '<mujoco><include file="b.xml"/></mujoco>',
        "sub/b.xml": '<mujoco><option gravity="0 0 -1"/></mujoco>',
        "b.xml": '<mujoco><option gravity="0 0 -2"/></mujoco>'})
    for expect in (-2.0, -1.0):
        assert load_mjcf(main).gravity[2] == mujoco.MjModel.from_xml_path(str(main)).opt.gravity[2]
        assert load_mjcf(main).gravity[2] == expect
        (tmp_path / "b.xml").unlink(missing_ok=True)


def test_defaults_classes_match_mujoco_joint_by_joint(humanoid):
    model = _quiet(load_mjcf, humanoid)
    m = mo.mj_load(humanoid)
    assert np.array_equal(model.damping, m.dof_damping)
    assert np.array_equal(model.armature, m.dof_armature)
    assert np.array_equal(model.friction, m.dof_frictionloss)
    k = model.jnt[model.joint_id("hip_x_l")]["idx_v"]
    assert model.damping[k] == 2.0  # hip overrides leg ...
    assert model.friction[k] == 0.03  # ... and inherits what leg sets after it (MuJoCo's order)


TETRAHEDRON = "v 0 0 0\nv .1 0 0\nv 0 .1 0\nv 0 0 .1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"

MENAGERIE = """<mujoco model="arm">
  <compiler angle="radian" meshdir="assets" autolimits="true"/>
  <option integrator="implicitfast" timestep="0.002"/>
  <default>
    <default class="arm">
      <material specular="0.5" shininess="0.25"/>
      <joint armature="0.1" damping="1" axis="0 0 1" range="-2.8973 2.8973"/>
      <general dyntype="none" biastype="affine" ctrlrange="-2.8973 2.8973" forcerange="-87 87"/>
      <default class="visual">
        <geom type="mesh" contype="0" conaffinity="0" group="2"/>
      </default>
      <default class="collision">
        <geom type="mesh" group="3"/>
      </default>
      <site size="0.001" rgba="0.5 0.5 0.5 0.3" group="4"/>
    </default>
  </default>
  <asset>
    <material class="arm" name="white" rgba="1 1 1 1"/>
    <mesh name="link0" file="link0.obj"/>
    <mesh name="link1" file="link1.obj"/>
  </asset>
  <worldbody>
    <light name="top" pos="0 0 2" mode="trackcom"/>
    <body name="link0" childclass="arm">
      <inertial mass="0.63" pos="-0.04 -0.0003 0.06" diaginertia="0.0031 0.0041 0.0043"/>
      <geom mesh="link0" material="white" class="visual"/>
      <geom mesh="link0" class="collision"/>
      <body name="link1" pos="0 0 0.333">
        <inertial mass="4.97" pos="0.0039 0.0021 -0.0476" quat="0.7115 0.0063 -0.0131 0.7025"
                  diaginertia="0.7071 0.7034 0.0085"/>
        <joint name="joint1"/>
        <geom mesh="link1" material="white" class="visual"/>
        <geom mesh="link1" class="collision"/>
        <body name="link2" quat="1 -1 0 0">
          <inertial mass="0.647" pos="-0.0031 -0.0287 0.0035" quat="-0.168 0.828 -0.123 0.52"
                    diaginertia="0.031 0.0283 0.0027"/>
          <joint name="joint2" range="-1.7628 1.7628"/>
          <geom mesh="link1" class="collision"/>
          <body name="hand" pos="0 -0.316 0" quat="1 1 0 0">
            <inertial mass="0.73" pos="-0.01 0 0.03" diaginertia="0.001 0.0025 0.0017"/>
            <joint name="finger" type="slide" axis="0 1 0" range="0 0.04" armature="0.01"/>
            <geom type="box" size="0.01 0.02 0.03" class="collision"/>
            <site name="attachment_site" pos="0 0 0.1"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <contact>
    <exclude body1="link0" body2="link1"/>
  </contact>
  <actuator>
    <general class="arm" name="actuator1" joint="joint1" gainprm="4500" biasprm="0 -4500 -450"/>
  </actuator>
  <keyframe>
    <key name="home" qpos="0.1 0.3 0.02" ctrl="0.1"/>
  </keyframe>
</mujoco>
"""


def test_menagerie_style_file(tmp_path):
    """The shape of a MuJoCo Menagerie robot: classes for visual and collision meshes, explicit
    inertials, meshdir, actuators, contact exclusions and keyframes. It loads without a
    warning (the meshes carry no mass there), matches MuJoCo, and a keyframe's qpos is q."""
    path = _write(tmp_path, {"arm.xml": MENAGERIE, "assets/link0.obj": TETRAHEDRON,
                             "assets/link1.obj": TETRAHEDRON})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = load_mjcf(path)
    _, m = check_against_mujoco(path)
    d, data = mujoco.MjData(m), model.create_data()
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_kinematics(m, d)
    fd.forward_kinematics(model, data, d.qpos)
    T = fd.frame_placement(model, data, "attachment_site")
    assert np.allclose(T[:3, 3], d.site_xpos[0], rtol=0, atol=1e-14)
    scene = fd.Scene(model)
    with pytest.warns(MJCFWarning, match="3 mesh collision shapes .*link0 .link0, line 28"):
        assert len(scene.add_mjcf_collisions(path)) == 8  # the hand's box


# --- robots MuJoCo converts from example-robot-data URDFs ---------------------------------------

ROBOTS = {  # name: (URDF under example-robot-data/robots, floating base)
    "ur5": ("ur_description/urdf/ur5_robot.urdf", False),
    "panda": ("panda_description/urdf/panda.urdf", False),
    "solo12": ("solo_description/robots/solo12.urdf", False),
    "talos": ("talos_data/robots/talos_reduced.urdf", False),
    "solo12_free": ("solo_description/robots/solo12.urdf", True),
    "talos_free": ("talos_data/robots/talos_reduced.urdf", True),
}


def mujoco_mjcf(urdf: Path, out: Path, floating: bool) -> Path:
    """The MJCF MuJoCo writes for a URDF: mesh visuals and collisions dropped (MuJoCo would
    need the files), and for a floating base a "floating" root joint, which MuJoCo's URDF
    import turns into a free joint."""
    root = ET.parse(urdf).getroot()
    for link in root.findall("link"):
        for tag in ("visual", "collision"):
            for e in link.findall(tag):
                if e.find("geometry/mesh") is not None:
                    link.remove(e)
    if floating:
        children = {j.find("child").get("link") for j in root.findall("joint")}
        base = next(lk.get("name") for lk in root.findall("link")
                    if lk.get("name") not in children)
        ET.SubElement(root, "link", name="world")
        j = ET.SubElement(root, "joint", name="root_joint", type="floating")
        ET.SubElement(j, "parent", link="world")
        ET.SubElement(j, "child", link=base)
    m = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))
    mujoco.mj_saveLastXML(str(out), m)
    return out


@pytest.fixture(scope="module")
def robot_files(tmp_path_factory):
    try:
        from fastdyn.models import example_robot_data_dir

        erd = example_robot_data_dir()
    except FileNotFoundError:
        pytest.skip("needs example-robot-data")
    folder = tmp_path_factory.mktemp("robots")
    return {name: mujoco_mjcf(erd / rel, folder / f"{name}.xml", free)
            for name, (rel, free) in ROBOTS.items()}


@pytest.mark.parametrize("name", list(ROBOTS))
def test_robots_mujoco_wrote_match_mujoco(robot_files, name):
    model, m = check_against_mujoco(robot_files[name], nstates=2)
    assert model.nv == {"ur5": 6, "panda": 9, "solo12": 12, "talos": 32, "solo12_free": 18,
                        "talos_free": 38}[name]


# --- Pinocchio's MJCF parser ---------------------------------------------------------------------

# What Pinocchio 4.1's buildModelFromMJCF makes of each file: "same" (same joints, checked
# below), or why it is skipped. It reads no <include>, only the worldbody's first body and
# nothing inside <frame> elements, and it ignores <option gravity> (the comparison gives
# the fastdyn model Pinocchio's gravity; the MuJoCo tests check the file's).
PINOCCHIO = {
    "cartpole": "same",
    "humanoid": "refused: no <include> (IndexError unordered_map::at)",
    "humanoid_flat": "same",  # MuJoCo's save of it, without the crate and the foot's <frame>
    "ur5": "same", "panda": "the fingers, inside <frame>, are dropped (7 of 9 dofs)",
    "solo12": "four top-level legs: it keeps the first", "talos": "the legs are top-level bodies",
    "solo12_free": "same", "talos_free": "the grippers, inside <frame>, are dropped (36 of 38)",
}


@pytest.fixture(scope="module")
def humanoid_flat(tmp_path_factory):
    """The humanoid as MuJoCo writes it (includes expanded), without what Pinocchio cannot
    read: the crate (a second top-level body) and the <frame> around the right foot."""
    xml = HUMANOID[:HUMANOID.index('    <body name="crate"')] + \
        HUMANOID[HUMANOID.index("  </worldbody>"):]
    xml = xml.replace('<frame pos="0 0 -.39" euler="20 0 0">\n              <body name="foot_r">',
                      '<body name="foot_r" pos="0 0 -.39" euler="20 0 0">')
    xml = xml.replace("</body>\n            </frame>", "</body>")
    folder = tmp_path_factory.mktemp("humanoid_flat")
    src = _write(folder, {"src.xml": xml, "defaults.xml": DEFAULTS, "parts/arm.xml": ARM,
                          "parts/hand.xml": HAND})
    mujoco.mj_saveLastXML(str(folder / "flat.xml"), mujoco.MjModel.from_xml_path(str(src)))
    return folder / "flat.xml"


def _pin_agrees(path, root_joint=None):
    pin = pytest.importorskip("pinocchio")
    model = _quiet(load_mjcf, path, root_joint=root_joint)
    pm = (pin.buildModelFromMJCF(str(path)) if root_joint is None else
          pin.buildModelFromMJCFAndRootJoint(str(path), pin.JointModel(pin.JointModelFreeFlyer())))
    assert (pm.nq, pm.nv) == (model.nq, model.nv)
    model.gravity = pm.gravity.linear
    pd, data = pm.createData(), model.create_data()
    assert np.allclose(pm.armature, model.armature, rtol=1e-15, atol=0)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
        v, a = rng.normal(size=pm.nv), rng.normal(size=pm.nv)
        tau = fd.rnea(model, data, q, v, a).copy()
        assert mo.relative(tau, pin.rnea(pm, pd, q, v, a)) < TOL
        M = fd.crba(model, data, q)
        Mp = pin.crba(pm, pd, q)
        assert mo.relative(np.triu(M), np.triu(Mp)) < TOL
        assert mo.relative(fd.aba(model, data, q, v, tau), a) < TOL
        assert mo.relative(pin.aba(pm, pd, q, v, tau), a) < TOL
    return model, pm


@pytest.fixture(scope="module")
def all_files(cartpole, humanoid, humanoid_flat, robot_files):
    return dict(robot_files, cartpole=cartpole, humanoid=humanoid, humanoid_flat=humanoid_flat)


@pytest.mark.parametrize("name", [n for n, why in PINOCCHIO.items() if why == "same"])
def test_pinocchio_mjcf_parser_agrees(name, all_files):
    _pin_agrees(all_files[name])


def test_pinocchio_skips_are_still_true(all_files):
    """The files skipped above still fail or lose dofs in Pinocchio (if a later Pinocchio
    reads them whole, move them to the compared ones)."""
    pin = pytest.importorskip("pinocchio")
    for name, why in PINOCCHIO.items():
        if why == "same":
            continue
        path = str(all_files[name])
        if why.startswith("refused"):
            with pytest.raises(Exception):
                pin.buildModelFromMJCF(path)
        else:
            assert pin.buildModelFromMJCF(path).nv < _quiet(load_mjcf, path).nv, name


def test_root_joint_floats_the_only_body_as_pinocchio(tmp_path):
    """root_joint="freeflyer" replaces the worldbody's only body's placement by a free joint,
    as pinocchio.buildModelFromMJCF(path, JointModelFreeFlyer()) does."""
    path = tmp_path / "arm.xml"
    path.write_text(CARTPOLE.replace('<body name="cart" pos="0 0 1">\n      <joint name="slider" '
                                     'type="slide" axis="1 0 0" range="-1.8 1.8" damping=".5" '
                                     'armature=".1"/>', '<body name="cart" pos="0 0 1">')
                    .replace('<geom name="floor" type="plane" size="5 5 .1"/>', "")
                    .replace('<geom name="rail" type="capsule" fromto="-2 0 1 2 0 1" size=".02" '
                             'contype="0" conaffinity="0"/>', ""))
    model, _ = _pin_agrees(path, root_joint="freeflyer")
    assert model.joint_names == ("universe", "root_joint", "hinge")
    with pytest.raises(MJCFError, match="exactly one body, without a joint"):
        load_mjcf(CARTPOLE, root_joint="freeflyer")
    with pytest.raises(ValueError, match="unknown root_joint"):
        load_mjcf(path, root_joint="hovercraft")


# --- what is left out, collision geometry, the URDF side -----------------------------------------

def test_what_is_left_out_is_named_in_warnings():
    xml = """<mujoco><asset><mesh name="shell" file="shell.stl"/></asset><worldbody>
      <body name="f"><joint type="free" armature=".1"/><geom size=".1"/></body>
      <body name="b"><joint stiffness="3"/><geom type="sphere" size=".1"/>
        <geom name="hull" type="box" mesh="shell"/>
        <body name="c"><joint type="ball" range="0 30"/><geom size=".1"/></body>
      </body></worldbody>
      <equality><joint joint1="joint1" joint2="joint2"/></equality></mujoco>"""
    with pytest.warns(MJCFWarning) as rec:
        model = load_mjcf(xml)
    msg = " | ".join(str(w.message) for w in rec)
    for frag in ("hull (shell) in body 'b' (line 4)", "left out of their bodies' mass",
                 "1 joint spring(s) (stiffness) not modelled: <joint> (line 3)",
                 "cone limit(s) not modelled: <joint> (line 5)", "<equality> (line 7",
                 "free joint(s) with armature", "<joint> (line 2)"):
        assert frag in msg, (frag, msg)
    assert model.mass[2] == pytest.approx(1000 * 4 / 3 * np.pi * 0.1 ** 3, rel=1e-14)


def test_collision_geoms_and_scene(cartpole, humanoid):
    shapes = mjcf_collisions(cartpole)
    assert sorted(shapes) == ["cart", "pole", "world"]  # the rail does not collide
    (box,) = shapes["cart"]
    assert box.kind == "box" and box.size == pytest.approx((0.4, 0.2, 0.1))
    (cap,) = shapes["pole"]
    assert cap.kind == "capsule" and cap.size == pytest.approx((0.045, 0.6))
    assert np.allclose(cap.p, (0, 0, 0.3)) and np.allclose(cap.R[:, 2], (0, 0, -1))
    model = load_mjcf(cartpole)
    scene = fd.Scene(model, ground=False)
    added = scene.add_mjcf_collisions(cartpole)
    assert len(added) == 8 + 2 and len(scene.halfspaces) == 1  # the floor plane
    human = _quiet(load_mjcf, humanoid)
    scene = fd.Scene(human, ground=False)
    with pytest.warns(MJCFWarning, match="ellipsoid collision shapes"):
        scene.add_mjcf_collisions(humanoid)
    assert "torso_visual" not in " ".join(scene.sphere_names)


def test_urdf_and_mjcf_loaders_point_to_each_other(cartpole):
    with pytest.raises(fd.URDFError, match=r"MJCF \(MuJoCo\) file: load it with fastdyn.load_mjcf"):
        fd.load_urdf(cartpole)
    urdf = fd.models.path("double_pendulum")
    with pytest.raises(MJCFError, match="URDF: load it with fastdyn.load_urdf"):
        load_mjcf(urdf)
