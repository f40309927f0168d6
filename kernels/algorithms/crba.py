"""Composite rigid-body algorithm: the joint-space inertia matrix M(q), both triangles.

Source: Featherstone, "Rigid Body Dynamics Algorithms", Springer 2008, Table 6.2 (the
composite-rigid-body algorithm); Pinocchio documentation, "SE(3) operations" cheat sheet,
"Inertia application", for expressing an inertia in another frame. Every quantity is in
the WORLD frame (Pinocchio's Convention::WORLD), so composite inertias add up as they are and
the force block F needs no transform on its way to the root:
  forward:  ^0M_i;  S_i = ^0X_i S_i^local;  Yc_i = ^0Y_i (10 dynamic parameters)
  backward: F = Yc_i S_i;  M_ii = S_i^T F + diag(armature_i)
            for every ancestor j of i:  M_ji = S_j^T F  (and M_ij, its mirror)
            Yc_l(i) += Yc_i
A sum of rigid bodies is a rigid body, so Yc stays 10 numbers. "World" is the world's axes at
the first joint's origin (world_origin.py), so a robot far from the origin keeps its
precision. Fills oMi on the way. ``crba_inertias`` takes the bodies' inertias from pi
(njoints - 1, 10), body i in row i - 1, as rnea_inertias.
"""

from .._jit import jit
from ..joints.jcalc import jcalc
from ..layout import LI, OJ, OM, OYC, P_ARMATURE, P_PI, S, U
from ..spatial import inertia, motion, se3
from .rnea import rnea_calculated
from .world_origin import restore_origin, shift_origin


@jit
def crba(jnt, prm, q, ws, M, empty):
    """M (nv, nv) written in full; ``empty`` is a zero-length float64 array (no velocity)."""
    _crba(jnt, prm, prm, 0, P_PI, q, ws, M, empty)


@jit
def crba_rnea(jnt, prm, q, v, a, fext, ws, M, tau):
    """M (nv, nv) = crba's and tau (nv,) = rnea(q, v, a, fext)'s, the same numbers: CRBA's
    joint calculations are made with v, so that RNEA, which follows, takes them from ws
    instead of making them again (sin, cos, the quaternion's rotation: a sixth of the pair's
    time on the quadruped)."""
    _crba(jnt, prm, prm, 0, P_PI, q, ws, M, v)
    rnea_calculated(jnt, prm, q, v, a, fext, ws, tau)


@jit
def crba_inertias(jnt, prm, pi, q, ws, M, empty):
    """crba with body i's 10 inertial parameters taken from pi[i - 1] instead of prm."""
    _crba(jnt, prm, pi, 1, 0, q, ws, M, empty)


@jit
def _crba(jnt, prm, Y, y0, yc, q, ws, M, empty):
    """Body i's inertia is Y[i - y0, yc:yc + 10]; the joints are calculated with the
    velocity ``empty`` (v_J and c_J too when it is not empty)."""
    n = jnt.shape[0]
    M[:, :] = 0.0  # entries of dofs on different branches stay zero
    rx, ry, rz = shift_origin(jnt, prm, q, empty, ws)
    for i in range(1, n):
        w = ws[i]
        jr = jnt[i]
        if i > 1:  # (shift_origin has just calculated joint 1)
            jcalc(jnt, prm, i, q, empty, w)
        se3.compose(ws[jr.parent], OM, w, LI, w, OM)
        for d in range(jr.nv):
            s = motion.act(w, OM, w, S + 6 * d)
            for k in range(6):
                w[OJ + 6 * d + k] = s[k]
        inertia.act(w, OM, Y[i - y0], yc, w, OYC)
    for i in range(n - 1, 0, -1):
        w = ws[i]
        jr = jnt[i]
        iv = jr.idx_v
        nvi = jr.nv
        for d in range(nvi):
            f = inertia.apply(w, OYC, w, OJ + 6 * d)
            for k in range(6):
                w[U + 6 * d + k] = f[k]
        for r in range(nvi):
            for d in range(r, nvi):  # one triangle, mirrored: M is symmetric to the bit
                acc = 0.0
                for k in range(6):
                    acc += w[OJ + 6 * r + k] * w[U + 6 * d + k]
                M[iv + r, iv + d] = acc
                M[iv + d, iv + r] = acc
            M[iv + r, iv + r] += prm[i, P_ARMATURE + r]
        j = jr.parent
        while j > 0:
            wj = ws[j]
            jv = jnt[j].idx_v
            if nvi == 1 and jnt[j].nv == 1:  # the common case, as a plain dot product
                acc = 0.0
                for k in range(6):
                    acc += wj[OJ + k] * w[U + k]
                M[jv, iv] = acc
                M[iv, jv] = acc
            else:
                for r in range(jnt[j].nv):
                    for d in range(nvi):
                        acc = 0.0
                        for k in range(6):
                            acc += wj[OJ + 6 * r + k] * w[U + 6 * d + k]
                        M[jv + r, iv + d] = acc
                        M[iv + d, jv + r] = acc
            j = jnt[j].parent
        par = jr.parent
        if par > 0:
            wp = ws[par]
            for k in range(10):
                wp[OYC + k] += w[OYC + k]
    restore_origin(ws, rx, ry, rz)
