"""Constrained and impulse dynamics over many states and robots, in parallel:
``fd.batch.constraint_dynamics(model, Q, V, TAU, constraints)`` and
``fd.batch.impulse_dynamics(model, Q, V_before, constraints, restitution)``.

Row r is fd.constraint_dynamics (fd.impulse_dynamics) at (Q[r], V[r], TAU[r]) with the same
constraints and settings, bit for bit, with robot r's parameters when ``prm=`` holds one robot
per row (fastdyn.parameter_batch). Rows run on ``numba.get_num_threads()`` Python threads that
take blocks of rows as they free up (fastdyn/_internal/threads.py). A row that fails raises the
error the single call would (a bad state, a singular mass matrix, a dependent constraint set),
prefixed with the row; proximal solves that stopped at ``max_iterations`` above their
accuracies give one ConvergenceWarning naming the first such row and how many there were.
"""

from __future__ import annotations

import warnings

import numba
import numpy as np

from .. import constrained_dynamics as _single
from .._internal import arrays as _arrays
from .._internal import batching
from .._internal import checks as _checks
from .._internal import constraint_sets as _sets
from .._internal.threads import run_rows
from ..errors import ConstraintError, ConvergenceWarning, NumericalOverflowError
from ..kernels.entry import batch_constrained as _bc
from ..kernels.layout import X_ABS_ACC, X_MAX_ITER, X_MU, X_REL_ACC, per_thread, workspace
from ..model import Model

__all__ = ["constraint_dynamics", "impulse_dynamics"]


def constraint_dynamics(model: Model, Q, V, TAU, constraints, prm=None, mu: float = 0.0,
                        max_iterations: int = 100, absolute_accuracy: float = 1e-12,
                        relative_accuracy: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """(DDQ (N, nv), LAM (N, m)): fd.constraint_dynamics on every row of Q, V, TAU (``prm``:
    one robot per row); m is the constraints' rows (3 a point contact, 6 a frame contact)."""
    Q = batching.configurations(model, Q)
    n = Q.shape[0]
    V = batching.rows(model, V, model.nv, "V", n)
    TAU = batching.rows(model, TAU, model.nv, "TAU", n)
    settings = (mu, max_iterations, absolute_accuracy, relative_accuracy)
    return _run(model, n, prm, constraints, settings, _bc.constraint_dynamics_rows,
                (Q, V, TAU), _single.constraint_dynamics, "TAU")


def impulse_dynamics(model: Model, Q, V_before, constraints, restitution: float = 0.0,
                     prm=None, mu: float = 0.0, max_iterations: int = 100,
                     absolute_accuracy: float = 1e-12,
                     relative_accuracy: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """(V_after (N, nv), IMPULSES (N, m)): fd.impulse_dynamics on every row of Q, V_before
    with one restitution for all rows (``prm``: one robot per row)."""
    Q = batching.configurations(model, Q)
    n = Q.shape[0]
    V = batching.rows(model, V_before, model.nv, "V_before", n)
    e = _checks.scalar(restitution, "restitution")
    if not 0.0 <= e <= 1.0:
        raise ValueError(f"restitution must be in [0, 1], got {e}")
    settings = (mu, max_iterations, absolute_accuracy, relative_accuracy)
    return _run(model, n, prm, constraints, settings, _bc.impulse_dynamics_rows, (Q, V, e),
                _single.impulse_dynamics, None, e)


def _run(model, n, prm, constraints, settings, kernel, rows, single, third, e=None):
    PRM = batching.robots(model, prm, n)
    data = model.create_data()  # the checked table, settings and scratch size, as a call's
    table, prox, work, lam = _sets.prepare(model, data, constraints, *settings, "lambda_c")
    nt = max(1, min(numba.get_num_threads(), n))
    PROX = per_thread(nt, prox.shape)
    PROX[:, 0] = prox
    WORK = per_thread(nt, work.shape)
    OUT = np.empty((n, model.nv))
    LAM = np.empty((n, lam.shape[0]))
    STATUS = np.zeros((n, 4), dtype=np.int64)
    RES = np.zeros((n, 2))
    run_rows(kernel, n, nt, model.jnt, PRM, model.dof, table, *rows, PROX,
             workspace(model.jnt, nt), WORK, OUT, LAM, _arrays.NO_FORCES, _checks.QUAT_TOL,
             STATUS, RES)
    failed = np.flatnonzero((STATUS[:, 0] != 0) | (STATUS[:, 1] != 0))
    if failed.size:
        _explain(model, PRM, int(failed[0]), failed.size, single, constraints, settings,
                 rows, third, e)
    _warn_unconverged(prox, STATUS, RES)
    return OUT, LAM


def _explain(model, PRM, r, count, single, constraints, settings, rows, third, e):
    """Raise the single call's error on row r, prefixed with the row."""
    where = f"row {r}" if count == 1 else f"row {r} (of {count} failed)"
    m = batching.robot(model, PRM, r)
    args = (rows[0][r], rows[1][r]) + ((rows[2][r],) if third else ())
    keywords = dict(zip(("mu", "max_iterations", "absolute_accuracy", "relative_accuracy"),
                        settings))
    if e is not None:
        keywords["restitution"] = e
    try:
        single(m, m.create_data(), *args, constraints, **keywords)
    except ConstraintError as err:
        raise type(err)(err.constraint, f"{where}: {err.reason}") from None
    except (ValueError, ArithmeticError) as err:
        raise type(err)(f"{where}: {err}") from None
    raise NumericalOverflowError(f"{where}: the result is not finite although its "
                                         f"inputs are")


def _warn_unconverged(prox, STATUS, RES):
    if prox[X_MU] == 0.0:
        return
    stuck = np.flatnonzero((STATUS[:, 3] >= prox[X_MAX_ITER]) & (RES[:, 0] > prox[X_ABS_ACC])
                           & (RES[:, 1] > prox[X_REL_ACC]))
    if stuck.size:
        r = int(stuck[0])
        warnings.warn(f"the proximal iterations (mu = {prox[X_MU]:g}) stopped at "
                      f"max_iterations = {int(prox[X_MAX_ITER])} on {stuck.size} row(s), the "
                      f"first row {r} with |J ddq - rhs| = {RES[r, 0]:.3g}: a conflicting "
                      f"constraint set, or too few iterations for this mu", ConvergenceWarning,
                      stacklevel=3)
