"""A rollout's controller as a first-class function, so the compiled rollout loop is cached.

The rollout loop (kernels/entry/rollout.py) calls ``policy(r, k, t, q, v, args, tau)``.
Handed the @njit dispatcher itself, numba types the argument by the dispatcher's identity, a
key no other process can match: the loop's machine code was saved at every run and never
loaded (about 12 s of compilation per process for the quadruped scene). Handed the same
function compiled as a C callback of the exact signature, numba types it by that signature
(numba's "first-class function" type), and the loop is cached like any kernel: one loop per
signature, shared by every policy whose ``args`` have the same types. The policy itself is
cached beside its source when it was jitted with ``cache=True`` (fastdyn's own PD controller
is), under the rules of fastdyn's kernels (fastdyn.kernels._jit). The loop calls it through a
function pointer, so it is not inlined: a few nanoseconds against a time step of microseconds.

A policy runs as a C callback, where an exception cannot cross into the loop (numba's
callback wrapper would print "Exception ignored" and return, and the step would go on with
the torques of the step before). So the callback is the policy inside a guard, ``try:
policy(...) except Exception: return 1``, returning 0 otherwise; the loop stops a rollout
whose policy returned 1 (kernels/entry/rollout.py, RAISED), and fastdyn/sim/scene.py calls
the policy again from Python at that state to name the exception (``raised``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.core.caching import NullCache
from numba.core.ccallback import CFunc

from ..kernels._jit import CACHE, FunctionCache

_MADE: dict = {}  # (dispatcher, signature) -> compiled callback, for this process


def compiled(policy, args, q, v, tau) -> CFunc:
    """``policy`` (a @numba.njit dispatcher) in its guard (the module docstring) compiled for
    arguments like (r, k, t, q, v, args, tau), with the options it was jitted with: the
    callback returns 1 where the policy raised, else 0."""
    sig = types.int64(types.int64, types.int64, types.float64, numba.typeof(q),
                      numba.typeof(v), numba.typeof(args), numba.typeof(tau))
    return callback(policy, sig, _guard(policy))


def _guard(policy):
    """policy(r, k, t, q, v, args, tau) as a function that returns 1 where it raised, else 0
    (numba catches exceptions raised by the functions its try block calls)."""
    def guarded(r, k, t, q, v, args, tau):
        try:
            policy(r, k, t, q, v, args, tau)
        except Exception:
            return 1
        return 0
    return guarded


def raised(policy, r: int, k: int, t: float, q, v, args, nv: int) -> str:
    """What ``policy`` raises, called from Python at the state where its guard caught an
    exception (step k of rollout r): "TypeName: message"."""
    try:
        policy(r, k, t, q.copy(), v.copy(), args, np.zeros(nv))
    except Exception as e:  # the user's exception, whatever it is: reported, not hidden
        return f"{type(e).__name__}: {e}"
    return ("an exception (numba caught it in the compiled rollout; called again from Python "
            "at the same state, the policy did not raise)")


def callback(function, sig, body=None) -> CFunc:
    """``function`` (a @numba.njit dispatcher) compiled as a C callback of signature ``sig``,
    with the options it was jitted with, its machine code cached as the dispatcher's is
    (beside ``function``'s source, keyed by ``sig``). ``body``: the Python function compiled
    in its place, which calls it (``_guard``); default ``function`` itself."""
    key = (function, sig)
    made = _MADE.get(key)
    if made is None:
        options = {k: x for k, x in function.targetoptions.items() if k != "parallel"}
        made = CFunc(body or function.py_func, (sig.args, sig.return_type), locals={},
                     options=options)
        if CACHE and not isinstance(getattr(function, "_cache", None), NullCache):
            try:
                made._cache = FunctionCache(function.py_func)
            except (OSError, RuntimeError):  # no file (a notebook, python -c): compile only
                pass
        made.compile()
        _MADE[key] = made
    return made
