"""The viewer's scene graph (fastdyn.view), read from the commands it sends to meshcat (a
recording window: no server, no browser), against independent placements: Pinocchio's
visual model (``updateGeometryPlacements``), MuJoCo's geom placements, fastdyn's
frame_placement for what only fastdyn places (contact spheres, axes), closed forms for the
arrows. tests/test_viewer_browser.py draws the exported page in Chromium."""

from __future__ import annotations

import re
import urllib.request
import warnings

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.errors import MeshWarning
from fastdyn.io.meshes import load_mesh

pytest.importorskip("meshcat")
pytest.importorskip("trimesh")
from fastdyn.view import Viewer, show  # noqa: E402

ROOT = "/meshcat/fastdyn/robot0"


def _erd(rel):
    return str(fd.models.example_robot_data_dir() / rel)


def _visual_oracle(urdf, free):
    """Pinocchio's visual placements of the URDF at random configurations (pin's q)."""
    pin = pytest.importorskip("pinocchio")
    pm = (pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer()) if free
          else pin.buildModelFromUrdf(urdf))
    robots = fd.models.example_robot_data_dir()
    gm = pin.buildGeomFromUrdf(pm, urdf, pin.GeometryType.VISUAL,
                               package_dirs=[str(robots.parent.parent)])
    return pin, pm, gm


@pytest.mark.parametrize("rel, free", [
    ("ur_description/urdf/ur5_robot.urdf", False),       # DAE meshes
    ("talos_data/robots/talos_reduced.urdf", True),      # STL; many links merged by fixed joints
])
def test_one_node_per_visual_placed_as_pinocchio_places_it(rel, free):
    urdf = _erd(rel)
    pin, pm, gm = _visual_oracle(urdf, free)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fd.URDFWarning)  # Talos's mimic tags on fixed joints
        model = fd.load_urdf(urdf, root_joint="freeflyer" if free else None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MeshWarning)  # every mesh file is found and read
        viewer = Viewer(model, urdf)
    nodes = {p for p in viewer.paths}
    names = {f"{ROOT}/visuals/{g.name}" for g in gm.geometryObjects}  # Pinocchio's "<link>_<i>"
    assert nodes == names
    drawn = viewer.recorder.objects()
    assert all(any(o.startswith(p + "/") for o in drawn) for p in nodes)
    meshes = [c for c in viewer.recorder.commands() if type(c).__name__ == "SetObject"
              and type(c.object.geometry).__name__ == "TriangularMeshGeometry"]
    files = [g for g in gm.geometryObjects if g.meshPath.lower().endswith((".stl", ".dae"))]
    assert len(meshes) == len(files) > 0  # meshes, not fallback spheres
    pd, gd = pm.createData(), pin.GeometryData(gm)
    lo, hi = np.clip(pm.lowerPositionLimit, -3, 3), np.clip(pm.upperPositionLimit, -3, 3)
    rng = np.random.default_rng(4)
    for _ in range(3):
        q = pin.randomConfiguration(pm, lo, hi)
        q[:3] = rng.uniform(-1, 1, 3) if free else q[:3]
        pin.forwardKinematics(pm, pd, q)
        pin.updateGeometryPlacements(pm, pd, gm, gd)
        viewer.display(q)  # fastdyn's q is Pinocchio's (quaternion x, y, z, w)
        T = viewer.recorder.transforms()
        err = max(np.abs(T[f"{ROOT}/visuals/{g.name}"] - gd.oMg[k].homogeneous).max()
                  for k, g in enumerate(gm.geometryObjects))
        assert err < 1e-12  # achieved 1.8e-15 (Talos), 2.8e-16 (UR5)


MJCF = """<?xml version="1.0"?>
<!-- not a <robot>: the root element tells the loaders apart -->
<mujoco>
  <compiler angle="radian" meshdir="assets"/>
  <asset><mesh name="tet" file="tet.obj" scale="2 2 2"/>
         <material name="red" rgba="1 0 0 1"/></asset>
  <worldbody>
    <body name="base" pos="0 0 0.5">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05" pos="0.1 0 0" euler="0 0.3 0" material="red"/>
      <geom type="sphere" size="0.05" group="3"/>
      <body name="arm" pos="0.3 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0" pos="0.05 0 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03" group="1"/>
        <body name="hand" pos="0 0 -0.4" euler="0.2 0 0">
          <geom type="cylinder" size="0.04 0.02" pos="0.01 0.02 0" rgba="0 1 0 1"/>
          <geom type="mesh" mesh="tet" pos="0 0 -0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""
TET = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def test_mjcf_geoms_are_placed_where_mujoco_places_them(tmp_path):
    """MJCF visuals: the drawn geoms (groups 0-2; the group-3 sphere is left out) on bodies
    with a joint away from the body origin and a body welded by a fixed joint."""
    mujoco = pytest.importorskip("mujoco")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "tet.obj").write_text(TET)
    path = tmp_path / "robot.xml"
    path.write_text(MJCF)
    mj = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mj)
    model = fd.load_mjcf(str(path))  # the mesh's mass from its volume, as MuJoCo's
    assert model.mass.sum() == pytest.approx(mj.body_mass.sum(), rel=1e-12)
    viewer = Viewer(model, str(path))
    kinds = {p.rsplit("/", 1)[1]: type(c.object.geometry).__name__
             for p, c in ((c.path.lower(), c) for c in viewer.recorder.commands()
                          if type(c).__name__ == "SetObject")}
    assert sorted(viewer.paths) == [f"{ROOT}/visuals/{n}" for n in
                                    ("arm_0", "base_0", "hand_0", "hand_1")]
    assert kinds["box"] == "Box" and kinds["mesh"] == "TriangularMeshGeometry"
    rng = np.random.default_rng(1)
    geoms = {"base_0": 0, "arm_0": 2, "hand_0": 3}  # MuJoCo's geom index (document order)
    for _ in range(3):
        q = rng.normal(size=model.nq)
        q[3:7] /= np.linalg.norm(q[3:7])
        md.qpos[:] = q
        md.qpos[3:7] = np.r_[q[6], q[3:6]]  # MuJoCo's quaternion is (w, x, y, z)
        mujoco.mj_kinematics(mj, md)
        viewer.display(q)
        T = viewer.recorder.transforms()
        for name, g in geoms.items():
            W = T[f"{ROOT}/visuals/{name}"]
            assert np.abs(W[:3, 3] - md.geom_xpos[g]).max() < 1e-12  # achieved 1e-16
            assert np.abs(W[:3, :3] - md.geom_xmat[g].reshape(3, 3)).max() < 1e-12
        # the mesh: its vertices where MuJoCo's mesh frame puts them (MuJoCo moves the mesh
        # to its inertial frame and the geom with it, so compare vertices, not frames)
        W = T[f"{ROOT}/visuals/hand_1"]
        v = load_mesh(tmp_path / "assets" / "tet.obj", 2.0).vertices
        ours = v @ W[:3, :3].T + W[:3, 3]
        R = md.geom_xmat[4].reshape(3, 3)
        start, n = mj.mesh_vertadr[0], mj.mesh_vertnum[0]
        theirs = mj.mesh_vert[start:start + n] @ R.T + md.geom_xpos[4]
        assert np.abs(np.sort(ours, axis=0) - np.sort(theirs, axis=0)).max() < 1e-6  # float32


def test_stick_figure_contacts_and_axes_follow_the_frames():
    """No visuals: a sphere at every joint and a cylinder to each child joint and foot;
    the scene's contact spheres and the axes sit on their frames (fd.frame_placement)."""
    scene, q, _, _ = fd.sim.standing_scene()
    model = scene.model
    viewer = Viewer(scene, frames=["FL_FOOT", "base_link"])
    rng = np.random.default_rng(2)
    data = model.create_data()
    for _ in range(3):
        qq = fd.integrate(model, q, rng.normal(scale=0.3, size=model.nv))
        viewer.display(qq)
        T = viewer.recorder.transforms()
        fd.forward_kinematics(model, data, qq)
        for j in range(1, model.njoints):
            J = fd.joint_placement(model, data, j)
            assert np.abs(T[f"{ROOT}/visuals/{model.joint_names[j]}_joint"] - J).max() < 1e-12
        for foot in fd.sim.QUADRUPED_FEET:
            F = fd.frame_placement(model, data, foot)
            C = T[f"{ROOT}/contacts/{foot}#{fd.sim.QUADRUPED_FEET.index(foot)}"]
            assert np.abs(C[:3, 3] - F[:3, 3]).max() < 1e-12
            # the knee's bone ends at the foot: its cylinder spans +-length/2 along y
            knee = model.frm[model.frame_id(foot)]["parent_joint"]
            W = T[f"{ROOT}/visuals/{model.joint_names[knee]}_bone0"]
            part = viewer.recorder.tree[f"{ROOT}/visuals/{model.joint_names[knee]}_bone0/bone"]
            L = part["SetObject"].object.geometry.height
            tip = W @ part["SetTransform"].matrix @ np.array([0, L / 2, 0, 1])
            assert np.abs(tip[:3] - F[:3, 3]).max() < 1e-12
        F = fd.frame_placement(model, data, "FL_FOOT")
        assert np.abs(T[f"{ROOT}/frames/FL_FOOT"] - F).max() < 1e-12
    assert f"/meshcat/fastdyn/environment/halfspace0/slab" in viewer.recorder.objects()


def _clip(viewer, path):
    anim = viewer.recorder.animation.animation
    return next(c for p, c in anim.clips.items() if p.lower() == path)


def _rot(x, y, z, w):  # a unit quaternion's rotation matrix (closed form)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def test_animation_keys_are_the_placements_of_the_sampled_rows():
    model = fd.models.load("ur5")
    T, dt = 101, 0.01  # 1 s: 31 frames at 30 fps
    s = np.linspace(0, 1, T)[:, None]
    Q = np.sin(3 * s + np.arange(model.nq))
    viewer = Viewer(model)
    viewer.animate(Q, dt=dt)
    data = model.create_data()
    name = model.joint_names[3]
    clip = _clip(viewer, f"{ROOT}/visuals/{name}_joint")
    pos, quat = clip.tracks["position"], clip.tracks["quaternion"]
    assert len(pos.frames) == 31 and clip.fps == 30
    for k in (0, 7, 30):
        row = min(int(round(k / 30 / dt)), T - 1)
        fd.forward_kinematics(model, data, Q[row])
        J = fd.joint_placement(model, data, 3)
        assert np.abs(np.array(pos.values[k]) - J[:3, 3]).max() < 1e-12
        assert np.abs(_rot(*quat.values[k]) - J[:3, :3]).max() < 1e-12


def test_a_batch_stands_side_by_side_or_overlaid():
    model = fd.models.load("double_pendulum")
    Q = np.random.default_rng(3).normal(size=(4, 5, model.nq))
    viewer = Viewer(model)
    viewer.animate(Q, offset=2.0)
    starts = []
    for k in range(4):
        clip = _clip(viewer, f"/meshcat/fastdyn/robot{k}/visuals/{model.joint_names[1]}_joint")
        starts.append(np.array(clip.tracks["position"].values[1]))
        assert len(clip.tracks["position"].frames) == 5  # dt None: one row a frame
    d = np.array(starts) - starts[0]
    # joint 1 hangs from the fixed base: the copies' joint-1 origins differ by the grid only
    grid = np.array([[0, 0], [0, 2], [2, 0], [2, 2]], float)
    assert np.abs(d[:, :2] - grid).max() < 1e-12 and np.abs(d[:, 2]).max() < 1e-12
    viewer.animate(Q, overlay=True)
    at = [np.array(_clip(viewer, f"/meshcat/fastdyn/robot{k}/visuals/{model.joint_names[1]}"
                               f"_joint").tracks["position"].values[1]) for k in range(4)]
    assert np.abs(np.array(at) - (starts[0] - [-1, -1, 0])).max() < 1e-12  # all in one place
    mats = [c.object.material for c in viewer.recorder.commands()
            if type(c).__name__ == "SetObject" and "/robot" in c.path.lower()]
    assert mats and all(m.opacity == 0.5 for m in mats)


def test_contact_forces_are_arrows_from_the_points():
    scene, q, kp, kd = fd.sim.standing_scene()
    q0 = q.copy()
    q0[2] += 0.05
    out = scene.rollout(q0, np.zeros(scene.model.nv), 300, kp=kp, kd=kd,
                        record=("q", "contacts"))
    viewer = Viewer(scene)
    viewer.animate(out, dt=scene.dt, forces=True, force_scale=0.01)
    k = 2  # third sphere, the only half-space
    name = f"{scene.pairs[k][0]}_h0"
    shaft = _clip(viewer, f"{ROOT}/forces/{name}_shaft")
    head = _clip(viewer, f"{ROOT}/forces/{name}_head")
    frame = len(shaft.tracks["position"].frames) - 1  # 0.3 s: the last step's force
    f, p = out.contact_forces[-1, k], out.contact_points[-1, k]
    assert f[2] > 1.0
    base = np.array(shaft.tracks["position"].values[frame])
    tip = np.array(head.tracks["position"].values[frame])
    assert np.abs(base - p).max() < 1e-12
    assert np.abs(tip - (p + 0.01 * f)).max() < 1e-12
    z = _rot(*shaft.tracks["quaternion"].values[frame])[:, 2]
    assert np.abs(z - f / np.linalg.norm(f)).max() < 1e-12
    assert abs(shaft.tracks["scale"].values[frame][2] - 0.01 * np.linalg.norm(f)) < 1e-12
    with pytest.raises(ValueError, match="recorded with 'contacts'"):
        viewer.animate(out.q, forces=True)
    viewer.display(q)  # a still picture: no arrows, no animation left
    assert not [p for p in viewer.recorder.tree if "/forces/" in p]
    assert not viewer.recorder.animation.animation.clips


def test_a_missing_or_broken_mesh_warns_naming_it_and_draws_a_sphere(tmp_path):
    pkg = tmp_path / "r"  # the package "r": package://r/... is found from inside it
    (pkg / "urdf").mkdir(parents=True)
    (pkg / "bad.stl").write_bytes(b"solid nothing here\n")
    urdf = pkg / "urdf" / "r.urdf"
    urdf.write_text("""<robot name="r">
      <link name="a"><visual><geometry><mesh filename="meshes/gone.stl"/></geometry></visual>
        <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
        </inertial></link>
      <link name="b"><visual><geometry><mesh filename="package://r/bad.stl"/></geometry>
        </visual><visual><origin xyz="0 0 0.1"/><geometry><box size="0.1 0.2 0.3"/></geometry>
        <material name="m"><color rgba="0 0 1 1"/></material></visual>
        <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
        </inertial></link>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>""")
    model = fd.load_urdf(str(urdf))
    with pytest.warns(MeshWarning) as got:
        viewer = Viewer(model, str(urdf))
    a, b = (str(w.message) for w in got)
    assert str(pkg / "urdf" / "meshes" / "gone.stl") in a and "does not exist" in a
    assert "link 'a'" in a and "drawn as a primitive" in a
    assert str(pkg / "bad.stl") in b and "no triangles" in b and "link 'b'" in b
    tree = viewer.recorder.tree
    assert type(tree[f"{ROOT}/visuals/a_0/sphere"]["SetObject"].object.geometry).__name__ \
        == "Sphere"
    assert type(tree[f"{ROOT}/visuals/b_0/sphere"]["SetObject"].object.geometry).__name__ \
        == "Sphere"
    box = tree[f"{ROOT}/visuals/b_1/box"]["SetObject"].object
    assert box.geometry.lengths == [0.1, 0.2, 0.3] and box.material.color == 0x0000FF


def test_load_mesh_reads_and_scales_a_file(tmp_path):
    (tmp_path / "tet.obj").write_text(TET)
    m = load_mesh(tmp_path / "tet.obj", scale=(1.0, 2.0, 3.0))
    assert m.vertices.dtype == np.float64 and m.faces.dtype == np.int64
    assert sorted(map(tuple, m.vertices)) == [(0, 0, 0), (0, 0, 3), (0, 2, 0), (1, 0, 0)]
    assert m.faces.shape == (4, 3) and m.faces.max() == 3
    # COLLADA (pycollada) in its file's units: UR5's visual upper arm spans its collision
    # STL's box (another file, metres) to 0.4 mm (achieved; a unit or node transform lost
    # would miss by 10x or by the part's offset)
    meshes = fd.models.example_robot_data_dir() / "ur_description/meshes/ur5"
    dae = load_mesh(meshes / "visual/upperarm.dae").vertices
    stl = load_mesh(meshes / "collision/upperarm.stl").vertices
    assert np.abs(dae.min(0) - stl.min(0)).max() < 2e-3
    assert np.abs(dae.max(0) - stl.max(0)).max() < 2e-3
    with pytest.raises(FileNotFoundError, match="nope.obj"):
        load_mesh(tmp_path / "nope.obj")
    with pytest.raises(ValueError, match="scale"):
        load_mesh(tmp_path / "tet.obj", scale=0.0)


@pytest.mark.parametrize("bad, message", [
    (lambda Q: Q[:, :-1], r"nq = 7 columns .* got shape \(10, 6\)"),
    (lambda Q: np.where(np.arange(7) == 5, np.where(np.arange(10)[:, None] == 3, np.nan, Q),
                        Q), r"not finite at row 3, column 5"),
    (lambda Q: np.where(np.arange(10)[:, None] == 9, np.inf, Q), r"at row 9, column 0"),
    (lambda Q: np.stack([Q, Q])[..., :6], r"got shape \(2, 10, 6\)"),
    (lambda Q: np.stack([Q, np.where(np.arange(10)[:, None] == 2, np.nan, Q)]),
     r"trajectory 1, row 2, column 0"),
    (lambda Q: Q[None, None], r"got shape \(1, 1, 10, 7\)"),
    (lambda Q: Q[:0], r"T >= 1 rows"),
])
def test_a_bad_trajectory_is_refused_naming_where(bad, message):
    Q = np.tile(np.r_[0, 0, 0, 0, 0, 0, 1.0], (10, 1))
    viewer = Viewer(_seven())
    with pytest.raises(ValueError, match=message):
        viewer.animate(bad(Q))


def test_a_bad_configuration_is_refused_naming_where():
    viewer = Viewer(_seven())
    q = np.r_[0, 0, 0, 0, 0, 0, 1.0]
    with pytest.raises(ValueError, match=r"q is not finite at row 1, column 2"):
        viewer.display([q, np.where(np.arange(7) == 2, np.nan, q)])
    with pytest.raises(ValueError, match=r"nq = 7 columns .* got shape \(6,\)"):
        viewer.display(q[:6])


def _seven():
    """A model with nq = 7: a free-flyer."""
    b = fd.ModelBuilder()
    b.add_joint("base", "freeflyer")
    b.add_body("base", 1.0, inertia=np.eye(3))
    return b.build()


def test_the_page_is_self_contained_and_replays_every_command(tmp_path):
    model = fd.models.load("double_pendulum")
    v = show(model, np.zeros((20, model.nq)), dt=0.05, path=tmp_path / "p.html")
    page = (tmp_path / "p.html").read_text()
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)  # nothing fetched
    blobs = re.findall(r'^"([A-Za-z0-9+/=]+)"', page, re.M)
    assert len(blobs) == len(v.recorder.commands()) and v.recorder.animation is not None
    assert "MeshCat.Viewer" in page


def test_open_serves_the_scene_live():
    """meshcat's server (a subprocess on localhost) gets the scene; no browser is opened."""
    model = fd.models.load("double_pendulum")
    viewer = Viewer(model)
    try:
        url = viewer.open()
        assert url.startswith("http://127.0.0.1:")
        viewer.display(np.ones(model.nq))
        viewer.animate(np.zeros((3, model.nq)))
        page = viewer._live.static_html()  # the server's own export of what it holds
        assert page.count("handle_command_bytearray") >= len(viewer.recorder.commands())
        with urllib.request.urlopen(url, timeout=10) as r:  # the page a browser would load
            assert b"MeshCat" in r.read()
    finally:
        viewer.close()


def test_simulate_view_writes_the_drop_with_its_forces(tmp_path, capsys):
    from fastdyn.cli.main import main
    page = tmp_path / "drop.html"
    assert main(["simulate", "--rollouts", "2", "--drop", "0.05", "--view", str(page)]) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    text = page.read_text()
    assert "MeshCat.Viewer" in text and len(text) > 500_000  # the viewer's bundle is inlined


def test_view_without_meshcat_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    import sys
    from fastdyn.cli.main import main
    monkeypatch.setitem(sys.modules, "meshcat", None)  # import meshcat raises ImportError
    with pytest.raises(ImportError, match=r"fastdyn\[view\]"):
        Viewer(fd.models.load("ur5"))
    assert main(["simulate", "--view", str(tmp_path / "x.html")]) == 1
    assert "fastdyn[view]" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_mesh_paths_are_found_as_ros_finds_them(tmp_path, monkeypatch):
    from fastdyn.io.visuals import resolve_mesh_path
    (tmp_path / "share" / "pkg" / "m").mkdir(parents=True)
    (tmp_path / "share" / "pkg" / "m" / "x.stl").write_text("")
    (tmp_path / "ros" / "pkg" / "m").mkdir(parents=True)
    (tmp_path / "ros" / "pkg" / "m" / "y.stl").write_text("")
    urdf = tmp_path / "elsewhere" / "robot.urdf"
    assert resolve_mesh_path("package://pkg/m/x.stl", urdf, [tmp_path / "share"]) == \
        str(tmp_path / "share" / "pkg" / "m" / "x.stl")
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "ros"))
    assert resolve_mesh_path("package://pkg/m/y.stl", urdf) == \
        str(tmp_path / "ros" / "pkg" / "m" / "y.stl")
    assert resolve_mesh_path("meshes/z.stl", urdf) == str(tmp_path / "elsewhere/meshes/z.stl")
    assert resolve_mesh_path("file:///abs/z.stl", urdf) == "/abs/z.stl"
