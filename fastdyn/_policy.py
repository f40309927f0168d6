"""A rollout's controller as a first-class function, so the compiled rollout loop is cached.

The rollout loop (kernels/algorithms/rollout.py) calls ``policy(r, k, t, q, v, args, tau)``.
Handed the @njit dispatcher itself, numba types the argument by the dispatcher's identity, a
key no other process can match: the loop's machine code was saved at every run and never
loaded (about 12 s of compilation per process for the quadruped scene). Handed the same
function compiled as a C callback of the exact signature, numba types it by that signature
(numba's "first-class function" type), and the loop is cached like any kernel: one loop per
signature, shared by every policy whose ``args`` have the same types. The policy itself is
cached beside its source when it was jitted with ``cache=True`` (fastdyn's own PD controller
is), under the rules of fastdyn's kernels (fastdyn.kernels._jit). The loop calls it through a
function pointer, so it is not inlined: a few nanoseconds against a time step of microseconds.

A policy runs as a C callback: an exception raised inside it cannot reach the caller (numba
prints it); policies compute, they should not raise.
"""

from __future__ import annotations

import numba
from numba.core import types
from numba.core.caching import NullCache
from numba.core.ccallback import CFunc

from .kernels._jit import CACHE, _FunctionCache

_MADE: dict = {}  # (dispatcher, signature) -> compiled callback, for this process


def compiled(policy, args, q, v, tau) -> CFunc:
    """``policy`` (a @numba.njit dispatcher) compiled for arguments like (r, k, t, q, v,
    args, tau), with the options it was jitted with."""
    sig = types.void(types.int64, types.int64, types.float64, numba.typeof(q),
                     numba.typeof(v), numba.typeof(args), numba.typeof(tau))
    return callback(policy, sig)


def callback(function, sig) -> CFunc:
    """``function`` (a @numba.njit dispatcher) compiled as a C callback of signature ``sig``,
    with the options it was jitted with, its machine code cached as the dispatcher's is."""
    key = (function, sig)
    made = _MADE.get(key)
    if made is None:
        options = {k: x for k, x in function.targetoptions.items() if k != "parallel"}
        made = CFunc(function.py_func, (sig.args, sig.return_type), locals={}, options=options)
        if CACHE and not isinstance(getattr(function, "_cache", None), NullCache):
            try:
                made._cache = _FunctionCache(function.py_func)
            except (OSError, RuntimeError):  # no file (a notebook, python -c): compile only
                pass
        made.compile()
        _MADE[key] = made
    return made
