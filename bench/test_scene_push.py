"""A Panda pushing a box across a table (issue 39's manipulation scene): fastdyn's Scene
rollouts next to ``mujoco.rollout`` on the scene's MuJoCo twin (``Scene.to_mjcf``), same dt,
2 threads, N rollouts of T steps, timed in alternating rounds (bench/alternate.py: the best
of ROUNDS of each). Time per rollout step; the ratio mujoco / fastdyn in extra_info. No
assertion on time.

The scene: example-robot-data's Panda with its URDF collision geometry (the links' meshes
as convex hulls, the fingers' boxes; the SRDF's disabled pairs excluded), a table (a world
box, top at z = 0) and a free 8 cm cube of 0.4 kg on it, in front of the robot. Contacts
soft on both sides (MuJoCo's solref (0.02, 1) and solimp), friction 0.5, fastdyn with PGS,
MuJoCo with its defaults (Newton, pyramidal cones). The hand, pointing down with its fingers
closed, follows a straight line at a constant height from behind the cube to past it
(inverse kinematics at 9 waypoints, interpolated in joint space over 80 % of the steps) with
a joint-space PD and the gravity torques of the reference as feed-forward: fastdyn's built-in
PD + torques table, MuJoCo's position actuators (kp, kv = kd) + the twin's motors. Both push
the cube from x = 0.50 m to about 0.82 m; the bench checks that each pushed it by more than
0.2 m and that they end within 1 cm of each other.

fastdyn runs with the Scene's defaults (PGS to a tolerance of 1e-9 m/s, at most 200
sweeps). The cube sliding on the table under the fingers is where PGS is slow: about 130
sweeps a step on average, and about 700 of the 1,500 steps stop at the cap with the residual
near 1e-7 m/s (the active set's exact solution does not take sliding contacts); extra_info
records the sweeps and those steps. The cube ends at the same place to 0.1 mm with a
tolerance of 1e-4 m/s, in about 3 sweeps a step."""

from __future__ import annotations

import warnings

import numba
import numpy as np
import pytest

import fastdyn as fd
import fastdyn.models as fm
from bench.alternate import alternate
from bench.ladder import tag
from fastdyn.io import collision_geoms
from fastdyn.sim.mjcf_twin import MujocoMap

mujoco = pytest.importorskip("mujoco")
rollout = pytest.importorskip("mujoco.rollout")

DT, N, T, ROUNDS = 1e-3, 8, 1500, 7
HB, MASS, MU = 0.04, 0.4, 0.5  # the cube's half-size [m] and mass [kg]; friction
SOFT = dict(solref=(0.02, 1.0), solimp=(0.9, 0.95, 0.001, 0.5, 2.0))
X0, X1, Z = 0.35, 0.75, 0.12  # the hand's line: from x0 to x1 at height z [m]
CUBE_X = 0.5
KP = np.r_[400.0, 400.0, 400.0, 400.0, 100.0, 100.0, 40.0, 100.0, 100.0]
KD = np.r_[20.0, 20.0, 10.0, 10.0, 2.0, 2.0, 0.5, 1.0, 1.0]  # (explicit Euler in MuJoCo)


def _model_and_geoms():
    try:
        fm.example_robot_data_dir()
    except (FileNotFoundError, ImportError) as e:
        pytest.skip(f"example-robot-data is not installed ({e})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panda = fm.load("panda", source="example-robot-data")
    urdf = fm.path("panda", source="example-robot-data")
    b = fd.ModelBuilder("panda_push")
    b.append_model(panda)
    b.add_joint("cube", "freeflyer")
    b.add_body("cube", MASS, inertia=np.eye(3) * MASS * (2 * HB) ** 2 / 6)
    model = b.build()
    srdf = urdf.parent.parent / "srdf" / "panda.srdf"
    return model, collision_geoms(model, urdf, srdf=srdf)


def _reference(model):
    """(Q_ref (T, nq), tau_ff (T, nv)): the hand's line by inverse kinematics, interpolated."""
    data = model.create_data()
    q = fd.neutral(model)
    q[:7] = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]  # (Panda's "ready" posture)
    way = []
    for x in np.linspace(X0, X1, 9):
        target = np.eye(4)
        target[:3, :3] = np.diag([1.0, -1.0, -1.0])  # pointing down
        target[:3, 3] = (x, 0.0, Z)
        r = fd.inverse_kinematics(model, data, "panda_hand", target, q, task="pose")
        assert r.residual < 1e-9, r.residual
        q = r.q
        way.append(q[:9].copy())
    way = np.array(way)
    way[:, 7:] = 0.0  # fingers closed
    s = np.clip(np.arange(T) / (0.8 * T) * (len(way) - 1), 0, len(way) - 1)
    i = np.minimum(s.astype(int), len(way) - 2)
    w = (s - i)[:, None]
    Q = np.tile(fd.neutral(model), (T, 1))
    Q[:, :9] = (1 - w) * way[i] + w * way[i + 1]
    Q[:, 9:] = [CUBE_X, 0.0, HB, 0.0, 0.0, 0.0, 1.0]
    zero = np.zeros(model.nv)
    tau = np.array([fd.rnea(model, data, qr, zero, zero) for qr in Q])
    tau[:, 9:] = 0.0
    return Q, tau


def make_push():
    """(scene, q0, Q_ref, tau_ff, kp, kd, MuJoCo model, MuJoCo control (T, nu), MujocoMap)."""
    model, cg = _model_and_geoms()
    scene = fd.Scene(model, dt=DT, mu=MU, ground=False, **SOFT)
    scene.add_geoms(cg)  # (the SRDF's disabled pairs excluded)
    scene.add_geom(None, "box", size=(0.4, 0.4, 0.02), pos=(0.55, 0.0, -0.02), friction=MU,
                   name="table", **SOFT)
    scene.add_geom("cube", "box", size=(HB, HB, HB), friction=MU, name="cube", **SOFT)
    Q, tau = _reference(model)
    kp, kd = np.r_[KP, np.zeros(6)], np.r_[KD, np.zeros(6)]
    spec = mujoco.MjSpec.from_string(scene.to_mjcf())
    for j in range(1, 10):
        name = model.joint_names[j]
        spec.add_actuator(name=f"{name}_pd", target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT
                          ).set_to_position(kp=KP[j - 1], kv=KD[j - 1])
    m = spec.compile()
    twin = MujocoMap(model)
    control = np.concatenate([np.stack([twin.ctrl(t) for t in tau]), Q[:, :9]], axis=1)
    return scene, Q[0].copy(), Q, tau, kp, kd, m, control, twin


def test_panda_pushing_a_box_rollouts(benchmark):
    scene, q0, Q, tau, kp, kd, m, control, twin = make_push()
    nv = scene.model.nv
    Q0, V0 = np.tile(q0, (N, 1)), np.zeros((N, nv))
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    run = dict(torques=tau, kp=kp, kd=kd, q_ref=Q, record=())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (ConvergenceWarning: the steps at the sweep cap)
        out = scene.rollout(Q0, V0, T, **{**run, "record": ("stats",)})
    sweeps = out.stats[0, :, 1]
    d = [mujoco.MjData(m) for _ in range(2)]
    d[0].qpos[:], d[0].qvel[:] = twin.to_mujoco(q0, np.zeros(nv))
    state = np.zeros((N, mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)))
    mujoco.mj_getState(m, d[0], state[0], mujoco.mjtState.mjSTATE_FULLPHYSICS)
    state[:] = state[0]
    ctrl = np.tile(control, (N, 1, 1))
    st, _ = rollout.rollout(m, d, state, ctrl)
    x_mj = twin.from_mujoco(st[0, -1, 1:1 + m.nq], np.zeros(m.nv))[0][9]
    x_fd = out.final_q[:, 9]
    assert (x_fd > CUBE_X + 0.2).all() and x_mj > CUBE_X + 0.2, (x_fd, x_mj)
    assert abs(x_fd[0] - x_mj) < 0.01, (x_fd[0], x_mj)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fd_s, mj = alternate(lambda: scene.rollout(Q0, V0, T, **run),
                             lambda: rollout.rollout(m, d, state, ctrl), ROUNDS)
    fd_s, mj = fd_s / (N * T), mj / (N * T)
    tag(benchmark, "rollout", "panda_push", "panda", "fastdyn", evals=N * T, variant="pgs",
        mujoco_step_s=mj, fastdyn_step_s=fd_s, ratio=mj / fd_s,
        cube_x_fastdyn=float(x_fd[0]), cube_x_mujoco=float(x_mj),
        sweeps_mean=float(sweeps.mean()), steps_at_cap=int((sweeps >= scene.iterations).sum()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        benchmark.pedantic(scene.rollout, (Q0, V0, T), run, rounds=1)
