"""Simulator throughput: ``fastdyn.Scene.rollout`` against ``mujoco.rollout`` (its persistent
``Rollout`` pool) on the same robots, 2 threads each, timed in the same run.

Contact-free (100 rollouts x 1,000 steps, dt = 1 ms, zero torque, v0 = 0, seeded random
configurations): the bundled UR5 and quadruped, and Panda, Solo12 and Talos from
example-robot-data when installed. Both sides load the same URDF (tests/mujoco_twin.py):
fastdyn through ``fd.models.load``, MuJoCo through its URDF compiler with meshes, mimic
couplings, damping and dry friction stripped and contacts and joint limits disabled; fastdyn's
model likewise without limits, damping and friction (``bare_model``), so that neither steps
through a constraint solver. Semi-implicit Euler on both sides (MuJoCo's default integrator).

With contacts (256 rollouts x 2,000 steps, dt = 1 ms): the bundled quadruped standing (feet on
the plane, random base yaw and position) and dropped from 0.3 m (random joint offsets of up to
0.1 rad, the PD's reference). Feet are spheres of radius 0.016 on the plane z = 0, mu = 0.8,
PD kp = 5, kd = 0.2 on the 12 leg joints (q_ref = the initial joint angles, v_ref = 0).
fastdyn: ``Scene.rollout(..., kp=, kd=)`` (its default solver settings; the extra role
"fastdyn-admm" is the same scene with ``solver="admm"``, standing only). MuJoCo: its default
solver (Newton), default solref/solimp/impratio, elliptic cones, the PD as one position
actuator per joint (kp, kv = kd) with the constant control ctrl = q_ref (an open-loop control
table of the right shape, allocated before timing): the same explicit PD on the state at the
start of the step as fastdyn's.

"fastdyn-generated": the same fastdyn rollouts with ``generated=`` the model's
``fastdyn.codegen.generate(model, algorithms=("aba", "free_velocity"))`` kernels: the
generated ABA in every contact-free step, the generated CRBA + RNEA + factorization of
codegen/free_velocity.py in every step of the contact scenes
(kernels/contact/generated_step.py); the module is generated and its callback compiled
during the warm-up, not timed.

Output: fastdyn keeps the final state only (record=()); mujoco.rollout always writes the state
of every step, into a buffer allocated before timing. Each side's timed call does all N x T
steps; extra_info "steps_per_second" is N x T / min time. Before timing, one rollout of each
scene runs on both simulators and must agree (contact-free: the final state; contacts: both
standing, base heights within 2 cm; MuJoCo's soft, creeping contact puts its base ~1 cm lower,
see tests/test_simulator_mujoco.py)."""

from __future__ import annotations

import copy
import sys
import warnings
from pathlib import Path

import numba
import numpy as np
import pytest

import fastdyn as fd
import fastdyn.models as fm
from bench.ladder import tag

mujoco = pytest.importorskip("mujoco")
import mujoco.rollout  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mujoco_twin import bare_model, contact_free, standing  # noqa: E402
from test_simulator import standing_quadruped  # noqa: E402

THREADS = 2
DT = 1e-3
FREE_MODELS = (("ur5", "bundled"), ("quadruped", "bundled"), ("panda", "example-robot-data"),
               ("solo12", "example-robot-data"), ("talos", "example-robot-data"))
FREE_N, FREE_T = 100, 1000
CONTACT_N, CONTACT_T = 256, 2000
SCENES = ("standing", "dropped")
RADIUS, MU, KP, KD = 0.016, 0.8, 5.0, 0.2


@pytest.fixture(scope="module", autouse=True)
def two_threads():
    if numba.config.NUMBA_NUM_THREADS < THREADS:
        pytest.skip(f"numba has {numba.config.NUMBA_NUM_THREADS} thread(s)")
    before = numba.get_num_threads()
    numba.set_num_threads(THREADS)
    yield
    numba.set_num_threads(before)


@pytest.fixture(scope="module")
def pool():
    with mujoco.rollout.Rollout(nthread=THREADS) as r:
        yield r


class Case:
    """One scene on both simulators: fastdyn's ``run()`` and MuJoCo's ``run_mujoco()`` each
    do the whole batch; built, checked against each other and warmed up before timing."""

    def __init__(self, label, scene, twin, Q0, V0, steps, gains=None):
        self.label, self.scene, self.twin, self.steps = label, scene, twin, steps
        self.Q0, self.V0, self.gains = Q0, V0, gains or {}
        m = twin.m
        self.init = twin.initial_states(Q0, V0)
        self.datas: dict[int, list] = {}  # one MjData per thread of the pool
        n = Q0.shape[0]
        nstate = mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)
        self.state = np.empty((n, steps, nstate))
        self.control = None
        if m.nu:
            self.control = np.empty((n, steps, m.nu))
            self.control[:] = np.stack([twin.joint_refs(q) for q in Q0])[:, None, :]

    def run(self, generated=None):
        return self.scene.rollout(self.Q0, self.V0, self.steps, record=(), generated=generated,
                                  **self.gains)

    def run_generated(self):
        if getattr(self, "gen", None) is None:
            from fastdyn import codegen
            self.gen = codegen.generate(self.scene.model, algorithms=("aba", "free_velocity"))
            a = self.run()
            b = self.run(self.gen)  # compiles the generated kernel's callback
            dq = np.abs(a.final_q - b.final_q).max()
            # round-off: grown over 2,000 steps where feet touch the ground
            if not dq < (1e-6 if len(self.scene.spheres) else 1e-9):
                raise RuntimeError(f"{self.label}: generic and generated rollouts end {dq:.3g} "
                                   f"apart")
        return self.run(self.gen)

    def run_mujoco(self, pool, rows=None):
        sl = slice(None) if rows is None else rows
        init = self.init[sl]
        control = None if self.control is None else self.control[sl]
        state = self.state[sl]
        nt = max(1, pool.nthread)
        datas = self.datas.setdefault(nt, [mujoco.MjData(self.twin.m) for _ in range(nt)])
        pool.rollout(self.twin.m, datas, init, control, nstep=self.steps, state=state)
        return state


def _robot(name: str, source: str) -> tuple[fd.Model, Path]:
    if source != "bundled":
        try:
            fm.example_robot_data_dir()
        except (FileNotFoundError, ImportError) as e:
            pytest.skip(f"{name}: example-robot-data is not installed ({e})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Talos: mimic tags ignored
        return fm.load(name, source=source), fm.path(name, source=source)


def _free_case(name: str, source: str, pool) -> Case:
    model, path = _robot(name, source)
    model = bare_model(model)
    twin = contact_free(model, path, DT)
    rng = np.random.default_rng(0)
    Q0 = np.stack([fd.random_configuration(model, rng) for _ in range(FREE_N)])
    if twin.free:
        Q0[:, :3] = 0.0
    V0 = np.zeros((FREE_N, model.nv))
    case = Case(name, fd.Scene(model, dt=DT, ground=False), twin, Q0, V0, FREE_T)
    # the twins agree: one rollout of 1,000 steps on both
    out = case.scene.rollout(Q0[0], V0[0], FREE_T, record=())
    q, v = twin.from_mujoco(*twin.qpos_qvel(case.run_mujoco(pool, slice(0, 1))[0, -1]))
    dq = np.abs(fd.difference(model, out.final_q, q)).max()
    if not dq < 1e-3:
        raise RuntimeError(f"{name}: fastdyn and MuJoCo end 1,000 contact-free steps {dq:.3g} "
                           f"apart")
    case.agreement = float(dq)
    return case


def contact_scene() -> tuple[fd.Scene, tuple]:
    """The quadruped scene of the contact rows, and its PD gains (kp, kd)."""
    model, _, feet, gains = standing_quadruped()
    scene = fd.Scene(model, dt=DT, mu=MU)
    for f in feet:
        scene.add_sphere(f, RADIUS)
    return scene, gains


def contact_states(which: str) -> tuple[np.ndarray, np.ndarray]:
    """(Q0, V0) of the contact rows' CONTACT_N rollouts, standing or dropped (seeded)."""
    model, q0, _, _ = standing_quadruped()
    rng = np.random.default_rng(1)
    Q0 = np.tile(q0, (CONTACT_N, 1))
    yaw = rng.uniform(-np.pi, np.pi, CONTACT_N)
    Q0[:, :2] = rng.uniform(-1.0, 1.0, (CONTACT_N, 2))
    Q0[:, 3:7] = np.stack([np.zeros_like(yaw), np.zeros_like(yaw), np.sin(yaw / 2),
                           np.cos(yaw / 2)], axis=1)
    if which == "dropped":
        Q0[:, 2] += 0.3
        Q0[:, 7:] += rng.uniform(-0.1, 0.1, (CONTACT_N, 12))
    return Q0, np.zeros((CONTACT_N, model.nv))


def _contact_case(which: str, pool) -> Case:
    scene, (kp, kd) = contact_scene()
    model, feet = scene.model, standing_quadruped()[2]
    twin = standing(model, fm.path("quadruped"), feet, RADIUS, MU, KP, KD, DT)
    Q0, V0 = contact_states(which)
    case = Case(f"quadruped-{which}", scene, twin, Q0, V0, CONTACT_T, dict(kp=kp, kd=kd))
    out = scene.rollout(Q0[0], V0[0], CONTACT_T, kp=kp, kd=kd, record=())
    q, _ = twin.from_mujoco(*twin.qpos_qvel(case.run_mujoco(pool, slice(0, 1))[0, -1]))
    z_fd, z_mj = out.final_q[2], q[2]
    if not (z_fd > 0.15 and z_mj > 0.15 and abs(z_fd - z_mj) < 0.02):
        raise RuntimeError(f"{case.label}: final base heights fastdyn {z_fd:.4f} m, MuJoCo "
                           f"{z_mj:.4f} m: not the same standing robot")
    case.agreement = float(z_fd - z_mj)
    return case


_CASES: dict[str, Case] = {}


def case_for(key: str, pool) -> Case:
    if key not in _CASES:
        if key in SCENES:
            _CASES[key] = _contact_case(key, pool)
        else:
            _CASES[key] = _free_case(key, dict(FREE_MODELS)[key], pool)
    return _CASES[key]


def _time(benchmark, f, rounds: int, steps: int) -> None:
    f()  # warm-up: compilation, thread pools, first touch of the buffers
    benchmark.pedantic(f, rounds=rounds, iterations=1)
    if benchmark.stats is not None:  # None under --benchmark-disable
        benchmark.extra_info["steps_per_second"] = steps / benchmark.stats.stats.min


@pytest.mark.parametrize("name", [m for m, _ in FREE_MODELS])
@pytest.mark.parametrize("side", ["fastdyn", "fastdyn-generated", "mujoco"])
def test_contact_free(benchmark, pool, name, side):
    case = case_for(name, pool)
    n = FREE_N * FREE_T
    tag(benchmark, "simulator", "contact-free", name, side, evals=n,
        variant=f"N{FREE_N}xT{FREE_T}-{THREADS}t", dofs=case.twin.model.nv, threads=THREADS,
        agreement=case.agreement, mujoco=mujoco.__version__)
    run = {"fastdyn": case.run, "fastdyn-generated": case.run_generated,
           "mujoco": lambda: case.run_mujoco(pool)}[side]
    _time(benchmark, run, 5, n)


@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("side", ["fastdyn", "fastdyn-generated", "mujoco"])
def test_contacts(benchmark, pool, scene, side):
    case = case_for(scene, pool)
    n = CONTACT_N * CONTACT_T
    tag(benchmark, "simulator", f"quadruped-{scene}", "quadruped", side, evals=n,
        variant=f"N{CONTACT_N}xT{CONTACT_T}-{THREADS}t", dofs=case.twin.model.nv,
        threads=THREADS, agreement=case.agreement, mujoco=mujoco.__version__)
    run = {"fastdyn": case.run, "fastdyn-generated": case.run_generated,
           "mujoco": lambda: case.run_mujoco(pool)}[side]
    _time(benchmark, run, 3, n)


def test_contacts_admm(benchmark, pool):
    """The standing quadruped with ``Scene(solver="admm")``: indicative (the report's table
    compares PGS with MuJoCo); before timing, one rollout must end where PGS's does."""
    case = case_for("standing", pool)
    scene = copy.deepcopy(case.scene)
    scene.solver = "admm"
    z = [s.rollout(case.Q0[0], case.V0[0], case.steps, record=(), **case.gains).final_q[2]
         for s in (case.scene, scene)]
    assert abs(z[0] - z[1]) < 1e-6, z
    n = CONTACT_N * CONTACT_T
    tag(benchmark, "simulator", "quadruped-standing", "quadruped", "fastdyn-admm", evals=n,
        variant=f"N{CONTACT_N}xT{CONTACT_T}-{THREADS}t", dofs=case.twin.model.nv,
        threads=THREADS, mujoco=mujoco.__version__)
    _time(benchmark, lambda: scene.rollout(case.Q0, case.V0, case.steps, record=(),
                                           **case.gains), 3, n)
