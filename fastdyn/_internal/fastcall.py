"""Call a guard kernel's compiled entry point directly, skipping numba's per-call type dispatch.

numba's dispatcher types every argument on every call: ~300 ns for our kernels' argument lists,
~270 ns of it for the joint record array (measured on UR5 RNEA: 690 ns through the dispatcher,
390 ns through the entry point, the kernel itself ~300 ns). So the first call compiles (or loads
from the disk cache) one signature, and every call after it goes straight to its entry point.

The state vectors (q, v, a, tau) are typed as any-layout 1-D float64 arrays, so the object API
only has to check type, dtype, ndim and length in Python (~60 ns a vector, against ~150 ns for
shape and strides too): a strided view is read through its strides. The entry point unboxes
its arguments without checking ndim or dtype (numba compares item sizes only; an array with
more dimensions than declared overruns the native struct), which is why only the object API,
which has checked them, calls it.

``entry_point`` and ``overloads`` are numba internals: pyproject.toml pins numba to the range
tests/test_numba_internals.py has passed on, and that test fails, naming what changed, if a numba
release moves them; at run time a missing entry point falls back to the dispatcher.
"""

from __future__ import annotations

import numba
from numba.core.dispatcher import Dispatcher

ANY_VECTOR = numba.types.Array(numba.types.float64, 1, "A")
ANY_MATRIX = numba.types.Array(numba.types.float64, 2, "A")


class Kernel:
    """``kernel.call(*args)``: compiles the signature of the first call's arguments, with the
    positions in ``vectors`` as any-layout float64 vectors (and in ``matrices`` as any-layout
    float64 matrices: their rows are then any-layout vectors, the types of the single calls'
    vectors, so a kernel that loops over them calls the single call's compiled code), then is
    rebound to its entry point (no Python frame of ours stays in between)."""

    __slots__ = ("dispatcher", "vectors", "matrices", "call")

    def __init__(self, dispatcher: Dispatcher, vectors: tuple[int, ...] = (),
                 matrices: tuple[int, ...] = ()):
        self.dispatcher = dispatcher
        self.vectors = vectors
        self.matrices = matrices
        self.call = self._first

    def _first(self, *args):
        types = [ANY_VECTOR if k in self.vectors else ANY_MATRIX if k in self.matrices
                 else numba.typeof(x) for k, x in enumerate(args)]
        sig = tuple(types)
        self.dispatcher.compile(sig)
        try:
            self.call = self.dispatcher.overloads[sig].entry_point
        except (AttributeError, KeyError, TypeError):  # a numba outside the tested range
            self.call = self.dispatcher  # ~300 ns slower a call, as correct
        return self.call(*args)
