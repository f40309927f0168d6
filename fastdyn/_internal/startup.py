"""What ``import fastdyn`` does about the garbage collector, and why.

Importing numba and our kernel modules creates ~50,000 gc-tracked objects (typing templates,
registries, dispatchers) that live as long as the process. Left to the collector they cost a
Python process three times (UR5, warm disk cache, this project's 2-core machine):

- during the import, generation-2 collections triggered by the allocation count: ~50 ms;
- at every later full collection (``gc.collect()``, or the automatic ones in a control loop):
  ~25 ms of traversal each, a latency spike in a kHz loop;
- at interpreter exit, where CPython's finalization collects them, and disposes numba's LLVM
  objects one by one: ~200 ms, which was a third of ``python -c "import fastdyn; ..."``.

So the import runs with the collector paused (its enabled state is restored as it was found)
and warms numba's typing and target registries (the ~100 ms every first kernel call pays anyway).

It does not ``gc.freeze()`` at import, which earlier versions did: a freeze moves *every* live
object to the permanent generation, the host application's too, and an object of the host's
that later became unreachable cyclic garbage would never be collected. Instead, at interpreter
exit (an ``atexit`` hook, run before CPython's final collection) it collects once, so the garbage
that exists then is finalized as usual, and freezes what is still alive: CPython's own last
collection then skips numba's objects, which saves ~0.15 s at the end of every process
(measured with ``python -c "import fastdyn"``: 0.52 s -> 0.43 s wall, this project's 2-core
machine). What the freeze then skips is only what is still reachable at exit, whose finalizers
Python never promises to run ("It is not guaranteed that __del__() methods are called for
objects that still exist when the interpreter exits": the Python reference, "Data model",
``object.__del__``). ``FASTDYN_NO_GC_FREEZE=1`` skips that hook.

A kHz control loop that wants no collector pause from numba's ~50,000 objects calls
``gc.freeze()`` itself once its own set-up is done (after ``import fastdyn``, before the loop):
then the permanent generation holds what the application chose.
"""

from __future__ import annotations

import atexit
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


def _freeze_at_exit() -> None:
    gc.collect()  # what is garbage now is finalized as it would have been without us
    gc.freeze()


def settle(gc_was_enabled: bool) -> None:
    if os.environ.get("FASTDYN_NO_GC_FREEZE") != "1":
        atexit.register(_freeze_at_exit)
    if gc_was_enabled:
        gc.enable()
