"""A payload in the sampler (``fd.Payload``): a point mass of uncertain mass and centre on a
frame, added to the body carrying that frame.

Oracles, neither of which is the payload code's algebra: Pinocchio's ``Inertia`` addition
(the body's inertia plus the point mass's, moved by the frame's placement), and fastdyn's own
URDF parser, which lumps a link on a fixed joint into its parent: RNEA of the robot with the
sampled parameters equals RNEA of the robot whose URDF carries the mass as one more link."""

import numpy as np
import pytest

import fastdyn as fd
from conftest import needs_pinocchio, pin

MASS, COM = 1.3, np.array([0.015, -0.02, 0.05])  # [kg], [m] in the mount frame's axes
MOUNT = ('<joint name="mount_joint" type="fixed"><parent link="tool0"/><child link="mount"/>'
         '<origin xyz="0.01 0.02 0.03" rpy="0.3 -0.5 0.7"/></joint><link name="mount"/>')
LOAD = ('<joint name="load_joint" type="fixed"><parent link="mount"/><child link="load"/>'
        '<origin xyz="{} {} {}" rpy="0 0 0"/></joint><link name="load"><inertial>'
        '<origin xyz="0 0 0"/><mass value="{}"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" '
        'iyz="0" izz="0"/></inertial></link>').format(*COM, MASS)


def _urdf(tmp_path, extra: str, name: str) -> str:
    text = fd.models.path("ur5").read_text().replace("</robot>", extra + "</robot>")
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture(scope="module")
def robots(tmp_path_factory):
    """UR5 with a rotated, offset frame "mount" on its tool; and the same with the payload as
    a link fixed at COM in that frame."""
    d = tmp_path_factory.mktemp("payload")
    return (fd.load_urdf(_urdf(d, MOUNT, "ur5_mount.urdf")),
            fd.load_urdf(_urdf(d, MOUNT + LOAD, "ur5_load.urdf")))


def test_payload_equals_a_link_fixed_at_the_frame(robots):
    """RNEA with the payload's samples (no spread: every sample is the nominal) equals RNEA of
    the robot whose URDF has the mass as a link, to 1e-12: mass, centre, parallel-axis terms
    and the frame's rotation all enter (a payload put at the joint origin, or in the joint's
    axes instead of the frame's, is off by centimetres times kilograms)."""
    arm, loaded = robots
    S = fd.sample_parameters(arm, 4, seed=1, payload=fd.Payload("mount", MASS, COM))
    assert np.array_equal(S[0], S[3])
    rng = np.random.default_rng(0)
    Q = fd.batch.random_configuration(arm, 4, 0)
    V, A = rng.normal(size=(4, arm.nv)), rng.normal(size=(4, arm.nv))
    tau = fd.batch.rnea(arm, Q, V, A, pi=S)
    want = fd.batch.rnea(loaded, Q, V, A)
    assert np.abs(tau - want).max() <= 1e-12 * max(1.0, np.abs(want).max())
    assert np.abs(want - fd.batch.rnea(arm, Q, V, A)).max() > 1.0  # the payload matters


def test_payload_matches_pinocchio_inertia_addition(robots, tmp_path):
    needs_pinocchio()
    arm, _ = robots
    pm = pin.buildModelFromUrdf(_urdf(tmp_path, MOUNT, "ur5_mount.urdf"))
    frame = pm.frames[pm.getFrameId("mount")]
    j = frame.parentJoint
    Y = pm.inertias[j] + frame.placement.act(pin.Inertia(MASS, COM, np.zeros((3, 3))))
    S = fd.sample_parameters(arm, 1, seed=0, payload=fd.Payload("mount", MASS, COM))
    assert np.abs(S[0, j - 1] - Y.toDynamicParameters()).max() < 1e-12
    others = [b for b in range(arm.njoints - 1) if b != j - 1]
    nominal = fd.dynamic_parameters(arm).reshape(-1, 10)
    assert np.abs(S[0, others] - nominal[others]).max() < 1e-12


def test_payload_spreads_are_the_documented_laws(robots):
    """mass (kg, sigma): ln(m / m0) ~ N(0, sigma^2); com (c0, sigma): each axis of the centre,
    in the frame's axes, ~ N(c0, sigma^2). Each sample is exactly a point mass: its second
    moments are m (|p|^2 1 - p p^T) of its own m and p. The bodies' draws do not change."""
    arm, _ = robots
    n, sm, sc = 40_000, 0.2, 0.01
    term = fd.Payload("mount", mass=(MASS, sm), com=(COM, sc))
    S = fd.sample_parameters(arm, n, seed=3, mass=0.1, com=0.01, payload=term)
    plain = fd.sample_parameters(arm, n, seed=3, mass=0.1, com=0.01)
    f = arm.frame_id("mount")
    j = int(arm.frm[f]["parent_joint"])
    others = [b for b in range(arm.njoints - 1) if b != j - 1]
    assert np.array_equal(S[:, others], plain[:, others])
    extra = S[:, j - 1] - plain[:, j - 1]  # the point mass alone
    m, p = extra[:, 0], extra[:, 1:4] / extra[:, :1]
    c = (p - arm.frm[f]["p"]) @ arm.frm[f]["R"]  # back in the frame's axes
    assert abs(np.log(m / MASS).mean()) < 0.005 and abs(np.log(m / MASS).std() / sm - 1) < 0.02
    assert np.abs(c.mean(axis=0) - COM).max() < 3e-4
    assert np.abs(c.std(axis=0) / sc - 1).max() < 0.02
    p2 = np.einsum("ni,ni->n", p, p)
    for k, (r, t) in enumerate(((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)), start=4):
        want = m * ((r == t) * p2 - p[:, r] * p[:, t])
        assert np.abs(extra[:, k] - want).max() < 1e-12
    assert fd.parameters.is_physically_consistent(S).all()


def test_a_study_sampler_carries_the_payload(robots):
    arm, _ = robots
    term = fd.Payload("mount", mass=(MASS, 0.1), com=(COM, 0.005))
    sampler = fd.study.ParameterSampler(arm, mass=0.1, payload=term)
    want = fd.sample_parameters(arm, fd.study.BLOCK, np.random.default_rng([7, 0]), mass=0.1,
                                payload=term)  # sample s: block s // BLOCK of the stream
    assert np.array_equal(sampler.draw(7, 0, 5), want[:5])
    assert "payload=Payload(frame='mount'" in repr(sampler)


@pytest.mark.parametrize("kw, err, message", [
    (dict(frame="mount", mass=0.0), ValueError, "mass must be positive"),
    (dict(frame="mount", mass=(1.0, -0.1)), ValueError, "spreads must be >= 0"),
    (dict(frame="mount", com=((0, 0), 0.1)), ValueError, "com"),
    (dict(frame="mount", mass=float("nan")), ValueError, "mass"),
])
def test_bad_payloads_are_refused(kw, err, message):
    with pytest.raises(err, match=message):
        fd.Payload(**kw)


def test_a_payload_needs_a_frame_on_a_body(robots):
    arm, _ = robots
    with pytest.raises(ValueError, match="fixed to the world"):
        fd.sample_parameters(arm, 2, payload=fd.Payload(arm.frame_names[0], 1.0))
    with pytest.raises((KeyError, ValueError), match="nosuch"):
        fd.sample_parameters(arm, 2, payload=fd.Payload("nosuch", 1.0))
    with pytest.raises(TypeError, match="fastdyn.Payload"):
        fd.sample_parameters(arm, 2, payload=[("mount", 1.0)])
