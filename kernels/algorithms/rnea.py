"""Recursive Newton-Euler: inverse dynamics tau = M(q) a + C(q, v) v + g(q) - J^T f_ext.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "RNEA" (Initialization,
Forward loop, Backward loop); Featherstone, "Rigid Body Dynamics Algorithms", Springer 2008,
Table 5.1. With ^0 a_0 = -g folded into the root (Pinocchio's a_gf):
  forward:  v_i = X_i^-1 v_l(i) + v_J
            a_i = X_i^-1 a_l(i) + S a_q + c_J + v_i x v_J
            f_i = Y_i a_i + v_i x* (Y_i v_i) - f_ext,i
  backward: tau_i = S_i^T f_i + armature_i a_q,   f_l(i) += X_i^* f_i
(the rotor-inertia term keeps RNEA the inverse of ABA with the armature on M's diagonal, as in
Pinocchio >= 3).
Parameters prm (njoints, NP) as in kernels/layout.py (gravity in the universe row).
``rnea_inertias`` reads the bodies' inertias from a separate pi (njoints - 1, 10), body i in
row i - 1 (fastdyn.sample_parameters' layout), and everything else from prm: a Monte Carlo
batch over inertias then streams 10 numbers a body instead of prm's NP.
External forces f_ext (njoints, 6) are spatial forces in the joint frames (LOCAL), as Pinocchio
takes them; an empty (0, 6) array means none.
"""

from .._jit import jit
from ..joints.jcalc import jcalc
from ..layout import AGF, CJ, F, LI, P_ARMATURE, P_GRAVITY, P_PI, S, V, VJ
from ..spatial import force, inertia, motion


@jit
def rnea(jnt, prm, q, v, a, fext, ws, tau):
    """tau (nv,) <- M(q) a + C(q, v) v + g(q) - J^T f_ext (the recursion above); ws is a
    workspace (Data.ws or kernels.workspace), which it leaves holding each joint's placement,
    velocity and acceleration."""
    _rnea(jnt, prm, prm, 0, P_PI, q, v, a, fext, ws, tau, True)


@jit
def rnea_calculated(jnt, prm, q, v, a, fext, ws, tau):
    """rnea on a workspace that already holds every joint's calculation at (q, v) (liMi, S,
    v_J, c_J: jcalc's, e.g. left by crba.crba_rnea): the same numbers without making them
    again."""
    _rnea(jnt, prm, prm, 0, P_PI, q, v, a, fext, ws, tau, False)


@jit
def rnea_inertias(jnt, prm, pi, q, v, a, fext, ws, tau):
    """rnea with body i's 10 inertial parameters taken from pi[i - 1] instead of prm."""
    _rnea(jnt, prm, pi, 1, 0, q, v, a, fext, ws, tau, True)


@jit
def _rnea(jnt, prm, Y, y0, yc, q, v, a, fext, ws, tau, calc):
    """Body i's inertia is Y[i - y0, yc:yc + 10]; joint calculations made when ``calc``."""
    n = jnt.shape[0]
    for k in range(6):
        ws[0, V + k] = 0.0
    g = prm[0]
    motion.put6(ws[0], AGF, (-g[P_GRAVITY], -g[P_GRAVITY + 1], -g[P_GRAVITY + 2], 0.0, 0.0, 0.0))
    has_f = fext.shape[0] > 0
    for i in range(1, n):
        w = ws[i]
        jr = jnt[i]
        par = jr.parent
        wp = ws[par]
        if calc:
            jcalc(jnt, prm, i, q, v, w)
        vp = motion.act_inv(w, LI, wp, V)
        for k in range(6):
            w[V + k] = vp[k] + w[VJ + k]
        ap = motion.act_inv(w, LI, wp, AGF)
        vxvj = motion.cross(w, V, w, VJ)
        iv = jr.idx_v
        for k in range(6):
            acc = ap[k] + w[CJ + k] + vxvj[k]
            for d in range(jr.nv):
                acc += w[S + 6 * d + k] * a[iv + d]
            w[AGF + k] = acc
        ya = inertia.apply(Y[i - y0], yc, w, AGF)
        b = inertia.bias_force(Y[i - y0], yc, w, V)
        for k in range(6):
            w[F + k] = ya[k] + b[k]
        if has_f:
            for k in range(6):
                w[F + k] -= fext[i, k]
    for i in range(n - 1, 0, -1):
        w = ws[i]
        jr = jnt[i]
        iv = jr.idx_v
        for d in range(jr.nv):
            acc = 0.0
            for k in range(6):
                acc += w[S + 6 * d + k] * w[F + k]
            tau[iv + d] = acc + prm[i, P_ARMATURE + d] * a[iv + d]
        par = jr.parent
        if par > 0:
            fp = force.act(w, LI, w, F)
            for k in range(6):
                ws[par, F + k] += fp[k]
