"""Configuration spaces as Lie groups: integrate, difference, interpolate, their Jacobians,
neutral, normalize and random configurations, with Pinocchio's semantics and names.

Each joint's configuration space is a Lie group (Pinocchio documentation, "SE(3) operations"
cheat sheet, "Joint": the integrator is the exponential map, q_t = q_0 exp(t v)): R^n for
revolute, prismatic, helical, universal, translation and spherical_zyx joints; SO(2) for
continuous joints (q = [cos, sin]); SO(3) for spherical ones (quaternion x, y, z, w); SE(2) for
planar (q = [x, y, cos, sin], v body-fixed [vx, vy, w]); SE(3) for the free-flyer
(q = [x, y, z, qx, qy, qz, qw], v body-fixed [v; w]). The model's space is their product.
Kernels: ``fastdyn.kernels.configuration.dispatch``.
"""

from __future__ import annotations

import os

import numpy as np

from ._internal import checks as _checks
from ._internal.fastcall import Kernel
from .kernels.configuration import checked as _checked
from .kernels.configuration import dispatch
from .kernels.joints import codes
from .mimic import MimicModel
from .model import Model

__all__ = ["neutral", "integrate", "difference", "interpolate", "d_integrate", "d_difference",
           "normalize", "is_normalized", "random_configuration", "sampling_bounds",
           "minimum_jerk", "DEFAULT_ANGLE_RANGE", "DEFAULT_LENGTH_RANGE"]

# Finite stand-ins for infinite limits in random_configuration.
DEFAULT_ANGLE_RANGE = np.pi  # [rad] angles sampled in [-pi, pi]
DEFAULT_LENGTH_RANGE = 1.0  # [m] positions sampled in [-1 m, 1 m]
_ANGLE_TYPES = frozenset((codes.REVOLUTE_X, codes.REVOLUTE_Y, codes.REVOLUTE_Z, codes.REVOLUTE,
                          codes.SPHERICAL_ZYX, codes.HELICAL, codes.UNIVERSAL))
_ARGS_INTEGRATE = {"q": 0, "v": 1}
_EMPTY = np.zeros(0)  # "no acceleration" and "no forces" for the shared input checks
_NO_FORCES = np.zeros((0, 6))
_integrate = Kernel(_checked.integrate_checked, vectors=(1, 2))
_difference = Kernel(_checked.difference_checked, vectors=(1, 2))
_normalize = Kernel(_checked.normalize_checked, vectors=(1,))
_interpolate = Kernel(_checked.interpolate_checked, vectors=(1, 2))
_d_integrate = Kernel(_checked.d_integrate_checked, vectors=(1, 2))
_d_difference = Kernel(_checked.d_difference_checked, vectors=(1, 2))
_random = Kernel(dispatch.random_configuration, vectors=(3,))
_neutral = Kernel(dispatch.neutral)
_random_rows = dispatch.random_configurations  # (a batch: the dispatcher's cost is once per call)
_ARGS_DIFFERENCE = {"q0": 0, "q1": 1}
_ND, _F64, _TOL = np.ndarray, _checks.F64, _checks.QUAT_TOL


def neutral(model) -> np.ndarray:
    """The identity configuration (nq,): zeros, (cos, sin) = (1, 0), quaternions (0, 0, 0, 1),
    as ``pin.neutral`` (whatever the joint limits)."""
    if type(model) is MimicModel:  # its q, v: the independent joints' (fastdyn/mimic.py)
        model = model.configuration_model
    cache = getattr(model, "_neutral_q", None)  # the joint types never change: computed once
    if cache is None:
        _checks.model_arg(model)
        cache = np.empty(model.nq)
        _neutral.call(model.jnt, cache)
        model.__dict__["_neutral_q"] = cache
    return cache.copy()


def _model(model) -> Model:
    """The Model whose q, v a call takes: a MimicModel's configuration model (its independent
    joints', fastdyn/mimic.py); a TypeError for anything but a Model."""
    if type(model) is MimicModel:
        return model.configuration_model
    _checks.model_arg(model)
    return model


def integrate(model, q, v, dt: float = 1.0) -> np.ndarray:
    """q (+) v dt: every joint moved along the exponential map, q_i exp(v_i dt) (Lie groups) or
    q_i + v_i dt (vector spaces); ``pin.integrate(model, q, v * dt)``. Free-flyer and planar
    velocities are body-fixed (LOCAL), linear part first."""
    if type(model) is not Model:
        model = _model(model)
    nq, nv = model.nq, model.nv
    # _checks.fast_vector's test, spelt out (a call costs ~40 ns of a ~0.5 us call); finiteness
    # and unit parts: in the compiled call
    if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1 and len(q) == nq):
        q = _checks.vector(q, nq, "q")
    if not (type(v) is _ND and v.dtype is _F64 and v.ndim == 1 and len(v) == nv):
        v = _checks.vector(v, nv, "v")
    if type(dt) is not float or not dt - dt == 0.0:
        dt = _checks.scalar(dt, "dt")
    out = np.empty(nq)
    code = _integrate.call(model.jnt, q, v, dt, out, _EMPTY, _NO_FORCES, _TOL)
    if code:
        _checks.refused(model, code, (("q", q),), (("v", v),))
    return out


def difference(model, q0, q1) -> np.ndarray:
    """q1 (-) q0 = log(q0^-1 q1) (nv,), the velocity with integrate(q0, v) = q1; rotations take
    the shortest path (angle <= pi). ``pin.difference``."""
    if type(model) is not Model:
        model = _model(model)
    nq = model.nq
    if not (type(q0) is _ND and q0.dtype is _F64 and q0.ndim == 1 and len(q0) == nq):
        q0 = _checks.vector(q0, nq, "q0")
    if not (type(q1) is _ND and q1.dtype is _F64 and q1.ndim == 1 and len(q1) == nq):
        q1 = _checks.vector(q1, nq, "q1")
    out = np.empty(model.nv)
    code = _difference.call(model.jnt, q0, q1, out, _EMPTY, _NO_FORCES, _TOL)
    if code:
        _checks.refused(model, code, (("q0", q0), ("q1", q1)))
    return out


def interpolate(model, q0, q1, u: float) -> np.ndarray:
    """q0 (+) u (q1 (-) q0): q0 at u = 0, q1 at u = 1, the geodesic in between (u outside [0, 1]
    extrapolates). ``pin.interpolate``."""
    if type(model) is not Model:
        model = _model(model)
    nq = model.nq
    if not (type(q0) is _ND and q0.dtype is _F64 and q0.ndim == 1 and len(q0) == nq):
        q0 = _checks.vector(q0, nq, "q0")
    if not (type(q1) is _ND and q1.dtype is _F64 and q1.ndim == 1 and len(q1) == nq):
        q1 = _checks.vector(q1, nq, "q1")
    if type(u) is not float or not u - u == 0.0:
        u = _checks.scalar(u, "u")
    out = np.empty(nq)
    code = _interpolate.call(model.jnt, q0, q1, u, out, _EMPTY, _NO_FORCES, _TOL)
    if code:
        _refused(model, code, (("q0", q0), ("q1", q1)), (("u", u),))
    return out


def minimum_jerk(model, q0, q1, duration: float, steps: int):
    """A minimum-jerk move from rest at q0 to rest at q1 in ``duration`` seconds, sampled at
    ``steps`` instants t_k = k duration / (steps - 1): (t (T,), Q (T, nq), V (T, nv), A (T, nv)).

    Flash & Hogan's quintic (J. Neurosci. 5(7), 1985, eq. 2) along the geodesic from q0 to q1:
    with d = q1 (-) q0, s = t / duration and h(s) = 10 s^3 - 15 s^4 + 6 s^5,
    q(t) = q0 (+) h(s) d, v(t) = h'(s) d / duration, a(t) = h''(s) d / duration^2. The
    velocities are exact on every Lie group (q0 exp(h d) moves along one direction d, so its
    body velocity is dh/dt d), and v, a vanish at both ends. Feed it to ``fd.batch.rnea`` or
    ``fd.study.InverseDynamics``; as a reference for a controller, ``Q[k], V[k], A[k]``."""
    if type(model) is not Model:
        model = _model(model)
    q0 = _checks.vector(q0, model.nq, "q0")
    d = difference(model, q0, _checks.vector(q1, model.nq, "q1"))
    duration = _checks.scalar(duration, "duration")
    if not (duration > 0.0 and np.isfinite(duration)):
        raise ValueError(f"duration must be a positive number of seconds, got {duration}")
    steps = _checks.integer(steps, "steps", minimum=2)
    t = np.linspace(0.0, duration, steps)
    s = t / duration
    h = s**3 * (10.0 - 15.0 * s + 6.0 * s**2)
    dh = s**2 * (30.0 - 60.0 * s + 30.0 * s**2) / duration
    ddh = s * (60.0 - 180.0 * s + 120.0 * s**2) / duration / duration  # no overflow
    Q = np.array([integrate(model, q0, d, float(x)) for x in h])
    return t, Q, np.outer(dh, d), np.outer(ddh, d)


def d_integrate(model, q, v, arg: str) -> np.ndarray:
    """Jacobian (nv, nv) of integrate(q, v) with respect to q (arg="q") or v (arg="v"), in the
    tangent spaces (right, body-fixed), block diagonal; ``pin.dIntegrate`` with ARG0 / ARG1."""
    if type(model) is not Model:
        model = _model(model)
    a = _ARGS_INTEGRATE[arg] if type(arg) is str and arg in _ARGS_INTEGRATE else \
        _arg(arg, _ARGS_INTEGRATE)
    nq, nv = model.nq, model.nv
    if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1 and len(q) == nq):
        q = _checks.vector(q, nq, "q")
    if not (type(v) is _ND and v.dtype is _F64 and v.ndim == 1 and len(v) == nv):
        v = _checks.vector(v, nv, "v")
    out = np.empty((nv, nv))
    code = _d_integrate.call(model.jnt, q, v, a, out, _EMPTY, _NO_FORCES, _TOL)
    if code:
        _refused(model, code, (("q", q), ("v", v)))
    return out


def d_difference(model, q0, q1, arg: str) -> np.ndarray:
    """Jacobian (nv, nv) of difference(q0, q1) with respect to q0 (arg="q0") or q1 (arg="q1"),
    block diagonal; ``pin.dDifference`` with ARG0 / ARG1."""
    if type(model) is not Model:
        model = _model(model)
    a = _ARGS_DIFFERENCE[arg] if type(arg) is str and arg in _ARGS_DIFFERENCE else \
        _arg(arg, _ARGS_DIFFERENCE)
    nq, nv = model.nq, model.nv
    if not (type(q0) is _ND and q0.dtype is _F64 and q0.ndim == 1 and len(q0) == nq):
        q0 = _checks.vector(q0, nq, "q0")
    if not (type(q1) is _ND and q1.dtype is _F64 and q1.ndim == 1 and len(q1) == nq):
        q1 = _checks.vector(q1, nq, "q1")
    out = np.empty((nv, nv))
    code = _d_difference.call(model.jnt, q0, q1, a, out, _EMPTY, _NO_FORCES, _TOL)
    if code:
        _refused(model, code, (("q0", q0), ("q1", q1)))
    return out


def normalize(model, q) -> np.ndarray:
    """A copy of q with every quaternion and (cos, sin) pair scaled to unit norm
    (``pin.normalize``); other coordinates unchanged. A zero quaternion or pair is an error."""
    if type(model) is not Model:
        model = _model(model)
    nq = model.nq
    if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1 and len(q) == nq):
        q = _checks.vector(q, nq, "q")
    out = np.empty(nq)
    if _normalize.call(model.jnt, q, out):  # refused: say why
        q = _checks.vector(q, nq, "q")
        for i, o, n in _checks.unit_parts(model):
            if not np.any(q[o:o + n]):
                raise ValueError(f"q[{o}:{o + n}] (joint {model.joint_names[i]!r}) is zero "
                                 "and has no direction to normalize to")
        raise RuntimeError("normalize refused an input the checks accept")
    return out


def is_normalized(model, q, tol: float = 1e-12) -> bool:
    """Whether every quaternion and (cos, sin) pair of q has | |x| - 1 | < tol
    (``pin.isNormalized``, same default tolerance)."""
    if type(model) is MimicModel:  # its q, v: the independent joints' (fastdyn/mimic.py)
        model = model.configuration_model
    _checks.model_arg(model)
    q = _checks.vector(q, model.nq, "q")
    tol = _checks.scalar(tol, "tol")
    if tol < 0.0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    return bool(dispatch.is_normalized(model.jnt, q, tol))


def random_configuration(model, rng_or_seed: np.random.Generator | int | None = None,
                         lower=None, upper=None) -> np.ndarray:
    """A random configuration (nq,), uniform within [lower, upper] coordinate by coordinate.

    lower, upper: nq values each, default the model's position limits. An infinite bound is
    replaced by a finite one: -pi / +pi for angles (revolute, helical, universal,
    spherical_zyx), -1 m / +1 m for positions (prismatic, translation, free-flyer and planar
    x, y, z); if that replacement crosses the other, finite, bound it is put one default range
    (2 pi or 2 m) beyond it instead. Quaternions are uniform on SO(3) and (cos, sin) angles
    uniform on the circle, whatever the bounds of those coordinates (as Pinocchio).
    rng_or_seed: a numpy Generator, or a seed for ``np.random.default_rng``; None draws from
    one process-wide Generator seeded from the OS (reseeded in a forked child, so workers of a
    pool do not repeat each other's draws).
    """
    if type(model) is not Model:
        model = _model(model)
    rng = _RNG if rng_or_seed is None else _generator(rng_or_seed)
    bounds = model.__dict__.get("_sampling_bounds") if lower is None and upper is None else None
    lo, hi = bounds if bounds is not None else sampling_bounds(model, lower, upper)
    out = np.empty(model.nq)
    _random.call(model.jnt, lo, hi, rng.random(model.nq), out)
    return out


def sampling_bounds(model, lower=None, upper=None) -> tuple[np.ndarray, np.ndarray]:
    """The finite (lower, upper) random_configuration samples within (see there); the model's
    own, the common case, are computed once per model (its limits never change)."""
    if lower is None and upper is None:
        cache = model.__dict__.get("_sampling_bounds")
        if cache is None:
            cache = sampling_bounds(model, model.lower_position_limit,
                                    model.upper_position_limit)
            model.__dict__["_sampling_bounds"] = cache
        return cache
    lo = _bounds(model, model.lower_position_limit if lower is None else lower, "lower")
    hi = _bounds(model, model.upper_position_limit if upper is None else upper, "upper")
    bad = np.flatnonzero(lo > hi)
    if bad.size:
        raise ValueError(f"lower > upper at q indices {bad[:5].tolist()}")
    return _finite_bounds(model, lo, hi)


# --- helpers ---------------------------------------------------------------------------------

_RNG = np.random.default_rng()


def _generator(rng_or_seed) -> np.random.Generator:
    if rng_or_seed is None:
        return _RNG
    return rng_or_seed if isinstance(rng_or_seed, np.random.Generator) else _rng(rng_or_seed)


def _reseed() -> None:
    global _RNG
    _RNG = np.random.default_rng()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reseed)


def _refused(model, code: int, configurations, scalars=()) -> None:
    """``_checks.refused`` for the configuration calls, with an overflow that names the
    largest input, scalars (dt, u) included."""
    if int(code) // 1_000_000 == 7:
        names = tuple(n for n, _ in (*configurations, *scalars))
        raise _checks.NumericalOverflowError(_checks.overflow_message(
            names, [x for _, x in (*configurations, *scalars)]))
    vectors = tuple(p for p in configurations if p[0] == "v")
    _checks.refused(model, code, tuple(p for p in configurations if p[0] != "v"), vectors)

def _rng(seed) -> np.random.Generator:
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng(_checks.integer(seed, "rng_or_seed (a Generator or a seed)",
                                                 minimum=0))


def _arg(arg, allowed: dict) -> int:
    if not isinstance(arg, str) or arg not in allowed:
        raise ValueError(f"arg must be one of {tuple(allowed)}, got {arg!r}")
    return allowed[arg]


def _bounds(model, b, name: str) -> np.ndarray:
    b = _checks.real(b, name, f"{model.nq} real numbers").copy()  # infinities replaced below
    if b.shape != (model.nq,):
        raise ValueError(f"{name} must have shape ({model.nq},), got {b.shape}")
    if np.isnan(b).any():
        bad = np.flatnonzero(np.isnan(b))[:5].tolist()
        raise ValueError(f"{name} has NaN entries at indices {bad}")
    return b


def _default_ranges(model) -> np.ndarray:
    """Per q coordinate: pi for angles, 1 for positions, 0 where bounds are not used."""
    cache = model.__dict__.get("_default_q_range")
    if cache is None:
        cache = np.zeros(model.nq)
        for r in model.jnt[1:]:
            t, iq, nq = int(r["type"]), int(r["idx_q"]), int(r["nq"])
            g = int(dispatch.lie_group(t))
            if g == dispatch.VECTOR:
                cache[iq:iq + nq] = DEFAULT_ANGLE_RANGE if t in _ANGLE_TYPES \
                    else DEFAULT_LENGTH_RANGE
            elif g in (dispatch.SE2, dispatch.SE3):
                cache[iq:iq + (2 if g == dispatch.SE2 else 3)] = DEFAULT_LENGTH_RANGE
        model.__dict__["_default_q_range"] = cache
    return cache


def _finite_bounds(model, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r = _default_ranges(model)
    lo_inf, hi_inf = np.isinf(lo), np.isinf(hi)
    both = lo_inf & hi_inf
    lo[both], hi[both] = -r[both], r[both]
    only = lo_inf & ~hi_inf
    lo[only] = np.where(-r[only] <= hi[only], -r[only], hi[only] - 2.0 * r[only])
    only = hi_inf & ~lo_inf
    hi[only] = np.where(r[only] >= lo[only], r[only], lo[only] + 2.0 * r[only])
    unused = r == 0.0  # unit-norm coordinates: the kernel ignores their bounds
    lo[unused], hi[unused] = 0.0, 0.0
    return lo, hi
