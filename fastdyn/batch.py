"""Many states at once, in parallel: ``fastdyn.batch.rnea(model, Q, V, A)`` and friends.

Rows of Q, V, A, TAU are states. Work is split in contiguous chunks over
``numba.get_num_threads()`` threads (set it with ``numba.set_num_threads``), each with its own
workspace; every row equals the single-call result bit for bit. The single-call functions in
``fastdyn`` never launch threads.
"""

from __future__ import annotations

import numba
import numpy as np

from . import _checks
from .dynamics import NO_FORCES, SingularMassMatrixError
from .kernels.algorithms import batch as _batch
from .kernels.joints import codes
from .kernels.layout import NW
from .kinematics import EMPTY
from .model import Model


def _rows(model: Model, X, n: int, name: str, nrows: int | None = None) -> np.ndarray:
    X = _checks.matrix(X, (-1 if nrows is None else nrows, n), name)
    return X


def _configurations(model: Model, Q) -> np.ndarray:
    Q = _rows(model, Q, model.nq, "Q")
    for i, (t, iq) in _checks._lie_joints(model):
        o = iq + (3 if t == codes.FREEFLYER else 2 if t == codes.PLANAR else 0)
        k = 4 if t in (codes.SPHERICAL, codes.FREEFLYER) else 2
        nrm = np.sqrt((Q[:, o:o + k] ** 2).sum(axis=1))
        bad = np.flatnonzero(np.abs(nrm - 1.0) > _checks.QUAT_TOL)
        if bad.size:
            raise ValueError(f"Q row {bad[0]}: joint {model.joint_names[i]!r} has a "
                             f"non-unit {'quaternion' if k == 4 else '(cos, sin) pair'} "
                             f"(norm {nrm[bad[0]]:.9g}); normalize first")
    return Q


def _workspaces(model: Model) -> np.ndarray:
    ws3 = np.zeros((numba.get_num_threads(), model.njoints, NW))
    ws3[:, 0, 0] = ws3[:, 0, 4] = ws3[:, 0, 8] = 1.0
    ws3[:, 0, 12] = ws3[:, 0, 16] = ws3[:, 0, 20] = 1.0
    return ws3


def _check_bad(model: Model, bad: np.ndarray) -> None:
    rows = np.flatnonzero(bad >= 0)
    if rows.size:
        r = int(rows[0])
        raise SingularMassMatrixError(
            f"row {r}: the articulated inertia of joint {model.joint_names[int(bad[r])]!r} is "
            f"not positive definite (massless subtree on a moving joint?)")


def _generated_for(model: Model, generated):
    if generated is not None and generated.model_token != model.token:
        raise ValueError("these generated kernels were made for another model "
                         "(fastdyn.codegen.generate(model) for this one)")
    return generated


def rnea(model: Model, Q, V, A, generated=None) -> np.ndarray:
    """TAU (N, nv): inverse dynamics of every row (Q (N, nq), V and A (N, nv)).
    ``generated``: the model's ``fastdyn.codegen.generate(model)`` kernels, to use instead of
    the generic ones (same checks on the inputs, about twice the throughput)."""
    Q = _configurations(model, Q)
    V = _rows(model, V, model.nv, "V", Q.shape[0])
    A = _rows(model, A, model.nv, "A", Q.shape[0])
    TAU = np.empty((Q.shape[0], model.nv))
    if _generated_for(model, generated) is not None:
        generated.kernels.rnea_batch(model.gravity, Q, V, A, TAU)
    else:
        _batch.rnea_batch(model.jnt, model.gravity, Q, V, A, NO_FORCES, _workspaces(model), TAU)
    return TAU


def aba(model: Model, Q, V, TAU, generated=None) -> np.ndarray:
    """DDQ (N, nv): forward dynamics of every row (``generated``: as for ``rnea``)."""
    Q = _configurations(model, Q)
    V = _rows(model, V, model.nv, "V", Q.shape[0])
    TAU = _rows(model, TAU, model.nv, "TAU", Q.shape[0])
    DDQ = np.empty((Q.shape[0], model.nv))
    if _generated_for(model, generated) is not None:
        generated.kernels.aba_batch(model.gravity, Q, V, TAU, DDQ)
        if not np.isfinite(DDQ).all():  # inputs were finite: a singular articulated inertia
            rows = np.flatnonzero(~np.isfinite(DDQ).all(axis=1))
            raise SingularMassMatrixError(
                f"M(q) is singular (massless subtree on a moving joint?) in rows {rows[:10]}")
        return DDQ
    bad = np.empty(Q.shape[0], dtype=np.int64)
    _batch.aba_batch(model.jnt, model.gravity, Q, V, TAU, NO_FORCES, _workspaces(model), DDQ, bad)
    _check_bad(model, bad)
    return DDQ


def crba(model: Model, Q) -> np.ndarray:
    """MM (N, nv, nv): the mass matrix of every row."""
    Q = _configurations(model, Q)
    MM = np.empty((Q.shape[0], model.nv, model.nv))
    _batch.crba_batch(model.jnt, Q, _workspaces(model), MM, EMPTY)
    return MM


def forward_kinematics(model: Model, Q) -> tuple[np.ndarray, np.ndarray]:
    """(R (N, njoints, 3, 3), p (N, njoints, 3)): joint placements of every row."""
    Q = _configurations(model, Q)
    OMI = np.empty((Q.shape[0], model.njoints, 12))
    _batch.forward_kinematics_batch(model.jnt, Q, _workspaces(model), OMI, EMPTY)
    return OMI[:, :, :9].reshape(Q.shape[0], model.njoints, 3, 3), OMI[:, :, 9:]


def simulate(model: Model, Q0, V0, TORQUES, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Rollouts: (QS (N, T + 1, nq), VS (N, T + 1, nv)) from each row of Q0, V0 under
    TORQUES (N, T, nv), by semi-implicit Euler on the Lie group (see fastdyn.simulate)."""
    Q0 = _configurations(model, Q0)
    n = Q0.shape[0]
    V0 = _rows(model, V0, model.nv, "V0", n)
    TORQUES = np.ascontiguousarray(TORQUES, dtype=np.float64)
    if TORQUES.ndim != 3 or TORQUES.shape[0] != n or TORQUES.shape[2] != model.nv:
        raise ValueError(f"TORQUES must have shape ({n}, T, {model.nv}), got {TORQUES.shape}")
    if not np.isfinite(TORQUES).all():
        raise ValueError("TORQUES has non-finite entries")
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite time step, got {dt}")
    steps = TORQUES.shape[1]
    QS = np.empty((n, steps + 1, model.nq))
    VS = np.empty((n, steps + 1, model.nv))
    ws3 = _workspaces(model)
    scratch = np.empty((ws3.shape[0], model.nv))
    bad = np.empty(n, dtype=np.int64)
    _batch.simulate_batch(model.jnt, model.gravity, Q0, V0, TORQUES, float(dt), NO_FORCES, ws3,
                          QS, VS, scratch, bad)
    rows = np.flatnonzero(bad >= 0)
    if rows.size:
        raise SingularMassMatrixError(f"rollout {rows[0]}: singular dynamics at step "
                                      f"{bad[rows[0]]}")
    return QS, VS
