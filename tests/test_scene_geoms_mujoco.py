"""Soft geom contacts (Scene.add_geom with solref/solimp) against MuJoCo on the same MJCF.

One free box (half-size 0.1 m, 1.5 kg) on the plane z = 0, MuJoCo's default softness
(solref (0.02, 1), solimp (0.9, 0.95, 0.001, 0.5, 2)), friction 1, elliptic cones, dt = 1 ms,
MuJoCo's Euler integrator (semi-implicit, as fastdyn's). MuJoCo's plane-box routine gives the
same four corner contacts as fastdyn's narrow phase; both take R = (1 - d) / d (w1 + w2) with
w the bodies' body_invweight0 (fastdyn computes it at the neutral configuration, as MuJoCo
does at qpos0) and the same reference acceleration, so at rest the penetration r solves
R f = -K d(r) r for the same f = m g / 4 on each corner. What differs: MuJoCo solves the soft
problem at the acceleration level by Newton's method on its convex primal (friction
regularized: a sliding contact creeps), fastdyn at the velocity level by PGS with Coulomb's
law exact on the disc; and MuJoCo's free joint integrates the position with its own
velocity convention (world linear velocity), fastdyn's in the body frame (frozen.py).
"""

import numpy as np
import pytest

import fastdyn as fd

mujoco = pytest.importorskip("mujoco")

DT = 1e-3
H = 0.1
MASS = 1.5
SOLREF = (0.02, 1.0)
SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)
XML = f"""
<mujoco>
  <option timestep="{DT}" cone="elliptic" integrator="Euler"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" friction="1 0.005 0.0001"/>
    <body name="box" pos="0 0 {H}">
      <freejoint name="root"/>
      <geom type="box" size="{H} {H} {H}" mass="{MASS}" friction="1 0.005 0.0001"/>
    </body>
  </worldbody>
</mujoco>
"""


def twins():
    m = mujoco.MjModel.from_xml_string(XML)
    model = fd.load_mjcf(XML)
    scene = fd.Scene(model, dt=DT, mu=1.0, solref=SOLREF, solimp=SOLIMP)
    scene.add_geom("box", "box", size=(H, H, H), friction=1.0, solref=SOLREF, solimp=SOLIMP)
    return m, model, scene


def to_fastdyn(qpos, qvel):
    """MuJoCo's free joint (w first, world linear velocity) as fastdyn's (w last, local)."""
    w, x, y, z = qpos[3:7]
    q = np.r_[qpos[:3], x, y, z, w]
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    return q, np.r_[R.T @ qvel[:3], qvel[3:]]


G = 9.81


def test_a_soft_box_at_rest_sinks_as_deep_as_in_mujoco_and_carries_its_weight():
    m, model, scene = twins()
    d = mujoco.MjData(m)
    q, v = to_fastdyn(d.qpos, d.qvel)
    for _ in range(1500):
        mujoco.mj_step(m, d)
        q, v = scene.step(q, v)
    depth_mj = H - d.qpos[2]
    depth_fd = H - q[2]
    c = scene.geom_contacts
    assert d.ncon == 4 and len(c.dist) == 4
    assert abs(np.abs(c.force[:, 2]).sum() - MASS * G) < 1e-12  # reached: 0
    # the same soft model at rest: 1.0776e-4 m deep in both, to 6e-15 m
    assert abs(depth_fd - depth_mj) < 6e-13, (depth_fd, depth_mj)
    np.testing.assert_allclose(c.dist, d.contact.dist[:4], rtol=0, atol=6e-13)
    f_mj = np.zeros(6)
    fz = 0.0
    for i in range(d.ncon):
        mujoco.mj_contactForce(m, d, i, f_mj)
        fz += f_mj[0]
    # MuJoCo's Newton solver stops at its tolerance: its weight is carried to 5.8e-10 N
    assert abs(fz - np.abs(c.force[:, 2]).sum()) < 6e-8


def test_a_tumbling_box_follows_mujocos_trajectory():
    """Dropped from 15 cm, tilted 0.36 rad, spinning at 2 rad/s: 0.4 s side by side. The
    free fall agrees to round-off (1.3e-16 m), the first 10 steps of contact (one soft corner
    sinking in) to 5.2e-13 m; then the box slides and rocks onto its face, where MuJoCo's
    friction (its convex relaxation with regularized cones: a sliding contact creeps) and
    fastdyn's (Coulomb's law exact on the disc) part: 1.25e-3 m and 4.3e-3 in the quaternion
    at most over the 0.4 s."""
    m, model, scene = twins()
    scene.solver = "admm"  # (PGS stalls on 6 of the tumbling steps, to 4e-7 m/s)
    d = mujoco.MjData(m)
    ax = np.array([0.3, 0.2, 0.0])
    angle = np.linalg.norm(ax)
    quat = np.r_[np.cos(angle / 2), np.sin(angle / 2) * ax / angle]
    d.qpos[:] = np.r_[0.0, 0.0, H + 0.15, quat]
    d.qvel[:] = np.r_[0.1, 0.0, 0.0, 0.0, 0.0, 2.0]
    q, v = to_fastdyn(d.qpos, d.qvel)
    first, err, rot = None, [], []
    for k in range(400):
        mujoco.mj_step(m, d)
        q, v = scene.step(q, v)
        qm, _ = to_fastdyn(d.qpos, d.qvel)
        err.append(np.abs(q[:3] - qm[:3]).max())
        rot.append(min(np.abs(q[3:] - qm[3:]).max(), np.abs(q[3:] + qm[3:]).max()))
        if first is None and (d.ncon or len(scene.geom_contacts.dist)):
            first = k
            assert d.ncon == len(scene.geom_contacts.dist) == 1  # the same corner, same step
    err, rot = np.array(err), np.array(rot)
    assert first is not None and 100 < first < 200
    assert err[:first].max() < 1e-14 and rot[:first].max() < 1e-13
    assert err[first:first + 10].max() < 5e-11
    assert err.max() < 3e-3 and rot.max() < 1e-2
