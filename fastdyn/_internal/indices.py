"""Joints and frames named by the caller: a name, or an integer index checked against the
model's range (never a float or a bool truncated to a neighbouring joint). The lowest of the
argument checks: it reads the model only through its attributes (``joint_id``, ``njoints``...),
so the Model class itself can use it."""

from __future__ import annotations

import operator

import numpy as np


def typename(x) -> str:
    t = type(x)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def index(i, name: str, what: str = "a name or an integer index") -> int:
    """An integer: ints and NumPy integers; a float (1.7, even 2.0) or a bool is a TypeError,
    never truncated to a neighbouring joint or frame."""
    if isinstance(i, (bool, np.bool_)):
        raise TypeError(f"{name} must be {what}, got {i!r}")
    try:
        return operator.index(i)
    except TypeError:
        raise TypeError(f"{name} must be {what}, got {typename(i)} {i!r}") from None


def joint_index(model, j, name: str = "joint") -> int:
    if isinstance(j, str):
        return model.joint_id(j)
    j = index(j, name)
    if not 0 <= j < model.njoints:
        raise IndexError(f"{name} index {j} out of range 0..{model.njoints - 1}")
    return j


def frame_index(model, f, name: str = "frame") -> int:
    if isinstance(f, str):
        return model.frame_id(f)
    f = index(f, name)
    if not 0 <= f < model.nframes:
        raise IndexError(f"{name} index {f} out of range 0..{model.nframes - 1}")
    return f
