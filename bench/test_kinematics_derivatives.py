"""Kinematics and centroidal derivatives against Pinocchio's computeForwardKinematicsDerivatives,
getFrameAccelerationDerivatives and computeCentroidalDynamicsDerivatives: one call from Python,
and the kernel's time per evaluation inside an @njit loop over the seeded states. Pinocchio's
C++ time is estimated as in bench/test_derivatives.py: (its call from Python, state by state) -
(the same loop on a joint-less model), an upper bound on its C++ time (part of the binding cost
grows with nv), so the ratio is a lower bound. "frame_derivatives" is the pass followed by one
getter (LOCAL, the frame on the deepest joint), what a controller does at each step; its single
call row times the getter alone, after the pass. UR5, Panda, Solo12 and Talos.

Batch: ``fd.batch.get_frame_velocity_derivatives`` / ``frame_acceleration_derivatives`` (LOCAL,
the same frame) / ``centroidal_dynamics_derivatives`` over the NSTATES seeded states, 1 and 2
threads, allocating their outputs, against a Python loop of Pinocchio's
computeForwardKinematicsDerivatives + getFrame*Derivatives (or
computeCentroidalDynamicsDerivatives) over the same states on one thread."""

import numba
import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
from bench.ladder import NSTATES, ROBOTS, pin_loop, robot as _robot, tag
from fastdyn.kernels import (centroidal_dynamics_derivatives, frame_motion_derivatives,
                             kinematics_derivatives)

ALGOS = ("kinematics_derivatives", "frame_derivatives", "centroidal_derivatives")
LOCAL = fd.LOCAL


@pytest.fixture(params=ROBOTS, scope="module")
def robot(request):
    return _robot(request.param)


def _deepest_frame(m: fd.Model) -> int:
    """The first frame on the joint farthest from the root (most joints in its support)."""
    depth = [0] * m.njoints
    for i in range(1, m.njoints):
        depth[i] = depth[int(m.jnt[i]["parent"])] + 1
    j = int(np.argmax(depth))
    return next(f for f in range(m.nframes) if m.frm[f]["parent_joint"] == j)


@numba.njit
def kinematics_derivatives_states(jnt, prm, Q, V, A, ws):
    for r in range(Q.shape[0]):
        kinematics_derivatives(jnt, prm, Q[r], V[r], A[r], ws)


@numba.njit
def frame_derivatives_states(jnt, prm, frm, Q, V, A, ws, f, oMf, dv_dq, dv_dv, da_dq, da_dv,
                             da_da):
    for r in range(Q.shape[0]):
        kinematics_derivatives(jnt, prm, Q[r], V[r], A[r], ws)
        frame_motion_derivatives(jnt, frm, ws, f, 0, oMf, dv_dq, dv_dv, da_dq, da_dv, da_da)


@numba.njit
def centroidal_derivatives_states(jnt, prm, Q, V, A, ws, dh_dq, dhdot_dq, dhdot_dv, dhdot_da,
                                  hg, dhg):
    for r in range(Q.shape[0]):
        centroidal_dynamics_derivatives(jnt, prm, Q[r], V[r], A[r], ws, dh_dq, dhdot_dq,
                                        dhdot_dv, dhdot_da, hg, dhg)


def _pin_frame(f):
    def call(pm, pd, q, v, a):
        pin.computeForwardKinematicsDerivatives(pm, pd, q, v, a)
        pin.getFrameAccelerationDerivatives(pm, pd, f, pin.LOCAL)
    return call


@pytest.mark.parametrize("algo", ALGOS)
def test_single_fastdyn(benchmark, robot, algo):
    r = robot
    m, d = r.model, r.data
    fd.compute_forward_kinematics_derivatives(m, d, r.q, r.v, r.a)
    if algo == "kinematics_derivatives":
        f, args = fd.compute_forward_kinematics_derivatives, (r.q, r.v, r.a)
    elif algo == "frame_derivatives":
        f, args = fd.get_frame_acceleration_derivatives, (_deepest_frame(m), LOCAL)
    else:
        f, args = fd.compute_centroidal_dynamics_derivatives, (r.q, r.v, r.a)
    f(m, d, *args)
    tag(benchmark, "single", algo, r, "fastdyn")
    benchmark(f, m, d, *args)


@pytest.mark.parametrize("algo", ALGOS)
def test_single_pinocchio(benchmark, robot, algo):
    r = robot
    pin.computeForwardKinematicsDerivatives(r.pm, r.pd, r.q, r.v, r.a)
    if algo == "kinematics_derivatives":
        f, args = pin.computeForwardKinematicsDerivatives, (r.q, r.v, r.a)
    elif algo == "frame_derivatives":
        f, args = pin.getFrameAccelerationDerivatives, (_deepest_frame(r.model), pin.LOCAL)
    else:
        f, args = pin.computeCentroidalDynamicsDerivatives, (r.q, r.v, r.a)
    f(r.pm, r.pd, *args)
    tag(benchmark, "single", algo, r, "pinocchio")
    benchmark(f, r.pm, r.pd, *args)


@pytest.mark.parametrize("algo", ALGOS)
def test_kernel_fastdyn(benchmark, robot, algo):
    r = robot
    m, nv, ws = r.model, r.nv, r.data.ws
    mats = [np.zeros((6, nv)) for _ in range(5)]
    if algo == "kinematics_derivatives":
        loop, args = kinematics_derivatives_states, (m.jnt, m.prm, r.Q, r.V, r.A, ws)
    elif algo == "frame_derivatives":
        loop = frame_derivatives_states
        args = (m.jnt, m.prm, m.frm, r.Q, r.V, r.A, ws, _deepest_frame(m), r.data.oMf, *mats)
    else:
        loop = centroidal_derivatives_states
        args = (m.jnt, m.prm, r.Q, r.V, r.A, ws, *mats[:4], np.zeros(6), np.zeros(6))
    loop(*args)
    tag(benchmark, "kernel", algo, r, "fastdyn", evals=NSTATES)
    benchmark(loop, *args)


def _pin_call(r, algo, empty=False):
    if algo == "kinematics_derivatives":
        return pin.computeForwardKinematicsDerivatives
    if algo == "frame_derivatives":
        return _pin_frame(0 if empty else _deepest_frame(r.model))
    return pin.computeCentroidalDynamicsDerivatives


@pytest.mark.parametrize("algo", ALGOS)
def test_kernel_pinocchio_python_loop(benchmark, robot, algo):
    """Pinocchio state by state from Python: C++ time + binding overhead (see the next one)."""
    r = robot
    f = _pin_call(r, algo)
    rows = list(zip(r.Q, r.V, r.A))
    pin_loop(f, r.pm, r.pd, rows)
    tag(benchmark, "kernel", algo, r, "pinocchio-pyloop", evals=NSTATES)
    benchmark(pin_loop, f, r.pm, r.pd, rows)


@pytest.mark.parametrize("algo", ALGOS)
def test_kernel_pinocchio_empty_loop(benchmark, robot, algo):
    """The same loop on a joint-less model: the binding overhead alone. (Pinocchio's centroidal
    derivatives divide by the total mass: NaN on a massless model, at no cost in time.)"""
    r = robot
    f = _pin_call(r, algo, empty=True)
    em, ed = r.empty
    z = np.zeros(0)
    rows = [(z, z, z)] * NSTATES
    pin_loop(f, em, ed, rows)
    tag(benchmark, "kernel", algo, r, "pinocchio-empty-pyloop", evals=NSTATES)
    benchmark(pin_loop, f, em, ed, rows)


# --- batches: N states in one call, against Pinocchio's compute + get in a Python loop ------

BATCH_ALGOS = ("frame_velocity_derivatives", "frame_acceleration_derivatives",
               "centroidal_derivatives")


def _batch_call(r, algo):
    """fastdyn's batch call and its arguments over the NSTATES seeded states."""
    m, f = r.model, _deepest_frame(r.model)
    if algo == "frame_velocity_derivatives":
        return fd.batch.get_frame_velocity_derivatives, (m, r.Q, r.V, f, LOCAL)
    if algo == "frame_acceleration_derivatives":
        return fd.batch.get_frame_acceleration_derivatives, (m, r.Q, r.V, r.A, f, LOCAL)
    return fd.batch.compute_centroidal_dynamics_derivatives, (m, r.Q, r.V, r.A)


def _pin_batch_call(r, algo):
    f = _deepest_frame(r.model)
    if algo == "frame_velocity_derivatives":
        def call(pm, pd, q, v, a):
            pin.computeForwardKinematicsDerivatives(pm, pd, q, v, a)
            pin.getFrameVelocityDerivatives(pm, pd, f, pin.LOCAL)
        return call
    if algo == "frame_acceleration_derivatives":
        return _pin_frame(f)
    return pin.computeCentroidalDynamicsDerivatives


@pytest.mark.parametrize("algo", BATCH_ALGOS)
def test_batch_fastdyn(benchmark, robot, algo, threads):
    """The batch over NSTATES states, allocating its outputs, 1 and 2 threads."""
    f, args = _batch_call(robot, algo)
    f(*args)
    tag(benchmark, "batch", algo, robot, "fastdyn", evals=NSTATES,
        variant=f"N{NSTATES}-{threads}t", n=NSTATES, threads=threads)
    benchmark(f, *args)


@pytest.mark.parametrize("algo", BATCH_ALGOS)
def test_batch_pinocchio_python_loop(benchmark, robot, algo):
    """Pinocchio's compute (+ get, which returns new arrays) state by state, one thread."""
    r = robot
    f = _pin_batch_call(r, algo)
    rows = list(zip(r.Q, r.V, r.A))
    pin_loop(f, r.pm, r.pd, rows)
    tag(benchmark, "batch", algo, r, "pinocchio-pyloop", evals=NSTATES,
        variant=f"N{NSTATES}-1t", n=NSTATES, threads=1)
    benchmark.pedantic(pin_loop, (f, r.pm, r.pd, rows), rounds=5, iterations=1)
