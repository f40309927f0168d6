"""Inverse and forward dynamics, the mass matrix and its factorization, energies.

Each function checks its inputs once, calls one kernel and returns a view into ``data``
(overwritten by the next call: copy it to keep it).
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal import arrays as _arrays
from ._internal.checks import QUAT_TOL
from ._internal.fastcall import Kernel
from .kernels.linalg import cholesky as _chol
from .kernels.entry import guard as _guard
from .kernels.entry import guard_api as _guard_api
from .kinematics import EMPTY, NO_FORCES
from .model import Data, Model
from .errors import SingularMassMatrixError  # noqa: F401

_rnea_checked = Kernel(_guard.rnea_checked, vectors=(2, 3, 4))
_aba_checked = Kernel(_guard.aba_checked, vectors=(2, 3, 4))
_crba_checked = Kernel(_guard.crba_checked, vectors=(2,))
_minverse_checked = Kernel(_guard.minverse_checked, vectors=(3,))
_cholesky = Kernel(_chol.cholesky)
_cholesky_solve = Kernel(_guard_api.cholesky_solve_checked, vectors=(3,))
_energy_checked = Kernel(_guard_api.energy_checked, vectors=(2, 3))
_ND, _F64 = np.ndarray, _checks.F64


def rnea(model: Model, data: Data, q, v, a, fext=None) -> np.ndarray:
    """tau = M(q) a + C(q, v) v + g(q) - sum_i J_i^T fext_i  (data.tau)."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.rnea(model, data, q, v, a, fext)
        _checks.data_for(model, data)
    q, v, a = _checks.fast_state(q, v, a, model.nq, model.nv, "a")
    code = _rnea_checked.call(model.jnt, model.prm, q, v, a,
                              NO_FORCES if fext is None else _checks.forces(model, fext),
                              data.ws, data.tau, QUAT_TOL)
    data.kinematics = 0  # liMi, v, f are fresh; oMi is not (RNEA works in local frames)
    if code:
        _checks.explain(model, code, ("q", "v", "a"), q, v, a)
    return data.tau


def _rnea_at_rest(model: Model, data: Data, q, v, fext, out: str) -> np.ndarray:
    """RNEA at zero acceleration (and zero velocity when v is None) into ``data.<out>``, with
    the same compiled checks and messages as ``rnea``."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            if out == "nle":
                return model.calls.non_linear_effects(model, data, q, v)
            if out == "g":
                return model.calls.compute_generalized_gravity(model, data, q)
            return model.calls.compute_static_torque(model, data, q, fext)
        _checks.data_for(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    v = None if v is None else _checks.fast_vector(v, model.nv, "v")
    fext = _arrays.optional_forces(model, fext)
    z = data._zero_v
    out = getattr(data, out)
    code = _rnea_checked.call(model.jnt, model.prm, q, z if v is None else v, z, fext,
                              data.ws, out, QUAT_TOL)
    data.kinematics = 0
    if code:
        _checks.explain(model, code, ("q", "v", "fext"), q, z if v is None else v, fext)
    return out


def non_linear_effects(model: Model, data: Data, q, v) -> np.ndarray:
    """C(q, v) v + g(q) (data.nle): RNEA at zero acceleration."""
    if v is None:
        raise TypeError("v must be an array of nv floats, got None (compute_generalized_gravity is "
                        "the at-rest case)")
    return _rnea_at_rest(model, data, q, v, None, "nle")


def compute_generalized_gravity(model: Model, data: Data, q) -> np.ndarray:
    """g(q) (data.g): RNEA at zero velocity and acceleration."""
    return _rnea_at_rest(model, data, q, None, None, "g")


def compute_static_torque(model: Model, data: Data, q, fext) -> np.ndarray:
    """g(q) - sum_i J_i^T fext_i (data.tau): torques holding q still under external forces."""
    return _rnea_at_rest(model, data, q, None, fext, "tau")


def crba(model: Model, data: Data, q) -> np.ndarray:
    """The joint-space inertia matrix M(q) (data.M), both triangles, armature included."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.crba(model, data, q)
        _checks.data_for(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    code = _crba_checked.call(model.jnt, model.prm, q, data.ws, data.M, EMPTY, NO_FORCES, QUAT_TOL)
    data.kinematics = 0 if code else 1  # CRBA works in the world frame: oMi is fresh
    if code:
        _checks.explain(model, code, ("q",), q)
    return data.M


def cholesky(model: Model, data: Data) -> tuple[np.ndarray, np.ndarray]:
    """Factor data.M (from crba) as U D U^T, tree-sparse (data.U, data.D)."""
    if not (type(data) is Data and type(model) is Model and data.model_token == model.token):
        _checks.data_for(model, data)
    bad = _cholesky.call(model.dof, data.M, data.U, data.D)
    if bad >= 0:
        j = int(model.dof[bad]["joint"])
        raise SingularMassMatrixError(
            f"M(q) is not positive definite at dof {bad} (joint {model.joint_names[j]!r}): "
            f"a moving joint carries no mass or inertia in its subtree")
    return data.U, data.D


def cholesky_solve(model: Model, data: Data, b, out: np.ndarray | None = None) -> np.ndarray:
    """x = M^-1 b with the factorization from ``cholesky`` (b (nv,); a copy unless ``out``,
    a writeable C-contiguous float64 (nv,) array, which may be b itself)."""
    if not (type(data) is Data and type(model) is Model and data.model_token == model.token):
        _checks.data_for(model, data)
    b = _checks.fast_vector(b, model.nv, "b")  # finiteness: in the compiled call
    x = np.empty(model.nv) if out is None else _checks.output(out, (model.nv,), "out")
    code = _cholesky_solve.call(model.dof, data.U, data.D, b, x)
    if code:
        _checks.explain(model, code, ("b",), b)
    return x


def compute_minverse(model: Model, data: Data, q) -> np.ndarray:
    """M(q)^-1 (data.Minv) via crba and the tree-sparse factorization (data.M, U, D too), in
    one compiled call."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.compute_minverse(model, data, q)
        _checks.data_for(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    code = _minverse_checked.call(model.jnt, model.prm, model.dof, q, data.ws, data.M, data.U,
                                  data.D, data.Minv, EMPTY, NO_FORCES, QUAT_TOL)
    data.kinematics = 0 if code else 1  # CRBA works in the world frame: oMi is fresh
    if code:
        _checks.explain(model, code, ("q",), q)
    return data.Minv


def aba(model: Model, data: Data, q, v, tau, fext=None) -> np.ndarray:
    """qddot = M^-1 (tau - C v - g + sum_i J_i^T fext_i) (data.ddq)."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.aba(model, data, q, v, tau, fext)
        _checks.data_for(model, data)
    q, v, tau = _checks.fast_state(q, v, tau, model.nq, model.nv, "tau")
    code = _aba_checked.call(model.jnt, model.prm, q, v, tau,
                             NO_FORCES if fext is None else _checks.forces(model, fext),
                             data.ws, data.ddq, QUAT_TOL)
    data.kinematics = 0 if code else 1  # ABA works in the world frame: oMi is fresh
    if code:
        _checks.explain(model, code, ("q", "v", "tau"), q, v, tau)
    return data.ddq


def _energies(model: Model, data: Data, q, v) -> np.ndarray:
    """data.energy = (kinetic, potential) at (q, v) (kinetic left as it was when v is None):
    forward kinematics and both sums in one compiled call."""
    if not (type(data) is Data and type(model) is Model and data.model_token == model.token):
        _checks.data_for(model, data)
    nq, nv = model.nq, model.nv
    # _checks.fast_vector's test, spelt out (a Python call is ~40 ns of a ~1 us call)
    if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1 and len(q) == nq):
        q = _checks.vector(q, nq, "q")
    vv = EMPTY if v is None else v if (type(v) is _ND and v.dtype is _F64 and v.ndim == 1
                                       and len(v) == nv) else _checks.vector(v, nv, "v")
    code = _energy_checked.call(model.jnt, model.prm, q, vv, data.ws, data.energy, NO_FORCES,
                                QUAT_TOL)
    if code:
        data.kinematics = 0
        _checks.explain(model, code, ("q", "v"), q, vv)
    data.kinematics = 1 if v is None else 2
    return data.energy


def compute_kinetic_energy(model: Model, data: Data, q, v) -> float:
    """1/2 v^T M(q) v (data.energy[0]; data.energy[1] is the potential energy at q)."""
    if hasattr(type(model), "calls"):
        return model.calls.compute_kinetic_energy(model, data, q, v)
    if v is None:
        raise TypeError("v must be an array of nv floats, got None")
    return float(_energies(model, data, q, v)[0])


def compute_potential_energy(model: Model, data: Data, q) -> float:
    """-sum_i m_i g . c_i (data.energy[1]); zero at the world origin's height."""
    if hasattr(type(model), "calls"):
        return model.calls.compute_potential_energy(model, data, q)
    return float(_energies(model, data, q, None)[1])


def compute_mechanical_energy(model: Model, data: Data, q, v) -> float:
    """compute_kinetic_energy + compute_potential_energy [J] at (q, v) (Pinocchio's
    computeMechanicalEnergy; data.energy holds both)."""
    if hasattr(type(model), "calls"):
        return model.calls.compute_mechanical_energy(model, data, q, v)
    if v is None:
        raise TypeError("v must be an array of nv floats, got None")
    e = _energies(model, data, q, v)
    return float(e[0]) + float(e[1])
