"""Partial derivatives of a joint's motion subspace S(q) and bias c_J(q, qdot) along its own
coordinates (LOCAL), for the dynamics derivatives (kernels/algorithms/rnea_derivatives.py).

Only two joint types have a configuration-dependent S (codes.S_MOVES); both have a vector-space
q (q + dq is the perturbation) and purely angular columns, so every partial is an angular
3-tuple. c_J = sum_{m,k} dS_m/dq_k qdot_m qdot_k (kernels/joints/subspace_rate.py), hence
  d c_J / d qdot_l = sum_k (dS_l/dq_k + dS_k/dq_l) qdot_k   (computed by the caller),
  d c_J / d q_l    = sum_{m,k} d2 S_m / dq_l dq_k qdot_m qdot_k   (below).
Spherical ZYX, q = [z, y, x], angular columns s0 = (-sy, cy sx, cy cx), s1 = (0, cx, -sx),
s2 = (1, 0, 0) (kernels/joints/spherical.py):
  ds0/dy = (-cy, -sy sx, -sy cx),  ds0/dx = (0, cy cx, -cy sx),  ds1/dx = (0, -sx, -cx);
  dc/dy = dz [dy (sy, -cy sx, -cy cx) + dx (0, -sy cx, sy sx)],
  dc/dx = dz dy (0, -sy cx, sy sx) + dz dx (0, -cy sx, -cy cx) + dy dx (0, -cx, sx).
Universal, s0 = e = R2(t2)^T a1, s1 = a2 (kernels/joints/universal.py):
  ds0/dt2 = -a2 x e;  dc/dt2 = t1dot t2dot a2 x (a2 x e).
Every other partial is zero. The arithmetic lives with each family (spherical.py,
universal.py); this dispatches.
"""

from .._jit import jit
from . import spherical, universal
from .codes import SPHERICAL_ZYX, UNIVERSAL


@jit
def ds_dq(jr, pr, q, w, m, l):
    """dS_m/dq_l (angular part, LOCAL) of joint row jr at q; w is its workspace row after
    jcalc (the universal joint's S is read from it)."""
    t = jr.type
    if t == SPHERICAL_ZYX:
        return spherical.zyx_ds_dq(q, jr.idx_q, m, l)
    if t == UNIVERSAL and m == 0 and l == 1:
        return universal.ds0_dt2(pr, w)
    return (0.0, 0.0, 0.0)


@jit
def dc_dq(jr, pr, q, v, w, l):
    """d c_J / dq_l (angular part, LOCAL) at (q, v) (full vectors)."""
    t = jr.type
    if t == SPHERICAL_ZYX and l > 0:
        return spherical.zyx_dc_dq(q, v, jr.idx_q, jr.idx_v, l)
    if t == UNIVERSAL and l == 1:
        return universal.dc_dt2(pr, v, jr.idx_v, w)
    return (0.0, 0.0, 0.0)
