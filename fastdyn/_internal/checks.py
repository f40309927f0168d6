"""Input checks at the Python boundary: one place, clear messages, no numba typing errors.

Every public function converts its arrays here once; kernels then trust them. float32/int
inputs are converted to float64 (a copy) rather than compiling a second specialization.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from ..kernels.joints import codes
from .indices import frame_index, index, joint_index, typename  # noqa: F401
from ..errors import (MimicNotSupportedError, NumericalOverflowError,  # noqa: F401
                      SingularMassMatrixError)

_HERE = os.path.dirname(os.path.abspath(__file__))  # fastdyn/_internal
# The Model and Data classes, which fastdyn/model.py registers when it is imported (it imports
# this module, so this one cannot import it back): the type checks below need them.
Model = Data = type(None)


def register(model_class: type, data_class: type) -> None:
    """Called once by fastdyn/model.py: the classes ``model_arg`` and ``data_for`` accept."""
    global Model, Data
    Model, Data = model_class, data_class


QUAT_TOL = 1e-6  # |‖quat‖ - 1| above this is a caller error, not rounding
F64 = np.dtype(np.float64)
_ND = np.ndarray


def fast_vector(x, n: int, name: str) -> np.ndarray:
    """Type, dtype, ndim and length only: finiteness and unit parts are checked inside the
    compiled call (kernels/entry/guard.py), and its entry point takes any layout
    (fastdyn/_internal/fastcall.py), so a strided view passes as it is. Anything unusual goes
    through ``vector``, which converts or raises. The entry points rely on this check."""
    if type(x) is _ND and x.dtype is F64 and x.ndim == 1 and len(x) == n:
        return x
    return vector(x, n, name)


def fast_state(q, v, x, nq: int, nv: int, xname: str) -> tuple:
    """``fast_vector`` on (q, v, x) in one call, x being a or tau: one Python call instead of
    three saves ~50 ns of a ~1 us single call (UR5 RNEA, measured)."""
    if (type(q) is type(v) is type(x) is _ND and q.dtype is v.dtype is x.dtype is F64
            and q.ndim == v.ndim == x.ndim == 1 and len(q) == nq and len(v) == len(x) == nv):
        return q, v, x
    return vector(q, nq, "q"), vector(v, nv, "v"), vector(x, nv, xname)


def explain(model, code: int, names: tuple[str, ...], *inputs: np.ndarray) -> None:
    """Raise the error that a guard kernel's code stands for (kernels/entry/guard.py);
    ``inputs`` are the arrays named by ``names``, q first."""
    kind, detail = divmod(int(code), 1_000_000)
    if 1 <= kind <= 3:
        raise ValueError(f"{names[kind - 1]} has non-finite entries at indices [{detail}]")
    if kind == 4:
        raise ValueError(f"fext has a non-finite entry for joint {model.joint_names[detail]!r}")
    if kind == 5:
        configuration(model, inputs[0], "q")  # raises, naming the joint and the norm
    if kind == 6:
        raise SingularMassMatrixError(
            f"the articulated inertia seen by joint {model.joint_names[detail]!r} is not "
            f"positive definite (massless subtree on a moving joint?)")
    if kind == 7:
        raise NumericalOverflowError(overflow_message(names, inputs))
    if kind == 8:
        raise ValueError(f"this Data's arrays do not fit {model!r} (rebound or reshaped?); "
                         f"use model.create_data()")
    if kind == 9:
        j = int(model.dof[detail]["joint"])
        raise SingularMassMatrixError(
            f"M(q) is not positive definite at dof {detail} (joint {model.joint_names[j]!r}): "
            f"a moving joint carries no mass or inertia in its subtree")
    raise RuntimeError(f"unknown guard code {code}")


def refused(model, code: int, configurations=(), vectors=()) -> None:
    """Word a compiled entry point's refusal (code != 0): the Python checks rerun on the
    (name, array) pairs raise, naming the argument and the joint; what they accept is an
    overflow or a size mismatch, which ``explain`` words."""
    for name, x in configurations:
        configuration(model, x, name)
    for name, x in vectors:
        vector(x, model.nv, name)
    pairs = (*configurations, *vectors)
    explain(model, code, tuple(n for n, _ in pairs), *(x for _, x in pairs))


def overflow_message(names: tuple[str, ...], inputs) -> str:
    """Finite inputs, non-finite result: say so, and which input is largest."""
    big = [(float(np.abs(x).max()), n) for n, x in zip(names, inputs) if np.size(x)]
    size, name = max(big) if big else (0.0, "the input")
    return (f"overflow: the result is not finite although every input is; the largest "
            f"entry is |{name}| = {size:.3g}. Inputs this large have no finite dynamics")


def vector(x, n: int, name: str) -> np.ndarray:
    """x as a C-contiguous float64 vector of length n, finite, or a ValueError naming it."""
    if isinstance(x, np.ndarray) and x.dtype == np.float64 and x.flags.c_contiguous:
        a = x
    else:
        a = real(x, name, f"an array of {n} floats")
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
    if not np.isfinite(a).all():
        bad = np.flatnonzero(~np.isfinite(a))[:5].tolist()
        raise ValueError(f"{name} has non-finite entries at indices {bad}")
    return a


def output(out, shape: tuple[int, ...], name: str) -> np.ndarray:
    """A caller's output array, used as it is: exactly float64, C-contiguous, writeable and of
    the given shape. Anything else would be written through a conversion copy, or compile a
    kernel for another dtype and lose digits, and the caller would read a stale array."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name} must be a numpy array of shape {shape}, got {typename(out)}")
    if out.dtype != np.float64:
        raise TypeError(f"{name} must be float64, got dtype {out.dtype}")
    if out.shape != shape:
        raise ValueError(f"{name} must be of shape {shape}, got {out.shape}")
    if not (out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"{name} must be C-contiguous and writeable")
    return out


def real(x, name: str, what: str) -> np.ndarray:
    """x as a C-contiguous float64 array if it holds real numbers (floats or integers); bools,
    complex numbers, strings and objects are a TypeError rather than a silent conversion
    (NumPy would turn "1.5" into 1.5, drop an imaginary part, or turn None into NaN)."""
    try:
        a = np.asarray(x)
    except (TypeError, ValueError):  # ragged nested lists
        raise TypeError(f"{name} must be {what}, got {typename(x)}") from None
    if a.dtype.kind not in "fiu":
        if isinstance(x, np.ndarray):
            raise TypeError(f"{name} must be a real array, got dtype {a.dtype}")
        raise TypeError(f"{name} must be {what}, got {typename(x)} of {a.dtype.name} values")
    return np.ascontiguousarray(a, dtype=np.float64)


def model_arg(model) -> None:
    """TypeError unless ``model`` is a fastdyn Model (a Pinocchio model, None, a Data...)."""
    if not isinstance(model, Model):
        refuse_mimic(model)
        raise TypeError(f"model must be a fastdyn.Model, got {typename(model)}")


def refuse_mimic(model) -> None:
    """Raise MimicNotSupportedError, naming the public function, if ``model`` is a MimicModel
    (every function that has not been taught the reduced system lands here)."""
    if not isinstance(getattr(model, "full", None), Model):  # a MimicModel wraps its full Model
        return
    f = sys._getframe(1)
    while f is not None and (f.f_code.co_filename.startswith(_HERE) or (  # the plumbing
            f.f_code.co_name.startswith("_") and f.f_code.co_name != "__init__")):
        f = f.f_back
    name = "this function" if f is None else f.f_code.co_qualname.replace(".__init__", "")
    raise MimicNotSupportedError(
        f"{name} does not support models with mimic joints yet ({model!r}); supported: "
        f"kinematics, frames, Jacobians, rnea, crba, aba, energies and the configuration "
        f"functions (fastdyn/mimic.py). Use model.full (every joint independent; q_full = "
        f"model.expand_configuration(q)), or load the file with mimic=False")


def scalar(x, name: str, positive: bool = False) -> float:
    """A finite real number (not a bool, a string or an array of one), positive if asked."""
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iuf":
        x = x[()]  # a NumPy scalar in an array: the same number
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer,
                                                                np.floating)):
        raise TypeError(f"{name} must be a real number, got {typename(x)} {x!r}")
    x = float(x)
    if not np.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    if positive and not x > 0.0:
        raise ValueError(f"{name} must be positive, got {x}")
    return x


def integer(x, name: str, minimum: int | None = None) -> int:
    """An integer (not a float, even 2.0, nor a bool), at least ``minimum`` if given."""
    i = index(x, name, "an integer")
    if minimum is not None and i < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {i}")
    return i


def finite_result(out: np.ndarray, names: tuple[str, ...], inputs) -> np.ndarray:
    """``out``, or NumericalOverflowError if it is not finite (its inputs were checked)."""
    if not np.isfinite(out).all():
        raise NumericalOverflowError(overflow_message(names, inputs))
    return out


def forces(model, fext) -> np.ndarray:
    """External forces as the dynamics take them: one LOCAL [f; tau] per joint, (njoints, 6)."""
    return matrix(fext, (model.njoints, 6), "fext (one LOCAL [f; tau] per joint)")


def matrix(x, shape: tuple[int, ...], name: str) -> np.ndarray:
    """x as a C-contiguous finite float64 array of the given shape (-1 matches any size)."""
    a = x if (isinstance(x, np.ndarray) and x.dtype == np.float64 and x.flags.c_contiguous) \
        else real(x, name, "a real array")
    if a.ndim != len(shape) or any(s != -1 and s != t for s, t in zip(shape, a.shape)):
        want = "(" + ", ".join("N" if s == -1 else str(s) for s in shape) + ")"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    if not np.isfinite(a).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name} has non-finite entries, the first {a[where]} at index "
                         f"{list(where)}" + (f" (row {where[0]})" if a.ndim > 1 else ""))
    return a


def configuration(model, q, name: str = "q") -> np.ndarray:
    """q checked for length, finiteness and unit quaternions / unit (cos, sin) pairs."""
    model_arg(model)
    q = vector(q, model.nq, name)
    for i, o, k in unit_parts(model):
        nrm = float(np.sqrt(np.sum(q[o:o + k] ** 2)))
        if abs(nrm - 1.0) > QUAT_TOL:
            raise ValueError(f"{name}: the {UNIT_NAME[k]} of joint {model.joint_names[i]!r} "
                             f"(q[{o}:{o + k}]) has norm {nrm:.9g}, not 1; call "
                             f"fastdyn.normalize(model, q) first")
    return q


UNIT_NAME = {2: "(cos, sin) pair", 4: "quaternion"}


def unit_parts(model) -> list[tuple[int, int, int]]:
    """(joint, first q index, length) of every unit-norm part of q (codes.unit_part), cached
    on the model."""
    cache = model.__dict__.get("_unit_parts")
    if cache is None:
        cache = [(i, int(r["idx_q"]) + o, k) for i, r in enumerate(model.jnt)
                 for o, k in (codes.unit_part(int(r["type"])),) if k]
        model.__dict__["_unit_parts"] = cache
    return cache


def data_for(model, data) -> None:
    """Raise unless ``data`` was created by ``model`` (or a pickled or copied twin of it)."""
    if not isinstance(model, Model):
        refuse_mimic(model)
        raise TypeError(f"model must be a fastdyn.Model, got {typename(model)}")
    if not isinstance(data, Data):
        raise TypeError(f"data must be a fastdyn.Data (model.create_data()), got "
                        f"{typename(data)}")
    if data.model_token != model.token:
        raise ValueError(f"this Data was not created by {model!r}; use model.create_data()")
