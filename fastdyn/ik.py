"""Inverse kinematics of one frame by damped least squares, one target or many in parallel.

Source: Buss (2004), damped least squares; Traversaro & Saccon (2019), sec. 8 (Jacobians).
Each iteration solves (J J^T + mu I) y = e, steps q <- integrate(q, J^T y) on the configuration
Lie group (free-flyers and quaternions included) and brings q into the model's position limits
(clamped; angles whose range spans a full turn are wrapped into it instead, same pose); mu
adapts (Levenberg-Marquardt), rising near singularities; a stalled solve restarts from a random
configuration (deterministic for a given ``seed``). The whole loop is one Numba kernel
(fastdyn.kernels.entry.ik.solve) calling the forward-kinematics and Jacobian kernels.
Tasks and their error e (``residual`` = |e|):
  "position"     p* - p in the world (m)                  target: (3,) or 4x4
  "orientation"  log3(R^T R*) in the frame (rad)          target: (3, 3) or 4x4
  "pose"         log6(oMf^-1 oMf*) = [v; w] in the frame   target: 4x4 or (R, p)
References: Buss, "Introduction to inverse kinematics with Jacobian transpose, pseudoinverse and
damped least squares methods", 2004; Traversaro & Saccon, "Multibody dynamics notation (version
2)", Technische Universiteit Eindhoven, 2019.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ._internal import checks as _checks
from ._internal.parallel import launch
from .kernels.entry import ik as _ik
from .kernels.configuration.dispatch import neutral as _neutral
from .kernels.layout import per_thread, workspace
from .kinematics import forward_kinematics
from .model import Data, Model

TASKS = {"position": _ik.POSITION, "orientation": _ik.ORIENTATION, "pose": _ik.POSE}

__all__ = ["IKResult", "IKBatchResult", "inverse_kinematics", "inverse_kinematics_batch"]


@dataclass(frozen=True)
class IKResult:
    q: np.ndarray  # (nq,) the solution, or the configuration of least residual met
    converged: bool  # residual <= tol
    iterations: int  # iterations used (all restarts included)
    residual: float  # |e| at q


@dataclass(frozen=True)
class IKBatchResult:
    q: np.ndarray  # (N, nq)
    converged: np.ndarray  # (N,) bool
    iterations: np.ndarray  # (N,) int64
    residual: np.ndarray  # (N,)


def _task(task: str) -> int:
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(map(repr, TASKS))}, got {task!r}")
    return TASKS[task]


def _target(x, mode: int) -> np.ndarray:
    """[R* row-major (9); p* (3)] from the forms the module docstring lists."""
    out = np.zeros(12)
    out[[0, 4, 8]] = 1.0
    if isinstance(x, tuple) and len(x) == 2:
        R = _checks.matrix(x[0], (3, 3), "target rotation")
        out[:9] = R.ravel()
        out[9:] = _checks.vector(x[1], 3, "target position")
        return out
    a = _checks.real(x, "target", "a 4x4 matrix, (R, p), (3,) or (3, 3)")
    if a.shape == (4, 4):
        a = _checks.matrix(a, (4, 4), "target")
        out[:9] = a[:3, :3].ravel()
        out[9:] = a[:3, 3]
    elif a.shape == (3,) and mode == _ik.POSITION:
        out[9:] = _checks.vector(a, 3, "target")
    elif a.shape == (3, 3) and mode == _ik.ORIENTATION:
        out[:9] = _checks.matrix(a, (3, 3), "target").ravel()
    else:
        want = {_ik.POSITION: "(3,) or 4x4", _ik.ORIENTATION: "(3, 3) or 4x4",
                _ik.POSE: "4x4 or (R, p)"}[mode]
        raise ValueError(f"target for this task must be {want}, got shape {a.shape}")
    if mode != _ik.POSITION and not _is_rotation(out[:9].tolist()):
        raise ValueError("target rotation is not a rotation matrix (R^T R != I or det < 0)")
    return out


def _is_rotation(r: list[float], tol: float = 1e-6) -> bool:
    """|R^T R - I| <= tol entry by entry and det R > 0, R row-major in r (nine floats): in
    plain floats, since NumPy's calls on a 3x3 cost microseconds each."""
    cols = (r[0::3], r[1::3], r[2::3])
    for i in range(3):
        for j in range(i, 3):
            dot = cols[i][0] * cols[j][0] + cols[i][1] * cols[j][1] + cols[i][2] * cols[j][2]
            if not abs(dot - (i == j)) <= tol:  # (a NaN fails too)
                return False
    det = (r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6])
           + r[2] * (r[3] * r[7] - r[4] * r[6]))
    return det > 0.0


def _limits(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """The model's position limits, gathered once per model (its parameters never change;
    gathering them joint by joint costs ~25 us on UR5). The kernels only read them."""
    cache = model.__dict__.get("_ik_limits")
    if cache is None:
        cache = (np.ascontiguousarray(model.lower_position_limit),
                 np.ascontiguousarray(model.upper_position_limit))
        model.__dict__["_ik_limits"] = cache
    return cache


def _start(model: Model, q0) -> np.ndarray:
    if q0 is None:
        q = np.empty(model.nq)
        _neutral(model.jnt, q)
        return q
    return _checks.configuration(model, q0, "q0")


def _options(tol: float, max_iter: int, seed: int) -> tuple[float, int, int]:
    return (_checks.scalar(tol, "tol", positive=True),
            _checks.integer(max_iter, "max_iter", minimum=0), _checks.integer(seed, "seed"))


def _finite_answer(Q: np.ndarray, residual, targets) -> None:
    """The solver's answer, or NumericalOverflowError: a finite target too far for float64
    (1e200) gives a non-finite residual or q."""
    _checks.finite_result(Q, ("target",), (targets,))
    _checks.finite_result(np.asarray(residual, dtype=np.float64), ("target",), (targets,))


def inverse_kinematics(model: Model, data: Data, frame: int | str, target, q0=None, *,
                       task: str = "pose", tol: float = 1e-10, max_iter: int = 300,
                       seed: int = 0) -> IKResult:
    """Solve for q placing ``frame`` at ``target`` (see the module docstring), starting from
    q0 (default: the neutral configuration). An unreachable target returns converged False
    with the least residual found; it never raises. q is a new array; data's workspace is used
    (data.kinematics is left at the placements of the returned q)."""
    _checks.data_for(model, data)
    f = _checks.frame_index(model, frame)
    mode = _task(task)
    tgt = _target(target, mode)
    tol, max_iter, seed = _options(tol, max_iter, seed)
    lower, upper = _limits(model)
    q = np.empty(model.nq)
    J = np.zeros((6, model.nv))
    conv, it, res = _ik.solve(model.jnt, model.prm, model.frm, f, mode, tgt, _start(model, q0),
                              lower, upper, tol, max_iter, seed, data.ws, data.oMf, J, q)
    _finite_answer(q, res, tgt)
    forward_kinematics(model, data, q)  # leave data consistent with the answer
    return IKResult(q, bool(conv), int(it), float(res))


def inverse_kinematics_batch(model: Model, frame: int | str, targets, q0=None, *,
                             task: str = "pose", tol: float = 1e-10, max_iter: int = 300,
                             seed: int = 0, prm=None) -> IKBatchResult:
    """inverse_kinematics for N targets in parallel (numba prange, one workspace per thread):
    targets (N, 4, 4), or (N, 3) for "position", (N, 3, 3) for "orientation"; q0 None, (nq,)
    for all or (N, nq). Target r uses seed + r, so results do not depend on the thread count.
    ``prm``: target r solved on robot r of a parameter batch (N, njoints, NP) (e.g. edited
    placements, ``fastdyn.parameter_batch``), or one robot's table for all; the joint limits
    the solver respects are the model's."""
    _checks.model_arg(model)
    f = _checks.frame_index(model, frame)
    mode = _task(task)
    tol, max_iter, seed = _options(tol, max_iter, seed)
    T = _checks.real(targets, "targets", "a stack of targets (N, ...)")
    if T.ndim < 2:
        raise ValueError(f"targets must be a stack of targets (N, ...), got shape {T.shape}")
    tg = np.stack([_target(t, mode) for t in T]) if len(T) else np.zeros((0, 12))
    n = tg.shape[0]
    if q0 is None:
        Q0 = np.repeat(_start(model, None)[None], n, axis=0)
    else:
        a = _checks.real(q0, "q0", f"(nq,) or ({n}, nq) real numbers")
        rows = [a] * n if a.ndim == 1 else list(a)
        if a.ndim not in (1, 2) or len(rows) != n:
            raise ValueError(f"q0 must be (nq,) or ({n}, nq), got shape {a.shape}")
        Q0 = np.stack([_checks.configuration(model, r, "q0") for r in rows]) if n else \
            np.zeros((0, model.nq))
    lower, upper = _limits(model)
    nt = numba.get_num_threads()
    ws3 = workspace(model.jnt, nt)
    Q = np.empty((n, model.nq))
    conv = np.zeros(n, dtype=np.bool_)
    iters = np.zeros(n, dtype=np.int64)
    res = np.zeros(n)
    from ._internal import batching
    PRM = batching.robots(model, prm, n)
    launch(_ik.solve_batch, _ik.solve_chunk, model.jnt, PRM, model.frm, f, mode, tg, Q0,
           lower, upper, tol, max_iter, seed, ws3, per_thread(nt, (model.nframes, 12)),
           per_thread(nt, (6, model.nv)), Q, conv, iters, res)
    _finite_answer(Q, res, tg)
    return IKBatchResult(Q, conv, iters, res)
