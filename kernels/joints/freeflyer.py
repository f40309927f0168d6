"""Free-flyer (q = [x, y, z, qx, qy, qz, qw], v = body-fixed [v; w]) and translation (q = p).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint"; Traversaro & Saccon,
"Multibody dynamics notation (version 2)", Technische Universiteit Eindhoven, 2019, sec. 9
(body-fixed base velocity); Bloesch et al., "Kinematics and dynamics for robotics: Kindr cheat
sheet", ETH Zurich, "Rotation Quaternion".
Free-flyer: M_J = (R(quat), p), S = I6, v_J = v, c_J = 0.
Translation: M_J = (I, q), S = [I3; 0], v_J = [qdot; 0], c_J = 0.
"""

from .._jit import jit
from ..layout import S, VJ
from .common import (SE3, VECTOR, JointType, clear_bias, placement0, quat_matrix, set_placement,
                     set_subspace_column, symbolic_quat_matrix, unit_columns)

FREEFLYER = 15  # q = [x, y, z, qx, qy, qz, qw], v = body-fixed [v; w]
TRANSLATION = 17  # q = [x, y, z]
CONTRACT = (JointType(FREEFLYER, "freeflyer", 7, 6, SE3, False, False, generated=True),
            JointType(TRANSLATION, "translation", 3, 3, VECTOR, False, False, generated=True))


@jit
def calc(jr, pr, q, v, w):
    """Codes FREEFLYER (15) and TRANSLATION (17)."""
    iq = jr.idx_q
    if jr.type == FREEFLYER:
        r = quat_matrix(q[iq + 3], q[iq + 4], q[iq + 5], q[iq + 6])
        n = 6
    else:
        r = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
        n = 3
    set_placement(pr, w, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8],
                  q[iq], q[iq + 1], q[iq + 2])
    for k in range(n):
        set_subspace_column(w, k, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        w[S + 7 * k] = 1.0  # row k of column k
    if v.shape[0] > 0:
        iv = jr.idx_v
        for k in range(6):
            w[VJ + k] = v[iv + k] if k < n else 0.0
        clear_bias(w)


def symbolic_placement(T, jr, qn):
    """For fastdyn.codegen (common.py says how): (R0 R(quat), p0 + R0 q[:3]); translation:
    (R0, p0 + R0 q)."""
    R0, p0 = placement0(jr)
    iq = int(jr["idx_q"])
    p = T.add(p0, T.matvec(R0, qn[iq:iq + 3]))
    if int(jr["type"]) == TRANSLATION:
        return R0, p
    return T.matmul(R0, symbolic_quat_matrix(T, *qn[iq + 3:iq + 7])), p


def symbolic_subspace(jr):
    return unit_columns()[:3] if int(jr["type"]) == TRANSLATION else unit_columns()
