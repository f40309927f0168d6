"""Derivatives of the dynamics with respect to the inertial parameters pi.

    Y = fd.compute_joint_torque_regressor(model, data, q, v, a)   # dtau/dpi
    G = fd.compute_aba_parameter_derivatives(model, data, q, v, tau)   # d(ddq)/dpi = -M^-1 Y

pi stacks the ten dynamic parameters of bodies 1..njoints-1 (``fastdyn.dynamic_parameters``,
Pinocchio's order [m, m c, I about the joint origin]). Inverse dynamics is linear in pi, so
its derivative is the joint torque regressor; forward dynamics follows by differentiating
RNEA(q, v, ABA(q, v, tau)) = tau (kernels/entry/aba_parameter_derivatives.py). To move
along pi, build robots with ``fastdyn.parameter_batch(model, pi=...)`` (or
``model.with_inertia``): the topology stays, the parameter table changes.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal import arrays as _arrays
from ._internal.checks import QUAT_TOL
from ._internal.fastcall import Kernel
from .kernels.entry import aba_parameter_derivatives as _apd
from .model import Data, Model

_kernel = Kernel(_apd.aba_parameter_derivatives_checked, vectors=(3, 4, 5))


def compute_aba_parameter_derivatives(model: Model, data: Data, q, v, tau,
                                      fext=None) -> np.ndarray:
    """d(ddq)/dpi (nv, 10 (njoints - 1)) of ddq = ABA(q, v, tau, fext) with q, v, tau and the
    LOCAL external forces fext held fixed: -M(q)^-1 Y(q, v, ddq), Y the joint torque regressor
    (dtau/dpi; Carpentier & Mansard's implicit differentiation of RNEA(q, v, ABA) = tau,
    RSS 2018, applied to pi). Armature is not in pi. A view into data
    (``data.ddq_dpi``, overwritten by the next call); data.ddq = ABA(q, v, tau, fext) and
    data.M, U, D = M(q) and its factorization too."""
    _arrays.same_data(model, data)
    q, v, tau = _checks.fast_state(q, v, tau, model.nq, model.nv, "tau")
    fext = _arrays.optional_forces(model, fext)
    out = _arrays.buffer(data, "ddq_dpi", (model.nv, 10 * (model.njoints - 1)))
    code = _kernel.call(model.jnt, model.prm, model.dof, q, v, tau, fext, data.ws, data.ddq, out,
                        data.M, data.U, data.D, data._scratch_v, QUAT_TOL)
    data.kinematics = 0  # RNEA's and CRBA's quantities, not oMi alone
    if code:
        _checks.explain(model, code, ("q", "v", "tau"), q, v, tau)
    return out


__all__ = ["compute_aba_parameter_derivatives"]
