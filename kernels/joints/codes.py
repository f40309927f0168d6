"""The joint contract's tables: every joint type's code, name, sizes and rules, collected from
the families that declare them (kernels/joints/<family>.py, each a ``CONTRACT`` of
common.JointType beside that family's calc, dS/dt and code-generation rules). Every check,
dispatcher, parser and generator reads these tables; none restates a type's facts.

q/v layouts are Pinocchio's (its documentation's joint models), so arrays interchange with it.
"""

import numpy as np

from . import freeflyer, planar, prismatic, revolute, spherical, universal
from .common import SE2, SE3, SO2, SO3, VECTOR  # noqa: F401 (the Lie group ids, re-exported)
from .freeflyer import FREEFLYER, TRANSLATION  # noqa: F401 (each family owns its codes)
from .planar import PLANAR  # noqa: F401
from .prismatic import HELICAL, PRISMATIC, PRISMATIC_X, PRISMATIC_Y, PRISMATIC_Z  # noqa: F401
from .revolute import (CONTINUOUS, CONTINUOUS_X, CONTINUOUS_Y, CONTINUOUS_Z,  # noqa: F401
                       REVOLUTE, REVOLUTE_X, REVOLUTE_Y, REVOLUTE_Z)
from .spherical import SPHERICAL, SPHERICAL_ZYX  # noqa: F401
from .universal import UNIVERSAL  # noqa: F401

__all__ = ["UNIVERSE", "NTYPES", "FAMILIES", "FAMILY", "NAMES", "NQ", "NV", "ALIGNED_AXIS",
           "AXIS_TYPES", "LIE_GROUP", "UNIT_OFFSET", "UNIT_LENGTH", "S_MOVES", "PERIODIC",
           "LIE_TYPES", "GENERATED", "unit_part", "VECTOR", "SO2", "SO3", "SE2", "SE3",
           "REVOLUTE_X", "REVOLUTE_Y", "REVOLUTE_Z", "REVOLUTE", "CONTINUOUS_X", "CONTINUOUS_Y",
           "CONTINUOUS_Z", "CONTINUOUS", "PRISMATIC_X", "PRISMATIC_Y", "PRISMATIC_Z", "PRISMATIC",
           "SPHERICAL", "SPHERICAL_ZYX", "FREEFLYER", "PLANAR", "TRANSLATION", "HELICAL",
           "UNIVERSAL"]

# --- The joint contract. Each family's file declares its types (common.JointType: code, name,
# nq, nv, Lie group, whether S moves, periodicity, axis rules, codegen support) beside its calc,
# its dS/dt and its generation rules; everything below is derived from those declarations,
# never restated. Tuples indexed by type code: numba reads them as compile-time constants.
UNIVERSE = 0
FAMILIES = (revolute, prismatic, spherical, freeflyer, planar, universal)
_TYPES = sorted((t for f in FAMILIES for t in f.CONTRACT), key=lambda t: t.code)
NTYPES = len(_TYPES) + 1
assert [t.code for t in _TYPES] == list(range(1, NTYPES)), "joint type codes must be 1..n"
_ALL = [None] + _TYPES
# The family module of each code (None: the universe), for dispatchers written in Python.
FAMILY = (None,) + tuple(f for t in _TYPES for f in FAMILIES if t in f.CONTRACT)

NAMES = ("universe",) + tuple(t.name for t in _TYPES)
NQ = np.array([0] + [t.nq for t in _TYPES], dtype=np.int64)
NV = np.array([0] + [t.nv for t in _TYPES], dtype=np.int64)

# Axis-aligned types and their fixed axis (the parameter row's axis holds it too, and must).
ALIGNED_AXIS = {t.code: t.fixed_axis for t in _TYPES if t.fixed_axis >= 0}
# Types whose axis is a parameter (a unit vector in the parameter row; universal: axis2 too).
AXIS_TYPES = tuple(t.code for t in _TYPES if t.reads_axis)
# The Lie group of the joint's configuration space (kernels/configuration/dispatch.py).
LIE_GROUP = (VECTOR,) + tuple(t.group for t in _TYPES)
# Per Lie group: the part of the joint's q that has unit norm, (offset, length); length 0: none.
# SO(2) (cos, sin); SO(3) the quaternion; SE(2) [x, y, cos, sin]; SE(3) [x, y, z, quaternion].
UNIT_OFFSET = (0, 0, 0, 2, 3)
UNIT_LENGTH = (0, 2, 4, 2, 4)
# Whether the motion subspace S depends on q, so that dS/dt adds to the bias acceleration.
S_MOVES = (False,) + tuple(t.s_moves for t in _TYPES)
# Whether every coordinate is an angle of period 2 pi (the pose repeats after 2 pi).
PERIODIC = (False,) + tuple(t.periodic for t in _TYPES)
# Types whose configuration is not a vector space (they need integrate/normalize).
LIE_TYPES = tuple(t for t in range(NTYPES) if LIE_GROUP[t] != VECTOR)
# Types fastdyn.codegen writes out (constant S; the family's symbolic_* rules).
GENERATED = tuple(t.code for t in _TYPES if t.generated)


def unit_part(t: int) -> tuple[int, int]:
    """(offset in the joint's q, length) of type t's unit-norm coordinates; length 0: none."""
    g = LIE_GROUP[t]
    return UNIT_OFFSET[g], UNIT_LENGTH[g]
