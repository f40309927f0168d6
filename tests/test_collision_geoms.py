"""fastdyn.io.collision_geoms against what did not come from it: URDF geoms against
Pinocchio's collision model (coal's shapes, placed by pin.updateGeometryPlacements), MJCF
geoms against MuJoCo's compiled geoms after mj_kinematics, mesh hulls against the meshes as
Pinocchio's loader (assimp) reads them and coal's distances between their hulls."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.io import collision_geoms
from fastdyn.kinematics import forward_kinematics

pin = pytest.importorskip("pinocchio")
coal = pytest.importorskip("coal")
pytest.importorskip("trimesh")
pytest.importorskip("scipy")

from conftest import random_state  # noqa: E402

DIRS = np.random.default_rng(7).normal(size=(200, 3))
DIRS /= np.linalg.norm(DIRS, axis=1, keepdims=True)


def _world(model, q):
    data = model.create_data()
    forward_kinematics(model, data, q)
    return data


def _oMg(data, g):
    R = data.oMi_R[g["body"]]
    return R @ g["rot"], data.oMi_p[g["body"]] + R @ g["pos"]


def _support(v):
    return (np.asarray(v) @ DIRS.T).max(axis=0)


# --- URDF against Pinocchio ---------------------------------------------------------------

def _pin_robot(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = fd.models.load(name, source="example-robot-data")
    urdf = str(fd.models.path(name, source="example-robot-data"))
    free = int(model.jnt[1]["type"]) == fd.JOINT_TYPES.index("freeflyer")
    pm = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer()) if free else \
        pin.buildModelFromUrdf(urdf)
    pkg = str(fd.models.example_robot_data_dir().parents[1])  # package://example-robot-data
    gm = pin.buildGeomFromUrdf(pm, urdf, pin.COLLISION, package_dirs=[pkg])
    return model, pm, gm, urdf, pkg


def _pin_shape(geometry):
    """(type, geom_table size or mesh vertices) of a coal shape."""
    if isinstance(geometry, coal.Box):
        return "box", np.asarray(geometry.halfSide)
    if isinstance(geometry, coal.Sphere):
        return "sphere", np.array([geometry.radius])
    if isinstance(geometry, coal.Cylinder):
        return "cylinder", np.array([geometry.radius, geometry.halfLength])
    if isinstance(geometry, coal.Capsule):
        return "capsule", np.array([geometry.radius, geometry.halfLength])
    with warnings.catch_warnings():  # (coal marks vertices() deprecated)
        warnings.simplefilter("ignore", DeprecationWarning)
        return "convex", np.array([geometry.vertices(i) for i in range(geometry.num_vertices)])


@pytest.mark.parametrize("name", ["ur5", "solo12", "talos"])
def test_urdf_geoms_are_pinocchios(name):
    model, pm, gm, urdf, pkg = _pin_robot(name)
    ours = collision_geoms(model, urdf, package_dirs=[pkg], max_vertices=None)
    theirs = {f"{pm.frames[o.parentFrame].name}/{o.name.rsplit('_', 1)[1]}": k
              for k, o in enumerate(gm.geometryObjects)}
    assert sorted(ours.names) == sorted(theirs) and len(ours) > 0
    gd = gm.createData()
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(3):
        q = random_state(pm, rng)[0]
        pin.updateGeometryPlacements(pm, pm.createData(), gm, gd, q)
        data = _world(model, q)
        for g, nm in zip(ours.geoms, ours.names):
            k = theirs[nm]
            obj = gm.geometryObjects[k]
            assert g["body"] == obj.parentJoint, nm
            R, p = _oMg(data, g)
            worst = max(worst, np.abs(R - gd.oMg[k].rotation).max(),
                        np.abs(p - gd.oMg[k].translation).max())
            kind, size = _pin_shape(obj.geometry)
            assert g["type"] == kind, nm
            if kind == "convex":  # the same solid: the hull's support is the mesh's
                scale = max(1.0, np.abs(size).max())
                assert np.abs(_support(g["vertices"]) - _support(size)).max() < 1e-6 * scale
            else:
                assert np.allclose(g["size"], size, rtol=1e-14, atol=0), nm
    assert worst < 1e-13  # achieved: 2.2e-16 (UR5, Solo12), 2.8e-16 (Talos)


def _coal_hull(points):
    pts = coal.StdVec_Vec3s()
    for x in points:
        pts.append(x)
    return coal.Convex.convexHull(pts, False, None)


def test_mesh_hull_distances_are_coals():
    """Distances between two UR5 link hulls: coal's between its own hulls (Qhull) of the
    meshes Pinocchio loaded (assimp) against coal's between our hull vertices (a vertex lost
    or misplaced by our loader or hull moves it), and fastdyn's contacts (GJK over our
    vertices) against both."""
    from fastdyn.sim.collision import collide_pair, geom_table
    model, pm, gm, urdf, pkg = _pin_robot("ur5")
    ours = collision_geoms(model, urdf, package_dirs=[pkg])
    table = geom_table([dict(g, margin=1.0) for g in ours.geoms])  # contacts when apart
    names = list(ours.names)
    a, b = names.index("upper_arm_link/0"), names.index("forearm_link/0")
    theirs = []
    for nm in (names[a], names[b]):
        obj = next(o for o in gm.geometryObjects
                   if f"{pm.frames[o.parentFrame].name}/{o.name.rsplit('_', 1)[1]}" == nm)
        theirs.append(_coal_hull(_pin_shape(obj.geometry)[1]))
    mine = [_coal_hull(ours.geoms[g]["vertices"]) for g in (a, b)]
    rng = np.random.default_rng(5)
    apart = touching = 0
    loader = kernel = 0.0
    for _ in range(40):
        T = [np.eye(4) for _ in range(model.njoints)]
        X = []
        for g in (a, b):
            M = pin.SE3.Random()
            M.translation = rng.uniform(-0.1, 0.1, 3)
            G = pin.SE3(ours.geoms[g]["rot"], ours.geoms[g]["pos"])
            T[ours.geoms[g]["body"]] = (M * G.inverse()).homogeneous  # the geom lands at M
            X.append(coal.Transform3s(M.rotation, M.translation))
        req = coal.DistanceRequest()
        req.gjk_tolerance = 1e-12
        d_pin = coal.distance(theirs[0], X[0], theirs[1], X[1], req, coal.DistanceResult())
        d_our = coal.distance(mine[0], X[0], mine[1], X[1], req, coal.DistanceResult())
        c = collide_pair(table, a, b, np.stack(T))
        if d_pin > 1e-6:
            loader = max(loader, abs(d_our - d_pin))
            kernel = max(kernel, abs(c.dist.min() - d_pin))
            apart += 1
        elif d_pin < -1e-6:  # penetrating: depths are EPA's and the manifold's, only signs
            assert d_our < 0 and c.dist.min() < 0, (d_pin, d_our, c.dist)
            touching += 1
    assert apart >= 5 and touching >= 5, (apart, touching)
    assert loader < 1e-12  # achieved 0: the same hull
    assert kernel < 1e-4  # achieved 6e-6: fastdyn's GJK stopping tolerance, not the loader


# --- MJCF against MuJoCo --------------------------------------------------------------------

mujoco = pytest.importorskip("mujoco")


def _mjcf_file(tmp_path):
    import trimesh
    (tmp_path / "meshes").mkdir()
    trimesh.creation.icosphere(subdivisions=1, radius=0.05).export(tmp_path / "ball.stl")
    trimesh.creation.box((0.1, 0.2, 0.05)).export(tmp_path / "meshes" / "slab.stl")
    xml = """<mujoco model="geoms">
  <compiler angle="radian" meshdir="meshes"/>
  <default>
    <geom friction="0.7 0.01 0.002" solref="0.03 0.9"/>
    <default class="soft">
      <geom margin="0.01" solimp="0.8 0.9 0.002" contype="2" conaffinity="3"/>
    </default>
    <mesh scale="1 1 2"/>
  </default>
  <asset>
    <mesh name="ball" file="../ball.stl" scale="2 1 1"/>
    <mesh name="slab" file="slab.stl"/>
    <mesh name="tet" vertex="0 0 0  0.1 0 0  0 0.1 0  0 0 0.1"/>
  </asset>
  <contact>
    <exclude body1="upper" body2="hand"/>
  </contact>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <geom name="post" type="box" size="0.05 0.05 0.3" pos="0.5 0 0.3" euler="0 0 0.3"/>
    <body name="upper" pos="0 0 1" euler="0.1 0.2 0.3">
      <joint name="j1" type="hinge" axis="0 1 0" pos="0 0 0.1"/>
      <geom name="arm" type="capsule" fromto="0 0 0 0.3 0.1 -0.2" size="0.04"/>
      <geom name="egg" type="ellipsoid" size="0.03 0.04 0.05" pos="0.1 0 0" class="soft"/>
      <frame pos="0 0.1 0" euler="0.4 0 0">
        <geom name="can" type="cylinder" size="0.02 0.07" pos="0 0 0.05" quat="1 1 0 0"/>
      </frame>
      <body name="welded" pos="0.3 0.1 -0.2" euler="0 0.5 0">
        <geom name="ball" type="mesh" mesh="ball" pos="0.02 0 0"/>
        <body name="hand" pos="0.1 0 0">
          <joint name="j2" type="slide" axis="1 0 1"/>
          <geom name="slab" type="mesh" mesh="slab" euler="0.3 0.2 0.1" class="soft"/>
          <geom name="tet" type="mesh" mesh="tet" pos="0 0.05 0"/>
          <geom name="pip" type="sphere" size="0.01" contype="0" conaffinity="0"/>
        </body>
      </body>
    </body>
    <body name="free" pos="1 0 1">
      <freejoint/>
      <geom name="cube" type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>"""
    path = tmp_path / "geoms.xml"
    path.write_text(xml)
    return path


def test_mjcf_geoms_are_mujocos(tmp_path):
    from mjcf_oracle import states
    path = _mjcf_file(tmp_path)
    model = fd.load_mjcf(str(path))
    ours = collision_geoms(model, str(path))
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    # every geom MuJoCo collides, and only those ("pip" has contype = conaffinity = 0)
    colliding = {m.geom(k).name for k in range(m.ngeom)
                 if m.geom_contype[k] or m.geom_conaffinity[k]}
    assert set(ours.names) == colliding and "pip" not in ours.names
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(3):
        q, _, _, qpos, _, _, _ = states(m, rng)
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        data = _world(model, q)
        for g, nm in zip(ours.geoms, ours.names):
            k = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, nm)
            R, p = _oMg(data, g)
            if g["type"] == "convex":  # MuJoCo re-centres a mesh: compare the hull's points
                mv = m.mesh_vert[m.mesh_vertadr[m.geom_dataid[k]]:][
                    :m.mesh_vertnum[m.geom_dataid[k]]].astype(float)
                theirs = d.geom_xpos[k] + mv @ d.geom_xmat[k].reshape(3, 3).T
                # MuJoCo keeps mesh vertices in float32: agreement to ~1e-7 of the size
                assert np.abs(_support(p + g["vertices"] @ R.T) - _support(theirs)).max() \
                    < 1e-6, nm
                continue
            worst = max(worst, np.abs(R - d.geom_xmat[k].reshape(3, 3)).max(),
                        np.abs(p - d.geom_xpos[k]).max())
            if g["type"] != "plane":
                n = len(g["size"])
                assert np.allclose(g["size"], m.geom_size[k][:n], rtol=1e-14, atol=0), nm
    assert worst < 1e-13  # achieved 4.4e-16
    for g, nm in zip(ours.geoms, ours.names):
        k = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, nm)
        assert np.array_equal(g["friction"], m.geom_friction[k]), nm
        assert np.array_equal(g["solref"], m.geom_solref[k]), nm
        assert np.array_equal(g["solimp"], m.geom_solimp[k]), nm
        assert g["margin"] == m.geom_margin[k], nm
        assert (g["contype"], g["conaffinity"]) == (m.geom_contype[k], m.geom_conaffinity[k])
    # the excluded pair, as joints; MuJoCo's exclude bodies: upper and hand
    b1, b2 = m.exclude_signature[0] >> 16, m.exclude_signature[0] & 0xFFFF
    assert {m.body(b1).name, m.body(b2).name} == {"upper", "hand"}
    j = {model.joint_names[i]: i for i in range(model.njoints)}
    assert ours.exclude.tolist() == [sorted([j["j1"], j["j2"]])]
    table = ours.table()  # geom_table takes every dict as it is
    assert table.ngeom == len(ours)


def test_links_and_srdf_select(tmp_path):
    model, pm, gm, urdf, pkg = _pin_robot("ur5")
    some = collision_geoms(model, urdf, package_dirs=[pkg], links=["forearm_link"])
    assert set(some.links) == {"forearm_link"}
    with pytest.raises(ValueError, match="forarm_link"):
        collision_geoms(model, urdf, package_dirs=[pkg], links=["forarm_link"])
    srdf = tmp_path / "ur5.srdf"
    srdf.write_text('<robot name="ur5"><disable_collisions link1="forearm_link" '
                    'link2="upper_arm_link" reason="Adjacent"/>'
                    '<disable_collisions link1="base_link" link2="base_link_inertia" '
                    'reason="one joint"/></robot>')
    with pytest.warns(fd.errors.SRDFWarning, match="base_link_inertia"):
        ex = collision_geoms(model, urdf, package_dirs=[pkg], srdf=str(srdf)).exclude
    ja = pm.frames[pm.getFrameId("forearm_link")].parentJoint
    jb = pm.frames[pm.getFrameId("upper_arm_link")].parentJoint
    assert ex.tolist() == [sorted([ja, jb])]  # (the pair on one joint is dropped)


# --- bad input: the file, the element, its line and why ----------------------------------------

URDF = """<robot name="r">
  <link name="base"/>
  <link name="arm">
    <collision>
      <origin xyz="0 0 0.1"/>
      <geometry>{shape}</geometry>
    </collision>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


def _urdf(tmp_path, shape):
    path = tmp_path / "r.urdf"
    path.write_text(URDF.format(shape=shape))
    return str(path), fd.load_urdf(str(path))


def test_urdf_shapes_become_geoms(tmp_path):
    """Primitives in geom_table's units (half sizes) on the joint, at the <origin>."""
    import trimesh
    trimesh.creation.box((0.2, 0.4, 0.6)).export(tmp_path / "b.stl")
    for shape, kind, size in (('<box size="0.2 0.4 0.6"/>', "box", (0.1, 0.2, 0.3)),
                              ('<sphere radius="0.3"/>', "sphere", (0.3,)),
                              ('<cylinder radius="0.1" length="0.4"/>', "cylinder", (0.1, 0.2))):
        path, model = _urdf(tmp_path, shape)
        (g,) = collision_geoms(model, path).geoms
        assert g["type"] == kind and np.allclose(g["size"], size, rtol=1e-15)
        assert g["body"] == 1 and np.allclose(g["pos"], (0, 0, 0.1))
    box = trimesh.creation.box((0.2, 0.4, 0.6))
    box.export(tmp_path / "b.obj")
    box.export(tmp_path / "b.dae")
    for name in ("b.stl", "b.obj", "b.dae"):
        path, model = _urdf(tmp_path, f'<mesh filename="{name}" scale="2 1 1"/>')
        for hull in (True, False):  # the hull's vertices, or every distinct one: here alike
            (g,) = collision_geoms(model, path, hull=hull).geoms
            assert g["type"] == "convex" and len(g["vertices"]) == 8, name
            # (STL stores float32: 0.3 comes back as 0.30000001)
            assert np.allclose(np.abs(g["vertices"]), (0.2, 0.2, 0.3), rtol=1e-7, atol=0)


@pytest.mark.parametrize("shape,match", [
    ('<mesh filename="nowhere.stl"/>', r"r.urdf, line 6: link 'arm' <collision> <mesh>: mesh "
                                       r"file '.*nowhere.stl' does not exist"),
    ('<mesh filename="package://pkg/x.stl"/>', r"pass the folder holding its package"),
    ('<mesh filename="junk.stl"/>', r"line 6: .*junk.stl"),
    ('<mesh filename="flat.obj"/>', r"line 6: .*flat.obj.*flat \(all on one plane"),
    ('<mesh filename="three.obj"/>', r"line 6: .*three.obj.*3 distinct vertices"),
    ('<mesh filename="nan.obj"/>', r"line 6: .*nan.obj"),
    ('<mesh filename="tet.obj"/>', r"line 6: .*tet.obj.*4 vertices, above max_vertices=3"),
    ('<mesh filename="tet.obj"/>', r"line 6: .*tet.obj' has \d+ bytes, above max_mesh_bytes=10"),
    ('<sphere radius="0"/>', r"line 6: link 'arm' <collision> <sphere>: a sphere with a zero "
                             r"size"),
    ('<box size="1 0 1"/>', r"line 6: .*a box with a zero size"),
    ('<cone radius="1"/>', r"line 6: .*unknown collision shape <cone>"),
])
def test_bad_urdf_collisions_are_named(tmp_path, shape, match):
    (tmp_path / "junk.stl").write_bytes(b"\x00garbage" * 7)
    (tmp_path / "flat.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n")
    (tmp_path / "three.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 1 0\nf 1 2 3\n"
                                        "f 1 3 4\n")
    (tmp_path / "nan.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 nan\nf 1 2 3\n"
                                      "f 1 2 4\n")
    (tmp_path / "tet.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\n"
                                      "f 1 4 3\nf 2 3 4\n")
    path, model = _urdf(tmp_path, '<sphere radius="1"/>')
    path = tmp_path / "r.urdf"
    path.write_text(URDF.format(shape=shape))
    kw = dict(max_vertices=3 if "max_vertices=3" in match else 1000,
              max_mesh_bytes=10 if "max_mesh_bytes" in match else 2**20)
    if "max_vertices=3" in match:
        with pytest.raises(ValueError, match="max_vertices must be"):
            collision_geoms(model, str(path), **kw)
        kw["max_vertices"], match = 4, match.replace("=3", "=4").replace("4 vertices", "4 vert")
        (tmp_path / "tet.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\n"
                                          "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 5\nf 2 5 4\nf 3 4 5\n")
        match = r"line 6: .*tet.obj.*5 vertices, above max_vertices=4"
    with pytest.raises(fd.errors.URDFError, match=match):
        collision_geoms(model, str(path), **kw)


MJCF = """<mujoco>
  <asset>{asset}</asset>
  <contact>{contact}</contact>
  <worldbody>
    <body name="b">
      <joint/>
      <geom size="0.1"/>
      {geom}
    </body>
  </worldbody>
</mujoco>"""


@pytest.mark.parametrize("asset,geom,contact,match", [
    ("", '<geom type="mesh" mesh="nope"/>', "", r"line 8: <geom>: .*no <asset><mesh> of that"),
    ('<mesh name="m" file="missing.stl"/>', '<geom type="mesh" mesh="m" mass="1"/>', "",
     r"line 2: <mesh name=\"m\">: mesh file .*missing.stl' does not exist"),
    ('<mesh name="m" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>',
     '<geom type="mesh" mesh="m" mass="1"/>', "", r"line 2: <mesh name=\"m\">: .*flat"),
    ("", '<geom type="cone" size="1"/>', "", r"line 8: <geom>: <geom type=\"cone\">: expected"),
    ("", '<geom type="box" size="1 0 1"/>', "", r"line 8: <geom>: .*size\[1\] of a box must be"),
    ("", "", '<exclude body1="b" body2="c"/>', r"line 3: <exclude>: .*body 'c'"),
    ("", '<geom size="1" friction="-1"/>', "", r"line 8: <geom>: friction \(-1.0, 0.005, "
                                               r"0.0001\): coefficients must be >= 0"),
    ("", '<geom size="1" margin="-1"/>', "", r"line 8: <geom>: margin -1: must be >= 0"),
    ("", '<geom size="1" contype="-1"/>', "", r"line 8: <geom>: contype -1: a bit mask"),
    ("", '<geom type="hfield" hfield="h"/>', "", None),
    ('<mesh name="t" maxhullvert="4" vertex="0 0 0 1 0 0 0 1 0 0 0 1 1 1 1"/>',
     '<geom type="mesh" mesh="t"/>', "", "maxhullvert"),
])
def test_bad_mjcf_collisions_are_named(tmp_path, asset, geom, contact, match):
    path = tmp_path / "m.xml"
    path.write_text(MJCF.format(asset=asset, geom=geom, contact=contact))
    if match is None:  # left out, and said so (by the loader too: no mass from an hfield)
        with pytest.warns(fd.errors.MJCFWarning, match="hfield"):
            model = fd.load_mjcf(str(path))
        with pytest.warns(fd.errors.MJCFWarning, match=r"1 colliding geom\(s\) left out.*an "
                                                       r"hfield, m.xml:8"):
            assert len(collision_geoms(model, str(path))) == 1
        return
    model = fd.load_mjcf(MJCF.format(asset="", geom="", contact=""))  # the same bodies
    if match == "maxhullvert":  # read, but not as MuJoCo cuts it: said
        with pytest.warns(fd.errors.MJCFWarning, match=r"m.xml, line 2: mesh 't': "
                                                       r"maxhullvert=4 is not read"):
            assert len(collision_geoms(model, str(path))) == 2
        return
    with pytest.raises(fd.errors.MJCFError, match=match):
        collision_geoms(model, str(path))


def test_arguments_are_checked(tmp_path):
    path, model = _urdf(tmp_path, '<sphere radius="1"/>')
    with pytest.raises(TypeError, match="fastdyn Model"):
        collision_geoms("model", path)
    with pytest.raises(ValueError, match="neither a URDF's <robot> nor an MJCF's"):
        collision_geoms(model, "<sdf version='1.6'/>")
    other = fd.load_mjcf("<mujoco><worldbody><body name='x'><joint/><geom size='1'/></body>"
                         "</worldbody></mujoco>")
    with pytest.raises(fd.errors.URDFError, match="link 'arm' is not a frame of model"):
        collision_geoms(other, path)  # the file is not the model's


def test_mujocos_own_test_model_geoms():
    """MuJoCo's testdata/model.xml (planes, fromto cylinders, an inline mesh, an hfield, a
    free body, default classes): every colliding geom where MuJoCo puts it, body by body."""
    import os
    from mjcf_oracle import mj_name, states
    path = os.path.join(os.path.dirname(mujoco.__file__), "testdata", "model.xml")
    if not os.path.exists(path):
        pytest.skip("this MuJoCo has no testdata/model.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fd.errors.MJCFWarning)  # springs, tendons ...
        model = fd.load_mjcf(path)
    with pytest.warns(fd.errors.MJCFWarning, match="an hfield"):
        ours = collision_geoms(model, path)
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    q, _, _, qpos, _, _, _ = states(m, np.random.default_rng(2))
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    data = _world(model, q)
    theirs = {}
    for k in range(m.ngeom):
        if (m.geom_contype[k] or m.geom_conaffinity[k]) and \
                m.geom_type[k] != mujoco.mjtGeom.mjGEOM_HFIELD:
            b = int(m.geom_bodyid[k])
            theirs.setdefault("world" if b == 0 else mj_name(m, "body", b), []).append(k)
    mine = {}
    for g, link in zip(ours.geoms, ours.links):
        mine.setdefault(link, []).append(g)
    assert {k: len(v) for k, v in mine.items()} == {k: len(v) for k, v in theirs.items()}
    worst = 0.0
    for link, gs in mine.items():
        for g, k in zip(gs, theirs[link]):
            R, p = _oMg(data, g)
            if g["type"] == "convex":
                mv = m.mesh_vert[m.mesh_vertadr[m.geom_dataid[k]]:][
                    :m.mesh_vertnum[m.geom_dataid[k]]].astype(float)
                world = d.geom_xpos[k] + mv @ d.geom_xmat[k].reshape(3, 3).T
                assert np.abs(_support(p + g["vertices"] @ R.T) - _support(world)).max() < 1e-6
                continue
            assert g["type"] == mujoco.mjtGeom(m.geom_type[k]).name[7:].lower(), link
            worst = max(worst, np.abs(R - d.geom_xmat[k].reshape(3, 3)).max(),
                        np.abs(p - d.geom_xpos[k]).max())
            if g["type"] != "plane":
                assert np.allclose(g["size"], m.geom_size[k][:len(g["size"])], rtol=1e-14)
            assert np.array_equal(g["friction"], m.geom_friction[k]), link
    assert worst < 1e-13  # achieved 4e-16


def test_contact_values_mujoco_takes_still_load():
    """Negative friction, margin or contype: MuJoCo compiles them, so load_mjcf does too;
    only collision_geoms, whose contacts cannot use them, refuses them (above)."""
    for attr in ('friction="-1"', 'margin="-0.1"', 'contype="-1"', 'solref="0.05"'):
        xml = MJCF.format(asset="", contact="", geom=f'<geom size="1" {attr}/>')
        mujoco.MjModel.from_xml_string(xml)
        assert fd.load_mjcf(xml).nv == 1
    g = collision_geoms(fd.load_mjcf(xml), xml).geoms[1]
    assert g["solref"] == (0.05, 1.0)  # padded with MuJoCo's default, as MuJoCo does
