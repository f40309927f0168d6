"""Fixtures for the benchmark suites: ``robot`` walks the model ladder (bench/ladder.py).

Benchmarks run only when asked: ``python bench/report.py``, or ``pytest bench -n 0`` (one
process: the project's pytest options spread tests over every core; plain
``pytest`` collects tests/ only; ``pytest bench --benchmark-disable`` runs each once, untimed,
as a test). Each
test makes its warm-up call (JIT compilation, first-touch of buffers) before handing the
callable to ``benchmark``: compile time is measured in test_startup.py only. No benchmark
asserts on time.
"""

import importlib.util

import numba
import pytest

if importlib.util.find_spec("pinocchio") is None:  # every suite compares against Pinocchio
    collect_ignore_glob = ["test_*.py"]
    LADDER = ()
else:
    from bench.ladder import LADDER, robot as _robot


THREADS = (1, 2)


@pytest.fixture(params=THREADS, ids=lambda t: f"{t}t")
def threads(request):
    """numba's thread count for one benchmark (1, then 2), restored afterwards."""
    if request.param > numba.config.NUMBA_NUM_THREADS:
        pytest.skip(f"numba has {numba.config.NUMBA_NUM_THREADS} thread(s)")
    numba.set_num_threads(request.param)
    yield request.param
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@pytest.fixture(params=LADDER, scope="session")
def robot(request):
    """A rung of the ladder (bench.ladder.Robot), built once per session."""
    return _robot(request.param)
