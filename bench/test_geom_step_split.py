"""Where a geom scene's step goes: microseconds per step of the 10-box stack of
bench/test_scene_geoms.py (free boxes on a plane, dt = 1 ms, soft contacts as MuJoCo's
defaults, PGS), one thread, split into the phases of kernels/contact/time_step.py as
bench/test_step_split.py splits the quadruped's (the same replay and cumulative prefixes):
  dynamics   CRBA + RNEA + tree-sparse factorization -> v_free (free_velocity)
  detect     the geom contacts' broad and narrow phase (geom_detect.py)
  rows       the rest of the constraint rows (geom_rows.py: frames, Jacobians, targets)
  delassus   G = J M^-1 J^T + R (delassus.py)
  solve      PGS with the active-set start (step_solve)
  rest       the whole time_step minus the above.
The states: one rollout of STEPS steps from the stack at rest (its first steps settle the
boxes onto each other, the rest stands still; nv = 60, 40 contacts, 120 rows).

Measured on this machine, one thread, microseconds per step (bench/results/
test_geom_step_split.json; a phase is a difference of prefixes timed apart, so it takes the
machine's noise: the first two columns were run at load ~2.5 on 2 cores, within ~1.5x; the
last on a quiet machine):
                0f905b6    293c5a9    86eed65
  dynamics        4.6        5.8        6.4
  detect          4.5        5.1        5.8
  rows            7.6        6.2       10.2
  delassus      100         31.6       14.7
  solve         204         41.6       35.9
  rest           37          3.7        4.9
  step          358         94         77.9
0f905b6: a 120 x 120 dense Delassus matrix entry by entry over the dofs up to the lower row's
last, and a dense Cholesky of it on the active set each step. 293c5a9: rows on bodies apart
share nothing, the active set's Cholesky within the envelope of G instead of 120^3. 86eed65:
the Delassus matrix's blocks in register tiles on each block's own dofs, codes from the
contacts' bodies; the envelope Cholesky left-looking, two rows by four columns at a time.
Under perf (bench/perf_map.py), a whole rollout step at 4df94ee (the new Delassus matrix, the
old Cholesky; 124 us under the profiler): the active set's envelope Cholesky (once a step)
and its solves 41%, PGS 13%, the Delassus matrix 18%, the rows and the narrow phase 12%."""

from __future__ import annotations

import numpy as np
import pytest

from bench.ladder import tag
from bench.test_step_split import DETECT, Split, prefix

pytest.importorskip("mujoco")
from bench.test_scene_geoms import NBOX, stack  # noqa: E402,F401  (the fixture)

STEPS = 1000
PHASES = {"loop": 0, "dynamics": 1, "detect": DETECT, "rows": 2, "delassus": 3, "solve": 4,
          "step": 5}  # cumulative prefixes, in this order
_SPLIT: list = []


@pytest.mark.parametrize("phase", PHASES)
def test_geom_step_split(benchmark, stack, phase):
    scene, q0, _ = stack
    if not _SPLIT:
        _SPLIT.append(Split("box-stack", scene, q0[None], np.zeros((1, scene.model.nv)),
                            STEPS, n=1))
    s = _SPLIT[0]
    upto = PHASES[phase]
    sweeps = prefix(upto, *s.args)  # warm-up: compilation, first touch
    tag(benchmark, "step-split", "box-stack", f"boxes{NBOX}", phase, evals=s.nstates,
        variant="1t", sweeps=sweeps / s.nstates)
    benchmark.pedantic(prefix, (upto, *s.args), rounds=7, iterations=1)
