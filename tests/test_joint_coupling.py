"""fd.JointCoupling in fd.constraint_dynamics / impulse_dynamics: against the mimic model
(the same coupling by elimination: Pinocchio's mimic joints, fastdyn.mimic checked against
them in tests/test_mimic.py), against MuJoCo's joint equality in its rigid limit, against
Baumgarte's law on the coupled coordinates, its derivatives beside contacts against finite
differences, and on bad input."""

import warnings

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.errors import ConstraintError
from test_constraint_dynamics import SOLO_FEET, _contacts
from test_constraint_dynamics_derivatives import (FD_TOL, _finite_differences,
                                                  _impulse_differences)
from conftest import close, get_pair, random_state


def _panda():
    try:
        path = fd.models.path("panda", source="example-robot-data")
    except (FileNotFoundError, KeyError):
        pytest.skip("needs example-robot-data")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fd.load_urdf(str(path), mimic=True)


def test_a_coupling_is_the_mimic_joint():
    """Panda's finger_joint2 mimics finger_joint1 (multiplier 1): the full model with a
    coupling row moves as the mimic model's reduced dynamics, expanded (measured 4e-15)."""
    mm = _panda()
    full = mm.full
    (follower, (leader, k, o)), = mm.mimic.items()
    gear = fd.JointCoupling(full, follower, leader, ratio=k, offset=o)
    rng = np.random.default_rng(0)
    for _ in range(3):
        q = fd.random_configuration(mm, rng)
        v = rng.normal(size=mm.nv)
        tau = rng.normal(size=mm.nv)
        ddq = fd.aba(mm, mm.create_data(), q, v, tau).copy()
        qf, vf = mm.expand_configuration(q), mm.expand_velocity(v)
        G = mm.G
        # the reduced torques are G^T tau_full: put them on the leader, none on the follower
        tau_f = np.linalg.lstsq(G.T, tau, rcond=None)[0]
        ddq_f, lam = fd.constraint_dynamics(full, full.create_data(), qf, vf, tau_f, [gear])
        assert np.abs(ddq_f - G @ ddq).max() < 1e-12 * max(1.0, np.abs(ddq).max())
        kick = np.zeros(full.nv)
        kick[full.v_slice(follower)] = 0.5  # a velocity that breaks the coupling
        vp, imp = fd.impulse_dynamics(full, full.create_data(), qf, vf + kick, [gear])
        J = np.zeros(full.nv)
        J[full.v_slice(follower)] = 1.0
        J[full.v_slice(leader)] = -k
        assert abs(J @ vp) < 1e-12  # the impulse restores the coupled velocity


def test_baumgarte_pulls_a_violated_coupling_back():
    model = fd.models.load("ur5")
    gear = fd.JointCoupling(model, "elbow_joint", "shoulder_lift_joint", ratio=-2.0,
                            offset=0.3, kp=40.0, kd=7.0)
    rng = np.random.default_rng(1)
    q, v, tau = (rng.normal(size=model.nv) for _ in range(3))
    ddq, lam = fd.constraint_dynamics(model, model.create_data(), q, v, tau, [gear])
    e, s = model.v_slice("elbow_joint").start, model.v_slice("shoulder_lift_joint").start
    err, derr = q[e] + 2.0 * q[s] - 0.3, v[e] + 2.0 * v[s]
    assert abs(ddq[e] + 2.0 * ddq[s] - (-40.0 * err - 7.0 * derr)) < 1e-11
    # M ddq = tau - h + J^T lam, lam on the follower and -ratio lam on the leader
    data = model.create_data()
    M = fd.crba(model, data, q).copy()
    h = fd.non_linear_effects(model, data, q, v).copy()
    JT = np.zeros(model.nv)
    JT[e], JT[s] = 1.0, 2.0
    assert np.abs(M @ ddq - (tau - h + JT * lam[0])).max() < 1e-11


MJCF = """<mujoco><compiler angle="radian"/><option><flag contact="disable"/></option>
<worldbody><body><joint name="a" axis="0 1 0" ref="0.2"/>
<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
<body pos="0.3 0 0"><joint name="b" axis="0 1 0"/>
<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.6"/>
<body pos="0.3 0 0"><joint name="c" type="slide" axis="1 0 0" ref="0.05"/>
<geom type="box" size="0.05 0.05 0.05" mass="0.4"/></body></body></body></worldbody>
<equality><joint joint1="b" joint2="a" polycoef="0.1 -1.5 0 0 0" solimp="D D 0.001"/>
<joint joint1="c" polycoef="0.02" solimp="D D 0.001"/></equality></mujoco>"""


@pytest.mark.parametrize("d", (0.999, 0.9999))
def test_mujocos_joint_equality_in_the_rigid_limit(d):
    mujoco = pytest.importorskip("mujoco")
    xml = MJCF.replace("D D", f"{d} {d}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = fd.load_mjcf(xml)
    cs = fd.io.mjcf_constraints(model, xml)
    assert [type(c) for c in cs] == [fd.JointCoupling] * 2
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(2)
    for _ in range(4):  # near the couplings (violated by a few mm or mrad), moving, driven
        q = rng.normal(size=model.nq) * 0.3
        q[1] = 0.1 - 1.5 * (q[0] - 0.2) + 0.005 * rng.normal()
        q[2] = 0.07 + 0.005 * rng.normal()
        v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
        md.qpos[:], md.qvel[:], md.qfrc_applied[:] = q, v, tau
        mujoco.mj_forward(mm, md)
        ddq, _ = fd.constraint_dynamics(model, model.create_data(), q, v, tau, cs)
        # MuJoCo's soft rows blend 1 - d of the unconstrained acceleration: the gap shrinks
        # with 1 - d (measured: up to 9.8 (1 - d) of the largest entry, at both d alike)
        gap = np.abs(ddq - md.qacc).max() / ((1.0 - d) * np.abs(ddq).max())
        assert gap < 20.0
        assert np.allclose(md.efc_pos[:2], [q[1] - (0.1 - 1.5 * (q[0] - 0.2)),
                                            q[2] - 0.05 - 0.02], rtol=0, atol=1e-15)


def test_bad_couplings_are_named():
    model = fd.models.load("quadruped")
    with pytest.raises(ConstraintError, match="cannot follow itself"):
        fd.JointCoupling(model, "FL_KFE", "FL_KFE")
    with pytest.raises(ConstraintError, match="freeflyer joint; a coupling takes"):
        fd.JointCoupling(model, "FL_KFE", model.joint_names[1])
    with pytest.raises(ConstraintError, match="leader: model 'quadruped' has no joint named"):
        fd.JointCoupling(model, "FL_KFE", "FL_KNE")
    with pytest.raises(ConstraintError, match="kd must be >= 0"):
        fd.JointCoupling(model, "FL_KFE", "FL_HFE", kd=-1.0)
    with pytest.raises(ConstraintError, match="ratio must be finite"):
        fd.JointCoupling(model, "FL_KFE", "FL_HFE", ratio=np.nan)
    gear = fd.JointCoupling(model, "FL_KFE", "FL_HFE", name="knee")
    with pytest.raises(AttributeError, match="immutable"):
        gear.ratio = 2.0


@pytest.mark.parametrize("gains", ((0.0, 0.0), (30.0, 4.0)), ids=("no_gains", "baumgarte"))
def test_derivatives_with_a_coupling_match_finite_differences(gains):
    """Solo12 on three point contacts with its fourth knee geared to its hip (a coupling
    beside contacts): d(ddq, lambda)/d(q, v, tau) and d(v+, Lambda)/d(q, v-) against central
    differences (their tolerance: tests/test_constraint_dynamics_derivatives.py's)."""
    model, pm = get_pair("solo12")
    cs = _contacts(model, SOLO_FEET[:3], (3, 3, 3), fd.LOCAL_WORLD_ALIGNED, gains)
    cs.append(fd.JointCoupling(model, "HR_KFE", "HR_HFE", ratio=-1.7, offset=0.2,
                               kp=gains[0], kd=gains[1]))
    rng = np.random.default_rng(5)
    q, v, _ = random_state(pm, rng)
    tau = rng.normal(size=model.nv) * 5.0
    ours = fd.compute_constraint_dynamics_derivatives(model, model.create_data(), q, v, tau, cs)
    for a, b in zip(ours, _finite_differences(model, cs, q, v, tau)):
        close(a, b, FD_TOL)
    ours = fd.compute_impulse_dynamics_derivatives(model, model.create_data(), q, v, cs,
                                                   restitution=0.4)
    for a, b in zip(ours, _impulse_differences(model, cs, q, v, 0.4)):
        close(a, b, FD_TOL)
