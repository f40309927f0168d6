"""The everyday API, one public call at a time, beside its Pinocchio counterpart from Python.

Each row times one call as a control loop or an analysis script makes it: input checks
included, Data preallocated, the state of bench/ladder.py. Pinocchio's counterpart is the call
doing the same work (e.g. ``pin.computeFrameJacobian``, forward kinematics included, against
``fd.compute_frame_jacobian``; ``pin.updateFramePlacement`` against ``fd.frame_placement`` after forward
kinematics), named in CALLS. ``joint_placement`` is timed against reading ``data.oMi[j]``, the
SE3 Pinocchio's forward kinematics left there (fastdyn builds the 4x4 from its workspace).
Before anything is timed, the two results are compared (to 1e-8, relative), so a row cannot
pair calls that compute different things.

Where Pinocchio has no single call, the row says what stands in for it: the IK step is the
damped least-squares step of Pinocchio's own inverse-kinematics example written with pin
calls (fastdyn's ``inverse_kinematics`` with ``max_iter=1`` does one step of the same method,
its bookkeeping included), and the batch of random configurations is ``pin.randomConfiguration``
in a Python loop.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
from bench.ladder import robot, tag

API_MODELS = ("ur5", "panda", "solo12", "talos")
FRAME = {"ur5": "tool0", "panda": "panda_hand_tcp", "solo12": "FL_FOOT",
         "talos": "gripper_left_base_link"}
NBATCH = 100  # configurations per batch random_configuration call


class Setup:
    """Per robot: both libraries' frame and joint ids, a second configuration, an IK target."""

    def __init__(self, r):
        self.r = r
        m = r.model
        self.f = m.frame_id(FRAME[r.name])
        self.pf = r.pm.getFrameId(FRAME[r.name])
        self.j = m.njoints - 1
        self.q1 = r.Q[1]
        self.b = r.TAU[2]
        fd.forward_kinematics(m, r.data, r.Q[3])
        self.target = fd.frame_placement(m, r.data, self.f)
        self.otarget = pin.SE3(self.target)


_SETUPS: dict[str, Setup] = {}


def setup(name: str) -> Setup:
    if name not in _SETUPS:
        _SETUPS[name] = Setup(robot(name))
    return _SETUPS[name]


def _fk_fd(s, v=False, a=False):
    r = s.r
    fd.forward_kinematics(r.model, r.data, r.q, r.v if v or a else None, r.a if a else None)


def _fk_pin(s, v=False, a=False):
    r = s.r
    if a:
        pin.forwardKinematics(r.pm, r.pd, r.q, r.v, r.a)
    elif v:
        pin.forwardKinematics(r.pm, r.pd, r.q, r.v)
    else:
        pin.forwardKinematics(r.pm, r.pd, r.q)


def _pin_ik_step(pm, pd, q, fid, oMdes, mu=1e-6):
    """One damped least-squares step towards oMdes, as in Pinocchio's inverse-kinematics
    example: e = log6(oMf^-1 oMdes), J = -Jlog6 J_local, q <- q (+) -J^T (J J^T + mu)^-1 e."""
    pin.forwardKinematics(pm, pd, q)
    iMd = pin.updateFramePlacement(pm, pd, fid).actInv(oMdes)
    err = pin.log6(iMd).vector
    J = -pin.Jlog6(iMd.inverse()) @ pin.computeFrameJacobian(pm, pd, q, fid)
    v = -J.T @ np.linalg.solve(J @ J.T + mu * np.eye(6), err)
    return pin.integrate(pm, q, v)


def _pin_random_batch(pm, n):
    return [pin.randomConfiguration(pm) for _ in range(n)]


def _fd_ik_step(m, d, f, target, q0):
    return fd.inverse_kinematics(m, d, f, target, q0, max_iter=1).q


LOCAL = (fd.LOCAL, pin.ReferenceFrame.LOCAL)
# call -> (fastdyn (function, args), Pinocchio (function, args), compare results?), each built
# from a Setup (after whatever the call reads: forward kinematics, crba...). "upper": compare
# the upper triangles (Pinocchio's computeMinverse fills only that one).
CALLS = {
    "integrate": (lambda s: (fd.integrate, (s.r.model, s.r.q, s.r.v)),
                  lambda s: (pin.integrate, (s.r.pm, s.r.q, s.r.v)), True),
    "difference": (lambda s: (fd.difference, (s.r.model, s.r.q, s.q1)),
                   lambda s: (pin.difference, (s.r.pm, s.r.q, s.q1)), True),
    "normalize": (lambda s: (fd.normalize, (s.r.model, s.r.q)),
                  lambda s: (pin.normalize, (s.r.pm, s.r.q)), True),
    "interpolate": (lambda s: (fd.interpolate, (s.r.model, s.r.q, s.q1, 0.3)),
                    lambda s: (pin.interpolate, (s.r.pm, s.r.q, s.q1, 0.3)), True),
    "neutral": (lambda s: (fd.neutral, (s.r.model,)),
                lambda s: (pin.neutral, (s.r.pm,)), True),
    "random_configuration": (lambda s: (fd.random_configuration, (s.r.model,)),
                             lambda s: (pin.randomConfiguration, (s.r.pm,)), False),
    "d_integrate_dq": (lambda s: (fd.d_integrate, (s.r.model, s.r.q, s.r.v, "q")),
                       lambda s: (pin.dIntegrate, (s.r.pm, s.r.q, s.r.v, pin.ARG0)), True),
    "d_difference_dq1": (lambda s: (fd.d_difference, (s.r.model, s.r.q, s.q1, "q1")),
                         lambda s: (pin.dDifference, (s.r.pm, s.r.q, s.q1, pin.ARG1)), True),
    "frame_placement": (lambda s: (_fk_fd(s), (fd.frame_placement, (s.r.model, s.r.data,
                                                                   s.f)))[1],
                        lambda s: (_fk_pin(s), (pin.updateFramePlacement, (s.r.pm, s.r.pd,
                                                                           s.pf)))[1], True),
    "joint_placement": (lambda s: (_fk_fd(s), (fd.joint_placement, (s.r.model, s.r.data,
                                                                   s.j)))[1],
                        lambda s: (_fk_pin(s), (s.r.pd.oMi.__getitem__, (s.j,)))[1], True),
    "update_frame_placements": (
        lambda s: (_fk_fd(s), (fd.update_frame_placements, (s.r.model, s.r.data)))[1],
        lambda s: (_fk_pin(s), (pin.updateFramePlacements, (s.r.pm, s.r.pd)))[1], False),
    "frames_forward_kinematics": (
        lambda s: (fd.frames_forward_kinematics, (s.r.model, s.r.data, s.r.q)),
        lambda s: (pin.framesForwardKinematics, (s.r.pm, s.r.pd, s.r.q)), False),
    "frame_velocity": (
        lambda s: (_fk_fd(s, v=True), (fd.get_frame_velocity, (s.r.model, s.r.data, s.f,
                                                            LOCAL[0])))[1],
        lambda s: (_fk_pin(s, v=True), (pin.getFrameVelocity, (s.r.pm, s.r.pd, s.pf,
                                                               LOCAL[1])))[1], True),
    "frame_acceleration": (
        lambda s: (_fk_fd(s, a=True), (fd.get_frame_acceleration, (s.r.model, s.r.data, s.f,
                                                                LOCAL[0])))[1],
        lambda s: (_fk_pin(s, a=True), (pin.getFrameAcceleration, (s.r.pm, s.r.pd, s.pf,
                                                                   LOCAL[1])))[1], True),
    "frame_classical_acceleration": (
        lambda s: (_fk_fd(s, a=True), (fd.get_frame_classical_acceleration,
                                        (s.r.model, s.r.data, s.f, LOCAL[0])))[1],
        lambda s: (_fk_pin(s, a=True), (pin.getFrameClassicalAcceleration,
                                         (s.r.pm, s.r.pd, s.pf, LOCAL[1])))[1], True),
    "frame_jacobian": (
        lambda s: (fd.compute_frame_jacobian, (s.r.model, s.r.data, s.r.q, s.f, LOCAL[0])),
        lambda s: (pin.computeFrameJacobian, (s.r.pm, s.r.pd, s.r.q, s.pf, LOCAL[1])), True),
    "joint_jacobian": (
        lambda s: (fd.compute_joint_jacobian, (s.r.model, s.r.data, s.r.q, s.j, LOCAL[0])),
        lambda s: (pin.computeJointJacobian, (s.r.pm, s.r.pd, s.r.q, s.j)), True),
    "center_of_mass": (lambda s: (fd.center_of_mass, (s.r.model, s.r.data, s.r.q)),
                       lambda s: (pin.centerOfMass, (s.r.pm, s.r.pd, s.r.q)), True),
    "jacobian_center_of_mass": (
        lambda s: (fd.jacobian_center_of_mass, (s.r.model, s.r.data, s.r.q)),
        lambda s: (pin.jacobianCenterOfMass, (s.r.pm, s.r.pd, s.r.q)), True),
    "compute_minverse": (lambda s: (fd.compute_minverse, (s.r.model, s.r.data, s.r.q)),
                         lambda s: (pin.computeMinverse, (s.r.pm, s.r.pd, s.r.q)), "upper"),
    "cholesky": (
        lambda s: (fd.crba(s.r.model, s.r.data, s.r.q), (fd.cholesky, (s.r.model, s.r.data)))[1],
        lambda s: (pin.crba(s.r.pm, s.r.pd, s.r.q),
                   (pin.cholesky.decompose, (s.r.pm, s.r.pd)))[1], False),
    "cholesky_solve": (
        lambda s: ((fd.crba(s.r.model, s.r.data, s.r.q), fd.cholesky(s.r.model, s.r.data)),
                   (fd.cholesky_solve, (s.r.model, s.r.data, s.b)))[1],
        lambda s: ((pin.crba(s.r.pm, s.r.pd, s.r.q), pin.cholesky.decompose(s.r.pm, s.r.pd)),
                   (pin.cholesky.solve, (s.r.pm, s.r.pd, s.b)))[1], True),
    "kinetic_energy": (lambda s: (fd.compute_kinetic_energy, (s.r.model, s.r.data, s.r.q, s.r.v)),
                       lambda s: (pin.computeKineticEnergy, (s.r.pm, s.r.pd, s.r.q, s.r.v)),
                       True),
    "potential_energy": (lambda s: (fd.compute_potential_energy, (s.r.model, s.r.data, s.r.q)),
                         lambda s: (pin.computePotentialEnergy, (s.r.pm, s.r.pd, s.r.q)), True),
    "mechanical_energy": (
        lambda s: (fd.compute_mechanical_energy, (s.r.model, s.r.data, s.r.q, s.r.v)),
        lambda s: (pin.computeMechanicalEnergy, (s.r.pm, s.r.pd, s.r.q, s.r.v)), True),
    "nonlinear_effects": (
        lambda s: (fd.non_linear_effects, (s.r.model, s.r.data, s.r.q, s.r.v)),
        lambda s: (pin.nonLinearEffects, (s.r.pm, s.r.pd, s.r.q, s.r.v)), True),
    "generalized_gravity": (
        lambda s: (fd.compute_generalized_gravity, (s.r.model, s.r.data, s.r.q)),
        lambda s: (pin.computeGeneralizedGravity, (s.r.pm, s.r.pd, s.r.q)), True),
    "ccrba": (lambda s: (fd.ccrba, (s.r.model, s.r.data, s.r.q, s.r.v)),
              lambda s: (pin.ccrba, (s.r.pm, s.r.pd, s.r.q, s.r.v)), True),
    "compute_centroidal_map": (
        lambda s: (fd.compute_centroidal_map, (s.r.model, s.r.data, s.r.q)),
        lambda s: (pin.computeCentroidalMap, (s.r.pm, s.r.pd, s.r.q)), True),
    "compute_centroidal_momentum": (
        lambda s: (fd.compute_centroidal_momentum, (s.r.model, s.r.data, s.r.q, s.r.v)),
        lambda s: (pin.computeCentroidalMomentum, (s.r.pm, s.r.pd, s.r.q, s.r.v)), True),
    "ik_step": (lambda s: (_fd_ik_step, (s.r.model, s.r.data, s.f, s.target, s.r.q)),
                lambda s: (_pin_ik_step, (s.r.pm, s.r.pd, s.r.q, s.pf, s.otarget)), False),
    "batch_random_configuration": (
        lambda s: (fd.batch.random_configuration, (s.r.model, NBATCH)),
        lambda s: (_pin_random_batch, (s.r.pm, NBATCH)), False),
}


def as_array(x) -> np.ndarray:
    """A result as numbers: SE3 as its 4x4 matrix, Motion and Force as [linear; angular]."""
    if isinstance(x, pin.SE3):
        return x.homogeneous
    if isinstance(x, (pin.Motion, pin.Force)):
        return x.vector
    return np.asarray(x, dtype=float)


def _prepared(call: str, name: str):
    s = setup(name)
    (f, fargs), (p, pargs) = CALLS[call][0](s), CALLS[call][1](s)
    return s, (f, fargs), (p, pargs)


@pytest.fixture(params=API_MODELS, scope="module")
def api_robot(request):
    return request.param


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("side", ("fastdyn", "pinocchio"))
def test_api(benchmark, api_robot, call, side):
    s, (f, fargs), (p, pargs) = _prepared(call, api_robot)
    if CALLS[call][2]:  # the pair computes the same thing, or the row would mean nothing
        x, y = as_array(f(*fargs)), as_array(p(*pargs))
        if CALLS[call][2] == "upper":
            x, y = np.triu(x), np.triu(y)
        np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-8 * max(1.0, np.abs(y).max()),
                                   err_msg=f"{call} on {api_robot}: fastdyn and Pinocchio "
                                   "disagree")
        s, (f, fargs), (p, pargs) = _prepared(call, api_robot)  # state as set up for timing
    fn, args = (f, fargs) if side == "fastdyn" else (p, pargs)
    fn(*args)  # warm-up (compilation, first touch)
    evals = NBATCH if call.startswith("batch_") else 1
    tag(benchmark, "api", call, s.r, side, evals=evals)
    benchmark(fn, *args)
