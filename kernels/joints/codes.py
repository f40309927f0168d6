"""Joint type codes and their sizes: the one table every dispatcher and parser reads.

q/v layouts are Pinocchio's (../shared/CONVENTIONS.md), so arrays interchange with it.
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

# Axis-aligned types and their fixed axis (the record's axis field holds it too).
ALIGNED_AXIS = {REVOLUTE_X: 0, REVOLUTE_Y: 1, REVOLUTE_Z: 2, CONTINUOUS_X: 0, CONTINUOUS_Y: 1,
                CONTINUOUS_Z: 2, PRISMATIC_X: 0, PRISMATIC_Y: 1, PRISMATIC_Z: 2}
# Types whose configuration is not a vector space (they need integrate/normalize).
LIE_TYPES = (CONTINUOUS_X, CONTINUOUS_Y, CONTINUOUS_Z, CONTINUOUS, SPHERICAL, FREEFLYER, PLANAR)
