"""Prismatic joints along a unit axis u (q = [d]) and the helical joint (q = [t], pitch h).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint".
Prismatic: M_J = (I, d u), S = [u; 0].
Helical: M_J = (exp(t [u]x), h t u), S = [h u; u] (Pinocchio's HelicalUnaligned).
Both have a constant S, so c_J = 0.
"""

from math import cos, sin

from .._jit import jit
from ..layout import P_AXIS, P_PITCH, VJ
from .common import (VECTOR, JointType, axis_rotation, clear_bias, placement0, set_placement,
                     set_subspace_column)

PRISMATIC_X, PRISMATIC_Y, PRISMATIC_Z, PRISMATIC = 9, 10, 11, 12  # q = [d]
HELICAL = 18  # q = [t], translation pitch * t along the axis
CONTRACT = tuple(
    JointType(code, name, 1, 1, VECTOR, False, False, fixed_axis=k if k < 3 else -1,
              reads_axis=k == 3, generated=True)
    for k, code, name in zip(range(4), (PRISMATIC_X, PRISMATIC_Y, PRISMATIC_Z, PRISMATIC),
                             ("prismatic_x", "prismatic_y", "prismatic_z", "prismatic"))
) + (JointType(HELICAL, "helical", 1, 1, VECTOR, False, False, reads_axis=True),)


@jit
def calc(jr, pr, q, v, w):
    """Codes PRISMATIC_X..PRISMATIC (9-12) and HELICAL (18)."""
    u = pr[P_AXIS:P_AXIS + 3]
    x = q[jr.idx_q]
    if jr.type == HELICAL:
        h = pr[P_PITCH]
        r = axis_rotation(u[0], u[1], u[2], cos(x), sin(x))
        d = h * x
        set_placement(pr, w, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8],
                      d * u[0], d * u[1], d * u[2])
        set_subspace_column(w, 0, h * u[0], h * u[1], h * u[2], u[0], u[1], u[2])
    else:
        h = 1.0
        set_placement(pr, w, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0,
                      x * u[0], x * u[1], x * u[2])
        set_subspace_column(w, 0, u[0], u[1], u[2], 0.0, 0.0, 0.0)
    if v.shape[0] > 0:
        dx = v[jr.idx_v]
        ang = 0.0 if jr.type != HELICAL else dx
        w[VJ] = h * u[0] * dx
        w[VJ + 1] = h * u[1] * dx
        w[VJ + 2] = h * u[2] * dx
        w[VJ + 3] = u[0] * ang
        w[VJ + 4] = u[1] * ang
        w[VJ + 5] = u[2] * ang
        clear_bias(w)


def symbolic_placement(T, jr, qn):
    """For fastdyn.codegen (common.py says how): (R0, p0 + R0 d u); not helical."""
    R0, p0 = placement0(jr)
    d = T.scale(qn[int(jr["idx_q"])], [float(x) for x in jr["axis"]])
    return R0, T.add(p0, T.matvec(R0, d))


def symbolic_subspace(jr):
    return [[float(x) for x in jr["axis"]] + [0.0, 0.0, 0.0]]
