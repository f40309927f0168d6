"""What the constrained-dynamics calls share (fastdyn/constrained_dynamics.py and
constrained_dynamics_derivatives.py): the constraint table kept on a Data while the same
constraints come back, the proximal settings checked when they change, the buffers, and the
words for the kernels' statuses."""

from __future__ import annotations

import warnings

import numpy as np

from . import arrays as _arrays
from . import checks as _checks
from ..constraints import RigidConstraint, constraint_table
from ..coupling import JointCoupling
from ..errors import ConvergenceWarning, SingularConstraintError, SingularMassMatrixError
from ..kernels.contact import constrained_dynamics as _cd
from ..kernels.layout import (NX, X_ABS_ACC, X_ABS_RES, X_ITER, X_MAX_ITER, X_MU, X_REL_ACC,
                              X_REL_RES)


def prepare(model, data, constraints, mu, max_iterations, absolute_accuracy,
            relative_accuracy, out, work_size=None):
    """(table, prox, work, lambda's buffer data.<out>): the constraint table, the proximal
    settings, ``work_size(model, m)`` floats of scratch (default: constraint_dynamics')."""
    _arrays.same_data(model, data)
    table, m, sizes = _table(model, data, constraints)
    prox = data.__dict__.get("prox")
    key = (type(mu), mu, type(max_iterations), max_iterations, type(absolute_accuracy),
           absolute_accuracy, type(relative_accuracy), relative_accuracy)
    if prox is None or data.__dict__.get("_prox_key") != key:
        prox = _settings(data, mu, max_iterations, absolute_accuracy, relative_accuracy)
        data.__dict__["_prox_key"] = key
    size = sizes.get(work_size)
    if size is None:
        size = sizes[work_size] = int(work_size(model, m) if work_size is not None
                                      else _cd.work_size(model.nv, m))
    work = _arrays.buffer(data, "constraint_work", (size,))
    return table, prox, work, _arrays.buffer(data, out, (m,))


def _settings(data, mu, max_iterations, absolute_accuracy, relative_accuracy) -> np.ndarray:
    data.__dict__.pop("_prox_key", None)  # (a refused setting leaves no stale key)
    prox = _arrays.buffer(data, "prox", (NX,))
    prox[X_MU] = _checks.scalar(mu, "mu")
    if prox[X_MU] < 0.0:
        raise ValueError(f"mu must be >= 0 (0: one direct solve), got {prox[X_MU]}")
    prox[X_MAX_ITER] = _checks.integer(max_iterations, "max_iterations", 1)
    for k, x, name in ((X_ABS_ACC, absolute_accuracy, "absolute_accuracy"),
                       (X_REL_ACC, relative_accuracy, "relative_accuracy")):
        prox[k] = _checks.scalar(x, name)
        if prox[k] < 0.0:
            raise ValueError(f"{name} must be >= 0, got {prox[k]}")
    return prox


def _table(model, data, constraints) -> tuple[np.ndarray, int, dict]:
    """(constraint_table(model, constraints), its rows m, scratch sizes by kernel), reused
    while the caller passes the same constraints again (they are immutable)."""
    items = (constraints,) if type(constraints) in (RigidConstraint, JointCoupling) \
        else constraints
    cached = data.__dict__.get("_constraint_table")
    if cached is not None and type(items) in (list, tuple) and len(items) == len(cached[0]) \
            and all(a is b for a, b in zip(items, cached[0])):
        return cached[1:]
    table = constraint_table(model, items)
    m = int(table["kind"].sum())
    data.__dict__["_constraint_table"] = (tuple(items), table, m, {})
    return table, m, data.__dict__["_constraint_table"][3]


def constraints_of(data) -> tuple:
    """The constraints of the last call on data (the table's rows, in order)."""
    return data.__dict__["_constraint_table"][0]


def finish(model, data, table, prox, status, detail) -> None:
    """Raise what a kernel's status means; warn on unconverged proximal iterations."""
    if status == _cd.SINGULAR_MASS:
        j = int(model.dof[detail]["joint"])
        raise SingularMassMatrixError(
            f"M(q) is not positive definite at dof {detail} (joint {model.joint_names[j]!r}): "
            f"a moving joint carries no mass or inertia in its subtree")
    if status == _cd.DEPENDENT:
        k = int(np.searchsorted(table["row"], detail, side="right")) - 1
        c = constraints_of(data)[k]
        raise SingularConstraintError(
            c.name, f"its row {detail - int(table[k]['row'])} (row {detail} of the set) depends "
                    f"on the rows before it: the constraint set is redundant or conflicting "
                    f"(J M^-1 J^T is singular). Remove the redundant constraint, or pass mu > 0 "
                    f"(e.g. 1e-8) for the proximal solve and its least-norm forces")
    data.constraint_iterations = int(prox[X_ITER])
    data.constraint_residual = float(prox[X_ABS_RES])
    if prox[X_MU] > 0.0 and prox[X_ITER] >= prox[X_MAX_ITER] and \
            prox[X_ABS_RES] > prox[X_ABS_ACC] and prox[X_REL_RES] > prox[X_REL_ACC]:
        warnings.warn(f"the proximal iterations (mu = {prox[X_MU]:g}) stopped at "
                      f"max_iterations = {int(prox[X_MAX_ITER])} with |J ddq - rhs| = "
                      f"{prox[X_ABS_RES]:.3g} and a last change of lambda of "
                      f"{prox[X_REL_RES]:.3g}: a conflicting constraint set, or too few "
                      f"iterations for this mu", ConvergenceWarning, stacklevel=3)
