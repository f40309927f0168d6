"""Composite rigid-body algorithm: the joint-space inertia matrix M(q), both triangles.

Source: Featherstone (2008) Table 6.2; seed 000 ("Inertia application", force transform) for
the frame changes; seed 003 "Composite Rigid Body Algorithm (CRBA)".
  forward:  liMi, S_i (jcalc);  Yc_i = Y_i
  backward: F = Yc_i S_i;  M_ii = S_i^T F + diag(armature_i)
            j = i; while l(j) > 0: F = ^{l(j)}X_j^* F; j = l(j); M_ji = S_j^T F (and M_ij)
            Yc_l(i) += ^{l(i)}X_i^* Yc_i ^{l(i)}X_i^-1
Composite inertias stay 10 dynamic parameters (a sum of rigid bodies is a rigid body).
"""

from .._jit import jit
from ..joints.jcalc import jcalc
from ..layout import LI, S, U, YC
from ..spatial import force, inertia



@jit
def crba(jnt, q, ws, M, empty):
    """M (nv, nv) written in full; ``empty`` is a zero-length float64 array (no velocity)."""
    n = jnt.shape[0]
    M[:, :] = 0.0  # entries of dofs on different branches stay zero
    for i in range(1, n):
        w = ws[i]
        jcalc(jnt, i, q, empty, w)
        for k in range(10):
            w[YC + k] = jnt[i].pi[k]
    for i in range(n - 1, 0, -1):
        w = ws[i]
        jr = jnt[i]
        iv = jr.idx_v
        nvi = jr.nv
        for d in range(nvi):
            f = inertia.apply(w, YC, w, S + 6 * d)
            for k in range(6):
                w[U + 6 * d + k] = f[k]
        for r in range(nvi):
            for d in range(r, nvi):  # one triangle, mirrored: M is symmetric to the bit
                acc = 0.0
                for k in range(6):
                    acc += w[S + 6 * r + k] * w[U + 6 * d + k]
                M[iv + r, iv + d] = acc
                M[iv + d, iv + r] = acc
            M[iv + r, iv + r] += jr.armature[r]
        j = i
        while jnt[j].parent > 0:
            wj = ws[j]
            for d in range(nvi):
                fp = force.act(wj, LI, w, U + 6 * d)
                for k in range(6):
                    w[U + 6 * d + k] = fp[k]
            j = jnt[j].parent
            wj = ws[j]
            jv = jnt[j].idx_v
            for r in range(jnt[j].nv):
                for d in range(nvi):
                    acc = 0.0
                    for k in range(6):
                        acc += wj[S + 6 * r + k] * w[U + 6 * d + k]
                    M[jv + r, iv + d] = acc
                    M[iv + d, jv + r] = acc
        par = jr.parent
        if par > 0:
            wp = ws[par]
            inertia.act(w, LI, w, YC, w, U)  # Yc_i in the parent's frame, into scratch
            for k in range(10):
                wp[YC + k] += w[U + k]
