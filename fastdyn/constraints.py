"""Rigid (bilateral) constraints on a model: contacts of a frame with the world, loop closures.

A ``RigidConstraint`` is Pinocchio's RigidConstraintModel (Carpentier, Budhiraja, Mansard,
RSS 2021) with frames instead of (joint, placement) pairs:

    feet = [fd.RigidConstraint(model, fd.CONTACT_3D, f, reference=fd.LOCAL_WORLD_ALIGNED)
            for f in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")]
    ddq, lam = fd.constraint_dynamics(model, data, q, v, tau, feet)

- CONTACT_3D (3 rows): the origin of ``frame`` is held to a point, CONTACT_6D (6 rows): the
  frame itself is held to a placement (a foot flat on the ground, a weld).
- The target c2 is ``placement`` in the world when ``frame2`` is None (a contact), else
  ``placement`` relative to ``frame2`` (a loop closure: MuJoCo's "connect" for 3 rows,
  "weld" for 6), identity by default: the two frames coincide.
- ``placement1``: the constrained frame relative to ``frame`` (identity by default: the
  frame itself), Pinocchio's joint1_placement on top of the frame's own placement: an anchor
  point off the frame's origin (MuJoCo's connect ``anchor``) without adding a frame.
- ``reference``: the axes of the rows and of lambda, fastdyn.LOCAL (the frame's own) or
  fastdyn.LOCAL_WORLD_ALIGNED (the world's, at the frame's origin). WORLD is refused, as
  Pinocchio's constraintDynamics refuses it.
- ``kp``, ``kd``: Baumgarte's stabilization (Baumgarte 1972; Pinocchio's corrector.Kp, Kd):
  the constraint's acceleration is -kp e - kd de/dt instead of 0, e the position error of
  frame against target (for a contact, kp > 0 needs the target ``placement``: Pinocchio's
  default, the world origin, would pull the frame there).
The rows, lambda's meaning and the signs are kernels/contact/rigid_constraints.py's.
A constraint is immutable and belongs to the model it was built for (and its pickled
copies). Bad definitions raise ``fastdyn.errors.ConstraintError`` naming the constraint.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from .coupling import JointCoupling
from .errors import ConstraintError
from .frames import LOCAL, LOCAL_WORLD_ALIGNED, REFERENCES, reference_code
from .kernels.layout import CONSTRAINT_DTYPE
from .model import Model

__all__ = ["CONTACT_3D", "CONTACT_6D", "RigidConstraint", "constraint_table"]

CONTACT_3D = 3  # a point: 3 rows (Pinocchio's ContactType.CONTACT_3D)
CONTACT_6D = 6  # a frame: 6 rows (Pinocchio's ContactType.CONTACT_6D)
_ORTHONORMAL = 1e-9  # |R^T R - I| above this is not a rotation


class RigidConstraint:
    """Frame ``frame`` of ``model`` held to a point (CONTACT_3D) or a placement (CONTACT_6D):
    ``placement`` in the world, or relative to ``frame2`` (a loop closure). See the module
    docstring; ``name`` (default: the frames' names) is what error messages call it."""

    __slots__ = ("name", "contact_type", "frame", "frame2", "placement", "reference", "kp",
                 "kd", "record", "model_token", "placement1")

    def __init__(self, model: Model, contact_type: int, frame: int | str, frame2=None,
                 placement=None, reference: int = LOCAL, kp: float = 0.0, kd: float = 0.0,
                 name: str | None = None, placement1=None):
        _checks.model_arg(model)
        if name is None:
            name = str(frame) if frame2 is None else f"{frame}-{frame2}"
        elif not isinstance(name, str):
            raise TypeError(f"constraint name must be a str, got {_checks.typename(name)}")
        set_ = object.__setattr__
        set_(self, "name", name)
        f1 = self._frame(model, frame, "frame")
        f2 = None if frame2 is None else self._frame(model, frame2, "frame2")
        kind = self._kind(contact_type)
        ref = self._reference(reference)
        kp, kd = self._gain(kp, "kp"), self._gain(kd, "kd")
        self._distinct(model, f1, f2)
        if f2 is None and placement is None and kp != 0.0:
            raise ConstraintError(name, f"kp = {kp} pulls frame {model.frame_names[f1]!r} to "
                                        f"its target, the world placement ``placement``: give "
                                        f"it (e.g. fd.frame_placement(model, data, q, frame) "
                                        f"for where the frame is now)")
        R, p = self._placement(placement)
        R1, p1 = self._placement(placement1, "placement1")
        rec = np.zeros((), CONSTRAINT_DTYPE)
        fr = model.frm[f1]
        rec["kind"], rec["reference"] = kind, ref
        rec["joint1"] = fr["parent_joint"]  # c1 = frame in its joint * placement1
        rec["R1"], rec["p1"] = fr["R"] @ R1, fr["R"] @ p1 + fr["p"]
        if f2 is None:
            rec["joint2"], rec["R2"], rec["p2"] = 0, R, p
        else:  # c2 = (frame2 in its joint) * placement
            g = model.frm[f2]
            rec["joint2"], rec["R2"], rec["p2"] = g["parent_joint"], g["R"] @ R, g["R"] @ p + g["p"]
        rec["kp"], rec["kd"] = kp, kd
        rec.flags.writeable = False
        for k, val in (("contact_type", kind), ("frame", f1), ("frame2", f2),
                       ("placement", (R, p)), ("reference", ref), ("kp", kp), ("kd", kd),
                       ("record", rec), ("model_token", model.token),
                       ("placement1", (R1, p1))):
            set_(self, k, val)
        R.flags.writeable = p.flags.writeable = R1.flags.writeable = p1.flags.writeable = False

    def __setattr__(self, key, value):
        raise AttributeError(f"a RigidConstraint is immutable (constraint {self.name!r}): "
                             f"build a new one")

    @property
    def size(self) -> int:
        """The number of rows (and of lambda's entries): 3 or 6."""
        return self.contact_type

    def __repr__(self) -> str:
        kind = "CONTACT_3D" if self.contact_type == 3 else "CONTACT_6D"
        to = "the world" if self.frame2 is None else f"frame {self.frame2}"
        return (f"RigidConstraint({self.name!r}, {kind}, frame {self.frame} to {to}, "
                f"{REFERENCES[self.reference]}, kp={self.kp}, kd={self.kd})")

    def __reduce__(self):  # the slots and __setattr__ above defeat the default
        return (_rebuilt, (self.name, self.contact_type, self.frame, self.frame2,
                           self.placement, self.reference, self.kp, self.kd, self.record,
                           self.model_token, self.placement1))

    # --- checks, each naming the constraint -----------------------------------------------

    def _frame(self, model, f, what) -> int:
        try:
            return _checks.frame_index(model, f, what)
        except (KeyError, IndexError) as e:
            raise ConstraintError(self.name, f"{what}: {e.args[0]}") from None
        except TypeError as e:
            raise TypeError(f"constraint {self.name!r}: {e}") from None

    def _kind(self, t) -> int:
        if type(t) is int and t in (CONTACT_3D, CONTACT_6D):
            return t
        hint = ""
        if "pinocchio" in type(t).__module__:
            hint = " (a Pinocchio ContactType: its numbers differ from fastdyn's)"
        raise ConstraintError(self.name, f"contact_type must be fastdyn.CONTACT_3D (3) or "
                                         f"fastdyn.CONTACT_6D (6), got {t!r}{hint}")

    def _reference(self, reference) -> int:
        try:
            ref = reference_code(reference)
        except ValueError as e:
            raise ConstraintError(self.name, str(e)) from None
        if ref not in (LOCAL, LOCAL_WORLD_ALIGNED):
            raise ConstraintError(self.name, "reference must be fastdyn.LOCAL or "
                                             "fastdyn.LOCAL_WORLD_ALIGNED (the frame's origin; "
                                             "WORLD rows are not defined, as in Pinocchio)")
        return ref

    def _gain(self, x, what) -> float:
        try:
            x = _checks.scalar(x, what)
        except (TypeError, ValueError) as e:
            raise ConstraintError(self.name, f"Baumgarte gain {e}") from None
        if x < 0.0:
            raise ConstraintError(self.name, f"Baumgarte gain {what} must be >= 0 (a negative "
                                             f"gain drives the error away), got {x}")
        return x

    def _distinct(self, model, f1, f2) -> None:
        names = model.frame_names
        j1 = int(model.frm[f1]["parent_joint"])
        if f2 is None:
            if j1 == 0:
                raise ConstraintError(self.name, f"frame {names[f1]!r} is fixed to the world: "
                                                 f"a contact there constrains nothing")
            return
        if f1 == f2:
            raise ConstraintError(self.name, f"frame {names[f1]!r} is constrained to itself")
        if j1 == int(model.frm[f2]["parent_joint"]):
            raise ConstraintError(self.name, f"frames {names[f1]!r} and {names[f2]!r} are both "
                                             f"fixed to joint {model.joint_names[j1]!r}: their "
                                             f"relative placement never changes, the "
                                             f"constraint has no rows to give")

    def _placement(self, placement, what="placement") -> tuple[np.ndarray, np.ndarray]:
        if placement is None:
            return np.eye(3), np.zeros(3)
        try:
            if isinstance(placement, tuple) and len(placement) == 2:
                R = _checks.matrix(placement[0], (3, 3), f"{what}'s rotation").copy()
                p = _checks.vector(placement[1], 3, f"{what}'s position").copy()
            else:
                H = _checks.matrix(placement, (4, 4), f"{what} (a 4x4 homogeneous matrix "
                                                      f"or an (R, p) pair)")
                R, p = H[:3, :3].copy(), H[:3, 3].copy()
        except (TypeError, ValueError) as e:
            raise ConstraintError(self.name, str(e)) from None
        err = float(np.abs(R.T @ R - np.eye(3)).max())
        if not (err <= _ORTHONORMAL and np.linalg.det(R) > 0.0):
            raise ConstraintError(self.name, f"{what}'s rotation is not a rotation matrix "
                                             f"(|R^T R - I| = {err:.3g}, "
                                             f"det {np.linalg.det(R):.3g})")
        return R, p


def _rebuilt(*values) -> RigidConstraint:
    c = object.__new__(RigidConstraint)
    for k, val in zip(RigidConstraint.__slots__, values):
        object.__setattr__(c, k, val)
    if len(values) < len(RigidConstraint.__slots__):  # pickled before placement1 existed
        object.__setattr__(c, "placement1", (np.eye(3), np.zeros(3)))
    for x in (c.record, *c.placement, *c.placement1):  # (unpickled arrays come back writeable)
        x.flags.writeable = False
    return c


def constraint_table(model: Model, constraints) -> np.ndarray:
    """The constraints as the kernels take them: one layout.CONSTRAINT_DTYPE record each, in
    order, with their first rows in lambda (``row``); lambda has ``table["kind"].sum()``
    entries. A ConstraintError names a constraint that is not one, or is another model's."""
    _checks.model_arg(model)
    if isinstance(constraints, (RigidConstraint, JointCoupling)):
        constraints = (constraints,)
    try:
        items = list(constraints)
    except TypeError:
        raise TypeError(f"constraints must be a list of fastdyn.RigidConstraint (or "
                        f"JointCoupling), got {_checks.typename(constraints)}") from None
    table = np.zeros(len(items), CONSTRAINT_DTYPE)
    row = 0
    for k, c in enumerate(items):
        if type(c) is not RigidConstraint and type(c) is not JointCoupling:
            raise TypeError(f"constraints[{k}] must be a fastdyn.RigidConstraint or "
                            f"JointCoupling, got {_checks.typename(c)}")
        if c.model_token != model.token:
            raise ConstraintError(c.name, f"it was built for another model than {model!r}")
        table[k] = c.record
        table[k]["row"] = row
        row += c.contact_type
    return table
