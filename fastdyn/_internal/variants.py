"""The parameter algebra behind ``Model.with_*``: a new parameter table, checked, for one
changed body, placement, per-dof value, limit or gravity. The model builds the variant from it
(``Model.with_parameters``), which runs every invariant a new model must meet; this module
does not import the Model, so the Model can use it."""

from __future__ import annotations

import numpy as np

from . import checks as _checks
from .inertial import as_placement, check_inertia, dynamic_parameters
from ..kernels import layout


def _edit(model) -> tuple[np.ndarray, np.ndarray]:
    """A writable copy of the model's parameters and its named view."""
    prm = np.array(model.prm)
    return prm, layout.named(prm)


def _joint(model, joint) -> int:
    j = _checks.joint_index(model, joint)
    if j == 0:
        raise ValueError("joint 0 is the universe: it carries no body and has no parameters")
    return j


def inertia(model, joint: int | str, mass: float | None = None, com=None,
                 inertia=None) -> np.ndarray:
    """The table with joint ``joint``'s body changed: ``mass`` (kg), ``com`` (3, in the joint
    frame) and ``inertia`` (3x3 about the com, joint axes); None keeps that part. Raises
    ValueError if the result is not a physically consistent body."""
    j = _joint(model, joint)
    m = float(model.mass[j]) if mass is None else _checks.scalar(mass, "mass")
    c = model.com[j] if com is None else _checks.vector(com, 3, "com")
    I = model.inertia[j] if inertia is None else _checks.matrix(inertia, (3, 3), "inertia")
    what = f"with_inertia: joint {model.joint_names[j]!r}"
    if not m > 0.0:
        raise ValueError(f"{what}: mass must be positive, got {m}")
    m, c, I = check_inertia(m, c, I, what)
    prm, named = _edit(model)
    named[j]["pi"] = dynamic_parameters(m, c, I)
    return prm


def placement(model, joint: int | str, placement) -> np.ndarray:
    """The table with joint ``joint`` placed at ``placement`` (4x4 or (R, p)) in its parent
    (the placement at q = neutral)."""
    j = _joint(model, joint)
    R, p = as_placement(placement, f"with_placement: joint {model.joint_names[j]!r}")
    prm, named = _edit(model)
    named[j]["R"], named[j]["p"] = R, p
    return prm


def _per_dof(model, joint, values, field: str, lo: float = 0.0) -> np.ndarray:
    j = _joint(model, joint)
    nv = int(model.jnt[j]["nv"])
    x = np.broadcast_to(_checks.real(values, field, f"{nv} numbers"), (nv,)) \
        if np.ndim(values) == 0 else _checks.vector(values, nv, field)
    if not (np.all(np.isfinite(x)) and np.all(x >= lo)):
        raise ValueError(f"{field} of joint {model.joint_names[j]!r} must be finite and >= "
                         f"{lo}, got {x}")
    prm, named = _edit(model)
    named[j][field][:nv] = x
    return prm


def armature(model, joint: int | str, armature) -> np.ndarray:
    """The table with joint ``joint``'s rotor inertia (one value per dof, or one for all)."""
    return _per_dof(model, joint, armature, "armature")


def damping(model, joint: int | str, damping) -> np.ndarray:
    """The table with joint ``joint``'s viscous damping (N m s/rad; per dof or one value)."""
    return _per_dof(model, joint, damping, "damping")


def friction(model, joint: int | str, friction) -> np.ndarray:
    """The table with joint ``joint``'s dry friction (N m; per dof or one value)."""
    return _per_dof(model, joint, friction, "friction")


def limits(model, joint: int | str, lower=None, upper=None, velocity=None,
                effort=None) -> np.ndarray:
    """The table with joint ``joint``'s limits changed: ``lower``/``upper`` (nq values each,
    +-inf for none), ``velocity``/``effort`` (nv values, >= 0, inf for none); None keeps one."""
    j = _joint(model, joint)
    r = model.jnt[j]
    nq, nv = int(r["nq"]), int(r["nv"])
    prm, named = _edit(model)
    for field, x, n in (("q_lower", lower, nq), ("q_upper", upper, nq), ("v_max", velocity, nv),
                        ("effort_max", effort, nv)):
        if x is None:
            continue
        a = np.broadcast_to(_checks.real(x, field, f"{n} numbers"), (n,)) if np.ndim(x) == 0 \
            else _checks.real(x, field, f"{n} numbers")
        if a.shape != (n,) or np.isnan(a).any():
            raise ValueError(f"{field} of joint {model.joint_names[j]!r} must be {n} numbers "
                             f"(not NaN), got {x!r}")
        if field in ("v_max", "effort_max") and (a < 0).any():
            raise ValueError(f"{field} of joint {model.joint_names[j]!r} must be >= 0")
        named[j][field][:n] = a
    return prm  # (lower > upper: refused by the model check, naming the joint)


def gravity(model, gravity) -> np.ndarray:
    """The table under another gravity (3,), e.g. (0, 0, -1.62) on the Moon."""
    g = _checks.vector(gravity, 3, "gravity")
    if not np.all(np.isfinite(g)):
        raise ValueError(f"gravity must be 3 finite numbers, got {g}")
    prm, named = _edit(model)
    named[0]["gravity"] = g
    return prm
