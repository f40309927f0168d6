"""Call a kernel's compiled entry point directly, skipping numba's per-call type dispatch.

numba's dispatcher types every argument on every call: ~300 ns for our kernels' argument lists,
~270 ns of it for the joint record array (measured on UR5 RNEA: 690 ns through the dispatcher,
390 ns through the entry point, the kernel itself ~300 ns). The object API has already checked
that every array is C-contiguous float64 of the right shape, so after the first call (which
goes through the dispatcher and compiles or loads the code) the argument types are fixed and
the entry point can be called directly. The entry point still unboxes its arguments and
refuses a wrong dtype; it does NOT check layout or ndim, which is why only the checked object
API uses this, never user code.
"""

from __future__ import annotations

from numba.core.dispatcher import Dispatcher


class Kernel:
    """``kernel.call(*args)``: through the dispatcher the first time, then straight to the
    compiled entry point (``call`` is rebound; no Python frame of ours stays in between)."""

    __slots__ = ("dispatcher", "call")

    def __init__(self, dispatcher: Dispatcher):
        self.dispatcher = dispatcher
        self.call = self._first

    def _first(self, *args):
        out = self.dispatcher(*args)
        types = tuple(self.dispatcher.typeof_pyval(a) for a in args)
        overload = self.dispatcher.overloads.get(types)
        if overload is not None:
            self.call = overload.entry_point
        return out
