"""Two programs timed in alternating rounds, so that a slow spell of the machine (another
process, the host of a virtual machine) falls on both sides and their ratio means the same
from run to run.

Timed one after the other (MuJoCo's best of five, then pytest-benchmark's rounds of fastdyn),
bench/test_scene_geoms.py's MuJoCo time of one scene moved from 36.9 to 29.4 us a step
between two runs an hour apart on a machine with nothing else running (the same MuJoCo, the
same scene), and the ratio with it."""

from __future__ import annotations

import math
import time
from typing import Callable


def alternate(first: Callable[[], object], second: Callable[[], object],
              rounds: int = 7) -> tuple[float, float]:
    """The best time in seconds of ``first()`` and of ``second()`` over ``rounds`` rounds,
    each round timing ``first`` then ``second`` once."""
    best = [math.inf, math.inf]
    for _ in range(rounds):
        for k, call in enumerate((first, second)):
            t = time.perf_counter()
            call()
            best[k] = min(best[k], time.perf_counter() - t)
    return best[0], best[1]
