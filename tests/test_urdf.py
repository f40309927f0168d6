"""URDF parser: Pinocchio's model of every example-robot-data URDF, the kernels on parsed robots,
every joint kind, and a corpus of malformed or hostile files (tests/urdf_corpus/)."""

import glob
import locale
import os
import pickle
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import fastdyn
from fastdyn.kernels import layout
from fastdyn.kernels.algorithms.forward_kinematics import forward_kinematics
from fastdyn.kernels.algorithms.rnea import rnea
from fastdyn.kernels.joints import codes
from fastdyn.io.urdf import MAX_BYTES, URDFError, URDFWarning, load_urdf, parse_urdf

pin = pytest.importorskip("pinocchio")
from conftest import close, random_state  # noqa: E402

CORPUS = Path(__file__).parent / "urdf_corpus"


def _erd_dir():
    try:
        from fastdyn.models import example_robot_data_dir

        return example_robot_data_dir()
    except FileNotFoundError:
        return None


ERD = _erd_dir()
ERD_FILES = sorted(glob.glob(str(ERD / "**" / "*.urdf"), recursive=True)) if ERD else []


def _quiet_load(path, root_joint=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", URDFWarning)
        return load_urdf(path, root_joint=root_joint)


def _pin_load(path, free):
    """Pinocchio's model, or None where it refuses the file (urdfdom prints to stderr)."""
    try:
        return (pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if free
                else pin.buildModelFromUrdf(str(path)))
    except (ValueError, RuntimeError):
        return None


from oracle import PIN_JOINT_TYPES as _PIN_TYPES  # noqa: E402


def _unbounded(x):
    """Pinocchio writes DBL_MAX where fastdyn writes inf."""
    x = np.array(x, dtype=np.float64)
    x[np.abs(x) >= np.finfo(np.float64).max] *= np.inf
    return x


def assert_same_structure(m, pm):
    """nq, nv, joints (names, order, parents, types, axes, placements, inertias, limits) and
    frames (names, types, parents, placements) as Pinocchio's model."""
    assert (m.nq, m.nv, m.njoints) == (pm.nq, pm.nv, pm.njoints)
    assert list(m.joint_names) == list(pm.names)
    q0 = pin.neutral(pm)
    for i in range(1, pm.njoints):
        r, pr, name = m.jnt[i], m.params[i], pm.names[i]
        assert r["parent"] == pm.parents[i], name
        assert (r["idx_q"], r["idx_v"]) == (pm.idx_qs[i], pm.idx_vs[i]), name
        assert r["type"] == _PIN_TYPES[pm.joints[i].shortname()], name
        if r["nv"] == 1:  # 1-dof joints: S = [axis; 0] (prismatic) or [0; axis] (revolute)
            jd = pm.joints[i].createData()
            pm.joints[i].calc(jd, q0)
            S = np.array(jd.S).ravel()
            axis = S[:3] if r["type"] in range(codes.PRISMATIC_X, codes.PRISMATIC + 1) else S[3:]
            np.testing.assert_allclose(pr["axis"], axis, atol=1e-15, err_msg=name)
        M = pm.jointPlacements[i]
        np.testing.assert_allclose(pr["R"], M.rotation, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(pr["p"], M.translation, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(pr["pi"], pm.inertias[i].toDynamicParameters(), rtol=1e-10,
                                   atol=1e-12, err_msg=name)
    for mine, theirs in ((m.lower_position_limit, pm.lowerPositionLimit),
                         (m.upper_position_limit, pm.upperPositionLimit),
                         (m.velocity_limit, pm.velocityLimit), (m.effort_limit, pm.effortLimit),
                         (m.damping, pm.damping), (m.friction, pm.friction)):
        np.testing.assert_array_equal(mine, _unbounded(theirs))
    assert list(m.frame_names) == [f.name for f in pm.frames]
    for k, f in enumerate(pm.frames):
        r = m.frm[k]
        assert (r["type"], r["parent_joint"], r["parent_frame"]) == (
            int(f.type), f.parentJoint, f.parentFrame), f.name
        np.testing.assert_allclose(r["R"], f.placement.rotation, atol=1e-12, err_msg=f.name)
        np.testing.assert_allclose(r["p"], f.placement.translation, atol=1e-12, err_msg=f.name)


def assert_same_dynamics(m, pm, seed=0, n=3):
    """RNEA, joint placements and frame placements (oMf = oMi[parent] * placement) agree with
    Pinocchio at random states; CRBA and ABA too where fastdyn has them."""
    rng = np.random.default_rng(seed)
    data, pd = m.create_data(), pm.createData()
    tau = np.zeros(m.nv)
    for _ in range(n):
        q, v, a = random_state(pm, rng)
        rnea(m.jnt, m.prm, q, v, a, np.zeros((0, 6)), data.ws, tau)
        close(tau, pin.rnea(pm, pd, q, v, a))
        forward_kinematics(m.jnt, m.prm, q, np.zeros(0), np.zeros(0), data.ws)
        pin.forwardKinematics(pm, pd, q)
        pin.updateFramePlacements(pm, pd)
        for i in range(pm.njoints):
            close(data.oMi_R[i], pd.oMi[i].rotation)
            close(data.oMi_p[i], pd.oMi[i].translation)
        for k in range(pm.nframes):
            f = m.frm[k]
            j = f["parent_joint"]
            R, p = data.oMi_R[j] @ f["R"], data.oMi_p[j] + data.oMi_R[j] @ f["p"]
            close(R, pd.oMf[k].rotation)
            close(p, pd.oMf[k].translation)
        M = pin.crba(pm, pd, q)
        M = np.triu(M) + np.triu(M, 1).T
        if hasattr(fastdyn, "crba"):
            close(fastdyn.crba(m, data, q), M)
        if hasattr(fastdyn, "aba") and np.linalg.eigvalsh(M)[0] > 1e-10 * np.abs(M).max():
            close(fastdyn.aba(m, data, q, v, tau), pin.aba(pm, pd, q, v, tau))


# --- example-robot-data -------------------------------------------------------------------------

def _erd_params():
    if not ERD_FILES:
        return [pytest.param(None, marks=pytest.mark.skip("example-robot-data not installed"))]
    return [pytest.param(f, id=os.path.relpath(f, ERD)) for f in ERD_FILES]


@pytest.mark.parametrize("path", _erd_params())
def test_example_robot_data_sweep(path):
    """Every URDF Pinocchio loads, fastdyn loads identically, with a fixed and a free base."""
    for free in (False, True):
        pm = _pin_load(path, free)
        if pm is None:
            with pytest.raises(URDFError):
                load_urdf(path)
            return
        assert_same_structure(_quiet_load(path, "freeflyer" if free else None), pm)


DYNAMICS = {"ur5": "ur_description/urdf/ur5_robot.urdf",
            "panda": "panda_description/urdf/panda.urdf",
            "solo12": "solo_description/robots/solo12.urdf",
            "anymal": "anymal_b_simple_description/robots/anymal.urdf",
            "talos": "talos_data/robots/talos_reduced.urdf",
            "tiago": "tiago_description/robots/tiago.urdf", "pr2": "pr2_description/urdf/pr2.urdf",
            "kinova": "kinova_description/robots/kinova.urdf"}
FREE = {"solo12", "anymal", "talos"}


@pytest.fixture(scope="module", params=sorted(DYNAMICS))
def erd_pair(request):
    if ERD is None:
        pytest.skip("example-robot-data not installed")
    path = ERD / DYNAMICS[request.param]
    free = request.param in FREE
    return _quiet_load(path, "freeflyer" if free else None), _pin_load(path, free)


def test_example_robot_data_dynamics(erd_pair):
    m, pm = erd_pair
    assert_same_dynamics(m, pm)


# --- every joint kind, built from text ----------------------------------------------------------

def _inertial(m, xyz="0 0 0", rpy="0 0 0", i=(0.1, 0.12, 0.08, 0.01, -0.005, 0.002)):
    ixx, iyy, izz, ixy, ixz, iyz = i
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{m}"/><inertia ixx="{ixx}" '
            f'ixy="{ixy}" ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/></inertial>')


def _joint(name, kind, parent, child, xyz="0.1 0.2 0.3", rpy="0.3 -0.2 0.1", axis=None,
           extra=""):
    ax = f'<axis xyz="{axis}"/>' if axis else ""
    lim = ('<limit lower="-1.5" upper="1.2" effort="30" velocity="4"/>'
           if kind in ("revolute", "prismatic") else "")
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/>{ax}{lim}{extra}</joint>')


def all_kinds_urdf():
    """A tree with every URDF joint kind, aligned, negative and skew axes, fixed-joint chains
    carrying mass (also under the root), inertial rpy, massless links, mimic tags and joint
    names listed out of alphabetical order."""
    links = {"base": _inertial(2.0, "0.01 0 0.02", "0.1 0.2 0.3"), "l_rx": _inertial(1.0),
             "l_rneg": _inertial(0.7, "0 0.1 0", "0.5 0 0"), "l_rskew": _inertial(0.9),
             "l_cz": _inertial(0.5, "0.1 0 0"), "l_cskew": _inertial(0.6),
             "l_px": _inertial(0.4), "l_pskew": _inertial(0.8, "0 0 0.1", "0 0.3 0"),
             "l_fix1": _inertial(0.3, "0.05 0 0"), "l_fix2": "", "l_fix3": _inertial(0.2),
             "l_after_fix": _inertial(0.5), "l_root_fix": _inertial(1.5, "0 0 0.2"),
             "l_float": _inertial(1.1), "l_planar": _inertial(1.3), "l_massless": "",
             "l_tip": _inertial(0.2)}
    j = [_joint("zeta_rx", "revolute", "base", "l_rx", axis="1 0 0",
                extra='<dynamics damping="0.4" friction="0.1"/>'),
         _joint("alpha_rneg", "revolute", "l_rx", "l_rneg", axis="0 0 -1"),
         _joint("beta_rskew", "revolute", "l_rneg", "l_rskew", axis="1 2 3"),
         _joint("c_cz", "continuous", "base", "l_cz", axis="0 0 1"),
         _joint("c_cskew", "continuous", "l_cz", "l_cskew", axis="0 -0.6 0.8",
                extra='<limit effort="5" velocity="6"/>'),
         _joint("d_px", "prismatic", "l_cskew", "l_px", axis="1 0 0"),
         _joint("d_pskew", "prismatic", "l_px", "l_pskew", axis="0 1 1"),
         _joint("e_fix1", "fixed", "l_pskew", "l_fix1"),
         _joint("e_fix2", "fixed", "l_fix1", "l_fix2"),
         _joint("e_fix3", "fixed", "l_fix2", "l_fix3"),
         _joint("f_after_fix", "revolute", "l_fix3", "l_after_fix", axis="0 1 0",
                extra='<mimic joint="zeta_rx" multiplier="-2" offset="0.1"/>'),
         _joint("root_fix", "fixed", "base", "l_root_fix"),
         _joint("g_float", "floating", "l_root_fix", "l_float"),
         _joint("h_planar", "planar", "l_float", "l_planar"),
         _joint("i_massless", "continuous", "l_planar", "l_massless", axis="0 0 1"),
         _joint("j_tip", "revolute", "l_massless", "l_tip", axis="0 1 0")]
    body = "".join(f'<link name="{n}">{i}</link>' for n, i in links.items()) + "".join(j)
    return f'<robot name="all_kinds">{body}</robot>'


@pytest.fixture(scope="module", params=[None, "freeflyer", "planar"])
def kinds_pair(request):
    xml = all_kinds_urdf()
    root = {None: None, "freeflyer": pin.JointModelFreeFlyer(), "planar": pin.JointModelPlanar()}
    pm = (pin.buildModelFromXML(xml) if request.param is None
          else pin.buildModelFromXML(xml, root[request.param]))
    return load_urdf(xml, root_joint=request.param), pm


def test_all_joint_kinds_structure(kinds_pair):
    assert_same_structure(*kinds_pair)


def test_all_joint_kinds_dynamics(kinds_pair):
    assert_same_dynamics(*kinds_pair, seed=1, n=4)


def test_negative_axis_keeps_the_urdf_sign():
    m, pm = load_urdf(all_kinds_urdf()), pin.buildModelFromXML(all_kinds_urdf())
    j = m.joint_id("alpha_rneg")
    assert m.joint_type(j) == "revolute"
    np.testing.assert_array_equal(m.params[j]["axis"], [0.0, 0.0, -1.0])
    data = m.create_data()
    q = pin.neutral(pm)
    q[m.jnt[j]["idx_q"]] = 0.3
    forward_kinematics(m.jnt, m.prm, q, np.zeros(0), np.zeros(0), data.ws)
    liR = m.params[j]["R"].T @ data.liMi_R[j]
    c, s = np.cos(0.3), np.sin(0.3)
    close(liR, [[c, s, 0], [-s, c, 0], [0, 0, 1]])  # a rotation by -0.3 about +Z


def test_children_follow_pinocchio_order():
    """urdfdom keeps joints in a std::map, so Pinocchio visits children by joint name."""
    xml = ('<robot name="r"><link name="a"/><link name="b"/><link name="c"/><link name="d"/>'
           + _joint("Z", "continuous", "a", "b", axis="0 0 1")
           + _joint("a_", "continuous", "a", "c", axis="0 0 1")
           + _joint("_b", "continuous", "a", "d", axis="0 0 1") + "</robot>")
    m = load_urdf(xml)
    assert list(m.joint_names) == ["universe", "Z", "_b", "a_"]
    assert list(m.joint_names) == list(pin.buildModelFromXML(xml).names)


def test_inputs_path_string_bytes():
    xml = all_kinds_urdf()
    a = load_urdf(xml)
    b = load_urdf(xml.encode())
    assert a.joint_names == b.joint_names and np.array_equal(a.jnt, b.jnt)


def test_path_objects(tmp_path):
    f = tmp_path / "kinds.urdf"
    f.write_text(all_kinds_urdf())
    for arg in (f, str(f)):
        m = load_urdf(arg)
        assert m.name == "all_kinds" and m.nv == pin.buildModelFromXML(all_kinds_urdf()).nv == 19
    with pytest.raises(FileNotFoundError):
        load_urdf(tmp_path / "missing.urdf")


def test_mimic_kept_and_joints_independent():
    m = load_urdf(all_kinds_urdf())
    assert m.mimic == {"f_after_fix": ("zeta_rx", -2.0, 0.1)}
    assert m.joint_type("f_after_fix") == "revolute_y"
    # followed with mimic=True (tests/test_mimic.py; Pinocchio refuses this file, whose leader
    # comes after its follower)
    mm = load_urdf(all_kinds_urdf(), mimic=True)
    assert (mm.nq, mm.nv, mm.full.nq) == (m.nq - 1, m.nv - 1, m.nq)
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.mimic == m.mimic


@pytest.mark.parametrize("root, pin_root", [
    ("freeflyer", "JointModelFreeFlyer"), ("free-flyer", "JointModelFreeFlyer"),
    ("planar", "JointModelPlanar"), ("spherical", "JointModelSpherical"),
    ("revolute_z", "JointModelRZ"), ("translation", "JointModelTranslation")])
def test_root_joint_types(root, pin_root):
    xml = all_kinds_urdf()
    m, pm = load_urdf(xml, root_joint=root), pin.buildModelFromXML(xml, getattr(pin, pin_root)())
    assert m.joint_names[1] == "root_joint" and m.frame_names[1] == "root_joint"
    assert_same_structure(m, pm)


@pytest.mark.parametrize("bad", ["revolute", "universal", "universe", "wheel", 3])
def test_root_joint_rejected(bad):
    with pytest.raises((ValueError, TypeError), match="root_joint"):
        load_urdf(all_kinds_urdf(), root_joint=bad)


def test_parse_urdf_keeps_lines():
    d = parse_urdf(all_kinds_urdf().replace("><", ">\n<"))
    assert d.name == "all_kinds" and d.child_order == "name"
    assert all(x.line and x.line > 1 for x in d.links + d.joints)
    assert len({x.line for x in d.joints}) == len(d.joints)


def test_numbers_ignore_the_locale():
    for name in ("de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "fr_FR"):
        try:
            old = locale.setlocale(locale.LC_NUMERIC, name)
            break
        except locale.Error:
            continue
    else:
        pytest.skip("no decimal-comma locale installed")
    try:
        m = load_urdf(all_kinds_urdf())
        assert m.nq == pin.buildModelFromXML(all_kinds_urdf()).nq
        with pytest.raises(URDFError, match="decimal comma"):
            load_urdf(CORPUS / "decimal_comma.urdf")
    finally:
        locale.setlocale(locale.LC_NUMERIC, old if old != name else "C")


def test_hostile_sizes_do_not_hang_or_recurse():
    t = time.perf_counter()
    deep = '<robot name="r"><link name="a">' + "<x>" * 50000 + "</x>" * 50000 + "</link></robot>"
    assert load_urdf(deep).njoints == 1
    links = "".join(f'<link name="l{i}">{_inertial(1.0)}</link>' for i in range(1500))
    joints = "".join(_joint(f"j{i}", "continuous", f"l{i - 1}", f"l{i}", axis="0 0 1")
                     for i in range(1, 1500))
    assert load_urdf(f'<robot name="chain">{links}{joints}</robot>').njoints == 1500
    assert time.perf_counter() - t < 30


# --- the corpus of malformed and hostile files --------------------------------------------------

# file -> (fragments the message must contain, line, load_urdf keywords); None line: no check.
CORPUS_ERRORS = {
    "no_robot_root.urdf": (["<model>", "expected <robot>"], 2, {}),
    "robot_no_name.urdf": (["<robot>", "no name"], 2, {}),
    "no_links.urdf": (["robot 'r'", "no <link>"], 2, {}),
    "unknown_joint_type.urdf": (["joint 'shoulder'", "unknown joint type 'ball'"], 5, {}),
    "child_link_missing.urdf": (["joint 'shoulder'", "child link 'ghost'", "not defined"], 4, {}),
    "parent_link_missing.urdf": (["joint 'shoulder'", "parent link 'ghost'"], 4, {}),
    "two_parents.urdf": (["joint 'j2'", "link 'arm' has two parent joints", "'j1' (line 6)"],
                         10, {}),
    "cycle.urdf": (["cycle", "'b'", "'c'"], 10, {}),
    "self_loop.urdf": (["joint 'loop'", "its own parent"], 5, {}),
    "several_roots.urdf": (["2 root links", "'base' (line 3)", "'floating_part' (line 4)"], 4,
                           {}),
    "duplicate_link.urdf": (["link 'base'", "duplicate link name", "line 3"], 4, {}),
    "duplicate_joint.urdf": (["joint 'j'", "duplicate joint name", "line 6"], 10, {}),
    "zero_axis.urdf": (["joint 'elbow'", "<axis xyz=\"0 0 0\">", "zero"], 8, {}),
    "axis_no_xyz.urdf": (["joint 'elbow'", "<axis> has no xyz"], 8, {}),
    "nan_origin.urdf": (["joint 'elbow'", "xyz=\"nan 0 0\"", "not a finite decimal"], 8, {}),
    "text_in_number.urdf": (["link 'arm'", "<mass value=\"heavy\">"], 6, {}),
    "decimal_comma.urdf": (["joint 'elbow'", "'0,5'", "decimal comma"], 8, {}),
    "inf_limit.urdf": (["joint 'elbow'", "<limit lower=\"-inf\">"], 8, {}),
    "overflow_number.urdf": (["joint 'elbow'", "1e999", "overflows"], 8, {}),
    "vector_two_numbers.urdf": (["joint 'elbow'", "needs 3 numbers", "got 2"], 8, {}),
    "hex_number.urdf": (["joint 'elbow'", "0x1"], 8, {}),
    "negative_mass.urdf": (["link 'arm'", "negative mass -2.5"], 7, {}),
    "negative_inertia_diagonal.urdf": (["link 'arm'", "negative moment of inertia"], 7, {}),
    "entity_bomb.urdf": (["DOCTYPE", "not allowed", "entity"], 2, {}),
    "entity_bomb_utf16.urdf": (["DOCTYPE", "not allowed"], 2, {}),
    "external_entity.urdf": (["DOCTYPE", "not allowed", "external"], 2, {}),
    "parameter_entity.urdf": (["DOCTYPE", "not allowed"], 2, {}),
    "doctype_plain.urdf": (["DOCTYPE", "not allowed"], 2, {}),
    "undefined_entity.urdf": (["malformed XML", "undefined entity"], 4, {}),
    "truncated.urdf": (["malformed XML", "unclosed token"], 6, {}),
    "mismatched_tag.urdf": (["malformed XML", "mismatched tag"], 5, {}),
    "two_documents.urdf": (["malformed XML", "junk after document element"], 5, {}),
    "not_xml.urdf": (["malformed XML", "syntax error"], 1, {}),
    "empty.urdf": (["malformed XML", "no element found"], 1, {}),
    "revolute_no_limit.urdf": (["joint 'elbow'", "revolute joint needs <limit"], 5, {}),
    "limit_no_effort.urdf": (["joint 'elbow'", "<limit> has no effort"], 8, {}),
    "lower_above_upper.urdf": (["joint 'elbow'", "lower 1.5 is above upper -1.5"], 8, {}),
    "inertial_no_mass.urdf": (["link 'arm'", "no <mass"], 5, {}),
    "inertia_missing_attribute.urdf": (["link 'arm'", "no ixy="], 7, {}),
    "joint_without_child.urdf": (["joint 'elbow'", "no <child link="], 5, {}),
    "joint_without_name.urdf": (["<joint>", "no name attribute"], 5, {}),
    "joint_without_type.urdf": (["joint 'elbow'", "no type attribute"], 5, {}),
    "link_without_name.urdf": (["<link>", "no name attribute"], 3, {}),
    "empty_dynamics.urdf": (["joint 'elbow'", "<dynamics> with neither"], 8, {}),
    "negative_damping.urdf": (["joint 'elbow'", "damping and friction must be >= 0"], 8, {}),
    "mimic_without_joint.urdf": (["joint 'finger'", "<mimic> has no joint"], 8, {}),
    "root_joint_clash.urdf": (["joint 'root_joint'", "already named 'root_joint'"], 5,
                              {"root_joint": "freeflyer"}),
    "mimic_cycle.urdf": (["joint 'j1' <mimic>", "cycle 'j1' -> 'j3' -> 'j2' -> 'j1'"], 10, {}),
    "mimic_self.urdf": (["joint 'finger' <mimic>", "mimics itself"], 8, {}),
    "non_ascii_digit.urdf": (["joint 'elbow'", "<limit lower=\"-\u0661\">", "non-ASCII"], 8, {}),
    "trailing_space_number.urdf": (["link 'arm'", "<inertia iyz=\"0. \">",
                                    "whitespace after the number"], 7, {}),
    "axis_overflow.urdf": (["joint 'elbow'", "<axis xyz=\"1e308 1e308 0\">", "overflows"], 8,
                           {}),
    "inertia_overflow.urdf": (["link 'arm' <inertial>", "overflows a double"], 8, {}),
    "joint_named_universe.urdf": (["joint 'universe'", "name of joint 0"], 5, {}),
    "fixed_joint_bad_limit.urdf": (["joint 'mount'", "<limit effort=\"nan\">"], 8, {}),
    "blank_joint_name.urdf": (["<joint>", "name=' ' is blank"], 5, {}),
}
# Files Pinocchio loads silently: fastdyn loads them too, with a URDFWarning saying what is off.
CORPUS_WARNINGS = {
    "nonphysical_inertia.urdf": ["'arm' (line 4)", "not physically consistent"],
    "mimic_unknown_joint.urdf": ["'finger' (line 5)", "mimics 'thumb'", "not defined"],
}


def test_corpus_is_complete():
    files = {p.name for p in CORPUS.glob("*.urdf")}
    assert len(files) >= 30
    assert files == set(CORPUS_ERRORS) | set(CORPUS_WARNINGS)


@pytest.mark.parametrize("name", sorted(CORPUS_ERRORS))
def test_corpus_errors(name):
    fragments, line, kw = CORPUS_ERRORS[name]
    t = time.perf_counter()
    with pytest.raises(URDFError) as err, warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        load_urdf(CORPUS / name, **kw)
    assert time.perf_counter() - t < 2.0
    assert all(issubclass(w.category, URDFWarning) for w in rec), [str(w.message) for w in rec]
    msg = str(err.value)
    assert name in msg and err.value.source.endswith(name)
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in {msg!r}"
    assert err.value.line == line and f"line {line}:" in msg, msg
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("name", sorted(CORPUS_WARNINGS))
def test_corpus_warnings(name):
    with pytest.warns(URDFWarning) as rec:
        m = load_urdf(CORPUS / name)
    msg = " ".join(str(w.message) for w in rec)
    for frag in CORPUS_WARNINGS[name] + [name]:
        assert frag in msg, f"{frag!r} not in {msg!r}"
    assert m.nv == 1


def test_corpus_xml_never_expands_entities():
    """The bombs and external entities fail fast as text and as bytes, never touching a file."""
    for name in ("entity_bomb.urdf", "external_entity.urdf", "parameter_entity.urdf"):
        raw = (CORPUS / name).read_bytes()
        for arg in (raw, raw.decode()):
            with pytest.raises(URDFError, match="not allowed") as err:
                load_urdf(arg)
            assert err.value.source == "<string>"


def test_layout_frame_types_match_pinocchio():
    assert (layout.OP_FRAME, layout.JOINT_FRAME, layout.FIXED_JOINT_FRAME, layout.BODY_FRAME) == (
        int(pin.FrameType.OP_FRAME), int(pin.FrameType.JOINT), int(pin.FrameType.FIXED_JOINT),
        int(pin.FrameType.BODY))


# --- resource limits ------------------------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_max_bytes_stops_dev_zero():
    """A character device has st_size 0 and never ends: reading stops at the cap."""
    t = time.perf_counter()
    with pytest.raises(URDFError) as err:
        load_urdf("/dev/zero")
    msg = str(err.value)
    assert err.value.source == "/dev/zero" and msg.startswith("/dev/zero: ")
    assert "max_bytes=67108864 (64 MiB)" in msg and "max_bytes=None" in msg, msg
    with pytest.raises(URDFError, match=r"max_bytes=4096\b"):
        parse_urdf("/dev/zero", max_bytes=4096)
    assert time.perf_counter() - t < 10


def test_max_bytes_sparse_file(tmp_path):
    """A file just over an explicit cap is refused unread; one at the cap is read."""
    f = tmp_path / "big.urdf"
    xml = all_kinds_urdf().encode()
    f.write_bytes(xml)
    assert load_urdf(f, max_bytes=len(xml)).nv == 19
    cap = len(xml) + 1000
    with open(f, "r+b") as fh:
        fh.truncate(cap + 1)  # a hole of NUL bytes: no disk, any size
    with pytest.raises(URDFError) as err:
        load_urdf(f, max_bytes=cap)
    msg = str(err.value)
    assert str(f) in msg and f"({cap + 1} bytes)" in msg and f"max_bytes={cap}," in msg, msg
    with open(f, "r+b") as fh:
        fh.truncate(cap)
    with pytest.raises(URDFError, match="malformed XML"):  # read: the NULs are not XML
        load_urdf(f, max_bytes=cap)
    with open(f, "r+b") as fh:
        fh.truncate(MAX_BYTES + 1)
    with pytest.raises(URDFError, match=rf"\({MAX_BYTES + 1} bytes\) is larger than "
                                        rf"max_bytes={MAX_BYTES} \(64 MiB\)"):
        load_urdf(f)


def test_max_bytes_strings_bytes_and_arguments():
    xml = all_kinds_urdf()
    for doc in (xml, xml.encode()):
        with pytest.raises(URDFError, match="the document is larger than max_bytes=100,"):
            load_urdf(doc, max_bytes=100)
        assert load_urdf(doc, max_bytes=None).nv == load_urdf(doc, max_bytes=len(xml)).nv
    for bad in (-1, 1.5, "10", True):
        with pytest.raises(ValueError, match="max_bytes must be None or an integer >= 0"):
            load_urdf(xml, max_bytes=bad)
    assert load_urdf(xml, max_bytes=np.int64(len(xml))).nv == 19


# --- mimic relations -----------------------------------------------------------------------------

def _mimic_chain(n, targets):
    """Joints j0..j{n-1} in a chain; targets: {joint index: mimicked joint index or name}."""
    links = "".join(f'<link name="l{i}">{_inertial(1.0)}</link>' for i in range(n + 1))
    joints = [  # joint j{i} on line i + 2
        _joint(f"j{i}", "continuous", f"l{i}", f"l{i + 1}", axis="0 0 1",
               extra="" if i not in targets else
               f'<mimic joint="{targets[i] if isinstance(targets[i], str) else f"j{targets[i]}"}"'
               f' multiplier="2"/>')
        for i in range(n)]
    return "\n".join([f'<robot name="r">{links}'] + joints) + "</robot>"


@pytest.mark.parametrize("targets, cycle", [
    ({0: 0}, None), ({0: 1, 1: 0}, "'j0' -> 'j1' -> 'j0'"),
    ({1: 3, 2: 1, 3: 2, 0: 1}, "'j1' -> 'j3' -> 'j2' -> 'j1'"),
    ({i: (i + 1) % 12 for i in range(12)}, "'j0' -> 'j1' -> 'j2' -> 'j3' -> 'j4' -> 'j5' -> ... "
                                           "-> 'j11' -> 'j0'")])
def test_mimic_cycles_are_errors(targets, cycle):
    """Pinocchio (mimic=False) loads these silently; no joint on the cycle has a value to
    follow, so fastdyn refuses, naming the cycle and the <mimic> of its first joint."""
    xml = _mimic_chain(12, targets)
    pin.buildModelFromXML(xml)
    with pytest.raises(URDFError) as err:
        load_urdf(xml)
    first = min(j for j in targets if cycle is None or f"'j{j}'" in cycle)
    assert err.value.element == f"joint 'j{first}' <mimic>"
    assert err.value.line == first + 2  # one joint a line, after the links' line
    assert (cycle or "the joint mimics itself") in str(err.value), str(err.value)


def test_mimic_chains_load_and_unknown_targets_warn():
    """A chain (j2 -> j1 -> j0) is no contradiction; a tag naming no joint is dropped with a
    warning, as alex_psyonic_hands in example-robot-data needs (Pinocchio loads it)."""
    m = load_urdf(_mimic_chain(3, {1: 0, 2: 1}))
    assert m.mimic == {"j1": ("j0", 2.0, 0.0), "j2": ("j1", 2.0, 0.0)}
    with pytest.warns(URDFWarning, match=r"'j2' \(line 4\) mimics 'j_1', which is not defined "
                                         r"\(did you mean 'j1'"):
        m = load_urdf(_mimic_chain(3, {2: "j_1"}))
    assert m.mimic == {}


@pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")
def test_talos_mimic_tags_on_fixed_joints_still_load():
    with pytest.warns(URDFWarning, match="mimic tag.* ignored.* is fixed"):
        m = load_urdf(ERD / DYNAMICS["talos"], root_joint="freeflyer")
    assert m.nv == 38 and m.mimic == {}


# --- defects found by tests/test_fuzz_urdf.py ----------------------------------------------------

def _limit_doc(value):
    return ('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
            '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
            f'<limit lower="{value}" upper="1" effort="1" velocity="1"/></joint></robot>')


@pytest.mark.parametrize("value", ["\u0661", "\uff11", "1\u00a0", "\u00a01", "\u22121",
                                   "-0.5 ", "-0.5\t", "1\u200b"])
def test_numbers_are_ascii_and_end_with_the_number(value):
    """Python's float() reads Arabic-Indic and full-width digits and strips Unicode spaces;
    urdfdom reads none of them and refuses a space after a number (or, in an <inertial>,
    drops the whole inertial): fastdyn used to read all of these, giving a robot Pinocchio
    refuses or loads differently."""
    with pytest.raises(URDFError, match=r"not a finite decimal|whitespace after the number"):
        load_urdf(_limit_doc(value.replace("\t", "&#9;")))
    with pytest.raises(ValueError):
        pin.buildModelFromXML(_limit_doc(value.replace("\t", "&#9;")))


@pytest.mark.parametrize("value", [" -0.5", "&#9;-0.5", "-.5", "-5e-1", "-5.", "-1e-400"])
def test_numbers_urdfdom_reads_are_read(value):
    m, pm = load_urdf(_limit_doc(value)), pin.buildModelFromXML(_limit_doc(value))
    assert m.lower_position_limit[0] == pm.lowerPositionLimit[0]


def test_huge_numbers_fail_clearly_without_numpy_warnings():
    """1e308 axes and inertias used to overflow inside NumPy (RuntimeWarnings, then "axis is
    zero" or a bare ValueError without file or line); now each names its element."""
    heavy = _inertial("1e308", "1 0 0", i=(1, 1, 1, 0, 0, 0))
    huge = _inertial(1, i=(1e308,) * 3 + (1e308, 0, 0))
    docs = {  # document -> (element, fragment)
        _limit_doc("-1").replace('<axis xyz="0 0 1"/>', '<axis xyz="1e308 1e308 0"/>'):
            ("joint 'j'", "its length overflows"),
        f'<robot name="r"><link name="a"/><link name="b">{huge}</link>'
        f'{_joint("j", "continuous", "a", "b", axis="0 0 1")}</robot>':
            ("link 'b'", "overflows a double"),
        f'<robot name="r"><link name="a"/><link name="b">{heavy}</link><link name="c">{heavy}'
        f'</link>{_joint("j", "continuous", "a", "b", axis="0 0 1")}'
        f'{_joint("f", "fixed", "b", "c")}</robot>': ("link 'b'", "overflow"),  # the body itself
    }
    for doc, (element, fragment) in docs.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(URDFError) as err:
                load_urdf(doc)
        assert err.value.element.startswith(element) and err.value.line == 1, str(err.value)
        assert fragment in str(err.value)
        pin.buildModelFromXML(doc)  # Pinocchio keeps the infs


def test_limit_dynamics_and_axis_checked_on_every_joint_type():
    """urdfdom reads <limit>, <dynamics> and (planar) <axis> whatever the joint type and
    refuses malformed ones; fastdyn used to skip them on joints that ignore the values."""
    for kind, extra in (("fixed", '<limit effort="nan" velocity="1"/>'),
                        ("floating", '<limit effort="1"/>'),
                        ("fixed", '<dynamics damping="x"/>'),
                        ("planar", '<axis xyz="0 0"/>')):
        doc = (f'<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="{kind}">'
               f'<parent link="a"/><child link="b"/>{extra}</joint></robot>')
        with pytest.raises(URDFError, match="joint 'j'"):
            load_urdf(doc)
        with pytest.raises(ValueError):
            pin.buildModelFromXML(doc)
    ok = ('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed">'
          '<parent link="a"/><child link="b"/><limit lower="1" upper="-1" effort="-1" '
          'velocity="1"/><dynamics damping="-1"/></joint></robot>')
    assert load_urdf(ok).nv == pin.buildModelFromXML(ok).nv == 0  # unused values: not judged


@pytest.mark.parametrize("doc, fragment", [
    ('<robot name="r"><link/></robot>', "no name attribute"),
    ('<robot name="r"><link name=""/></robot>', "name='' is blank"),
    (_limit_doc("-1").replace('name="j"', 'name="universe"'), "name of joint 0")])
def test_names_pinocchio_takes_but_cannot_use(doc, fragment):
    pin.buildModelFromXML(doc)
    with pytest.raises(URDFError, match=fragment):
        load_urdf(doc)
