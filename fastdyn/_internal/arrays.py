"""The small array helpers the single-state calls share: the empty "not given" inputs, the
optional external forces, scratch arrays kept on a Data, and results copied into ``out=``."""

from __future__ import annotations

import numpy as np

from . import checks as _checks

EMPTY = np.zeros(0)  # "not given" for v or a, as the kernels read it
NO_FORCES = np.zeros((0, 6))  # "no external forces": (0, 6), as the kernels read it


def optional_forces(model, fext) -> np.ndarray:
    """``fext`` checked as (njoints, 6) LOCAL forces, or NO_FORCES for None."""
    return NO_FORCES if fext is None else _checks.forces(model, fext)


def same_data(model, data) -> None:
    """Raise (checks.data_for says why) unless ``data`` was created by ``model``."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        _checks.data_for(model, data)


def buffer(data, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """A float64 array kept on ``data`` under ``name``, allocated at its first use only (one
    Data per thread, so no two calls share it)."""
    a = data.__dict__.get(name)
    if a is None or a.shape != shape:
        a = np.zeros(shape)
        setattr(data, name, a)
    return a


def copy_out(T: np.ndarray, out) -> np.ndarray:
    """``T``, or ``out`` (checked to T's shape) holding a copy of it."""
    if out is None:
        return T
    out = _checks.output(out, T.shape, "out")
    out[...] = T
    return out
