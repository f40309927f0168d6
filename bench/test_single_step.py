"""One simulator step called from Python, as an MPC or iLQR loop calls it, beside its peers.

Rows (per call, one state; dt = 1 ms):
- ``ur5`` contact-free: ``scene.step(q, v, tau)`` (fastdyn), ``pin.aba`` + ``pin.integrate``
  (Pinocchio: the same semi-implicit Euler step written with its two calls), and
  ``mujoco.mj_step`` on the contact-free twin (tests/mujoco_twin.py).
- ``quadruped`` standing on its four feet: ``scene.step`` (fastdyn) and ``mujoco.mj_step`` on
  the standing twin (MuJoCo's soft contacts, Newton solver).
- ``quadruped`` and ``anymal`` (example-robot-data, feet 3 cm spheres) standing: ``scene.step``
  from Python against the same step's compiled entry point called from an ``@njit`` loop
  (``fastdyn-kernel``: the free step plus the contact solve, nothing of Python's), the
  overhead of a step from Python.
Each callable loops over ``CALLS`` steps from the same state (the warm start carries over, as in
a controller); the report divides by ``evals``. No row asserts on time.
"""

import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import fastdyn as fd
import fastdyn.models as fm
from bench.ladder import tag
from fastdyn.kernels.entry.scene_step import step_checked

pin = pytest.importorskip("pinocchio")
mujoco = pytest.importorskip("mujoco")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mujoco_twin import bare_model, contact_free, standing  # noqa: E402
from test_simulator import standing_quadruped  # noqa: E402

DT, CALLS = 1e-3, 200
RADIUS, MU, KP, KD = 0.016, 0.8, 5.0, 0.2


def _mj_steps(twin, q, v):
    """CALLS mj_step calls of ``twin``, each from fastdyn's state (q, v)."""
    d = mujoco.MjData(twin.m)
    qpos, qvel = twin.to_mujoco(q, v)

    def mj():
        for _ in range(CALLS):
            d.qpos[:], d.qvel[:] = qpos, qvel
            mujoco.mj_step(twin.m, d)

    return mj


def _ur5():
    model = bare_model(fm.load("ur5"))
    scene = fd.Scene(model, dt=DT, ground=False)
    q = fd.random_configuration(model, 0)
    v = np.random.default_rng(0).normal(size=model.nv)
    tau = np.zeros(model.nv)

    def fastdyn():
        for _ in range(CALLS):
            scene.step(q, v, tau)

    pm = pin.buildModelFromUrdf(str(fm.path("ur5")))
    pd = pm.createData()

    def pinocchio():
        for _ in range(CALLS):
            vn = v + DT * pin.aba(pm, pd, q, v, tau, pin.Convention.WORLD)
            pin.integrate(pm, q, DT * vn)

    mj = _mj_steps(contact_free(model, fm.path("ur5"), DT), q, v)
    return model, {"fastdyn": fastdyn, "pinocchio": pinocchio, "mujoco": mj}


def _quadruped():
    model, q0, feet, _ = standing_quadruped()
    scene = fd.Scene(model, dt=DT, mu=MU)
    for f in feet:
        scene.add_sphere(f, RADIUS)
    v0 = np.zeros(model.nv)
    q, v = scene.rollout(q0, v0, 500, record=()).final_q, np.zeros(model.nv)  # settled
    tau = np.zeros(model.nv)

    def fastdyn():
        for _ in range(CALLS):
            scene.step(q, v, tau)

    mj = _mj_steps(standing(model, fm.path("quadruped"), feet, RADIUS, MU, KP, KD, DT), q, v)
    return model, {"fastdyn": fastdyn, "mujoco": mj,
                   "fastdyn-kernel": _kernel_side(scene, q, v, tau)}


@numba.njit
def _kernel_steps(n, jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v, tau, fext, ws, ibuf, warm,
                  scratch, nf, tol):
    for _ in range(n):
        step_checked(jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v, tau, fext, ws, ibuf, warm,
                     scratch, nf, tol)


def _kernel_side(scene, q, v, tau):
    """CALLS steps of the scene's prepared compiled entry point from an @njit loop."""
    scene.step(q, v, tau)  # prepares it
    p, m = scene._prepared_step, scene.model
    args = (m.jnt, m.prm, m.dof, p.sph, p.hsp, p.geo, p.eqc, scene.opt, q, v, tau,
            np.zeros((0, 6)),
            p.ws, p.ibuf, p.warm, p.scratch, p.nf, 1e-6)
    return lambda: _kernel_steps(CALLS, *args)


def _anymal():
    model = fm.load("anymal", source="example-robot-data", root_joint="freeflyer")
    feet = ("LF_FOOT", "LH_FOOT", "RF_FOOT", "RH_FOOT")
    q0 = fd.sim.place_on_ground(model, fd.neutral(model), feet, 0.03)
    scene = fd.Scene(model, dt=DT, mu=MU)
    for f in feet:
        scene.add_sphere(f, 0.03)
    v0 = np.zeros(model.nv)
    kp = np.r_[np.zeros(6), np.full(12, 200.0)]
    q = scene.rollout(q0, v0, 500, kp=kp, kd=kp / 50, record=()).final_q  # settled
    tau = fd.compute_generalized_gravity(model, model.create_data(), q).copy()
    tau[:6] = 0.0

    def fastdyn():
        for _ in range(CALLS):
            scene.step(q, v0, tau)

    return model, {"fastdyn": fastdyn, "fastdyn-kernel": _kernel_side(scene, q, v0, tau)}


CASES = {"ur5": _ur5, "quadruped": _quadruped, "anymal": _anymal}
_made: dict = {}


@pytest.mark.parametrize("name,side", [("ur5", "fastdyn"), ("ur5", "pinocchio"),
                                       ("ur5", "mujoco"), ("quadruped", "fastdyn"),
                                       ("quadruped", "mujoco"),
                                       ("quadruped", "fastdyn-kernel"), ("anymal", "fastdyn"),
                                       ("anymal", "fastdyn-kernel")])
def test_single_step(benchmark, name, side):
    if name not in _made:
        _made[name] = CASES[name]()
    model, sides = _made[name]
    tag(benchmark, "simulator", "single-step", name, side, evals=CALLS, dofs=model.nv)
    f = sides[side]
    f()  # warm-up: compilation, first touch
    benchmark.pedantic(f, rounds=30, iterations=1)
