"""Analytical derivatives of inverse dynamics: dtau/dq, dtau/dv and dtau/da = M(q).

Sources: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms",
Robotics: Science and Systems 2018 (the world-frame chain rule through RNEA: dV/dq, dA/dq,
dA/dv and the variation of the composite inertias); Singh, Russell & Wensing, "Efficient
Analytical Derivatives of Rigid-Body Dynamics using Spatial Vector Algebra", IEEE RA-L 2022,
arXiv:2105.05102 (IDSVA, Algorithm 1: the backward pass computes, once per column of joint i,
the few 6-vectors that every ancestor pair then dots with, instead of 6 x nv blocks per
subtree). Derivatives with respect to q are along tangent vectors, q (+) dq = integrate(q, dq),
as Pinocchio's, so the matrices are interchangeable with pinocchio.computeRNEADerivatives'.

Every quantity is in the WORLD frame (its origin at the first joint, world_origin.py).
J_k = ^0X_i S_k is column k of joint i, lambda = parent(i), a_gf includes -gravity at the root,
Y_i the body inertia, h_i = Y_i v_i, f_i = Y_i a_i + v_i x* h_i - ^0X_i^-* fext_i.
Forward pass (Carpentier & Mansard sec. IV, as Pinocchio's ComputeRNEADerivativesForwardStep):
  v_i = v_lambda + sum J_k qdot_k;  a_i = a_lambda + v_lambda x v_i + sum J_k qddot_k + ^0X c_J
  dV/dq_k = v_lambda x J_k;  dA/dq_k = a_lambda x J_k + v_lambda x dV/dq_k;
  dA/dv_k = (v_i + v_lambda) x J_k
  dY_i = v_i x* Y_i - Y_i (v_i x) (10 parameters, inertia.variation)
Backward pass: composites over the subtree of i, Yc, dYc, hc = sum h, Fc = sum f; with
B u := dYc u + u x* hc (so B^T u = dYc u - u x* hc: dYc is symmetric, u -> u x* h skew),
for each column k of joint i (IDSVA's t-vectors):
  t1 = Yc J_k;  t2 = B^T J_k;  tq = Yc dA/dq_k + B dV/dq_k;  tv = Yc dA/dv_k + B J_k
  tau_k = J_k . Fc + armature_k qddot_k
  for j = i and every ancestor j of i, each column l of j:
      dtau_l/dq_k = J_l . (tq + [j != i] J_k x* Fc);  dtau_l/dv_k = J_l . tv;  M_lk = J_l . t1
      if j != i:  dtau_k/dq_l = t1 . dA/dq_l + t2 . dV/dq_l;  dtau_k/dv_l = t1 . dA/dv_l + t2 . J_l
      (and M_kl = M_lk); entries between dofs on different branches are zero.
Joints whose S depends on q (spherical ZYX, universal; joints/subspace_partials.py) add, with
W_k = ^0X (dS/dq_k qdot), X_k = ^0X (dS/dq_k qddot): W_k to dV/dq_k (then used as above),
v_i x W_k + X_k + ^0X dc_J/dq_k to dA/dq_k, ^0X dc_J/dqdot_k to dA/dv_k, and
(^0X dS_l/dq_k) . Fc to dtau_l/dq_k within the joint. Pinocchio 4.1 omits these terms; finite
differences decide there (tests/test_derivatives.py).
"""

from .._jit import jit
from ..joints.codes import S_MOVES
from ..joints.jcalc import jcalc
from ..joints.subspace_partials import dc_dq, ds_dq
from ..layout import (CJ, DADQ, DADV, DVDQ, LI, OAG, ODYC, OF, OH, OJ, OM, OV, OYC, P_ARMATURE,
                      P_GRAVITY, P_PI, S)
from ..spatial import force, inertia, motion, se3
from .world_origin import restore_origin, shift_origin


@jit
def _dot(x, i, t):
    """x[i:i+6] . t for a 6-tuple t."""
    return (x[i] * t[0] + x[i + 1] * t[1] + x[i + 2] * t[2] + x[i + 3] * t[3]
            + x[i + 4] * t[4] + x[i + 5] * t[5])


@jit
def _angular(w, x, y, z):
    """^0X_i [0; (x, y, z)]: a LOCAL purely angular motion in the world (oMi at w[OM:])."""
    rx, ry, rz = se3.rot(w, OM, x, y, z)
    p = motion.cross3(w[OM + 9], w[OM + 10], w[OM + 11], rx, ry, rz)
    return (p[0], p[1], p[2], rx, ry, rz)


@jit
def forward_pass(jnt, prm, q, v, a, fext, ws):
    """Placements, J, v, a_gf, h, f, the body inertias and their variations, and the columns
    dV/dq, dA/dq, dA/dv of every joint (module docstring), all in the world frame."""
    n = jnt.shape[0]
    g = prm[0]
    w0 = ws[0]
    for k in range(6):
        w0[OV + k] = 0.0
    motion.put6(w0, OAG, (-g[P_GRAVITY], -g[P_GRAVITY + 1], -g[P_GRAVITY + 2], 0.0, 0.0, 0.0))
    for i in range(1, n):
        w = ws[i]
        jr = jnt[i]
        wp = ws[jr.parent]
        jcalc(jnt, prm, i, q, v, w)
        se3.compose(wp, OM, w, LI, w, OM)
        iv = jr.idx_v
        nvi = jr.nv
        for k in range(6):
            w[OV + k] = wp[OV + k]
            w[OAG + k] = wp[OAG + k]
        for d in range(nvi):
            s = motion.act(w, OM, w, S + 6 * d)
            qd = v[iv + d]
            qdd = a[iv + d]
            for k in range(6):
                w[OJ + 6 * d + k] = s[k]
                w[OV + k] += s[k] * qd
                w[OAG + k] += s[k] * qdd
        vxv = motion.cross(wp, OV, w, OV)  # v_lambda x v_J = v_lambda x v_i
        for k in range(6):
            w[OAG + k] += vxv[k]
        if S_MOVES[jr.type]:
            cj = motion.act(w, OM, w, CJ)
            for k in range(6):
                w[OAG + k] += cj[k]
        joint_columns(jr, prm[i], i, q, v, a, fext, w, wp)


@jit
def joint_columns(jr, pr, i, q, v, a, fext, w, wp):
    """Joint i's inertia Y, dY, h, f and its columns dV/dq, dA/dq, dA/dv (module docstring),
    from its row w = ws[i] (oMi, J, v, a_gf already there) and its parent's row wp."""
    inertia.act(w, OM, pr, P_PI, w, OYC)
    inertia.variation(w, OYC, w, OV, w, ODYC)
    h = inertia.apply(w, OYC, w, OV)
    motion.put6(w, OH, h)
    ya = inertia.apply(w, OYC, w, OAG)
    vxh = motion.cross_force(w, OV, w, OH)
    for k in range(6):
        w[OF + k] = ya[k] + vxh[k]
    if fext.shape[0] > 0:
        fo = force.act(w, OM, fext[i], 0)
        for k in range(6):
            w[OF + k] -= fo[k]
    nvi = jr.nv
    for d in range(nvi):
        c = OJ + 6 * d
        dv = motion.cross(wp, OV, w, c)
        motion.put6(w, DVDQ + 6 * d, dv)
        vj = motion.cross(w, OV, w, c)
        for k in range(6):
            w[DADV + 6 * d + k] = vj[k] + dv[k]
    moving = S_MOVES[jr.type]
    if moving:
        moving_subspace(jr, pr, q, v, a, w)
    for d in range(nvi):
        aj = motion.cross(wp, OAG, w, OJ + 6 * d)
        vv = motion.cross(wp, OV, w, DVDQ + 6 * d)
        o = DADQ + 6 * d
        for k in range(6):
            w[o + k] = aj[k] + vv[k] + (w[o + k] if moving else 0.0)

@jit
def moving_subspace(jr, pr, q, v, a, w):
    """The extra terms of a joint whose S depends on q (module docstring): W_k into DVDQ,
    v_i x W_k + X_k + dc_J/dq_k into DADQ (which forward_pass completes), dc_J/dqdot_k into
    DADV."""
    nvi = jr.nv
    iv = jr.idx_v
    for l in range(nvi):
        wx = wy = wz = 0.0
        xx = xy = xz = 0.0
        cx = cy = cz = 0.0
        for m in range(nvi):
            ds = ds_dq(jr, pr, q, w, m, l)
            wx += ds[0] * v[iv + m]
            wy += ds[1] * v[iv + m]
            wz += ds[2] * v[iv + m]
            xx += ds[0] * a[iv + m]
            xy += ds[1] * a[iv + m]
            xz += ds[2] * a[iv + m]
            e = ds_dq(jr, pr, q, w, l, m)  # d c_J / d qdot_l = sum_m (dS_l/dq_m + dS_m/dq_l) qdot_m
            cx += (e[0] + ds[0]) * v[iv + m]
            cy += (e[1] + ds[1]) * v[iv + m]
            cz += (e[2] + ds[2]) * v[iv + m]
        W = _angular(w, wx, wy, wz)
        X = _angular(w, xx, xy, xz)
        dc = dc_dq(jr, pr, q, v, w, l)
        C = _angular(w, dc[0], dc[1], dc[2])
        Cv = _angular(w, cx, cy, cz)
        motion.put6(w, DADQ + 6 * l, W)
        vw = motion.cross(w, OV, w, DADQ + 6 * l)  # v_i x W_l
        for k in range(6):
            w[DVDQ + 6 * l + k] += W[k]
            w[DADQ + 6 * l + k] = vw[k] + X[k] + C[k]
            w[DADV + 6 * l + k] += Cv[k]


@jit
def backward_pass(jnt, prm, q, a, ws, tau, dtau_dq, dtau_dv, M):
    """Composite sums leaves to root and the three matrices (module docstring); tau is
    written when it is not empty."""
    n = jnt.shape[0]
    has_tau = tau.shape[0] > 0
    for i in range(n - 1, 0, -1):
        w = ws[i]
        jr = jnt[i]
        iv = jr.idx_v
        nvi = jr.nv
        for d in range(nvi):
            c = OJ + 6 * d
            t1 = inertia.apply(w, OYC, w, c)
            yj = inertia.apply(w, ODYC, w, c)
            jh = motion.cross_force(w, c, w, OH)
            ya = inertia.apply(w, OYC, w, DADQ + 6 * d)
            yv = inertia.apply(w, ODYC, w, DVDQ + 6 * d)
            vh = motion.cross_force(w, DVDQ + 6 * d, w, OH)
            yd = inertia.apply(w, OYC, w, DADV + 6 * d)
            jf = motion.cross_force(w, c, w, OF)
            tq = (ya[0] + yv[0] + vh[0], ya[1] + yv[1] + vh[1], ya[2] + yv[2] + vh[2],
                  ya[3] + yv[3] + vh[3], ya[4] + yv[4] + vh[4], ya[5] + yv[5] + vh[5])
            tv = (yd[0] + yj[0] + jh[0], yd[1] + yj[1] + jh[1], yd[2] + yj[2] + jh[2],
                  yd[3] + yj[3] + jh[3], yd[4] + yj[4] + jh[4], yd[5] + yj[5] + jh[5])
            t2 = (yj[0] - jh[0], yj[1] - jh[1], yj[2] - jh[2], yj[3] - jh[3], yj[4] - jh[4],
                  yj[5] - jh[5])
            k = iv + d
            if has_tau:
                acc = 0.0
                for r in range(6):
                    acc += w[c + r] * w[OF + r]
                tau[k] = acc + prm[i, P_ARMATURE + d] * a[k]
            for e in range(nvi):  # within the joint
                ce = OJ + 6 * e
                dtau_dq[iv + e, k] = _dot(w, ce, tq)
                dtau_dv[iv + e, k] = _dot(w, ce, tv)
                if e <= d:  # one triangle, mirrored: M is symmetric to the bit
                    mk = _dot(w, ce, t1)
                    M[iv + e, k] = mk
                    M[k, iv + e] = mk
            M[k, k] += prm[i, P_ARMATURE + d]
            tf = (tq[0] + jf[0], tq[1] + jf[1], tq[2] + jf[2], tq[3] + jf[3], tq[4] + jf[4],
                  tq[5] + jf[5])
            j = jr.parent
            while j > 0:
                wj = ws[j]
                jv = jnt[j].idx_v
                for e in range(jnt[j].nv):
                    ce = OJ + 6 * e
                    r = jv + e
                    dtau_dq[r, k] = _dot(wj, ce, tf)
                    dtau_dv[r, k] = _dot(wj, ce, tv)
                    mk = _dot(wj, ce, t1)
                    M[r, k] = mk
                    M[k, r] = mk
                    dtau_dq[k, r] = _dot(wj, DADQ + 6 * e, t1) + _dot(wj, DVDQ + 6 * e, t2)
                    dtau_dv[k, r] = _dot(wj, DADV + 6 * e, t1) + _dot(wj, ce, t2)
                j = jnt[j].parent
        if S_MOVES[jr.type]:  # dS_l/dq_k . Fc within the joint
            for d in range(nvi):
                for e in range(nvi):
                    ds = ds_dq(jr, prm[i], q, w, e, d)
                    dq = _angular(w, ds[0], ds[1], ds[2])
                    dtau_dq[iv + e, iv + d] += _dot(w, OF, dq)
        par = jr.parent
        if par > 0:
            wp = ws[par]
            for k in range(10):
                wp[OYC + k] += w[OYC + k]
                wp[ODYC + k] += w[ODYC + k]
            for k in range(6):
                wp[OH + k] += w[OH + k]
                wp[OF + k] += w[OF + k]


@jit
def clear(X):
    """Zero an (nv, nv) output: entries between dofs on different branches are never written."""
    for r in range(X.shape[0]):
        for c in range(X.shape[1]):
            X[r, c] = 0.0


@jit
def rnea_derivatives(jnt, prm, q, v, a, fext, ws, tau, dtau_dq, dtau_dv, M):
    """dtau_dq, dtau_dv and M (nv, nv), both triangles, at (q, v, a) with LOCAL external forces
    fext (njoints, 6) or none ((0, 6)); tau (nv,) = RNEA(q, v, a, fext) too, unless tau is
    empty (shape (0,)). Fills oMi on the way (world-frame algorithm)."""
    clear(dtau_dq)
    clear(dtau_dv)
    clear(M)
    rx, ry, rz = shift_origin(jnt, prm, q, v, ws)
    forward_pass(jnt, prm, q, v, a, fext, ws)
    backward_pass(jnt, prm, q, a, ws, tau, dtau_dq, dtau_dv, M)
    restore_origin(ws, rx, ry, rz)


@jit
def static_torque_derivatives(jnt, prm, q, fext, ws, tau, dtau_dq):
    """d/dq of the static torque g(q) - sum_i J_i^T fext_i (tau = that torque, unless tau is
    empty): the recursion above at v = a = 0, where a_gf = -gravity on every body, dV/dq = 0,
    dY = 0, h = 0 and dA/dq_k = -gravity x J_k. With fext empty ((0, 6)) this is dg/dq, the
    derivative of the generalized gravity (Pinocchio's computeGeneralizedGravityDerivatives;
    with forces, its computeStaticTorqueDerivatives). Fills oMi on the way."""
    clear(dtau_dq)
    n = jnt.shape[0]
    has_f = fext.shape[0] > 0
    has_tau = tau.shape[0] > 0
    empty = q[:0]
    rx, ry, rz = shift_origin(jnt, prm, q, empty, ws)
    g = prm[0]
    motion.put6(ws[0], OAG, (-g[P_GRAVITY], -g[P_GRAVITY + 1], -g[P_GRAVITY + 2], 0.0, 0.0, 0.0))
    for i in range(1, n):
        w = ws[i]
        jr = jnt[i]
        jcalc(jnt, prm, i, q, empty, w)
        se3.compose(ws[jr.parent], OM, w, LI, w, OM)
        for d in range(jr.nv):
            s = motion.act(w, OM, w, S + 6 * d)
            motion.put6(w, OJ + 6 * d, s)
            motion.put6(w, DADQ + 6 * d, motion.cross(ws[0], OAG, w, OJ + 6 * d))
        inertia.act(w, OM, prm[i], P_PI, w, OYC)
        motion.put6(w, OF, inertia.apply(w, OYC, ws[0], OAG))
        if has_f:
            fo = force.act(w, OM, fext[i], 0)
            for k in range(6):
                w[OF + k] -= fo[k]
    for i in range(n - 1, 0, -1):
        w = ws[i]
        jr = jnt[i]
        iv = jr.idx_v
        nvi = jr.nv
        for d in range(nvi):
            c = OJ + 6 * d
            t1 = inertia.apply(w, OYC, w, c)
            tq = inertia.apply(w, OYC, w, DADQ + 6 * d)
            jf = motion.cross_force(w, c, w, OF)
            k = iv + d
            if has_tau:
                tau[k] = _dot(w, OF, motion.get6(w, c))
            for e in range(nvi):
                dtau_dq[iv + e, k] = _dot(w, OJ + 6 * e, tq)
            tf = (tq[0] + jf[0], tq[1] + jf[1], tq[2] + jf[2], tq[3] + jf[3], tq[4] + jf[4],
                  tq[5] + jf[5])
            j = jr.parent
            while j > 0:
                wj = ws[j]
                jv = jnt[j].idx_v
                for e in range(jnt[j].nv):
                    dtau_dq[jv + e, k] = _dot(wj, OJ + 6 * e, tf)
                    dtau_dq[k, jv + e] = _dot(wj, DADQ + 6 * e, t1)
                j = jnt[j].parent
        if S_MOVES[jr.type]:
            for d in range(nvi):
                for e in range(nvi):
                    ds = ds_dq(jr, prm[i], q, w, e, d)
                    dtau_dq[iv + e, iv + d] += _dot(w, OF, _angular(w, ds[0], ds[1], ds[2]))
        par = jr.parent
        if par > 0:
            wp = ws[par]
            for k in range(10):
                wp[OYC + k] += w[OYC + k]
            for k in range(6):
                wp[OF + k] += w[OF + k]
    restore_origin(ws, rx, ry, rz)
