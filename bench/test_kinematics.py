"""Forward kinematics (joint placements only) against Pinocchio's forwardKinematics(q): one
call from Python, and the kernel's time per evaluation inside an @njit loop. No
forwardKinematicsInParallel in Pinocchio 4.1: its C++ time is estimated as in test_crba.py."""

import numba
import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
from bench.ladder import NSTATES, pin_loop, tag
from fastdyn.kernels import forward_kinematics as fk_kernel

EMPTY = np.zeros(0)


@numba.njit
def fk_states(jnt, prm, Q, empty, ws):
    for r in range(Q.shape[0]):
        fk_kernel(jnt, prm, Q[r], empty, empty, ws)


@numba.njit
def fk_states_generated(kernel, Q, ws):
    """The same loop around a generated kernel (a dispatcher argument: one compile per model)."""
    for r in range(Q.shape[0]):
        kernel(Q[r], ws)


def test_single_fastdyn(benchmark, robot):
    r = robot
    fd.forward_kinematics(r.model, r.data, r.q)
    tag(benchmark, "single", "fk", r, "fastdyn")
    benchmark(fd.forward_kinematics, r.model, r.data, r.q)


def test_single_fastdyn_kernel(benchmark, robot):
    """The kernel's dispatcher called straight from Python: no input checks."""
    r = robot
    args = (r.model.jnt, r.model.prm, r.q, EMPTY, EMPTY, r.data.ws)
    fk_kernel(*args)
    tag(benchmark, "single", "fk", r, "fastdyn-kernel")
    benchmark(fk_kernel, *args)


def test_single_fastdyn_generated(benchmark, robot):
    """The model's generated code from Python, checked: gen.forward_kinematics(data, q), with
    the same input checks as fd.forward_kinematics (placements only, as above)."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    gen.forward_kinematics(r.data, r.q)
    tag(benchmark, "single", "fk", r, "fastdyn-generated")
    benchmark(gen.forward_kinematics, r.data, r.q)


def test_single_pinocchio(benchmark, robot):
    r = robot
    pin.forwardKinematics(r.pm, r.pd, r.q)
    tag(benchmark, "single", "fk", r, "pinocchio")
    benchmark(pin.forwardKinematics, r.pm, r.pd, r.q)


def test_kernel_fastdyn(benchmark, robot):
    r = robot
    args = (r.model.jnt, r.model.prm, r.Q, EMPTY, r.data.ws)
    fk_states(*args)
    tag(benchmark, "kernel", "fk", r, "fastdyn", evals=NSTATES)
    benchmark(fk_states, *args)


def test_kernel_fastdyn_generated(benchmark, robot):
    """The model's generated kernel (fastdyn.codegen) in the same loop."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    args = (gen.kernels.forward_kinematics, r.Q, r.data.ws)
    fk_states_generated(*args)
    tag(benchmark, "kernel", "fk", r, "fastdyn-generated", evals=NSTATES)
    benchmark(fk_states_generated, *args)


def test_kernel_pinocchio_python_loop(benchmark, robot):
    r = robot
    rows = [(q,) for q in r.Q]
    pin_loop(pin.forwardKinematics, r.pm, r.pd, rows)
    tag(benchmark, "kernel", "fk", r, "pinocchio-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.forwardKinematics, r.pm, r.pd, rows)


def test_kernel_pinocchio_empty_loop(benchmark, robot):
    r = robot
    em, ed = r.empty
    rows = [(np.zeros(0),)] * NSTATES
    pin_loop(pin.forwardKinematics, em, ed, rows)
    tag(benchmark, "kernel", "fk", r, "pinocchio-empty-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.forwardKinematics, em, ed, rows)
