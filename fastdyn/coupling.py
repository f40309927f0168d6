"""Joint couplings: one joint's coordinate held to follow another's, as a constraint row.

    gear = fd.JointCoupling(model, "finger_joint2", "finger_joint1", ratio=1.0)
    ddq, lam = fd.constraint_dynamics(model, data, q, v, tau, [gear, *contacts])

q_joint = ratio q_leader + offset (MuJoCo's joint equality with a linear polycoef; leader
None: q_joint = offset, a joint locked in place), for joints with one coordinate (revolute,
prismatic; an unbounded revolute's (cos, sin) is refused). Its one row is J = e_joint -
ratio e_leader; Baumgarte's gains kp, kd pull a violated coupling back, as a
RigidConstraint's (kernels/contact/rigid_constraints.py); lambda is the generalized force
the coupling applies to the joint (minus ratio times it to the leader). It goes in the same
constraint lists as fastdyn.RigidConstraint, for fd.constraint_dynamics, fd.impulse_dynamics,
their batches and their derivatives.
A ``fastdyn.mimic.MimicModel`` removes the follower's coordinate instead (exact, and the
model's algorithms then run reduced); a coupling keeps every coordinate, so it mixes with
contacts and loop closures in one constraint set. Immutable; belongs to its model.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal.indices import joint_index
from .errors import ConstraintError
from .kernels.layout import CONSTRAINT_DTYPE, LOCAL
from .model import Model

__all__ = ["JointCoupling", "COUPLING"]

COUPLING = 1  # its kind in a constraint table (one row)


class JointCoupling:
    """Joint ``joint`` held at ``ratio`` q_leader + ``offset`` (module docstring)."""

    __slots__ = ("name", "joint", "leader", "ratio", "offset", "kp", "kd", "record",
                 "model_token")
    contact_type = COUPLING  # rows, as RigidConstraint's contact_type
    frame2 = None  # (not a loop closure between frames)

    def __init__(self, model: Model, joint: int | str, leader: int | str | None,
                 ratio: float = 1.0, offset: float = 0.0, kp: float = 0.0, kd: float = 0.0,
                 name: str | None = None):
        _checks.model_arg(model)
        set_ = object.__setattr__
        if name is None:
            name = f"{joint}-{leader}" if leader is not None else str(joint)
        elif not isinstance(name, str):
            raise TypeError(f"coupling name must be a str, got {_checks.typename(name)}")
        set_(self, "name", name)
        j = self._joint(model, joint, "joint")
        lead = 0 if leader is None else self._joint(model, leader, "leader")
        if lead == j:
            raise ConstraintError(name, f"joint {model.joint_names[j]!r} cannot follow itself")
        values = {}
        for what, x in (("ratio", ratio), ("offset", offset), ("kp", kp), ("kd", kd)):
            try:
                values[what] = _checks.scalar(x, what)
            except (TypeError, ValueError) as e:
                raise ConstraintError(name, str(e)) from None
        for what in ("kp", "kd"):
            if values[what] < 0.0:
                raise ConstraintError(name, f"Baumgarte gain {what} must be >= 0, got "
                                            f"{values[what]}")
        rec = np.zeros((), CONSTRAINT_DTYPE)
        rec["kind"], rec["reference"], rec["joint1"], rec["joint2"] = COUPLING, LOCAL, j, lead
        for what, x in values.items():
            rec[what] = x
        rec["R1"] = rec["R2"] = np.eye(3)
        rec.flags.writeable = False
        for k, val in (("joint", j), ("leader", None if leader is None else lead),
                       ("record", rec), ("model_token", model.token), *values.items()):
            set_(self, k, val)

    def __setattr__(self, key, value):
        raise AttributeError(f"a JointCoupling is immutable (coupling {self.name!r}): build "
                             f"a new one")

    @property
    def size(self) -> int:
        return COUPLING

    def __repr__(self) -> str:
        lead = "a constant" if self.leader is None else f"joint {self.leader}"
        return (f"JointCoupling({self.name!r}, joint {self.joint} = {self.ratio} x {lead} + "
                f"{self.offset}, kp={self.kp}, kd={self.kd})")

    def __reduce__(self):
        return (_rebuilt, tuple(getattr(self, k) for k in JointCoupling.__slots__))

    def _joint(self, model, j, what) -> int:
        try:
            i = joint_index(model, j, what)
        except (KeyError, IndexError) as e:
            raise ConstraintError(self.name, f"{what}: {e.args[0]}") from None
        except TypeError as e:
            raise TypeError(f"coupling {self.name!r}: {e}") from None
        r = model.jnt[i]
        if i == 0 or int(r["nq"]) != 1 or int(r["nv"]) != 1:
            raise ConstraintError(self.name, f"{what} {model.joint_names[i]!r} is a "
                                             f"{model.joint_type(i)} joint; a coupling takes "
                                             f"joints with one coordinate (revolute or "
                                             f"prismatic, bounded)")
        return i


def _rebuilt(*values) -> JointCoupling:
    c = object.__new__(JointCoupling)
    for k, val in zip(JointCoupling.__slots__, values):
        object.__setattr__(c, k, val)
    c.record.flags.writeable = False
    return c
