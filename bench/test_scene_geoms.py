"""A stack of 10 free boxes on a plane: fastdyn's Scene rollouts (geom contacts, soft as
MuJoCo's defaults) next to ``mujoco.rollout`` on the same MJCF, same dt, 2 threads, the same
number of rollouts and steps, timed in alternating rounds (bench/alternate.py: the best
of ROUNDS of each). Time per rollout step; the ratio mujoco / fastdyn in extra_info. Not the
same solver (fastdyn: PGS with Coulomb's law exact on the disc, or ADMM; MuJoCo: Newton on
its convex primal), so the ratio is indicative. No assertion on time.
Stacks: "uniform" (ten 0.5 kg boxes, PGS) and "stiff" (Pinocchio's stiff case: masses
alternating 1e-3 and 1e3 kg, a ratio of 1e6 between neighbours, ADMM: PGS does not hold it,
tests/test_scene_stacks.py), fastdyn's contacts rigid there (MuJoCo's default soft contacts
let a 1e3 kg box sink into a 1e-3 kg one: fastdyn then finds more than its max_contacts);
MuJoCo keeps its defaults. Where a step's time goes: bench/test_geom_step_split.py."""

from __future__ import annotations


import numba
import numpy as np
import pytest

import fastdyn as fd
from bench.alternate import alternate
from bench.ladder import tag

mujoco = pytest.importorskip("mujoco")
rollout = pytest.importorskip("mujoco.rollout")

NBOX, H, DT, G = 10, 0.05, 1e-3, 9.81
N, T = 8, 500
SOLREF, SOLIMP = (0.02, 1.0), (0.9, 0.95, 0.001, 0.5, 2.0)
ROUNDS = 7  # alternating rounds of fastdyn and MuJoCo (bench/alternate.py): the best of each


MASSES = {"uniform": [0.5] * NBOX, "stiff": [1e3 if i % 2 == 0 else 1e-3 for i in range(NBOX)]}
SOLVER = {"uniform": "pgs", "stiff": "admm"}


def _xml(masses=MASSES["uniform"]) -> str:
    bodies = "".join(
        f'<body name="box{i}" pos="0 0 {(2 * i + 1) * H}"><freejoint name="j{i}"/>'
        f'<geom type="box" size="{H} {H} {H}" mass="{masses[i]}"/></body>'
        for i in range(NBOX))
    return (f'<mujoco><option timestep="{DT}" cone="elliptic" integrator="Euler"/>'
            f'<worldbody><geom type="plane" size="0 0 1"/>{bodies}</worldbody></mujoco>')


def make_stack(kind: str = "uniform"):
    """(scene, q0, MuJoCo model) of the stack ``kind`` (MASSES)."""
    xml = _xml(MASSES[kind])
    model = fd.load_mjcf(xml)
    soft = dict(solref=SOLREF, solimp=SOLIMP) if kind == "uniform" else {}
    scene = fd.Scene(model, dt=DT, mu=1.0, solver=SOLVER[kind], **soft)
    for i in range(NBOX):
        scene.add_geom(f"box{i}", "box", size=(H, H, H), friction=1.0, **soft)
    q0 = np.concatenate([[0.0, 0.0, (2 * i + 1) * H, 0.0, 0.0, 0.0, 1.0]
                         for i in range(NBOX)])
    m = mujoco.MjModel.from_xml_string(xml)
    return scene, q0, m


@pytest.fixture(scope="module")
def stack():
    return make_stack()


@pytest.mark.parametrize("kind", MASSES)
def test_box_stack_rollouts(benchmark, kind):
    scene, q0, m = make_stack(kind)
    Q = np.tile(q0, (N, 1))
    V = np.zeros((N, scene.model.nv))
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    scene.rollout(Q, V, 5, record=())  # compile
    d = [mujoco.MjData(m) for _ in range(2)]
    state = np.zeros((N, mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)))
    mujoco.mj_getState(m, d[0], state[0], mujoco.mjtState.mjSTATE_FULLPHYSICS)
    state[:] = state[0]
    rollout.rollout(m, d, state, nstep=T)  # warm
    fd_s, mj = alternate(lambda: scene.rollout(Q, V, T, record=()),
                         lambda: rollout.rollout(m, d, state, nstep=T), ROUNDS)
    fd_s, mj = fd_s / (N * T), mj / (N * T)
    tag(benchmark, "rollout", f"box_stack_{kind}", f"boxes{NBOX}", "fastdyn", evals=N * T,
        variant=scene.solver, mujoco_step_s=mj, fastdyn_step_s=fd_s, ratio=mj / fd_s)
    out = benchmark.pedantic(scene.rollout, (Q, V, T), dict(record=()), rounds=1)
    assert (out.status == "ok").all()


# --- a two-finger gripper lifting a box (tests/test_scene_grasp.py's scene, from MJCF) --------

GRASP_T, GRASP_AT = 1500, 300  # steps, the step the lift starts
HB, FINGER, GAP, Z0 = 0.03, (0.01, 0.02, 0.02), 0.005, 0.1
MP, MF, MB, SQUEEZE, EXTRA = 1.0, 0.1, 0.2, 5.0, 1.0


def _gripper_xml() -> str:
    y = HB + FINGER[1] + GAP
    fingers = "".join(
        f'<body name="{n}" pos="0 {s * y} {-Z0}"><joint name="{n}" type="slide" '
        f'axis="0 {-s} 0"/><inertial pos="0 0 0" mass="{MF}" diaginertia="1e-5 1e-5 1e-5"/>'
        f'<geom type="box" size="{FINGER[0]} {FINGER[1]} {FINGER[2]}" friction="0.8"/></body>'
        for n, s in (("left", 1), ("right", -1)))
    return (f'<mujoco><option timestep="{DT}" cone="elliptic" integrator="Euler"/><worldbody>'
            f'<geom type="plane" size="0 0 1" friction="0.8"/>'
            f'<body name="palm" pos="0 0 {HB + Z0}"><joint name="lift" type="slide" '
            f'axis="0 0 1"/><inertial pos="0 0 0" mass="{MP}" diaginertia="1e-3 1e-3 1e-3"/>'
            f'{fingers}</body><body name="box" pos="0 0 {HB}"><freejoint name="box"/>'
            f'<geom type="box" size="{HB} {HB} {HB}" mass="{MB}" friction="0.8"/></body>'
            f'</worldbody><actuator><motor joint="lift"/><motor joint="left"/>'
            f'<motor joint="right"/></actuator></mujoco>')


def test_gripper_lift_rollouts(benchmark):
    """The gripper closes on the box (5 N a finger) and lifts it (the whole weight + 1 N from
    step GRASP_AT): fastdyn rigid (PGS) against MuJoCo's default soft contacts, both holding
    the box."""
    xml = _gripper_xml()
    model = fd.load_mjcf(xml)
    scene = fd.Scene(model, dt=DT, mu=0.8)
    for body, size in (("left", FINGER), ("right", FINGER), ("box", (HB, HB, HB))):
        scene.add_geom(body, "box", size=size, friction=0.8)
    q0 = np.r_[0.0, 0.0, 0.0, 0.0, 0.0, HB, 0.0, 0.0, 0.0, 1.0]
    ctrl = np.zeros((GRASP_T, 3))
    ctrl[:, 1:] = SQUEEZE
    ctrl[:, 0] = (MP + 2 * MF) * G
    ctrl[GRASP_AT:, 0] = (MP + 2 * MF + MB) * G + EXTRA
    tau = np.zeros((GRASP_T, model.nv))
    tau[:, :3] = ctrl
    Q, V = np.tile(q0, (N, 1)), np.zeros((N, model.nv))
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    out = scene.rollout(Q, V, GRASP_T, torques=tau, record=())
    assert (out.status == "ok").all() and (out.final_q[:, 5] > HB + 0.5).all()
    m = mujoco.MjModel.from_xml_string(xml)
    d = [mujoco.MjData(m) for _ in range(2)]
    state = np.zeros((N, mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)))
    mujoco.mj_getState(m, d[0], state[0], mujoco.mjtState.mjSTATE_FULLPHYSICS)
    state[:] = state[0]
    control = np.tile(ctrl, (N, 1, 1))
    st, _ = rollout.rollout(m, d, state, control)  # warm; the box is held there too
    assert (st[:, -1, 1 + 5] > HB + 0.5).all()  # (state: time, then qpos)
    fd_s, mj = alternate(lambda: scene.rollout(Q, V, GRASP_T, torques=tau, record=()),
                         lambda: rollout.rollout(m, d, state, control), ROUNDS)
    fd_s, mj = fd_s / (N * GRASP_T), mj / (N * GRASP_T)
    tag(benchmark, "rollout", "gripper_lift", "gripper", "fastdyn", evals=N * GRASP_T,
        variant="pgs", mujoco_step_s=mj, fastdyn_step_s=fd_s, ratio=mj / fd_s)
    benchmark.pedantic(scene.rollout, (Q, V, GRASP_T), dict(torques=tau, record=()), rounds=1)
