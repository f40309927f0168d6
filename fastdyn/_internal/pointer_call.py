"""The address of a kernel's compiled code for given argument types, and its stamp: what
``call_compiled`` (kernels/_pointer_call.py) needs to call it without compiling it again.

``dispatcher.overloads``, the compile result's ``library`` and ``fndesc`` are numba
internals: pyproject.toml pins numba to the range tests/test_numba_internals.py has passed
on, and tests/test_pointer_call.py fails if a release moves them.
"""

from __future__ import annotations

from numba import types
from numba.core.dispatcher import Dispatcher

from ..kernels._pointer_call import signature_stamp

_MADE: dict[tuple, tuple[int, int]] = {}


def compiled_address(dispatcher: Dispatcher, argtypes: tuple) -> tuple[int, int]:
    """(address, stamp) of ``dispatcher``'s machine code for ``argtypes`` (numba types),
    compiled or loaded from the disk cache first. The kernel must return an int64 (a code)."""
    key = (dispatcher, argtypes)
    made = _MADE.get(key)
    if made is None:
        dispatcher.compile(argtypes)
        cres = dispatcher.overloads[argtypes]
        if cres.signature.return_type != types.int64:
            raise TypeError(f"{dispatcher.py_func.__qualname__} returns "
                            f"{cres.signature.return_type}, not int64: call_compiled takes "
                            f"kernels that return a code")
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        if not address:
            raise RuntimeError(f"no machine code for {dispatcher.py_func.__qualname__}"
                               f"{argtypes}")
        made = _MADE[key] = (address, signature_stamp(dispatcher.py_func, argtypes))
    return made
