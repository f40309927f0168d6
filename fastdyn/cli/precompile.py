"""Compile kernels ahead of their first use, on every core: ``fastdyn compile`` and the demo.

numba compiles one function at a time in a process (it holds a global compiler lock), so a
program whose first run needs batch RNEA, batch ABA and batch rollouts pays the sum of their
compile times (the demo: about 20 s on this project's 2-core machine). Compiled code is the same
for every model (joint types are dispatched at run time), and numba's disk cache writes each
entry to a temporary file and renames it into place, so several processes can compile different
kernels at once into one cache. ``warm`` does that: it compiles part of the list in this
process while ``jobs - 1`` helper processes (``python -m fastdyn.cli.precompile``) compile the rest,
then loads theirs from the disk cache.

Helpers start only when compiling is actually happening: if this process's first kernel has not
loaded within ``DETECT`` seconds, the cache is cold and the helpers are launched; with a warm cache
``warm`` costs what the loads cost (about 10 ms a kernel) and starts no process. A helper that
fails or is missing leaves its kernels to this process, which compiles them itself: the result
is never worse than compiling serially.

Worker pools: run ``fastdyn compile`` once where the workers' cache lives (an image build, a
shared home directory), and every worker then loads machine code from the cache; see
fastdyn/docs/processes-and-caches.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

from .compile_groups import GROUPS, first_call

DETECT = 0.5  # s: a kernel load from the disk cache takes ~10 ms; a compile takes seconds

# group -> (rough compile time on the 2-core machine [s], the public calls it makes warm):
# fastdyn/cli/compile_groups.py, where each group's first calls are.
TASKS: dict[str, tuple[float, str]] = {
    name: (seconds, ", ".join(covers)) for name, (seconds, covers) in GROUPS.items()}
DEMO = ("batch.rnea", "batch.aba", "batch.simulate", "mechanical_energy")


def _first_call(name: str, model) -> None:
    """Make ``name``'s first call on a small input (what compiles it or loads it)."""
    first_call(name, model)


def shares(names: Sequence[str], jobs: int) -> list[list[str]]:
    """``names`` split into ``jobs`` lists of about equal compile time (longest first, each
    to the least loaded list); the first list is this process's."""
    for n in names:
        if n not in TASKS:
            raise ValueError(f"unknown kernel group {n!r}; known: {', '.join(TASKS)}")
    lists: list[list[str]] = [[] for _ in range(max(1, jobs))]
    load = [0.0] * len(lists)
    for n in sorted(dict.fromkeys(names), key=lambda n: -TASKS[n][0]):
        k = load.index(min(load))
        lists[k].append(n)
        load[k] += TASKS[n][0]
    return [s for s in lists if s] or [[]]


def _can_share() -> bool:
    # Without a disk cache a helper's work cannot reach this process; numba's pure-Python mode
    # has nothing to compile.
    from numba import config

    from ..kernels import _jit

    return _jit.CACHE and not config.DISABLE_JIT


def _helper(names: list[str]) -> subprocess.Popen:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env["NUMBA_NUM_THREADS"] = env.get("NUMBA_NUM_THREADS", str(os.cpu_count() or 1))
    return subprocess.Popen([sys.executable, "-m", "fastdyn.cli.precompile", *names], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def warm(names: Sequence[str] = DEMO, model=None, jobs: int | None = None,
         on_compile: Callable[[int], None] | None = None) -> dict[str, float]:
    """Make the first call of each kernel group in ``names`` (see ``TASKS``), compiling cold
    ones on ``jobs`` processes (default: the CPU count); returns each group's seconds in this
    process. ``on_compile(jobs)`` is called once, from a timer thread, when compiling starts
    (the demo prints its progress line there). The kernels are the same for every model, so
    ``model`` only chooses what the calls run on (default: the bundled quadruped)."""
    from .. import models

    model = model if model is not None else models.load("quadruped")
    jobs = max(1, int(jobs if jobs is not None else (os.cpu_count() or 1)))
    parts = shares(names, jobs if _can_share() else 1)
    mine, theirs = parts[0], [p for p in parts[1:] if p]
    helpers: list[subprocess.Popen] = []
    lock = threading.Lock()

    def cold() -> None:
        with lock:
            if on_compile is not None:
                on_compile(1 + len(theirs))
            for part in theirs:
                try:
                    helpers.append(_helper(part))
                except OSError:  # no process to be had: this process compiles them
                    pass

    timer = threading.Timer(DETECT, cold)
    timer.daemon = True
    seconds: dict[str, float] = {}
    timer.start()
    try:
        for n in mine:
            t = time.perf_counter()
            _first_call(n, model)
            seconds[n] = time.perf_counter() - t
        timer.cancel()
        with lock:  # a helper being launched is in the list before we wait
            for h in helpers:
                h.wait()
        for part in theirs:
            for n in part:
                t = time.perf_counter()
                _first_call(n, model)
                seconds[n] = time.perf_counter() - t
    finally:
        timer.cancel()
        for h in helpers:
            if h.poll() is None:  # interrupted: do not leave compilers running
                h.kill()
                h.wait()
    return seconds


def _main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m fastdyn.cli.precompile",
                                description="compile these kernel groups into the disk cache")
    p.add_argument("names", nargs="+", choices=list(TASKS))
    a = p.parse_args(argv)
    from .. import models

    model = models.load("quadruped")
    for n in a.names:
        _first_call(n, model)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
