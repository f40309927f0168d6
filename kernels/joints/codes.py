"""Joint type codes and their sizes: the one table every dispatcher and parser reads.

q/v layouts are Pinocchio's (its documentation's joint models), so arrays interchange with it.
"""

import numpy as np

UNIVERSE = 0
REVOLUTE_X, REVOLUTE_Y, REVOLUTE_Z, REVOLUTE = 1, 2, 3, 4  # q = [t]
CONTINUOUS_X, CONTINUOUS_Y, CONTINUOUS_Z, CONTINUOUS = 5, 6, 7, 8  # q = [cos t, sin t]
PRISMATIC_X, PRISMATIC_Y, PRISMATIC_Z, PRISMATIC = 9, 10, 11, 12  # q = [d]
SPHERICAL = 13  # q = [qx, qy, qz, qw], v = body angular velocity
SPHERICAL_ZYX = 14  # q = [z, y, x] Euler angles, R = Rz Ry Rx, v = dq
FREEFLYER = 15  # q = [x, y, z, qx, qy, qz, qw], v = body-fixed [v; w]
PLANAR = 16  # q = [x, y, cos t, sin t], v = body [vx, vy, wz]
TRANSLATION = 17  # q = [x, y, z]
HELICAL = 18  # q = [t], translation pitch * t along the axis
UNIVERSAL = 19  # q = [t1, t2], R = R(axis, t1) R(axis2, t2)
NTYPES = 20

NAMES = ("universe", "revolute_x", "revolute_y", "revolute_z", "revolute",
         "continuous_x", "continuous_y", "continuous_z", "continuous",
         "prismatic_x", "prismatic_y", "prismatic_z", "prismatic",
         "spherical", "spherical_zyx", "freeflyer", "planar", "translation",
         "helical", "universal")
NQ = np.array([0, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 4, 3, 7, 4, 3, 1, 2], dtype=np.int64)
NV = np.array([0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 6, 3, 3, 1, 2], dtype=np.int64)

# Axis-aligned types and their fixed axis (the parameter row's axis holds it too, and must).
ALIGNED_AXIS = {REVOLUTE_X: 0, REVOLUTE_Y: 1, REVOLUTE_Z: 2, CONTINUOUS_X: 0, CONTINUOUS_Y: 1,
                CONTINUOUS_Z: 2, PRISMATIC_X: 0, PRISMATIC_Y: 1, PRISMATIC_Z: 2}
# Types whose axis is a parameter (a unit vector in the parameter row; universal: axis2 too).
AXIS_TYPES = (REVOLUTE, CONTINUOUS, PRISMATIC, HELICAL, UNIVERSAL)

# --- The joint contract: what every check, dispatcher and generator needs to know of a type.
# Tuples indexed by type code (numba reads them as compile-time constants); derive from these,
# never restate them (kernels/joints/<family>.py hold each family's calc).

# The Lie group of the joint's configuration space (kernels/configuration/dispatch.py).
VECTOR, SO2, SO3, SE2, SE3 = 0, 1, 2, 3, 4
LIE_GROUP = tuple(SO2 if CONTINUOUS_X <= t <= CONTINUOUS else
                  {SPHERICAL: SO3, FREEFLYER: SE3, PLANAR: SE2}.get(t, VECTOR)
                  for t in range(NTYPES))
# Per Lie group: the part of the joint's q that has unit norm, (offset, length); length 0: none.
# SO(2) (cos, sin); SO(3) the quaternion; SE(2) [x, y, cos, sin]; SE(3) [x, y, z, quaternion].
UNIT_OFFSET = (0, 0, 0, 2, 3)
UNIT_LENGTH = (0, 2, 4, 2, 4)
# Whether the motion subspace S depends on q, so that dS/dt adds to the bias acceleration.
S_MOVES = tuple(t in (SPHERICAL_ZYX, UNIVERSAL) for t in range(NTYPES))
# Whether every coordinate is an angle of period 2 pi (the pose repeats after 2 pi).
PERIODIC = tuple(REVOLUTE_X <= t <= REVOLUTE or t in (UNIVERSAL, SPHERICAL_ZYX)
                 for t in range(NTYPES))
# Types whose configuration is not a vector space (they need integrate/normalize).
LIE_TYPES = tuple(t for t in range(NTYPES) if LIE_GROUP[t] != VECTOR)


def unit_part(t: int) -> tuple[int, int]:
    """(offset in the joint's q, length) of type t's unit-norm coordinates; length 0: none."""
    g = LIE_GROUP[t]
    return UNIT_OFFSET[g], UNIT_LENGTH[g]
