"""Geometric Jacobians, their time variation, and frame velocities and accelerations.

Source: Traversaro & Saccon (2019), sec. 5 (twists, the mixed frame E[A]), sec. 5.4 (frame
acceleration) and sec. 8 (geometric Jacobians). With v the generalized velocity (body-fixed
free-flyer velocity, Pinocchio's convention) and x_E the velocity of frame E in a reference,
  x_E = J_E(q) v,      d/dt x_E = J_E(q) a + dJ_E/dt(q, v) v,
where d/dt x_E is the spatial acceleration in LOCAL and WORLD and the classical one (the
acceleration of the frame origin, Traversaro & Saccon eq. 52) in LOCAL_WORLD_ALIGNED.
References are fastdyn.LOCAL, WORLD and LOCAL_WORLD_ALIGNED (fastdyn.frames); frames and joints
are given by id or name.

Matrices are views into ``data`` (overwritten by the next call of the same function: copy them,
or pass ``out``); the 6-vectors of frame motion are new arrays.
Reference: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal import arrays as _arrays
from ._internal.fastcall import Kernel
from .frames import LOCAL, reference_code
from .kernels.algorithms import frame_motion as _fm
from .kernels.entry import guard as _guard
from .kernels.entry import guard_api as _guard_api
from .kernels.algorithms import jacobian_time_variation as _jtv
from .kinematics import EMPTY, NO_FORCES, require_kinematics
from .model import Data, Model

__all__ = ["compute_joint_jacobians", "compute_joint_jacobian", "compute_frame_jacobian",
           "compute_joint_jacobians_time_variation", "frame_jacobian_time_variation",
           "get_frame_velocity", "get_frame_acceleration", "get_frame_classical_acceleration"]


_joint_jacobians = Kernel(_guard.joint_jacobians_checked, vectors=(2,))
_frame_jacobian = Kernel(_guard.frame_jacobian_checked, vectors=(3,))
_joint_jacobian = Kernel(_guard_api.joint_jacobian_checked, vectors=(2,))
_MOTION = {name: Kernel(getattr(_fm, name.removeprefix("get_"))) for name in
           ("get_frame_velocity", "get_frame_acceleration", "get_frame_classical_acceleration")}


def _out(data: Data, name: str, shape: tuple[int, ...], out) -> np.ndarray:
    return _arrays.buffer(data, name, shape) if out is None else _checks.output(out, shape, "out")


def compute_joint_jacobians(model: Model, data: Data, q) -> np.ndarray:
    """The world Jacobian J (6, nv) of every dof, Pinocchio's computeJointJacobians / data.J:
    column k = ^0X_i S_k for the joint i owning dof k (Traversaro & Saccon sec. 8, WORLD). Also
    updates the joint placements (data.kinematics = 1)."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.compute_joint_jacobians(model, data, q)
        _checks.data_for(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    code = _joint_jacobians.call(model.jnt, model.prm, q, data.ws, data.J, EMPTY, NO_FORCES,
                                 _checks.QUAT_TOL)
    if code:
        data.kinematics = 0
        _checks.explain(model, code, ("q",), q)
    data.kinematics = 1
    return data.J


def compute_joint_jacobian(model: Model, data: Data, q, joint: int | str, reference: int = LOCAL,
                   out: np.ndarray | None = None) -> np.ndarray:
    """J (6, nv) of joint ``joint``'s frame in ``reference`` (Pinocchio's computeJointJacobian
    for LOCAL, getJointJacobian otherwise); zero outside the joint's support."""
    if hasattr(type(model), "calls"):
        return model.calls.compute_joint_jacobian(model, data, q, joint, reference, out)
    if not (type(data) is Data and type(model) is Model and data.model_token == model.token):
        _checks.data_for(model, data)
    j = joint if type(joint) is int and 0 <= joint < model.njoints else \
        _checks.joint_index(model, joint)  # a misspelt name first: it is the real cause
    q = _checks.fast_vector(q, model.nq, "q")
    ref = reference if type(reference) is int and 0 <= reference <= 2 else \
        reference_code(reference)
    J = data.J_frame if out is None else _out(data, "J_frame", (6, model.nv), out)
    code = _joint_jacobian.call(model.jnt, model.prm, q, j, ref, data.ws, J, NO_FORCES,
                                _checks.QUAT_TOL)
    if code:
        data.kinematics = 0
        _checks.explain(model, code, ("q",), q)
    data.kinematics = 1
    return J


def compute_frame_jacobian(model: Model, data: Data, q, frame: int | str, reference: int = LOCAL,
                   out: np.ndarray | None = None) -> np.ndarray:
    """J (6, nv) of frame ``frame`` in ``reference`` (Pinocchio's computeFrameJacobian /
    getFrameJacobian): x_frame = J v. Also updates data.oMf[frame]."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.compute_frame_jacobian(model, data, q, frame, reference, out)
        _checks.data_for(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    f = frame if type(frame) is int and 0 <= frame < model.nframes else \
        _checks.frame_index(model, frame)
    ref = reference if type(reference) is int and 0 <= reference <= 2 else \
        reference_code(reference)
    J = data.J_frame if out is None else _out(data, "J_frame", (6, model.nv), out)
    code = _frame_jacobian.call(model.jnt, model.prm, model.frm, q, f, ref, data.ws, data.oMf, J,
                                EMPTY, NO_FORCES, _checks.QUAT_TOL)
    if code:
        data.kinematics = 0
        _checks.explain(model, code, ("q",), q)
    data.kinematics = 1
    return J


def compute_joint_jacobians_time_variation(model: Model, data: Data, q, v) -> np.ndarray:
    """dJ/dt (6, nv) of the world Jacobian along (q, v) (data.dJ; data.J is updated too):
    column k = ov_i x J_k + ^0X_i dS_k/dt. Pinocchio's computeJointJacobiansTimeVariation,
    which omits ^0X_i dS_k/dt: the two differ on spherical_zyx and universal joints, where
    S depends on q and only this one is the time derivative of J."""
    _checks.data_for(model, data)
    q = _checks.configuration(model, q)
    v = _checks.vector(v, model.nv, "v")
    J = _arrays.buffer(data, "J", (6, model.nv))
    dJ = _arrays.buffer(data, "dJ", (6, model.nv))
    _jtv.joint_jacobians_time_variation(model.jnt, model.prm, q, v, data.ws, J, dJ)
    data.kinematics = 2
    return dJ


def frame_jacobian_time_variation(model: Model, data: Data, q, v, frame: int | str,
                                  reference: int = LOCAL,
                                  out: np.ndarray | None = None) -> np.ndarray:
    """dJ/dt (6, nv) of frame ``frame``'s Jacobian in ``reference`` along (q, v), so that
    J a + dJ v is d/dt of the frame velocity in that reference (Pinocchio's
    getFrameJacobianTimeVariation; see compute_joint_jacobians_time_variation for the
    spherical_zyx / universal difference). The Jacobian itself is left in data.J_frame."""
    _checks.data_for(model, data)
    q = _checks.configuration(model, q)
    v = _checks.vector(v, model.nv, "v")
    f = _checks.frame_index(model, frame)
    ref = reference_code(reference)
    J = _arrays.buffer(data, "J_frame", (6, model.nv))
    dJ = _out(data, "dJ_frame", (6, model.nv), out)
    _jtv.frame_jacobian_time_variation(model.jnt, model.prm, model.frm, q, v, f, ref, data.ws,
                                       data.oMf, J, dJ)
    data.kinematics = 2
    return dJ


def _frame_motion(level: int, what: str, model: Model, data: Data, frame, reference,
                  out) -> np.ndarray:
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return _arrays.copy_out(
                model.calls.frame_motion(what, model, data, frame, reference), out)
        _checks.data_for(model, data)
    f = frame if type(frame) is int and 0 <= frame < model.nframes else \
        _checks.frame_index(model, frame)  # a misspelt name first: it is the real cause
    if data.kinematics < level:
        require_kinematics(data, level, what)
    ref = reference if type(reference) is int and 0 <= reference <= 2 else \
        reference_code(reference)
    out = np.empty(6) if out is None else _checks.output(out, (6,), "out")
    _MOTION[what].call(model.frm, f, ref, data.ws, data.oMf, out)
    return out


def get_frame_velocity(model: Model, data: Data, frame: int | str, reference: int = LOCAL,
                   out: np.ndarray | None = None) -> np.ndarray:
    """Velocity [v; w] (6,) of ``frame`` in ``reference`` from the last
    forward_kinematics(model, data, q, v) (Pinocchio's getFrameVelocity); a new array, or
    ``out`` (writeable C-contiguous float64 (6,), returned)."""
    return _frame_motion(2, "get_frame_velocity", model, data, frame, reference, out)


def get_frame_acceleration(model: Model, data: Data, frame: int | str, reference: int = LOCAL,
                       out: np.ndarray | None = None) -> np.ndarray:
    """Spatial acceleration [a; alpha] (6,) of ``frame`` in ``reference`` (Traversaro & Saccon
    eq. 47, gravity excluded) from the last forward_kinematics(model, data, q, v, a) (Pinocchio's
    getFrameAcceleration); a new array, or ``out`` as in get_frame_velocity."""
    return _frame_motion(3, "get_frame_acceleration", model, data, frame, reference, out)


def get_frame_classical_acceleration(model: Model, data: Data, frame: int | str,
                                 reference: int = LOCAL,
                                 out: np.ndarray | None = None) -> np.ndarray:
    """[a + w x v; alpha] (6,) in ``reference`` from the last forward_kinematics(q, v, a)
    (Pinocchio's getFrameClassicalAcceleration). In LOCAL_WORLD_ALIGNED the linear part is the
    acceleration of the frame origin in the world, ^A o_E'' (Traversaro & Saccon eqs. 52-54);
    a new array, or ``out`` as in get_frame_velocity."""
    return _frame_motion(3, "get_frame_classical_acceleration", model, data, frame, reference, out)
