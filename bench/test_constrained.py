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
"""

import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import fastdyn as fd
from bench.ladder import tag

pin = pytest.importorskip("pinocchio")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import get_pair, random_state  # noqa: E402
from test_constraint_dynamics import _pin_constraint  # noqa: E402

STATES = 50
BATCH = 1000
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

    _made[name] = (model, {"fastdyn": fastdyn, "pinocchio": pinocchio})
    return _made[name]


@pytest.mark.parametrize("side", ("fastdyn", "pinocchio"))
@pytest.mark.parametrize("algo", ALGOS)
@pytest.mark.parametrize("name", list(CASES))
def test_constrained(benchmark, name, algo, side):
    model, sides = _case(name)
    f = sides[side](algo)
    if algo.endswith("batch"):
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    tag(benchmark, "constrained", algo, name, side,
        evals=BATCH if algo.endswith("batch") else STATES, dofs=model.nv)
    f()  # warm-up: compilation, first touch
    benchmark.pedantic(f, rounds=20, iterations=1)
