"""Spherical joints: quaternion (q = [qx, qy, qz, qw]) and Euler ZYX (q = [z, y, x]).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint"; Bloesch et al.,
"Kinematics and dynamics for robotics: Kindr cheat sheet", ETH Zurich, "Rotation Quaternion" and
Euler angles ZYX with their angular-velocity maps.
Quaternion: M_J = (R(q), 0), S = [0; I3], v = body angular velocity, c_J = 0.
ZYX: R = Rz(z) Ry(y) Rx(x); body angular velocity w = S_w(q) qdot with columns
  S_w = [(-sy, cy sx, cy cx), (0, cx, -sx), (1, 0, 0)],
and c_J = [0; dS_w/dt qdot] since S_w depends on q.
"""

from math import cos, sin

from .._jit import jit
from ..layout import CJ, VJ
from .common import (SO3, VECTOR, JointType, clear_bias, placement0, quat_matrix, set_placement,
                     set_subspace_column, symbolic_quat_matrix, unit_columns)

SPHERICAL = 13  # q = [qx, qy, qz, qw], v = body angular velocity
SPHERICAL_ZYX = 14  # q = [z, y, x] Euler angles, R = Rz Ry Rx, v = dq
CONTRACT = (JointType(SPHERICAL, "spherical", 4, 3, SO3, False, False, generated=True),
            JointType(SPHERICAL_ZYX, "spherical_zyx", 3, 3, VECTOR, True, True))


@jit
def calc(jr, pr, q, v, w):
    """Codes SPHERICAL (13) and SPHERICAL_ZYX (14)."""
    iq = jr.idx_q
    iv = jr.idx_v
    if jr.type == SPHERICAL:
        r = quat_matrix(q[iq], q[iq + 1], q[iq + 2], q[iq + 3])
        set_placement(pr, w, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], 0.0, 0.0, 0.0)
        set_subspace_column(w, 0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0)
        set_subspace_column(w, 1, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)
        set_subspace_column(w, 2, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
        if v.shape[0] > 0:
            w[VJ] = 0.0
            w[VJ + 1] = 0.0
            w[VJ + 2] = 0.0
            w[VJ + 3] = v[iv]
            w[VJ + 4] = v[iv + 1]
            w[VJ + 5] = v[iv + 2]
            clear_bias(w)
        return
    cz, sz = cos(q[iq]), sin(q[iq])
    cy, sy = cos(q[iq + 1]), sin(q[iq + 1])
    cx, sx = cos(q[iq + 2]), sin(q[iq + 2])
    set_placement(pr, w,
                  cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
                  sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
                  -sy, cy * sx, cy * cx,
                  0.0, 0.0, 0.0)
    set_subspace_column(w, 0, 0.0, 0.0, 0.0, -sy, cy * sx, cy * cx)
    set_subspace_column(w, 1, 0.0, 0.0, 0.0, 0.0, cx, -sx)
    set_subspace_column(w, 2, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    if v.shape[0] > 0:
        dz, dy, dx = v[iv], v[iv + 1], v[iv + 2]
        w[VJ] = 0.0
        w[VJ + 1] = 0.0
        w[VJ + 2] = 0.0
        w[VJ + 3] = -sy * dz + dx
        w[VJ + 4] = cy * sx * dz + cx * dy
        w[VJ + 5] = cy * cx * dz - sx * dy
        w[CJ] = 0.0
        w[CJ + 1] = 0.0
        w[CJ + 2] = 0.0
        w[CJ + 3] = -cy * dy * dz
        w[CJ + 4] = (-sy * sx * dy + cy * cx * dx) * dz - sx * dx * dy
        w[CJ + 5] = (-sy * cx * dy - cy * sx * dx) * dz - cx * dx * dy


def symbolic_placement(T, jr, qn):
    """For fastdyn.codegen (common.py says how): (R0 R(quat), p0); not ZYX."""
    R0, p0 = placement0(jr)
    iq = int(jr["idx_q"])
    return T.matmul(R0, symbolic_quat_matrix(T, *qn[iq:iq + 4])), p0


def symbolic_subspace(jr):
    return unit_columns()[3:]


# --- ZYX: S moves with q (CONTRACT's s_moves), so the algorithms that need dS/dt column by
# column (kernels/joints/subspace_rate.py) and the derivatives' partials of S and c_J
# (kernels/joints/subspace_partials.py, whose docstring has the formulas) come from here.

@jit
def zyx_rate_column(q, v, iq, iv, k):
    """dS_k/dt, k < 2, as a 6-tuple: ds0 = (-cy dy, -sy sx dy + cy cx dx, -sy cx dy - cy sx dx),
    ds1 = (0, -sx dx, -cx dx); ds2 = 0 (the caller's)."""
    cy, sy = cos(q[iq + 1]), sin(q[iq + 1])
    cx, sx = cos(q[iq + 2]), sin(q[iq + 2])
    dy, dx = v[iv + 1], v[iv + 2]
    if k == 0:
        return (0.0, 0.0, 0.0, -cy * dy, -sy * sx * dy + cy * cx * dx,
                -sy * cx * dy - cy * sx * dx)
    return (0.0, 0.0, 0.0, 0.0, -sx * dx, -cx * dx)


@jit
def zyx_ds_dq(q, iq, m, l):
    """dS_m/dq_l (angular part)."""
    if m == 0 and l == 1:
        cy, sy = cos(q[iq + 1]), sin(q[iq + 1])
        cx, sx = cos(q[iq + 2]), sin(q[iq + 2])
        return (-cy, -sy * sx, -sy * cx)
    if m == 0 and l == 2:
        cy = cos(q[iq + 1])
        cx, sx = cos(q[iq + 2]), sin(q[iq + 2])
        return (0.0, cy * cx, -cy * sx)
    if m == 1 and l == 2:
        cx, sx = cos(q[iq + 2]), sin(q[iq + 2])
        return (0.0, -sx, -cx)
    return (0.0, 0.0, 0.0)


@jit
def zyx_dc_dq(q, v, iq, iv, l):
    """d c_J / dq_l (angular part), l > 0 (zero for l = 0)."""
    cy, sy = cos(q[iq + 1]), sin(q[iq + 1])
    cx, sx = cos(q[iq + 2]), sin(q[iq + 2])
    dz, dy, dx = v[iv], v[iv + 1], v[iv + 2]
    if l == 1:
        return (dz * dy * sy, dz * (-dy * cy * sx - dx * sy * cx),
                dz * (-dy * cy * cx + dx * sy * sx))
    zy = dz * dy
    zx = dz * dx
    yx = dy * dx
    return (0.0, -zy * sy * cx - zx * cy * sx - yx * cx, zy * sy * sx - zx * cy * cx + yx * sx)
