"""Planar joint: q = [x, y, cos t, sin t], v = body-frame [vx, vy, wz].

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint"; Pinocchio's
JointModelPlanar.  M_J = (Rz(t), (x, y, 0)), S = [e_x, e_y, e_wz] constant in the body frame,
so c_J = 0.
"""

from .._jit import jit
from ..layout import VJ
from .common import (SE2, JointType, clear_bias, placement0, set_placement, set_subspace_column,
                     unit_columns)

PLANAR = 16  # q = [x, y, cos t, sin t], v = body [vx, vy, wz]
CONTRACT = (JointType(PLANAR, "planar", 4, 3, SE2, False, False, generated=True),)


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


def symbolic_placement(T, jr, qn):
    """For fastdyn.codegen (common.py says how): M_J = (Rz(t), (x, y, 0))."""
    R0, p0 = placement0(jr)
    iq = int(jr["idx_q"])
    c, s = qn[iq + 2], qn[iq + 3]
    Rz = [[c, T.sop([(-1.0, s)]), 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
    return T.matmul(R0, Rz), T.add(p0, T.matvec(R0, [qn[iq], qn[iq + 1], 0.0]))


def symbolic_subspace(jr):
    """Body-frame [vx, vy, wz]."""
    e = unit_columns()
    return [e[0], e[1], e[5]]
