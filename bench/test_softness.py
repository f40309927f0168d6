"""Soft contacts' cost: the quadruped scenes of bench/test_simulator.py (standing and dropped,
256 rollouts x 2,000 steps, dt = 1 ms, 2 threads) with MuJoCo's default softness,
``Scene(solref=(0.02, 1))``, next to that file's rigid fastdyn and MuJoCo rows (run both files
in one session to compare): the contact model of the MuJoCo side, solved by fastdyn's PGS.
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


@pytest.mark.parametrize("which, tol", [("standing", 1e-3), ("dropped", 2e-2)])
def test_contacts_soft(benchmark, _pool, which, tol):
    pool = _pool
    case = case_for(which, pool)
    model, _, feet, _ = standing_quadruped()
    scene = fd.Scene(model, dt=DT, mu=MU, solref=fd.Scene.MUJOCO_SOLREF)
    for f in feet:
        scene.add_sphere(f, RADIUS)
    out = scene.rollout(case.Q0[0], case.V0[0], case.steps, record=(), **case.gains)
    q, _ = case.twin.from_mujoco(*case.twin.qpos_qvel(case.run_mujoco(pool, slice(0, 1))[0, -1]))
    agreement = float(out.final_q[2] - q[2])
    assert abs(agreement) < tol, (out.final_q[2], q[2])
    n = CONTACT_N * CONTACT_T
    tag(benchmark, "simulator", f"quadruped-{which}", "quadruped", "fastdyn-soft", evals=n,
        variant=f"N{CONTACT_N}xT{CONTACT_T}-{THREADS}t", dofs=model.nv, threads=THREADS,
        agreement=agreement, mujoco=mujoco.__version__)
    _time(benchmark, lambda: scene.rollout(case.Q0, case.V0, case.steps, record=(),
                                           **case.gains), 3, n)
    assert np.isfinite(out.final_q).all()
