"""The Coriolis matrix, and floating-base velocity representations: body-fixed, mixed, inertial.

Source: Traversaro & Saccon (2019), sec. 5.2 (the mixed frame B[A], eq. 35), sec. 8
(eqs. 75-76, the transformation Y) and sec. 9 (eqs. 77-80, moving-base equations of motion).
fastdyn's velocity v is BODY_FIXED (Pinocchio's): the free-flyer twist ^B v_{A,B} in its own
frame B. A model whose joint 1 is a free-flyer can also be written with
  MIXED     ^{B[A]} v_{A,B} = [^A o_B'; ^A w_{A,B}]  (world-axes origin velocity and angular
            velocity: what task-space controllers use)
  INERTIAL  ^A v_{A,B}  (right-trivialized: world axes, at the world origin)
and the joint velocities unchanged. With v_B = T v_R, T = Y = diag(^B X_F, I) (eqs. 76, 79):
  M_R = T^T M T,  h_R = T^T (h + M T' v_R),  C_R = T^T (C T + M T'),  J_R = J T,
  tau_R = T^T tau_B,  and  M_R v_R' + h_R = tau_R  (eq. 80)
describe the same motion; kinetic energy and power are the same numbers in every one.
Matrices returned are views into ``data`` (copy them to keep them).
Reference: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal import arrays as _arrays
from .dynamics import SingularMassMatrixError
from .frames import LOCAL
from .jacobians import compute_frame_jacobian
from .kernels.algorithms import coriolis as _cor
from .kernels.algorithms import velocity_representation as _vr
from .kernels.joints import codes
from .kinematics import EMPTY, NO_FORCES, forward_kinematics
from .model import Data, Model

BODY_FIXED = "body_fixed"
MIXED = "mixed"
INERTIAL = "inertial"
_CODES = {BODY_FIXED: _vr.BODY_FIXED, MIXED: _vr.MIXED, INERTIAL: _vr.INERTIAL}

__all__ = ["BODY_FIXED", "MIXED", "INERTIAL", "coriolis_matrix", "transform",
           "convert_velocity", "mass_matrix", "bias", "jacobian", "forward_dynamics"]


def coriolis_matrix(model: Model, data: Data, q, v, representation: str = BODY_FIXED
                    ) -> np.ndarray:
    """C (nv, nv) with C v = nle(q, v) - g(q) and dM/dt - 2C skew-symmetric (data.C):
    Pinocchio's computeCoriolisMatrix (Echeandia & Wensing's factorization), exact also on
    spherical_zyx and universal joints where Pinocchio 4.1 omits dS/dt. In another floating-
    base representation (v given in it): C_R = T^T (C T + M T')."""
    _checks.data_for(model, data)
    q = _checks.configuration(model, q)
    v = _checks.vector(v, model.nv, "v")
    C = _arrays.buffer(data, "C", (model.nv, model.nv))
    if representation == BODY_FIXED:
        _cor.coriolis_matrix(model.jnt, model.prm, q, v, data.ws, C)
    else:
        rep = _code(model, representation)
        _vr.coriolis(model.jnt, model.prm, q, v, rep, data.ws, _xx(data), data.M, C, data.qv)
    data.kinematics = 2  # velocities of the body-fixed v (= T v_R)
    return _checks.finite_result(C, ("q", "v"), (q, v))


def _code(model: Model, representation) -> int:
    if not isinstance(representation, str) or representation not in _CODES:
        raise ValueError(f"representation must be fastdyn.representations.BODY_FIXED, MIXED or "
                         f"INERTIAL ({', '.join(map(repr, _CODES))}), got {representation!r}")
    if model.njoints < 2 or int(model.jnt[1]["type"]) != codes.FREEFLYER:
        raise ValueError(f"velocity representations need a free-flyer as joint 1; "
                         f"{model.name!r} starts with "
                         f"{model.joint_type(1) if model.njoints > 1 else 'no joint'!r}")
    return _CODES[representation]


def _xx(data: Data) -> np.ndarray:
    return _arrays.buffer(data, "base_X", (2, 6, 6))


def transform(model: Model, data: Data, q, representation: str) -> np.ndarray:
    """T (nv, nv) = diag(^B X_F, I) with v_body_fixed = T v_representation (Traversaro & Saccon
    eqs. 76, 79): identity for BODY_FIXED, diag(R^T, R^T) for MIXED, ^B X_A for INERTIAL, where
    (R, p) is the placement of the free-flyer frame in the world."""
    _checks.data_for(model, data)
    q = _checks.configuration(model, q)
    rep = _code(model, representation)
    forward_kinematics(model, data, q)
    XX = _xx(data)
    _vr.base_transform(data.ws, rep, XX[0])
    T = _arrays.buffer(data, "T", (model.nv, model.nv))
    T[:] = np.eye(model.nv)
    T[:6, :6] = XX[0]
    return T


def convert_velocity(model: Model, data: Data, q, v, source: str, target: str) -> np.ndarray:
    """v expressed in ``source`` re-expressed in ``target`` (a new (nv,) array): the same
    motion, T_target^-1 T_source v."""
    _checks.data_for(model, data)
    v = _checks.vector(v, model.nv, "v")
    Ts = transform(model, data, q, source)[:6, :6].copy()
    Tt = transform(model, data, q, target)[:6, :6]
    out = v.copy()
    out[:6] = np.linalg.solve(Tt, Ts @ v[:6])
    return out


def mass_matrix(model: Model, data: Data, q, representation: str) -> np.ndarray:
    """M_R = T^T M T (nv, nv) (data.M, both triangles), so that v_R^T M_R v_R = v^T M v."""
    _checks.data_for(model, data)
    q = _checks.configuration(model, q)
    rep = _code(model, representation)
    _vr.dynamics(model.jnt, model.prm, q, EMPTY, rep, data.ws, _xx(data), data.M,
                 data.nle, data.qv, NO_FORCES)
    data.kinematics = 1
    return _checks.finite_result(data.M, ("q",), (q,))


def bias(model: Model, data: Data, q, v, representation: str, fext=None) -> np.ndarray:
    """h_R = T^T (h + M T' v_R) (data.nle), v given in ``representation``: the bias of
    M_R v_R' + h_R = tau_R, with h = C v + g - sum J^T fext the body-fixed one (rnea at zero
    acceleration); data.M holds M_R afterwards."""
    _checks.data_for(model, data)
    q = _checks.configuration(model, q)
    v = _checks.vector(v, model.nv, "v")
    rep = _code(model, representation)
    _vr.dynamics(model.jnt, model.prm, q, v, rep, data.ws, _xx(data), data.M, data.nle,
                 data.qv, _arrays.optional_forces(model, fext))
    data.kinematics = 2
    _checks.finite_result(data.M, ("q", "v"), (q, v))
    return _checks.finite_result(data.nle, ("q", "v"), (q, v))


def jacobian(model: Model, data: Data, q, frame: int | str, reference: int = LOCAL,
             representation: str = BODY_FIXED) -> np.ndarray:
    """J_R = J T (6, nv): the Jacobian of ``frame`` in ``reference`` for a velocity given in
    ``representation`` (Traversaro & Saccon eq. 75: MIXED with LOCAL_WORLD_ALIGNED is the
    "doubly mixed" ^{E[A]} J_{A,E/B[A]})."""
    _checks.data_for(model, data)
    rep = _code(model, representation)
    J = compute_frame_jacobian(model, data, q, frame, reference)
    XX = _xx(data)
    _vr.base_transform(data.ws, rep, XX[0])
    J[:, :6] = J[:, :6] @ XX[0]
    return J


def forward_dynamics(model: Model, data: Data, q, v, tau, representation: str,
                     fext=None) -> np.ndarray:
    """v_R' = M_R^-1 (tau_R - h_R) (data.ddq) with v and tau given in ``representation``
    (tau_R = T^T tau_B: joint torques are the same numbers; a base wrench is expressed in the
    representation's base frame). Solved densely: for BODY_FIXED prefer fastdyn.aba."""
    _checks.data_for(model, data)
    tau = _checks.vector(tau, model.nv, "tau")
    h = bias(model, data, q, v, representation, fext)
    try:
        L = np.linalg.cholesky(data.M)
    except np.linalg.LinAlgError:
        raise SingularMassMatrixError("forward_dynamics: M(q) is not positive definite "
                                      "(massless subtree on a moving joint?)") from None
    data.ddq[:] = np.linalg.solve(L.T, np.linalg.solve(L, tau - h))
    return data.ddq
