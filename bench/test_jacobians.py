"""Joint Jacobians (world J of every dof: Pinocchio's computeJointJacobians) against Pinocchio:
one call from Python, and the kernel's time per evaluation inside an @njit loop (C++ time
estimated as in test_crba.py). Skipped while fastdyn.jacobians is missing."""

import numba
import numpy as np
import pinocchio as pin
import pytest

from bench.ladder import NSTATES, pin_loop, tag

jacobians = pytest.importorskip("fastdyn.jacobians")
_kernels = pytest.importorskip("fastdyn.kernels.algorithms.jacobian")
if not hasattr(_kernels, "joint_jacobians"):
    pytest.skip("fastdyn.kernels.algorithms.jacobian.joint_jacobians is missing",
                allow_module_level=True)
jac_kernel = _kernels.joint_jacobians


@numba.njit
def jac_states(jnt, prm, Q, ws, J):
    for r in range(Q.shape[0]):
        jac_kernel(jnt, prm, Q[r], ws, J)


@numba.njit
def jac_states_generated(kernel, Q, ws, J):
    """The same loop around a generated kernel (a dispatcher argument: one compile per model)."""
    for r in range(Q.shape[0]):
        kernel(Q[r], ws, J)


def test_single_fastdyn(benchmark, robot):
    r = robot
    jacobians.compute_joint_jacobians(r.model, r.data, r.q)
    tag(benchmark, "single", "jacobians", r, "fastdyn")
    benchmark(jacobians.compute_joint_jacobians, r.model, r.data, r.q)


def test_single_fastdyn_kernel(benchmark, robot):
    """The kernel's dispatcher called straight from Python: no input checks."""
    r = robot
    args = (r.model.jnt, r.model.prm, r.q, r.data.ws, np.zeros((6, r.nv)))
    jac_kernel(*args)
    tag(benchmark, "single", "jacobians", r, "fastdyn-kernel")
    benchmark(jac_kernel, *args)


def test_single_fastdyn_generated(benchmark, robot):
    """The model's generated code from Python, checked: gen.compute_joint_jacobians(data, q),
    the same work as test_single_fastdyn (placements, then the world J of every dof into
    data.J) with the same input checks."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    gen.compute_joint_jacobians(r.data, r.q)
    tag(benchmark, "single", "jacobians", r, "fastdyn-generated")
    benchmark(gen.compute_joint_jacobians, r.data, r.q)


def test_single_pinocchio(benchmark, robot):
    r = robot
    pin.computeJointJacobians(r.pm, r.pd, r.q)
    tag(benchmark, "single", "jacobians", r, "pinocchio")
    benchmark(pin.computeJointJacobians, r.pm, r.pd, r.q)


def test_kernel_fastdyn(benchmark, robot):
    r = robot
    args = (r.model.jnt, r.model.prm, r.Q, r.data.ws, np.zeros((6, r.nv)))
    jac_states(*args)
    tag(benchmark, "kernel", "jacobians", r, "fastdyn", evals=NSTATES)
    benchmark(jac_states, *args)


def test_kernel_fastdyn_generated(benchmark, robot):
    """The model's generated kernel (fastdyn.codegen) in the same loop."""
    r = robot
    gen = r.generated
    if gen is None:
        pytest.skip(f"{r.name}: fastdyn.codegen does not support its joint types")
    args = (gen.kernels.joint_jacobians, r.Q, r.data.ws, np.zeros((6, r.nv)))
    jac_states_generated(*args)
    tag(benchmark, "kernel", "jacobians", r, "fastdyn-generated", evals=NSTATES)
    benchmark(jac_states_generated, *args)


def test_kernel_pinocchio_python_loop(benchmark, robot):
    r = robot
    rows = [(q,) for q in r.Q]
    pin_loop(pin.computeJointJacobians, r.pm, r.pd, rows)
    tag(benchmark, "kernel", "jacobians", r, "pinocchio-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.computeJointJacobians, r.pm, r.pd, rows)


def test_kernel_pinocchio_empty_loop(benchmark, robot):
    r = robot
    em, ed = r.empty
    rows = [(np.zeros(0),)] * NSTATES
    pin_loop(pin.computeJointJacobians, em, ed, rows)
    tag(benchmark, "kernel", "jacobians", r, "pinocchio-empty-pyloop", evals=NSTATES)
    benchmark(pin_loop, pin.computeJointJacobians, em, ed, rows)
