"""The Coriolis matrix C(q, v): C v = nle - g and dM/dt - 2C skew-symmetric.

Source: Siciliano, Sciavicco, Villani & Oriolo (2009), ch. 7 (C from the Christoffel symbols,
and the skew-symmetry of dM/dt - 2C); Echeandia & Wensing (2021), "Numerical methods to compute
the Coriolis matrix and Christoffel symbols for rigid-body systems", Algorithm 1; Traversaro &
Saccon (2019), eqs. (37), (61) for d/dt of world-frame quantities.
With world Jacobian columns J_i of body i, its world inertia Y_i and twist ov_i:
  C = sum_i J_i^T (Y_i dJ_i/dt + B_i J_i),
  B_i = 1/2 (ov_i x* Y_i - Y_i (ov_i x)) + 1/2 F(Y_i ov_i),   F(h) u := u x* h
(F(h) = [[0, -f^], [-f^, -tau^]] is skew, 1/2 (ov x* Y - Y ov x) = 1/2 dY_i/dt, so
dM/dt - 2C = sum J^T (-F(h_i)) J + (dJ^T Y J - J^T Y dJ) is skew, and B_i ov_i = ov_i x* Y_i ov_i
gives C v = nle - g). Grouped by subtrees as Pinocchio's computeCoriolisMatrix: with composite
Yc_j, Bc_j and dF_j = Yc_j dJ_j + Bc_j J_j (columns of joint j),
  C[i, j] = J_i^T dF_j                                 for i = j or i an ancestor of j
  C[j, i] = (Yc_j J_j)^T dJ_i + J_j^T Bc_j J_i        for i a strict ancestor of j
Entries between dofs on different branches are zero. dJ/dt includes dS/dt, so this C is exact on
every joint type (Pinocchio 4.1 drops dS/dt: it differs on spherical_zyx and universal joints).
References: Siciliano, Sciavicco, Villani & Oriolo, "Robotics: Modelling, Planning and Control",
Springer 2009; Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische
Universiteit Eindhoven, 2019.
"""

from .._jit import jit
from ..layout import OB, ODJ, OJ, OV, OYC, TMP
from ..spatial import inertia, matrix6
from .centroidal import add_variation, world_inertias
from .jacobian_time_variation import world_columns_rate


@jit
def _b_matrix(ws, i):
    """ws[i, OB:OB+36] = B_i (see the module docstring), from OYC = Y_i and OV = ov_i."""
    w = ws[i]
    for k in range(36):
        w[OB + k] = 0.0
    add_variation(ws, i, 0.5, OB)
    f = inertia.apply(w, OYC, w, OV)
    fx, fy, fz, tx, ty, tz = 0.5 * f[0], 0.5 * f[1], 0.5 * f[2], 0.5 * f[3], 0.5 * f[4], 0.5 * f[5]
    # += F(h/2): -[f]x in the two off-diagonal blocks, -[tau]x in the angular block
    for r, c, s in ((1, 2, fx), (2, 0, fy), (0, 1, fz)):
        w[OB + 6 * r + 3 + c] += s
        w[OB + 6 * c + 3 + r] -= s
        w[OB + 6 * (3 + r) + c] += s
        w[OB + 6 * (3 + c) + r] -= s
    for r, c, s in ((1, 2, tx), (2, 0, ty), (0, 1, tz)):
        w[OB + 6 * (3 + r) + 3 + c] += s
        w[OB + 6 * (3 + c) + 3 + r] -= s


@jit
def _dot6(x, i, y, j):
    return (x[i] * y[j] + x[i + 1] * y[j + 1] + x[i + 2] * y[j + 2] + x[i + 3] * y[j + 3]
            + x[i + 4] * y[j + 4] + x[i + 5] * y[j + 5])


@jit
def coriolis_matrix(jnt, prm, q, v, ws, C):
    """C (nv, nv) written in full (Pinocchio's computeCoriolisMatrix, plus dS/dt)."""
    n = jnt.shape[0]
    world_columns_rate(jnt, prm, q, v, ws)
    world_inertias(jnt, prm, ws, False)
    for i in range(1, n):
        _b_matrix(ws, i)
    C[:, :] = 0.0
    for j in range(n - 1, 0, -1):
        wj = ws[j]
        jv = jnt[j].idx_v
        nvj = jnt[j].nv
        for d in range(nvj):  # dF_j into TMP (scratch, column d at TMP + 6 d)
            a = inertia.apply(wj, OYC, wj, ODJ + 6 * d)
            b = matrix6.mul_vec(wj, OB, wj, OJ + 6 * d)
            for r in range(6):
                wj[TMP + 6 * d + r] = a[r] + b[r]
        i = j
        while i > 0:
            wi = ws[i]
            iv = jnt[i].idx_v
            for r in range(jnt[i].nv):
                for d in range(nvj):
                    C[iv + r, jv + d] = _dot6(wi, OJ + 6 * r, wj, TMP + 6 * d)
                if i != j:  # row of joint j: J_j^T (Yc_j dJ_i + Bc_j J_i)
                    a = inertia.apply(wj, OYC, wi, ODJ + 6 * r)
                    b = matrix6.mul_vec(wj, OB, wi, OJ + 6 * r)
                    for d in range(nvj):
                        o = OJ + 6 * d
                        C[jv + d, iv + r] = (wj[o] * (a[0] + b[0]) + wj[o + 1] * (a[1] + b[1])
                                             + wj[o + 2] * (a[2] + b[2])
                                             + wj[o + 3] * (a[3] + b[3])
                                             + wj[o + 4] * (a[4] + b[4])
                                             + wj[o + 5] * (a[5] + b[5]))
            i = jnt[i].parent
        par = jnt[j].parent
        if par > 0:
            for k in range(10):
                ws[par, OYC + k] += wj[OYC + k]
            for k in range(36):
                ws[par, OB + k] += wj[OB + k]
