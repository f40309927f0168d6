"""The time derivative of one column of a joint's motion subspace, dS_k/dt (LOCAL).

jcalc gives only the sum c_J = sum_k (dS_k/dt) qdot_k; Jacobian time variations, dAg/dt and the
Coriolis matrix need each column. Only two joint types have a configuration-dependent S:
  spherical ZYX (q = [z, y, x]): angular columns s0 = (-sy, cy sx, cy cx), s1 = (0, cx, -sx),
      s2 = (1, 0, 0), so ds0 = (-cy dy, -sy sx dy + cy cx dx, -sy cx dy - cy sx dx),
      ds1 = (0, -sx dx, -cx dx), ds2 = 0;
  universal: s0 = R2^T a1, ds0 = -t2dot a2 x s0 (kernels/joints/universal.py), ds1 = 0.
Every other type has a constant S in its own frame (Pinocchio documentation, "SE(3) operations"
cheat sheet, "Joint": j.c = 0). The arithmetic lives with each family (spherical.py,
universal.py; their CONTRACT says s_moves); this dispatches.
"""

from .._jit import jit
from . import spherical, universal
from .codes import SPHERICAL_ZYX, UNIVERSAL


@jit
def column(jr, pr, q, v, w, k):
    """dS_k/dt of joint row jr (parameters pr) at (q, v) (full vectors), as a 6-tuple [v; w];
    w is the joint's workspace row after jcalc (its S is read, not recomputed)."""
    t = jr.type
    if t == SPHERICAL_ZYX and k < 2:
        return spherical.zyx_rate_column(q, v, jr.idx_q, jr.idx_v, k)
    if t == UNIVERSAL and k == 0:
        return universal.rate_column0(pr, v, jr.idx_v, w)
    return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
