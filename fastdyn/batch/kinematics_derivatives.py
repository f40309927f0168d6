"""Kinematics and centroidal derivatives of many states at once, in parallel
(``fastdyn.batch`` re-exports these):

    DVDQ, DVDV = fd.batch.get_frame_velocity_derivatives(model, Q, V, "tool")   # each (N, 6, nv)
    DVDQ, DADQ, DADV, DADA = fd.batch.get_frame_acceleration_derivatives(model, Q, V, A, "tool")
    DHDQ, DHDOTDQ, DHDOTDV, AG = fd.batch.compute_centroidal_dynamics_derivatives(model, Q, V, A)

Row r equals, bit for bit, ``compute_forward_kinematics_derivatives(model, data, Q[r], V[r],
A[r])`` followed by the matching getter (``get_frame_velocity_derivatives`` and friends,
fastdyn/kinematics_derivatives.py, which says what the matrices are and where they differ
from Pinocchio's), or ``compute_centroidal_dynamics_derivatives``, with 1 thread or many
(kernels/entry/batch_kinematics_derivatives.py). The velocity getters take no A: the pass
runs at A = 0, which the velocity and its derivatives do not depend on. ``prm``: one robot for
every row or one per row (``fastdyn.parameter_batch``), as the other batch calls. ``out``: the
result arrays, preallocated (float64, C-contiguous, the shapes above), filled instead of new
ones.
"""

from __future__ import annotations

import numpy as np

from .._internal import checks as _checks
from .._internal.checks import QUAT_TOL
from .._internal.parallel import launch
from .._internal import batching
from ..frames import LOCAL, reference_code
from ..kernels.entry import batch_kinematics_derivatives as _bk
from ..kernels.layout import per_thread
from ..kinematics import NO_FORCES
from .. import kinematics_derivatives as _single  # the single calls, named as these batches
from ..model import Model

__all__ = ["get_joint_velocity_derivatives", "get_joint_acceleration_derivatives",
           "get_frame_velocity_derivatives", "get_frame_acceleration_derivatives",
           "compute_centroidal_dynamics_derivatives"]

def _states(model: Model, Q, V, A, prm) -> tuple[np.ndarray, ...]:
    Q = batching.configurations(model, Q)
    n = Q.shape[0]
    V = batching.rows(model, V, model.nv, "V", n)
    A = np.zeros((n, model.nv)) if A is None else batching.rows(model, A, model.nv, "A", n)
    return Q, V, A, batching.robots(model, prm, n)


def _motion(model: Model, Q, V, A, kind: str, target, reference, prm, out,
            acceleration: bool) -> tuple[np.ndarray, ...]:
    Q, V, A, PRM = _states(model, Q, V, A, prm)
    if kind == "frame":
        i = _checks.frame_index(model, target)
    else:
        i = _checks.joint_index(model, target)
    ref = reference_code(reference)
    n, nv = Q.shape[0], model.nv
    ws3 = batching.workspaces(model)
    nt = ws3.shape[0]
    if acceleration:
        DVDQ, DADQ, DADV, DADA = batching.outputs(out, ((n, 6, nv),) * 4)
        DVDV = per_thread(nt, (6, nv)).reshape(-1, 6, nv)  # thread t's at t * rows
    else:
        DVDQ, DVDV = batching.outputs(out, ((n, 6, nv),) * 2)
        DADQ = DADV = DADA = np.empty((n, 6, 0))
    bad = np.empty(n, dtype=np.int64)
    launch(_bk.motion_derivatives_batch, _bk.motion_derivatives_chunk, model.jnt, PRM, model.frm,
           Q, V, A, i, kind == "frame", ref, ws3, per_thread(nt, (model.nframes, 12)), DVDQ, DVDV,
           DADQ, DADV, DADA, NO_FORCES, QUAT_TOL, bad)
    batching.explain_row(model, bad, _single.compute_forward_kinematics_derivatives,
                         Q, V, A, PRM=PRM)
    return (DVDQ, DADQ, DADV, DADA) if acceleration else (DVDQ, DVDV)


def get_joint_velocity_derivatives(model: Model, Q, V, joint: int | str, reference: int = LOCAL,
                               prm=None, out=None) -> tuple[np.ndarray, np.ndarray]:
    """(DVDQ, DVDV), each (N, 6, nv): ``get_joint_velocity_derivatives`` of joint ``joint`` in
    ``reference`` at every row (Q (N, nq), V (N, nv)); DVDV[r] is the joint's Jacobian."""
    return _motion(model, Q, V, None, "joint", joint, reference, prm, out, False)


def get_joint_acceleration_derivatives(model: Model, Q, V, A, joint: int | str,
                                   reference: int = LOCAL, prm=None, out=None
                                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(DVDQ, DADQ, DADV, DADA), each (N, 6, nv): ``get_joint_acceleration_derivatives`` of
    joint ``joint`` in ``reference`` at every row (spatial acceleration, gravity excluded)."""
    return _motion(model, Q, V, A, "joint", joint, reference, prm, out, True)


def get_frame_velocity_derivatives(model: Model, Q, V, frame: int | str, reference: int = LOCAL,
                               prm=None, out=None) -> tuple[np.ndarray, np.ndarray]:
    """(DVDQ, DVDV), each (N, 6, nv): ``get_frame_velocity_derivatives`` of frame ``frame`` in
    ``reference`` at every row (Q (N, nq), V (N, nv)); DVDV[r] is the frame's Jacobian."""
    return _motion(model, Q, V, None, "frame", frame, reference, prm, out, False)


def get_frame_acceleration_derivatives(model: Model, Q, V, A, frame: int | str,
                                   reference: int = LOCAL, prm=None, out=None
                                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(DVDQ, DADQ, DADV, DADA), each (N, 6, nv): ``get_frame_acceleration_derivatives`` of
    frame ``frame`` in ``reference`` at every row, Pinocchio's getFrameAccelerationDerivatives
    order (spatial acceleration, gravity excluded)."""
    return _motion(model, Q, V, A, "frame", frame, reference, prm, out, True)


def compute_centroidal_dynamics_derivatives(model: Model, Q, V, A, prm=None, out=None
                                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(DHDQ, DHDOTDQ, DHDOTDV, AG), each (N, 6, nv): ``compute_centroidal_dynamics_derivatives``
    at every row (dh_g/dq, d(dh_g/dt)/dq, d(dh_g/dt)/dv and A_g = d(dh_g/dt)/da)."""
    Q, V, A, PRM = _states(model, Q, V, A, prm)
    n, nv = Q.shape[0], model.nv
    out = batching.outputs(out, ((n, 6, nv),) * 4)
    ws3 = batching.workspaces(model)
    nt = ws3.shape[0]
    bad = np.empty(n, dtype=np.int64)
    launch(_bk.centroidal_derivatives_batch, _bk.centroidal_derivatives_chunk, model.jnt, PRM,
           Q, V, A, ws3, *out, per_thread(nt, (6,)), per_thread(nt, (6,)), NO_FORCES, QUAT_TOL, bad)
    batching.explain_row(model, bad, _single.compute_centroidal_dynamics_derivatives,
                         Q, V, A, PRM=PRM)
    return out
