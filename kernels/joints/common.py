"""What every joint writes: liMi = (placement in the parent) * M_J(q), S, v_J = S v, c_J.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint" and "RNEA / Forward
loop": ^{lambda(i)}M_i = j.M_0 j.M(q); j.nu = ^i S(q) v_q; j.c = sum_k dS/dq_k qdot_k (zero for
constant-S joints). Angle-axis rotations: Bloesch et al., "Kinematics and dynamics for robotics:
Kindr cheat sheet", ETH Zurich.
"""

from typing import NamedTuple

from .._jit import jit
from ..layout import CJ, LI, P_P, P_R, S, VJ

# The Lie group of a joint's configuration space (kernels/configuration/dispatch.py).
VECTOR, SO2, SO3, SE2, SE3 = 0, 1, 2, 3, 4


class JointType(NamedTuple):
    """One joint type's contract, declared in its family's file (kernels/joints/<family>.py);
    kernels/joints/codes.py collects them into the tables every check, dispatcher and
    generator reads."""
    code: int  # the type code stored in jnt["type"]
    name: str
    nq: int  # configuration coordinates
    nv: int  # degrees of freedom
    group: int  # Lie group of its q: VECTOR, SO2, SO3, SE2 or SE3
    s_moves: bool  # S depends on q, so dS/dt adds to the bias acceleration
    periodic: bool  # every coordinate an angle of period 2 pi
    fixed_axis: int = -1  # axis-aligned type: 0, 1, 2 for x, y, z (its kernels never read it)
    reads_axis: bool = False  # its kernels read the parameter row's unit axis
    generated: bool = False  # fastdyn.codegen writes it out (the family's symbolic_* rules)


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


# --- What fastdyn.codegen needs of a joint: its placement and subspace written over the
# tracer's symbolic values (fastdyn/codegen/tracer.py: a value is a float constant of the model
# or the name of a local of the generated function). Plain Python, run at generation time.
# Each family's ``symbolic_placement(T, jr, qn)`` returns liMi = (R, p) = M_0 M_J(q) and
# ``symbolic_subspace(jr)`` the constant columns of S (6-lists, linear first); ``jr`` is the
# joint's named record (fastdyn.model.joint_records), ``qn`` names q's entries.

def placement0(jr):
    """(R0, p0), the joint's placement in its parent at q = 0, as constants."""
    return ([[float(jr["R"][r, c]) for c in range(3)] for r in range(3)],
            [float(x) for x in jr["p"]])


def unit_columns():
    """The six unit 6-vectors (columns of I6)."""
    return [[1.0 if r == c else 0.0 for r in range(6)] for c in range(6)]


def symbolic_rotation(T, u, c, s):
    """exp(t [u]x) from c = cos t, s = sin t (Rodrigues, as axis_rotation; written out when
    u = +-e_k exactly, so the zeros and ones fold away)."""
    nz = [k for k in range(3) if u[k] != 0.0]
    if len(nz) == 1 and abs(u[nz[0]]) == 1.0:
        k, sign = nz[0], float(u[nz[0]])
        sn = s if sign > 0 else T.sop([(-1.0, s)])
        ms = T.sop([(-1.0, sn)])
        if k == 0:
            return [[1.0, 0.0, 0.0], [0.0, c, ms], [0.0, sn, c]]
        if k == 1:
            return [[c, 0.0, sn], [0.0, 1.0, 0.0], [ms, 0.0, c]]
        return [[c, ms, 0.0], [sn, c, 0.0], [0.0, 0.0, 1.0]]
    ux, uy, uz = (float(x) for x in u)
    t = T.sop([(-1.0, c)], 1.0)
    return [[T.sop([(1.0, c), (ux * ux, t)]), T.sop([(ux * uy, t), (-uz, s)]),
             T.sop([(ux * uz, t), (uy, s)])],
            [T.sop([(ux * uy, t), (uz, s)]), T.sop([(1.0, c), (uy * uy, t)]),
             T.sop([(uy * uz, t), (-ux, s)])],
            [T.sop([(ux * uz, t), (-uy, s)]), T.sop([(uy * uz, t), (ux, s)]),
             T.sop([(1.0, c), (uz * uz, t)])]]


def symbolic_quat_matrix(T, x, y, z, w):
    """The rotation matrix of the quaternion (x, y, z, w), as quat_matrix."""
    tx, ty, tz = T.sop([(2.0, x)]), T.sop([(2.0, y)]), T.sop([(2.0, z)])
    twx, twy, twz = T.sop([(1.0, tx, w)]), T.sop([(1.0, ty, w)]), T.sop([(1.0, tz, w)])
    txx, txy, txz = T.sop([(1.0, tx, x)]), T.sop([(1.0, ty, x)]), T.sop([(1.0, tz, x)])
    tyy, tyz, tzz = T.sop([(1.0, ty, y)]), T.sop([(1.0, tz, y)]), T.sop([(1.0, tz, z)])

    def one_minus(a, b):
        return T.sop([(-1.0, T.sop([(1.0, a), (1.0, b)]))], 1.0)
    return [[one_minus(tyy, tzz), T.sop([(1.0, txy), (-1.0, twz)]),
             T.sop([(1.0, txz), (1.0, twy)])],
            [T.sop([(1.0, txy), (1.0, twz)]), one_minus(txx, tzz),
             T.sop([(1.0, tyz), (-1.0, twx)])],
            [T.sop([(1.0, txz), (-1.0, twy)]), T.sop([(1.0, tyz), (1.0, twx)]),
             one_minus(txx, tyy)]]
