"""What every joint writes: liMi = (placement in the parent) * M_J(q), S, v_J = S v, c_J.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint" and "RNEA / Forward
loop": ^{lambda(i)}M_i = j.M_0 j.M(q); j.nu = ^i S(q) v_q; j.c = sum_k dS/dq_k qdot_k (zero for
constant-S joints). Angle-axis rotations: Bloesch et al., "Kinematics and dynamics for robotics:
Kindr cheat sheet", ETH Zurich.
"""

from .._jit import jit
from ..layout import CJ, LI, P_P, P_R, S, VJ


@jit
def set_placement(pr, w, r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz):
    """w[LI:LI+12] = (R0, p0) * (R_J, p_J), (R0, p0) the joint's placement in its parameter
    row pr = prm[i]."""
    for r in range(3):
        a = pr[P_R + 3 * r]
        b = pr[P_R + 3 * r + 1]
        c = pr[P_R + 3 * r + 2]
        w[LI + 3 * r] = a * r00 + b * r10 + c * r20
        w[LI + 3 * r + 1] = a * r01 + b * r11 + c * r21
        w[LI + 3 * r + 2] = a * r02 + b * r12 + c * r22
        w[LI + 9 + r] = pr[P_P + r] + a * px + b * py + c * pz


@jit
def axis_rotation(ux, uy, uz, c, s):
    """Rodrigues: R = c I + s [u]x + (1 - c) u u^T, for a unit axis u (Kindr cheat sheet,
    angle-axis)."""
    t = 1.0 - c
    return (c + t * ux * ux, t * ux * uy - s * uz, t * ux * uz + s * uy,
            t * ux * uy + s * uz, c + t * uy * uy, t * uy * uz - s * ux,
            t * ux * uz - s * uy, t * uy * uz + s * ux, c + t * uz * uz)


@jit
def quat_matrix(x, y, z, w):
    """Rotation of a Hamilton quaternion stored (x, y, z, w); the same arithmetic as Eigen's
    toRotationMatrix, so a slightly non-unit q gives Pinocchio's matrix to the last bit."""
    tx = 2.0 * x
    ty = 2.0 * y
    tz = 2.0 * z
    twx = tx * w
    twy = ty * w
    twz = tz * w
    txx = tx * x
    txy = ty * x
    txz = tz * x
    tyy = ty * y
    tyz = tz * y
    tzz = tz * z
    return (1.0 - (tyy + tzz), txy - twz, txz + twy,
            txy + twz, 1.0 - (txx + tzz), tyz - twx,
            txz - twy, tyz + twx, 1.0 - (txx + tyy))


@jit
def set_subspace_column(w, k, vx, vy, vz, wx, wy, wz):
    o = S + 6 * k
    w[o] = vx
    w[o + 1] = vy
    w[o + 2] = vz
    w[o + 3] = wx
    w[o + 4] = wy
    w[o + 5] = wz


@jit
def clear_bias(w):
    for k in range(6):
        w[CJ + k] = 0.0


@jit
def velocity_from_subspace(w, nv, v, iv):
    """v_J = S v_i."""
    for r in range(6):
        acc = 0.0
        for k in range(nv):
            acc += w[S + 6 * k + r] * v[iv + k]
        w[VJ + r] = acc
