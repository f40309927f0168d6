"""Articulated-body algorithm: forward dynamics qddot = M^-1 (tau - C v - g + J^T f_ext).

Source: Featherstone (2008) Table 7.1; seed 003 "Articulated Body Algorithm (ABA)"; seed 000
for the frame changes. LOCAL quantities, linear first, a_0 = -g at the root:
  pass 1: v_i = X_i^-1 v_l(i) + v_J;  c_i = c_J + v_i x v_J;
          IA_i = Y_i;  pA_i = v_i x* (Y_i v_i) - f_ext,i
  pass 2 (leaves to root): U_i = IA_i S_i;  D_i = S_i^T U_i + diag(armature_i);
          u_i = tau_i - S_i^T pA_i;  Ia = IA_i - U_i D_i^-1 U_i^T;
          pa = pA_i + Ia c_i + U_i D_i^-1 u_i;
          IA_l(i) += X_i^* Ia X_i^-1;  pA_l(i) += X_i^* pa
  pass 3: a'_i = X_i^-1 a_l(i) + c_i;  qddot_i = D_i^-1 (u_i - U_i^T a'_i);  a_i = a'_i + S_i qddot_i
Returns the index of the first joint whose D_i is not positive definite (a massless subtree on
a moving joint makes M singular), or -1.
"""

from .._jit import jit
from ..joints.jcalc import jcalc
from ..layout import AGF, C, CJ, DI, IA, LI, PA, S, TMP, U, UU, V, VJ
from ..spatial import force, inertia, matrix6, motion
from .dense import invert_spd


@jit
def aba(jnt, gravity, q, v, tau, fext, ws, ddq):
    n = jnt.shape[0]
    has_f = fext.shape[0] > 0
    for k in range(6):
        ws[0, V + k] = 0.0
    for i in range(1, n):
        w = ws[i]
        jr = jnt[i]
        wp = ws[jr.parent]
        jcalc(jnt, i, q, v, w)
        vp = motion.act_inv(w, LI, wp, V)
        for k in range(6):
            w[V + k] = vp[k] + w[VJ + k]
        vxvj = motion.cross(w, V, w, VJ)
        for k in range(6):
            w[C + k] = w[CJ + k] + vxvj[k]
        matrix6.from_inertia(jr.pi, 0, w, IA)
        b = inertia.bias_force(jr.pi, 0, w, V)
        for k in range(6):
            w[PA + k] = b[k] - fext[i, k] if has_f else b[k]
    bad = -1
    for i in range(n - 1, 0, -1):
        w = ws[i]
        jr = jnt[i]
        nvi = jr.nv
        iv = jr.idx_v
        for d in range(nvi):
            u = matrix6.mul_vec(w, IA, w, S + 6 * d)
            for k in range(6):
                w[U + 6 * d + k] = u[k]
        for r in range(nvi):  # D = S^T U (+ armature) into DI, then invert in place
            for d in range(nvi):
                acc = 0.0
                for k in range(6):
                    acc += w[S + 6 * r + k] * w[U + 6 * d + k]
                w[DI + nvi * r + d] = acc
            w[DI + nvi * r + r] += jr.armature[r]
            acc = tau[iv + r]
            for k in range(6):
                acc -= w[S + 6 * r + k] * w[PA + k]
            w[UU + r] = acc
        if not invert_spd(w, DI, nvi, w, TMP) and bad < 0:
            bad = i
        par = jr.parent
        if par == 0:
            continue
        # UDinv = U D^-1 (6 x nv) into TMP; Ia = IA - UDinv U^T in place;
        # pa = pA + Ia c + UDinv u into PA (pA is not needed again)
        for a in range(nvi):
            for k in range(6):
                acc = 0.0
                for b in range(nvi):
                    acc += w[U + 6 * b + k] * w[DI + nvi * b + a]
                w[TMP + 6 * a + k] = acc
        for r in range(6):
            for c in range(r, 6):  # Ia is symmetric: one triangle, mirrored
                acc = 0.0
                for a in range(nvi):
                    acc += w[TMP + 6 * a + r] * w[U + 6 * a + c]
                w[IA + 6 * r + c] -= acc
                if c != r:
                    w[IA + 6 * c + r] = w[IA + 6 * r + c]
        pa = matrix6.mul_vec(w, IA, w, C)
        for k in range(6):
            acc = pa[k] + w[PA + k]
            for a in range(nvi):
                acc += w[TMP + 6 * a + k] * w[UU + a]
            w[PA + k] = acc
        fp = force.act(w, LI, w, PA)
        wp = ws[par]
        for k in range(6):
            wp[PA + k] += fp[k]
        matrix6.congruence_add(w, LI, w, IA, w, TMP, wp, IA)
    ws[0, AGF] = -gravity[0]
    ws[0, AGF + 1] = -gravity[1]
    ws[0, AGF + 2] = -gravity[2]
    ws[0, AGF + 3] = 0.0
    ws[0, AGF + 4] = 0.0
    ws[0, AGF + 5] = 0.0
    for i in range(1, n):
        w = ws[i]
        jr = jnt[i]
        nvi = jr.nv
        iv = jr.idx_v
        ap = motion.act_inv(w, LI, ws[jr.parent], AGF)
        for k in range(6):
            w[AGF + k] = ap[k] + w[C + k]
        for r in range(nvi):
            acc = w[UU + r]
            for k in range(6):
                acc -= w[U + 6 * r + k] * w[AGF + k]
            w[TMP + r] = acc
        for r in range(nvi):
            acc = 0.0
            for d in range(nvi):
                acc += w[DI + nvi * r + d] * w[TMP + d]
            ddq[iv + r] = acc
        for d in range(nvi):
            for k in range(6):
                w[AGF + k] += w[S + 6 * d + k] * ddq[iv + d]
    return bad
