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
    assert worst < 1e-12  # achieved: 4e-16 (UR5) to 2e-15 (Talos)


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
    assert worst < 1e-12  # achieved 2e-16
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
