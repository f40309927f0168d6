"""Centre-of-mass Jacobians and centroidal momentum: A_g, h_g, their time derivatives.

Source: Traversaro & Saccon (2019), secs. 6-8 (wrenches, inertia, geometric Jacobians);
Featherstone (2008), ch. 2 (spatial momentum); Orin, Goswami & Lee (2013) for the centroidal
momentum matrix.
  c' = J_c(q) v                        (J_c (3, nv), world frame)
  h_g = [m c'; k_g] = A_g(q) v          (linear first; k_g the angular momentum about the com,
                                         world axes: Pinocchio's convention)
  dh_g/dt = A_g a + dA_g/dt v = sum of external wrenches at the com but gravity
Matrices and vectors returned are views into ``data`` (overwritten by the next call of the same
function: copy them to keep them).
References: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische
Universiteit Eindhoven, 2019; Featherstone, "Rigid Body Dynamics Algorithms", Springer 2008; Orin,
Goswami & Lee, "Centroidal dynamics of a humanoid robot", Autonomous Robots, 2013.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks, compiled_checks as _compiled_checks
from ._internal import arrays as _arrays
from ._internal.fastcall import Kernel
from .kernels.algorithms import center_of_mass_jacobian as _jc
from .kernels.algorithms import centroidal as _cen
from .kernels.entry import guard_api as _guard_api
from .kernels.layout import OYC, P_PI
from .kinematics import EMPTY, NO_FORCES
from .model import Data, Model

_jcom = Kernel(_guard_api.jacobian_center_of_mass_checked, vectors=(2,))
_ccrba_checked = Kernel(_guard_api.ccrba_checked, vectors=(2, 3))
_momentum = Kernel(_guard_api.centroidal_momentum_checked, vectors=(2, 3, 4))

__all__ = ["jacobian_center_of_mass", "jacobian_subtree_center_of_mass",
           "compute_centroidal_map", "ccrba", "dccrba", "compute_centroidal_momentum",
           "compute_centroidal_momentum_time_variation"]


def _massive(model: Model, m: float, what: str) -> None:
    if not m > 0.0:
        raise ValueError(f"{what}: {model.name!r} has no mass; the centre of mass is undefined")


def _inputs(model: Model, data: Data, q, *va):
    """q, then the required v (and a) checked; EMPTY for those a function does not take (the
    kernels read an empty v as "no velocity": a None passed for a required v would make them
    read past its end). Finiteness and unit parts are checked in compiled code."""
    if not (type(data) is Data and type(model) is Model and data.model_token == model.token):
        _checks.data_for(model, data)
    for x, n in zip(va, ("v", "a")):
        if x is None:
            raise TypeError(f"{n} must be an array of {model.nv} floats, got None")
    return _compiled_checks.state(model, q, *va)


# The calls below with a compiled entry point (kernels/entry/guard_api.py) check in Python
# only what it cannot: the Data's model, the arrays' type and length (``_checks.fast_vector``'s
# test, spelt out: each Python call costs ~40 ns of a ~1 us call) and the model's mass, which
# the kernels divide by (summed once per model: its parameters never change).
_ND, _F64, _TOL = np.ndarray, _checks.F64, _checks.QUAT_TOL


def _no_mass(model: Model, what: str) -> None:
    """Raise if the model has no mass (the first call sums it)."""
    m = model.__dict__.get("_total_mass")
    if m is None:
        m = model.__dict__["_total_mass"] = float(model.prm[1:, P_PI].sum())
    _massive(model, m, what)


def _refused(model: Model, data: Data, code: int, names: tuple, *inputs) -> None:
    data.kinematics = 0
    _checks.explain(model, code, names, *inputs)


def _finite(model: Model, out: np.ndarray, q, v=EMPTY, a=EMPTY) -> np.ndarray:
    return _compiled_checks.finite(out, ("q", "v", "a"), (q, v, a))


def jacobian_subtree_center_of_mass(model: Model, data: Data, q,
                                    joint: int | str) -> np.ndarray:
    """J_c (3, nv) of the com of the subtree rooted at ``joint`` (id or name; 0 or "universe":
    the whole robot), Pinocchio's jacobianSubtreeCenterOfMass. Subtree masses and coms of every
    joint are left in data.mass and data.com (world)."""
    q, _, _ = _inputs(model, data, q)
    r = _checks.joint_index(model, joint)
    Jc = _arrays.buffer(data, "Jcom_subtree", (3, model.nv))
    _jc.jacobian_subtree_center_of_mass(model.jnt, model.prm, q, r, data.ws, data.mass, data.com,
                                        Jc)
    data.kinematics = 1
    _massive(model, data.mass[r], f"jacobian_subtree_center_of_mass (subtree of joint "
                                  f"{model.joint_names[r]!r})")
    return _finite(model, Jc, q)


def jacobian_center_of_mass(model: Model, data: Data, q) -> np.ndarray:
    """J_c (3, nv) of the whole robot's com, c' = J_c v (Pinocchio's jacobianCenterOfMass);
    data.com[0] is the com, data.com[i] / data.mass[i] those of every subtree."""
    if hasattr(type(model), "calls"):
        return model.calls.jacobian_center_of_mass(model, data, q)
    if not (type(data) is Data and type(model) is Model and data.model_token == model.token):
        _checks.data_for(model, data)
    if not model.__dict__.get("_total_mass", 0.0) > 0.0:
        _no_mass(model, "jacobian_center_of_mass")
    if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1 and len(q) == model.nq):
        q = _checks.vector(q, model.nq, "q")
    code = _jcom.call(model.jnt, model.prm, q, data.ws, data.mass, data.com, data.Jcom,
                      NO_FORCES, _TOL)
    if code:
        _refused(model, data, code, ("q",), q)
    data.kinematics = 1
    return data.Jcom


def _ccrba(model: Model, data: Data, q, v, what: str) -> np.ndarray:
    """A_g (and h_g when v is not EMPTY) at q: the compiled call and its checks."""
    if not (type(data) is Data and type(model) is Model and data.model_token == model.token):
        _checks.data_for(model, data)
    if not model.__dict__.get("_total_mass", 0.0) > 0.0:
        _no_mass(model, what)
    if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1 and len(q) == model.nq):
        q = _checks.vector(q, model.nq, "q")
    if v is not EMPTY and not (type(v) is _ND and v.dtype is _F64 and v.ndim == 1
                               and len(v) == model.nv):
        v = _checks.vector(v, model.nv, "v")
    code = _ccrba_checked.call(model.jnt, model.prm, q, v, data.ws, data.Ag, data.hg, data.Ig,
                               NO_FORCES, _TOL)
    if code:
        _refused(model, data, code, ("q", "v"), q, v)
    data.kinematics = 1
    return data.Ag


def compute_centroidal_map(model: Model, data: Data, q) -> np.ndarray:
    """The centroidal momentum matrix A_g (6, nv), h_g = A_g v (Pinocchio's
    computeCentroidalMap). Column k is the momentum about the com of the subtree moved by dof k
    at unit speed: [f; tau - c x f] with [f; tau] = ^0Yc_i J_k."""
    return _ccrba(model, data, q, EMPTY, "compute_centroidal_map")


def ccrba(model: Model, data: Data, q, v) -> np.ndarray:
    """A_g (6, nv) as compute_centroidal_map, with data.hg = A_g v and data.Ig (6, 6) the
    centroidal composite inertia [[m I3, 0], [0, I_c]] in world axes (Pinocchio's ccrba)."""
    return _ccrba(model, data, q, _checks.vector(v, model.nv, "v") if v is None else v,
                  "ccrba")  # (None would read as "no velocity")


def dccrba(model: Model, data: Data, q, v) -> np.ndarray:
    """dA_g/dt (6, nv) along (q, v); data.Ag and data.hg are updated too (Pinocchio's dccrba /
    computeCentroidalMapTimeVariation, which omits dS/dt: the two differ on the columns of
    spherical_zyx and universal joints, where only this one is the time derivative)."""
    q, v, _ = _inputs(model, data, q, v)
    dAg = _arrays.buffer(data, "dAg", (6, model.nv))
    _cen.dccrba(model.jnt, model.prm, q, v, data.ws, _arrays.buffer(data, "Ag", (6, model.nv)), dAg,
                _arrays.buffer(data, "hg", (6,)))
    data.kinematics = 2
    _massive(model, float(data.ws[0, OYC]), "dccrba")
    return _finite(model, dAg, q, v)


def compute_centroidal_momentum(model: Model, data: Data, q, v) -> np.ndarray:
    """h_g = [m c'; k_g] (6,) (data.hg; Pinocchio's computeCentroidalMomentum), by one forward
    pass without forming A_g."""
    _momentum_call(model, data, q, v, EMPTY, "compute_centroidal_momentum")
    data.kinematics = 2
    return data.hg


def compute_centroidal_momentum_time_variation(model: Model, data: Data, q, v,
                                               a) -> np.ndarray:
    """dh_g/dt (6,) (data.dhg; data.hg too), gravity excluded: the sum of the other external
    wrenches about the com (Pinocchio's computeCentroidalMomentumTimeVariation)."""
    _momentum_call(model, data, q, v, _checks.vector(a, model.nv, "a") if a is None else a,
                   "compute_centroidal_momentum_time_variation")
    data.kinematics = 3
    return data.dhg


def _momentum_call(model: Model, data: Data, q, v, a, what: str) -> None:
    """h_g (and dh_g/dt when a is not EMPTY): the compiled call and its checks."""
    if not (type(data) is Data and type(model) is Model and data.model_token == model.token):
        _checks.data_for(model, data)
    if not model.__dict__.get("_total_mass", 0.0) > 0.0:
        _no_mass(model, what)
    nq, nv = model.nq, model.nv
    if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1 and len(q) == nq):
        q = _checks.vector(q, nq, "q")
    if not (type(v) is _ND and v.dtype is _F64 and v.ndim == 1 and len(v) == nv):
        v = _checks.vector(v, nv, "v")
    if a is not EMPTY and not (type(a) is _ND and a.dtype is _F64 and a.ndim == 1
                               and len(a) == nv):
        a = _checks.vector(a, nv, "a")
    code = _momentum.call(model.jnt, model.prm, q, v, a, data.ws, data.hg, data.dhg, NO_FORCES,
                          _TOL)
    if code:
        _refused(model, data, code, ("q", "v", "a"), q, v, a)
