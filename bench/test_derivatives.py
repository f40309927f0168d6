"""RNEA and ABA derivatives against Pinocchio's computeRNEADerivatives / computeABADerivatives:
one call from Python, and the kernel's time per evaluation inside an @njit loop over the seeded
states. Pinocchio 4.1 has no parallel derivatives, so its C++ time is estimated as (the call
from Python, state by state) - (the same loop on a joint-less model), as bench/test_crba.py
does; part of the binding cost (three nv x nv results) grows with nv, so the estimate is an
upper bound on Pinocchio's C++ time and the ratio a lower bound. UR5, Panda, Solo12 and Talos,
the issue's targets. ABA derivatives are taken at tau = RNEA(q, v, a) of each state.

"fastdyn-generated" rows: the model's generated derivative kernels (``fastdyn.codegen.generate(
model, algorithms=codegen.DERIVATIVES)``), in the same loop and as the checked single call
``gen.compute_*_derivatives(data, ...)``; generated and compiled before timing (their one-time
cost is printed, not timed). Talos's generated derivatives take minutes to compile the first
time (about 4 minutes on this 2-core machine); later runs load them from the disk cache."""

import time

import numba
import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
from bench.ladder import NSTATES, pin_loop, robot as _robot, tag
from fastdyn import codegen
from fastdyn.kernels import aba_derivatives, rnea_derivatives

NO_FORCES = np.zeros((0, 6))
ALGOS = ("rnea_derivatives", "aba_derivatives")


@pytest.fixture(params=("ur5", "panda", "solo12", "talos"), scope="module")
def robot(request):
    return _robot(request.param)


@numba.njit
def rnea_derivatives_states(jnt, prm, Q, V, A, fext, ws, tau, dq, dv, M):
    for r in range(Q.shape[0]):
        rnea_derivatives(jnt, prm, Q[r], V[r], A[r], fext, ws, tau, dq, dv, M)


@numba.njit
def aba_derivatives_states(jnt, prm, dof, Q, V, TAU, fext, ws, ddq, dq, dv, M, U, D, Minv):
    bad = -1
    for r in range(Q.shape[0]):
        bad = max(bad, aba_derivatives(jnt, prm, dof, Q[r], V[r], TAU[r], fext, ws, ddq, dq, dv,
                                       M, U, D, Minv))
    return bad


@numba.njit
def rnea_derivatives_states_generated(kernel, gravity, Q, V, A, tau, dq, dv, M):
    """The same loop around a generated kernel (a dispatcher argument: one compile per model)."""
    for r in range(Q.shape[0]):
        kernel(gravity, Q[r], V[r], A[r], tau, dq, dv, M)


@numba.njit
def aba_derivatives_states_generated(kernel, gravity, Q, V, TAU, ddq, dq, dv, Minv):
    for r in range(Q.shape[0]):
        kernel(gravity, Q[r], V[r], TAU[r], ddq, dq, dv, Minv)


_generated = {}


def _generated_derivatives(r):
    """The robot's generated derivative kernels, generated and compiled once (skip: joint
    types codegen refuses)."""
    if r.name not in _generated:
        t0 = time.perf_counter()
        try:
            gen = codegen.generate(r.model, algorithms=codegen.DERIVATIVES)
        except NotImplementedError:
            pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
        gen.compute_rnea_derivatives(r.data, r.q, r.v, r.a)
        gen.compute_aba_derivatives(r.data, r.q, r.v, r.tau)
        print(f"\n{r.name}: generated derivatives ready in {time.perf_counter() - t0:.1f} s "
              f"(generation + compile, or the disk cache)")
        _generated[r.name] = gen
    return _generated[r.name]


def _single(r, algo):
    """(fastdyn call, pinocchio call, arguments after (model, data)) at the first state."""
    if algo == "rnea_derivatives":
        return fd.compute_rnea_derivatives, pin.computeRNEADerivatives, (r.q, r.v, r.a)
    return fd.compute_aba_derivatives, pin.computeABADerivatives, (r.q, r.v, r.tau)


@pytest.mark.parametrize("algo", ALGOS)
def test_single_fastdyn(benchmark, robot, algo):
    r = robot
    f, _, args = _single(r, algo)
    f(r.model, r.data, *args)
    tag(benchmark, "single", algo, r, "fastdyn")
    benchmark(f, r.model, r.data, *args)


@pytest.mark.parametrize("algo", ALGOS)
def test_single_pinocchio(benchmark, robot, algo):
    r = robot
    _, f, args = _single(r, algo)
    f(r.pm, r.pd, *args)
    tag(benchmark, "single", algo, r, "pinocchio")
    benchmark(f, r.pm, r.pd, *args)


@pytest.mark.parametrize("algo", ALGOS)
def test_kernel_fastdyn(benchmark, robot, algo):
    r = robot
    m, nv = r.model, r.nv
    mats = [np.zeros((nv, nv)) for _ in range(5)]
    if algo == "rnea_derivatives":
        loop = rnea_derivatives_states
        args = (m.jnt, m.prm, r.Q, r.V, r.A, NO_FORCES, r.data.ws, np.zeros(nv), *mats[:3])
    else:
        loop = aba_derivatives_states
        args = (m.jnt, m.prm, m.dof, r.Q, r.V, r.TAU, NO_FORCES, r.data.ws, np.zeros(nv),
                mats[0], mats[1], mats[2], mats[3], np.zeros(nv), mats[4])
    loop(*args)
    tag(benchmark, "kernel", algo, r, "fastdyn", evals=NSTATES)
    benchmark(loop, *args)


@pytest.mark.parametrize("algo", ALGOS)
def test_kernel_pinocchio_python_loop(benchmark, robot, algo):
    """Pinocchio state by state from Python: C++ time + binding overhead (see the next one)."""
    r = robot
    _, f, _ = _single(r, algo)
    rows = list(zip(r.Q, r.V, r.A if algo == "rnea_derivatives" else r.TAU))
    pin_loop(f, r.pm, r.pd, rows)
    tag(benchmark, "kernel", algo, r, "pinocchio-pyloop", evals=NSTATES)
    benchmark(pin_loop, f, r.pm, r.pd, rows)


@pytest.mark.parametrize("algo", ALGOS)
def test_kernel_pinocchio_empty_loop(benchmark, robot, algo):
    """The same loop on a joint-less model: the binding overhead alone."""
    r = robot
    _, f, _ = _single(r, algo)
    em, ed = r.empty
    z = np.zeros(0)
    rows = [(z, z, z)] * NSTATES
    pin_loop(f, em, ed, rows)
    tag(benchmark, "kernel", algo, r, "pinocchio-empty-pyloop", evals=NSTATES)
    benchmark(pin_loop, f, em, ed, rows)


@pytest.mark.parametrize("algo", ALGOS)
def test_single_fastdyn_generated(benchmark, robot, algo):
    """gen.compute_*_derivatives(data, ...): the object API's checks, the generated kernel."""
    r = robot
    gen = _generated_derivatives(r)
    f = getattr(gen, "compute_" + algo)
    args = (r.q, r.v, r.a) if algo == "rnea_derivatives" else (r.q, r.v, r.tau)
    f(r.data, *args)
    tag(benchmark, "single", algo, r, "fastdyn-generated")
    benchmark(f, r.data, *args)


@pytest.mark.parametrize("algo", ALGOS)
def test_kernel_fastdyn_generated(benchmark, robot, algo):
    r = robot
    gen = _generated_derivatives(r)
    nv = r.nv
    mats = [np.zeros((nv, nv)) for _ in range(3)]
    if algo == "rnea_derivatives":
        loop = rnea_derivatives_states_generated
        args = (gen.kernels.rnea_derivatives, r.model.gravity, r.Q, r.V, r.A, np.zeros(nv), *mats)
    else:
        loop = aba_derivatives_states_generated
        args = (gen.kernels.aba_derivatives, r.model.gravity, r.Q, r.V, r.TAU, np.zeros(nv),
                *mats)
    loop(*args)
    tag(benchmark, "kernel", algo, r, "fastdyn-generated", evals=NSTATES)
    benchmark(loop, *args)
