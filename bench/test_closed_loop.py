"""Closed-loop rollouts against open-loop ones: the price of a controller in the loop.

The issue's target: rollouts under a user's ``@numba.njit`` policy cost <= 1.1x the open-loop
ones. Scene: the bundled quadruped standing on its four foot spheres (bench/test_simulator.py's
"standing" scene, fastdyn side only), 64 rollouts x 1,000 steps, dt = 1 ms, 2 threads.
- "fastdyn-policy": ``rollout(policy=pd, policy_args=(kp, kd, q_ref))`` with ``pd`` a user's
  njit PD law on the 12 leg joints (tests/test_simulator.py's ``user_pd``);
- "fastdyn-builtin": the built-in PD, ``rollout(kp=, kd=, q_ref=)``;
- "fastdyn-open-loop": ``rollout(torques=T)`` replaying the torques the policy applied, so
  that the three batches run the same trajectories (checked before timing: bit for bit, the
  built-in PD to 1e-9, its own arithmetic for the same law).
Each timed call does all 64,000 steps and keeps the final state only."""

from __future__ import annotations

import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from bench.ladder import tag
from bench.test_simulator import contact_scene

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_simulator import standing_quadruped, user_pd  # noqa: E402

THREADS, N, T = 2, 64, 1000


@pytest.fixture(scope="module")
def runs():
    if numba.config.NUMBA_NUM_THREADS < THREADS:
        pytest.skip(f"numba has {numba.config.NUMBA_NUM_THREADS} thread(s)")
    before = numba.get_num_threads()
    numba.set_num_threads(THREADS)
    scene, (kp, kd) = contact_scene()
    model, q0 = scene.model, standing_quadruped()[1]
    rng = np.random.default_rng(2)
    Q0 = np.tile(q0, (N, 1))
    Q0[:, 7:] += rng.uniform(-0.05, 0.05, (N, 12))
    V0 = np.zeros((N, model.nv))
    args = (kp, kd, q0)
    ref = scene.rollout(Q0, V0, T, policy=user_pd, policy_args=args, record=("tau",))
    table = np.ascontiguousarray(ref.tau)
    runs = {
        "fastdyn-policy": lambda: scene.rollout(Q0, V0, T, policy=user_pd, policy_args=args,
                                                record=()),
        "fastdyn-builtin": lambda: scene.rollout(Q0, V0, T, kp=kp, kd=kd, q_ref=q0, record=()),
        "fastdyn-open-loop": lambda: scene.rollout(Q0, V0, T, torques=table, record=()),
    }
    for role, run in runs.items():  # the same trajectories (and the warm-up)
        out = run()
        tol = 1e-9 if role == "fastdyn-builtin" else 0.0  # its own arithmetic for the same law
        if not np.abs(out.final_q - ref.final_q).max() <= tol:
            raise RuntimeError(f"{role}: the batch does not end where the policy's does "
                               f"({np.abs(out.final_q - ref.final_q).max():.3g} apart)")
    yield runs, model.nv
    numba.set_num_threads(before)


@pytest.mark.parametrize("role", ["fastdyn-policy", "fastdyn-builtin", "fastdyn-open-loop"])
def test_closed_loop(benchmark, runs, role):
    run, nv = runs[0][role], runs[1]
    tag(benchmark, "closed-loop", "quadruped-standing", "quadruped", role, evals=N * T,
        variant=f"N{N}xT{T}-{THREADS}t", dofs=nv, threads=THREADS)
    benchmark.pedantic(run, rounds=7, iterations=1)
