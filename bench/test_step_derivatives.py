"""Batch derivatives and the transition Jacobians of one simulator step.

Batch: ``fd.batch.compute_rnea_derivatives`` / ``compute_aba_derivatives`` on N = 10,000 seeded states (ABA at
tau = RNEA(q, v, a)), 1 and 2 threads, allocating their three (N, nv, nv) outputs or filling
preallocated ones (``out=``), against a Python loop of ``pin.computeRNEADerivatives`` /
``computeABADerivatives`` over the same states on one thread (Pinocchio 4.1 has no parallel
derivatives: its *InParallel family covers rnea, aba and crba only). Its three matrices stay in
its Data (not copied out), so the loop is a lower bound on Pinocchio's time for the same
result. UR5, Panda, Solo12 (Talos's outputs, 3 x 10,000 x 38^2 doubles, are 350 MB).

Step: ``Scene.step_derivatives`` (A = d(q+, v+)/d(q, v), B = d(q+, v+)/d(tau), analytical)
from Python (also with ``generated=`` the model's generated ABA derivatives, "fastdyn-generated"),
and its kernel in an @njit loop over the seeded states, against
``mujoco.mjd_transitionFD`` (finite differences of mj_step, forward and centred) on MuJoCo's
twin of the same URDF (tests/mujoco_twin.py: contact-free, limits off, one motor per actuated
joint so that B has nu = nv - 6 (Solo12) or nv (UR5) columns), dt = 1 ms, both semi-implicit
Euler. fastdyn's B has nv columns (every dof, the base's included).

Step with contacts (indicative): the bundled quadruped standing on its four feet under PD
(fastdyn simulate's scene, tests/test_simulator.py), after 500 settling steps:
``Scene.step_derivatives`` (12 contact rows, the active set held fixed, analytical) and its
kernel, against ``mujoco.mjd_transitionFD`` on MuJoCo's twin of the scene
(tests/mujoco_twin.standing: soft contacts, Newton solver, elliptic cones, the PD as position
actuators, so MuJoCo's A includes the PD's feedback and its B has the 12 actuator columns),
after MuJoCo's own 500 settling steps. Not the same derivative (one analytical step on a
fixed active set against finite differences of a soft-contact step): the cost of getting the
Jacobians of a standing robot's step, each simulator's own way."""

from __future__ import annotations

import sys
from pathlib import Path

import numba
import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
import fastdyn.models as fm
from bench.ladder import NSTATES, pin_loop, robot as _robot, tag
from fastdyn.kernels import step_derivatives as step_kernel
from fastdyn.sim.step_derivatives import step_buffers, step_options

mujoco = pytest.importorskip("mujoco")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mujoco_twin import Twin, bare_model, spec, standing  # noqa: E402
from test_simulator import standing_quadruped  # noqa: E402

pytestmark = pytest.mark.benchmark(min_rounds=5, max_time=2.0)

N = 10_000
DT = 1e-3
ALGOS = ("rnea_derivatives", "aba_derivatives")


@pytest.fixture(params=("ur5", "panda", "solo12"), scope="module")
def robot(request):
    return _robot(request.param)


def _args(r, algo, n):
    Q, V, A, TAU = r.states(n)
    return (Q, V, A) if algo == "rnea_derivatives" else (Q, V, TAU)


@pytest.mark.parametrize("preallocated", [False, True], ids=["alloc", "out"])
@pytest.mark.parametrize("algo", ALGOS)
def test_batch_fastdyn(benchmark, robot, algo, threads, preallocated):
    f = getattr(fd.batch, "compute_" + algo)  # (the results keep the short tag)
    args = _args(robot, algo, N)
    out = tuple(np.empty((N, robot.nv, robot.nv)) for _ in range(3)) if preallocated else None
    f(robot.model, *args, out=out)
    tag(benchmark, "batch", algo, robot, "fastdyn" + ("-out" if preallocated else ""),
        evals=N, variant=f"N{N}-{threads}t", n=N, threads=threads)
    benchmark(f, robot.model, *args, out=out)


@pytest.mark.parametrize("algo", ALGOS)
def test_batch_pinocchio_python_loop(benchmark, robot, algo):
    f = pin.computeRNEADerivatives if algo == "rnea_derivatives" else pin.computeABADerivatives
    rows = list(zip(*_args(robot, algo, N)))
    pin_loop(f, robot.pm, robot.pd, rows)
    tag(benchmark, "batch", algo, robot, "pinocchio-pyloop", evals=N, variant=f"N{N}-1t",
        n=N, threads=1)
    benchmark.pedantic(pin_loop, (f, robot.pm, robot.pd, rows), rounds=5, iterations=1)


# --- transition Jacobians of one step --------------------------------------------------------

class StepTwin:
    """fastdyn's contact-free scene and MuJoCo's twin of the same URDF, one seeded state."""

    def __init__(self, name: str):
        r = _robot(name)
        self.name, self.r = name, r
        self.model = bare_model(r.model)
        self.scene = fd.Scene(self.model, dt=DT, ground=False, limits=False)
        s = spec(self.model, fm.path(name, source="example-robot-data"), DT)
        s.option.disableflags |= (mujoco.mjtDisableBit.mjDSBL_CONTACT
                                  | mujoco.mjtDisableBit.mjDSBL_LIMIT)
        free = self.model.joint_type(1) == "freeflyer"
        for j in range(2 if free else 1, self.model.njoints):  # actuators in joint order
            s.add_actuator(name=self.model.joint_names[j], target=self.model.joint_names[j],
                           trntype=mujoco.mjtTrn.mjTRN_JOINT)
        self.m = s.compile()
        self.d = mujoco.MjData(self.m)
        self.q, self.v = r.Q[0], r.V[0]
        self.tau = 0.1 * r.TAU[0]
        first = 2 if free else 1
        if free:
            self.tau[:6] = 0.0  # the base is not actuated
        self.d.qpos[:], self.d.qvel[:] = Twin(self.model, self.m).to_mujoco(self.q, self.v)
        self.d.ctrl[:] = [self.tau[self.model.jnt[j]["idx_v"]]
                          for j in range(first, self.model.njoints)]
        nv, nu = self.m.nv, self.m.nu
        self.A, self.B = np.zeros((2 * nv, 2 * nv)), np.zeros((2 * nv, nu))


_TWINS: dict[str, StepTwin] = {}


@pytest.fixture(params=("ur5", "solo12"), scope="module")
def twin(request):
    if request.param not in _TWINS:
        _TWINS[request.param] = StepTwin(request.param)
    return _TWINS[request.param]


def test_step_fastdyn(benchmark, twin):
    t = twin
    t.scene.step_derivatives(t.q, t.v, t.tau)
    tag(benchmark, "single", "step_derivatives", t.r, "fastdyn")
    benchmark(t.scene.step_derivatives, t.q, t.v, t.tau)


@numba.njit
def _step_states(jnt, prm, dof, sph, hsp, opt, Q, V, TAU, fext, ws, fbuf, ibuf, dbuf, qn, vn, A,
                 B):
    code = 0
    for r in range(Q.shape[0]):
        code = max(code, step_kernel(jnt, prm, dof, sph, hsp, None, None, opt, Q[r], V[r], TAU[r],
                                     fext, ws, fbuf, ibuf, dbuf, qn, vn, A, B))
    return code


def test_step_fastdyn_kernel(benchmark, twin):
    t = twin
    m, nv = t.model, t.model.nv
    Q, V, _, TAU = t.r.states(NSTATES)
    args = (m.jnt, m.prm, m.dof, t.scene.spheres, t.scene.halfspaces,
            step_options(t.scene, m.prm[None]), Q, V, 0.1 * TAU, np.zeros((0, 6)),
            *step_buffers(t.scene), np.zeros(m.nq), np.zeros(nv), np.zeros((2 * nv, 2 * nv)),
            np.zeros((2 * nv, nv)))
    assert _step_states(*args) == 0
    tag(benchmark, "kernel", "step_derivatives", t.r, "fastdyn", evals=NSTATES)
    benchmark(_step_states, *args)


def test_step_fastdyn_generated(benchmark, twin):
    """Scene.step_derivatives(..., generated=gen): the model's generated ABA derivatives
    (fastdyn.codegen, generated and compiled before timing) in the same contact-free step."""
    from fastdyn import codegen
    t = twin
    gen = codegen.generate(t.model, algorithms=("aba_derivatives",))
    A, B = (x.copy() for x in t.scene.step_derivatives(t.q, t.v, t.tau))
    Ag, Bg = t.scene.step_derivatives(t.q, t.v, t.tau, generated=gen)
    assert np.allclose(Ag, A, atol=1e-9) and np.allclose(Bg, B, atol=1e-9)
    tag(benchmark, "single", "step_derivatives", t.r, "fastdyn-generated")
    benchmark(t.scene.step_derivatives, t.q, t.v, t.tau, None, gen)


@pytest.mark.parametrize("centered", [0, 1], ids=["forward", "centred"])
def test_step_mujoco_transition_fd(benchmark, twin, centered):
    t = twin
    args = (t.m, t.d, 1e-6, centered, t.A, t.B, None, None)
    mujoco.mjd_transitionFD(*args)
    tag(benchmark, "single", "step_derivatives", t.r,
        "mujoco-" + ("centred" if centered else "forward"))
    benchmark(mujoco.mjd_transitionFD, *args)


def test_step_batch_fastdyn(benchmark, twin, threads):
    """The same Jacobians over NSTATES states in one fd.batch.step_derivatives call."""
    t = twin
    Q, V, _, TAU = t.r.states(NSTATES)
    TAU = 0.1 * TAU
    fd.batch.step_derivatives(t.scene, Q, V, TAU)
    tag(benchmark, "batch", "step_derivatives", t.r, "fastdyn", evals=NSTATES,
        variant=f"N{NSTATES}-{threads}t", n=NSTATES, threads=threads)
    benchmark(fd.batch.step_derivatives, t.scene, Q, V, TAU)


# --- the quadruped standing: a step with 12 contact rows ----------------------------------------

class Standing:
    """The standing quadruped on both simulators, each settled by 500 of its own steps."""

    def __init__(self):
        from fastdyn.sim import standing_scene
        self.scene, q0, kp, kd = standing_scene(dt=DT)
        model = self.scene.model
        self.model = model
        out = self.scene.rollout(q0, np.zeros(model.nv), 500, kp=kp, kd=kd)
        self.q, self.v = out.final_q, out.final_v
        self.tau = kp * fd.difference(model, self.q, q0) - kd * self.v
        self.scene.reset()
        self.scene.step(self.q, self.v, self.tau)
        assert self.scene.stats[0] == 12  # four feet in contact
        m2, _, feet, _ = standing_quadruped()
        twin = standing(m2, fm.path("quadruped"), feet, 0.016, 0.8, float(kp[-1]),
                        float(kd[-1]), DT)  # the legs' gains (the base has none)
        self.m = twin.m
        self.d = mujoco.MjData(self.m)
        self.d.qpos[:], self.d.qvel[:] = twin.to_mujoco(q0, np.zeros(model.nv))
        self.d.ctrl[:] = twin.joint_refs(q0)
        for _ in range(500):
            mujoco.mj_step(self.m, self.d)
        assert self.d.ncon == 4
        nv, nu = self.m.nv, self.m.nu
        self.A, self.B = np.zeros((2 * nv, 2 * nv)), np.zeros((2 * nv, nu))


_STANDING: list[Standing] = []


@pytest.fixture(scope="module")
def stand():
    if not _STANDING:
        _STANDING.append(Standing())
    return _STANDING[0]


def test_standing_step_fastdyn(benchmark, stand):
    s = stand
    s.scene.step_derivatives(s.q, s.v, s.tau)
    tag(benchmark, "single", "step_derivatives", "quadruped-standing", "fastdyn",
        nv=s.model.nv, rows=12)
    benchmark(s.scene.step_derivatives, s.q, s.v, s.tau)


def test_standing_step_fastdyn_kernel(benchmark, stand):
    s = stand
    m, nv = s.model, s.model.nv
    n = 64
    Q, V, TAU = (np.tile(x, (n, 1)) for x in (s.q, s.v, s.tau))
    args = (m.jnt, m.prm, m.dof, s.scene.spheres, s.scene.halfspaces,
            step_options(s.scene, m.prm[None]), Q, V, TAU, np.zeros((0, 6)),
            *step_buffers(s.scene), np.zeros(m.nq), np.zeros(nv), np.zeros((2 * nv, 2 * nv)),
            np.zeros((2 * nv, nv)))
    assert _step_states(*args) == 0
    tag(benchmark, "kernel", "step_derivatives", "quadruped-standing", "fastdyn", evals=n,
        nv=nv, rows=12)
    benchmark(_step_states, *args)


@pytest.mark.parametrize("centered", [0, 1], ids=["forward", "centred"])
def test_standing_step_mujoco_transition_fd(benchmark, stand, centered):
    s = stand
    args = (s.m, s.d, 1e-6, centered, s.A, s.B, None, None)
    mujoco.mjd_transitionFD(*args)
    tag(benchmark, "single", "step_derivatives", "quadruped-standing",
        "mujoco-" + ("centred" if centered else "forward"), nv=s.m.nv, ncon=int(s.d.ncon))
    benchmark(mujoco.mjd_transitionFD, *args)
