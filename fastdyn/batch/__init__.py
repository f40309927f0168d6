"""Many states at once, in parallel: ``fastdyn.batch.rnea(model, Q, V, A)`` and friends.

Rows of Q, V, A, TAU are states. Work is split in contiguous chunks over
``numba.get_num_threads()`` threads (set it with ``numba.set_num_threads``), each with its own
workspace; every row equals the single-call result bit for bit. The single-call functions in
``fastdyn`` never launch threads. A row whose result is not finite raises the error the single
call would (a singular inertia, an overflow), naming the row. Safe to call from several Python
threads at once and from forked worker processes (fastdyn/_internal/parallel.py says how).

Every function takes ``prm=``: a batch of robots (N, njoints, NP) from
``fastdyn.parameter_batch`` (or (njoints, NP), one robot for all rows), so that row r is
computed with robot r's parameters: Monte Carlo over masses and inertias, domain
randomization of a rollout farm. The topology (joints, sizes) is the model's.

``rnea``, ``aba`` and ``crba`` also take ``pi=``: the bodies' inertias only, (N, njoints - 1,
10) as ``fastdyn.sample_parameters`` returns them, with everything else (placements, armature,
gravity) the model's. That is the Monte Carlo case over masses and inertias, and the fast one:
a row reads 10 numbers a body instead of a full parameter row (on Talos, about 2.3 times the
throughput of the same robots as a ``prm`` batch; bench/test_montecarlo.py).
"""

from __future__ import annotations

import numba
import numpy as np

from .._internal import checks as _checks
from .. import dynamics, kinematics
from ..sim import simulation
from .._internal import batching, deprecated as _deprecated
from .._internal.parallel import launch
from .._internal.threads import run_rows
from ..dynamics import NO_FORCES
from ..codegen.parameters import KINEMATIC_COLUMNS
from ..kernels import layout
from ..kernels.entry import batch as _batch
from ..kernels.entry import batch_inertias as _batch_pi
from ..kernels.entry.parameter_check import pi_violation
from ..kernels.layout import per_thread, workspace
from ..kinematics import EMPTY
from ..model import Model

__all__ = ["rnea", "aba", "crba", "forward_kinematics", "simulate", "compute_rnea_derivatives",
           "compute_aba_derivatives", "step_derivatives", "random_configuration",
           "get_joint_velocity_derivatives", "get_joint_acceleration_derivatives",
           "get_frame_velocity_derivatives", "get_frame_acceleration_derivatives",
           "compute_centroidal_dynamics_derivatives", "inverse_kinematics",
           "compute_joint_torque_regressor", "constraint_dynamics", "impulse_dynamics"]


def _rowwise(kernel):
    """A generated single-row kernel as a chunk kernel (t, nt, gravity, X, Y, Z, OUT): the
    serial fallback of the generated batches (fastdyn/_internal/parallel.py)."""
    def chunk(t, nt, gravity, X, Y, Z, OUT):
        for r in range(X.shape[0]):
            kernel(gravity, X[r], Y[r], Z[r], OUT[r])
    return chunk


def _rowwise_prm(kernel, same_kinematics):
    """The serial fallback of a generated parameter-table batch (as _rowwise)."""
    def chunk(t, nt, PRM, X, Y, Z, OUT):
        for r in range(X.shape[0]):
            prm = PRM[r] if PRM.shape[0] > 1 else PRM[0]
            if same_kinematics(prm):
                kernel(prm, X[r], Y[r], Z[r], OUT[r])
            else:
                OUT[r, 0] = np.nan
    return chunk


def _rowwise_pi(kernel):
    """The serial fallback of a generated batch over inertias (as _rowwise)."""
    def chunk(t, nt, gravity, PI, X, Y, Z, OUT):
        for r in range(X.shape[0]):
            pi = PI[r] if PI.shape[0] > 1 else PI[0]
            if pi_violation(pi) < 0:
                kernel(gravity, pi, X[r], Y[r], Z[r], OUT[r])
            else:
                OUT[r, 0] = np.nan
    return chunk


def _finite_rows(X: np.ndarray) -> np.ndarray:
    """-1 for a finite row of X, 0 otherwise (as the kernels' ``bad``)."""
    return np.where(np.isfinite(X).all(axis=1), -1, 0)


def rnea(model: Model, Q, V, A, generated=None, prm=None, pi=None) -> np.ndarray:
    """TAU (N, nv): inverse dynamics of every row (Q (N, nq), V and A (N, nv)).
    ``generated``: the model's ``fastdyn.codegen.generate(model)`` kernels, to use instead of
    the generic ones (same checks on the inputs, about twice the throughput). ``prm``: one
    robot per row (see the module docstring); with ``generated`` too, the generated
    parameter-table kernels, which read the robots' inertias, armature and gravity and hold the
    model's placements and axes (a robot with other ones is refused, named). ``pi``: the
    bodies' inertias of each row, (N, njoints - 1, 10) or one set (njoints - 1, 10), the rest
    the model's (module docstring); not with ``prm``; with ``generated``, through its
    inertia kernels (``rnea_pi_batch``)."""
    return _dynamics(model, Q, V, A, "A", generated, "rnea", dynamics.rnea, prm, pi)


def aba(model: Model, Q, V, TAU, generated=None, prm=None, pi=None) -> np.ndarray:
    """DDQ (N, nv): forward dynamics of every row (``generated``, ``prm``, ``pi``: as for
    ``rnea``)."""
    return _dynamics(model, Q, V, TAU, "TAU", generated, "aba", dynamics.aba, prm, pi)


def _dynamics(model: Model, Q, V, X, xname: str, generated, name: str, single,
              prm, pi) -> np.ndarray:
    """rnea or aba (``name``) on every row, with the generic kernels or the generated ones;
    a non-finite row is explained by ``single``, the checked single call, on that row."""
    Q = batching.configurations(model, Q)
    V = batching.rows(model, V, model.nv, "V", Q.shape[0])
    X = batching.rows(model, X, model.nv, xname, Q.shape[0])
    OUT = np.empty((Q.shape[0], model.nv))
    if pi is not None:
        PI = batching.inertias(model, pi, prm, Q.shape[0])
        if batching.generated_for(model, generated) is not None:
            launch(getattr(generated.kernels, name + "_pi_batch"),
                   _rowwise_pi(getattr(generated.kernels, name + "_pi")), model.gravity, PI,
                   Q, V, X, OUT)
            bad = _finite_rows(OUT)
        else:
            bad = np.empty(Q.shape[0], dtype=np.int64)
            launch(getattr(_batch_pi, name + "_batch"), getattr(_batch_pi, name + "_chunk"),
                   model.jnt, model.prm, PI, Q, V, X, NO_FORCES, batching.workspaces(model), OUT, bad)
        batching.explain_inertia_row(model, bad, single, PI, Q, V, X)
        return OUT
    PRM = batching.robots(model, prm, Q.shape[0])
    if batching.generated_for(model, generated) is not None:
        k = generated.kernels
        if prm is None:
            launch(getattr(k, name + "_batch"), _rowwise(getattr(k, name)), model.gravity, Q, V,
                   X, OUT)
        else:
            launch(getattr(k, name + "_prm_batch"),
                   _rowwise_prm(getattr(k, name + "_prm"), k.same_kinematics), PRM, Q, V, X, OUT)
        bad = _finite_rows(OUT)
        if prm is not None and (bad >= 0).any():
            batching.kinematics_differ(model, PRM, bad)
    else:
        bad = np.empty(Q.shape[0], dtype=np.int64)
        launch(getattr(_batch, name + "_batch"), getattr(_batch, name + "_chunk"), model.jnt,
               PRM, Q, V, X, NO_FORCES, batching.workspaces(model), OUT, bad)
    batching.explain_row(model, bad, single, Q, V, X, PRM=PRM)
    return OUT


def crba(model: Model, Q, prm=None, pi=None) -> np.ndarray:
    """MM (N, nv, nv): the mass matrix of every row (``prm``: one robot per row; ``pi``: the
    bodies' inertias of each row, as for ``rnea``)."""
    Q = batching.configurations(model, Q)
    MM = np.empty((Q.shape[0], model.nv, model.nv))
    bad = np.empty(Q.shape[0], dtype=np.int64)
    if pi is not None:
        PI = batching.inertias(model, pi, prm, Q.shape[0])
        launch(_batch_pi.crba_batch, _batch_pi.crba_chunk, model.jnt, model.prm, PI, Q,
               batching.workspaces(model), MM, EMPTY, bad)
        batching.explain_inertia_row(model, bad, dynamics.crba, PI, Q)
        return MM
    PRM = batching.robots(model, prm, Q.shape[0])
    launch(_batch.crba_batch, _batch.crba_chunk, model.jnt, PRM, Q, batching.workspaces(model), MM,
           EMPTY, bad)
    batching.explain_row(model, bad, dynamics.crba, Q, PRM=PRM)
    return MM


def forward_kinematics(model: Model, Q, prm=None) -> tuple[np.ndarray, np.ndarray]:
    """(R (N, njoints, 3, 3), p (N, njoints, 3)): joint placements of every row (``prm``: one
    robot per row)."""
    Q = batching.configurations(model, Q)
    PRM = batching.robots(model, prm, Q.shape[0])
    OMI = np.empty((Q.shape[0], model.njoints, 12))
    bad = np.empty(Q.shape[0], dtype=np.int64)
    launch(_batch.forward_kinematics_batch, _batch.forward_kinematics_chunk, model.jnt, PRM, Q,
           batching.workspaces(model), OMI, EMPTY, bad)
    batching.explain_row(model, bad, kinematics.forward_kinematics, Q, PRM=PRM)
    return OMI[:, :, :9].reshape(Q.shape[0], model.njoints, 3, 3), OMI[:, :, 9:]


def simulate(model: Model, Q0, V0, TORQUES, dt: float,
             prm=None) -> tuple[np.ndarray, np.ndarray]:
    """Rollouts: (QS (N, T + 1, nq), VS (N, T + 1, nv)) from each row of Q0, V0 under
    TORQUES (N, T, nv), by semi-implicit Euler on the Lie group (see fastdyn.simulate);
    ``prm``: one robot per rollout."""
    Q0 = batching.configurations(model, Q0, "Q0")
    n = Q0.shape[0]
    PRM = batching.robots(model, prm, n)
    V0 = batching.rows(model, V0, model.nv, "V0", n)
    TORQUES = _checks.matrix(TORQUES, (n, -1, model.nv), "TORQUES")
    dt = _checks.scalar(dt, "dt", positive=True)
    steps = TORQUES.shape[1]
    QS = np.empty((n, steps + 1, model.nq))
    VS = np.empty((n, steps + 1, model.nv))
    ws3 = batching.workspaces(model)
    scratch = per_thread(ws3.shape[0], (model.nv,))
    bad = np.empty(n, dtype=np.int64)
    run_rows(_batch.simulate_rows, n, ws3.shape[0], model.jnt, PRM, Q0, V0, TORQUES, float(dt),
             NO_FORCES, ws3, QS, VS, scratch, bad)
    rows = np.flatnonzero(bad >= 0)
    if rows.size:
        r = int(rows[0])
        k = int(bad[r])
        simulation.explain_step(batching.robot(model, PRM, r), QS[r, k], VS[r, k], TORQUES[r, k], k, dt,
                                f"rollout {r} (of {rows.size} that failed)")
    return QS, VS


def random_configuration(model: Model, n: int, rng_or_seed=None, lower=None,
                         upper=None) -> np.ndarray:
    """(n, nq) random configurations, row r distributed as ``fastdyn.random_configuration``
    (same bounds, same defaults), drawn in one call: the n * nq uniforms come from one
    ``rng.random((n, nq))``, so a seeded call is reproducible. Serial: the work per row is a
    few nanoseconds."""
    from .. import configuration  # (it imports the checks this module does)
    if type(model) is not Model:
        from ..mimic import MimicModel
        model = model.configuration_model if type(model) is MimicModel else model
    _checks.model_arg(model)
    n = _checks.integer(n, "n", minimum=0)
    rng = configuration._generator(rng_or_seed)
    lo, hi = configuration.sampling_bounds(model, lower, upper)
    U = rng.random((n, model.nq))
    out = np.empty((n, model.nq))
    configuration._random_rows(model.jnt, lo, hi, U, out)
    return out


# derivatives of many states (fastdyn/batch/derivatives.py), here beside the other batches
from .derivatives import (compute_aba_derivatives, compute_rnea_derivatives,  # noqa: E402
                          step_derivatives)
# kinematics and centroidal derivatives of many states (fastdyn/batch/kinematics_derivatives.py)
from .kinematics_derivatives import (compute_centroidal_dynamics_derivatives,  # noqa: E402
                                     get_frame_acceleration_derivatives,
                                     get_frame_velocity_derivatives,
                                     get_joint_acceleration_derivatives,
                                     get_joint_velocity_derivatives)
# constrained and impulse dynamics of many states (fastdyn/batch/constrained.py)
from .constrained import constraint_dynamics, impulse_dynamics  # noqa: E402
# the single calls' batch twins defined beside them, under the single calls' names
from ..ik import inverse_kinematics_batch as inverse_kinematics  # noqa: E402
from ..regressors import (  # noqa: E402
    batch_joint_torque_regressor as compute_joint_torque_regressor)

# Names of fastdyn 0.1, kept for one release (fastdyn/docs/names.md: the naming rule).
_RENAMED = {
    "rnea_derivatives": "batch.compute_rnea_derivatives",
    "aba_derivatives": "batch.compute_aba_derivatives",
    "joint_velocity_derivatives": "batch.get_joint_velocity_derivatives",
    "joint_acceleration_derivatives": "batch.get_joint_acceleration_derivatives",
    "frame_velocity_derivatives": "batch.get_frame_velocity_derivatives",
    "frame_acceleration_derivatives": "batch.get_frame_acceleration_derivatives",
    "centroidal_dynamics_derivatives": "batch.compute_centroidal_dynamics_derivatives",
}


def __getattr__(name: str):
    return _deprecated.renamed(__name__, name, _RENAMED)
