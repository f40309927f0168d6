"""A rollout's controller as a first-class function, so the compiled rollout loop is cached.

The rollout loop (kernels/algorithms/rollout.py) calls ``policy(r, k, t, q, v, args, tau)``.
Handed the @njit dispatcher itself, numba types the argument by the dispatcher's identity, a
key no other process can match: the loop's machine code was saved at every run and never
loaded (about 12 s of compilation per process for the quadruped scene). Handed the same
function compiled as a C callback of the exact signature, numba types it by that signature
(numba's "first-class function" type), and the loop is cached like any kernel; the policy
itself is cached beside its source under the same rules as fastdyn's kernels
(fastdyn.kernels._jit). The loop calls it through a function pointer, so it is not inlined:
a few nanoseconds against a time step of microseconds.

A policy runs as a C callback: an exception raised inside it cannot reach the caller (numba
prints it); policies compute, they should not raise.
"""

from __future__ import annotations

import numba
from numba.core import types
from numba.core.ccallback import CFunc

from .kernels._jit import CACHE, _FunctionCache

_MADE: dict = {}  # (policy dispatcher, signature) -> compiled callback, for this process


def compiled(policy, args, q, v, tau) -> CFunc:
    """``policy`` (a @numba.njit dispatcher) compiled for arguments like (r, k, t, q, v,
    args, tau), with the options it was jitted with."""
    sig = types.void(types.int64, types.int64, types.float64, numba.typeof(q),
                     numba.typeof(v), numba.typeof(args), numba.typeof(tau))
    key = (policy, sig)
    made = _MADE.get(key)
    if made is None:
        options = {k: x for k, x in policy.targetoptions.items() if k != "parallel"}
        made = CFunc(policy.py_func, (sig.args, sig.return_type), locals={}, options=options)
        if CACHE and not numba.config.DISABLE_JIT:
            try:
                made._cache = _FunctionCache(policy.py_func)
            except (OSError, RuntimeError):  # no file (a notebook, python -c): compile only
                pass
        made.compile()
        _MADE[key] = made
    return made
