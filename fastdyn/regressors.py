"""Dynamic regressors: torques and energies as linear maps of the inertial parameters.

    Y = fd.compute_joint_torque_regressor(model, data, q, v, a)   # (nv, 10 (njoints - 1))
    tau = Y @ fd.dynamic_parameters(model) + model.armature * a   # == fd.rnea(...)

Columns come per moving joint j = 1..njoints-1, ten each, in Pinocchio's order
``[m, m c_x, m c_y, m c_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz]`` (I about the joint origin,
``pin.Inertia.toDynamicParameters``), so the matrices equal Pinocchio's
``computeJointTorqueRegressor``, ``computeKineticEnergyRegressor`` and
``computePotentialEnergyRegressor``. The equations are in kernels/algorithms/regressor.py.

Monte Carlo over the inertial parameters along one trajectory is then one matrix product: the
regressors of the T states, ``batch_joint_torque_regressor(model, Q, V, A)`` (T, nv, P), times
the N parameter samples PI (N, P) gives every sample's torques, ``np.einsum("tvp,np->ntv",
Ys, PI)`` (plus armature * a), with no dynamics evaluated per sample.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal import arrays as _arrays
from ._internal.checks import QUAT_TOL
from ._internal.fastcall import Kernel
from ._internal.parallel import launch
from .kernels.entry import batch as _batch
from .kernels.entry import guard as _guard
from .kernels.algorithms import regressor as _reg
from .kernels.layout import per_thread
from .kinematics import NO_FORCES, forward_kinematics
from .model import Data, Model

_torque_checked = Kernel(_guard.joint_torque_regressor_checked, vectors=(2, 3, 4))
_kinetic = Kernel(_reg.kinetic_energy_regressor)
_potential = Kernel(_reg.potential_energy_regressor)

__all__ = ["dynamic_parameters", "compute_joint_torque_regressor",
           "compute_kinetic_energy_regressor", "compute_potential_energy_regressor",
           "compute_static_regressor", "batch_joint_torque_regressor"]


def dynamic_parameters(model: Model) -> np.ndarray:
    """The inertial parameters of bodies 1..njoints-1 stacked, (10 (njoints - 1),): the pi of
    ``Y @ pi``, in Pinocchio's order (a copy)."""
    _checks.model_arg(model)
    return np.ascontiguousarray(model.params["pi"][1:]).reshape(-1)


def _columns(model: Model) -> int:
    return 10 * (model.njoints - 1)


def compute_joint_torque_regressor(model: Model, data: Data, q, v, a) -> np.ndarray:
    """Y (nv, 10 (njoints - 1)) with rnea(q, v, a) = Y pi + armature * a, without external
    forces (data.jointTorqueRegressor; Pinocchio's computeJointTorqueRegressor)."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        _checks.data_for(model, data)
    q, v, a = _checks.fast_state(q, v, a, model.nq, model.nv, "a")
    Y = _arrays.buffer(data, "jointTorqueRegressor", (model.nv, _columns(model)))
    code = _torque_checked.call(model.jnt, model.prm, q, v, a, NO_FORCES, data.ws, Y,
                                data._scratch_v, QUAT_TOL)
    data.kinematics = 0  # RNEA's local quantities, not oMi
    if code:
        _checks.explain(model, code, ("q", "v", "a"), q, v, a)
    return Y


def compute_kinetic_energy_regressor(model: Model, data: Data, q, v) -> np.ndarray:
    """y (10 (njoints - 1),) with compute_kinetic_energy(q, v) = y . pi + armature . v^2 / 2
    (data.kineticEnergyRegressor; Pinocchio's computeKineticEnergyRegressor, which has no
    rotor term either)."""
    if v is None:  # forward_kinematics would take it as "placements only"
        raise TypeError("v must be an array of nv floats, got None")
    if hasattr(type(model), "calls"):  # per-body quantities: the full model's, expanded
        return model.calls.energy_regressor(compute_kinetic_energy_regressor, model, data, q, v)
    forward_kinematics(model, data, q, v)  # checked: q, v and the velocities are finite
    y = _arrays.buffer(data, "kineticEnergyRegressor", (_columns(model),))
    if _kinetic.call(model.jnt, data.ws, y) >= 0:  # |v|^2 overflows for |v| > 1e154
        raise _checks.NumericalOverflowError(_checks.overflow_message(("q", "v"), (q, v)))
    return y


def compute_potential_energy_regressor(model: Model, data: Data, q) -> np.ndarray:
    """y (10 (njoints - 1),) with compute_potential_energy(q) = y . pi
    (data.potentialEnergyRegressor; Pinocchio's computePotentialEnergyRegressor)."""
    if hasattr(type(model), "calls"):  # per-body quantities: the full model's, expanded
        return model.calls.energy_regressor(compute_potential_energy_regressor, model, data, q)
    forward_kinematics(model, data, q)  # checked: q and the placements are finite
    y = _arrays.buffer(data, "potentialEnergyRegressor", (_columns(model),))
    if _potential.call(model.jnt, model.prm, data.ws, y) >= 0:  # g . p can overflow
        raise _checks.NumericalOverflowError(_checks.overflow_message(("q",), (q,)))
    return y


def compute_static_regressor(model: Model, data: Data, q) -> np.ndarray:
    """S (3, 4 (njoints - 1)) with the centre of mass c(q) = S [m_j, m_j c_j]_j (Pinocchio's
    computeStaticRegressor): body j's block is [p_j, R_j] / (total mass), its joint's world
    placement over the model's total mass (data.staticRegressor)."""
    from .kinematics import forward_kinematics
    forward_kinematics(model, data, q)
    total = float(model.mass[1:].sum())
    if not total > 0.0:
        raise ValueError(f"compute_static_regressor: {model.name!r} has no mass; the centre "
                         f"of mass is undefined")
    S = _arrays.buffer(data, "staticRegressor", (3, 4 * (model.njoints - 1)))
    blocks = S.reshape(3, model.njoints - 1, 4)
    blocks[:, :, 0] = data.oMi_p[1:].T / total
    blocks[:, :, 1:] = data.oMi_R[1:].transpose(1, 0, 2) / total
    return S


def batch_joint_torque_regressor(model: Model, Q, V, A, prm=None) -> np.ndarray:
    """YS (N, nv, 10 (njoints - 1)): the joint torque regressor of every row, in parallel (as
    ``fastdyn.batch``; row r equals the single call bit for bit). Memory: N nv 10 (njoints - 1)
    doubles (UR5, N = 1000: 2.9 MB; Talos: 100 MB). ``prm``: one robot per row, as
    ``fastdyn.batch`` (only the placements matter: Y does not depend on pi)."""
    from ._internal import batching
    Q = batching.configurations(model, Q)
    V = batching.rows(model, V, model.nv, "V", Q.shape[0])
    A = batching.rows(model, A, model.nv, "A", Q.shape[0])
    YS = np.empty((Q.shape[0], model.nv, _columns(model)))
    ws3 = batching.workspaces(model)
    bad = np.empty(Q.shape[0], dtype=np.int64)
    PRM = batching.robots(model, prm, Q.shape[0])
    launch(_batch.regressor_batch, _batch.regressor_chunk, model.jnt, PRM, Q, V, A,
           NO_FORCES, ws3, YS, per_thread(ws3.shape[0], (model.nv,)), bad)
    batching.explain_row(model, bad, compute_joint_torque_regressor, Q, V, A, PRM=PRM)
    return YS
