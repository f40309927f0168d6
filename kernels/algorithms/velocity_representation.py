"""Floating-base velocity representations: body-fixed, mixed B[A] and inertial.

Source: Traversaro & Saccon (2019), sec. 5.1-5.2 (^A X_B, eqs. 27-35), sec. 8 eqs. (75)-(76)
(the combined transformation Y) and sec. 9 eqs. (77)-(80) (moving-base equations of motion).
The base B is joint 1, a free-flyer under the universe; A is the world. fastdyn's (and
Pinocchio's) generalized velocity is body-fixed: v_B = [^B v_{A,B}; s']. Another representation
R with base frame F (B[A] for MIXED, A for INERTIAL, B for BODY_FIXED) has
  v_B = T v_R,   T = Y = diag(^B X_F, I_nJ)                               (eq. 76, 79)
  ^B X_{B[A]} = diag(R^T, R^T),   ^B X_A = [[R^T, -R^T [p]x], [0, R^T]]   ((R, p) = ^A H_B)
and, from v_B' = T v_R' + T' v_R in M_B v_B' + h_B = tau_B premultiplied by T^T (eq. 80),
  M_R = T^T M_B T,  h_R = T^T (h_B + M_B T' v_R),  C_R = T^T (C_B T + M_B T'),
  tau_R = T^T tau_B,  J_R = J_B T,  v^T M v and tau . v unchanged.
T' = diag(d/dt ^B X_F, 0) with d/dt ^B X_F = -(^B v_{F,B} x) ^B X_F (their eq. 37):
  MIXED:    ^B v_{B[A],B} = [0; w_B]  =>  T' v_R = [-w_B x v_B; 0]
  INERTIAL: ^B v_{A,B} = v_B          =>  T' v_R = -(v_B x v_B) = 0
Reference: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019.
"""

from .._jit import jit
from ..layout import LI
from .coriolis import coriolis_matrix
from .crba import crba
from .forward_kinematics import forward_kinematics
from .rnea import rnea

BODY_FIXED, MIXED, INERTIAL = 0, 1, 2


@jit
def base_transform(ws, rep, X):
    """X (6, 6) = ^B X_F, so that v_B = X v_F for the base twist. Reads ^A H_B from joint 1's
    liMi (its parent is the universe), which every kernel that runs jcalc refreshes."""
    X[:, :] = 0.0
    if rep == BODY_FIXED:
        for k in range(6):
            X[k, k] = 1.0
        return
    w = ws[1]
    for r in range(3):
        for c in range(3):
            X[r, c] = X[3 + r, 3 + c] = w[LI + 3 * c + r]  # R^T
    if rep == INERTIAL:
        px, py, pz = w[LI + 9], w[LI + 10], w[LI + 11]
        for r in range(3):  # upper-right block -R^T [p]x, one row at a time
            a, b, c = w[LI + r], w[LI + 3 + r], w[LI + 6 + r]  # row r of R^T
            # (a, b, c) [p]x = (a, b, c) [[0, -pz, py], [pz, 0, -px], [-py, px, 0]]
            X[r, 3] = -(b * pz - c * py)
            X[r, 4] = -(c * px - a * pz)
            X[r, 5] = -(a * py - b * px)


@jit
def base_transform_rate(rep, X, vb, Xd):
    """Xd (6, 6) = d/dt ^B X_F = -(^B v_{F,B} x) X, with vb the body-fixed base twist."""
    if rep == BODY_FIXED:
        Xd[:, :] = 0.0
        return
    vx, vy, vz = (vb[0], vb[1], vb[2]) if rep == INERTIAL else (0.0, 0.0, 0.0)
    wx, wy, wz = vb[3], vb[4], vb[5]
    for c in range(6):
        # -(u x) applied to column c of X, u = [v; w]: -[w x x_v + v x x_w; w x x_w]
        xv = (X[0, c], X[1, c], X[2, c])
        xw = (X[3, c], X[4, c], X[5, c])
        Xd[0, c] = -(wy * xv[2] - wz * xv[1] + vy * xw[2] - vz * xw[1])
        Xd[1, c] = -(wz * xv[0] - wx * xv[2] + vz * xw[0] - vx * xw[2])
        Xd[2, c] = -(wx * xv[1] - wy * xv[0] + vx * xw[1] - vy * xw[0])
        Xd[3, c] = -(wy * xw[2] - wz * xw[1])
        Xd[4, c] = -(wz * xw[0] - wx * xw[2])
        Xd[5, c] = -(wx * xw[1] - wy * xw[0])


@jit
def to_body(X, v_rep, v_body):
    """v_body = T v_rep."""
    for r in range(6):
        acc = 0.0
        for c in range(6):
            acc += X[r, c] * v_rep[c]
        v_body[r] = acc
    for k in range(6, v_rep.shape[0]):
        v_body[k] = v_rep[k]


@jit
def _left_t(X, A):
    """A <- T^T A: rows 0..5 of every column mapped by X^T."""
    for c in range(A.shape[1]):
        y0, y1, y2, y3, y4, y5 = A[0, c], A[1, c], A[2, c], A[3, c], A[4, c], A[5, c]
        for r in range(6):
            A[r, c] = (X[0, r] * y0 + X[1, r] * y1 + X[2, r] * y2 + X[3, r] * y3
                       + X[4, r] * y4 + X[5, r] * y5)


@jit
def _right(A, X):
    """A <- A T: columns 0..5 of every row mapped by X."""
    for r in range(A.shape[0]):
        y0, y1, y2, y3, y4, y5 = A[r, 0], A[r, 1], A[r, 2], A[r, 3], A[r, 4], A[r, 5]
        for c in range(6):
            A[r, c] = (y0 * X[0, c] + y1 * X[1, c] + y2 * X[2, c] + y3 * X[3, c]
                       + y4 * X[4, c] + y5 * X[5, c])


@jit
def dynamics(jnt, prm, q, v_rep, rep, ws, XX, M, h, tmp, fext):
    """M (nv, nv) <- M_R and, when v_rep is not empty, h (nv,) <- h_R = T^T (h_B + M_B T' v_R).
    Also XX[0] = ^B X_F, XX[1] = its rate, tmp[0] = v_B = T v_R (tmp (2, nv) scratch);
    fext: (0, 6), or LOCAL joint forces, which then enter h_B as in rnea. ws is left with the
    placements at q and the velocities of v_B (crba and rnea fill neither oMi)."""
    crba(jnt, prm, q, ws, M, q[:0])
    base_transform(ws, rep, XX[0])
    if v_rep.shape[0] > 0:
        X = XX[0]
        vb = tmp[0]
        zero = tmp[1]
        to_body(X, v_rep, vb)
        base_transform_rate(rep, X, vb, XX[1])
        zero[:] = 0.0
        forward_kinematics(jnt, prm, q, vb, q[:0], ws)
        rnea(jnt, prm, q, vb, zero, fext, ws, h)
        # T' v_R has only 6 nonzero entries: h_B + M[:, :6] (Xd v_R[:6])
        u = _mul6(XX[1], v_rep)
        for r in range(M.shape[0]):
            h[r] += (M[r, 0] * u[0] + M[r, 1] * u[1] + M[r, 2] * u[2] + M[r, 3] * u[3]
                     + M[r, 4] * u[4] + M[r, 5] * u[5])
        _left_t(X, h.reshape((h.shape[0], 1)))
    else:
        forward_kinematics(jnt, prm, q, q[:0], q[:0], ws)
    _right(M, XX[0])
    _left_t(XX[0], M)
    for r in range(6):  # T^T M T is symmetric: remove the rounding asymmetry
        for c in range(r + 1, M.shape[0]):
            m = 0.5 * (M[r, c] + M[c, r])
            M[r, c] = m
            M[c, r] = m


@jit
def _mul6(X, x):
    """X (6, 6) times x[0:6]."""
    return (X[0, 0] * x[0] + X[0, 1] * x[1] + X[0, 2] * x[2] + X[0, 3] * x[3] + X[0, 4] * x[4]
            + X[0, 5] * x[5],
            X[1, 0] * x[0] + X[1, 1] * x[1] + X[1, 2] * x[2] + X[1, 3] * x[3] + X[1, 4] * x[4]
            + X[1, 5] * x[5],
            X[2, 0] * x[0] + X[2, 1] * x[1] + X[2, 2] * x[2] + X[2, 3] * x[3] + X[2, 4] * x[4]
            + X[2, 5] * x[5],
            X[3, 0] * x[0] + X[3, 1] * x[1] + X[3, 2] * x[2] + X[3, 3] * x[3] + X[3, 4] * x[4]
            + X[3, 5] * x[5],
            X[4, 0] * x[0] + X[4, 1] * x[1] + X[4, 2] * x[2] + X[4, 3] * x[3] + X[4, 4] * x[4]
            + X[4, 5] * x[5],
            X[5, 0] * x[0] + X[5, 1] * x[1] + X[5, 2] * x[2] + X[5, 3] * x[3] + X[5, 4] * x[4]
            + X[5, 5] * x[5])


@jit
def coriolis(jnt, prm, q, v_rep, rep, ws, XX, M, C, tmp):
    """C (nv, nv) <- C_R = T^T (C_B T + M_B T') at v_R; M <- M_B (unconverted); XX and
    tmp[0] as in dynamics."""
    crba(jnt, prm, q, ws, M, q[:0])
    X = XX[0]
    Xd = XX[1]
    vb = tmp[0]
    base_transform(ws, rep, X)
    to_body(X, v_rep, vb)
    base_transform_rate(rep, X, vb, Xd)
    coriolis_matrix(jnt, prm, q, vb, ws, C)
    _right(C, X)
    for r in range(C.shape[0]):  # + M[:, :6] Xd
        y0, y1, y2, y3, y4, y5 = M[r, 0], M[r, 1], M[r, 2], M[r, 3], M[r, 4], M[r, 5]
        for c in range(6):
            C[r, c] += (y0 * Xd[0, c] + y1 * Xd[1, c] + y2 * Xd[2, c] + y3 * Xd[3, c]
                        + y4 * Xd[4, c] + y5 * Xd[5, c])
    _left_t(X, C)
