"""Soft contacts' cost: the quadruped scenes of bench/test_simulator.py (standing and dropped,
256 rollouts x 2,000 steps, dt = 1 ms, 2 threads) with MuJoCo's default softness,
``Scene(solref=(0.02, 1))``, next to that file's rigid fastdyn and MuJoCo rows (run both files
in one session to compare): the contact model of the MuJoCo side, solved by fastdyn's PGS, on
the generic kernels and with the model's generated ones (``generated=``, as that file's
"fastdyn-generated" rows).
Before timing, one rollout must end near MuJoCo's base height: within 1 mm standing (the same
soft model on both sides; the rigid scene stands ~1.4 mm higher), within 2 cm dropped (as
test_simulator.py's rigid check: the landing differs)."""

from __future__ import annotations

import numpy as np
import pytest

import fastdyn as fd
from bench.ladder import tag
from bench.test_simulator import (CONTACT_N, CONTACT_T, DT, MU, RADIUS, THREADS, _time,
                                  case_for, mujoco)
from bench.test_simulator import pool as _pool, two_threads as _two_threads
from test_simulator import standing_quadruped

_FIXTURES = (_pool, _two_threads)  # test_simulator's: its MuJoCo pool, 2 numba threads


@pytest.mark.parametrize("kernels", ["generic", "generated"])
@pytest.mark.parametrize("which, tol", [("standing", 1e-3), ("dropped", 2e-2)])
def test_contacts_soft(benchmark, _pool, which, tol, kernels):
    """``kernels="generated"``: the same soft rollouts with ``generated=`` the model's generated
    kernels (bench/test_simulator.py's, codegen/free_velocity.py in every step); their final
    states must equal the generic rollouts' to 1e-4 (round-off grown over 2,000 steps)."""
    pool = _pool
    case = case_for(which, pool)
    model, feet = case.scene.model, standing_quadruped()[2]  # (the model gen was made for)
    scene = fd.Scene(model, dt=DT, mu=MU, solref=fd.Scene.MUJOCO_SOLREF)
    for f in feet:
        scene.add_sphere(f, RADIUS)
    gen = None
    if kernels == "generated":
        if getattr(case, "gen", None) is None:
            case.run_generated()  # generates, compiles and checks case.gen on the rigid scene
        gen = case.gen
    out = scene.rollout(case.Q0[0], case.V0[0], case.steps, record=(), **case.gains)
    q, _ = case.twin.from_mujoco(*case.twin.qpos_qvel(case.run_mujoco(pool, slice(0, 1))[0, -1]))
    agreement = float(out.final_q[2] - q[2])
    assert abs(agreement) < tol, (out.final_q[2], q[2])
    if gen is not None:
        a = scene.rollout(case.Q0, case.V0, case.steps, record=(), **case.gains)
        b = scene.rollout(case.Q0, case.V0, case.steps, record=(), generated=gen, **case.gains)
        # round-off, grown over 2,000 steps of soft feet creeping (1.6e-5 m measured standing)
        assert np.abs(a.final_q - b.final_q).max() < 1e-4
    n = CONTACT_N * CONTACT_T
    side = "fastdyn-soft" if gen is None else "fastdyn-soft-generated"
    tag(benchmark, "simulator", f"quadruped-{which}", "quadruped", side, evals=n,
        variant=f"N{CONTACT_N}xT{CONTACT_T}-{THREADS}t", dofs=model.nv, threads=THREADS,
        agreement=agreement, mujoco=mujoco.__version__)
    _time(benchmark, lambda: scene.rollout(case.Q0, case.V0, case.steps, record=(),
                                           generated=gen, **case.gains), 3, n)
    assert np.isfinite(out.final_q).all()
