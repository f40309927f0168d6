"""Articulated-body algorithm: forward dynamics qddot = M^-1 (tau - C v - g + J^T f_ext).

Source: Featherstone, "Rigid Body Dynamics Algorithms", Springer 2008, Table 7.1 (the
articulated-body algorithm); Pinocchio documentation, "SE(3) operations" cheat sheet, "Motion
Application" and "Force Application", for the frame changes. Every spatial quantity is expressed
in the WORLD frame (Traversaro & Saccon, "Multibody dynamics notation (version 2)", 2019, sec.
5.1: ^A X_B maps a motion given in B to A), as Pinocchio's Convention::WORLD does: then a child's
articulated inertia adds to its parent's as it is, with no 6x6 congruence per joint (that
transform was ~40% of the LOCAL version's flops). With S_i = ^0X_i S_i^local,
v_J = S_i qdot_i, and a_0 = -g:
  pass 1: v_i = v_l(i) + v_J;  c_i = v_i x v_J + ^0X_i c_J;
          IA_i = ^0Y_i;  pA_i = v_i x* (IA_i v_i) - ^0X_i^-* f_ext,i
  pass 2 (leaves to root): U_i = IA_i S_i;  D_i = S_i^T U_i + diag(armature_i);
          u_i = tau_i - S_i^T pA_i;  Ia = IA_i - U_i D_i^-1 U_i^T;
          pa = pA_i + Ia c_i + U_i D_i^-1 u_i;  IA_l(i) += Ia;  pA_l(i) += pa
  pass 3: a'_i = a_l(i) + c_i;  qddot_i = D_i^-1 (u_i - U_i^T a'_i);  a_i = a'_i + S_i qddot_i
(c_i: for a body-fixed S, d/dt (^0X_i S) = v_i x ^0X_i S; joints whose S depends on q add
their own c_J.) "World" is the world's axes at the first joint's origin (world_origin.py), so
a robot far from the origin keeps its precision. Fills oMi on the way. Returns the index of the first joint whose D_i is not
positive definite (a massless subtree on a moving joint makes M singular), or -1.
``aba_inertias`` takes the bodies' inertias from pi (njoints - 1, 10), body i in row i - 1, as
rnea_inertias.
"""

from .._jit import jit
from ..joints.codes import S_MOVES
from ..joints.jcalc import jcalc
from ..layout import (C, CJ, DI, IA, LI, OAG, OJ, OM, OV, P_ARMATURE, P_GRAVITY, P_PI, PA, S,
                      TMP, U, UU)
from ..spatial import force, inertia, matrix6, motion, se3
from ..linalg.dense import invert_spd
from .world_origin import restore_origin, shift_origin


@jit
def aba(jnt, prm, q, v, tau, fext, ws, ddq):
    """ddq (nv,) <- M(q)^-1 (tau - C(q, v) v - g(q) + J^T f_ext) (the recursion above).
    Returns -1, or the first joint whose articulated inertia is not positive definite (ddq is
    then not written in full)."""
    return _aba(jnt, prm, prm, 0, P_PI, q, v, tau, fext, ws, ddq)


@jit
def aba_inertias(jnt, prm, pi, q, v, tau, fext, ws, ddq):
    """aba with body i's 10 inertial parameters taken from pi[i - 1] instead of prm."""
    return _aba(jnt, prm, pi, 1, 0, q, v, tau, fext, ws, ddq)


@jit
def _aba(jnt, prm, Y, y0, yc, q, v, tau, fext, ws, ddq):
    """Body i's inertia is Y[i - y0, yc:yc + 10]."""
    n = jnt.shape[0]
    has_f = fext.shape[0] > 0
    for k in range(6):
        ws[0, OV + k] = 0.0
    rx, ry, rz = shift_origin(jnt, prm, q, v, ws)
    for i in range(1, n):
        w = ws[i]
        jr = jnt[i]
        wp = ws[jr.parent]
        jcalc(jnt, prm, i, q, v, w)
        se3.compose(wp, OM, w, LI, w, OM)
        iv = jr.idx_v
        for k in range(6):
            w[TMP + k] = 0.0  # v_J in the world: sum of S_i columns times qdot
        for d in range(jr.nv):
            s = motion.act(w, OM, w, S + 6 * d)
            for k in range(6):
                w[OJ + 6 * d + k] = s[k]
                w[TMP + k] += s[k] * v[iv + d]
        for k in range(6):
            w[OV + k] = wp[OV + k] + w[TMP + k]
        vxvj = motion.cross(w, OV, w, TMP)
        for k in range(6):
            w[C + k] = vxvj[k]
        if S_MOVES[jr.type]:  # dS/dt: the joint's own c_J, in the world
            cj = motion.act(w, OM, w, CJ)
            for k in range(6):
                w[C + k] += cj[k]
        inertia.act(w, OM, Y[i - y0], yc, w, TMP)  # body inertia in the world, 10 parameters
        matrix6.from_inertia(w, TMP, w, IA)
        b = inertia.bias_force(w, TMP, w, OV)
        if has_f:
            fo = force.act(w, OM, fext[i], 0)
            for k in range(6):
                w[PA + k] = b[k] - fo[k]
        else:
            for k in range(6):
                w[PA + k] = b[k]
    bad = -1
    for i in range(n - 1, 0, -1):
        w = ws[i]
        if jnt[i].nv == 1:
            ok = _backward_1(jnt[i], prm[i], tau, w, ws[jnt[i].parent])
        else:
            ok = _backward_n(jnt[i], prm[i], tau, w, ws[jnt[i].parent])
        if not ok and bad < 0:
            bad = i
    g = prm[0]
    motion.put6(ws[0], OAG, (-g[P_GRAVITY], -g[P_GRAVITY + 1], -g[P_GRAVITY + 2], 0.0, 0.0, 0.0))
    for i in range(1, n):
        w = ws[i]
        jr = jnt[i]
        nvi = jr.nv
        iv = jr.idx_v
        wp = ws[jr.parent]
        for k in range(6):
            w[OAG + k] = wp[OAG + k] + w[C + k]
        if nvi == 1:  # the common case, without the nv x nv loops
            acc = w[UU]
            for k in range(6):
                acc -= w[U + k] * w[OAG + k]
            qdd = w[DI] * acc
            ddq[iv] = qdd
            for k in range(6):
                w[OAG + k] += w[OJ + k] * qdd
            continue
        for r in range(nvi):
            acc = w[UU + r]
            for k in range(6):
                acc -= w[U + 6 * r + k] * w[OAG + k]
            w[TMP + r] = acc
        for r in range(nvi):
            acc = 0.0
            for d in range(nvi):
                acc += w[DI + nvi * r + d] * w[TMP + d]
            ddq[iv + r] = acc
        for d in range(nvi):
            for k in range(6):
                w[OAG + k] += w[OJ + 6 * d + k] * ddq[iv + d]
    restore_origin(ws, rx, ry, rz)
    return bad


@jit(inline="always")
def _give_symmetric(w, wp, r, c, x):
    """Entry (r, c), r <= c, of the symmetric Ia: into both triangles of joint i's IA, and
    added to its parent's (the same frame, the world). Inlined at numba level: as a plain
    call it made ABA 5-10% slower (UR5 1053 vs 963 ns, Talos 6.2 vs 6.0 us); inlined, the
    same as the two loops that wrote it out."""
    w[IA + 6 * r + c] = x
    w[IA + 6 * c + r] = x
    wp[IA + 6 * r + c] += x
    if c != r:
        wp[IA + 6 * c + r] += x


@jit
def _backward_1(jr, pr, tau, w, wp):
    """Pass 2 for a one-dof joint: U = IA s, D = s.U + armature, u = tau - s.pA; the
    articulated inertia Ia = IA - U U^T / D and pa = pA + Ia c + U u / D go to the parent."""
    u = matrix6.mul_vec(w, IA, w, OJ)
    d = pr[P_ARMATURE]
    uu = tau[jr.idx_v]
    for k in range(6):
        w[U + k] = u[k]
        d += w[OJ + k] * u[k]
        uu -= w[OJ + k] * w[PA + k]
    w[UU] = uu
    if not d > 0.0:
        w[DI] = 0.0 / 0.0 if d == d else d
        return False
    dinv = 1.0 / d
    w[DI] = dinv
    if jr.parent == 0:
        return True
    for r in range(6):
        ur = u[r] * dinv
        for c in range(r, 6):
            _give_symmetric(w, wp, r, c, w[IA + 6 * r + c] - ur * u[c])
    pa = matrix6.mul_vec(w, IA, w, C)
    g = uu * dinv
    for k in range(6):
        wp[PA + k] += pa[k] + w[PA + k] + u[k] * g
    return True


@jit
def _backward_n(jr, pr, tau, w, wp):
    """Pass 2 for a joint with nv > 1 (see the module docstring)."""
    nvi = jr.nv
    iv = jr.idx_v
    for d in range(nvi):
        u = matrix6.mul_vec(w, IA, w, OJ + 6 * d)
        for k in range(6):
            w[U + 6 * d + k] = u[k]
    for r in range(nvi):  # D = S^T U (+ armature) into DI, then invert in place
        for d in range(nvi):
            acc = 0.0
            for k in range(6):
                acc += w[OJ + 6 * r + k] * w[U + 6 * d + k]
            w[DI + nvi * r + d] = acc
        w[DI + nvi * r + r] += pr[P_ARMATURE + r]
        acc = tau[iv + r]
        for k in range(6):
            acc -= w[OJ + 6 * r + k] * w[PA + k]
        w[UU + r] = acc
    if not invert_spd(w, DI, nvi, w, TMP):
        return False
    if jr.parent == 0:
        return True
    # UDinv = U D^-1 (6 x nv) into TMP; Ia = IA - UDinv U^T, pa = pA + Ia c + UDinv u,
    # both added straight into the parent (same frame: the world)
    for a in range(nvi):
        for k in range(6):
            acc = 0.0
            for b in range(nvi):
                acc += w[U + 6 * b + k] * w[DI + nvi * b + a]
            w[TMP + 6 * a + k] = acc
    for r in range(6):
        for c in range(r, 6):  # Ia is symmetric: one triangle, mirrored
            acc = w[IA + 6 * r + c]
            for a in range(nvi):
                acc -= w[TMP + 6 * a + r] * w[U + 6 * a + c]
            _give_symmetric(w, wp, r, c, acc)
    pa = matrix6.mul_vec(w, IA, w, C)
    for k in range(6):
        acc = pa[k] + w[PA + k]
        for a in range(nvi):
            acc += w[TMP + 6 * a + k] * w[UU + a]
        wp[PA + k] += acc
    return True
