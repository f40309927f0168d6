"""Planar joint: q = [x, y, cos t, sin t], v = body-frame [vx, vy, wz].

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint"; Pinocchio's
JointModelPlanar.  M_J = (Rz(t), (x, y, 0)), S = [e_x, e_y, e_wz] constant in the body frame,
so c_J = 0.
"""

from .._jit import jit
from ..layout import VJ
from .common import clear_bias, set_placement, set_subspace_column


@jit
def calc(jr, pr, q, v, w):
    """Code PLANAR (16)."""
    iq = jr.idx_q
    c = q[iq + 2]
    s = q[iq + 3]
    set_placement(pr, w, c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0, q[iq], q[iq + 1], 0.0)
    set_subspace_column(w, 0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    set_subspace_column(w, 1, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    set_subspace_column(w, 2, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    if v.shape[0] > 0:
        iv = jr.idx_v
        w[VJ] = v[iv]
        w[VJ + 1] = v[iv + 1]
        w[VJ + 2] = 0.0
        w[VJ + 3] = 0.0
        w[VJ + 4] = 0.0
        w[VJ + 5] = v[iv + 2]
        clear_bias(w)
