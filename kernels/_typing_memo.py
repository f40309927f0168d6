"""Remember numba's typing of scalar operations, so each one is resolved once per process.

numba types every call in a function, ``a * b`` on two float64 as much as a kernel call, by
trying the callee's typing templates in turn (``types.Function.get_call_type``): for an
arithmetic operator that is some seven templates, NumPy's ufunc rules among them, every time,
with no memory of the last answer. A generated module (fastdyn.codegen) is straight-line code
of thousands of such operations: typing them was most of its compile time. Measured on the
bundled quadruped's generated ABA (empty caches, this project's 2-core machine): 5.4 s ->
2.8 s to compile, of which LLVM is 1.0 s; the generic contact step's first compile 62 s ->
58 s (it is mostly LLVM's).

What is remembered: the signature numba itself chose, for a call of a ``types.Function``
(operators, math functions, builtins) whose arguments are all plain, non-literal numbers or
booleans, without keywords, keyed by the function type, the typing context and the argument
types. For such arguments numba's answer depends on nothing else: the templates of a function
type are fixed when it is made (registering an overload makes a new function type), and a
failure is not remembered (numba raises it again). Everything else (arrays, literals, records,
dispatchers) goes to numba unchanged. tests/test_numba_internals.py checks the remembered
answers against numba's own for every operator on every pair of scalar types.

``FASTDYN_TYPING_MEMO=0`` (read once, at import) leaves numba as it is.
"""

import os

from numba.core import types
from numba.core.types import functions

ENABLED = os.environ.get("FASTDYN_TYPING_MEMO", "1").lower() not in ("0", "false", "no")

_PLAIN = (types.Float, types.Integer, types.Boolean)  # exact classes: literals subclass them
_resolve = functions.Function.get_call_type  # numba's own, for misses and other arguments
_known: dict = {}


def _plain(args) -> bool:
    for a in args:
        if type(a) not in _PLAIN:
            return False
    return True


def get_call_type(self, context, args, kws):
    """numba's ``Function.get_call_type``, answered from memory for plain scalar arguments."""
    if kws or not _plain(args):
        return _resolve(self, context, args, kws)
    key = (self, context, args)
    sig = _known.get(key)
    if sig is None:
        sig = _resolve(self, context, args, kws)  # sets self._impl_keys[sig.args] as well
        if sig is not None:
            _known[key] = sig
    return sig


def install() -> None:
    """Put ``get_call_type`` in numba's place (once; nothing when FASTDYN_TYPING_MEMO=0)."""
    if ENABLED and functions.Function.get_call_type is not get_call_type:
        functions.Function.get_call_type = get_call_type
