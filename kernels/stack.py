"""Scratch matrices on the calling kernel's stack: ``W = stack_matrix(24, 38)``.

fastdyn's kernels compile without numba's runtime (kernels/_jit.py), so ``np.empty`` is not
available inside them, and a scratch array that only one kernel needs would otherwise widen
its signature (and every caller's) with a workspace argument. This intrinsic reserves the
memory in the kernel's own stack frame instead: one ``alloca`` in the function's entry block,
so its cost is a stack-pointer adjustment, it is the same memory on every call (never grows in
a loop) and it is thread-safe (each thread has its own stack). Its contents start undefined,
like ``np.empty``'s.

Rules: both sizes are integer literals (the frame's size is fixed when the kernel compiles),
and the array must not outlive the call: it is neither returned nor stored where a caller can
read it (a kernel returning an array is refused at compile time: kernels/_jit.py). Keep it to
a few tens of kilobytes (threads' stacks are megabytes).

Built on numba's documented extension API (``numba.extending.intrinsic``, ``numba.core.
cgutils.alloca_once``) and its array helpers (``numba.np.arrayobj.make_array`` and
``populate_array``), which tests/test_numba_internals.py checks on every numba in range.
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

F64 = 8  # bytes


@intrinsic
def stack_matrix(typingctx, rows, cols):
    """A C-contiguous (rows, cols) float64 array in the caller's stack frame."""
    if not (isinstance(rows, types.IntegerLiteral) and isinstance(cols, types.IntegerLiteral)):
        return None  # numba then reports no matching signature for non-literal sizes
    n, m = rows.literal_value, cols.literal_value
    if n < 0 or m < 0:
        return None
    matrix = types.Array(types.float64, 2, "C")

    def codegen(context, builder, signature, args):
        buf = cgutils.alloca_once(builder, context.get_value_type(types.float64),
                                  size=max(n * m, 1), name="stack_matrix")
        out = make_array(matrix)(context, builder)
        populate_array(out, data=buf,
                       shape=[context.get_constant(types.intp, n),
                              context.get_constant(types.intp, m)],
                       strides=[context.get_constant(types.intp, m * F64),
                                context.get_constant(types.intp, F64)],
                       itemsize=context.get_constant(types.intp, F64), meminfo=None)
        return out._getvalue()

    return matrix(rows, cols), codegen
