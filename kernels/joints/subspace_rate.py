"""The time derivative of one column of a joint's motion subspace, dS_k/dt (LOCAL).

jcalc gives only the sum c_J = sum_k (dS_k/dt) qdot_k; Jacobian time variations, dAg/dt and the
Coriolis matrix need each column. Only two joint types have a configuration-dependent S:
  spherical ZYX (q = [z, y, x]): angular columns s0 = (-sy, cy sx, cy cx), s1 = (0, cx, -sx),
      s2 = (1, 0, 0), so ds0 = (-cy dy, -sy sx dy + cy cx dx, -sy cx dy - cy sx dx),
      ds1 = (0, -sx dx, -cx dx), ds2 = 0;
  universal: s0 = R2^T a1, ds0 = -t2dot a2 x s0 (kernels/joints/universal.py), ds1 = 0.
Every other type has a constant S in its own frame (Pinocchio documentation, "SE(3) operations"
cheat sheet, "Joint": j.c = 0).
"""

from math import cos, sin

from .._jit import jit
from ..layout import P_AXIS2, S
from .codes import SPHERICAL_ZYX, UNIVERSAL


@jit
def column(jr, pr, q, v, w, k):
    """dS_k/dt of joint row jr (parameters pr) at (q, v) (full vectors), as a 6-tuple [v; w];
    w is the joint's workspace row after jcalc (its S is read, not recomputed)."""
    t = jr.type
    iq = jr.idx_q
    iv = jr.idx_v
    if t == SPHERICAL_ZYX and k < 2:
        cy, sy = cos(q[iq + 1]), sin(q[iq + 1])
        cx, sx = cos(q[iq + 2]), sin(q[iq + 2])
        dy, dx = v[iv + 1], v[iv + 2]
        if k == 0:
            return (0.0, 0.0, 0.0, -cy * dy, -sy * sx * dy + cy * cx * dx,
                    -sy * cx * dy - cy * sx * dx)
        return (0.0, 0.0, 0.0, 0.0, -sx * dx, -cx * dx)
    if t == UNIVERSAL and k == 0:
        b = pr[P_AXIS2:P_AXIS2 + 3]
        ex, ey, ez = w[S + 3], w[S + 4], w[S + 5]  # s0 = R2^T a1, written by jcalc
        d2 = -v[iv + 1]
        return (0.0, 0.0, 0.0, d2 * (b[1] * ez - b[2] * ey), d2 * (b[2] * ex - b[0] * ez),
                d2 * (b[0] * ey - b[1] * ex))
    return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
