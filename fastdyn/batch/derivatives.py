"""Derivatives of many states at once, in parallel (``fastdyn.batch`` re-exports these):

    DQ, DV, MM = fd.batch.compute_rnea_derivatives(model, Q, V, A)     # each (N, nv, nv)
    DQ, DV, MINV = fd.batch.compute_aba_derivatives(model, Q, V, TAU)
    AA, BB = fd.batch.step_derivatives(scene, Q, V, TAU)       # (N, 2nv, 2nv), (N, 2nv, nv)

Row r equals the single call (``fastdyn.compute_rnea_derivatives``,
``compute_aba_derivatives``, ``Scene.step_derivatives``) on row r bit for bit, with 1 thread
or many (kernels/entry/batch_derivatives.py: one workspace per thread, contiguous
chunks of rows). ``prm``: one robot for every row or one per row (``fastdyn.parameter_batch``),
as the other batch calls. ``fext``: None, (njoints, 6) LOCAL forces for every row, or
(N, njoints, 6), one set per row. ``out``: the result arrays, preallocated (float64,
C-contiguous, the shapes above), to be filled instead of new ones. ``generated``: the model's
``fastdyn.codegen.generate(model, algorithms=codegen.DERIVATIVES)`` kernels, run on every row
instead of the generic ones (no fext or prm with them; rows equal ``gen.compute_*`` calls).
"""

from __future__ import annotations

import numba
import numpy as np

from .._internal import checks as _checks
from .._internal.parallel import launch
from .._internal.threads import run_rows
from .._internal import batching
from .. import derivatives as _single  # the single calls, named as these batches
from ..kernels.entry import batch_derivatives as _bd
from ..kernels.layout import per_thread
from ..model import Model

__all__ = ["compute_rnea_derivatives", "compute_aba_derivatives", "step_derivatives"]


def _forces(model: Model, fext, n: int) -> np.ndarray:
    """(1, 0, 6) for none, (1, njoints, 6) shared by every row, or (N, njoints, 6)."""
    if fext is None:
        return np.zeros((1, 0, 6))
    nj = model.njoints
    F = _checks.real(fext, "fext", "LOCAL forces (njoints, 6) or (N, njoints, 6)")
    if F.ndim == 2:
        F = F[None]
    if F.ndim != 3 or F.shape[1:] != (nj, 6) or F.shape[0] not in (1, n):
        raise ValueError(f"fext must have shape ({nj}, 6) or ({n}, {nj}, 6), got "
                         f"{np.shape(fext)}")
    if not np.isfinite(F).all():
        r, j = (int(x) for x in np.argwhere(~np.isfinite(F))[0][:2])
        raise ValueError(f"fext has a non-finite entry (row {r}, joint "
                         f"{model.joint_names[j]!r})")
    return np.ascontiguousarray(F)


def _row_call(single):
    """single(model, data, q, v, x) with row r's forces, for batching.explain_row."""
    def call(m, d, q, v, x, f):
        return single(m, d, q, v, x, f if f.size else None)
    return call


def _rows_of(F: np.ndarray, n: int) -> np.ndarray:
    return F if F.shape[0] == n else np.broadcast_to(F, (n,) + F.shape[1:])


def _generated(model: Model, generated, name: str, fext, prm):
    """The generated kernels' module when ``generated`` is given (checked: this model's, with
    ``name`` generated, no fext or prm), else None."""
    if generated is None:
        return None
    batching.generated_for(model, generated)
    if fext is not None or prm is not None:
        raise ValueError("generated derivative kernels take no fext or prm: use generated=None")
    if not hasattr(generated.kernels, name + "_batch"):
        raise ValueError(f"these generated kernels have no {name}: fastdyn.codegen.generate("
                         f"model, algorithms=(..., {name!r}))")
    return generated.kernels


def _rowwise(kernel):
    """A generated derivative kernel over rows on one thread (launch's serial fallback)."""
    def chunk(t, nt, gravity, Q, V, X, S, DQ, DV, MM):
        for r in range(Q.shape[0]):
            kernel(gravity, Q[r], V[r], X[r], S[r], DQ[r], DV[r], MM[r])
    return chunk


def _run_generated(model: Model, k, name: str, Q, V, X, outs, single) -> None:
    """The generated batch, then the generic single call on a row whose results are not
    finite (a singular M, an overflow), which names what went wrong."""
    S = np.empty((Q.shape[0], model.nv))
    launch(getattr(k, name + "_batch"), _rowwise(getattr(k, name)), model.gravity, Q, V, X, S,
           *outs)
    diag = np.stack([np.diagonal(x, axis1=1, axis2=2) for x in outs], axis=1)
    ok = np.isfinite(S).all(axis=1) & np.isfinite(diag).all(axis=(1, 2))
    batching.explain_row(model, np.where(ok, -1, 0), _row_call(single), Q, V, X,
                         np.zeros((Q.shape[0], 0, 6)))


def _prologue(model: Model, Q, V, X, xname: str, algo: str, fext, prm, out, generated,
              single) -> tuple:
    """(Q, V, X, outputs, done): rnea_derivatives' and aba_derivatives' checked rows and
    outputs (N, nv, nv) x 3; ``done`` when the generated kernels took the call (outputs
    filled)."""
    Q = batching.configurations(model, Q)
    n, nv = Q.shape[0], model.nv
    V = batching.rows(model, V, nv, "V", n)
    X = batching.rows(model, X, nv, xname, n)
    k = _generated(model, generated, algo, fext, prm)
    outputs = batching.outputs(out, ((n, nv, nv),) * 3)
    if k is not None:
        _run_generated(model, k, algo, Q, V, X, outputs, single)
    return Q, V, X, outputs, k is not None


def compute_rnea_derivatives(model: Model, Q, V, A, fext=None, prm=None, out=None,
                     generated=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(DQ, DV, MM), each (N, nv, nv): ``compute_rnea_derivatives`` of every row (dtau/dq,
    dtau/dv and M at Q[r], V[r], A[r]); q along tangent vectors, as Pinocchio's."""
    Q, V, A, (DQ, DV, MM), done = _prologue(model, Q, V, A, "A", "rnea_derivatives", fext, prm,
                                            out, generated, _single.compute_rnea_derivatives)
    if done:
        return DQ, DV, MM
    n = Q.shape[0]
    F = _forces(model, fext, n)
    PRM = batching.robots(model, prm, n)
    bad = np.empty(n, dtype=np.int64)
    launch(_bd.rnea_derivatives_batch, _bd.rnea_derivatives_chunk, model.jnt, PRM, Q, V, A, F,
           batching.workspaces(model), DQ, DV, MM, np.empty(0), bad)
    batching.explain_row(model, bad, _row_call(_single.compute_rnea_derivatives),
                         Q, V, A, _rows_of(F, n),
                 PRM=PRM)
    return DQ, DV, MM


def compute_aba_derivatives(model: Model, Q, V, TAU, fext=None, prm=None, out=None,
                    generated=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(DQ, DV, MINV), each (N, nv, nv): ``compute_aba_derivatives`` of every row (d(ddq)/dq,
    d(ddq)/dv and M^-1 at Q[r], V[r], TAU[r]); q along tangent vectors, as Pinocchio's."""
    Q, V, TAU, (DQ, DV, MINV), done = _prologue(model, Q, V, TAU, "TAU", "aba_derivatives",
                                                fext, prm, out, generated,
                                                _single.compute_aba_derivatives)
    if done:
        return DQ, DV, MINV
    n, nv = Q.shape[0], model.nv
    F = _forces(model, fext, n)
    PRM = batching.robots(model, prm, n)
    ws3 = batching.workspaces(model)
    nt = ws3.shape[0]
    bad = np.empty(n, dtype=np.int64)
    launch(_bd.aba_derivatives_batch, _bd.aba_derivatives_chunk, model.jnt, PRM, model.dof, Q, V,
           TAU, F, ws3, np.empty((n, nv)), DQ, DV, MINV, per_thread(nt, (nv, nv)),
           per_thread(nt, (nv, nv)), per_thread(nt, (nv,)), bad)
    batching.explain_row(model, bad, _row_call(_single.compute_aba_derivatives),
                         Q, V, TAU, _rows_of(F, n),
                 PRM=PRM)
    return DQ, DV, MINV


def step_derivatives(scene, Q, V, TAU=None, fext=None, prm=None,
                     out=None) -> tuple[np.ndarray, np.ndarray]:
    """(AA (N, 2nv, 2nv), BB (N, 2nv, nv)): ``scene.step_derivatives`` of every row (Q[r],
    V[r], TAU[r]; TAU None: zero torques), the transition Jacobians of one step of ``scene``
    (fastdyn/sim/step_derivatives.py says what is differentiated: constraint rows with their
    active set held fixed). A row whose step fails raises the single call's error, naming the
    row."""
    from ..sim import step_derivatives as _sd
    from ..sim.scene import Scene
    if not isinstance(scene, Scene):
        raise TypeError(f"scene must be a fastdyn.Scene, got {type(scene).__name__}")
    model = scene.model
    Q = batching.configurations(model, Q)
    n, nv = Q.shape[0], model.nv
    V = batching.rows(model, V, nv, "V", n)
    TAU = np.zeros((n, nv)) if TAU is None else batching.rows(model, TAU, nv, "TAU", n)
    F = _forces(model, fext, n)
    PRM = batching.robots(model, prm, n)
    opt = _sd.step_options(scene, PRM)
    AA, BB = batching.outputs(out, ((n, 2 * nv, 2 * nv), (n, 2 * nv, nv)))
    ws3, FBUF, IBUF, DBUF = _sd.step_buffers(scene, numba.get_num_threads())
    bad = np.empty(n, dtype=np.int64)
    geo, eqc = _sd.step_tables(scene)
    # on Python threads, as the rollouts (fastdyn/_internal/threads.py: no parallel kernel to
    # compile over the whole step again)
    run_rows(_bd.step_derivatives_rows, n, ws3.shape[0], model.jnt, PRM, model.dof,
             scene.spheres, scene.halfspaces, geo, eqc, opt, Q, V, TAU, F, ws3, FBUF, IBUF, DBUF,
             np.empty((n, model.nq)), np.empty((n, nv)), AA, BB, bad)
    rows = np.flatnonzero(bad >= 0)
    if rows.size:
        r = int(rows[0])
        _sd.explain(scene, int(bad[r]), f"the step of row {r}"
                    + (f" (of {rows.size} that failed)" if rows.size > 1 else ""))
    return AA, BB
