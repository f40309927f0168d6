"""MJCF bodies whose mass comes from mesh geoms, against MuJoCo compiling the same files:
body_mass, body_ipos and the full inertia tensor in the body frame (from body_iquat and
body_inertia), then the dynamics (mj_rne, mj_fullM, qacc) on the loaded model."""

from __future__ import annotations

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.io import MJCFError, _mjcf_math, load_mjcf, parse_mjcf
from fastdyn.io.mesh_geometry import mass_properties
from fastdyn.io.meshes import TriangleMesh

mujoco = pytest.importorskip("mujoco")
trimesh = pytest.importorskip("trimesh")
pytest.importorskip("scipy")

import mjcf_oracle as mo  # noqa: E402

# (coordinates a float32 holds exactly: MuJoCo keeps mesh vertices in float32, so "0.1" would
# differ by 1e-9 before any arithmetic)
TET = ("v 0 0 0\nv .125 0 0\nv 0 .125 0\nv 0 0 .125\nf 1 3 2\nf 1 2 4\nf 1 4 3\n"
       "f 2 3 4\n")


def _meshes(folder):
    """A box, a tetrahedron, an irregular convex hull and a closed non-convex mesh (a lumpy
    off-centre torus: legacy, exact and convex inertias all differ), as MuJoCo reads them."""
    rng = np.random.default_rng(4)
    (folder / "m").mkdir()
    trimesh.creation.box((0.3, 0.2, 0.1)).export(folder / "m" / "box.stl")
    (folder / "m" / "tet.obj").write_text(TET)
    hull = trimesh.convex.convex_hull(rng.normal(size=(40, 3)) * (0.1, 0.05, 0.08) + 0.02)
    hull.export(folder / "m" / "rock.stl")
    tor = trimesh.creation.torus(0.1, 0.03)
    v = np.asarray(tor.vertices)
    v = v * rng.uniform(0.8, 1.1, (len(v), 1)) + (0.03, 0, 0) + (v[:, :1] > 0.05) * 0.04
    trimesh.Trimesh(v, tor.faces, process=False).export(folder / "m" / "star.stl")


def _file(folder, inertia=""):
    xml = f"""<mujoco model="meshes">
  <compiler meshdir="m" angle="radian"/>
  <asset>
    <mesh name="box" file="box.stl" scale="1 2 0.5"/>
    <mesh name="tet" file="tet.obj"/>
    <mesh name="rock" file="rock.stl" {inertia}/>
    <mesh name="star" file="star.stl" {inertia}/>
    <mesh name="mirror" file="rock.stl" scale="-1 1 1" {inertia}/>
  </asset>
  <worldbody>
    <body name="a" pos="0 0 1" euler="0.1 0.2 0.3">
      <joint name="ja" type="hinge" axis="1 0 0"/>
      <geom type="mesh" mesh="box" pos="0.1 0 0" euler="0.3 0 0.2"/>
      <geom type="mesh" mesh="tet" density="2000" pos="0 0.1 0"/>
      <body name="b" pos="0.2 0 0">
        <joint name="jb" type="hinge" axis="0 1 0"/>
        <geom type="mesh" mesh="rock" mass="1.5" euler="0.5 0.1 0"/>
        <geom type="sphere" size="0.02" pos="0 0 0.1"/>
        <body name="c" pos="0 0 -0.2">
          <joint name="jc" type="slide" axis="0 0 1"/>
          <geom type="mesh" mesh="star" pos="0.01 0.02 0.03" euler="0 0.4 0.2"/>
          <body name="d" pos="0 0.1 0">
            <joint name="jd" type="ball"/>
            <geom type="mesh" mesh="mirror"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""
    path = folder / "meshes.xml"
    path.write_text(xml)
    return path


@pytest.mark.parametrize("inertia", ["", 'inertia="convex"', 'inertia="exact"',
                                     'inertia="legacy"'])
def test_mesh_masses_are_mujocos(tmp_path, inertia):
    _meshes(tmp_path)
    path = _file(tmp_path, inertia)
    m = mo.mj_load(path)
    links = {lk.name: lk.inertial for lk in parse_mjcf(str(path)).links}
    for k in range(1, m.nbody):
        i = links[m.body(k).name]
        assert abs(i.mass - m.body_mass[k]) < 1e-12 * m.body_mass[k]  # achieved 4e-16
        assert np.abs(i.com - m.body_ipos[k]).max() < 1e-14  # [m]; achieved 3e-17
        moments = np.linalg.eigvalsh(i.inertia)
        assert np.abs(moments / np.sort(m.body_inertia[k]) - 1).max() < 1e-12  # 4e-14
        # the whole tensor, rebuilt from MuJoCo's principal axes (body_iquat), which its
        # eigensolver gives to ~1e-9 (achieved 2.5e-9)
        R = _mjcf_math.quat_to_R(m.body_iquat[k])
        I = R @ np.diag(m.body_inertia[k]) @ R.T
        assert np.abs(i.inertia - I).max() < 3e-8 * np.abs(I).max()
    model = load_mjcf(str(path))
    assert np.all(mo.dynamics_errors(model, m, 3) < 1e-7)  # achieved ~1e-9 (the axes)


def test_polyhedral_mass_properties_closed_forms():
    """The box and the tetrahedron against their textbook values (independent of MuJoCo)."""
    box = trimesh.creation.box((0.3, 0.2, 0.1))
    vol, c, I = mass_properties(TriangleMesh(np.asarray(box.vertices), np.asarray(box.faces)))
    assert vol == pytest.approx(0.006, rel=1e-14) and np.abs(c).max() < 1e-16
    ref = vol / 12 * np.diag([0.2**2 + 0.1**2, 0.3**2 + 0.1**2, 0.3**2 + 0.2**2])
    assert np.abs(I - ref).max() < 1e-18
    # the unit corner tetrahedron: volume 1/6, centroid (1/4, 1/4, 1/4), second moment
    # about the origin C0 = 1/60 on the diagonal, 1/120 off it (integrating x^2 and x y)
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]])
    f = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    vol, c, I = mass_properties(TriangleMesh(v, f))
    assert vol == pytest.approx(1 / 6, rel=1e-15) and np.allclose(c, 0.25, rtol=1e-15)
    C0 = np.full((3, 3), 1 / 120) + np.eye(3) / 120
    C = C0 - vol * np.outer(c, c)
    assert np.abs(I - (np.trace(C) * np.eye(3) - C)).max() < 1e-16


def test_missing_and_bad_meshes_are_named(tmp_path):
    _meshes(tmp_path)
    path = _file(tmp_path)
    (tmp_path / "m" / "star.stl").unlink()
    with pytest.raises(MJCFError, match=r"meshes.xml, line 7: <mesh name=\"star\">: mesh "
                                        r"file .*star.stl' does not exist"):
        load_mjcf(str(path))
    (tmp_path / "m" / "star.stl").write_text("solid x\nendsolid x\n")
    with pytest.raises(MJCFError, match="star.stl"):
        load_mjcf(str(path))
    flat = '<mesh name="star" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>'
    path.write_text(path.read_text().replace('<mesh name="star" file="star.stl" />', flat))
    with pytest.raises(MJCFError, match="flat"):
        load_mjcf(str(path))
    shell = path.read_text().replace(flat, '<mesh name="star" file="rock.stl" '
                                           'inertia="shell"/>')
    path.write_text(shell)
    with pytest.raises(MJCFError, match="hollow"):
        load_mjcf(str(path))


def test_a_body_massed_by_meshes_now_loads(tmp_path):
    """Refused before ("moves but has mass 0"): now its mass is the mesh's, as MuJoCo's."""
    _meshes(tmp_path)
    xml = ('<mujoco><compiler meshdir="m"/><asset><mesh file="tet.obj"/></asset><worldbody>'
           '<body><freejoint/><geom type="mesh" mesh="tet"/></body></worldbody></mujoco>')
    path = tmp_path / "one.xml"
    path.write_text(xml)
    model = load_mjcf(str(path))
    m = mo.mj_load(path)
    assert model.mass[1] == pytest.approx(m.body_mass[1], rel=1e-12)
    assert m.body_mass[1] == pytest.approx(1000 * 0.125**3 / 6, rel=1e-12)
    assert isinstance(model, fd.Model)


def test_mujocos_own_test_model():
    """MuJoCo's own testdata/model.xml: an inline icosahedron (vertices only: its hull)
    gives a moving body its mass, among every other kind of element."""
    import os
    import warnings
    path = os.path.join(os.path.dirname(mujoco.__file__), "testdata", "model.xml")
    if not os.path.exists(path):
        pytest.skip("this MuJoCo has no testdata/model.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fd.errors.MJCFWarning)  # springs, tendons ...
        d = parse_mjcf(path)
    m = mo.mj_load(path)
    # achieved 6.8e-8, the icosahedron's: MuJoCo keeps mesh vertices in float32 (1.618 * 0.05
    # is not a float32; the other bodies agree to 1e-16)
    assert mo.inertia_errors(d, m) < 1e-6


OPEN = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n"  # a lidless tetrahedron


@pytest.mark.parametrize("mode", ["legacy", "exact"])
def test_open_meshes(tmp_path, mode):
    """An open mesh: "legacy" gives MuJoCo's number (its |V| sums need no closed surface);
    "exact" is refused, naming the edge, where MuJoCo 4.0 returns a volume (1/9 here for
    the lidless unit tetrahedron, whose solid would be 1/6) that belongs to no solid."""
    (tmp_path / "open.obj").write_text(OPEN)
    xml = (f'<mujoco><asset><mesh name="s" file="open.obj" inertia="{mode}"/></asset>'
           f'<worldbody><body><freejoint/><geom type="mesh" mesh="s"/></body></worldbody>'
           f'</mujoco>')
    path = tmp_path / "open.xml"
    path.write_text(xml)
    if mode == "legacy":
        model = load_mjcf(str(path))
        m = mo.mj_load(path)
        assert model.mass[1] == pytest.approx(m.body_mass[1], rel=1e-14)  # achieved 1e-16
    else:
        with pytest.raises(MJCFError, match=r"open.xml, line 1: <geom>: mesh 's' "
                                            r"\(inertia=\"exact\"\): not a closed surface"):
            load_mjcf(str(path))
