"""Analytical derivatives of the centroidal momentum h_g and of its rate dh_g/dt w.r.t. q, v, a.

Sources: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms",
Robotics: Science and Systems 2018 (the world-frame chain rule, sec. IV); Orin, Goswami & Lee,
"Centroidal dynamics of a humanoid robot", Autonomous Robots 2013 (h_g); Traversaro & Saccon,
"Multibody dynamics notation (version 2)", 2019, sec. 6-7 (moving a wrench's reference point,
d/dt of a moving inertia). q is perturbed along tangent vectors, q (+) dq = integrate(q, dq),
as Pinocchio's computeCentroidalDynamicsDerivatives, whose four matrices these are.

Momenta are forces, linear first, about the centre of mass c, world axes (centroidal.py):
h_g = [p; L_0 - c x p] and dh_g/dt = [f; n_0 - c x f], with h_0 = [p; L_0] = sum_b ^0Y_b ov_b
and [f; n_0] = sum_b (^0Y_b oa_b + ov_b x* ^0Y_b ov_b) at the world origin, gravity excluded.
Moving q_k turns the subtree of its joint i about J_k: with ov_b, oa_b changing as in
kinematics_derivatives.py (DV, DA, DW its columns) and d ^0Y_b = J_k x* Y_b - Y_b (J_k x),
a sum over that subtree (composites Yc, dYc = d/dt Yc, Hc = sum h, Fc = sum f) gives
  d h_0/dq_k = J_k x* Hc + Yc DV_k,                      d h_0/dv_k = Yc J_k,
  d f_0/dq_k = J_k x* Fc + Yc DA_k + dYc DV_k + DV_k x* Hc,
  d f_0/dv_k = Yc DW_k + dYc J_k + J_k x* Hc,            d f_0/da_k = Yc J_k
(the vectors rnea_derivatives.py dots with J; here they are the columns themselves). Then
dc/dq_k = (Yc J_k)_linear / m, and moving the reference point to c,
  d h_g = [d p; d L_0 - c x d p + p x dc],   d (dh_g/dt) = [d f; d n_0 - c x d f + f x dc],
where the dc terms appear in the q columns only. dh_g/da = dh_g/dv = A_g. Gravity is left out
of f: it only adds the constant [m g; 0] about c, whose derivatives are zero.
"""

from .._jit import jit
from ..layout import OAG, ODYC, OF, OH, OM, OV, OYC, P_PI, TMP
from ..spatial import inertia, motion
from .kinematics_derivatives import ORIGIN, columns, forward_pass
from .world_origin import restore_origin, shift_origin


@jit
def _body_terms(prm, i, w):
    """Body i's ^0Y, its rate, momentum h and force f (gravity excluded), world frame."""
    inertia.act(w, OM, prm[i], P_PI, w, OYC)
    inertia.variation(w, OYC, w, OV, w, ODYC)
    motion.put6(w, OH, inertia.apply(w, OYC, w, OV))
    ya = inertia.apply(w, OYC, w, OAG)
    vxh = motion.cross_force(w, OV, w, OH)
    for k in range(6):
        w[OF + k] = ya[k] + vxh[k]


@jit
def _put(X, k, a, b, c):
    """X[:, k] = a + b + c for 6-tuples."""
    for r in range(6):
        X[r, k] = a[r] + b[r] + c[r]


@jit
def _to_com(X, k, cx, cy, cz, lin, dx, dy, dz):
    """Column k from the world origin to the com: angular -= c x linear, then += lin x dc."""
    t = motion.cross3(cx, cy, cz, X[0, k], X[1, k], X[2, k])
    u = motion.cross3(lin[0], lin[1], lin[2], dx, dy, dz)
    X[3, k] += u[0] - t[0]
    X[4, k] += u[1] - t[1]
    X[5, k] += u[2] - t[2]


@jit
def centroidal_dynamics_derivatives(jnt, prm, q, v, a, ws, dh_dq, dhdot_dq, dhdot_dv, dhdot_da,
                                    hg, dhg):
    """dh_dq, dhdot_dq, dhdot_dv, dhdot_da = A_g (6, nv) at (q, v, a), and h_g, dh_g/dt (6,)
    (Pinocchio's computeCentroidalDynamicsDerivatives). Returns the total mass (the com and
    the results are not defined unless it is positive). Leaves in ws what
    kinematics_derivatives does (the getters of that file can read it after this)."""
    n = jnt.shape[0]
    rx, ry, rz = shift_origin(jnt, prm, q, v, ws)
    forward_pass(jnt, prm, q, v, a, ws)
    w0 = ws[0]
    for k in range(10):
        w0[OYC + k] = 0.0
        w0[ODYC + k] = 0.0
    for k in range(6):
        w0[OH + k] = 0.0
        w0[OF + k] = 0.0
    for i in range(1, n):
        _body_terms(prm, i, ws[i])
    for i in range(n - 1, 0, -1):
        w = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            k = iv + d
            cols = columns(jnt, ws, i, d, 0.0, 0.0, 0.0)  # oMi still at the pass's origin
            for r in range(4):  # J, DV, DA, DW into the row's scratch
                motion.put6(w, TMP + 6 * r, cols[r])
            c, dv, da, dw = TMP, TMP + 6, TMP + 12, TMP + 18
            t1 = inertia.apply(w, OYC, w, c)
            jh = motion.cross_force(w, c, w, OH)
            for r in range(6):
                dhdot_da[r, k] = t1[r]
            _put(dh_dq, k, jh, inertia.apply(w, OYC, w, dv), (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
            _put(dhdot_dv, k, inertia.apply(w, OYC, w, dw), inertia.apply(w, ODYC, w, c), jh)
            _put(dhdot_dq, k, inertia.apply(w, OYC, w, da), inertia.apply(w, ODYC, w, dv),
                 motion.cross_force(w, dv, w, OH))
            jf = motion.cross_force(w, c, w, OF)
            for r in range(6):
                dhdot_dq[r, k] += jf[r]
        wp = ws[jnt[i].parent]
        for k in range(10):
            wp[OYC + k] += w[OYC + k]
            wp[ODYC + k] += w[ODYC + k]
        for k in range(6):
            wp[OH + k] += w[OH + k]
            wp[OF + k] += w[OF + k]
    m = w0[OYC]
    cx, cy, cz = w0[OYC + 1] / m, w0[OYC + 2] / m, w0[OYC + 3] / m
    h0 = motion.get6(w0, OH)
    f0 = motion.get6(w0, OF)
    for k in range(dh_dq.shape[1]):
        dx, dy, dz = dhdot_da[0, k] / m, dhdot_da[1, k] / m, dhdot_da[2, k] / m
        _to_com(dh_dq, k, cx, cy, cz, h0, dx, dy, dz)
        _to_com(dhdot_dq, k, cx, cy, cz, f0, dx, dy, dz)
        _to_com(dhdot_dv, k, cx, cy, cz, f0, 0.0, 0.0, 0.0)
        _to_com(dhdot_da, k, cx, cy, cz, f0, 0.0, 0.0, 0.0)
    for r in range(6):
        hg[r] = h0[r]
        dhg[r] = f0[r]
    tp = motion.cross3(cx, cy, cz, h0[0], h0[1], h0[2])
    tf = motion.cross3(cx, cy, cz, f0[0], f0[1], f0[2])
    for r in range(3):
        hg[3 + r] -= tp[r]
        dhg[3 + r] -= tf[r]
    restore_origin(ws, rx, ry, rz)
    ws[0, ORIGIN] = rx
    ws[0, ORIGIN + 1] = ry
    ws[0, ORIGIN + 2] = rz
    return m
