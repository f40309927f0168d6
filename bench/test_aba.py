"""ABA (forward dynamics) against Pinocchio: one call from Python, and the kernel's time per
evaluation inside an @njit loop against Pinocchio's C++ (abaInParallel, one thread). Torques
are RNEA's at the seeded (q, v, a), so every state has a well-defined answer."""

import numba
import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
from bench.ladder import NSTATES, pin_loop, tag
from fastdyn.kernels import aba as aba_kernel

NO_FORCES = np.zeros((0, 6))


@numba.njit
def aba_states(jnt, prm, Q, V, TAU, fext, ws, DDQ):
    bad = -1
    for r in range(Q.shape[0]):
        bad = max(bad, aba_kernel(jnt, prm, Q[r], V[r], TAU[r], fext, ws, DDQ[r]))
    return bad


@numba.njit
def aba_states_generated(kernel, gravity, Q, V, TAU, DDQ):
    """The same loop around a generated kernel (a dispatcher argument: one compile per model)."""
    for r in range(Q.shape[0]):
        kernel(gravity, Q[r], V[r], TAU[r], DDQ[r])


def test_single_fastdyn(benchmark, robot):
    r = robot
    fd.aba(r.model, r.data, r.q, r.v, r.tau)
    tag(benchmark, "single", "aba", r, "fastdyn")
    benchmark(fd.aba, r.model, r.data, r.q, r.v, r.tau)


def test_single_fastdyn_kernel(benchmark, robot):
    """The kernel's dispatcher called straight from Python: no input checks."""
    r = robot
    args = (r.model.jnt, r.model.prm, r.q, r.v, r.tau, NO_FORCES, r.data.ws, r.data.ddq)
    aba_kernel(*args)
    tag(benchmark, "single", "aba", r, "fastdyn-kernel")
    benchmark(aba_kernel, *args)


def test_single_fastdyn_generated(benchmark, robot):
    """The model's generated code from Python, checked: gen.aba(data, q, v, tau), with the same
    input checks as fd.aba; it fills data.ddq only (no external forces)."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    gen.aba(r.data, r.q, r.v, r.tau)
    tag(benchmark, "single", "aba", r, "fastdyn-generated")
    benchmark(gen.aba, r.data, r.q, r.v, r.tau)


def test_single_pinocchio(benchmark, robot):
    r = robot
    pin.aba(r.pm, r.pd, r.q, r.v, r.tau)
    tag(benchmark, "single", "aba", r, "pinocchio")
    benchmark(pin.aba, r.pm, r.pd, r.q, r.v, r.tau)


def test_single_pinocchio_world(benchmark, robot):
    """pin.aba in Pinocchio's WORLD convention (fastdyn's ABA works in the world frame too);
    the default, above, is LOCAL. The report shows both (its "WORLD convention" section)."""
    r = robot
    world = pin.Convention.WORLD
    close = np.abs(pin.aba(r.pm, r.pd, r.q, r.v, r.tau, world) - r.a).max()
    assert close < 1e-8 * max(1.0, np.abs(r.a).max()), close  # the same accelerations
    tag(benchmark, "single", "aba", r, "pinocchio-world")
    benchmark(pin.aba, r.pm, r.pd, r.q, r.v, r.tau, world)


def test_kernel_fastdyn(benchmark, robot):
    r = robot
    out = np.empty_like(r.A)
    args = (r.model.jnt, r.model.prm, r.Q, r.V, r.TAU, NO_FORCES, r.data.ws, out)
    aba_states(*args)
    tag(benchmark, "kernel", "aba", r, "fastdyn", evals=NSTATES)
    benchmark(aba_states, *args)


def test_kernel_fastdyn_generated(benchmark, robot):
    """The model's generated kernel (fastdyn.codegen) in the same loop; no fext argument."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    out = np.empty_like(r.A)
    args = (gen.kernels.aba, r.model.gravity, r.Q, r.V, r.TAU, out)
    aba_states_generated(*args)
    tag(benchmark, "kernel", "aba", r, "fastdyn-generated", evals=NSTATES)
    benchmark(aba_states_generated, *args)


def test_kernel_pinocchio_cpp(benchmark, robot):
    r = robot
    out = np.empty((r.nv, NSTATES), order="F")
    args = (1, r.pool, r.Q.T, r.V.T, r.TAU.T, out)
    pin.abaInParallel(*args)
    tag(benchmark, "kernel", "aba", r, "pinocchio-cpp", evals=NSTATES)
    benchmark(pin.abaInParallel, *args)


def test_kernel_pinocchio_python_loop(benchmark, robot):
    """pin.aba state by state from Python: C++ time + binding overhead (see the next one)."""
    r = robot
    rows = list(zip(r.Q, r.V, r.TAU))
    pin_loop(pin.aba, r.pm, r.pd, rows)
    tag(benchmark, "kernel", "aba", r, "pinocchio-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.aba, r.pm, r.pd, rows)


def test_kernel_pinocchio_empty_loop(benchmark, robot):
    """The same loop on a joint-less model: the binding overhead alone."""
    r = robot
    em, ed = r.empty
    z = np.zeros(0)
    rows = [(z, z, z)] * NSTATES
    pin_loop(pin.aba, em, ed, rows)
    tag(benchmark, "kernel", "aba", r, "pinocchio-empty-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.aba, em, ed, rows)
