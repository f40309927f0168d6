"""Forward and impulse dynamics under rigid constraints (fastdyn.RigidConstraint).

Pinocchio's constraintDynamics and impulseDynamics (Carpentier, Budhiraja, Mansard, RSS
2021), with the same equations, signs and lambda:

    ddq, lam = fd.constraint_dynamics(model, data, q, v, tau, constraints)
        M ddq = tau - h(q, v) + J^T lam,     J ddq = rhs  (-J'v, plus Baumgarte's terms)
    v_after, impulses = fd.impulse_dynamics(model, data, q, v, constraints, restitution=0.0)
        M (v+ - v) = J^T Lambda,              J v+ = -e J v

J stacks the constraints' rows in the order given (3 for CONTACT_3D, 6 for CONTACT_6D, in
each constraint's ``reference``); lam holds the forces (impulses) the constraints apply to
the robot, expressed in the same rows: a point contact's [f_x, f_y, f_z], a frame contact's
[f; tau] at the frame's origin. The solve works on the tree's sparsity (M = U D U^T, the
Delassus matrix J M^-1 J^T by sparse solves: kernels/contact/constrained_dynamics.py).

Redundant or conflicting constraints (rows that depend on each other: four frame contacts on
a quadruped's three-dof legs, two contacts at one point) make J M^-1 J^T singular. With
``mu = 0`` (the default: one direct solve) that raises SingularConstraintError, naming the
first constraint with a dependent row. With ``mu > 0`` the proximal iterations of Carpentier
et al. (kernels/contact/proximal.py) run instead, up to ``max_iterations``: for a redundant
but consistent set they converge to the least-norm lam (of all the forces that give the same
ddq, the smallest in the 2-norm); ddq is the unique constrained acceleration. They stop when
the constraint's residual |J ddq - rhs|_inf is within ``absolute_accuracy`` or lam moved by
at most ``relative_accuracy``; otherwise a ConvergenceWarning says so (a conflicting set, or
mu too large for the iterations given: mu about 1e-8 to 1e-6 of J M^-1 J^T's diagonal
converges in a few). ``data.constraint_iterations`` and ``data.constraint_residual`` hold the
last call's count and residual.

On loop closures impulse_dynamics acts on the closed frames' relative velocity (J v+ =
-e J v-, J the rows of constraint_dynamics); Pinocchio 4.1's impulseDynamics puts only the
first frame's velocity in its right-hand side there, so the two differ on loops (and agree
on contacts with the world).

Results are views into ``data`` (data.ddq and data.lambda_c; data.dq_after and
data.impulse_c), overwritten by the next call: copy them to keep them.
"""

from __future__ import annotations

import numpy as np

from ._internal import arrays as _arrays
from ._internal import checks as _checks
from ._internal import constraint_sets as _sets
from ._internal.fastcall import Kernel
from .kernels.entry import guard_constrained as _guard
from .model import Data, Model

__all__ = ["constraint_dynamics", "impulse_dynamics"]

_constraint_dynamics = Kernel(_guard.constraint_dynamics_checked, vectors=(4, 5, 6))
_impulse_dynamics = Kernel(_guard.impulse_dynamics_checked, vectors=(4, 5))


def constraint_dynamics(model: Model, data: Data, q, v, tau, constraints, mu: float = 0.0,
                        max_iterations: int = 100, absolute_accuracy: float = 1e-12,
                        relative_accuracy: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """(ddq, lam) of M ddq = tau - h + J^T lam, J ddq = rhs (Pinocchio's constraintDynamics,
    ``mu`` ... ``relative_accuracy`` its ProximalSettings): see the module docstring."""
    table, prox, work, lam = _sets.prepare(model, data, constraints, mu, max_iterations,
                                           absolute_accuracy, relative_accuracy, "lambda_c")
    q, v, tau = _checks.fast_state(q, v, tau, model.nq, model.nv, "tau")
    code, status, detail = _constraint_dynamics.call(
        model.jnt, model.prm, model.dof, table, q, v, tau, prox, data.ws, work, data.ddq, lam,
        _arrays.NO_FORCES, _checks.QUAT_TOL)
    data.kinematics = 0 if code else 1  # CRBA left the joint placements, as crba does
    if code:
        _checks.explain(model, code, ("q", "v", "tau"), q, v, tau)
    _sets.finish(model, data, table, prox, status, detail)
    return data.ddq, lam


def impulse_dynamics(model: Model, data: Data, q, v_before, constraints,
                     restitution: float = 0.0, mu: float = 0.0, max_iterations: int = 100,
                     absolute_accuracy: float = 1e-12,
                     relative_accuracy: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """(v_after, impulses) of M (v+ - v-) = J^T Lambda, J v+ = -e J v- with e = restitution
    in [0, 1] (Pinocchio's impulseDynamics; 0: the constrained velocities stop, 1: they
    reverse). Settings and errors as constraint_dynamics'."""
    e = restitution if type(restitution) is float and 0.0 <= restitution <= 1.0 else \
        _restitution(restitution)
    table, prox, work, lam = _sets.prepare(model, data, constraints, mu, max_iterations,
                                           absolute_accuracy, relative_accuracy, "impulse_c")
    q = _checks.fast_vector(q, model.nq, "q")
    v = _checks.fast_vector(v_before, model.nv, "v_before")
    out = _arrays.buffer(data, "dq_after", (model.nv,))
    code, status, detail = _impulse_dynamics.call(
        model.jnt, model.prm, model.dof, table, q, v, e, prox, data.ws, work, out, lam,
        _arrays.NO_FORCES, _checks.QUAT_TOL)
    data.kinematics = 0 if code else 1
    if code:
        _checks.explain(model, code, ("q", "v_before"), q, v)
    _sets.finish(model, data, table, prox, status, detail)
    return out, lam


def _restitution(e) -> float:
    e = _checks.scalar(e, "restitution")
    if not 0.0 <= e <= 1.0:
        raise ValueError(f"restitution must be in [0, 1], got {e}")
    return e
