"""Mimic joints (fastdyn/mimic.py): q_j = k q_i + o, the mimic joints' coordinates removed.

Oracles: Pinocchio 4.1's ``buildModelFromUrdf(path, mimic=True)`` on the robots it loads that
way (same nq, nv, q layout, RNEA, CRBA, placements, Jacobians); for files it refuses (Talos's
full model and Romeo, whose mimicked joint comes after its follower) and for MJCF, the
reduced-system identities on the mimic=False model, with the expansion written here from the
joint names (not fastdyn's): tau = G^T RNEA_full(gamma(q), G v, G a), M = G^T M_full G,
J = J_full G; MuJoCo's own equality residual for MJCF; ABA against RNEA.
"""

import pickle
import warnings

import numpy as np
import pytest

import fastdyn as fd
import fastdyn.models as fm
from fastdyn._internal.checks import MimicNotSupportedError
from fastdyn.mimic import MimicModel

pin = pytest.importorskip("pinocchio")

TOL = 1e-10
REFS = (fd.LOCAL, fd.WORLD, fd.LOCAL_WORLD_ALIGNED)
PIN_REFS = {fd.LOCAL: pin.LOCAL, fd.WORLD: pin.WORLD, fd.LOCAL_WORLD_ALIGNED:
            pin.LOCAL_WORLD_ALIGNED}
# (robot, nq, nv) with mimic=True, as Pinocchio 4.1 gives them
PIN_ROBOTS = {"panda": (8, 8), "talos_left_arm": (7, 7), "talos_reduced": (32, 32),
              "baxter": (17, 17), "pr2": (24, 20), "tiago_pro": (27, 23)}
MIMIC_ROBOTS = ("panda", "baxter", "pr2", "tiago_pro")  # those with moving mimic joints
# PIN_CRBA: Pinocchio 4.1's crba on a mimic model keeps stale entries of data.M from an
# earlier call (the same q twice gives two answers off the diagonal on the chain below),
# so every reference M is computed on a fresh pin Data.

_cache = {}


def close(x, ref, tol=TOL):
    x, ref = np.asarray(x), np.asarray(ref)
    scale = max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
    err = float(np.abs(x - ref).max()) if ref.size else 0.0
    assert err <= tol * scale, f"max error {err:.3e} > {tol:.0e} x scale {scale:.3e}"


def robot(name):
    """(fastdyn mimic model, fastdyn mimic=False model, pinocchio mimic model or None)."""
    if name not in _cache:
        path = str(fm.path(name, source="example-robot-data"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # non-physical inertias, mimic tags on fixed joints
            m, full = fd.load_urdf(path, mimic=True), fd.load_urdf(path)
        try:
            pm = pin.buildModelFromUrdf(path, mimic=True)
        except ValueError:
            pm = None
        _cache[name] = (m, full, pm)
    return _cache[name]


# --- the expansion, written from the joint names (independent of fastdyn.mimic) -------------
def layout(full, rel):
    """Reduced q/v offsets of each own joint: full order, mimic joints' coordinates removed."""
    oq, ov, q0, v0 = {}, {}, 0, 0
    for i in range(1, full.njoints):
        n = full.joint_names[i]
        if n not in rel:
            oq[n], ov[n] = q0, v0
            q0 += int(full.jnt[i]["nq"])
            v0 += int(full.jnt[i]["nv"])
    return oq, ov, q0, v0


def angle(full, qf, name):
    r = full.jnt[full.joint_id(name)]
    x = qf[r["idx_q"]:r["idx_q"] + r["nq"]]
    return x[0] if r["nq"] == 1 else np.arctan2(x[1], x[0])


def expand(full, rel, q):
    oq, _, _, _ = layout(full, rel)
    qf = np.full(full.nq, np.nan)
    for n, o in oq.items():
        r = full.jnt[full.joint_id(n)]
        qf[r["idx_q"]:r["idx_q"] + r["nq"]] = q[o:o + r["nq"]]

    def value(n):  # a chain of mimic tags: follow it to its first leader
        if n not in rel:
            return angle(full, qf, n)
        target, k, o = rel[n]
        return k * value(target) + o

    for n in rel:
        r = full.jnt[full.joint_id(n)]
        t = value(n)
        qf[r["idx_q"]:r["idx_q"] + r["nq"]] = [t] if r["nq"] == 1 else [np.cos(t), np.sin(t)]
    assert np.all(np.isfinite(qf))
    return qf


def G_matrix(full, rel):
    _, ov, _, nv = layout(full, rel)
    G = np.zeros((full.nv, nv))
    for i in range(1, full.njoints):
        n, r = full.joint_names[i], full.jnt[i]
        k, lead = 1.0, n
        while lead in rel:
            lead, k = rel[lead][0], k * rel[lead][1]
        G[r["idx_v"]:r["idx_v"] + r["nv"], ov[lead]:ov[lead] + r["nv"]] = k * np.eye(r["nv"])
    return G


def random_q(m, rng):
    return fd.random_configuration(m, rng)


# --- Pinocchio ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(PIN_ROBOTS))
def test_sizes_layout_and_limits_as_pinocchio(name):
    m, full, pm = robot(name)
    assert (m.nq, m.nv) == (pm.nq, pm.nv) == PIN_ROBOTS[name]
    assert isinstance(m, MimicModel) == (name in MIMIC_ROBOTS)  # else: no moving mimic joint
    assert list(m.joint_names) == list(pm.names)
    close(m.lower_position_limit, pm.lowerPositionLimit)
    close(m.upper_position_limit, pm.upperPositionLimit)
    close(m.effort_limit, pm.effortLimit)
    close(fd.neutral(m), pin.neutral(pm))
    if isinstance(m, MimicModel):
        assert sorted(m.mimic_joints) == sorted(pm.mimicking_joints)
        assert [m.mimicked_joints[m.mimic_joints.index(j)] for j in pm.mimicking_joints] == \
            list(pm.mimicked_joints)


@pytest.mark.parametrize("name", MIMIC_ROBOTS)
def test_dynamics_kinematics_jacobians_as_pinocchio(name):
    m, _, pm = robot(name)
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(7)
    frames = sorted({pm.getFrameId(pm.names[j]) for j in pm.mimicking_joints} |
                    {pm.nframes - 1, pm.nframes // 2})
    for _ in range(2):
        q = pin.randomConfiguration(pm)
        v, a = rng.normal(size=m.nv), rng.normal(size=m.nv)
        close(fd.rnea(m, d, q, v, a), pin.rnea(pm, pd, q, v, a))
        close(fd.non_linear_effects(m, d, q, v), pin.nonLinearEffects(pm, pd, q, v))
        close(fd.compute_generalized_gravity(m, d, q), pin.computeGeneralizedGravity(pm, pd, q))
        M = pin.crba(pm, pm.createData(), q)  # (fresh Data: see PIN_CRBA)
        M = np.triu(M) + np.triu(M, 1).T
        close(fd.crba(m, d, q), M)
        # Pinocchio's ABA refuses mimic joints: its M and nle give the reference
        tau = rng.normal(size=m.nv)
        close(fd.aba(m, d, q, v, tau), np.linalg.solve(M, tau - pin.nonLinearEffects(pm, pd, q, v)),
              1e-9)
        fd.forward_kinematics(m, d, q, v, a)
        pin.forwardKinematics(pm, pd, q, v, a)
        for j in range(m.njoints):
            close(fd.joint_placement(m, d, j), pd.oMi[j].homogeneous)
        pin.updateFramePlacements(pm, pd)
        for f in frames:
            close(fd.frame_placement(m, d, f), pd.oMf[f].homogeneous)
            for ref in REFS:
                close(fd.get_frame_velocity(m, d, f, ref),
                      pin.getFrameVelocity(pm, pd, f, PIN_REFS[ref]).vector)
                close(fd.get_frame_acceleration(m, d, f, ref),
                      pin.getFrameAcceleration(pm, pd, f, PIN_REFS[ref]).vector)
        for f in frames:
            for ref in REFS:
                close(fd.compute_frame_jacobian(m, d, q, f, ref),
                      pin.computeFrameJacobian(pm, pd, q, f, PIN_REFS[ref]))
        pin.computeJointJacobians(pm, pd, q)
        for j in pm.mimicking_joints:
            for ref in REFS:
                close(fd.compute_joint_jacobian(m, d, q, j, ref),
                      pin.getJointJacobian(pm, pd, j, PIN_REFS[ref]))
        close(fd.center_of_mass(m, d, q), pin.centerOfMass(pm, pd, q))
        close(fd.jacobian_center_of_mass(m, d, q), pin.jacobianCenterOfMass(pm, pd, q))
        # (Pinocchio's energies refuse mimic joints: from its M and centre of mass)
        close(fd.compute_kinetic_energy(m, d, q, v), 0.5 * v @ M @ v)
        com = pin.centerOfMass(pm, pd, q)
        close(fd.compute_potential_energy(m, d, q), -pin.computeTotalMass(pm) * pm.gravity.linear @ com)
        # the regressors, per body, hold on the bodies' parameters
        pi = m.full.params["pi"][1:]
        close(fd.compute_kinetic_energy_regressor(m, d, q, v) @ pi.ravel(), 0.5 * v @ M @ v)
        close(fd.compute_potential_energy_regressor(m, d, q) @ pi.ravel(),
              fd.compute_potential_energy(m, d, q))
        close(fd.compute_static_regressor(m, d, q) @ pi[:, :4].ravel(), com)
        q1 = pin.randomConfiguration(pm)
        close(fd.integrate(m, q, v), pin.integrate(pm, q, v))
        close(fd.difference(m, q, q1), pin.difference(pm, q, q1))
        close(fd.interpolate(m, q, q1, 0.3), pin.interpolate(pm, q, q1, 0.3))


CHAIN = """<robot name="chain">
  <link name="base"/>
  {links}
  <joint name="a" type="{ta}"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="b" type="{ta}"><parent link="l1"/><child link="l2"/><origin xyz="0.3 0 0"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="a" multiplier="2" offset="0.5"/></joint>
  <joint name="c" type="{ta}"><parent link="l2"/><child link="l3"/><origin xyz="0.3 0 0.1"/>
    <axis xyz="0.6 0 0.8"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="{cm}" multiplier="{ck}" offset="{co}"/></joint>
  <joint name="d" type="prismatic"><parent link="l3"/><child link="l4"/>
    <origin xyz="0.3 0 0" rpy="0.3 0.2 0.1"/><axis xyz="1 0 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""
LINK = ('<link name="l{i}"><inertial><mass value="{m}"/><origin xyz="0.1 0.0{i} 0.05"/>'
        '<inertia ixx="0.01" iyy="0.02" izz="0.025" ixy="0.001" ixz="0" iyz="0"/></inertial>'
        '</link>')
LINKS = "\n  ".join(LINK.format(i=i, m=1 + 0.5 * i) for i in range(1, 5))


@pytest.mark.parametrize("ta", ["revolute", "continuous"])
def test_chain_composed_and_continuous_as_pinocchio(ta):
    """c mimics b, which mimics a: Pinocchio refuses the chain, so it loads the composed
    relation (c follows a with -0.5 * 2 and -0.5 * 0.5 + 0.1) and both must agree; the
    continuous case follows the angles."""
    chain = CHAIN.format(links=LINKS, ta=ta, cm="b", ck=-0.5, co=0.1)
    flat = CHAIN.format(links=LINKS, ta=ta, cm="a", ck=-1.0, co=-0.15)
    with pytest.raises(ValueError):
        pin.buildModelFromXML(chain, mimic=True)
    m, pm = fd.load_urdf(chain, mimic=True), pin.buildModelFromXML(flat, mimic=True)
    assert m.mimic["c"] == ("b", -0.5, 0.1) and (m.nq, m.nv) == (pm.nq, pm.nv)
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = pin.randomConfiguration(pm)
        v, a = rng.normal(size=m.nv), rng.normal(size=m.nv)
        close(fd.rnea(m, d, q, v, a), pin.rnea(pm, pd, q, v, a))
        M = pin.crba(pm, pm.createData(), q)  # (fresh Data: see PIN_CRBA)
        close(fd.crba(m, d, q), np.triu(M) + np.triu(M, 1).T)
        fd.forward_kinematics(m, d, q)
        pin.forwardKinematics(pm, pd, q)
        for j in range(m.njoints):
            close(fd.joint_placement(m, d, j), pd.oMi[j].homogeneous)
        for ref in REFS:
            close(fd.compute_frame_jacobian(m, d, q, "l4", ref),
                  pin.computeFrameJacobian(pm, pd, q, pm.getFrameId("l4"), PIN_REFS[ref]))


# --- identities: files Pinocchio refuses, MJCF ------------------------------------------------
EQ_MJCF = """<mujoco model="gripper">
  <compiler angle="degree"/>
  <worldbody>
    <body name="base" pos="0 0 0.5">
      <joint name="lift" type="slide" axis="0 0 1" ref="0.05" armature="0.1"/>
      <geom type="box" size="0.1 0.05 0.02" mass="2"/>
      <body name="left" pos="0.05 0 0">
        <joint name="finger_l" type="hinge" axis="0 1 0" ref="10" range="-30 60"/>
        <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01" mass="0.2"/>
        <body name="tip_l" pos="0.1 0 0">
          <joint name="tip_l" type="hinge" axis="0 0.6 0.8" armature="0.02"/>
          <geom type="sphere" size="0.015" mass="0.05"/>
        </body>
      </body>
      <body name="right" pos="-0.05 0 0">
        <joint name="finger_r" type="hinge" axis="0 1 0" ref="-5"/>
        <geom type="capsule" fromto="0 0 0 -0.1 0 0" size="0.01" mass="0.2"/>
        <site name="pad_r" pos="-0.1 0 0"/>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="finger_r" joint2="finger_l" polycoef="0.1 -1 0 0 0"/>
    <joint joint1="tip_l" joint2="finger_l" polycoef="0 0.5"/>
    <joint joint1="lift" joint2="finger_l" polycoef="0 0.3 0.2 0 0" active="false"/>
  </equality>
</mujoco>"""


def _mjcf():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the inactive equality: not modelled
        return fd.load_mjcf(EQ_MJCF, mimic=True), fd.load_mjcf(EQ_MJCF)


def identity_case(name):
    if name == "mjcf":
        m, full = _mjcf()
        return m, full
    m, full, _ = robot(name)
    return m, full


@pytest.mark.parametrize("name", ["talos_full_v2", "romeo", "pr2", "mjcf"])
def test_reduced_system_identities(name):
    """tau = G^T RNEA_full, M = G^T M_full G (symmetric positive definite), J = J_full G,
    placements of the full model at gamma(q), ABA inverts RNEA, Minv M = I."""
    m, full = identity_case(name)
    rel = full.mimic if name != "mjcf" else m.mimic
    assert isinstance(m, MimicModel) and m.mimic == rel
    G = G_matrix(full, rel)
    assert (m.nq, m.nv) == (layout(full, rel)[2], G.shape[1])
    close(m.G, G, 0.0)
    d, df = m.create_data(), full.create_data()
    rng = np.random.default_rng(11)
    for _ in range(2):
        q = random_q(m, rng)
        v, a, tau = (rng.normal(size=m.nv) for _ in range(3))
        qf = expand(full, rel, q)
        close(m.expand_configuration(q), qf, 1e-14)
        close(fd.rnea(m, d, q, v, a), G.T @ fd.rnea(full, df, qf, G @ v, G @ a))
        M = fd.crba(m, d, q).copy()
        close(M, G.T @ fd.crba(full, df, qf) @ G)
        close(M, M.T, 0.0)
        if name == "romeo":  # its hands (LHand, RHand and their followers) carry no mass
            with pytest.raises(fd.SingularMassMatrixError, match="joint 'LHand'"):
                fd.aba(m, d, q, v, tau)
            continue
        assert np.linalg.eigvalsh(M).min() > 0.0
        ddq = fd.aba(m, d, q, v, tau).copy()
        close(fd.rnea(m, d, q, v, ddq), tau, 1e-9)
        close(fd.compute_minverse(m, d, q) @ M, np.eye(m.nv), 1e-9)
        fext = rng.normal(size=(m.njoints, 6))
        tau_f = fd.rnea(m, d, q, v, a, fext).copy()
        close(tau_f, G.T @ fd.rnea(full, df, qf, G @ v, G @ a, fext))
        close(fd.aba(m, d, q, v, tau_f, fext), a, 1e-9)
        close(fd.compute_kinetic_energy(m, d, q, v), 0.5 * v @ M @ v)
        fd.frames_forward_kinematics(m, d, q)
        fd.frames_forward_kinematics(full, df, qf)
        close(d.oMf, df.oMf)
        close(fd.compute_joint_jacobians(m, d, q), fd.compute_joint_jacobians(full, df, qf) @ G)
        f = m.nframes - 1
        close(fd.compute_frame_jacobian(m, d, q, f, fd.LOCAL_WORLD_ALIGNED),
              fd.compute_frame_jacobian(full, df, qf, f, fd.LOCAL_WORLD_ALIGNED) @ G)


def test_mjcf_equality_is_mujocos():
    """At the expanded q, MuJoCo's own equality residuals (efc_pos of its equality rows) are
    zero: multiplier, offset, refs and degrees read as MuJoCo reads them."""
    mujoco = pytest.importorskip("mujoco")
    m, full = _mjcf()
    assert m.mimic == {"finger_r": ("finger_l", -1.0, pytest.approx(np.radians(-5) + 0.1 +
                                                                     np.radians(10))),
                       "tip_l": ("finger_l", 0.5, pytest.approx(-0.5 * np.radians(10)))}
    mj = mujoco.MjModel.from_xml_string(EQ_MJCF)
    md = mujoco.MjData(mj)
    mj.eq_active0[2] = 0  # (inactive already; said twice so the check below stays two rows)
    assert (full.nq, m.nq) == (mj.nq, mj.nq - 2)
    rng = np.random.default_rng(5)
    for _ in range(3):
        q = random_q(m, rng)
        md.qpos[:] = m.expand_configuration(q)
        mujoco.mj_forward(mj, md)
        rows = md.efc_type[:md.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        assert rows.sum() == 2
        close(md.efc_pos[:md.nefc][rows], np.zeros(2), 1e-12)
        # and away from it MuJoCo sees the violation
        md.qpos[3] += 0.1
        mujoco.mj_forward(mj, md)
        assert abs(md.efc_pos[:md.nefc][md.efc_type[:md.nefc] == 0]).max() > 0.09


# --- default, pickling, fences ----------------------------------------------------------------
def test_default_keeps_joints_independent():
    m, full, _ = robot("pr2")
    pm = pin.buildModelFromUrdf(str(fm.path("pr2", source="example-robot-data")))
    assert type(full) is fd.Model and (full.nq, full.nv) == (pm.nq, pm.nv) == (34, 30)
    assert len(full.mimic) == 10 and m.full.mimic == full.mimic


def test_pickle_and_data_of_a_copy():
    m, _, _ = robot("panda")
    m2 = pickle.loads(pickle.dumps(m))
    assert (m2.nq, m2.mimic, m2.token) == (m.nq, m.mimic, m.token)
    q = fd.neutral(m)
    d = m.create_data()
    close(fd.rnea(m2, d, q, q, q), fd.rnea(m, m.create_data(), q, q, q), 0.0)


def test_unsupported_functions_refuse_naming_themselves():
    m, _, _ = robot("panda")
    d, q, v = m.create_data(), fd.neutral(m), np.zeros(m.nv)
    calls = {"compute_rnea_derivatives": lambda: fd.compute_rnea_derivatives(m, d, q, v, v),
             "compute_centroidal_map": lambda: fd.compute_centroidal_map(m, d, q),
             "cholesky": lambda: fd.cholesky(m, d),
             "compute_joint_torque_regressor":
                 lambda: fd.compute_joint_torque_regressor(m, d, q, v, v),
             "simulate": lambda: fd.simulate(m, q, v, 0.01, 2),
             "Scene": lambda: fd.Scene(m),
             "save_npz": lambda: fd.save_npz(m, "never-written.npz")}
    for name, call in calls.items():
        with pytest.raises(MimicNotSupportedError, match=rf"^{name} does not support models "
                                                         rf"with mimic joints"):
            call()
    with pytest.raises(AttributeError, match="model.full.jnt"):
        m.jnt
    with pytest.raises(AttributeError, match="with_inertia: not supported"):
        m.with_inertia
    with pytest.raises(TypeError, match="fastdyn.Data"):  # its Data with the full model
        fd.rnea(m.full, d, q, v, v)
    with pytest.raises(TypeError, match="MimicData"):  # a full Data with it
        fd.rnea(m, m.full.create_data(), q, v, v)
    with pytest.raises(ValueError, match="not created by"):  # another MimicModel's
        fd.crba(m, MimicModel(m.full).create_data(), q)


def test_bad_states_named_in_the_reduced_layout():
    m, _, _ = robot("pr2")
    d = m.create_data()
    q, v = fd.neutral(m), np.zeros(m.nv)
    with pytest.raises(ValueError, match=r"q must have shape \(24,\)"):
        fd.rnea(m, d, np.zeros(34), np.zeros(30), np.zeros(30))
    bad = q.copy()
    bad[7] = 2.0  # l_forearm_roll_joint's (cos, sin), at q[7:9] in the reduced layout
    with pytest.raises(ValueError, match=r"l_forearm_roll_joint.*q\[7:9\]"):
        fd.crba(m, d, bad)
    v[3] = np.nan
    with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[3\]"):
        fd.aba(m, d, q, v, np.zeros(m.nv))


# --- bad files ---------------------------------------------------------------------------------
BAD = """<robot name="bad">
  <link name="base"/>
  {links}
  <joint name="a" type="{ka}"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="b" type="{kb}"><parent link="l1"/><child link="l2"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/>{tb}</joint>
  <joint name="c" type="revolute"><parent link="l2"/><child link="l3"/><axis xyz="1 0 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/>{tc}</joint>
</robot>"""


@pytest.mark.parametrize("tb, tc, kinds, message", [
    ('<mimic joint="aa"/>', "", (), r"joint 'b' <mimic>: mimics 'aa', which is not a joint of "
     r"this file \(did you mean 'a'\?\)"),
    ('<mimic joint="a"/>', "", ("fixed",), r"joint 'b' <mimic>: mimics 'a', a fixed joint"),
    ('<mimic joint="a"/>', "", ("revolute", "continuous"),
     r"a continuous joint mimicking a revolute joint"),
    ('<mimic joint="a"/>', "", ("revolute", "planar"), r"a planar joint mimicking"),
    ('<mimic joint="b"/>', "", (), r"joint 'b' <mimic>: the joint mimics itself"),
    ('<mimic joint="c"/>', '<mimic joint="b"/>', (), r"mimic tags form a cycle 'b' -> 'c' -> "
     r"'b'"),
    ('<mimic joint="a" multiplier="two"/>', "", (), r"multiplier"),
    ('<mimic multiplier="2"/>', "", (), r"<mimic> has no joint attribute"),
])
def test_bad_urdf_mimic(tb, tc, kinds, message):
    ka, kb = kinds + ("revolute", "revolute")[len(kinds):]
    xml = BAD.format(links=LINKS.replace(LINK.format(i=4, m=3.0), ""), ka=ka, kb=kb, tb=tb,
                     tc=tc)
    line = xml[:xml.index(tb)].count("\n") + 1
    with pytest.raises(fd.URDFError, match=rf"<string>, line {line}: .*{message}"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fd.load_urdf(xml, mimic=True)


def test_undefined_leader_warns_without_mimic_and_fails_with_it():
    path = str(fm.path("alex_psyonic_hands", source="example-robot-data"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fd.load_urdf(path)
    assert any("8 mimic tag(s) ignored" in str(w.message) for w in caught)
    with pytest.raises(fd.URDFError, match=r"line \d+: joint 'Left_index_q2' <mimic>: mimics "
                                           r"'index_q1', which is not a joint"):
        fd.load_urdf(path, mimic=True)
    with pytest.raises(TypeError, match="mimic must be True or False"):
        fd.load_urdf(path, mimic="yes")


@pytest.mark.parametrize("equality, message", [
    ('<joint joint1="finger_r" joint2="finger_l" polycoef="0 1 0.5 0 0"/>',
     r"<string>, line LINE: <joint>: <joint polycoef=\"0 1 0.5 0 0\">: a nonlinear polynomial"),
    ('<joint joint1="finger_r"/>', r"no joint2: joint 'finger_r' is held at a constant"),
    ('<joint joint2="finger_r"/>', r"needs joint1"),
    ('<joint joint1="finger_x" joint2="finger_l"/>', r"no joint named 'finger_x'"),
    ('<joint joint1="finger_r" joint2="finger_l"/><joint joint1="finger_r" joint2="lift"/>',
     r"line LINE: <joint>: joint 'finger_r' already follows 'finger_l'"),
    ('<joint joint1="finger_r" joint2="finger_l" polycoef="0 1 nan"/>', r"not a finite"),
    ('<joint joint1="finger_r" joint2="finger_r"/>', r"the joint mimics itself"),
])
def test_bad_mjcf_equality(equality, message):
    xml = EQ_MJCF[:EQ_MJCF.index("<equality>")] + "<equality>\n    " + equality + \
        "\n  </equality>\n</mujoco>"
    message = message.replace("LINE", str(xml[:xml.index(equality)].count("\n") + 1))
    with pytest.raises(fd.MJCFError, match=message):
        fd.load_mjcf(xml, mimic=True)
    with pytest.warns(UserWarning, match="equality and tendon constraints are not modelled"):
        fd.load_mjcf(xml)  # mimic=False: as before, left out with a warning
