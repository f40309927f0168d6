"""What ``import fastdyn`` does about the garbage collector, and why.

Importing numba and our kernel modules creates ~50,000 gc-tracked objects (typing templates,
registries, dispatchers) that live as long as the process. Left to the collector they cost a
Python process three times (UR5, warm disk cache, this project's 2-core machine):

- during the import, generation-2 collections triggered by the allocation count: ~50 ms;
- at every later full collection (``gc.collect()``, or the automatic ones in a control loop):
  ~25 ms of traversal each, a latency spike in a kHz loop;
- at interpreter exit, where CPython's finalization collects them, and disposes numba's LLVM
  objects one by one: ~200 ms, which was a third of ``python -c "import fastdyn; ..."``.

So the import runs with the collector paused, warms numba's typing and target registries (the
~100 ms every first kernel call pays anyway; done here so those objects are frozen too) and
then ``gc.freeze()``s: everything alive at that point moves to the permanent generation, which
collections never traverse. The collector's enabled state is restored as it was found.

The cost: objects that were alive before ``import fastdyn`` and later become unreachable
*cyclic* garbage are never collected, and their finalizers do not run at exit (acyclic ones are
freed by reference counting as usual). Import fastdyn first, or set ``FASTDYN_NO_GC_FREEZE=1``
to skip the freeze (the paused collector and the warm-up stay; they change nothing observable).
"""

from __future__ import annotations

import gc
import os


def warm_numba() -> None:
    """Load numba's typing and lowering registries now rather than inside the first call."""
    try:
        from numba.core.registry import cpu_target
        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()
    except (ImportError, AttributeError):  # numba internals moved: the first call does it
        pass


def settle(gc_was_enabled: bool) -> None:
    if os.environ.get("FASTDYN_NO_GC_FREEZE") != "1":
        gc.freeze()
    if gc_was_enabled:
        gc.enable()
