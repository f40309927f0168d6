"""The simulator side by side with MuJoCo: the bundled quadruped standing under the same PD.

Both simulators load models/quadruped.urdf (MuJoCo's own URDF compiler, through
tests/mujoco_twin.py: a free joint on the base, the plane z = 0, spheres of radius 0.016 at the
four FOOT frames, mu = 0.8, elliptic cones, dt = 1 ms, the URDF's joint limits and effort
limits) and start from test_simulator.standing_quadruped()'s state: feet just touching, at
rest. The PD tau = kp (q_ref - q) - kd v on the 12 leg joints (kp = 5, kd = 0.2, nothing on
the base), q_ref the initial joint angles, is fastdyn's built-in controller on one side and
MuJoCo position actuators (kp, kv = kd, ctrl = q_ref) on the other: both evaluate it on the
state at the start of the step (explicit; MuJoCo's Euler integrator is semi-implicit Euler, as
fastdyn's). States are converted as mujoco_twin.py states: MuJoCo's quaternion is w FIRST
(fastdyn's w last), its free-joint linear velocity in world axes (fastdyn's in the base frame:
v = R^T v_mujoco), its joints matched by name.

What differs, and why the heights differ by ~1.4 mm:
- fastdyn's contacts are stiff: Moreau-Jean time stepping with Signorini's condition (the
  percussions keep the feet on the surface; erp removes any penetration) and Coulomb's law
  solved exactly on the disc, so a loaded foot sticks;
- MuJoCo's contacts are soft (default solref = (0.02, 1), solimp = (0.9, 0.95, 0.001)): the
  constraint force follows a spring-damper reference acceleration, so the loaded feet sit
  ~1.37 mm inside the plane and the base with them. Its friction is regularized too: with
  MuJoCo's defaults (impratio = 1, no noslip pass) the loaded feet creep outwards under the
  static load (measured: 18 mm in 3 s) and the base ends 9.2 mm below fastdyn's, still sinking.
  The twin here uses impratio = 10 and 10 noslip iterations (MuJoCo's documented remedies for
  slip with elliptic cones), which stop the creep: then the whole height difference is MuJoCo's
  penetration, to 0.02 mm.
"""

import numpy as np
import pytest

import fastdyn as fd

mujoco = pytest.importorskip("mujoco")

from mujoco_twin import standing  # noqa: E402 (needs mujoco)
from test_simulator import standing_quadruped  # noqa: E402

DT = 1e-3
RADIUS = 0.016
MU = 0.8
KP, KD = 5.0, 0.2
SECONDS = 3.0


@pytest.fixture(scope="module")
def settled():
    """Both simulators after SECONDS of standing: (twin, fastdyn Rollout, MuJoCo MjData)."""
    model, q0, feet, (kp, kd) = standing_quadruped()
    assert np.all(kp[6:] == KP) and np.all(kd[6:] == KD) and not kp[:6].any()
    steps = int(round(SECONDS / DT))
    scene = fd.Scene(model, dt=DT, mu=MU)
    for f in feet:
        scene.add_sphere(f, RADIUS)
    out = scene.rollout(q0, np.zeros(model.nv), steps, kp=kp, kd=kd,
                        record=("contacts", "tau"))
    twin = standing(model, fd.models.path("quadruped"), feet, RADIUS, MU, KP, KD, DT,
                    impratio=10.0, noslip=10)
    m = twin.m
    assert m.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC and m.opt.timestep == DT
    assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_EULER
    assert m.opt.solver == mujoco.mjtSolver.mjSOL_NEWTON
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = twin.to_mujoco(q0, np.zeros(model.nv))
    d.ctrl[:] = twin.joint_refs(q0)
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return twin, out, d


def test_the_twins_start_from_the_same_state():
    model, q0, feet, _ = standing_quadruped()
    twin = standing(model, fd.models.path("quadruped"), feet, RADIUS, MU, KP, KD, DT)
    v = np.random.default_rng(0).normal(size=model.nv)
    q = q0.copy()
    q[3:7] = [0.1, -0.2, 0.3, 0.9]
    q[3:7] /= np.linalg.norm(q[3:7])
    back = twin.from_mujoco(*twin.to_mujoco(q, v))
    assert np.allclose(back[0], q, rtol=0, atol=1e-15)
    assert np.allclose(back[1], v, rtol=0, atol=1e-14)
    d = mujoco.MjData(twin.m)
    d.qpos[:], d.qvel[:] = twin.to_mujoco(q, v)
    mujoco.mj_forward(twin.m, d)
    data = model.create_data()
    fd.forward_kinematics(model, data, q)
    fd.update_frame_placements(model, data)
    for k, f in enumerate(feet):  # geoms: the plane, then the four feet in order
        assert np.allclose(d.geom_xpos[1 + k], data.oMf_p[f], atol=1e-12)
    M = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(twin.m, d, M)
    # d qvel = P d v at this q (P: the map of to_mujoco), so M_fastdyn = P^T M_mujoco P
    P = np.stack([twin.to_mujoco(q, e)[1] for e in np.eye(model.nv)], axis=1)
    assert np.allclose(P.T @ M @ P, fd.crba(model, data, q), rtol=0, atol=1e-12)


def test_base_heights_agree_after_settling(settled):
    twin, out, d = settled
    q_mj, v_mj = twin.from_mujoco(d.qpos, d.qvel)
    q_fd = out.final_q
    assert abs(q_fd[2] - q_mj[2]) < 3e-3  # a few millimetres
    depth = -np.mean([d.contact[i].dist for i in range(d.ncon)])
    assert d.ncon == 4 and 0.5e-3 < depth < 2e-3
    # all of the difference is MuJoCo's soft contact: its feet sit `depth` inside the plane
    assert q_fd[2] - q_mj[2] == pytest.approx(depth, abs=1e-4)
    assert np.abs(q_fd[7:] - q_mj[7:]).max() < 1e-3  # joint angles [rad]
    assert np.abs(q_fd[:2] - q_mj[:2]).max() < 1e-5 and np.abs(q_fd[3:6] - q_mj[3:6]).max() < 1e-4
    assert np.abs(out.final_v).max() < 1e-3 and np.abs(v_mj).max() < 1e-3  # both at rest


def test_both_carry_the_weight_with_the_same_torques(settled):
    twin, out, d = settled
    model = twin.model
    weight = model.mass.sum() * 9.81
    f = np.zeros(6)
    normal = 0.0
    for i in range(d.ncon):
        mujoco.mj_contactForce(twin.m, d, i, f)  # contact frame: normal first
        normal += f[0]
    assert normal == pytest.approx(weight, rel=1e-4)
    assert out.contact_forces[-1][:, 2].sum() == pytest.approx(weight, rel=1e-6)
    tau_mj = np.zeros(model.nv)
    tau_mj[twin.vf] = d.qfrc_actuator[twin.vm]
    assert np.abs(out.tau[-1] - tau_mj).max() < 2e-3  # [N m], of up to 0.44 N m
