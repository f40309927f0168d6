"""Symbolic joints for generated code: liMi(q), S, v_J of the joint types generation supports.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint" (^{l(i)}M_i = j.M_0
j.M(q), v_J = S qdot, c_J = 0 for constant S); the Kindr cheat sheet (Bloesch et al., "Kinematics
and dynamics for robotics: Kindr cheat sheet", ETH Zurich), angle-axis (Rodrigues) and the
quaternion matrix (the same arithmetic as kernels/joints/common.quat_matrix). Supported: every
joint whose S is constant in its own frame (so c_J = 0): revolute (any fixed axis; bounded or
continuous), prismatic, spherical, planar, translation and free-flyer, which covers every joint
type a URDF can declare. Helical, universal and spherical-ZYX (S depends on q) are refused by
name, never approximated.
"""

from __future__ import annotations

from ..kernels.joints import codes
from .tracer import Tracer

SUPPORTED = ((codes.REVOLUTE_X, codes.REVOLUTE_Y, codes.REVOLUTE_Z, codes.REVOLUTE)
             + (codes.CONTINUOUS_X, codes.CONTINUOUS_Y, codes.CONTINUOUS_Z, codes.CONTINUOUS)
             + (codes.PRISMATIC_X, codes.PRISMATIC_Y, codes.PRISMATIC_Z, codes.PRISMATIC)
             + (codes.SPHERICAL, codes.PLANAR, codes.TRANSLATION, codes.FREEFLYER))


def kind(jtype: int) -> str:
    if codes.REVOLUTE_X <= jtype <= codes.CONTINUOUS:
        return "revolute"
    if codes.PRISMATIC_X <= jtype <= codes.PRISMATIC:
        return "prismatic"
    names = {codes.FREEFLYER: "freeflyer", codes.SPHERICAL: "spherical",
             codes.PLANAR: "planar", codes.TRANSLATION: "translation"}
    if jtype in names:
        return names[jtype]
    raise NotImplementedError(codes.NAMES[jtype])


def _aligned(u) -> tuple[int, float] | None:
    """(axis index, sign) when u is +-e_k exactly."""
    nz = [k for k in range(3) if u[k] != 0.0]
    if len(nz) == 1 and abs(u[nz[0]]) == 1.0:
        return nz[0], float(u[nz[0]])
    return None


def _rotation(T: Tracer, u, c, s):
    """exp(t [u]x) from c = cos t, s = sin t (Rodrigues; written out when u = +-e_k)."""
    al = _aligned(u)
    if al is not None:
        k, sign = al
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


def _quat_matrix(T: Tracer, x, y, z, w):
    tx, ty, tz = T.sop([(2.0, x)]), T.sop([(2.0, y)]), T.sop([(2.0, z)])
    twx, twy, twz = T.sop([(1.0, tx, w)]), T.sop([(1.0, ty, w)]), T.sop([(1.0, tz, w)])
    txx, txy, txz = T.sop([(1.0, tx, x)]), T.sop([(1.0, ty, x)]), T.sop([(1.0, tz, x)])
    tyy, tyz, tzz = T.sop([(1.0, ty, y)]), T.sop([(1.0, tz, y)]), T.sop([(1.0, tz, z)])
    one_minus = lambda a, b: T.sop([(-1.0, T.sop([(1.0, a), (1.0, b)]))], 1.0)  # noqa: E731
    return [[one_minus(tyy, tzz), T.sop([(1.0, txy), (-1.0, twz)]), T.sop([(1.0, txz), (1.0, twy)])],
            [T.sop([(1.0, txy), (1.0, twz)]), one_minus(txx, tzz), T.sop([(1.0, tyz), (-1.0, twx)])],
            [T.sop([(1.0, txz), (-1.0, twy)]), T.sop([(1.0, tyz), (1.0, twx)]), one_minus(txx, tyy)]]


def placement(T: Tracer, jr, qn: list[str]):
    """(R, p) of liMi = M_0 M_J(q); ``qn`` names q's entries."""
    R0 = [[float(jr["R"][r, c]) for c in range(3)] for r in range(3)]
    p0 = [float(x) for x in jr["p"]]
    k = kind(int(jr["type"]))
    iq = int(jr["idx_q"])
    if k == "revolute":
        if int(jr["type"]) <= codes.REVOLUTE:
            c = T.assign(f"cos({qn[iq]})", "c")
            s = T.assign(f"sin({qn[iq]})", "s")
        else:
            c, s = qn[iq], qn[iq + 1]
        return T.matmul(R0, _rotation(T, jr["axis"], c, s)), p0
    if k == "prismatic":
        d = T.scale(qn[iq], [float(x) for x in jr["axis"]])
        return R0, T.add(p0, T.matvec(R0, d))
    if k == "translation":
        return R0, T.add(p0, T.matvec(R0, qn[iq:iq + 3]))
    if k == "spherical":
        return T.matmul(R0, _quat_matrix(T, *qn[iq:iq + 4])), p0
    if k == "planar":  # M_J = (Rz(t), (x, y, 0)) with q = [x, y, cos t, sin t]
        c, s = qn[iq + 2], qn[iq + 3]
        Rz = [[c, T.sop([(-1.0, s)]), 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
        return T.matmul(R0, Rz), T.add(p0, T.matvec(R0, [qn[iq], qn[iq + 1], 0.0]))
    Rj = _quat_matrix(T, *qn[iq + 3:iq + 7])
    return T.matmul(R0, Rj), T.add(p0, T.matvec(R0, qn[iq:iq + 3]))


def subspace(jr) -> list[list[float]]:
    """The constant columns of S (6-vectors, linear first)."""
    k = kind(int(jr["type"]))
    u = [float(x) for x in jr["axis"]]
    if k == "revolute":
        return [[0.0, 0.0, 0.0] + u]
    if k == "prismatic":
        return [u + [0.0, 0.0, 0.0]]
    unit = [[1.0 if r == c else 0.0 for r in range(6)] for c in range(6)]
    if k == "spherical":
        return unit[3:]
    if k == "translation":
        return unit[:3]
    if k == "planar":  # body-frame [vx, vy, wz]
        return [unit[0], unit[1], unit[5]]
    return unit


def combine(T: Tracer, cols, coeffs):
    """sum_d S_d coeffs[d] as a 6-list (S constant, so this is mostly picking entries)."""
    return [T.sop([(col[r], x) for col, x in zip(cols, coeffs)]) for r in range(6)]
