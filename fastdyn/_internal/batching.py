"""The argument handling every batch shares: rows of states, batches of robots (prm=) and of
inertias (pi=), per-thread workspaces, and a failed row explained by the single call on it.
Used by fastdyn.batch, the simulator's rollouts (fastdyn.sim) and studies (fastdyn.study)."""

from __future__ import annotations

import numba
import numpy as np

from . import checks as _checks
from ..codegen.parameters import KINEMATIC_COLUMNS
from ..kernels import layout
from ..kernels.layout import workspace
from ..model import Model

# the first column of each named field of a parameter row (to name a column)
_FIELD_STARTS = np.array([layout.PARAM_DTYPE.fields[f][1] // 8 for f in layout.PARAM_DTYPE.names])


def rows(model: Model, X, n: int, name: str, nrows: int | None = None) -> np.ndarray:
    X = _checks.matrix(X, (-1 if nrows is None else nrows, n), name)
    return X


def configurations(model: Model, Q, name: str = "Q") -> np.ndarray:
    _checks.model_arg(model)
    Q = rows(model, Q, model.nq, name)
    for i, o, k in _checks.unit_parts(model):
        nrm = np.sqrt((Q[:, o:o + k] ** 2).sum(axis=1))
        bad = np.flatnonzero(np.abs(nrm - 1.0) > _checks.QUAT_TOL)
        if bad.size:
            raise ValueError(f"{name} row {bad[0]}: joint {model.joint_names[i]!r} has a "
                             f"non-unit {_checks.UNIT_NAME[k]} (norm {nrm[bad[0]]:.9g}); "
                             f"normalize first")
    return Q


def robots(model: Model, prm, n: int) -> np.ndarray:
    """The parameter batch the kernels read: (1, njoints, NP) for the model's own parameters,
    or ``prm`` checked (fastdyn.parameters.check_parameters) with one robot or one per row."""
    if prm is None:
        return model.prm[None]
    from ..parameters import check_parameters
    PRM = check_parameters(model, prm)
    if PRM.shape[0] not in (1, n):
        raise ValueError(f"prm holds {PRM.shape[0]} robots for {n} rows: give one robot, or "
                         f"one per row")
    return PRM


def inertias(model: Model, pi, prm, n: int) -> np.ndarray:
    """The batch over inertias the kernels read (parameters.check_inertias), for n rows."""
    if prm is not None:
        raise ValueError("give prm= (whole parameter rows) or pi= (inertias only, the rest "
                         "the model's), not both")
    from ..parameters import check_inertias
    PI = check_inertias(model, pi)
    if PI.shape[0] not in (1, n):
        raise ValueError(f"pi holds {PI.shape[0]} sets of inertias for {n} rows: give one, "
                         f"or one per row")
    return PI


def explain_inertia_row(model: Model, bad: np.ndarray, call, PI: np.ndarray, *rows) -> None:
    """As explain_row for a batch over inertias: a row whose inertias the kernels refused
    (left NaN) is named with its rule, any other by the single call on that row's robot."""
    hit = np.flatnonzero(bad >= 0)
    if not hit.size:
        return
    from ..parameters import explain_inertias
    explain_inertias(model, PI, hit)
    prm = model.prm.copy()
    prm[1:, layout.P_PI:layout.P_PI + 10] = PI[int(hit[0]) if PI.shape[0] > 1 else 0]
    explain_row(model.with_parameters(prm), bad, call, *rows)


def workspaces(model: Model) -> np.ndarray:
    return workspace(model.jnt, numba.get_num_threads())


def robot(model: Model, PRM: np.ndarray, r: int) -> Model:
    """Row r's robot as a Model (to explain a failed row with the single calls)."""
    return model if PRM.shape[0] == 1 else model.with_parameters(PRM[r])


def explain_row(model: Model, bad: np.ndarray, call, *rows, PRM=None) -> None:
    """Raise for the first row with ``bad >= 0``, by running the checked single call on it
    (fastdyn.rnea, .aba, ...), which names the cause (a singular inertia, an overflow) as a
    single call would; prefixed with the row."""
    hit = np.flatnonzero(bad >= 0)
    if not hit.size:
        return
    r = int(hit[0])
    where = f"row {r}" if hit.size == 1 else f"row {r} (of {hit.size} failed)"
    try:
        m = model if PRM is None else robot(model, PRM, r)
        call(m, m.create_data(), *(x[r] for x in rows))
    except (ValueError, ArithmeticError) as e:
        raise type(e)(f"{where}: {e}") from None
    raise _checks.NumericalOverflowError(f"{where}: the result is not finite although its "
                                         f"inputs are")


def generated_for(model: Model, generated):
    """``generated`` if its kernels were generated from this very model: same joints (token)
    and the same parameters, which generated code holds as literals (a with_* variant shares
    the token but not the parameters)."""
    if generated is not None and not (generated.model_token == model.token and (
            generated._model is model or np.array_equal(generated._model.prm[1:], model.prm[1:]))):
        raise ValueError("these generated kernels were made for another model "
                         "(fastdyn.codegen.generate(model) for this one)")
    return generated


def kinematics_differ(model: Model, PRM: np.ndarray, bad: np.ndarray) -> None:
    """Raise for the first failed row whose robot has other placements, axes or pitch than
    the generated kernels hold (they left it NaN); other failures are explain_row's."""
    for r in np.flatnonzero(bad >= 0):
        s = int(r) if PRM.shape[0] > 1 else 0
        diff = PRM[s, 1:, :KINEMATIC_COLUMNS] != model.prm[1:, :KINEMATIC_COLUMNS]
        if diff.any():
            j, c = (int(x) for x in np.argwhere(diff)[0])
            field = layout.PARAM_DTYPE.names[np.searchsorted(_FIELD_STARTS, c, "right") - 1]
            raise ValueError(
                f"row {int(r)}: robot {s} has another {field!r} for joint "
                f"{model.joint_names[j + 1]!r} than the model these generated kernels were "
                f"made from; they hold placements, axes and pitches as constants and read "
                f"only the dynamic parameters (inertias, armature, gravity) from prm: use "
                f"generated=None for robots with edited kinematics")


def outputs(out, shapes: tuple[tuple[int, ...], ...]) -> tuple[np.ndarray, ...]:
    """The caller's ``out=`` arrays checked (shapes, no overlap), or new ones."""
    if out is None:
        return tuple(np.empty(s) for s in shapes)
    if not isinstance(out, (tuple, list)) or len(out) != len(shapes):
        raise TypeError(f"out must be a tuple of {len(shapes)} arrays of shapes "
                        f"{', '.join(map(str, shapes))}")
    arrays = tuple(_checks.output(x, s, f"out[{k}]") for k, (x, s) in enumerate(zip(out, shapes)))
    if len({id(x) for x in arrays}) != len(arrays) or any(
            np.shares_memory(x, y) for k, x in enumerate(arrays) for y in arrays[k + 1:]):
        raise ValueError("out: the arrays must not overlap")
    return arrays
