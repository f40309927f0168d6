"""ModelBuilder and Model: layout invariants, names, bad input, pickling, append_model."""

import pickle

import numpy as np
import pytest

pytest.importorskip("pinocchio")  # compares with Pinocchio at import time

import fastdyn as fd
from conftest import close, pin
from oracle import to_pinocchio


def test_layout_is_pinocchios():
    m = fd.samples.humanoid()
    pm = to_pinocchio(m)
    assert (m.nq, m.nv, m.njoints, m.nframes) == (pm.nq, pm.nv, pm.njoints, pm.nframes)
    for i in range(1, m.njoints):
        assert m.jnt[i]["idx_q"] == pm.joints[i].idx_q and m.jnt[i]["idx_v"] == pm.joints[i].idx_v
        assert m.jnt[i]["parent"] == pm.parents[i] < i
    assert m.jnt.flags.c_contiguous and not m.jnt.flags.writeable
    assert m.params["R"].dtype == np.float64 and m.jnt["parent"].dtype == np.int64


def test_names_and_ids():
    m = fd.samples.manipulator()
    assert m.joint_id("joint3") == 3 and m.joint_names[3] == "joint3"
    assert m.frame_names[m.frame_id("tool0")] == "tool0"
    with pytest.raises(KeyError, match="no joint named 'elbow'"):
        m.joint_id("elbow")
    assert m.joint_type("joint6") == "revolute_x"


def test_dynamic_parameters_match_pinocchio():
    m = fd.samples.humanoid()
    pm = to_pinocchio(m)
    for i in range(1, m.njoints):
        close(m.params[i]["pi"], pm.inertias[i].toDynamicParameters(), 1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda b: b.add_joint("j", "revolute_z", parent=5), "parent joint index 5 does not exist"),
    (lambda b: b.add_joint("j", "revolute_z", parent="nope"), "no joint named 'nope'"),
    (lambda b: b.add_joint("a", "revolute_z"), "joint 'a': a joint with this name already"),
    (lambda b: b.add_joint("j", "hinge"), "unknown joint type 'hinge'"),
    (lambda b: b.add_joint("j", "revolute", axis=(0, 0, 0)), "axis is zero"),
    (lambda b: b.add_joint("j", "revolute"), "needs axis"),
    (lambda b: b.add_joint("j", "revolute_z", lower=1, upper=0), "lower position limit above"),
    (lambda b: b.add_joint("j", "revolute_z", placement=np.eye(3)), "4x4 matrix"),
    (lambda b: b.add_joint("j", "revolute_z", placement=(2 * np.eye(3), np.zeros(3))),
     "not a proper rotation"),
    (lambda b: b.add_body("a", -1.0), "negative mass"),
    (lambda b: b.add_body("a", 1.0, inertia=np.diag([1.0, 1.0, 3.0])), "triangle inequality"),
    (lambda b: b.add_body("a", 1.0, inertia=np.diag([-1.0, 1.0, 1.0])), "negative principal"),
    (lambda b: b.add_body("a", 1.0, com=(np.nan, 0, 0)), "finite"),
    (lambda b: b.add_body(0, 1.0), "universe does not move"),
    (lambda b: b.add_frame("f", 7), "does not exist"),
    (lambda b: b.add_joint("j", "spherical", armature=[1, 2]), "armature needs 3 values"),
])
def test_bad_builder_input(call, match):
    b = fd.ModelBuilder()
    b.add_joint("a", "revolute_z")
    with pytest.raises(ValueError, match=match):
        call(b)


def test_non_unit_axis_is_normalized_with_a_warning():
    b = fd.ModelBuilder()
    with pytest.warns(UserWarning, match="normalized"):
        j = b.add_joint("j", "revolute", axis=(0, 0, 2))
    b.add_body(j, 1.0, inertia=np.eye(3))
    assert np.array_equal(b.build().params[1]["axis"], [0, 0, 1])


def test_gravity_is_a_model_field():
    m = fd.samples.double_pendulum()
    d = m.create_data()
    g0 = fd.compute_generalized_gravity(m, d, [0.3, 0.2]).copy()
    m.gravity = (0, 0, -2 * 9.81)
    close(fd.compute_generalized_gravity(m, d, [0.3, 0.2]), 2 * g0)
    with pytest.raises(ValueError, match="gravity"):
        m.gravity = (0, np.nan, 0)


def test_pickle_roundtrip_gives_the_same_numbers():
    m = fd.samples.humanoid()
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.joint_names == m.joint_names and m2.frame_names == m.frame_names
    assert np.array_equal(m2.jnt, m.jnt) and np.array_equal(m2.prm, m.prm) and np.array_equal(m2.frm, m.frm)
    # The token travels with the pickle, so a Data made before pickling works with the copy
    # (same arrays, same sizes); a Data of any other model is still refused.
    assert m2.token == m.token
    q = fd.random_configuration(m, 3)
    v, a = np.ones(m.nv), np.zeros(m.nv)
    assert np.array_equal(fd.rnea(m2, m.create_data(), q, v, a),
                          fd.rnea(m, m.create_data(), q, v, a))


def test_append_model_matches_pinocchio_append():
    arm = fd.samples.manipulator()
    b = fd.ModelBuilder("two_arms")
    base = b.add_joint("base", "prismatic_x")
    b.add_body(base, 5.0, inertia=np.eye(3) * 0.1)
    R = pin.rpy.rpyToMatrix(0.1, 0.2, 0.3)
    b.append_model(arm, base, (R, np.array([0, 0.3, 0])), prefix="left_")
    b.append_model(arm, base, (np.eye(3), np.array([0, -0.3, 0])), prefix="right_")
    m = b.build()
    assert m.nv == 13 and m.joint_id("right_joint6") == 13
    pm = to_pinocchio(m)
    parm = to_pinocchio(arm)
    q = np.random.default_rng(0).normal(size=13)
    d, pd = m.create_data(), pm.createData()
    close(fd.rnea(m, d, q, q, q), pin.rnea(pm, pd, q, q, q))
    # the grafted arm at the same relative state reproduces the arm's own tool placement
    fd.forward_kinematics(m, d, q)
    pda = parm.createData()
    pin.framesForwardKinematics(parm, pda, q[1:7])
    base_M = pin.SE3(np.eye(3), np.array([q[0], 0, 0])) * pin.SE3(R, np.array([0, 0.3, 0]))
    close(fd.frame_placement(m, d, "left_tool0"),
          (base_M * pda.oMf[parm.getFrameId("tool0")]).homogeneous)
