"""RNEA (inverse dynamics) against Pinocchio: one call from Python, and the kernel's time per
evaluation inside an @njit loop against Pinocchio's C++ (rneaInParallel, one thread)."""

import numba
import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
from bench.ladder import NSTATES, pin_loop, tag
from fastdyn.kernels import rnea as rnea_kernel

NO_FORCES = np.zeros((0, 6))


@numba.njit
def rnea_states(jnt, prm, Q, V, A, fext, ws, TAU):
    for r in range(Q.shape[0]):
        rnea_kernel(jnt, prm, Q[r], V[r], A[r], fext, ws, TAU[r])


@numba.njit
def rnea_states_generated(kernel, gravity, Q, V, A, TAU):
    """The same loop around a generated kernel (a dispatcher argument: one compile per model)."""
    for r in range(Q.shape[0]):
        kernel(gravity, Q[r], V[r], A[r], TAU[r])


def test_single_fastdyn(benchmark, robot):
    r = robot
    fd.rnea(r.model, r.data, r.q, r.v, r.a)
    tag(benchmark, "single", "rnea", r, "fastdyn")
    benchmark(fd.rnea, r.model, r.data, r.q, r.v, r.a)


def test_single_fastdyn_kernel(benchmark, robot):
    """The kernel's dispatcher called straight from Python: no input checks."""
    r = robot
    args = (r.model.jnt, r.model.prm, r.q, r.v, r.a, NO_FORCES, r.data.ws, r.data.tau)
    rnea_kernel(*args)
    tag(benchmark, "single", "rnea", r, "fastdyn-kernel")
    benchmark(rnea_kernel, *args)


def test_single_fastdyn_generated(benchmark, robot):
    """The model's generated code from Python, checked: gen.rnea(data, q, v, a), with the same
    input checks as fd.rnea; it fills data.tau only (no external forces; data.v, f, oMi are
    left alone)."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    gen.rnea(r.data, r.q, r.v, r.a)
    tag(benchmark, "single", "rnea", r, "fastdyn-generated")
    benchmark(gen.rnea, r.data, r.q, r.v, r.a)


def test_single_pinocchio(benchmark, robot):
    r = robot
    pin.rnea(r.pm, r.pd, r.q, r.v, r.a)
    tag(benchmark, "single", "rnea", r, "pinocchio")
    benchmark(pin.rnea, r.pm, r.pd, r.q, r.v, r.a)


def test_kernel_fastdyn(benchmark, robot):
    r = robot
    out = np.empty_like(r.TAU)
    args = (r.model.jnt, r.model.prm, r.Q, r.V, r.A, NO_FORCES, r.data.ws, out)
    rnea_states(*args)
    tag(benchmark, "kernel", "rnea", r, "fastdyn", evals=NSTATES)
    benchmark(rnea_states, *args)


def test_kernel_fastdyn_generated(benchmark, robot):
    """The model's generated kernel (fastdyn.codegen) in the same loop; no fext argument."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    out = np.empty_like(r.TAU)
    args = (gen.kernels.rnea, r.model.gravity, r.Q, r.V, r.A, out)
    rnea_states_generated(*args)
    tag(benchmark, "kernel", "rnea", r, "fastdyn-generated", evals=NSTATES)
    benchmark(rnea_states_generated, *args)


def test_kernel_pinocchio_cpp(benchmark, robot):
    r = robot
    out = np.empty((r.nv, NSTATES), order="F")
    args = (1, r.pool, r.Q.T, r.V.T, r.A.T, out)
    pin.rneaInParallel(*args)
    tag(benchmark, "kernel", "rnea", r, "pinocchio-cpp", evals=NSTATES)
    benchmark(pin.rneaInParallel, *args)


def test_kernel_pinocchio_python_loop(benchmark, robot):
    """pin.rnea state by state from Python: C++ time + binding overhead (see the next one)."""
    r = robot
    rows = list(zip(r.Q, r.V, r.A))
    pin_loop(pin.rnea, r.pm, r.pd, rows)
    tag(benchmark, "kernel", "rnea", r, "pinocchio-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.rnea, r.pm, r.pd, rows)


def test_kernel_pinocchio_empty_loop(benchmark, robot):
    """The same loop on a joint-less model: the binding overhead alone."""
    r = robot
    em, ed = r.empty
    z = np.zeros(0)
    rows = [(z, z, z)] * NSTATES
    pin_loop(pin.rnea, em, ed, rows)
    tag(benchmark, "kernel", "rnea", r, "pinocchio-empty-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.rnea, em, ed, rows)
