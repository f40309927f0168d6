"""Derivatives of constrained dynamics, d(ddq, lambda)/d(q, v, tau), and of impulse dynamics,
d(v+, Lambda)/d(q, v-): Pinocchio's computeConstraintDynamicsDerivatives and
computeImpulseDynamicsDerivatives, for contacts with the world (fastdyn.RigidConstraint
without ``frame2``), in LOCAL and LOCAL_WORLD_ALIGNED, with Baumgarte's gains, and joint
couplings (fastdyn.JointCoupling).

    ddq_dq, ddq_dv, ddq_dtau, dlam_dq, dlam_dv, dlam_dtau = \\
        fd.compute_constraint_dynamics_derivatives(model, data, q, v, tau, constraints)
    dv_dq, dv_dv, dimpulse_dq, dimpulse_dv = \\
        fd.compute_impulse_dynamics_derivatives(model, data, q, v, constraints, restitution)

The equations (the implicit function theorem on the KKT system, RNEA's and the frames'
analytical derivatives) are in kernels/contact/constrained_dynamics_derivatives.py; q is
perturbed along tangent vectors, q (+) dq = integrate(q, dq), as Pinocchio's. They are the
derivatives of fastdyn.constraint_dynamics (impulse_dynamics) with mu = 0 (one direct solve:
a dependent set raises SingularConstraintError), checked against central finite differences.
They agree with Pinocchio 4.1's to round-off except where Pinocchio's are not the derivatives:
models with spherical_zyx or universal joints (fastdyn/derivatives.py says why) and some
LOCAL_WORLD_ALIGNED frame contacts (with Baumgarte's position term, and on some trees
without it: finite differences side with fastdyn there). Pinocchio's impulse derivative
along v (its data.ddq_dv) is that of the jump v+ - v-: fastdyn's dv_after_dv minus the
identity. Loop closures are refused (not yet derived).

Results are views into ``data`` (data.constraint_ddq_derivatives, (3, nv, nv), and
data.constraint_lambda_derivatives, (3, m, nv), by q, v and tau, data.ddq and data.lambda_c
the dynamics; data.impulse_v_derivatives, (2, nv, nv), data.impulse_derivatives, (2, m, nv),
by q and v-, data.dq_after and data.impulse_c the impulse), overwritten by the next call:
copy them to keep them.
"""

from __future__ import annotations

import numpy as np

from ._internal import arrays as _arrays
from ._internal import checks as _checks
from ._internal import constraint_sets as _sets
from ._internal.fastcall import Kernel
from .errors import ConstraintError
from .kernels.contact.constrained_dynamics_derivatives import derivatives_work_size
from .kernels.entry import guard_constrained as _guard
from .model import Data, Model

__all__ = ["compute_constraint_dynamics_derivatives", "compute_impulse_dynamics_derivatives"]

_derivatives = Kernel(_guard.constraint_dynamics_derivatives_checked, vectors=(4, 5, 6))
_impulse_derivatives = Kernel(_guard.impulse_dynamics_derivatives_checked, vectors=(4, 5))


def _work_size(model, m) -> int:
    return derivatives_work_size(model.nv, m, model.njoints)


def compute_constraint_dynamics_derivatives(model: Model, data: Data, q, v, tau,
                                            constraints) -> tuple[np.ndarray, ...]:
    """(ddq_dq, ddq_dv, ddq_dtau, dlambda_dq, dlambda_dv, dlambda_dtau) of
    (ddq, lambda) = constraint_dynamics(model, data, q, v, tau, constraints): (nv, nv) and
    (m, nv) arrays, Pinocchio's computeConstraintDynamicsDerivatives (module docstring)."""
    table, prox, work, lam = _prepare(model, data, constraints, "lambda_c")
    q, v, tau = _checks.fast_state(q, v, tau, model.nq, model.nv, "tau")
    m = lam.shape[0]
    ddq_d = _arrays.buffer(data, "constraint_ddq_derivatives", (3, model.nv, model.nv))
    lam_d = _arrays.buffer(data, "constraint_lambda_derivatives", (3, m, model.nv))
    code, status, detail = _derivatives.call(
        model.jnt, model.prm, model.dof, table, q, v, tau, prox, data.ws, work, data.ddq, lam,
        ddq_d, lam_d, _arrays.NO_FORCES, _checks.QUAT_TOL)
    data.kinematics = 0 if code else 1
    if code:
        _checks.explain(model, code, ("q", "v", "tau"), q, v, tau)
    _sets.finish(model, data, table, prox, status, detail)
    return ddq_d[0], ddq_d[1], ddq_d[2], lam_d[0], lam_d[1], lam_d[2]


def compute_impulse_dynamics_derivatives(model: Model, data: Data, q, v_before, constraints,
                                         restitution: float = 0.0) -> tuple[np.ndarray, ...]:
    """(dv_after_dq, dv_after_dv, dimpulse_dq, dimpulse_dv) of (v_after, impulses) =
    impulse_dynamics(model, data, q, v_before, constraints, restitution): (nv, nv) and
    (m, nv) arrays, Pinocchio's computeImpulseDynamicsDerivatives (module docstring)."""
    e = _checks.scalar(restitution, "restitution")
    if not 0.0 <= e <= 1.0:
        raise ValueError(f"restitution must be in [0, 1], got {e}")
    table, prox, work, lam = _prepare(model, data, constraints, "impulse_c")
    q = _checks.fast_vector(q, model.nq, "q")
    v = _checks.fast_vector(v_before, model.nv, "v_before")
    m = lam.shape[0]
    out = _arrays.buffer(data, "dq_after", (model.nv,))
    dv_d = _arrays.buffer(data, "impulse_v_derivatives", (2, model.nv, model.nv))
    lam_d = _arrays.buffer(data, "impulse_derivatives", (2, m, model.nv))
    code, status, detail = _impulse_derivatives.call(
        model.jnt, model.prm, model.dof, table, q, v, e, prox, data.ws, work, out, lam, dv_d,
        lam_d, _arrays.NO_FORCES, _checks.QUAT_TOL)
    data.kinematics = 0 if code else 1
    if code:
        _checks.explain(model, code, ("q", "v_before"), q, v)
    _sets.finish(model, data, table, prox, status, detail)
    return dv_d[0], dv_d[1], lam_d[0], lam_d[1]


def _prepare(model, data, constraints, out):
    """The buffers of a direct solve (mu = 0); loop closures refused by name."""
    table, prox, work, lam = _sets.prepare(model, data, constraints, 0.0, 1, 1e-12, 1e-12,
                                           out, _work_size)
    for c in _sets.constraints_of(data):
        if c.frame2 is not None:
            raise ConstraintError(c.name, "the derivatives of loop closures (a constraint with "
                                          "frame2) are not implemented yet; contacts with the "
                                          "world are")
    return table, prox, work, lam
