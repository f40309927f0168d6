"""The numba internals fastdyn's fast paths rely on, each checked for the behaviour we use.

pyproject.toml pins numba to the releases this file has passed on. A numba upgrade that moves
one of these fails here, with the fastdyn file that needs mending in the message, instead of
somewhere deep in a kernel call. What relies on what:

- fastdyn/_internal/fastcall.py: ``Dispatcher.overloads[signature].entry_point``, the
  compiled function called without numba's per-call type dispatch;
- kernels/_jit.py: ``numba.njit(_nrt=...)``; ``caching.FunctionCache`` and its
  ``_impl_class``, ``CompileResultCacheImpl._locator_classes``, the locators'
  ``from_function`` / ``ensure_cache_path`` / ``get_cache_path`` / ``get_source_stamp``,
  ``IndexDataCacheFile`` with ``_load_index`` / ``_load_data`` / ``_index_path``, and a
  dispatcher's ``_cache`` attribute;
- fastdyn/sim/policy.py: ``ccallback.CFunc(py_func, signature, locals, options)`` with ``_cache``
  and ``compile()``, a dispatcher's ``targetoptions``, ``caching.NullCache``;
- fastdyn/_internal/startup.py: ``registry.cpu_target.typing_context.refresh()`` (guarded:
  only slower);
- fastdyn/_internal/parallel.py: ``numba.np.ufunc.omppool.openmp_vendor`` (guarded: assumes GNU);
- fastdyn/_internal/compile_notice.py: ``numba.core.event``'s ``Listener`` and ``register``, and the
  ``"numba:compile"`` event around each compilation (not a cache load), its ``data["dispatcher"]``
  with ``py_func``;
- kernels/_typing_memo.py: ``types.functions.Function.get_call_type(context, args, kws)``, which
  it wraps (its answers are checked against numba's own below);
- kernels/stack.py: ``numba.np.arrayobj.make_array`` / ``populate_array`` and
  ``cgutils.alloca_once`` (a scratch matrix in a kernel's stack frame).
"""

import re
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core import caching

ROOT = Path(__file__).resolve().parents[1]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:2])


def test_numba_is_inside_the_pinned_range():
    spec = re.search(r'"(numba[^"]*)"', (ROOT / "pyproject.toml").read_text()).group(1)
    lo = re.search(r">=\s*([\d.]+)", spec)
    hi = re.search(r"<\s*([\d.]+)", spec)
    assert lo and hi, f"pyproject.toml must bound numba on both sides, got {spec!r}"
    have = _version(numba.__version__)
    assert _version(lo.group(1)) <= have < _version(hi.group(1)), (
        f"numba {numba.__version__} is outside {spec!r}: run this file on it, then widen the pin")


def test_entry_point_calls_the_compiled_function_without_dispatch():
    @numba.njit
    def axpy(a, x, y):
        for i in range(x.shape[0]):
            y[i] += a * x[i]

    vec = numba.types.Array(numba.types.float64, 1, "A")
    sig = (numba.types.float64, vec, vec)
    axpy.compile(sig)
    entry = axpy.overloads[sig].entry_point  # fastdyn/_internal/fastcall.py
    x, y = np.arange(4.0), np.ones(8)[::2]  # a strided view: the any-layout signature
    entry(2.0, x, y)
    assert y.tolist() == [1.0, 3.0, 5.0, 7.0]


def test_njit_takes_the_nrt_option():
    @numba.njit(_nrt=False)  # kernels/_jit.py compiles kernels without the runtime
    def twice(x):
        return 2.0 * x

    assert twice(1.5) == 3.0


def test_cache_machinery_has_the_hooks_kernels_jit_overrides():
    from fastdyn.kernels import _jit

    names = {c.__name__ for c in caching.CompileResultCacheImpl._locator_classes}
    assert {"UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"} <= names, (
        f"numba's cache locators changed ({sorted(names)}): mend kernels/_jit.py")
    for cls in caching.CompileResultCacheImpl._locator_classes:
        for attr in ("from_function", "ensure_cache_path", "get_cache_path", "get_source_stamp"):
            assert hasattr(cls, attr), f"numba's {cls.__name__} lost {attr}: mend kernels/_jit.py"
    assert caching.FunctionCache._impl_class is caching.CompileResultCacheImpl
    for attr in ("_load_index", "_load_data", "_save_index", "_data_path", "save", "load"):
        assert hasattr(caching.IndexDataCacheFile, attr), (
            f"numba's IndexDataCacheFile lost {attr}: mend kernels/_jit.py")
    # Our subclass builds and points at a directory, with our whole-tree source stamp.
    cache = _jit.FunctionCache(_first_kernel())
    assert Path(cache.cache_path).is_dir() or not _jit.CACHE
    assert isinstance(cache._cache_file, _jit._IndexDataCacheFile)
    assert cache._impl.locator.get_source_stamp()[1] == _jit._TREE


def _first_kernel():
    import importlib

    from fastdyn.kernels import _jit

    importlib.import_module("fastdyn.kernels.algorithms.rnea")  # registers kernels
    return _jit._KERNELS[0]


def test_a_kernel_uses_our_cache_object():
    from fastdyn.kernels import _jit
    from fastdyn.kernels.algorithms.rnea import rnea

    if not _jit.CACHE:
        pytest.skip("FASTDYN_NO_CACHE is set")
    assert isinstance(rnea._cache, _jit.FunctionCache), (
        "numba's dispatcher no longer keeps its cache in ._cache: mend kernels/_jit.py")


def test_cfunc_compiles_a_policy_with_our_cache():
    from numba.core.ccallback import CFunc

    from fastdyn.sim.policy import compiled

    @numba.njit(cache=False)
    def policy(r, k, t, q, v, args, tau):
        for i in range(tau.shape[0]):
            tau[i] = -args[0] * v[i]

    assert isinstance(policy.targetoptions, dict)  # read for the callback's options
    q, v, tau, args = np.zeros(3), np.ones(2), np.zeros(2), (2.0,)
    made = compiled(policy, args, q, v, tau)  # fastdyn/sim/policy.py
    assert isinstance(made, CFunc) and made.address > 0
    assert isinstance(policy._cache, caching.NullCache)


def test_registry_refresh_exists():
    from numba.core.registry import cpu_target  # fastdyn/_internal/startup.py (guarded)

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


def test_stack_matrix_is_a_private_scratch_matrix_of_each_call():
    """kernels/stack.py: the shape and strides asked for, writable and readable in full, the
    same frame on every call (a million calls in a loop do not grow the stack), two in one
    kernel distinct, and sizes that are not literals refused at compile time."""
    from fastdyn.kernels._jit import jit
    from fastdyn.kernels.stack import stack_matrix

    @jit
    def fill(x, out):
        A = stack_matrix(3, 5)
        B = stack_matrix(3, 5)
        for r in range(3):
            for c in range(5):
                A[r, c] = x[0] * (5 * r + c)
                B[r, c] = -1.0
        s = 0.0
        for r in range(3):
            for c in range(5):
                s += A[r, c] + B[r, c]
        out[0] = s
        out[1] = A.shape[0] * 10 + A.shape[1]
        out[2] = A.strides[0] * 100 + A.strides[1]

    @jit
    def many(x, out, n):
        for _ in range(n):
            fill(x, out)

    out = np.zeros(3)
    many(np.array([2.0]), out, 1_000_000)
    assert out.tolist() == [2.0 * sum(range(15)) - 15.0, 35.0, 4008.0]

    @jit
    def not_literal(n, out):
        out[0] = stack_matrix(n, 2).shape[0]

    with pytest.raises(numba.core.errors.TypingError):
        not_literal(3, out)


def test_compile_events_carry_the_dispatcher():
    """fastdyn/_internal/compile_notice.py: a "numba:compile" start and end around a compilation,
    the dispatcher in the event's data; none for a call that compiles nothing."""
    from numba.core import event

    seen = []

    class Recorder(event.Listener):
        def on_start(self, ev):
            seen.append(("start", ev.data["dispatcher"].py_func.__name__))

        def on_end(self, ev):
            seen.append(("end", ev.data["dispatcher"].py_func.__name__))

    @numba.njit
    def fresh(x):
        return x + 1.0

    recorder = Recorder()
    event.register("numba:compile", recorder)
    try:
        fresh(1.0)
        fresh(2.0)  # compiled already: no event
    finally:
        event.unregister("numba:compile", recorder)
    assert seen == [("start", "fresh"), ("end", "fresh")]


def test_remembered_scalar_typing_is_numbas_own():
    """kernels/_typing_memo.py: installed at import; for every operator and math function on
    every pair of scalar types, the remembered signature is the one numba's own resolution
    gives (asked again: both from the same function type), a failure is raised again and not
    remembered, and literal arguments are never remembered (numba may type them otherwise)."""
    import math
    import operator

    from numba.core import errors, registry, types
    from numba.core.types import functions

    from fastdyn.kernels import _typing_memo as memo

    assert functions.Function.get_call_type is memo.get_call_type
    ctx = registry.cpu_target.typing_context
    ctx.refresh()
    scalars = (types.boolean, types.int8, types.uint8, types.int32, types.int64, types.uint64,
               types.float32, types.float64)
    binary = (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow, operator.lt, operator.eq, operator.and_,
              operator.lshift, math.atan2, math.copysign, max, min)
    unary = (operator.neg, math.sqrt, math.sin, math.floor, abs)
    calls = [(f, (a, b)) for f in binary for a in scalars for b in scalars]
    calls += [(f, (a,)) for f in unary for a in scalars]
    typed = failed = 0
    for f, args in calls:
        fnty = ctx.resolve_value_type(f)
        for _ in range(2):  # the second time from memory
            try:
                sig = fnty.get_call_type(ctx, args, {})
            except errors.TypingError:
                sig = None
            try:
                own = memo._resolve(fnty, ctx, args, {})
            except errors.TypingError:
                own = None
            assert sig == own, (f, args)
        typed += sig is not None
        failed += sig is None
        assert ((fnty, ctx, args) in memo._known) == (sig is not None)
    assert typed > 500 and failed > 20  # both kinds were exercised
    fnty = ctx.resolve_value_type(operator.add)
    lit = (types.IntegerLiteral(3), types.int64)
    assert fnty.get_call_type(ctx, lit, {}) == memo._resolve(fnty, ctx, lit, {})
    assert (fnty, ctx, lit) not in memo._known
