"""Rows of a batch handed to Python threads as they free up: the rollouts' launcher.

A compiled kernel that releases the GIL (fastdyn's kernels are compiled ``nogil``) runs on
several Python threads at once. ``run_rows(kernel, n, nt, ...)`` calls ``kernel(t, lo, hi,
...)`` on blocks of rows lo..hi-1, thread t (0..nt-1, the index of the workspace it writes)
taking the next block whenever it finishes one: a thread slowed by other work on the machine
takes fewer blocks instead of holding the others back, as a fixed split of the rows would.
Rows are independent and each thread has its own workspace, so every row is bit for bit the
same whichever thread computes it, and the result does not depend on the scheduling.

Why threads and not a ``numba.prange`` kernel: compiling a parallel kernel optimizes the
whole call tree under it again (numba links every callee into the gufunc's module and runs
LLVM's module passes over it), which cost the first contact rollout about 25 s of its
compilation; here only the serial row kernel is compiled. Nor is there a threading layer to
trip over: no OpenMP pool that hangs in a forked child, no workqueue that aborts on
concurrent use (fastdyn/_internal/parallel.py describes those hazards for the other
batches). The calling thread works too, as thread 0.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

from numba.core.dispatcher import Dispatcher

BLOCKS_PER_THREAD = 8  # blocks per thread in a call: balance against ~20 us a block costs

_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    with _pools_lock:
        pool = _pools.get(workers)
        if pool is None:
            pool = _pools[workers] = ThreadPoolExecutor(workers, thread_name_prefix="fastdyn")
        return pool


def _forget_pools() -> None:
    _pools.clear()  # a forked child has none of its parent's threads


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def run_rows(kernel, n: int, nt: int, *args, block: int | None = None) -> None:
    """``kernel(t, lo, hi, *args)`` over rows 0..n-1 on ``nt`` threads (this one included),
    in blocks of ``block`` rows (default: about BLOCKS_PER_THREAD blocks a thread) handed out
    as threads free up. Returns when every block is done, also when this thread is
    interrupted (Ctrl-C: raised after the other threads finished their blocks) or a kernel
    call raised (the first exception is raised)."""
    if nt <= 1 or n <= 1:
        kernel(0, 0, n, *args)
        return
    if isinstance(kernel, Dispatcher):
        # no rows, on this thread (a few microseconds): a kernel that must compile or load
        # does it here, where the compile notice (compile_notice.py) finds the user's call on
        # the stack, not on a pool thread
        kernel(0, 0, 0, *args)
    size = block or max(1, n // (BLOCKS_PER_THREAD * nt))
    starts = iter(range(0, n, size))
    lock = threading.Lock()
    stop = threading.Event()

    def work(t: int) -> None:
        while not stop.is_set():
            with lock:
                lo = next(starts, None)
            if lo is None:
                return
            try:
                kernel(t, lo, min(n, lo + size), *args)
            except BaseException:
                stop.set()  # the other threads take no new block either
                raise

    futures = [_pool(nt - 1).submit(work, t) for t in range(1, nt)]
    try:
        work(0)
    finally:
        stop.set()  # on an exception here: no new blocks; the running ones end
        wait(futures)
    for f in futures:
        f.result()  # a worker's exception, if any
