"""One tick of a 1 kHz computed-torque loop written in plain Python (bench/tick_loops.py):
Pinocchio's calls, fastdyn's single calls, fastdyn's fused per-tick calls
(fd.compute_all_terms + fd.forward_step, the law in NumPy), and the law compiled
(fd.computed_torque + fd.forward_step). Each timed call runs TICKS ticks from the same
initial state (time per tick = time / TICKS); the four give the same trajectory
(tests/test_all_terms.py). Target: a fastdyn tick at <= 0.7x Pinocchio's time per tick."""

import pytest

from bench.ladder import tag
from bench.tick_loops import Loop, run

TICKS = 100
ROBOTS = ("ur5", "solo12")
ROWS = {"pinocchio": "pinocchio_tick", "fastdyn": "fastdyn_tick",
        "fastdyn-fused": "fused_tick", "fastdyn-compiled": "compiled_tick"}

_LOOPS: dict[str, Loop] = {}


@pytest.fixture(params=ROBOTS, scope="module")
def loop(request):
    if request.param not in _LOOPS:
        _LOOPS[request.param] = Loop(request.param)
    return _LOOPS[request.param]


@pytest.mark.parametrize("role", list(ROWS))
def test_tick(benchmark, loop, role):
    tick = getattr(loop, ROWS[role])()
    q0, v0 = loop.q0.copy(), loop.v0.copy()
    run(tick, q0, v0, TICKS)  # compile (or load) and first-touch before timing
    tag(benchmark, "tick", "tick", loop.name, role, evals=TICKS, nv=loop.nv,
        nq=loop.nq, njoints=loop.model.njoints)
    benchmark(run, tick, q0, v0, TICKS)
