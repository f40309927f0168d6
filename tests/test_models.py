"""Bundled models (models/*.urdf), the example-robot-data registry, pickling and npz files."""

import importlib.util
import pickle
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import fastdyn.models as fm
from fastdyn.io.npz import load_npz, save_npz
from fastdyn.kernels.algorithms.rnea import rnea
from fastdyn.io.urdf import URDFWarning, load_urdf

pin = pytest.importorskip("pinocchio")
from conftest import close, random_state  # noqa: E402
from test_urdf import assert_same_dynamics, assert_same_structure  # noqa: E402

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
EXPECTED = {"double_pendulum": (2, 2), "ur5": (6, 6), "quadruped": (19, 18), "humanoid": (37, 36)}


@pytest.fixture(scope="module", params=sorted(EXPECTED))
def bundled(request):
    name = request.param
    free = fm.BUNDLED[name][1] is not None
    path = fm.path(name)
    pm = (pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if free
          else pin.buildModelFromUrdf(str(path)))
    return name, fm.load(name), pm


def test_list_and_paths():
    assert fm.list() == sorted(EXPECTED)
    for name in fm.list():
        assert fm.path(name).is_file() and fm.path(name).suffix == ".urdf"
    assert "talos" in fm.list("example-robot-data") and "solo12" in fm.list("example-robot-data")


def test_bundled_load_without_warnings(bundled):
    name, m, _ = bundled
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m2 = fm.load(name)
    assert (m2.nq, m2.nv) == EXPECTED[name]
    assert m2.joint_names == m.joint_names


def test_bundled_match_pinocchio(bundled):
    _, m, pm = bundled
    assert_same_structure(m, pm)
    assert_same_dynamics(m, pm, seed=3)


def test_bundled_sizes():
    hum = fm.load("humanoid")
    assert hum.nv - 6 >= 25 and hum.joint_type(1) == "freeflyer"
    quad = fm.load("quadruped", root_joint=None)
    assert (quad.nq, quad.nv) == (12, 12)
    arm = fm.load("ur5")
    assert arm.frame_names[-1] == "tool0" and arm.nv == 6
    mass = pin.computeTotalMass(pin.buildModelFromUrdf(str(fm.path("quadruped")),
                                                       pin.JointModelFreeFlyer()))
    assert 1.5 < mass < 3.0  # Solo-like


def test_generated_files_are_up_to_date():
    """models/generate.py reproduces the committed URDFs byte for byte."""
    spec = importlib.util.spec_from_file_location("fastdyn_models_generate",
                                                  MODELS_DIR / "generate.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for fname, make in gen.MODELS.items():
        assert (MODELS_DIR / fname).read_text(encoding="utf-8") == make(), fname
        assert "generate.py" in make()[:400]


def test_bundled_files_cite_their_source():
    for name in fm.list():
        head = fm.path(name).read_text()[:1200]
        assert "fastdyn bundled model" in head, name
    assert "Universal Robots" in fm.path("ur5").read_text()[:800]
    assert "Winter" in fm.path("humanoid").read_text()[:800]


def test_registry_errors():
    with pytest.raises(KeyError, match="no bundled model 'talos'"):
        fm.load("talos")
    with pytest.raises(ValueError, match="unknown source"):
        fm.load("ur5", source="web")


@pytest.fixture(scope="module")
def erd():
    try:
        return fm.example_robot_data_dir()
    except FileNotFoundError:
        pytest.skip("example-robot-data not installed")


@pytest.mark.parametrize("name, nq, nv", [("talos", 39, 38), ("solo12", 19, 18), ("anymal", 19, 18),
                                          ("ur5", 6, 6), ("panda", 9, 9)])
def test_example_robot_data_defaults(erd, name, nq, nv):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", URDFWarning)
        m = fm.load(name, source="example-robot-data")
    assert (m.nq, m.nv) == (nq, nv)
    free = fm.EXAMPLE_ROBOT_DATA[name][1] is not None
    assert (m.joint_names[1] == "root_joint") == free


def test_example_robot_data_override_and_stems(erd):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", URDFWarning)
        fixed = fm.load("solo12", source="example-robot-data", root_joint=None)
        stem = fm.load("talos_full_v2", source="example-robot-data")
        rel = fm.load("ur_description/urdf/ur10_robot.urdf", source="example-robot-data")
    assert (fixed.nq, fixed.nv) == (12, 12)
    assert stem.joint_names[1] != "root_joint" and stem.nv > 40
    assert rel.nv == 6
    with pytest.raises(KeyError, match="example-robot-data has no robot"):
        fm.load("no_such_robot", source="example-robot-data")


def test_example_robot_data_missing(monkeypatch):
    import importlib.metadata

    def nothing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.delenv("EXAMPLE_ROBOT_DATA_MODEL_DIR", raising=False)
    monkeypatch.setattr(importlib.metadata, "distribution", nothing)
    monkeypatch.setattr(sys, "path", [])
    monkeypatch.setattr(sys, "prefix", "/nonexistent-prefix")
    if Path("/opt/openrobots/share/example-robot-data/robots").is_dir() or Path(
            "/usr/share/example-robot-data/robots").is_dir():
        pytest.skip("a system-wide example-robot-data is installed")
    with pytest.raises(FileNotFoundError, match="example-robot-data is not installed"):
        fm.load("talos", source="example-robot-data")


# --- pickling and npz ---------------------------------------------------------------------------

MIMIC_URDF = """<robot name="gripper">
  <link name="palm"/>
  <link name="f1"><inertial><mass value="0.1"/>
    <inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/></inertial></link>
  <link name="f2"><inertial><mass value="0.1"/>
    <inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/></inertial></link>
  <joint name="finger1" type="prismatic"><parent link="palm"/><child link="f1"/>
    <axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="20" velocity="0.2"/></joint>
  <joint name="finger2" type="prismatic"><parent link="palm"/><child link="f2"/>
    <axis xyz="0 -1 0"/><limit lower="0" upper="0.04" effort="20" velocity="0.2"/>
    <mimic joint="finger1" multiplier="1" offset="0.001"/></joint>
</robot>"""


def _models():
    m = fm.load("humanoid")
    m.gravity = [0.1, -0.2, -1.62]
    return [m, load_urdf(MIMIC_URDF)]


def assert_same_model(a, b):
    assert (a.name, a.joint_names, a.frame_names, a.mimic) == (b.name, b.joint_names,
                                                              b.frame_names, b.mimic)
    np.testing.assert_array_equal(a.gravity, b.gravity)
    for f in a.jnt.dtype.names:
        np.testing.assert_array_equal(a.jnt[f], b.jnt[f], err_msg=f)
    np.testing.assert_array_equal(a.prm, b.prm)
    for f in a.frm.dtype.names:
        np.testing.assert_array_equal(a.frm[f], b.frm[f], err_msg=f)
    assert b.jnt.dtype == a.jnt.dtype and not b.jnt.flags.writeable


def _same_rnea(a, b):
    rng = np.random.default_rng(0)
    q = np.zeros(a.nq)
    q[:] = rng.uniform(-0.5, 0.5, a.nq)
    if a.joint_type(1) == "freeflyer":
        q[3:7] /= np.linalg.norm(q[3:7])
    v, acc = rng.normal(size=a.nv), rng.normal(size=a.nv)
    ta, tb = np.zeros(a.nv), np.zeros(a.nv)
    rnea(a.jnt, a.prm, q, v, acc, np.zeros((0, 6)), a.create_data().ws, ta)
    rnea(b.jnt, b.prm, q, v, acc, np.zeros((0, 6)), b.create_data().ws, tb)
    np.testing.assert_array_equal(ta, tb)


def test_pickle_round_trip():
    for m in _models():
        m2 = pickle.loads(pickle.dumps(m, protocol=pickle.HIGHEST_PROTOCOL))
        assert_same_model(m, m2)
        assert m2.token == m.token  # the same model: a pickled (model, data) pair still works
        _same_rnea(m, m2)


def test_npz_round_trip(tmp_path):
    for k, m in enumerate(_models()):
        path = tmp_path / f"model{k}.npz"
        save_npz(m, path)
        m2 = load_npz(path)
        assert_same_model(m, m2)
        _same_rnea(m, m2)
    assert load_npz(tmp_path / "model1.npz").mimic == {"finger2": ("finger1", 1.0, 0.001)}


# The joint record format 1 files held, every field under "jnt.": the topology and the
# parameters together, the inertia both as (mass, com, inertia about the com) and as pi.
FORMAT1_JOINT_FIELDS = ("parent", "type", "idx_q", "nq", "idx_v", "nv", "R", "p", "axis",
                        "axis2", "pitch", "mass", "com", "inertia", "pi", "q_lower", "q_upper",
                        "v_max", "effort_max", "armature", "damping", "friction")


def _save_format1(m, path):
    """``m`` written as save_npz wrote models before the topology + parameters split."""
    from fastdyn.model import joint_records
    rec = joint_records(m)
    items = sorted(m.mimic.items())
    arrays = {"format": np.array(1), "name": np.array(m.name),
              "gravity": np.array(m.gravity, dtype=np.float64),
              "joint_names": np.array(m.joint_names, dtype=str),
              "frame_names": np.array(m.frame_names, dtype=str),
              "mimic_joint": np.array([j for j, _ in items], dtype=str),
              "mimic_mimicked": np.array([x[0] for _, x in items], dtype=str),
              "mimic_coeffs": np.array([x[1:] for _, x in items],
                                       dtype=np.float64).reshape(-1, 2)}
    for f in FORMAT1_JOINT_FIELDS:
        arrays[f"jnt.{f}"] = np.ascontiguousarray(rec[f])
    for f in m.frm.dtype.names:
        arrays[f"frm.{f}"] = np.ascontiguousarray(m.frm[f])
    np.savez(path, **arrays)


def test_npz_format1_loads(tmp_path):
    for k, m in enumerate(_models()):
        path = tmp_path / f"old{k}.npz"
        _save_format1(m, path)
        m2 = load_npz(path)
        assert_same_model(m, m2)
        _same_rnea(m, m2)
    assert load_npz(tmp_path / "old1.npz").mimic == {"finger2": ("finger1", 1.0, 0.001)}


@pytest.mark.parametrize("change, message", [
    (lambda a: a.update({k: v[:0] for k, v in a.items() if k.startswith(("jnt.", "prm."))}),
     "no joints"),
    (lambda a: a.update({"jnt.type": np.array(3)}), "'jnt.type' must be 1-D"),
    (lambda a: a.pop("prm.damping"), "'prm.damping' missing"),
    (lambda a: a.pop("gravity"), "'gravity' missing"),
    (lambda a: a.pop("mimic_coeffs"), "'mimic_coeffs' missing"),
], ids=["no joints", "scalar type", "missing field", "missing gravity", "missing mimic"])
def test_npz_damaged_files_raise_value_error(tmp_path, change, message):
    path = tmp_path / "m.npz"
    save_npz(fm.load("double_pendulum"), path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=message):
        load_npz(path)


def test_npz_rejects_other_files(tmp_path):
    np.savez(tmp_path / "other.npz", x=np.arange(3))
    with pytest.raises(ValueError, match="not a fastdyn model file"):
        load_npz(tmp_path / "other.npz")
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object))
    m = fm.load("double_pendulum")
    save_npz(m, tmp_path / "dp.npz")
    with np.load(tmp_path / "dp.npz", allow_pickle=False) as z:  # nothing needs pickle
        assert all(z[k].dtype != object for k in z.files)


def test_bundled_rnea_matches_pinocchio_parse(bundled):
    """The same URDF through Pinocchio's own parser gives the same inverse dynamics."""
    _, m, pm = bundled
    rng = np.random.default_rng(7)
    q, v, a = random_state(pm, rng)
    tau = np.zeros(m.nv)
    rnea(m.jnt, m.prm, q, v, a, np.zeros((0, 6)), m.create_data().ws, tau)
    close(tau, pin.rnea(pm, pm.createData(), q, v, a))
