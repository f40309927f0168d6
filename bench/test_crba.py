"""CRBA (joint-space inertia matrix) against Pinocchio: one call from Python, and the kernel's
time per evaluation inside an @njit loop. Pinocchio 4.1 has no crbaInParallel, so its C++ time
is estimated as (pin.crba from Python, state by state) - (the same loop on a joint-less model);
the residual binding cost grows with nv, so the estimate is an upper bound on C++ time (report.py
checks the method against rneaInParallel / abaInParallel)."""

import numba
import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
from bench.ladder import NSTATES, pin_loop, tag
from fastdyn.kernels import crba as crba_kernel

EMPTY = np.zeros(0)


@numba.njit
def crba_states(jnt, prm, Q, ws, M, empty):
    for r in range(Q.shape[0]):
        crba_kernel(jnt, prm, Q[r], ws, M, empty)


@numba.njit
def crba_states_generated(kernel, Q, M):
    """The same loop around a generated kernel (a dispatcher argument: one compile per model)."""
    for r in range(Q.shape[0]):
        kernel(Q[r], M)


def test_single_fastdyn(benchmark, robot):
    r = robot
    fd.crba(r.model, r.data, r.q)
    tag(benchmark, "single", "crba", r, "fastdyn")
    benchmark(fd.crba, r.model, r.data, r.q)


def test_single_fastdyn_kernel(benchmark, robot):
    """The kernel's dispatcher called straight from Python: no input checks."""
    r = robot
    args = (r.model.jnt, r.model.prm, r.q, r.data.ws, r.data.M, EMPTY)
    crba_kernel(*args)
    tag(benchmark, "single", "crba", r, "fastdyn-kernel")
    benchmark(crba_kernel, *args)


def test_single_fastdyn_generated(benchmark, robot):
    """The model's generated code from Python, checked: gen.crba(data, q), with the same input
    checks as fd.crba; it fills data.M only."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    gen.crba(r.data, r.q)
    tag(benchmark, "single", "crba", r, "fastdyn-generated")
    benchmark(gen.crba, r.data, r.q)


def test_single_pinocchio(benchmark, robot):
    r = robot
    pin.crba(r.pm, r.pd, r.q)
    tag(benchmark, "single", "crba", r, "pinocchio")
    benchmark(pin.crba, r.pm, r.pd, r.q)


def test_kernel_fastdyn(benchmark, robot):
    r = robot
    args = (r.model.jnt, r.model.prm, r.Q, r.data.ws, r.data.M, EMPTY)
    crba_states(*args)
    tag(benchmark, "kernel", "crba", r, "fastdyn", evals=NSTATES)
    benchmark(crba_states, *args)


def test_kernel_fastdyn_generated(benchmark, robot):
    """The model's generated kernel (fastdyn.codegen) in the same loop."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    args = (gen.kernels.crba, r.Q, r.data.M)
    crba_states_generated(*args)
    tag(benchmark, "kernel", "crba", r, "fastdyn-generated", evals=NSTATES)
    benchmark(crba_states_generated, *args)


def test_kernel_pinocchio_python_loop(benchmark, robot):
    r = robot
    rows = [(q,) for q in r.Q]
    pin_loop(pin.crba, r.pm, r.pd, rows)
    tag(benchmark, "kernel", "crba", r, "pinocchio-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.crba, r.pm, r.pd, rows)


def test_kernel_pinocchio_empty_loop(benchmark, robot):
    r = robot
    em, ed = r.empty
    rows = [(np.zeros(0),)] * NSTATES
    pin_loop(pin.crba, em, ed, rows)
    tag(benchmark, "kernel", "crba", r, "pinocchio-empty-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.crba, em, ed, rows)
