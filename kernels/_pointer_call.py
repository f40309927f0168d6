"""A call to a kernel's compiled code through its address, so that the caller's compile does
not compile the callee's machine code again.

Why: numba links the LLVM code of a kernel's whole call tree into the kernel's own module,
optimizes it and emits its machine code again (numba's CPUCodeLibrary.finalize). A kernel
that calls a big one (the horizon calling step_derivatives_checked, whose tree is the whole
step and its derivatives) pays that tree's optimization and emission once more: 11 s cold,
measured, for the horizon alone. Called through its address, the callee is compiled once
(as the single call's own entry point) and the caller's module holds the caller only.

``call_compiled(callee, address, stamp, args)``: ``callee`` the kernel (a global dispatcher:
only its name is read), ``args`` the tuple of its arguments, ``address`` the address of its
compiled code for exactly those argument types and ``stamp`` their ``signature_stamp``, both
from fastdyn's ``compiled_address`` (fastdyn/_internal/pointer_call.py), which compiles the
callee for those types (or loads it from the disk cache) first. The callee returns an int64,
which this returns. The call goes through numba's own calling convention (the one its
compiled functions call each other with), so arrays, records, None and tuples pass as in a
direct call. Before calling, the stamp the caller was given is compared with the stamp of
the types it was compiled with: an address for other types (or another kernel) is never
called, MISMATCH is returned instead; an exception raised in the callee (fastdyn's kernels
raise none: error_model "numpy", no bounds checks) returns RAISED.

The call is not inlined: a few nanoseconds against a callee of microseconds.
"""

import zlib

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

MISMATCH = -1  # the address was made for other argument types or another kernel: not called
RAISED = -2  # the callee returned an exception status


def signature_stamp(py_func, argtypes) -> int:
    """A 31-bit digest of the kernel's name and its argument types (numba's type names, which
    spell out layouts, flags and record fields): the same in every process."""
    text = f"{py_func.__module__}.{py_func.__qualname__}({', '.join(map(str, argtypes))})"
    return zlib.crc32(text.encode()) & 0x7FFFFFFF


@intrinsic
def call_compiled(typingctx, callee, address, stamp, args):
    """``callee(*args)`` through ``address`` (the module docstring); an int64."""
    if not (isinstance(callee, types.Dispatcher) and isinstance(args, types.BaseTuple)
            and isinstance(address, types.Integer) and isinstance(stamp, types.Integer)):
        return None
    argtypes = list(args)
    expected = signature_stamp(callee.dispatcher.py_func, argtypes)

    def codegen(context, builder, sig, llargs):
        _, addr, got, tup = llargs
        i64 = context.get_value_type(types.int64)
        out = cgutils.alloca_once_value(builder, i64(MISMATCH))
        same = builder.icmp_signed("==", builder.sext(got, i64) if got.type.width < 64 else got,
                                   i64(expected))
        with builder.if_then(same, likely=True):
            fnty = context.call_conv.get_function_type(types.int64, argtypes)
            fn = builder.inttoptr(addr, fnty.as_pointer())
            values = cgutils.unpack_tuple(builder, tup, len(argtypes))
            status, res = context.call_conv.call_function(builder, fn, types.int64, argtypes,
                                                          values)
            builder.store(builder.select(status.is_ok, res, i64(RAISED)), out)
        return builder.load(out)

    return types.int64(callee, address, stamp, args), codegen
