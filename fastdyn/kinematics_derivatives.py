"""Analytical derivatives of joint and frame velocities and accelerations, and of the
centroidal momentum and its rate, with respect to q, v and a.

Methods: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS
2018 (the world-frame partials of RNEA's forward pass), carried to the LOCAL, WORLD and
LOCAL_WORLD_ALIGNED references of Traversaro & Saccon (2019); the equations are in
kernels/algorithms/kinematics_derivatives.py and centroidal_derivatives.py.

Derivatives with respect to q are along tangent vectors: d/dq is d/d(dq) at q (+) dq =
``integrate(model, q, dq)``, Pinocchio's convention, so every matrix is (6, nv) and
interchangeable with pinocchio.getJointVelocityDerivatives / getJointAccelerationDerivatives /
getFrameVelocityDerivatives / getFrameAccelerationDerivatives /
computeCentroidalDynamicsDerivatives, with three differences, where these are the derivatives
of what fastdyn.get_frame_velocity / frame_acceleration / compute_centroidal_momentum* return
(central finite differences agree; tests/test_kinematics_derivatives.py):

- LOCAL_WORLD_ALIGNED, d/dq: Pinocchio 4.1 holds the reference point (the frame's origin)
  fixed; the frame's origin moves with q, which adds [w x dp/dq; 0] to every column (w the
  angular velocity, or acceleration, in world axes). d/dv and d/da agree.
- WORLD and LOCAL_WORLD_ALIGNED da/dq, on the columns of spherical and planar joints that are
  not at the root (where two columns of S do not commute): Pinocchio 4.1 lacks the term
  (ov_b - ov_parent) x ((ov_joint - ov_parent) x J_k) (kinematics_derivatives.py's notation).
- spherical_zyx and universal joints, whose motion subspace S depends on q: Pinocchio 4.1
  omits dS/dq in the q columns (and dc_J/dv in the v columns) of those joints.

Usage: ``compute_forward_kinematics_derivatives(model, data, q, v, a)`` once, then any number
of ``get_joint_*`` / ``get_frame_*`` calls, which read what it left in ``data`` (and refuse
once any other algorithm has run on ``data``). ``compute_centroidal_dynamics_derivatives``
leaves the same, so the getters can follow it too. The accelerations are spatial ones (gravity
excluded), as frame_acceleration's. Results are views into ``data`` (overwritten by the next
call of the same kind: copy them to keep them), or the caller's arrays given as ``out``.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal import arrays as _arrays
from ._internal.checks import QUAT_TOL
from ._internal.fastcall import Kernel
from .frames import LOCAL, reference_code
from .kernels.entry import guard as _guard
from .kernels.algorithms import kinematics_derivatives as _kd
from .kernels.layout import OYC
from .kinematics import NO_FORCES
from .model import Data, Model

__all__ = ["compute_forward_kinematics_derivatives", "get_joint_velocity_derivatives",
           "get_joint_acceleration_derivatives", "get_frame_velocity_derivatives",
           "get_frame_acceleration_derivatives", "compute_centroidal_dynamics_derivatives"]

DERIVATIVES = 4  # data.kinematics once the pass has run: placements, v, a and their partials
_NO_ACC = np.zeros((6, 0))  # "velocity derivatives only" for the getter kernels

_pass = Kernel(_guard.kinematics_derivatives_checked, vectors=(2, 3, 4))
_centroidal = Kernel(_guard.centroidal_dynamics_derivatives_checked, vectors=(2, 3, 4))
_joint = Kernel(_kd.joint_motion_derivatives)
_frame = Kernel(_kd.frame_motion_derivatives)


def compute_forward_kinematics_derivatives(model: Model, data: Data, q, v, a) -> None:
    """The partial derivatives of every joint's velocity and acceleration at (q, v, a), kept in
    ``data`` for the get_* functions (Pinocchio's computeForwardKinematicsDerivatives). Also
    leaves what forward_kinematics(model, data, q, v, a) does (placements, data.v, data.a)."""
    _arrays.same_data(model, data)
    q, v, a = _checks.fast_state(q, v, a, model.nq, model.nv, "a")
    code = _pass.call(model.jnt, model.prm, q, v, a, data.ws, NO_FORCES, QUAT_TOL)
    data.kinematics = 0 if code else DERIVATIVES
    if code:
        _checks.explain(model, code, ("q", "v", "a"), q, v, a)


def _ready(model: Model, data: Data, what: str) -> None:
    _arrays.same_data(model, data)
    if data.kinematics < DERIVATIVES:
        raise RuntimeError(f"{what} reads the kinematics derivatives: call "
                           f"compute_forward_kinematics_derivatives(model, data, q, v, a) first "
                           f"(any other algorithm run on this data since replaces them)")


def _outs(model: Model, out, names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    """The caller's ``out`` arrays, checked."""
    if not isinstance(out, (tuple, list)) or len(out) != len(names):
        raise TypeError(f"out must be a tuple of {len(names)} arrays ({', '.join(names)}), "
                        f"got {type(out).__name__}")
    arrays = tuple(_checks.output(x, (6, model.nv), f"out[{k}] ({n})")
                   for k, (x, n) in enumerate(zip(out, names)))
    if len({id(x) for x in arrays}) != len(arrays):
        raise ValueError("out must hold distinct arrays")
    return arrays


_VELOCITY = ("dv_dq", "dv_dv")
_ACCELERATION = ("dv_dq", "da_dq", "da_dv", "da_da")


def _target(model: Model, data: Data, kind: str, target, reference, what: str) -> int:
    """The joint or frame index (a plain in-range int passes at once), after the checks."""
    _arrays.same_data(model, data)
    n = model.njoints if kind == "joint" else model.nframes
    if not (type(target) is int and 0 <= target < n):
        target = (_checks.joint_index if kind == "joint" else _checks.frame_index)(model, target)
    if not (type(reference) is int and 0 <= reference <= 2):
        reference_code(reference)  # raises, naming the accepted values
    if data.kinematics < DERIVATIVES:
        _ready(model, data, what)
    return target


def _velocity(model: Model, data: Data, kind: str, target, reference, out):
    i = _target(model, data, kind, target, reference, f"get_{kind}_velocity_derivatives")
    dv_dq, dv_dv = (data.dv_dq, data.dv_dv) if out is None else _outs(model, out, _VELOCITY)
    if kind == "joint":
        _joint.call(model.jnt, data.ws, i, reference, dv_dq, dv_dv, _NO_ACC, _NO_ACC, _NO_ACC)
    else:
        _frame.call(model.jnt, model.frm, data.ws, i, reference, data.oMf, dv_dq, dv_dv, _NO_ACC,
                    _NO_ACC, _NO_ACC)
    return dv_dq, dv_dv


def _acceleration(model: Model, data: Data, kind: str, target, reference, out):
    i = _target(model, data, kind, target, reference, f"get_{kind}_acceleration_derivatives")
    if out is None:
        dv_dq, da_dq, da_dv, da_da = data.dv_dq, data.da_dq, data.da_dv, data.da_da
    else:
        dv_dq, da_dq, da_dv, da_da = _outs(model, out, _ACCELERATION)
    if kind == "joint":
        _joint.call(model.jnt, data.ws, i, reference, dv_dq, data.dv_dv, da_dq, da_dv, da_da)
    else:
        _frame.call(model.jnt, model.frm, data.ws, i, reference, data.oMf, dv_dq, data.dv_dv,
                    da_dq, da_dv, da_da)
    return dv_dq, da_dq, da_dv, da_da


def get_joint_velocity_derivatives(model: Model, data: Data, joint: int | str,
                                   reference: int = LOCAL,
                                   out=None) -> tuple[np.ndarray, np.ndarray]:
    """(dv_dq, dv_dv), each (6, nv), of joint ``joint``'s velocity in ``reference`` at the state
    of the last compute_forward_kinematics_derivatives (Pinocchio's
    getJointVelocityDerivatives; dv_dv is the joint's Jacobian). Views of data.dv_dq,
    data.dv_dv, or the arrays of ``out`` (a tuple of two (6, nv) float64 arrays)."""
    return _velocity(model, data, "joint", joint, reference, out)


def get_joint_acceleration_derivatives(model: Model, data: Data, joint: int | str,
                                       reference: int = LOCAL, out=None
                                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray]:
    """(dv_dq, da_dq, da_dv, da_da), each (6, nv), of joint ``joint``'s velocity and spatial
    acceleration in ``reference`` (Pinocchio's getJointAccelerationDerivatives; da_da is the
    joint's Jacobian). Views of data.dv_dq, da_dq, da_dv, da_da, or the arrays of ``out``."""
    return _acceleration(model, data, "joint", joint, reference, out)


def get_frame_velocity_derivatives(model: Model, data: Data, frame: int | str,
                                   reference: int = LOCAL,
                                   out=None) -> tuple[np.ndarray, np.ndarray]:
    """(dv_dq, dv_dv) of frame ``frame``'s velocity in ``reference`` (Pinocchio's
    getFrameVelocityDerivatives; dv_dv is frame_jacobian's J); data.oMf[frame] is updated."""
    return _velocity(model, data, "frame", frame, reference, out)


def get_frame_acceleration_derivatives(model: Model, data: Data, frame: int | str,
                                       reference: int = LOCAL, out=None
                                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray]:
    """(dv_dq, da_dq, da_dv, da_da) of frame ``frame``'s velocity and spatial acceleration in
    ``reference`` (Pinocchio's getFrameAccelerationDerivatives)."""
    return _acceleration(model, data, "frame", frame, reference, out)


def compute_centroidal_dynamics_derivatives(model: Model, data: Data, q, v, a
                                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                       np.ndarray]:
    """(dh_dq, dhdot_dq, dhdot_dv, dhdot_da), each (6, nv), of the centroidal momentum
    h_g = [m c'; k_g] and of its rate dh_g/dt (gravity excluded; linear first, about the com,
    world axes, as compute_centroidal_momentum) at (q, v, a): Pinocchio's
    computeCentroidalDynamicsDerivatives. dhdot_da = dh_dv = A_g. Views of data.dh_dq,
    data.dhdot_dq, data.dhdot_dv and data.Ag; data.hg and data.dhg are filled too, and the
    kinematics derivatives (the get_* functions can follow)."""
    _arrays.same_data(model, data)
    q, v, a = _checks.fast_state(q, v, a, model.nq, model.nv, "a")
    code = _centroidal.call(model.jnt, model.prm, q, v, a, data.ws, data.dh_dq, data.dhdot_dq,
                            data.dhdot_dv, data.Ag, data.hg, data.dhg, NO_FORCES, QUAT_TOL)
    data.kinematics = 0 if code else DERIVATIVES
    if code:
        _checks.explain(model, code, ("q", "v", "a"), q, v, a)
    if not data.ws[0, OYC] > 0.0:
        raise ValueError(f"compute_centroidal_dynamics_derivatives: {model.name!r} has no mass; "
                         f"the centre of mass is undefined")
    return data.dh_dq, data.dhdot_dq, data.dhdot_dv, data.Ag
