"""Centroidal momentum h_g = A_g(q) v, its matrix A_g, dA_g/dt, and dh_g/dt.

Source: Traversaro & Saccon (2019; T&S below), sec. 6 (wrench transformation, eq. 59), sec. 7
(inertia, eq. 68) and sec. 5.3/6.1 (d/dt of a moving inertia); Featherstone (2008), ch. 2
(spatial momentum); Orin, Goswami & Lee (2013), "Centroidal dynamics of a humanoid robot" (the
CCRBA). Momenta are forces, LINEAR first: h_g = [m c'; k_g], k_g the angular momentum about the
com c, in world axes (Pinocchio's convention). With ^0Yc_i the composite inertia of the subtree
of joint i in the world frame and J_k = ^0X_i S_k its world Jacobian columns:
  A_g,k at the world origin  = ^0Yc_i J_k;      shifted to c:  [f; tau] -> [f; tau - c x f]
  d/dt ^0Y = ov x* ^0Y - ^0Y (ov x)  for a body moving with world twist ov (T&S eqs. 37, 61)
  dA_g,k at the world origin = (d/dt ^0Yc_i) J_k + ^0Yc_i dJ_k/dt,
  shifted to c: [df; dtau - c x df - c' x f]
and dh_g/dt = sum_i ^0X_i^* (Y_i a_i + v_i x* Y_i v_i), shifted to c (c' x m c' = 0), which is
A_g a + dA_g v. dJ_k/dt includes dS/dt (kernels/joints/subspace_rate.py), so dA_g is the true
derivative on every joint type (Pinocchio 4.1's dccrba omits dS/dt).
References: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019; Featherstone, "Rigid Body Dynamics Algorithms", Springer 2008.
"""

from .._jit import jit
from ..layout import A, OB, ODJ, OJ, OM, OV, OYC, P_PI, TMP, V
from ..spatial import force, inertia, motion
from .forward_kinematics import forward_kinematics
from .jacobian import world_columns
from .jacobian_time_variation import world_columns_rate


@jit
def add_variation(ws, i, s, o):
    """ws[i, o:o+36] += s (ov x* Y - Y (ov x)) for Y = ws[i, OYC:] and ov = ws[i, OV:].

    With P = Y (ov x) and Y symmetric, (ov x*) Y = -(ov x)^T Y = -P^T: the sum is -(P + P^T),
    built one column of (ov x) at a time (scratch: ws[i, TMP:TMP+6])."""
    w = ws[i]
    vx, vy, vz, wx, wy, wz = w[OV], w[OV + 1], w[OV + 2], w[OV + 3], w[OV + 4], w[OV + 5]
    for c in range(6):
        # column c of ov x = [[w^, v^], [0, w^]]
        if c < 3:
            ex, ey, ez = (0.0, wz, -wy) if c == 0 else ((-wz, 0.0, wx) if c == 1 else
                                                      (wy, -wx, 0.0))
            col = (ex, ey, ez, 0.0, 0.0, 0.0)
        else:
            k = c - 3
            ex, ey, ez = (0.0, wz, -wy) if k == 0 else ((-wz, 0.0, wx) if k == 1 else
                                                      (wy, -wx, 0.0))
            fx, fy, fz = (0.0, vz, -vy) if k == 0 else ((-vz, 0.0, vx) if k == 1 else
                                                      (vy, -vx, 0.0))
            col = (fx, fy, fz, ex, ey, ez)
        motion.put6(w, TMP, col)
        p = inertia.apply(w, OYC, w, TMP)
        for r in range(6):
            w[o + 6 * r + c] -= s * p[r]
            w[o + 6 * c + r] -= s * p[r]


@jit
def world_inertias(jnt, prm, ws, composite):
    """ws[i, OYC] = ^0Y_i, the inertia of body i in the world frame; summed over subtrees
    (row 0: the whole robot) when ``composite``."""
    for k in range(10):
        ws[0, OYC + k] = 0.0
    for i in range(1, jnt.shape[0]):
        inertia.act(ws[i], OM, prm[i], P_PI, ws[i], OYC)
    if composite:
        for i in range(jnt.shape[0] - 1, 0, -1):
            par = jnt[i].parent
            for k in range(10):
                ws[par, OYC + k] += ws[i, OYC + k]


@jit
def _at_com(f, cx, cy, cz):
    """A force at the world origin moved to the com: [f; tau - c x f]."""
    t = motion.cross3(cx, cy, cz, f[0], f[1], f[2])
    return (f[0], f[1], f[2], f[3] - t[0], f[4] - t[1], f[5] - t[2])


@jit
def ccrba(jnt, prm, q, v, ws, Ag, hg, Ig):
    """Placements, then A_g (6, nv); h_g = A_g v (6,) when v is not empty; the centroidal
    inertia Ig (6, 6) = [[m I3, 0], [0, I_c]] in world axes (Pinocchio's ccrba /
    computeCentroidalMap). Returns the total mass; com = ws[0, OYC+1:OYC+4] / mass."""
    forward_kinematics(jnt, prm, q, q[:0], q[:0], ws)
    world_inertias(jnt, prm, ws, True)
    w0 = ws[0]
    m = w0[OYC]
    cx, cy, cz = w0[OYC + 1] / m, w0[OYC + 2] / m, w0[OYC + 3] / m
    for i in range(1, jnt.shape[0]):
        world_columns(jnt, i, ws)
        w = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            g = _at_com(inertia.apply(w, OYC, w, OJ + 6 * d), cx, cy, cz)
            for r in range(6):
                Ag[r, iv + d] = g[r]
    if v.shape[0] > 0:
        for r in range(6):
            acc = 0.0
            for k in range(v.shape[0]):
                acc += Ag[r, k] * v[k]
            hg[r] = acc
    # I_c = I_o - m (|c|^2 I3 - c c^T)  (parallel axes, Traversaro & Saccon eq. 69)
    cc = cx * cx + cy * cy + cz * cz
    Ig[:, :] = 0.0
    Ig[0, 0] = Ig[1, 1] = Ig[2, 2] = m
    Ig[3, 3] = w0[OYC + 4] - m * (cc - cx * cx)
    Ig[3, 4] = Ig[4, 3] = w0[OYC + 5] + m * cx * cy
    Ig[4, 4] = w0[OYC + 6] - m * (cc - cy * cy)
    Ig[3, 5] = Ig[5, 3] = w0[OYC + 7] + m * cx * cz
    Ig[4, 5] = Ig[5, 4] = w0[OYC + 8] + m * cy * cz
    Ig[5, 5] = w0[OYC + 9] - m * (cc - cz * cz)
    return m


@jit
def dccrba(jnt, prm, q, v, ws, Ag, dAg, hg):
    """A_g, dA_g/dt (6, nv) and h_g = A_g v along (q, v) (Pinocchio's dccrba /
    computeCentroidalMapTimeVariation, plus dS/dt)."""
    world_columns_rate(jnt, prm, q, v, ws)
    world_inertias(jnt, prm, ws, False)
    n = jnt.shape[0]
    for k in range(36):
        ws[0, OB + k] = 0.0
    hx = hy = hz = 0.0  # linear momentum m c'
    for i in range(1, n):
        w = ws[i]
        for k in range(36):
            w[OB + k] = 0.0
        add_variation(ws, i, 1.0, OB)
        h = inertia.apply(w, OYC, w, OV)
        hx += h[0]
        hy += h[1]
        hz += h[2]
    for i in range(n - 1, 0, -1):
        par = jnt[i].parent
        for k in range(10):
            ws[par, OYC + k] += ws[i, OYC + k]
        for k in range(36):
            ws[par, OB + k] += ws[i, OB + k]
    w0 = ws[0]
    m = w0[OYC]
    cx, cy, cz = w0[OYC + 1] / m, w0[OYC + 2] / m, w0[OYC + 3] / m
    dcx, dcy, dcz = hx / m, hy / m, hz / m
    for i in range(1, n):
        w = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            g = inertia.apply(w, OYC, w, o)
            dg = inertia.apply(w, OYC, w, ODJ + 6 * d)
            for r in range(6):
                acc = dg[r]
                for k in range(6):
                    acc += w[OB + 6 * r + k] * w[o + k]
                Ag[r, iv + d] = g[r]
                dAg[r, iv + d] = acc
            t = motion.cross3(cx, cy, cz, g[0], g[1], g[2])
            dt = motion.cross3(cx, cy, cz, dAg[0, iv + d], dAg[1, iv + d], dAg[2, iv + d])
            dct = motion.cross3(dcx, dcy, dcz, g[0], g[1], g[2])
            for r in range(3):
                Ag[3 + r, iv + d] -= t[r]
                dAg[3 + r, iv + d] -= dt[r] + dct[r]
    for r in range(6):
        acc = 0.0
        for k in range(v.shape[0]):
            acc += Ag[r, k] * v[k]
        hg[r] = acc


@jit
def centroidal_momentum(jnt, prm, q, v, a, ws, hg, dhg):
    """h_g (6,) along (q, v), and dh_g/dt (6,) when a is not empty (Pinocchio's
    computeCentroidalMomentum / computeCentroidalMomentumTimeVariation; gravity excluded).
    Returns the total mass."""
    forward_kinematics(jnt, prm, q, v, a, ws)
    has_a = a.shape[0] > 0
    m = 0.0
    sx = sy = sz = 0.0
    for r in range(6):
        hg[r] = 0.0
        dhg[r] = 0.0
    for i in range(1, jnt.shape[0]):
        w = ws[i]
        c = inertia.world_first_moment(w, OM, prm[i], P_PI)
        m += prm[i, P_PI]
        sx += c[0]
        sy += c[1]
        sz += c[2]
        motion.put6(w, TMP, inertia.apply(prm[i], P_PI, w, V))
        h = force.act(w, OM, w, TMP)
        for r in range(6):
            hg[r] += h[r]
        if has_a:
            ya = inertia.apply(prm[i], P_PI, w, A)
            b = inertia.bias_force(prm[i], P_PI, w, V)
            motion.put6(w, TMP, (ya[0] + b[0], ya[1] + b[1], ya[2] + b[2], ya[3] + b[3],
                                 ya[4] + b[4], ya[5] + b[5]))
            f = force.act(w, OM, w, TMP)
            for r in range(6):
                dhg[r] += f[r]
    cx, cy, cz = sx / m, sy / m, sz / m
    motion.put6(hg, 0, _at_com((hg[0], hg[1], hg[2], hg[3], hg[4], hg[5]), cx, cy, cz))
    if has_a:
        motion.put6(dhg, 0, _at_com((dhg[0], dhg[1], dhg[2], dhg[3], dhg[4], dhg[5]),
                                    cx, cy, cz))
    return m
