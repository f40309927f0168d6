"""Mimic joints as a reduced system over the full tree: expand the reduced state, reduce the
full results.

A mimic joint j follows a joint i, q_j = k q_i + o (both 1-dof; the rows of
``layout.MIMIC_DTYPE``). The reduced coordinates are the full ones without the mimic joints'
(Pinocchio's layout for mimic joints), and, the relation being linear and time-invariant,
  v_full = G v,   a_full = G a,   G (nv_full, nv) with one entry per row:
  G[d, r] = s_d for the reduced dof r = map_d that full dof d follows (s = 1 on its own dof,
  k on a mimic dof). This is Featherstone's explicit constraint q_full = gamma(q), G =
  d gamma / dq (2008, sec. 3.2, eq. 3.20, where dG/dt = 0 as the relation is linear): the
  constraint force does no work (G^T tau_c = 0), so
  tau = G^T tau_full,   M = G^T M_full G,   J = J_full G,
and forward dynamics solves M a = tau - G^T RNEA_full(q_full, G v, 0).
A continuous joint (q = (cos t, sin t)) follows another through its angle, t_j = k t_i + o,
as Pinocchio's mimic joint does.
Reference: R. Featherstone, "Rigid Body Dynamics Algorithms", Springer 2008, sec. 3.2.
"""

import math

from .._jit import jit


@jit
def expand_configuration(jnt, mim, q_index, q, q_full):
    """q_full (nq_full,) from the reduced q: its own coordinates where ``q_index`` puts them,
    each mimic joint's from its leader's (mim rows: layout.MIMIC_DTYPE, leaders never mimic)."""
    for r in range(q.shape[0]):
        q_full[q_index[r]] = q[r]
    for m in range(mim.shape[0]):
        j = jnt[mim[m].joint]
        i = jnt[mim[m].mimicked]
        k = mim[m].multiplier
        o = mim[m].offset
        if j.nq == 1:
            q_full[j.idx_q] = k * q_full[i.idx_q] + o
        else:  # (cos, sin) of a continuous joint: through the angle
            t = k * math.atan2(q_full[i.idx_q + 1], q_full[i.idx_q]) + o
            q_full[j.idx_q] = math.cos(t)
            q_full[j.idx_q + 1] = math.sin(t)


@jit
def expand_velocity(v_map, v_scale, v, v_full):
    """v_full = G v (also accelerations)."""
    for d in range(v_full.shape[0]):
        v_full[d] = v_scale[d] * v[v_map[d]]


@jit
def reduce_vector(v_map, v_scale, tau_full, tau):
    """tau = G^T tau_full."""
    for r in range(tau.shape[0]):
        tau[r] = 0.0
    for d in range(tau_full.shape[0]):
        tau[v_map[d]] += v_scale[d] * tau_full[d]


@jit
def reduce_columns(v_map, v_scale, J_full, J):
    """J = J_full G, J_full (rows, nv_full)."""
    for a in range(J.shape[0]):
        for r in range(J.shape[1]):
            J[a, r] = 0.0
        for d in range(J_full.shape[1]):
            J[a, v_map[d]] += v_scale[d] * J_full[a, d]


@jit
def reduce_matrix(v_map, v_scale, M_full, M):
    """M = G^T M_full G."""
    for r in range(M.shape[0]):
        for c in range(M.shape[1]):
            M[r, c] = 0.0
    for a in range(M_full.shape[0]):
        sa = v_scale[a]
        ra = v_map[a]
        for b in range(M_full.shape[1]):
            M[ra, v_map[b]] += sa * v_scale[b] * M_full[a, b]


@jit
def cholesky_solve(M, L, b, x):
    """x = M^-1 b for a symmetric positive-definite M (n, n) through M = L L^T (L: scratch of
    M's shape, b and x may be one array). Returns -1, or the first row where M is not
    positive definite (x is then left unchanged)."""
    n = M.shape[0]
    for j in range(n):
        s = M[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > 0.0:
            return j
        L[j, j] = math.sqrt(s)
        for r in range(j + 1, n):
            s = M[r, j]
            for k in range(j):
                s -= L[r, k] * L[j, k]
            L[r, j] = s / L[j, j]
    for r in range(n):
        x[r] = b[r]
    for r in range(n):  # L y = b
        s = x[r]
        for k in range(r):
            s -= L[r, k] * x[k]
        x[r] = s / L[r, r]
    for r in range(n - 1, -1, -1):  # L^T x = y
        s = x[r]
        for k in range(r + 1, n):
            s -= L[k, r] * x[k]
        x[r] = s / L[r, r]
    return -1
