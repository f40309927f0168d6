"""Analytical derivatives of the dynamics: inverse dynamics (RNEA), forward dynamics (ABA),
generalized gravity and static torque.

Methods: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS
2018, with the backward pass arranged as Singh, Russell & Wensing's IDSVA (arXiv:2105.05102);
the equations are in kernels/algorithms/rnea_derivatives.py and aba_derivatives.py.

Derivatives with respect to q are along tangent vectors: d/dq is d/d(dq) at q (+) dq =
``integrate(model, q, dq)``, Pinocchio's convention, so every matrix is (nv, nv) and
interchangeable with pinocchio.computeRNEADerivatives / computeABADerivatives /
computeGeneralizedGravityDerivatives / computeStaticTorqueDerivatives. Unlike Pinocchio 4.1,
they include the terms from the configuration-dependent motion subspace of spherical_zyx and
universal joints (Pinocchio's differ from finite differences there; fastdyn's do not).

Each function checks its inputs once, runs one compiled kernel and returns views into ``data``
(overwritten by the next call: copy them to keep them). External forces ``fext`` are one LOCAL
[f; tau] per joint, (njoints, 6), as for ``rnea`` and ``aba``.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal import arrays as _arrays
from ._internal.checks import QUAT_TOL
from ._internal.fastcall import Kernel
from .kernels.entry import guard as _guard
from .kinematics import EMPTY, NO_FORCES
from .model import Data, Model

_rnea_derivatives = Kernel(_guard.rnea_derivatives_checked, vectors=(2, 3, 4))
_aba_derivatives = Kernel(_guard.aba_derivatives_checked, vectors=(3, 4, 5))
_static_derivatives = Kernel(_guard.static_torque_derivatives_checked, vectors=(2,))


def compute_rnea_derivatives(model: Model, data: Data, q, v, a,
                             fext=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dtau_dq, dtau_dv, dtau_da = M) of tau = RNEA(q, v, a, fext): data.dtau_dq,
    data.dtau_dv, data.M, each (nv, nv) with both triangles; data.tau = RNEA(q, v, a, fext)
    too. q is perturbed along tangent vectors (module docstring), as Pinocchio's
    computeRNEADerivatives."""
    _arrays.same_data(model, data)
    q, v, a = _checks.fast_state(q, v, a, model.nq, model.nv, "a")
    fext = _arrays.optional_forces(model, fext)
    code = _rnea_derivatives.call(model.jnt, model.prm, q, v, a, fext, data.ws, data.tau,
                                  data.dtau_dq, data.dtau_dv, data.M, QUAT_TOL)
    data.kinematics = 0 if code else 1  # a world-frame algorithm: oMi is fresh
    if code:
        _checks.explain(model, code, ("q", "v", "a"), q, v, a)
    return data.dtau_dq, data.dtau_dv, data.M


def compute_aba_derivatives(model: Model, data: Data, q, v, tau,
                            fext=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ddq_dq, ddq_dv, ddq_dtau = M^-1) of ddq = ABA(q, v, tau, fext): data.ddq_dq,
    data.ddq_dv, data.Minv, each (nv, nv) with both triangles; data.ddq = ABA(q, v, tau, fext),
    and data.M, U, D = M(q) and its factorization, too. Computed as -M^-1 dtau/dq and
    -M^-1 dtau/dv at a = ABA(q, v, tau) through the tree-sparse factorization (Carpentier &
    Mansard 2018, sec. V). q is perturbed along tangent vectors (module docstring), as
    Pinocchio's computeABADerivatives."""
    _arrays.same_data(model, data)
    q, v, tau = _checks.fast_state(q, v, tau, model.nq, model.nv, "tau")
    fext = _arrays.optional_forces(model, fext)
    code = _aba_derivatives.call(model.jnt, model.prm, model.dof, q, v, tau, fext, data.ws,
                                 data.ddq, data.ddq_dq, data.ddq_dv, data.M, data.U, data.D,
                                 data.Minv, QUAT_TOL)
    data.kinematics = 0 if code else 1  # a world-frame algorithm: oMi is fresh
    if code:
        _checks.explain(model, code, ("q", "v", "tau"), q, v, tau)
    return data.ddq_dq, data.ddq_dv, data.Minv


def compute_generalized_gravity_derivatives(model: Model, data: Data, q) -> np.ndarray:
    """d g / dq (data.dg_dq, (nv, nv)) of the generalized gravity g(q) (data.g, filled too),
    q perturbed along tangent vectors, as Pinocchio's computeGeneralizedGravityDerivatives."""
    _arrays.same_data(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    code = _static_derivatives.call(model.jnt, model.prm, q, NO_FORCES, data.ws, data.g,
                                    data.dg_dq, EMPTY, QUAT_TOL)
    data.kinematics = 0 if code else 1
    if code:
        _checks.explain(model, code, ("q",), q)
    return data.dg_dq


def compute_static_torque_derivatives(model: Model, data: Data, q, fext) -> np.ndarray:
    """d/dq of the static torque g(q) - sum_i J_i^T fext_i (data.dtau_dq, (nv, nv); the torque
    itself in data.tau), with fext LOCAL forces that move with their bodies; q perturbed along
    tangent vectors, as Pinocchio's computeStaticTorqueDerivatives (fext None: no forces, the
    generalized gravity's derivative)."""
    _arrays.same_data(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    fext = _arrays.optional_forces(model, fext)
    code = _static_derivatives.call(model.jnt, model.prm, q, fext, data.ws, data.tau,
                                    data.dtau_dq, EMPTY, QUAT_TOL)
    data.kinematics = 0 if code else 1
    if code:
        _checks.explain(model, code, ("q", "fext"), q, fext)
    return data.dtau_dq
