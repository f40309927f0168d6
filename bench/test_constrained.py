"""Constrained and impulse dynamics and their derivatives, one call from Python, against
Pinocchio 4.1's constraintDynamics, impulseDynamics, computeConstraintDynamicsDerivatives and
computeImpulseDynamicsDerivatives on the same model, state and constraints:

- ``solo12``: four point contacts (CONTACT_3D, LOCAL_WORLD_ALIGNED) at the feet;
- ``talos``: two frame contacts (CONTACT_6D, LOCAL) at the soles.

Each timed call loops over ``STATES`` seeded states (as a controller would call it), the
report divides by ``evals``; Pinocchio's side includes its Python binding, as fastdyn's
includes its argument checks. Pinocchio needs ``initConstraintDynamics`` once per constraint
set (outside the timing); fastdyn keeps its constraint table on the Data while the same
constraints come back. Derivative rows run the forward call first on both sides, as
Pinocchio's derivatives require (Pinocchio's call reads data filled by the forward call;
fastdyn's computes both). ``*_batch`` rows: ``fd.batch.constraint_dynamics`` /
``impulse_dynamics`` over BATCH states on 2 threads against a Pinocchio loop over the same
states (its calls are serial). No row asserts on time.

``kernel`` rows (role fastdyn-kernel): the raw kernels of kernels/contact/ (no argument
checks) in an ``@numba.njit`` loop over BLOCK states, the BATCH states in turn, one block per
round: as bench/cpp/timing.cpp times Pinocchio's C++ constraintDynamics and constraintDynamics
+ computeConstraintDynamicsDerivatives (over its own 1,000 random states, blocks of 50, min
over blocks; bench/results/cpp.json), which bench/report.py puts beside them. Before timing,
the kernel's results at the first CHECKED states are compared with Pinocchio's.
"""

import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import fastdyn as fd
from bench.ladder import tag
from fastdyn._internal import constraint_sets as _sets
from fastdyn.kernels.contact.constrained_dynamics import constraint_dynamics, work_size
from fastdyn.kernels.contact.constrained_dynamics_derivatives import (
    constraint_dynamics_derivatives, derivatives_work_size)

pin = pytest.importorskip("pinocchio")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import get_pair, random_state  # noqa: E402
from test_constraint_dynamics import _pin_constraint  # noqa: E402

STATES = 50
BATCH = 1000
BLOCK = 50  # states per timed kernel round (bench/cpp/timing.cpp's block)
CHECKED = 20
KERNEL_ALGOS = ("constraint_dynamics", "constraint_dynamics_derivatives")
CASES = {"solo12": (("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"), 3, fd.LOCAL_WORLD_ALIGNED),
         "talos": (("left_sole_link", "right_sole_link"), 6, fd.LOCAL)}
ALGOS = ("constraint_dynamics", "impulse_dynamics", "constraint_dynamics_derivatives",
         "impulse_dynamics_derivatives", "constraint_dynamics_batch", "impulse_dynamics_batch")
_made: dict = {}


def _case(name):
    if name in _made:
        return _made[name]
    model, pm = get_pair(name)
    frames, kind, ref = CASES[name]
    cs = [fd.RigidConstraint(model, kind, f, reference=ref) for f in frames]
    rng = np.random.default_rng(0)
    many = [random_state(pm, rng) for _ in range(BATCH)]
    Q, V = np.array([s[0] for s in many]), np.array([s[1] for s in many])
    TAU = rng.normal(size=(BATCH, model.nv))
    states, taus = many[:STATES], TAU[:STATES]
    cms = [_pin_constraint(pm, c, model.frame_names) for c in cs]
    cds = [cm.createData() for cm in cms]
    pd = pm.createData()
    pin.initConstraintDynamics(pm, pd, cms, cds)
    prox = pin.ProximalSettings(1e-12, 1e-12, 0.0, 1)
    data = model.create_data()

    def fastdyn(algo):
        if algo.endswith("batch"):
            if algo.startswith("constraint"):
                return lambda: fd.batch.constraint_dynamics(model, Q, V, TAU, cs)
            return lambda: fd.batch.impulse_dynamics(model, Q, V, cs)
        call = {"constraint_dynamics":
                lambda q, v, t: fd.constraint_dynamics(model, data, q, v, t, cs),
                "impulse_dynamics": lambda q, v, t: fd.impulse_dynamics(model, data, q, v, cs),
                "constraint_dynamics_derivatives":
                lambda q, v, t: fd.compute_constraint_dynamics_derivatives(model, data, q, v,
                                                                           t, cs),
                "impulse_dynamics_derivatives":
                lambda q, v, t: fd.compute_impulse_dynamics_derivatives(model, data, q, v,
                                                                        cs)}[algo]

        def run():
            for (q, v, _), t in zip(states, taus):
                call(q, v, t)
        return run

    def pinocchio(algo):
        todo = zip(Q, V, TAU) if algo.endswith("batch") else (
            (q, v, t) for (q, v, _), t in zip(states, taus))
        todo = list(todo)

        def run():
            for q, v, t in todo:
                if algo.startswith("constraint"):
                    pin.constraintDynamics(pm, pd, q, v, t, cms, cds, prox)
                    if algo.endswith("derivatives"):
                        pin.computeConstraintDynamicsDerivatives(pm, pd, cms, cds, prox)
                else:
                    pin.impulseDynamics(pm, pd, q, v, cms, cds, 0.0, prox)
                    if algo.endswith("derivatives"):
                        pin.computeImpulseDynamicsDerivatives(pm, pd, cms, cds, 0.0, prox)
        return run

    _made[name] = (model, {"fastdyn": fastdyn, "pinocchio": pinocchio},
                   (cs, Q, V, TAU, pm, pd, cms, cds, prox))
    return _made[name]


@numba.njit
def constraint_dynamics_states(jnt, prm, dof, cst, Q, V, TAU, prox, ws, work, ddq, lam):
    bad = 0
    for r in range(Q.shape[0]):
        bad = max(bad, constraint_dynamics(jnt, prm, dof, cst, Q[r], V[r], TAU[r], prox, ws,
                                           work, ddq, lam)[0])
    return bad


@numba.njit
def constraint_dynamics_derivatives_states(jnt, prm, dof, cst, Q, V, TAU, prox, ws, work, ddq,
                                           lam, ddq_d, lam_d):
    bad = 0
    for r in range(Q.shape[0]):
        bad = max(bad, constraint_dynamics_derivatives(jnt, prm, dof, cst, Q[r], V[r], TAU[r],
                                                       prox, ws, work, ddq, lam, ddq_d,
                                                       lam_d)[0])
    return bad


def _kernel(name, algo):
    """(loop, its arguments for states [a, b)): the raw kernel over seeded states, with the
    constraint table and settings fastdyn's own call builds (mu = 0: one direct solve)."""
    model, _, (cs, Q, V, TAU, *_) = _case(name)
    data = model.create_data()
    table, prox, _, lam = _sets.prepare(model, data, cs, 0.0, 100, 1e-12, 1e-12, "lambda_c")
    m, nv = lam.shape[0], model.nv
    work = np.zeros(max(work_size(nv, m), derivatives_work_size(nv, m, model.njoints)))
    ddq, ddq_d, lam_d = np.zeros(nv), np.zeros((3, nv, nv)), np.zeros((3, m, nv))
    head = (model.jnt, model.prm, model.dof, table)
    tail = (prox, data.ws, work, ddq, lam)
    if algo == "constraint_dynamics":
        return constraint_dynamics_states, lambda a, b: (
            *head, Q[a:b], V[a:b], TAU[a:b], *tail), (ddq, lam)
    return constraint_dynamics_derivatives_states, lambda a, b: (
        *head, Q[a:b], V[a:b], TAU[a:b], *tail, ddq_d, lam_d), (ddq, lam, ddq_d, lam_d)


def _check_kernel(name, algo, loop, args, out):
    """The kernel's results equal Pinocchio's at the first CHECKED states."""
    _, _, (_, Q, V, TAU, pm, pd, cms, cds, prox) = _case(name)
    for k in range(CHECKED):
        assert loop(*args(k, k + 1)) == 0
        pin.constraintDynamics(pm, pd, Q[k], V[k], TAU[k], cms, cds, prox)
        want = [pd.ddq, pd.lambda_c]
        if algo.endswith("derivatives"):
            pin.computeConstraintDynamicsDerivatives(pm, pd, cms, cds, prox)
            want += [np.array([pd.ddq_dq, pd.ddq_dv, pd.ddq_dtau]),
                     np.array([pd.dlambda_dq, pd.dlambda_dv, pd.dlambda_dtau])]
        for got, ref in zip(out, want):
            np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9 * max(1.0, abs(ref).max()))


@pytest.mark.parametrize("side", ("fastdyn", "pinocchio"))
@pytest.mark.parametrize("algo", ALGOS)
@pytest.mark.parametrize("name", list(CASES))
def test_constrained(benchmark, name, algo, side):
    model, sides, _ = _case(name)
    f = sides[side](algo)
    if algo.endswith("batch"):
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    tag(benchmark, "constrained", algo, name, side,
        evals=BATCH if algo.endswith("batch") else STATES, dofs=model.nv)
    f()  # warm-up: compilation, first touch
    benchmark.pedantic(f, rounds=20, iterations=1)


@pytest.mark.parametrize("algo", KERNEL_ALGOS)
@pytest.mark.parametrize("name", list(CASES))
def test_constrained_kernel(benchmark, name, algo):
    """The raw kernel in an @njit loop, BLOCK states a round, checked against Pinocchio first."""
    model = _case(name)[0]
    loop, args, out = _kernel(name, algo)
    _check_kernel(name, algo, loop, args, out)
    blocks = iter(range(10 ** 9))

    def block():
        b = next(blocks) * BLOCK % BATCH
        return args(b, b + BLOCK), {}

    loop(*block()[0])  # warm-up
    tag(benchmark, "kernel", algo, name, "fastdyn", evals=BLOCK, dofs=model.nv)
    benchmark.pedantic(loop, setup=block, rounds=10 * BATCH // BLOCK)
