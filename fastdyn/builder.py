"""ModelBuilder: assemble a Model joint by joint, with every input checked where it enters."""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np

from ._internal import checks as _checks
from ._internal.inertial import as_placement, check_inertia, dynamic_parameters  # noqa: F401
from .kernels import layout
from .kernels.joints import codes
from .model import Model

_TYPE_BY_NAME = {n: c for c, n in enumerate(codes.NAMES)}
_AXES = np.eye(3)


class ModelBuilder:
    """Build a Model in code: ``add_joint``, ``add_body``, ``add_frame``, ``append_model``.

    Joints are numbered in insertion order and a parent must exist before its children, so
    ``parent < i`` holds by construction and q/v follow Pinocchio's depth-first layout when
    joints are added depth first.
    """

    def __init__(self, name: str = "model", gravity: Sequence[float] = (0.0, 0.0, -9.81)):
        self.name = name
        self.gravity = np.array(gravity, dtype=np.float64)
        self._rows: list[np.ndarray] = []  # topology records, JOINT_DTYPE
        self._prm: list[np.ndarray] = []  # parameter rows (NP,), kernels/layout.py
        self._joint_names: list[str] = []
        self._frames: list[np.void] = []
        self._frame_names: list[str] = []
        self._frame_keys: set[tuple[str, int]] = set()  # (name, type): duplicate check in O(1)
        self._mimic: dict = {}
        u = np.zeros((), layout.JOINT_DTYPE)
        u["parent"] = -1
        u["type"] = codes.UNIVERSE
        self._rows.append(u)
        self._prm.append(np.zeros(layout.NP))
        layout.named(self._prm[0])["R"] = np.eye(3)
        self._joint_names.append("universe")
        self.add_frame("universe", 0, None, layout.FIXED_JOINT_FRAME, parent_frame=0)

    @property
    def njoints(self) -> int:
        return len(self._rows)

    def _joint_index(self, j: int | str, what: str) -> int:
        if isinstance(j, str):
            if j not in self._joint_names:
                raise ValueError(f"{what}: no joint named {j!r} has been added")
            return self._joint_names.index(j)
        j = _checks.index(j, f"{what}: parent")
        if not 0 <= j < len(self._rows):
            raise ValueError(f"{what}: parent joint index {j} does not exist "
                             f"(joints 0..{len(self._rows) - 1})")
        return j

    def add_joint(self, name: str, type: str | int, parent: int | str = 0, placement=None, *,
                  axis=None, axis2=None, pitch: float = 0.0, lower=None, upper=None,
                  velocity=None, effort=None, armature=0.0, damping=0.0, friction=0.0,
                  frame: bool = True) -> int:
        """Add a joint of ``type`` (a name from ``fastdyn.JOINT_TYPES`` or a code) under
        ``parent`` at ``placement`` (4x4, (R, p) or None) and return its index.

        ``axis``: unit axis for "revolute", "continuous", "prismatic", "helical" and the first
        axis of "universal" (``axis2`` its second); a non-unit axis is normalized with a
        warning, a zero axis rejected. Limits are per coordinate (lower/upper: nq values,
        velocity/effort/armature/damping/friction: nv values, or one scalar for all).
        ``frame``: also add a JOINT frame of the same name, as Pinocchio's parsers do.
        """
        if not (isinstance(name, str) and name):
            raise TypeError(f"joint name must be a non-empty str, got {name!r}")
        what = f"joint {name!r}"
        if name in self._joint_names:
            raise ValueError(f"{what}: a joint with this name already exists")
        if isinstance(type, str):
            if type.lower() not in _TYPE_BY_NAME or type.lower() == "universe":
                raise ValueError(f"{what}: unknown joint type {type!r}; known: "
                                 f"{', '.join(codes.NAMES[1:])}")
            t = _TYPE_BY_NAME[type.lower()]
        else:
            t = _checks.index(type, f"{what}: type", "a joint type name or code")
            if not 1 <= t < codes.NTYPES:
                raise ValueError(f"{what}: unknown joint type code {t}")
        par = self._joint_index(parent, what)
        R, p = as_placement(placement, what)
        r = np.zeros((), layout.JOINT_DTYPE)
        r["parent"], r["type"] = par, t
        r["nq"], r["nv"] = codes.NQ[t], codes.NV[t]
        last = self._rows[-1]
        r["idx_q"] = last["idx_q"] + last["nq"]
        r["idx_v"] = last["idx_v"] + last["nv"]
        row = np.zeros(layout.NP)
        pr = layout.named(row)  # writes go into row
        pr["R"], pr["p"] = R, p
        if t in codes.ALIGNED_AXIS:
            pr["axis"] = _AXES[codes.ALIGNED_AXIS[t]]
        elif t in (codes.REVOLUTE, codes.CONTINUOUS, codes.PRISMATIC, codes.HELICAL,
                   codes.UNIVERSAL):
            pr["axis"] = _unit(axis, what, "axis")
        if t == codes.UNIVERSAL:
            pr["axis2"] = _unit(axis2, what, "axis2")
        if not np.isfinite(pitch):
            raise ValueError(f"{what}: pitch must be finite")
        pr["pitch"] = pitch
        nq, nv = int(r["nq"]), int(r["nv"])
        pr["q_lower"][:nq] = _per(lower, nq, -np.inf, what, "lower")
        pr["q_upper"][:nq] = _per(upper, nq, np.inf, what, "upper")
        if np.any(pr["q_lower"][:nq] > pr["q_upper"][:nq]):
            raise ValueError(f"{what}: lower position limit above upper limit")
        pr["v_max"][:nv] = _per(velocity, nv, np.inf, what, "velocity")
        pr["effort_max"][:nv] = _per(effort, nv, np.inf, what, "effort")
        for field, val in (("armature", armature), ("damping", damping), ("friction", friction)):
            vals = _per(val, nv, 0.0, what, field)
            if np.any(vals < 0):
                raise ValueError(f"{what}: {field} must be >= 0, got {vals}")
            pr[field][:nv] = vals
        self._rows.append(r)
        self._prm.append(row)
        self._joint_names.append(name)
        j = len(self._rows) - 1
        if frame:
            self.add_frame(name, j, None, layout.JOINT_FRAME)
        return j

    def add_body(self, joint: int | str, mass: float, com=(0.0, 0.0, 0.0), inertia=None,
                 placement=None, name: str | None = None, physical: bool = True) -> None:
        """Attach a rigid body to ``joint``: mass, centre of mass and rotational inertia about
        the com, given in a body frame at ``placement`` in the joint frame. Bodies on one
        joint add up (Pinocchio's appendBodyToJoint). ``name`` also adds a BODY frame there.
        ``physical=False`` skips the positive-definiteness and triangle-inequality checks."""
        j = self._joint_index(joint, "add_body")
        what = f"body {name or ''} on joint {self._joint_names[j]!r}".replace("  ", " ")
        if j == 0:
            raise ValueError(f"{what}: the universe does not move; attach bodies to a joint")
        m, c, Ic = check_inertia(mass, com, np.zeros((3, 3)) if inertia is None else inertia, what,
                                 physical)
        R, p = as_placement(placement, what)
        # inertias in one frame add as dynamic parameters (Pinocchio's appendBodyToJoint)
        pi = self._prm[j][layout.P_PI:layout.P_PI + 10]
        pi += dynamic_parameters(m, p + R @ c, R @ Ic @ R.T)
        if not np.all(np.isfinite(pi)):
            raise ValueError(f"{what}: an overflow: the joint's bodies together exceed a "
                             f"double")
        if name is not None:
            self.add_frame(name, j, (R, p), layout.BODY_FRAME)

    def add_frame(self, name: str, parent_joint: int | str, placement=None,
                  type: int = layout.OP_FRAME, parent_frame: int | None = None) -> int:
        """Add a frame fixed to ``parent_joint`` at ``placement`` (in the joint frame)."""
        what = f"frame {name!r}"
        j = self._joint_index(parent_joint, what)
        R, p = as_placement(placement, what)
        if type not in (layout.OP_FRAME, layout.JOINT_FRAME, layout.FIXED_JOINT_FRAME,
                        layout.BODY_FRAME, layout.SENSOR_FRAME):
            raise ValueError(f"{what}: unknown frame type {type}")
        if (name, type) in self._frame_keys:
            raise ValueError(f"{what}: a frame with this name and type already exists")
        f = np.zeros((), layout.FRAME_DTYPE)
        f["parent_joint"], f["type"], f["R"], f["p"] = j, type, R, p
        if parent_frame is None:
            parent_frame = next((k for k, fr in enumerate(self._frames)
                                 if fr["parent_joint"] == j and fr["type"] == layout.JOINT_FRAME),
                                0)
        if not 0 <= parent_frame <= len(self._frames):
            raise ValueError(f"{what}: parent frame {parent_frame} does not exist")
        f["parent_frame"] = parent_frame
        self._frames.append(f)
        self._frame_names.append(name)
        self._frame_keys.add((name, type))
        return len(self._frames) - 1

    def set_mimic(self, joint: str, mimicked: str, multiplier: float, offset: float) -> None:
        """Record a URDF mimic relation (kept in the model; joints stay independent)."""
        self._joint_index(joint, "mimic")
        self._joint_index(mimicked, "mimic")
        self._mimic[joint] = (mimicked, float(multiplier), float(offset))

    def append_model(self, other: Model, parent_joint: int | str = 0, placement=None,
                     prefix: str = "") -> None:
        """Graft ``other`` under ``parent_joint`` at ``placement``; names get ``prefix``."""
        par = self._joint_index(parent_joint, "append_model")
        R0, p0 = as_placement(placement, "append_model")
        remap = {0: par}
        for i in range(1, other.njoints):
            r = other.jnt[i]
            pr = other.params[i]
            R, p = pr["R"], pr["p"]
            if r["parent"] == 0:
                R, p = R0 @ R, p0 + R0 @ p
            nq, nv = int(r["nq"]), int(r["nv"])
            j = self.add_joint(prefix + other.joint_names[i], int(r["type"]),
                               remap[int(r["parent"])], (R, p), axis=pr["axis"].copy(),
                               axis2=pr["axis2"].copy() if r["type"] == codes.UNIVERSAL else None,
                               pitch=float(pr["pitch"]), lower=pr["q_lower"][:nq],
                               upper=pr["q_upper"][:nq], velocity=pr["v_max"][:nv],
                               effort=pr["effort_max"][:nv], armature=pr["armature"][:nv],
                               damping=pr["damping"][:nv], friction=pr["friction"][:nv],
                               frame=False)
            remap[i] = j
            self._prm[j][layout.P_PI:layout.P_PI + 10] = pr["pi"]  # the same joint frame
        offset = len(self._frames)
        for k in range(1, other.nframes):
            f = other.frm[k]
            R, p = f["R"], f["p"]
            if f["parent_joint"] == 0:
                R, p = R0 @ R, p0 + R0 @ p
            pf = int(f["parent_frame"])
            self.add_frame(prefix + other.frame_names[k], remap[int(f["parent_joint"])], (R, p),
                           int(f["type"]), parent_frame=offset + pf - 1 if pf > 0 else 0)
        for jn, (mj, mul, off) in other.mimic.items():
            self._mimic[prefix + jn] = (prefix + mj, mul, off)

    def build(self) -> Model:
        """The Model of the joints, bodies and frames added so far, checked (Model.check: the
        one check of a model's invariants, fastdyn/_internal/invariants.py)."""
        jnt = np.array(self._rows, dtype=layout.JOINT_DTYPE)
        prm = np.array(self._prm)
        g = np.asarray(self.gravity, dtype=np.float64)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise ValueError(f"gravity must be 3 finite numbers, got {self.gravity!r}")
        layout.named(prm)["gravity"][0] = g
        frm = np.array(self._frames, dtype=layout.FRAME_DTYPE)
        return Model(jnt, prm, frm, self._joint_names, self._frame_names, self.name,
                     self._mimic)


def _unit(axis, what: str, field: str) -> np.ndarray:
    if axis is None:
        raise ValueError(f"{what}: this joint type needs {field}=(x, y, z)")
    a = np.asarray(axis, dtype=np.float64).reshape(-1)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{what}: {field} must be 3 finite numbers, got {axis!r}")
    n = np.linalg.norm(a)
    if n < 1e-12:
        raise ValueError(f"{what}: {field} is zero; a joint axis must have a direction")
    if abs(n - 1.0) > 1e-9:
        warnings.warn(f"{what}: {field} {a.tolist()} has norm {n:.6g}; normalized", stacklevel=3)
    return a / n


def _per(val, n: int, default: float, what: str, field: str) -> np.ndarray:
    if val is None:
        return np.full(n, default)
    a = _checks.real(val, f"{what}: {field}", "real numbers").reshape(-1)
    if a.size == 1:
        a = np.full(n, a[0])
    if a.shape != (n,):
        raise ValueError(f"{what}: {field} needs {n} values for this joint type, got {a.size}")
    if np.any(np.isnan(a)):
        raise ValueError(f"{what}: {field} contains NaN")
    return a
