"""call_compiled (kernels/_pointer_call.py): a kernel called through the address of its
compiled code. The oracle is the direct call of the same kernel on the same inputs (equal
bit for bit); the guard is that an address made for other types or another kernel is never
called; the point (the callee's code is not compiled into the caller) is read from the
caller's own LLVM module."""

import numba
import numpy as np
import pytest
from numba import types

import fastdyn as fd
from fastdyn._internal.pointer_call import compiled_address
from fastdyn.kernels._jit import jit
from fastdyn.kernels._pointer_call import MISMATCH, call_compiled
from fastdyn.sim import horizon as sim_horizon


@jit
def _callee(x, y, out, rec, scale, opt):
    """Arithmetic on every kind of argument the simulator passes: a strided view, a matrix, a
    record array, a float and an optional (None or an array)."""
    s = 0.0
    for i in range(x.shape[0]):
        out[i] = np.sin(x[i]) * scale + y[i, 1] * rec[i]["b"]
        s += out[i]
    if opt is not None:
        out[0] += opt[0]
    return np.int64(x.shape[0] * 1000) + np.int64(s > 0.0)


# compiled in this process (no disk cache), so that their LLVM modules can be read
@numba.njit(cache=False)
def _caller(address, stamp, x, y, out, rec, scale, opt):
    return call_compiled(_callee, address, stamp, (x[::2], y, out, rec, scale, opt))


@numba.njit(cache=False)
def _direct(x, y, out, rec, scale, opt):
    return _callee(x[::2], y, out, rec, scale, opt)


@jit
def _other(x, y, out, rec, scale, opt):
    out[0] = 12345.0
    return np.int64(7)


@jit
def _float_result(x):
    return x[0]


def _inputs(with_opt):
    rng = np.random.default_rng(4)
    x = rng.normal(size=10)
    y = rng.normal(size=(5, 2))
    rec = np.zeros(5, dtype=[("a", np.int64), ("b", np.float64)])
    rec["b"] = rng.normal(size=5)
    opt = rng.normal(size=2) if with_opt else None
    return x, y, rec, 0.7, opt


def _types(x, y, out, rec, scale, opt):
    return (numba.typeof(x[::2]), numba.typeof(y), numba.typeof(out), numba.typeof(rec),
            types.float64, numba.typeof(opt))


@pytest.mark.parametrize("with_opt", [False, True])
def test_the_call_through_the_address_is_the_direct_call(with_opt):
    x, y, rec, scale, opt = _inputs(with_opt)
    out_p, out_d = np.zeros(5), np.zeros(5)
    address, stamp = compiled_address(_callee, _types(x, y, out_p, rec, scale, opt))
    got = _caller(address, stamp, x, y, out_p, rec, scale, opt)
    want = _direct(x, y, out_d, rec, scale, opt)
    assert got == want and got >= 5000
    assert out_p.tobytes() == out_d.tobytes() and np.any(out_p != 0.0)


def test_an_address_for_other_types_or_another_kernel_is_never_called():
    x, y, rec, scale, opt = _inputs(True)
    out = np.zeros(5)
    address, stamp = compiled_address(_callee, _types(x, y, out, rec, scale, opt))
    # the same kernel compiled for opt=None: another stamp, so the call does not happen
    address_none, stamp_none = compiled_address(_callee, _types(x, y, out, rec, scale, None))
    assert stamp_none != stamp
    assert _caller(address_none, stamp_none, x, y, out, rec, scale, opt) == MISMATCH
    assert _caller(address, stamp + 1, x, y, out, rec, scale, opt) == MISMATCH
    # another kernel of the very same argument types: its name is in the stamp
    other, other_stamp = compiled_address(_other, _types(x, y, out, rec, scale, opt))
    assert other_stamp != stamp
    assert _caller(other, other_stamp, x, y, out, rec, scale, opt) == MISMATCH
    assert not np.any(out)  # nothing was called


def test_a_kernel_that_does_not_return_a_code_is_refused():
    with pytest.raises(TypeError, match="returns float64, not int64"):
        compiled_address(_float_result, (types.float64[::1],))


def test_the_callees_code_is_not_compiled_into_the_caller():
    x, y, rec, scale, opt = _inputs(False)
    out = np.zeros(5)
    argtypes = _types(x, y, out, rec, scale, opt)
    address, stamp = compiled_address(_callee, argtypes)
    _caller(address, stamp, x, y, out, rec, scale, opt)
    _direct(x, y, out, rec, scale, opt)
    name = _callee.overloads[argtypes].fndesc.llvm_func_name
    caller_ir = next(iter(_caller.overloads.values())).library.get_llvm_str()
    direct_ir = next(iter(_direct.overloads.values())).library.get_llvm_str()
    assert f"@\"{name}\"(" not in caller_ir and f"@{name}(" not in caller_ir
    assert name in direct_ir  # (the check finds the callee where it is linked in)


def test_the_horizons_step_is_the_single_calls_compiled_code():
    """Scene.horizon compiles no step_derivatives_checked of its own: the overload it calls
    is the one Scene.step_derivatives compiled (one overload, called both ways)."""
    from fastdyn.kernels.contact import step_derivatives as ksd
    model = fd.models.load("ur5")
    scene = fd.Scene(model, dt=0.01)
    q, z = fd.neutral(model), np.zeros(model.nv)
    scene.step_derivatives(q, z, z)
    before = set(ksd.step_derivatives_checked.overloads)
    h = scene.horizon(q, z, np.zeros((3, model.nv)))
    assert set(ksd.step_derivatives_checked.overloads) == before
    A, B = scene.step_derivatives(h.q[1], h.v[1], z)
    assert A.tobytes() == h.A[1].tobytes() and B.tobytes() == h.B[1].tobytes()


def test_a_wrong_address_in_the_horizon_is_an_error_not_a_call(monkeypatch):
    model = fd.models.load("ur5")
    scene = fd.Scene(model, dt=0.01)
    q, z = fd.neutral(model), np.zeros(model.nv)
    made = sim_horizon._step_code

    def wrong(*args):
        address, stamp, generic, generic_stamp = made(*args)
        return address, stamp ^ 1, generic, generic_stamp

    monkeypatch.setattr(sim_horizon, "_step_code", wrong)
    monkeypatch.setattr(sim_horizon, "_STEPS", {})  # (made by an earlier call: made again)
    with pytest.raises(RuntimeError, match="internal error"):
        scene.horizon(q, z, np.zeros((3, model.nv)))

