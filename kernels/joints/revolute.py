"""Revolute joints about a unit axis u: bounded (q = [t]) and continuous (q = [cos t, sin t]).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint"; Bloesch et al.,
"Kinematics and dynamics for robotics: Kindr cheat sheet", ETH Zurich, angle-axis.
M_J = (exp(t [u]x), 0), S = [0; u] (constant, so c_J = 0), v_J = S tdot.  Pinocchio's
continuous joint reads (cos t, sin t) straight from q without normalising; so do we.
"""

from math import cos, sin

from .._jit import jit
from ..layout import CJ, LI, P_AXIS, P_P, P_R, S, VJ
from .common import (SO2, VECTOR, JointType, axis_rotation, clear_bias, placement0,
                     set_placement, set_subspace_column, symbolic_rotation)

REVOLUTE_X, REVOLUTE_Y, REVOLUTE_Z, REVOLUTE = 1, 2, 3, 4  # q = [t]
CONTINUOUS_X, CONTINUOUS_Y, CONTINUOUS_Z, CONTINUOUS = 5, 6, 7, 8  # q = [cos t, sin t]
CONTRACT = tuple(
    JointType(code, name, nq, 1, group, False, nq == 1, fixed_axis=k if k < 3 else -1,
              reads_axis=k == 3, generated=True)
    for codes, prefix, nq, group in (((REVOLUTE_X, REVOLUTE_Y, REVOLUTE_Z, REVOLUTE), "revolute",
                                      1, VECTOR),
                                     ((CONTINUOUS_X, CONTINUOUS_Y, CONTINUOUS_Z, CONTINUOUS),
                                      "continuous", 2, SO2))
    for k, code, name in zip(range(4), codes, (prefix + "_x", prefix + "_y", prefix + "_z", prefix)))


@jit
def calc(jr, pr, q, v, w):
    """Codes REVOLUTE_X..REVOLUTE (1-4) and CONTINUOUS_X..CONTINUOUS (5-8)."""
    t = jr.type
    iq = jr.idx_q
    if t <= REVOLUTE:
        c = cos(q[iq])
        s = sin(q[iq])
    else:
        c = q[iq]
        s = q[iq + 1]
    k = (t - 1) % 4  # 0, 1, 2: about X, Y, Z (rotation written out); 3: any axis
    u = pr[P_AXIS:P_AXIS + 3]
    if k == 0:
        set_placement(pr, w, 1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c, 0.0, 0.0, 0.0)
    elif k == 1:
        set_placement(pr, w, c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c, 0.0, 0.0, 0.0)
    elif k == 2:
        set_placement(pr, w, c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    else:
        r = axis_rotation(u[0], u[1], u[2], c, s)
        set_placement(pr, w, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], 0.0, 0.0, 0.0)
    set_subspace_column(w, 0, 0.0, 0.0, 0.0, u[0], u[1], u[2])
    if v.shape[0] > 0:
        d = v[jr.idx_v]
        w[VJ] = 0.0
        w[VJ + 1] = 0.0
        w[VJ + 2] = 0.0
        w[VJ + 3] = u[0] * d
        w[VJ + 4] = u[1] * d
        w[VJ + 5] = u[2] * d
        clear_bias(w)


@jit(inline="always")  # with jcalc: see its docstring
def calc_aligned(jr, pr, q, v, w):
    """REVOLUTE_X/Y/Z (codes 1-3), the most common joint, written out: liMi = R0 Rk(t) costs
    6 products instead of the general 27 (measured 2.5x on UR5 forward kinematics)."""
    t = q[jr.idx_q]
    c = cos(t)
    s = sin(t)
    k = jr.type - 1
    for r in range(3):
        a = pr[P_R + 3 * r]
        b = pr[P_R + 3 * r + 1]
        e = pr[P_R + 3 * r + 2]
        o = LI + 3 * r
        if k == 0:  # columns of R0 Rx(t): (a, b c + e s, -b s + e c)
            w[o] = a
            w[o + 1] = b * c + e * s
            w[o + 2] = e * c - b * s
        elif k == 1:  # R0 Ry(t): (a c - e s, b, a s + e c)
            w[o] = a * c - e * s
            w[o + 1] = b
            w[o + 2] = a * s + e * c
        else:  # R0 Rz(t): (a c + b s, b c - a s, e)
            w[o] = a * c + b * s
            w[o + 1] = b * c - a * s
            w[o + 2] = e
        w[LI + 9 + r] = pr[P_P + r]
    for d in range(6):
        w[S + d] = 0.0
    w[S + 3 + k] = 1.0
    if v.shape[0] > 0:
        for d in range(6):
            w[VJ + d] = 0.0
            w[CJ + d] = 0.0
        w[VJ + 3 + k] = v[jr.idx_v]


def symbolic_placement(T, jr, qn):
    """For fastdyn.codegen (common.py says how): M_0 exp(t [u]x)."""
    iq = int(jr["idx_q"])
    if int(jr["type"]) <= REVOLUTE:
        sc = T.assign(f"sincos({qn[iq]})", "sc")  # spatial/sincos.py: no library call
        s = T.assign(f"{sc}[0]", "s")
        c = T.assign(f"{sc}[1]", "c")
    else:
        c, s = qn[iq], qn[iq + 1]
    R0, p0 = placement0(jr)
    return T.matmul(R0, symbolic_rotation(T, jr["axis"], c, s)), p0


def symbolic_subspace(jr):
    return [[0.0, 0.0, 0.0] + [float(x) for x in jr["axis"]]]
