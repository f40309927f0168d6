"""Forward kinematics: placements, velocities and accelerations of every joint frame.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "RNEA / Forward loop"
(its first three lines) and "Nota" (store liMi, oMi):
  ^{l(i)}M_i = j.M_0 j.M(q),   ^0M_i = ^0M_{l(i)} ^{l(i)}M_i,
  v_i = ^{l(i)}X_i^-1 v_{l(i)} + v_J,
  a_i = ^{l(i)}X_i^-1 a_{l(i)} + S qddot_i + c_J + v_i x v_J.
All spatial vectors LOCAL (in frame i), linear first. Row 0 of ws is the universe.
"""

from .._jit import jit
from ..joints.jcalc import jcalc
from ..layout import A, CJ, LI, OM, S, V, VJ
from ..spatial import motion, se3


@jit
def forward_kinematics(jnt, prm, q, v, a, ws):
    """Placements always; velocities when v is not empty; accelerations when a is not empty."""
    n = jnt.shape[0]
    if v.shape[0] > 0:
        for k in range(6):
            ws[0, V + k] = 0.0
            ws[0, A + k] = 0.0
    for i in range(1, n):
        w = ws[i]
        par = jnt[i].parent
        jcalc(jnt, prm, i, q, v, w)
        se3.compose(ws[par], OM, w, LI, w, OM)
        if v.shape[0] > 0:
            vp = motion.act_inv(w, LI, ws[par], V)
            for k in range(6):
                w[V + k] = vp[k] + w[VJ + k]
            if a.shape[0] > 0:
                ap = motion.act_inv(w, LI, ws[par], A)
                vxvj = motion.cross(w, V, w, VJ)
                iv = jnt[i].idx_v
                for k in range(6):
                    acc = ap[k] + w[CJ + k] + vxvj[k]
                    for d in range(jnt[i].nv):
                        acc += w[S + 6 * d + k] * a[iv + d]
                    w[A + k] = acc
