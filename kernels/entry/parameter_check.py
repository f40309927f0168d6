"""The parameter invariants every kernel relies on, tested in compiled code, robot by robot.

violation(jnt, prm, fixed_axis, uses_axis) returns -1 when the table ``prm`` (njoints, NP)
satisfies them for topology ``jnt``, else ``code * CODE + joint``: the first rule broken, in the
order below, at the first joint that breaks it (fastdyn/parameters.py words the message):
  1..9   the field F_FINITE[k] (R, p, axis, axis2, pitch, pi, armature, damping, friction) has a
         non-finite entry
  10..13 the limits L_FIELDS[k] (q_lower, q_upper, v_max, effort_max) hold NaN (+-inf means
         unbounded)
  14..16 armature, damping, friction < 0
  17     a negative mass (pi[0] < 0)
  18     R is not a rotation: |R R^T - I| > 1e-9 + 1e-5 I entry by entry (np.isclose's
         tolerances, which forgive parsed angles written to 6 decimals), or det R <= 0
  19     an axis-aligned joint's axis differs from the one its type fixes (its kernels never
         read it)
  20     the axis of a joint type that reads it is not a unit vector (|1 - |a|| > 1e-9)
  21     gravity (universe row) is not finite (joint 0)
  22     a gravity column of a moving joint's row is not zero
Rows are the moving joints 1..njoints-1 (the universe row holds only gravity). One linear pass
over the table: a batch of 10,000 UR5 robots is checked in well under the time of one RNEA per
robot (bench/test_montecarlo.py).

pi_violation(pi) applies the rules that concern a body's inertia alone (6: pi not finite, 17:
negative mass) to the inertias pi (njoints - 1, 10) of a batch over inertias (body i in row
i - 1), with the same codes.

physical_violation(pi) adds the rule a real rigid body meets, which the kernels do not need
but a robot drawn at random must (studies check their samples with it, first_unphysical):
  23     the pseudo-inertia [[S_o, h], [h^T, m]] is not positive semi-definite (S_o = tr(I_o) / 2
         1 - I_o the second moments about the origin, h = m c): with m > 0, the second moments
         about the com S_c = S_o - c h^T have a negative eigenvalue, i.e. the principal moments
         of I_c break I1 + I2 >= I3 (Wensing, Kim & Slotine 2017); with m = 0, h is not zero or
         S_o is not positive semi-definite. Tolerance: PHYSICAL_RTOL of tr(S_o).
"""

from math import isfinite

from numba import int64, prange

from .._jit import jit
from ..layout import (P_ARMATURE, P_AXIS, P_AXIS2, P_DAMPING, P_EFFORT_MAX, P_FRICTION, P_GRAVITY,
                      P_P, P_PI, P_PITCH, P_Q_LOWER, P_Q_UPPER, P_R, P_V_MAX)
from .batch import chunk

CODE = 1_000_000
# (first column, width) of the fields checked for finiteness and of the limits, in rule order
F_FINITE = ((P_R, 9), (P_P, 3), (P_AXIS, 3), (P_AXIS2, 3), (P_PITCH, 1), (P_PI, 10),
            (P_ARMATURE, 6), (P_DAMPING, 6), (P_FRICTION, 6))
L_FIELDS = ((P_Q_LOWER, 7), (P_Q_UPPER, 7), (P_V_MAX, 6), (P_EFFORT_MAX, 6))
NONNEG = ((P_ARMATURE, 6), (P_DAMPING, 6), (P_FRICTION, 6))
ROTATION_ATOL, ROTATION_RTOL = 1e-9, 1e-5  # rule 18's tolerances; builder.is_rotation's too
PI_NOT_FINITE = 6  # F_FINITE's (P_PI, 10), as a rule code
NEGATIVE_MASS, NOT_ROTATION, AXIS_CHANGED, AXIS_NOT_UNIT = 17, 18, 19, 20
GRAVITY_NOT_FINITE, GRAVITY_MISPLACED = 21, 22
NOT_PHYSICAL = 23
PHYSICAL_RTOL = 1e-9  # rule 23: eigenvalues of S_c down to -PHYSICAL_RTOL tr(S_o) pass


@jit
def _rotation(prm, i):
    for a in range(3):
        for b in range(a, 3):
            d = 0.0
            for k in range(3):
                d += prm[i, P_R + 3 * a + k] * prm[i, P_R + 3 * b + k]
            want = 1.0 if a == b else 0.0
            if abs(d - want) > ROTATION_ATOL + ROTATION_RTOL * want:
                return False
    r = prm[i]
    det = (r[P_R] * (r[P_R + 4] * r[P_R + 8] - r[P_R + 5] * r[P_R + 7])
           - r[P_R + 1] * (r[P_R + 3] * r[P_R + 8] - r[P_R + 5] * r[P_R + 6])
           + r[P_R + 2] * (r[P_R + 3] * r[P_R + 7] - r[P_R + 4] * r[P_R + 6]))
    return det > 0.0


@jit
def violation(jnt, prm, fixed_axis, uses_axis):
    """-1, or code * CODE + joint of the first broken rule (module docstring)."""
    nj = prm.shape[0]
    for rule in range(len(F_FINITE)):
        c0, w = F_FINITE[rule]
        for i in range(1, nj):
            for k in range(w):
                if not isfinite(prm[i, c0 + k]):
                    return (rule + 1) * CODE + i
    for rule in range(len(L_FIELDS)):
        c0, w = L_FIELDS[rule]
        for i in range(1, nj):
            for k in range(w):
                x = prm[i, c0 + k]
                if x != x:
                    return (10 + rule) * CODE + i
    for rule in range(len(NONNEG)):
        c0, w = NONNEG[rule]
        for i in range(1, nj):
            for k in range(w):
                if prm[i, c0 + k] < 0.0:
                    return (14 + rule) * CODE + i
    for i in range(1, nj):
        if prm[i, P_PI] < 0.0:
            return NEGATIVE_MASS * CODE + i
    for i in range(1, nj):
        if not _rotation(prm, i):
            return NOT_ROTATION * CODE + i
    for i in range(1, nj):
        if fixed_axis[i, 0] != 0.0 or fixed_axis[i, 1] != 0.0 or fixed_axis[i, 2] != 0.0:
            for k in range(3):
                if prm[i, P_AXIS + k] != fixed_axis[i, k]:
                    return AXIS_CHANGED * CODE + i
    for i in range(1, nj):
        if uses_axis[i]:
            a0, a1, a2 = prm[i, P_AXIS], prm[i, P_AXIS + 1], prm[i, P_AXIS + 2]
            if abs((a0 * a0 + a1 * a1 + a2 * a2) ** 0.5 - 1.0) > 1e-9:
                return AXIS_NOT_UNIT * CODE + i
    for k in range(3):
        if not isfinite(prm[0, P_GRAVITY + k]):
            return GRAVITY_NOT_FINITE * CODE
    for i in range(1, nj):
        for k in range(3):
            if prm[i, P_GRAVITY + k] != 0.0:
                return GRAVITY_MISPLACED * CODE + i
    return -1


@jit
def pi_violation(pi):
    """-1, or code * CODE + joint of the first broken inertia rule (module docstring)."""
    for i in range(pi.shape[0]):
        for k in range(10):
            if not isfinite(pi[i, k]):
                return PI_NOT_FINITE * CODE + i + 1
    for i in range(pi.shape[0]):
        if pi[i, 0] < 0.0:
            return NEGATIVE_MASS * CODE + i + 1
    return -1


@jit
def _physical(pi, i):
    """Rule 23 for body row i of pi, finite and of mass >= 0 (module docstring). The second
    moments are divided by their trace s = tr(S_o) first: a real body's are then within
    [-1, 1] (S_c is positive semi-definite with tr(S_c) <= s), so anything beyond 2 is refused
    before the minors, which then cannot overflow."""
    m, hx, hy, hz = pi[i, 0], pi[i, 1], pi[i, 2], pi[i, 3]
    xx, xy, yy, xz, yz, zz = pi[i, 4], pi[i, 5], pi[i, 6], pi[i, 7], pi[i, 8], pi[i, 9]
    s = 0.5 * xx + 0.5 * yy + 0.5 * zz  # tr(S_o) = tr(I_o) / 2 (halves first: no overflow)
    cx = cy = cz = 0.0
    if m > 0.0:
        cx, cy, cz = hx / m, hy / m, hz / m
    elif hx != 0.0 or hy != 0.0 or hz != 0.0:
        return False  # a first moment without mass
    # S_c = S_o - c h^T, S_o = s 1 - I_o (upper triangle; c h^T ordered to stay finite
    # wherever m c c^T is)
    a = s - xx - cx * hx
    b = s - yy - cy * hy
    d = s - zz - cz * hz
    e = -xy - cx * hy
    f = -xz - cx * hz
    g = -yz - cy * hz
    if not s > 0.0:  # a point mass at the origin, or nothing: every moment zero
        return s == 0.0 and a == 0.0 and b == 0.0 and d == 0.0 and e == 0.0 and f == 0.0 \
            and g == 0.0
    a, b, d, e, f, g = a / s, b / s, d / s, e / s, f / s, g / s
    if not (abs(a) <= 2.0 and abs(b) <= 2.0 and abs(d) <= 2.0 and abs(e) <= 2.0
            and abs(f) <= 2.0 and abs(g) <= 2.0):  # also NaN (inf - inf)
        return False
    a += PHYSICAL_RTOL
    b += PHYSICAL_RTOL
    d += PHYSICAL_RTOL
    # [[a, e, f], [e, b, g], [f, g, d]] is positive semi-definite iff its principal minors
    # are all >= 0
    if a < 0.0 or b < 0.0 or d < 0.0:
        return False
    if a * b - e * e < 0.0 or a * d - f * f < 0.0 or b * d - g * g < 0.0:
        return False
    return a * (b * d - g * g) - e * (e * d - g * f) + f * (e * g - b * f) >= 0.0


@jit
def physical_violation(pi):
    """-1, or code * CODE + joint of the first broken rule of pi_violation, then of rule 23."""
    code = pi_violation(pi)
    if code >= 0:
        return code
    for i in range(pi.shape[0]):
        if not _physical(pi, i):
            return NOT_PHYSICAL * CODE + i + 1
    return -1


@jit
def first_unphysical(PI):
    """(s, code): the first robot s of PI (n, njoints - 1, 10) whose inertias break a rule of
    physical_violation and its code, or (-1, -1). Serial: tens of ns a body."""
    for s in range(PI.shape[0]):
        code = physical_violation(PI[s])
        if code >= 0:
            return s, code
    return -1, -1


@jit
def check_chunk(t, nt, jnt, PRM, fixed_axis, uses_axis, bad):
    lo, hi = chunk(PRM.shape[0], nt, t)
    for s in range(lo, hi):
        bad[s] = violation(jnt, PRM[s], fixed_axis, uses_axis)


@jit(parallel=True)
def check_batch(jnt, PRM, fixed_axis, uses_axis, bad):
    """bad[s] = violation(jnt, PRM[s], ...) for every robot s, robots split across threads."""
    nt = min(PRM.shape[0], 64)  # chunks, shared out among however many threads run
    for t in prange(nt):
        check_chunk(int64(t), nt, jnt, PRM, fixed_axis, uses_axis, bad)
