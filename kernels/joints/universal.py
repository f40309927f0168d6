"""Universal joint: q = [t1, t2], R = exp(t1 [a1]x) exp(t2 [a2]x), two unit axes a1, a2.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint".
Body angular velocity w = R2^T a1 t1dot + a2 t2dot, so
S = [0 0; R2^T a1, a2] and, since d(R2^T a1)/dt = -t2dot a2 x (R2^T a1),
c_J = [0; -t1dot t2dot a2 x (R2^T a1)].
"""

from math import cos, sin

from .._jit import jit
from ..layout import CJ, P_AXIS, P_AXIS2, S, VJ
from .common import VECTOR, JointType, axis_rotation, set_placement, set_subspace_column

UNIVERSAL = 19  # q = [t1, t2], R = R(axis, t1) R(axis2, t2)
CONTRACT = (JointType(UNIVERSAL, "universal", 2, 2, VECTOR, True, True, reads_axis=True),)


@jit
def calc(jr, pr, q, v, w):
    """Code UNIVERSAL (19)."""
    iq = jr.idx_q
    a = pr[P_AXIS:P_AXIS + 3]
    b = pr[P_AXIS2:P_AXIS2 + 3]
    r1 = axis_rotation(a[0], a[1], a[2], cos(q[iq]), sin(q[iq]))
    r2 = axis_rotation(b[0], b[1], b[2], cos(q[iq + 1]), sin(q[iq + 1]))
    m = (r1[0] * r2[0] + r1[1] * r2[3] + r1[2] * r2[6],
         r1[0] * r2[1] + r1[1] * r2[4] + r1[2] * r2[7],
         r1[0] * r2[2] + r1[1] * r2[5] + r1[2] * r2[8],
         r1[3] * r2[0] + r1[4] * r2[3] + r1[5] * r2[6],
         r1[3] * r2[1] + r1[4] * r2[4] + r1[5] * r2[7],
         r1[3] * r2[2] + r1[4] * r2[5] + r1[5] * r2[8],
         r1[6] * r2[0] + r1[7] * r2[3] + r1[8] * r2[6],
         r1[6] * r2[1] + r1[7] * r2[4] + r1[8] * r2[7],
         r1[6] * r2[2] + r1[7] * r2[5] + r1[8] * r2[8])
    set_placement(pr, w, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], 0.0, 0.0, 0.0)
    # e = R2^T a1
    ex = r2[0] * a[0] + r2[3] * a[1] + r2[6] * a[2]
    ey = r2[1] * a[0] + r2[4] * a[1] + r2[7] * a[2]
    ez = r2[2] * a[0] + r2[5] * a[1] + r2[8] * a[2]
    set_subspace_column(w, 0, 0.0, 0.0, 0.0, ex, ey, ez)
    set_subspace_column(w, 1, 0.0, 0.0, 0.0, b[0], b[1], b[2])
    if v.shape[0] > 0:
        d1 = v[jr.idx_v]
        d2 = v[jr.idx_v + 1]
        for k in range(3):
            w[VJ + k] = 0.0
            w[CJ + k] = 0.0
        w[VJ + 3] = ex * d1 + b[0] * d2
        w[VJ + 4] = ey * d1 + b[1] * d2
        w[VJ + 5] = ez * d1 + b[2] * d2
        k12 = -d1 * d2
        w[CJ + 3] = k12 * (b[1] * ez - b[2] * ey)
        w[CJ + 4] = k12 * (b[2] * ex - b[0] * ez)
        w[CJ + 5] = k12 * (b[0] * ey - b[1] * ex)


# --- S moves with q (CONTRACT's s_moves): dS/dt column by column (kernels/joints/
# subspace_rate.py) and the partials of S and c_J (kernels/joints/subspace_partials.py) come
# from here. Only s0 = e = R2^T a1 moves, with t2: ds0/dt2 = -a2 x e. w is the joint's
# workspace row after calc (e is read from its S, not recomputed).

@jit
def rate_column0(pr, v, iv, w):
    """dS_0/dt = -t2dot a2 x e, as a 6-tuple."""
    b = pr[P_AXIS2:P_AXIS2 + 3]
    ex, ey, ez = w[S + 3], w[S + 4], w[S + 5]
    d2 = -v[iv + 1]
    return (0.0, 0.0, 0.0, d2 * (b[1] * ez - b[2] * ey), d2 * (b[2] * ex - b[0] * ez),
            d2 * (b[0] * ey - b[1] * ex))


@jit
def ds0_dt2(pr, w):
    """dS_0/dq_1 = -a2 x e (angular part)."""
    b = pr[P_AXIS2:P_AXIS2 + 3]
    ex, ey, ez = w[S + 3], w[S + 4], w[S + 5]
    return (-(b[1] * ez - b[2] * ey), -(b[2] * ex - b[0] * ez), -(b[0] * ey - b[1] * ex))


@jit
def dc_dt2(pr, v, iv, w):
    """d c_J / dq_1 = t1dot t2dot a2 x (a2 x e) (angular part)."""
    b = pr[P_AXIS2:P_AXIS2 + 3]
    ex, ey, ez = w[S + 3], w[S + 4], w[S + 5]
    cx = b[1] * ez - b[2] * ey  # a2 x e
    cy = b[2] * ex - b[0] * ez
    cz = b[0] * ey - b[1] * ex
    k = v[iv] * v[iv + 1]
    return (k * (b[1] * cz - b[2] * cy), k * (b[2] * cx - b[0] * cz), k * (b[0] * cy - b[1] * cx))
