"""Forward kinematics, frame placements and centres of mass: checked wrappers over kernels."""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal import arrays as _arrays
from ._internal.arrays import EMPTY, NO_FORCES  # noqa: F401 (imported from here too)
from .kernels.algorithms import frames as _frames
from .kernels.entry import guard as _guard
from .kernels.entry import guard_api as _guard_api
from .kernels.algorithms import placements as _placements
from ._internal.fastcall import Kernel
from .model import Data, Model

# Zero-size stand-ins for "no velocity" and "no external forces". Left writeable (there is
# nothing to write): a read-only argument would compile a second kernel specialization.


_fk_checked = Kernel(_guard.forward_kinematics_checked, vectors=(2, 3, 4))
_frame_T = Kernel(_placements.frame_T)
_com_checked = Kernel(_guard_api.center_of_mass_checked, vectors=(2, 3, 4))
_joint_T = Kernel(_placements.joint_T)
_update_frames = Kernel(_frames.update_frame_placements)
_frames_fk = Kernel(_guard_api.frames_forward_kinematics_checked, vectors=(3,))


def forward_kinematics(model: Model, data: Data, q, v=None, a=None) -> None:
    """Joint placements (data.oMi_R, data.oMi_p, data.liMi_*) and, when given, LOCAL spatial
    velocities data.v and accelerations data.a (gravity not included)."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.forward_kinematics(model, data, q, v, a)
        _checks.data_for(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    vv = EMPTY if v is None else _checks.fast_vector(v, model.nv, "v")
    if a is not None and v is None:
        raise ValueError("forward_kinematics: accelerations need velocities; pass v too")
    aa = EMPTY if a is None else _checks.fast_vector(a, model.nv, "a")
    code = _fk_checked.call(model.jnt, model.prm, q, vv, aa, data.ws, NO_FORCES, _checks.QUAT_TOL)
    if code:
        data.kinematics = 0
        _checks.explain(model, code, ("q", "v", "a"), q, vv, aa)
    data.kinematics = 1 + (v is not None) + (a is not None)


def require_kinematics(data: Data, level: int, what: str) -> None:
    """Refuse to read stale or missing kinematics (0 none, 1 placements, 2 + v, 3 + a)."""
    if data.kinematics < level:
        need = ("placements", "velocities", "accelerations")[level - 1]
        raise RuntimeError(f"{what} needs joint {need}: call forward_kinematics(model, data, q"
                           f"{', v' if level >= 2 else ''}{', a' if level >= 3 else ''}) first")


def update_frame_placements(model: Model, data: Data) -> np.ndarray:
    """data.oMf (nframes, 12) from the joint placements of the last forward_kinematics; row f is
    frame f's rotation R row by row (R[0, 0], R[0, 1], ...) then its position p."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.update_frame_placements(model, data)
        _checks.data_for(model, data)
    if data.kinematics < 1:
        require_kinematics(data, 1, "update_frame_placements")
    _update_frames.call(model.frm, data.ws, data.oMf)
    return data.oMf


def frames_forward_kinematics(model: Model, data: Data, q) -> np.ndarray:
    """forward_kinematics(q) then update_frame_placements, in one compiled call: data.oMf
    (nframes, 12) (Pinocchio's framesForwardKinematics)."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            forward_kinematics(model, data, q)
            return update_frame_placements(model, data)
        _checks.data_for(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    code = _frames_fk.call(model.jnt, model.prm, model.frm, q, data.ws, data.oMf, NO_FORCES,
                           _checks.QUAT_TOL)
    if code:
        data.kinematics = 0
        _checks.explain(model, code, ("q",), q)
    data.kinematics = 1
    return data.oMf


def joint_placement(model: Model, data: Data, joint: int | str,
                    out: np.ndarray | None = None) -> np.ndarray:
    """4x4 homogeneous matrix ^0M_joint from the last forward_kinematics: a new array, or
    ``out`` (a writeable C-contiguous float64 (4, 4) array, returned) to reuse one."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return _arrays.copy_out(model.calls.joint_placement(model, data, joint), out)
        _checks.data_for(model, data)
    j = joint if type(joint) is int and 0 <= joint < model.njoints else \
        _checks.joint_index(model, joint)  # a misspelt name first: it is the real cause
    if data.kinematics < 1:
        require_kinematics(data, 1, "joint_placement")
    T = np.empty((4, 4)) if out is None else _checks.output(out, (4, 4), "out")
    if not _joint_T.call(j, data.ws, T):
        raise ValueError(f"this Data's arrays do not fit {model!r}; use model.create_data()")
    return T


def joint_pose(model: Model, data: Data, joint: int | str) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) of joint ``joint`` (id or name) in the world, from the last forward_kinematics."""
    T = joint_placement(model, data, joint)
    return T[:3, :3], T[:3, 3]


def frame_placement(model: Model, data: Data, frame: int | str,
                    out: np.ndarray | None = None) -> np.ndarray:
    """4x4 homogeneous matrix ^0M_frame (data.oMf[frame] is updated too), computed from the
    joint placements of the last forward_kinematics (never a stale oMf): a new array, or
    ``out`` (a writeable C-contiguous float64 (4, 4) array, returned) to reuse one."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return _arrays.copy_out(model.calls.frame_placement(model, data, frame), out)
        _checks.data_for(model, data)
    f = frame if type(frame) is int and 0 <= frame < model.nframes else \
        _checks.frame_index(model, frame)  # a misspelt name first: it is the real cause
    if data.kinematics < 1:
        require_kinematics(data, 1, "frame_placement")
    T = np.empty((4, 4)) if out is None else _checks.output(out, (4, 4), "out")
    if not _frame_T.call(model.frm, f, data.ws, data.oMf, T):
        raise ValueError(f"this Data's arrays do not fit {model!r}; use model.create_data()")
    return T


def frame_pose(model: Model, data: Data, frame: int | str) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) of frame ``frame`` (id or name) in the world, computed from the joint placements
    of the last forward_kinematics (never a stale oMf)."""
    T = frame_placement(model, data, frame)
    return T[:3, :3], T[:3, 3]


def center_of_mass(model: Model, data: Data, q, v=None, a=None) -> np.ndarray:
    """Whole-robot centre of mass (3,) in the world; subtree coms in data.com (row i: subtree
    of joint i), and their velocities/accelerations in data.vcom / data.acom when v, a given.
    Every row is in world coordinates. Pinocchio's data.com[i], vcom[i], acom[i] for i > 0
    are in joint i's frame (row 0, the robot's, is in the world in both): Pinocchio's
    oMi[i].act(com[i]) and oMi[i].rotation @ vcom[i] are fastdyn's rows."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: data_for says which
        same = False
    if not same:
        if hasattr(type(model), "calls"):
            return model.calls.center_of_mass(model, data, q, v, a)
        _checks.data_for(model, data)
    q = _checks.fast_vector(q, model.nq, "q")
    vv = EMPTY if v is None else _checks.fast_vector(v, model.nv, "v")
    if a is not None and v is None:
        raise ValueError("center_of_mass: accelerations need velocities; pass v too")
    aa = EMPTY if a is None else _checks.fast_vector(a, model.nv, "a")
    order = 0 if v is None else (1 if a is None else 2)
    code = _com_checked.call(model.jnt, model.prm, q, vv, aa, data.ws, order, data.mass,
                             data.com, data.vcom, data.acom, NO_FORCES, _checks.QUAT_TOL)
    if code:
        data.kinematics = 0
        _checks.explain(model, code, ("q", "v", "a"), q, vv, aa)
    data.kinematics = 1 + order
    return data.com[0]
