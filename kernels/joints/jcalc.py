"""The one joint dispatcher: jcalc(jnt, prm, i, q, v, w) fills joint i's workspace row
w = ws[i], from its topology jnt[i] and parameters prm[i].

Writes liMi (w[LI:LI+12]), the motion subspace S (w[S + 6k : S + 6k + 6], k < nv) and, when
v is not empty, v_J = S v (w[VJ:VJ+6]) and c_J (w[CJ:CJ+6]). Featherstone's ``jcalc``
(Featherstone, "Rigid Body Dynamics Algorithms", Springer 2008); Pinocchio documentation,
"SE(3) operations" cheat sheet, "Joint", for what a joint provides.
"""

from .._jit import jit
from . import freeflyer, planar, prismatic, revolute, spherical, universal
from .codes import (CONTINUOUS, FREEFLYER, HELICAL, PLANAR, PRISMATIC, REVOLUTE_Z,
                    SPHERICAL_ZYX, TRANSLATION, UNIVERSAL)


@jit(inline="always")
def jcalc(jnt, prm, i, q, v, w):
    """Small on purpose, and inlined into the algorithms' joint loops with the common
    axis-aligned revolute joint's fast path; the rest is one call. Inlined by numba, not left
    to LLVM: since the kernels take prm beside jnt, LLVM stopped inlining it, which cost
    forward kinematics 35 % on UR5 (143 vs 220 ns) and the Jacobians 27 %, RNEA 9 %, CRBA 14 %
    (A/B of @njit loops, cold compile unchanged)."""
    jr = jnt[i]
    pr = prm[i]
    if 1 <= jr.type <= REVOLUTE_Z:
        revolute.calc_aligned(jr, pr, q, v, w)
    else:
        jcalc_general(jr, pr, q, v, w)


@jit
def jcalc_general(jr, pr, q, v, w):
    t = jr.type
    if t <= CONTINUOUS:
        revolute.calc(jr, pr, q, v, w)
    elif t <= PRISMATIC or t == HELICAL:
        prismatic.calc(jr, pr, q, v, w)
    elif t <= SPHERICAL_ZYX:
        spherical.calc(jr, pr, q, v, w)
    elif t == FREEFLYER or t == TRANSLATION:
        freeflyer.calc(jr, pr, q, v, w)
    elif t == PLANAR:
        planar.calc(jr, pr, q, v, w)
    elif t == UNIVERSAL:
        universal.calc(jr, pr, q, v, w)
