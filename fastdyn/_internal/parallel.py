"""How fastdyn launches its parallel kernels: safe under Python threads and under fork.

numba runs a parallel region on one of three threading layers (``tbb``, ``omp``,
``workqueue``: the first that loads, or ``NUMBA_THREADING_LAYER``). Two of them have a hazard
that a library called from worker pools meets (numba's documentation, "The Threading
Layers"):

- ``workqueue`` (numba's fallback where neither TBB nor OpenMP is installed) is not
  thread-safe: two Python threads entering a parallel region at once abort the process
  ("Concurrent access has been detected"). fastdyn holds one lock around its launches on
  that layer, and around the first launch, before the layer is known.
- GNU OpenMP (numba's ``omp`` layer in the Linux wheels) is not fork-safe: a process
  forked after it ran a parallel region hangs in its next one (multiprocessing's "fork"
  start method, Python's default on Linux before 3.14). In such a child fastdyn runs its
  batches on one thread, through the serial chunk kernel, and warns once. The "spawn" and
  "forkserver" start methods have no such child and keep both cores.
"""

from __future__ import annotations

import os
import threading
import warnings

import numba
from ..errors import ForkedSerialWarning


_lock = threading.Lock()
_layer: str | None = None  # numba's threading layer, once a launch has chosen it
_serial = False  # a child forked after its parent ran GNU OpenMP threads
_warned = False


def _gnu_openmp() -> bool:
    try:
        from numba.np.ufunc import omppool
        return omppool.openmp_vendor == "GNU"
    except (ImportError, AttributeError):  # cannot tell: assume the unsafe one
        return True


def _after_fork_in_child() -> None:
    global _lock, _serial
    _lock = threading.Lock()  # one held by another of the parent's threads is never released
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel region ran before the fork: the child starts afresh
        return
    _serial = _serial or (layer == "omp" and _gnu_openmp())


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def launch(batch, chunk, *args) -> None:
    """``batch(*args)`` on numba's threads, or ``chunk(0, 1, *args)`` (the same rows, one
    thread) in a process where a parallel region would hang."""
    global _layer, _warned
    if _serial:
        if not _warned:
            _warned = True
            warnings.warn("fastdyn.batch: this process was forked after its parent ran GNU "
                          "OpenMP threads, where a parallel region would hang; batches run on "
                          "one thread here. Start workers with the 'spawn' or 'forkserver' "
                          "method to keep them parallel.", ForkedSerialWarning, stacklevel=3)
        chunk(0, 1, *args)
    elif _layer is None or _layer == "workqueue":
        with _lock:
            batch(*args)
            _layer = numba.threading_layer()
    else:
        batch(*args)
