"""The public algorithms on a MimicModel: the full model's, at the expanded state, with their
results reduced (fastdyn/mimic.py says why; kernels/algorithms/mimic.py has the equations).
The public functions (fastdyn.rnea, ...) route a MimicModel here; results land in the
MimicData's reduced arrays, per-joint quantities in its full Data, as for a Model.

Inputs are checked for type and length here, and for finiteness and unit parts by the full
model's compiled checks, on the expanded state (which carries every reduced entry): when
those refuse it, ``_run`` checks the reduced inputs again in Python, so the error names
their indices and joints, not the expanded state's.
"""

from __future__ import annotations

import numpy as np

from . import checks as _checks
from .fastcall import Kernel
from .. import centroidal as _cen
from .. import dynamics as _dyn
from .. import jacobians as _jac
from .. import kinematics as _kin
from ..frames import LOCAL
from ..kernels.algorithms import mimic as _k


_expand_q = Kernel(_k.expand_configuration, vectors=(3,))
_expand_v = Kernel(_k.expand_velocity, vectors=(2,))
_reduce_v = Kernel(_k.reduce_vector)
_reduce_J = Kernel(_k.reduce_columns)
_reduce_M = Kernel(_k.reduce_matrix)
_solve = Kernel(_k.cholesky_solve)


def _data(model, data):
    if not hasattr(data, "mimic_token"):  # a MimicData (fastdyn/mimic.py)
        raise TypeError(f"data must be the MimicData of this model (model.create_data()), got "
                        f"{_checks.typename(data)}")
    if data.mimic_token != model.token:
        raise ValueError(f"this Data was not created by {model!r}; use model.create_data()")
    return data


def _state(model, data, q, v=None, a=None):
    """(data, q_full, v_full, a_full): the reduced state expanded (type and length checked;
    the rest by the full model's checks, see the module docstring)."""
    data = _data(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    _expand_q.call(model.full.jnt, model.mim, model.q_index, q, data.q_full)
    vf = af = None
    if v is not None:
        vf = data.v_full
        _expand_v.call(model.v_map, model.v_scale, _checks.fast_vector(v, model.nv, "v"), vf)
    if a is not None:
        af = data.a_full
        _expand_v.call(model.v_map, model.v_scale, _checks.fast_vector(a, model.nv, "a"), af)
    return data, data.q_full, vf, af


def _run(model, inputs: tuple, fn, *args):
    """fn(*args) on the full model; if it refuses the expanded state, the reduced ``inputs``
    (q, then the (name, vector) pairs) are checked again so the error names them."""
    try:
        return fn(*args)
    except ValueError:
        q, *vectors = inputs
        _checks.configuration(model.configuration_model, q)
        for name, x in vectors:
            if x is not None:
                _checks.vector(x, model.nv, name)
        raise


def _reduce(model, full: np.ndarray, out: np.ndarray) -> np.ndarray:
    _reduce_v.call(model.v_map, model.v_scale, full, out)
    return out


def _columns(model, full: np.ndarray, out: np.ndarray) -> np.ndarray:
    _reduce_J.call(model.v_map, model.v_scale, full, out)
    return out


# --- kinematics ----------------------------------------------------------------------------
def forward_kinematics(model, data, q, v=None, a=None) -> None:
    if a is not None and v is None:
        raise ValueError("forward_kinematics: accelerations need velocities; pass v too")
    data, qf, vf, af = _state(model, data, q, v, a)
    _run(model, (q, ("v", v), ("a", a)), _kin.forward_kinematics, model.full, data.full, qf,
         vf, af)


def update_frame_placements(model, data) -> np.ndarray:
    return _kin.update_frame_placements(model.full, _data(model, data).full)


def frames_forward_kinematics(model, data, q) -> np.ndarray:
    forward_kinematics(model, data, q)
    return update_frame_placements(model, data)


def joint_placement(model, data, joint) -> np.ndarray:
    return _kin.joint_placement(model.full, _data(model, data).full, joint)


def frame_placement(model, data, frame) -> np.ndarray:
    return _kin.frame_placement(model.full, _data(model, data).full, frame)


def center_of_mass(model, data, q, v=None, a=None) -> np.ndarray:
    if a is not None and v is None:
        raise ValueError("forward_kinematics: accelerations need velocities; pass v too")
    data, qf, vf, af = _state(model, data, q, v, a)
    return _run(model, (q, ("v", v), ("a", a)), _kin.center_of_mass, model.full, data.full,
                qf, vf, af)


# --- dynamics -----------------------------------------------------------------------------
def rnea(model, data, q, v, a, fext=None) -> np.ndarray:
    """tau = G^T RNEA_full(q_full, G v, G a, fext)."""
    data, qf, vf, af = _state(model, data, q, v, a)
    tau = _run(model, (q, ("v", v), ("a", a)), _dyn.rnea, model.full, data.full, qf, vf, af,
               fext)
    return _reduce(model, tau, data.tau)


def non_linear_effects(model, data, q, v) -> np.ndarray:
    if v is None:
        raise TypeError("v must be an array of nv floats, got None (compute_generalized_gravity is "
                        "the at-rest case)")
    data, qf, vf, _ = _state(model, data, q, v)
    nle = _run(model, (q, ("v", v)), _dyn.non_linear_effects, model.full, data.full, qf, vf)
    return _reduce(model, nle, data.nle)


def compute_generalized_gravity(model, data, q) -> np.ndarray:
    data, qf, _, _ = _state(model, data, q)
    g = _run(model, (q,), _dyn.compute_generalized_gravity, model.full, data.full, qf)
    return _reduce(model, g, data.g)


def compute_static_torque(model, data, q, fext) -> np.ndarray:
    data, qf, _, _ = _state(model, data, q)
    tau = _run(model, (q,), _dyn.compute_static_torque, model.full, data.full, qf, fext)
    return _reduce(model, tau, data.tau)


def crba(model, data, q) -> np.ndarray:
    """M = G^T M_full G (armature included: a follower's rotor adds k^2 of its armature)."""
    data, qf, _, _ = _state(model, data, q)
    M = _run(model, (q,), _dyn.crba, model.full, data.full, qf)
    _reduce_M.call(model.v_map, model.v_scale, M, data.M)
    return data.M


def _singular(model, row: int):
    j = int(model.full.dof[int(model.v_index[row])]["joint"])
    return _dyn.SingularMassMatrixError(
        f"M(q) is not positive definite at dof {row} (joint {model.joint_names[j]!r}): a "
        f"moving joint carries no mass or inertia in its subtree")


def aba(model, data, q, v, tau, fext=None) -> np.ndarray:
    """ddq = M^-1 (tau - G^T RNEA_full(q_full, G v, 0, fext)), M = G^T M_full G, by a dense
    Cholesky factorization (Featherstone 2008, eq. 3.20); data.M holds M(q) afterwards."""
    data, qf, vf, _ = _state(model, data, q, v)
    tau = _checks.vector(tau, model.nv, "tau")
    full = data.full
    inputs = (q, ("v", v))
    _reduce(model, _run(model, inputs, _dyn.rnea, model.full, full, qf, vf, full._zero_v,
                        fext), data._rhs)
    _reduce_M.call(model.v_map, model.v_scale, _dyn.crba(model.full, full, qf), data.M)
    np.subtract(tau, data._rhs, out=data._rhs)
    bad = _solve.call(data.M, data._L, data._rhs, data.ddq)
    if bad >= 0:
        raise _singular(model, bad)
    return _checks.finite_result(data.ddq, ("q", "v", "tau"), (q, v, tau))


def compute_minverse(model, data, q) -> np.ndarray:
    M = crba(model, data, q)
    eye = np.eye(model.nv)
    for c in range(model.nv):
        bad = _k.cholesky_solve(M, data._L, eye[c], data.Minv[c])  # M symmetric: rows = cols
        if bad >= 0:
            raise _singular(model, bad)
    return data.Minv


def compute_kinetic_energy(model, data, q, v) -> float:
    data, qf, vf, _ = _state(model, data, q, v)
    return _run(model, (q, ("v", v)), _dyn.compute_kinetic_energy, model.full, data.full, qf, vf)


def compute_potential_energy(model, data, q) -> float:
    data, qf, _, _ = _state(model, data, q)
    return _run(model, (q,), _dyn.compute_potential_energy, model.full, data.full, qf)


def compute_mechanical_energy(model, data, q, v) -> float:
    data, qf, vf, _ = _state(model, data, q, v)
    return _run(model, (q, ("v", v)), _dyn.compute_mechanical_energy, model.full, data.full, qf, vf)


# --- Jacobians ----------------------------------------------------------------------------
def compute_joint_jacobians(model, data, q) -> np.ndarray:
    """J = J_full G (6, nv). Pinocchio's data.J for a mimic model keeps one column per joint
    (6, nvExtended) instead; its frame and joint Jacobians are these reduced ones."""
    data, qf, _, _ = _state(model, data, q)
    J = _run(model, (q,), _jac.compute_joint_jacobians, model.full, data.full, qf)
    return _columns(model, J, data.J)


def _out(model, data, out) -> np.ndarray:
    return data.J_frame if out is None else _checks.output(out, (6, model.nv), "out")


def compute_joint_jacobian(model, data, q, joint, reference: int = LOCAL, out=None) -> np.ndarray:
    data, qf, _, _ = _state(model, data, q)
    J = _out(model, data, out)
    Jf = _run(model, (q,), _jac.compute_joint_jacobian, model.full, data.full, qf, joint, reference,
              data._J_full)
    return _columns(model, Jf, J)


def compute_frame_jacobian(model, data, q, frame, reference: int = LOCAL, out=None) -> np.ndarray:
    data, qf, _, _ = _state(model, data, q)
    J = _out(model, data, out)
    Jf = _run(model, (q,), _jac.compute_frame_jacobian, model.full, data.full, qf, frame, reference,
              data._J_full)
    return _columns(model, Jf, J)


def frame_motion(name: str, model, data, frame, reference: int = LOCAL) -> np.ndarray:
    """get_frame_velocity, get_frame_acceleration, get_frame_classical_acceleration: read from the
    full Data's kinematics, which forward_kinematics(model, data, q, v, a) filled."""
    return getattr(_jac, name)(model.full, _data(model, data).full, frame, reference)


def jacobian_center_of_mass(model, data, q) -> np.ndarray:
    data, qf, _, _ = _state(model, data, q)
    Jc = _run(model, (q,), _cen.jacobian_center_of_mass, model.full, data.full, qf)
    return _columns(model, Jc, data.Jcom)


def energy_regressor(fn, model, data, q, v=None) -> np.ndarray:
    """The kinetic or potential energy regressor, y . pi = the energy: per-body terms of the
    full model at the expanded state (its pi are the bodies')."""
    data, qf, vf, _ = _state(model, data, q, v)
    args = (qf,) if v is None else (qf, vf)
    inputs = (q,) if v is None else (q, ("v", v))
    return _run(model, inputs, fn, model.full, data.full, *args)
