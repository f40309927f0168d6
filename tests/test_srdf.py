"""fd.io.load_srdf against Pinocchio's SRDF reader on example-robot-data's robots: the named
postures equal pin.loadReferenceConfigurations' exactly, and the disabled collision pairs
are the pairs pin.removeCollisionPairs removes from a geometry model with every pair; plus
Model.q_slice / v_slice against Pinocchio's idx_q, nq, idx_v, nv; and bad files named."""

import warnings

import numpy as np
import pytest

import fastdyn as fd
from conftest import pin
from fastdyn.errors import SRDFError, SRDFWarning

pytestmark = pytest.mark.skipif(pin is None, reason="needs Pinocchio and example-robot-data")

ROBOTS = {  # fastdyn name -> its SRDF under example-robot-data's robots/
    "anymal": "anymal_b_simple_description/srdf/anymal.srdf",
    "talos": "talos_data/srdf/talos.srdf",
    "panda": "panda_description/srdf/panda.srdf",
    "a1": "a1_description/srdf/a1.srdf",
    "hyq": "hyq_description/srdf/hyq.srdf",
    "bolt": "bolt_description/srdf/bolt.srdf",
}


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = fd.models.load(name, source="example-robot-data")
    urdf = fd.models.path(name, source="example-robot-data")
    srdf = fd.models.example_robot_data_dir() / ROBOTS[name]
    if not srdf.exists():
        pytest.skip(f"this example-robot-data has no {ROBOTS[name]}")
    rj = pin.JointModelFreeFlyer() if int(model.jnt[1]["type"]) == fd.JOINT_TYPES.index(
        "freeflyer") else None
    pm = pin.buildModelFromUrdf(str(urdf), rj) if rj is not None else \
        pin.buildModelFromUrdf(str(urdf))
    return model, pm, str(urdf), str(srdf)


@pytest.mark.parametrize("name", list(ROBOTS))
def test_postures_are_pinocchios(name):
    model, pm, _, srdf = _load(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SRDFWarning)
        ours = fd.io.load_srdf(model, srdf)
    pin.loadReferenceConfigurations(pm, srdf, False)
    theirs = {e.key(): np.array(e.data()) for e in pm.referenceConfigurations}
    assert set(ours.states) == set(theirs) and ours.states
    for k, q in ours.states.items():
        assert np.array_equal(q, theirs[k]), k


@pytest.mark.parametrize("name", ("anymal", "talos", "panda"))
def test_disabled_pairs_are_those_pinocchio_removes(name):
    model, pm, urdf, srdf = _load(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SRDFWarning)
        ours = fd.io.load_srdf(model, srdf)
    pkg = str(fd.models.example_robot_data_dir().parents[1])  # package://example-robot-data
    gm = pin.buildGeomFromUrdf(pm, urdf, pin.COLLISION, package_dirs=[pkg])
    link = [pm.frames[g.parentFrame].name for g in gm.geometryObjects]
    joint = {pm.frames[g.parentFrame].name: g.parentJoint for g in gm.geometryObjects}
    gm.addAllCollisionPairs()
    before = {(p.first, p.second) for p in gm.collisionPairs}
    pin.removeCollisionPairs(pm, gm, srdf, False)
    after = {(p.first, p.second) for p in gm.collisionPairs}
    removed = {tuple(sorted((link[a], link[b]))) for a, b in before - after}
    # (Pinocchio pairs geometries on different joints only: a pair on one rigid body never
    # moves relative to itself)
    with_geoms = {p for p in ours.disabled
                  if p[0] in joint and p[1] in joint and joint[p[0]] != joint[p[1]]}
    assert removed == with_geoms and removed


def test_slices_are_pinocchios_indices():
    model, pm, _, _ = _load("talos")
    for j in range(1, model.njoints):
        name = model.joint_names[j]
        pj = pm.joints[pm.getJointId(name)]
        assert model.q_slice(name) == slice(pj.idx_q, pj.idx_q + pj.nq)
        assert model.v_slice(j) == slice(pj.idx_v, pj.idx_v + pj.nv)
    with pytest.raises(KeyError, match="no joint named 'kne'"):
        model.q_slice("kne")


SMALL = fd.models.load("ur5")
HEAD = '<robot name="ur5">'


def test_bad_srdf_files_are_named():
    def srdf(body):
        return f'{HEAD}{body}</robot>'

    with pytest.raises(SRDFError, match=r"line 1: <joint name=\"shoulder_pan_joint\">: 2 value"):
        fd.io.load_srdf(SMALL, srdf('<group_state name="a" group="g">'
                                    '<joint name="shoulder_pan_joint" value="1 2"/>'
                                    '</group_state>'))
    with pytest.raises(SRDFError, match="not a list of finite numbers"):
        fd.io.load_srdf(SMALL, srdf('<group_state name="a" group="g">'
                                    '<joint name="shoulder_pan_joint" value="nan"/>'
                                    '</group_state>'))
    with pytest.raises(SRDFError, match="needs link1 and link2"):
        fd.io.load_srdf(SMALL, srdf('<disable_collisions link1="base_link"/>'))
    with pytest.raises(SRDFError, match="expected <robot>"):
        fd.io.load_srdf(SMALL, "<mujoco/>")
    with pytest.warns(SRDFWarning, match="joint 'gripper'.*link 'cam'"):
        s = fd.io.load_srdf(SMALL, srdf('<group_state name="a" group="g">'
                                        '<joint name="gripper" value="1"/></group_state>'
                                        '<disable_collisions link1="cam" link2="base_link"/>'))
    assert np.array_equal(s.states["a"], fd.neutral(SMALL)) and not s.disabled
