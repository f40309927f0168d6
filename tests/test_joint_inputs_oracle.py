"""Universal, helical and spherical-ZYX joints checked from the user's inputs, not fastdyn's fields.

tests/oracle.py builds Pinocchio's twin of a model from the fields fastdyn stored, so it checks
the kernels but not how ModelBuilder turns a user's axes, pitch and placement into those fields
(a swapped pair of axes, a pitch of the wrong sign, an axis left unnormalized would pass it).
Here the same inputs go to ModelBuilder and, independently, to Pinocchio's own joint
constructors (JointModelUniversal(axis1, axis2), JointModelHelicalUnaligned(axis, pitch),
JointModelSphericalZYX), and the two models must agree on placements, RNEA, CRBA and ABA."""

import warnings

import numpy as np
import pytest

import fastdyn as fd
from conftest import close, needs_pinocchio

pin = pytest.importorskip("pinocchio")


def _rotation(rng):
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return Q * np.sign(np.linalg.det(Q))


def _pin_joint(kind, inputs):
    if kind == "universal":
        a1, a2 = (np.asarray(a, float) / np.linalg.norm(a) for a in inputs["axes"])
        return pin.JointModelUniversal(a1, a2)
    if kind == "helical":
        a = np.asarray(inputs["axis"], float)
        return pin.JointModelHelicalUnaligned(a / np.linalg.norm(a), inputs["pitch"])
    return pin.JointModelSphericalZYX()


def _fd_joint_kwargs(kind, inputs):
    if kind == "universal":
        return dict(axis=inputs["axes"][0], axis2=inputs["axes"][1])
    if kind == "helical":
        return dict(axis=inputs["axis"], pitch=inputs["pitch"])
    return {}


def _chain(kind, inputs, rng):
    """A three-joint chain: revolute, the joint under test (at a random placement), a prismatic;
    each with a random body. Built twice from the same numbers: fastdyn's builder, Pinocchio."""
    b = fd.ModelBuilder("chain", gravity=(0.1, -0.2, -9.81))
    pm = pin.Model()
    pm.gravity.linear = np.array([0.1, -0.2, -9.81])
    joints = [("revolute", dict(axis=(0.0, 0.0, 1.0)), pin.JointModelRZ()),
              (kind, _fd_joint_kwargs(kind, inputs), _pin_joint(kind, inputs)),
              ("prismatic", dict(axis=(1.0, 0.0, 0.0)), pin.JointModelPX())]
    for k, (typ, kwargs, pj) in enumerate(joints):
        R, p = _rotation(rng), rng.normal(size=3) * 0.3
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a non-unit axis is normalized with a warning
            j = b.add_joint(f"j{k}", typ, k, (R, p), **kwargs)
        pid = pm.addJoint(k, pj, pin.SE3(R, p), f"j{k}")
        assert j == pid
        mass, com = 0.5 + rng.random(), rng.normal(size=3) * 0.1
        A = rng.normal(size=(3, 3)) * 0.1
        inertia = A @ A.T + 0.05 * np.eye(3)
        b.add_body(j, mass, com, inertia)
        pm.appendBodyToJoint(pid, pin.Inertia(mass, com, inertia), pin.SE3.Identity())
    return b.build(), pm


CASES = [
    ("universal", dict(axes=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)))),
    ("universal", dict(axes=((0.3, -1.2, 0.4), (1.0, 0.25, 0.0)))),  # skew, and not unit
    ("helical", dict(axis=(0.0, 0.0, 1.0), pitch=0.05)),
    ("helical", dict(axis=(0.6, -0.3, 2.0), pitch=-0.3)),  # not unit, negative pitch
    ("spherical_zyx", {}),
]


@pytest.mark.parametrize("kind,inputs", CASES, ids=[f"{k}{i}" for i, (k, _) in enumerate(CASES)])
def test_builder_joints_match_pinocchio_built_from_the_same_inputs(kind, inputs):
    needs_pinocchio()
    rng = np.random.default_rng(36)
    if kind == "universal":  # Pinocchio's universal joint needs orthogonal axes
        a1, a2 = (np.asarray(a, float) for a in inputs["axes"])
        a2 = a2 - a1 * (a1 @ a2) / (a1 @ a1)
        inputs = dict(axes=(tuple(a1), tuple(a2)))
    m, pm = _chain(kind, inputs, rng)
    pd, d = pm.createData(), m.create_data()
    assert (m.nq, m.nv) == (pm.nq, pm.nv)
    for _ in range(5):
        q = rng.uniform(-2.5, 2.5, size=m.nq)  # no quaternion in these joints: any q is valid
        v, a, tau = (rng.normal(size=m.nv) * 2 for _ in range(3))
        pin.forwardKinematics(pm, pd, q)
        fd.forward_kinematics(m, d, q)
        for i in range(1, m.njoints):
            close(fd.joint_placement(m, d, i), pd.oMi[i].homogeneous, 1e-12)
        close(fd.rnea(m, d, q, v, a), pin.rnea(pm, pd, q, v, a), 1e-11)
        M = pin.crba(pm, pd, q)  # the upper triangle
        close(fd.crba(m, d, q), np.triu(M) + np.triu(M, 1).T, 1e-11)
        close(fd.aba(m, d, q, v, tau), pin.aba(pm, pd, q, v, tau), 1e-10)
