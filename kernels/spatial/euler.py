"""Euler angles: ZYX (yaw-pitch-roll, Pinocchio's SphericalZYX q = [z, y, x]), Pinocchio's rpy
(the same matrix stored [r, p, y]) and Kindr's XYZ (R = Rx Ry Rz), to and from matrices.

Source: Bloesch et al., "Kinematics and dynamics for robotics: Kindr cheat sheet", ETH Zurich,
"Euler Angles ZYX" and "Euler Angles XYZ"; the expanded matrices were derived here again rather
than transcribed from the sheet, and are checked against Pinocchio. At gimbal lock
(|cos pitch| <= GIMBAL_TOL) the inverse maps return ok = False and a valid representative: the
last angle 0, the first taking the whole rotation.
"""

import math

from .._jit import jit
from .rotations import GIMBAL_TOL


@jit
def _rz_ry_rx(z, y, x, out):
    cz, sz = math.cos(z), math.sin(z)
    cy, sy = math.cos(y), math.sin(y)
    cx, sx = math.cos(x), math.sin(x)
    out[0, 0] = cz * cy
    out[0, 1] = cz * sy * sx - sz * cx
    out[0, 2] = cz * sy * cx + sz * sx
    out[1, 0] = sz * cy
    out[1, 1] = sz * sy * sx + cz * cx
    out[1, 2] = sz * sy * cx - cz * sx
    out[2, 0] = -sy
    out[2, 1] = cy * sx
    out[2, 2] = cy * cx


@jit
def _zyx_of(R):
    """(z, y, x, ok) with R = Rz(z) Ry(y) Rx(x); ok is False at gimbal lock.

    Solves the first angle, then the other two exactly given it, so R is reproduced even where
    the first angle is ill-conditioned. At gimbal lock (cos y ~ 0) only z - x (y = pi/2) or
    z + x (y = -pi/2) is defined: z takes it all and x comes out as 0.
    """
    cy = math.sqrt(R[0, 0] * R[0, 0] + R[1, 0] * R[1, 0])
    ok = cy > GIMBAL_TOL
    if ok:
        z = math.atan2(R[1, 0], R[0, 0])
    else:
        z = math.atan2(-R[0, 1], R[1, 1])
    cz, sz = math.cos(z), math.sin(z)
    y = math.atan2(-R[2, 0], cy)
    x = math.atan2(sz * R[0, 2] - cz * R[1, 2], cz * R[1, 1] - sz * R[0, 1])
    return z, y, x, ok


@jit
def euler_zyx_to_matrix(e, out):
    """R = Rz(e0) Ry(e1) Rx(e2), e = [yaw, pitch, roll] (Kindr cheat sheet, "Euler Angles ZYX")."""
    _rz_ry_rx(e[0], e[1], e[2], out)


@jit
def matrix_to_euler_zyx(R, out):
    """e = [yaw, pitch, roll] of R = Rz Ry Rx; returns False at gimbal lock (pitch = +-pi/2,
    Kindr cheat sheet, "Euler Angles ZYX"), where roll is set to 0 and yaw absorbs it."""
    z, y, x, ok = _zyx_of(R)
    out[0] = z
    out[1] = y
    out[2] = x
    return ok


@jit
def rpy_to_matrix(rpy, out):
    """R = Rz(y) Ry(p) Rx(r) for rpy = [r, p, y], as pin.rpy.rpyToMatrix."""
    _rz_ry_rx(rpy[2], rpy[1], rpy[0], out)


@jit
def matrix_to_rpy(R, out):
    """[r, p, y] of R = Rz(y) Ry(p) Rx(r) (pin.rpy.matrixToRpy); returns False at gimbal lock,
    where r is set to 0 and y absorbs it."""
    z, y, x, ok = _zyx_of(R)
    out[0] = x
    out[1] = y
    out[2] = z
    return ok


@jit
def euler_xyz_to_matrix(e, out):
    """R = Rx(e0) Ry(e1) Rz(e2), e = [alpha, beta, gamma] (Kindr cheat sheet, "Euler Angles
    XYZ")."""
    ca, sa = math.cos(e[0]), math.sin(e[0])
    cb, sb = math.cos(e[1]), math.sin(e[1])
    cg, sg = math.cos(e[2]), math.sin(e[2])
    out[0, 0] = cb * cg
    out[0, 1] = -cb * sg
    out[0, 2] = sb
    out[1, 0] = ca * sg + sa * sb * cg
    out[1, 1] = ca * cg - sa * sb * sg
    out[1, 2] = -sa * cb
    out[2, 0] = sa * sg - ca * sb * cg
    out[2, 1] = sa * cg + ca * sb * sg
    out[2, 2] = ca * cb


@jit
def matrix_to_euler_xyz(R, out):
    """e = [alpha, beta, gamma] of R = Rx Ry Rz; returns False at gimbal lock (beta = +-pi/2,
    Kindr cheat sheet, "Euler Angles XYZ"), where gamma is set to 0 and alpha absorbs it.

    Same scheme as matrix_to_euler_zyx: alpha first, then beta and gamma exactly given alpha.
    """
    cb = math.sqrt(R[1, 2] * R[1, 2] + R[2, 2] * R[2, 2])
    ok = cb > GIMBAL_TOL
    if ok:
        a = math.atan2(-R[1, 2], R[2, 2])
    else:
        a = math.atan2(R[2, 1], R[1, 1])
    ca, sa = math.cos(a), math.sin(a)
    out[0] = a
    out[1] = math.atan2(R[0, 2], cb)
    out[2] = math.atan2(ca * R[1, 0] + sa * R[2, 0], ca * R[1, 1] + sa * R[2, 1])
    return ok
