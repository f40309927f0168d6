"""Derivatives of a time step's equality rows (equality_rows.py) for step_derivatives.py.

The rows of a loop closure, weld or joint coupling are bilateral: always EQUAL in
constraint_derivatives.py's classes (u_r = 0 at the solution, lam_r free). With e(q) the
residual and J(q) its exact rate (J v = de/dt, so de = J dq for a tangent dq, q (+) dq), the
terms they add to constraint_derivatives.py's system are, for each row r:
- Phi_r = d(J_r w)/dq at fixed w = v+ (in the start axes) and -db_r/dq, -db_r/dv;
- in Aq, d(J^T lam)/dq minus what RNEA's derivatives already give for J^T lam / dt applied as
  LOCAL (body-fixed) external forces (``wrenches``).
Point rows (connect, a weld's first three): J = J_p1 - J_p2, world axes e_i, p1 and p2
material points of their bodies: d(J_i w)/dq = e_i . (d u(p1)/dq - d u(p2)/dq), u the point
velocity at w (kinematics_derivatives.py, LOCAL_WORLD_ALIGNED); the world force f = lam / dt
on p1 (its opposite on p2) is fixed in the world, where RNEA turns a body-fixed one with the
body: the difference, for dofs j, k on the body's support with u_k, w_k its point-velocity
and angular columns, is d(J^T lam)_k/dq_j - (body-fixed) = -u_k . (w_j x f) (as a contact's,
constraint_derivatives.py).
Weld rotation rows: e = vec(q2* q1) (E = R2^T R1, scalar part >= 0), J = A (J_w1 - J_w2),
A = S R2^T, S = 1/2 (e_w I - [e_v]x). Perturbing q_j turns R1 by w1_j and R2 by w2_j (world
angular columns), so E by Om = R2^T (w1_j - w2_j) on the left, de = 1/2 (0, Om) (x) e (Kindr
cheat sheet, quaternion kinematics): de_w = -1/2 Om . e_v, de_v = S Om, and
  dA/dq_j = (dS - S [R2^T w2_j]x) R2^T,   dS = 1/2 (de_w I - [de_v]x),
  d(J w)/dq_j = dA/dq_j W + A dW/dq_j   (W = w1 - w2 at w),
and J^T lam is the torque tq = A^T lam on body 1 (-tq on body 2), world-fixed at fixed A:
  d(J^T lam)_k/dq_j - (body-fixed) = -w_k . (w_j x tq) + (w1_k - w2_k) . (dA/dq_j^T lam).
Coupling rows: J is constant, e = J q (+ const): no Phi, no Aq term.
Targets (equality_rows.py): hard, b = -(erp / dt) e: -db/dq = (erp / dt) J. Soft,
b = J v + dt (a_ref - dJ/dt v), a_ref = -B J v - K d(|e|) e:
  -db/dq = -(1 - dt B) d(J v)/dq + dt K (d J_r + d' e_r n) + dt d(dJ/dt v)_r/dq,
  -db/dv = -(1 - dt B) J_r + dt d(dJ/dt v)_r/dv,       n = sum_l e_l J_l / |e|,
(d' = dd/d|e|; the velocity product of a point row is the classical acceleration at zero ddq,
a_lin + w x u(p), a the spatial acceleration at p: its derivatives from the same pass at
(q, v, 0)), and the compliance R_r = (1 - d) / d A^_r moves with |e|: lam_r dR_r/dq =
-lam_r A^_r d' / d^2 n joins Phi (none where R is clamped at MIN_R). A soft weld's rotation
rows' velocity product c = A hh - |W|^2 / 4 e_v (equality_rows.py) is differentiated through
A(q) and e(q) as above and the bodies' velocities and accelerations at zero ddq
(``_rotation_drift_terms``).
Left-out rows (|J_r| <= ZERO_ROW) are not rows; in n their J (below ZERO_ROW) is dropped.
"""

from math import sqrt

from .._jit import jit
from ..layout import LOCAL_WORLD_ALIGNED, O_DT, O_ERP, OM
from ..algorithms.kinematics_derivatives import kinematics_derivatives, motion_derivatives
from .equality_rows import EQ_DIAG, EQ_DIAG_ROT, MIN_R, error_quat, placed
from .rigid_constraints import COUPLING
from .softness import impedance, impedance_slope, is_soft, stiffness_damping

EQ_SCRATCH = 10  # (6, nv) blocks of ``E``: per body, dv/dq, dv/dv, da/dq, da/dv, da/da


@jit
def slot_range(eqc, slot0):
    """(first, end) of the constraints' warm-start slots."""
    if eqc is None:
        return slot0, slot0
    cst = eqc[0]
    n = 0
    for k in range(cst.shape[0]):
        n += cst[k].kind
    return slot0, slot0 + n


@jit
def _row(slot, lo, m, s):
    """The row among lo..m-1 whose warm-start slot is s, or -1 (a left-out row)."""
    for r in range(lo, m):
        if slot[r] == s:
            return r
    return -1


@jit
def _frames(ws, cs):
    """(a, b, A, e) of a point or frame constraint: c1's and c2's placements (placed), the
    rotation rows' A = S R2^T (row-major) and e = (e_w, e_x, e_y, e_z) (module docstring)."""
    a = placed(ws, cs.joint1, cs.R1, cs.p1)
    b = placed(ws, cs.joint2, cs.R2, cs.p2)
    E = (b[0] * a[0] + b[3] * a[3] + b[6] * a[6], b[0] * a[1] + b[3] * a[4] + b[6] * a[7],
         b[0] * a[2] + b[3] * a[5] + b[6] * a[8], b[1] * a[0] + b[4] * a[3] + b[7] * a[6],
         b[1] * a[1] + b[4] * a[4] + b[7] * a[7], b[1] * a[2] + b[4] * a[5] + b[7] * a[8],
         b[2] * a[0] + b[5] * a[3] + b[8] * a[6], b[2] * a[1] + b[5] * a[4] + b[8] * a[7],
         b[2] * a[2] + b[5] * a[5] + b[8] * a[8])
    w, x, y, z = error_quat(E[0], E[1], E[2], E[3], E[4], E[5], E[6], E[7], E[8])
    S = _s_matrix(w, x, y, z)
    A = _times_rt(S, b)
    return a, b, A, (w, x, y, z)


@jit
def _s_matrix(w, x, y, z):
    """1/2 (w I - [(x, y, z)]x), row-major."""
    return (0.5 * w, 0.5 * z, -0.5 * y, -0.5 * z, 0.5 * w, 0.5 * x, 0.5 * y, -0.5 * x, 0.5 * w)


@jit
def _times_rt(S, b):
    """S R^T (row-major 3x3) for R = b[0:9] row-major."""
    return (S[0] * b[0] + S[1] * b[1] + S[2] * b[2], S[0] * b[3] + S[1] * b[4] + S[2] * b[5],
            S[0] * b[6] + S[1] * b[7] + S[2] * b[8],
            S[3] * b[0] + S[4] * b[1] + S[5] * b[2], S[3] * b[3] + S[4] * b[4] + S[5] * b[5],
            S[3] * b[6] + S[4] * b[7] + S[5] * b[8],
            S[6] * b[0] + S[7] * b[1] + S[8] * b[2], S[6] * b[3] + S[7] * b[4] + S[8] * b[5],
            S[6] * b[6] + S[7] * b[7] + S[8] * b[8])


@jit
def _residual(jnt, cs, q, ws):
    """The constraint's residual e (six entries; the unused ones 0), as equality_rows.py's."""
    if cs.kind == COUPLING:
        e = q[jnt[cs.joint1].idx_q] - cs.offset
        if cs.joint2 > 0:
            e -= cs.ratio * q[jnt[cs.joint2].idx_q]
        return (e, 0.0, 0.0, 0.0, 0.0, 0.0)
    a, b, A, e = _frames(ws, cs)
    if cs.kind != 6:
        return (a[9] - b[9], a[10] - b[10], a[11] - b[11], 0.0, 0.0, 0.0)
    return (a[9] - b[9], a[10] - b[10], a[11] - b[11], e[1], e[2], e[3])


@jit
def _rows_of(cs, slot, lo, m, slot0):
    """The rows (six entries, -1: left out or none) of constraint cs among lo..m-1."""
    s, n = slot0 + cs.row, cs.kind
    return (_row(slot, lo, m, s), _row(slot, lo, m, s + 1) if n > 1 else -1,
            _row(slot, lo, m, s + 2) if n > 1 else -1, _row(slot, lo, m, s + 3) if n > 3 else -1,
            _row(slot, lo, m, s + 4) if n > 3 else -1, _row(slot, lo, m, s + 5) if n > 3 else -1)


@jit
def wrenches(jnt, eqc, ws, nc, m, slot, slot0, lam, dt, F):
    """Adds the point and frame constraints' percussions lam / dt to F as LOCAL forces on their
    bodies (RNEA's convention): lam (world) at p1 on body 1, its opposite at p2 on body 2, a
    weld's torque A^T lam_rot on body 1 and its opposite on body 2 (couplings' generalized
    forces are constant in q: none). Needs placements in ws."""
    cst = eqc[0]
    for k in range(cst.shape[0]):
        cs = cst[k]
        if cs.kind == COUPLING:
            continue
        rr = _rows_of(cs, slot, 3 * nc, m, slot0)
        L = _gathered(rr, lam)
        a, b, A, e = _frames(ws, cs)
        f = (L[0] / dt, L[1] / dt, L[2] / dt)
        tq = (0.0, 0.0, 0.0)
        if cs.kind == 6:
            tq = ((A[0] * L[3] + A[3] * L[4] + A[6] * L[5]) / dt,
                  (A[1] * L[3] + A[4] * L[4] + A[7] * L[5]) / dt,
                  (A[2] * L[3] + A[5] * L[4] + A[8] * L[5]) / dt)
        apply_wrench(ws, cs.joint1, 1.0, a[9], a[10], a[11], f, tq, F)
        apply_wrench(ws, cs.joint2, -1.0, b[9], b[10], b[11], f, tq, F)


@jit
def _gathered(rr, lam):
    """The constraint's percussions by row (0 for a left-out row)."""
    return (lam[rr[0]] if rr[0] >= 0 else 0.0, lam[rr[1]] if rr[1] >= 0 else 0.0,
            lam[rr[2]] if rr[2] >= 0 else 0.0, lam[rr[3]] if rr[3] >= 0 else 0.0,
            lam[rr[4]] if rr[4] >= 0 else 0.0, lam[rr[5]] if rr[5] >= 0 else 0.0)


@jit
def apply_wrench(ws, b, sign, p0, p1, p2, f, tq, F):
    """F[b] += sign (the world force f at p and the world torque tq) in body b's axes, about its
    origin (nothing for the world, b = 0)."""
    if b <= 0:
        return
    w = ws[b]
    r0, r1, r2 = p0 - w[OM + 9], p1 - w[OM + 10], p2 - w[OM + 11]
    m = (r1 * f[2] - r2 * f[1] + tq[0], r2 * f[0] - r0 * f[2] + tq[1],
         r0 * f[1] - r1 * f[0] + tq[2])
    for k in range(3):  # R^T (world to the body's axes)
        F[b, k] += sign * (w[OM + k] * f[0] + w[OM + 3 + k] * f[1] + w[OM + 6 + k] * f[2])
        F[b, 3 + k] += sign * (w[OM + k] * m[0] + w[OM + 3 + k] * m[1] + w[OM + 6 + k] * m[2])


@jit
def any_soft(eqc):
    """Whether a constraint is soft (MuJoCo's solref/solimp)."""
    for k in range(eqc[1].shape[0]):
        if is_soft(eqc[1][k]):
            return True
    return False


@jit
def _body(jnt, ws, b, p0, p1, p2, pl, E, o):
    """motion_derivatives of body b's point p into E[o:o + 5] (zeros for the world)."""
    if b <= 0:
        for s in range(o, o + 5):
            for i in range(6):
                for k in range(E.shape[2]):
                    E[s, i, k] = 0.0
        return
    pl[9], pl[10], pl[11] = p0, p1, p2
    motion_derivatives(jnt, ws, b, pl, 0, LOCAL_WORLD_ALIGNED, E[o], E[o + 1], E[o + 2],
                       E[o + 3], E[o + 4])


@jit
def equality_terms(jnt, prm, eqc, opt, q, v, u, ws, nc, m, slot, slot0, lam, J, za, pl, E,
                   er, Aq, Phi, Psi):
    """The equality rows' terms (module docstring) at the step's q, v and u = v+ in the start
    axes: Phi's (target slopes, d(J u)/dq, soft terms), Psi's (-db/dv beyond er J), er's
    (-(1 - dt B) on soft rows, else 0) and Aq's (-(d(J^T lam)/dq - its body-fixed part) / dt).
    E (EQ_SCRATCH, 6, nv), pl (12,) and za (nv,) scratch. Overwrites ws's kinematics pass."""
    cst, eprm = eqc
    dt, erp = opt[O_DT], opt[O_ERP]
    nv = v.shape[0]
    for k in range(nv):
        za[k] = 0.0
    for pas in range(2):  # at u: d(J u)/dq and the forces; at (v, 0): soft targets
        if pas == 1 and not any_soft(eqc):
            break
        kinematics_derivatives(jnt, prm, q, u if pas == 0 else v, za, ws)
        for c in range(cst.shape[0]):
            cs = cst[c]
            h = eprm[c]
            rr = _rows_of(cs, slot, 3 * nc, m, slot0)
            soft = is_soft(h)
            if pas == 1 and not soft:
                continue
            if pas == 0:
                _target_terms(cs, h, jnt, q, ws, rr, lam, dt, erp, J, er, Phi)
            if cs.kind == COUPLING:
                continue
            a, b, A, e = _frames(ws, cs)
            _body(jnt, ws, cs.joint1, a[9], a[10], a[11], pl, E, 0)
            _body(jnt, ws, cs.joint2, b[9], b[10], b[11], pl, E, 5)
            if pas == 1:
                _drift_terms(cs, h, rr, v, dt, E, Phi, Psi)
                if cs.kind == 6:
                    _rotation_drift_terms(cs, h, rr, v, dt, b, A, e, E, Phi, Psi)
                continue
            _point_terms(jnt, cs, rr, lam, dt, E, Aq, Phi)
            if cs.kind == 6:
                _rotation_terms(jnt, cs, rr, lam, u, dt, b, A, e, E, Aq, Phi)


@jit
def _target_terms(cs, h, jnt, q, ws, rr, lam, dt, erp, J, er, Phi):
    """The targets' slopes in q (hard: erp / dt J_r; soft: dt K (d J_r + d' e_r n) and the
    compliance's lam_r dR_r/dq) and er (soft: -(1 - dt B) on the constraint's rows)."""
    nv = J.shape[1]
    if not is_soft(h):
        for i in range(cs.kind):
            r = rr[i]
            if r >= 0:
                er[r] = 0.0
                for k in range(nv):
                    Phi[r, k] += erp / dt * J[r, k]
        return
    e = _residual(jnt, cs, q, ws)
    norm = 0.0
    for i in range(cs.kind):
        norm += e[i] * e[i]
    norm = sqrt(norm)
    d = impedance(h, norm)
    K, B = stiffness_damping(h, dt)
    slope = impedance_slope(h, norm) / norm if norm > 0.0 else 0.0  # d' / |e|
    for i in range(cs.kind):
        r = rr[i]
        if r < 0:
            continue
        er[r] = -(1.0 - dt * B)
        diag = h[EQ_DIAG_ROT] if cs.kind == 6 and i >= 3 else h[EQ_DIAG]
        moves = (1.0 - d) / d * diag > MIN_R  # (clamped at MIN_R: R does not move)
        cr = dt * K * slope * e[i] - (lam[r] * diag / (d * d) * slope if moves else 0.0)
        for k in range(nv):
            Phi[r, k] += dt * K * d * J[r, k]
        if cr == 0.0:
            continue
        for ll in range(cs.kind):  # n = sum_l e_l J_l / |e|, over the rows that are rows
            s = rr[ll]
            if s >= 0 and e[ll] != 0.0:
                g = cr * e[ll]
                for k in range(nv):
                    Phi[r, k] += g * J[s, k]


@jit
def _point_terms(jnt, cs, rr, lam, dt, E, Aq, Phi):
    """Point rows' d(J u)/dq in Phi and the world-fixed forces' correction in Aq."""
    nv = Phi.shape[1]
    for i in range(3):
        r = rr[i]
        if r >= 0:
            for k in range(nv):
                Phi[r, k] += E[0, i, k] - E[5, i, k]
    L = _gathered(rr, lam)
    f = (L[0], L[1], L[2])
    moved_force(jnt, cs.joint1, 1.0, f, E[1], dt, Aq)
    moved_force(jnt, cs.joint2, -1.0, f, E[6], dt, Aq)


@jit
def _moved(jnt, b, sign, f, DV, row, dt, Aq):
    """Aq[k, j] += sign c_k . (w_j x f) / dt for dofs j, k on body b's support, c_k DV's rows
    row..row+2 of column k (0: the point-velocity column, 3: the angular one)."""
    jj = b
    while jj > 0:
        for dj in range(jnt[jj].nv):
            j = jnt[jj].idx_v + dj
            w0, w1, w2 = DV[3, j], DV[4, j], DV[5, j]
            a0 = sign * (w1 * f[2] - w2 * f[1])
            a1 = sign * (w2 * f[0] - w0 * f[2])
            a2 = sign * (w0 * f[1] - w1 * f[0])
            kk = b
            while kk > 0:
                for dk in range(jnt[kk].nv):
                    k = jnt[kk].idx_v + dk
                    Aq[k, j] += (DV[row, k] * a0 + DV[row + 1, k] * a1
                                 + DV[row + 2, k] * a2) / dt
                kk = jnt[kk].parent
        jj = jnt[jj].parent


@jit
def moved_force(jnt, b, sign, f, DV, dt, Aq):
    """Aq[k, j] += sign u_k . (w_j x f) / dt for dofs j, k on body b's support (u_k, w_k: DV's
    point-velocity and angular columns)."""
    if b <= 0 or (f[0] == 0.0 and f[1] == 0.0 and f[2] == 0.0):
        return
    _moved(jnt, b, sign, f, DV, 0, dt, Aq)


@jit
def _moved_torque(jnt, b, sign, tq, DV, dt, Aq):
    """Aq[k, j] += sign w_k . (w_j x tq) / dt for dofs j, k on body b's support."""
    if b <= 0:
        return
    _moved(jnt, b, sign, tq, DV, 3, dt, Aq)


@jit
def _turned(b, S, ex, ey, ez, d1, d2):
    """(dA, de_v) of a weld's rotation rows when q_j turns body 1 by the world rotation d1 and
    body 2 by d2 (their angular columns w1_j, w2_j): with Om = R2^T (d1 - d2), the residual's
    de = 1/2 (0, Om) (x) e, de_v = S Om, and dA = (dS - S [R2^T d2]x) R2^T (module
    docstring); b holds R2 row-major, S = _s_matrix(e)."""
    x0, x1, x2 = d1[0] - d2[0], d1[1] - d2[1], d1[2] - d2[2]
    Om = (b[0] * x0 + b[3] * x1 + b[6] * x2, b[1] * x0 + b[4] * x1 + b[7] * x2,
          b[2] * x0 + b[5] * x1 + b[8] * x2)  # R2^T (w1_j - w2_j)
    o2 = (b[0] * d2[0] + b[3] * d2[1] + b[6] * d2[2],
          b[1] * d2[0] + b[4] * d2[1] + b[7] * d2[2],
          b[2] * d2[0] + b[5] * d2[1] + b[8] * d2[2])  # R2^T w2_j
    dw = -0.5 * (Om[0] * ex + Om[1] * ey + Om[2] * ez)
    dx = S[0] * Om[0] + S[1] * Om[1] + S[2] * Om[2]
    dy = S[3] * Om[0] + S[4] * Om[1] + S[5] * Om[2]
    dz = S[6] * Om[0] + S[7] * Om[1] + S[8] * Om[2]
    dS = _s_matrix(dw, dx, dy, dz)
    # M = dS - S [o2]x; [o]x = [[0, -o_z, o_y], [o_z, 0, -o_x], [-o_y, o_x, 0]]
    M = (dS[0] - (S[1] * o2[2] - S[2] * o2[1]), dS[1] - (S[2] * o2[0] - S[0] * o2[2]),
         dS[2] - (S[0] * o2[1] - S[1] * o2[0]),
         dS[3] - (S[4] * o2[2] - S[5] * o2[1]), dS[4] - (S[5] * o2[0] - S[3] * o2[2]),
         dS[5] - (S[3] * o2[1] - S[4] * o2[0]),
         dS[6] - (S[7] * o2[2] - S[8] * o2[1]), dS[7] - (S[8] * o2[0] - S[6] * o2[2]),
         dS[8] - (S[6] * o2[1] - S[7] * o2[0]))
    return _times_rt(M, b), (dx, dy, dz)


@jit
def _rotation_terms(jnt, cs, rr, lam, u, dt, b, A, e, E, Aq, Phi):
    """A weld's rotation rows: d(J u)/dq = dA/dq_j W + A dW/dq_j in Phi, and in Aq the torque's
    world-fixed correction and -(w1_k - w2_k) . (dA/dq_j^T lam) / dt (module docstring)."""
    nv = Phi.shape[1]
    W0 = W1 = W2 = 0.0
    for k in range(nv):  # W = w1 - w2 at u
        W0 += (E[1, 3, k] - E[6, 3, k]) * u[k]
        W1 += (E[1, 4, k] - E[6, 4, k]) * u[k]
        W2 += (E[1, 5, k] - E[6, 5, k]) * u[k]
    L = _gathered(rr, lam)
    l0, l1, l2 = L[3], L[4], L[5]
    ew, ex, ey, ez = e
    S = _s_matrix(ew, ex, ey, ez)
    tq = (A[0] * l0 + A[3] * l1 + A[6] * l2, A[1] * l0 + A[4] * l1 + A[7] * l2,
          A[2] * l0 + A[5] * l1 + A[8] * l2)
    for j in range(nv):
        d1 = (E[1, 3, j], E[1, 4, j], E[1, 5, j])
        d2 = (E[6, 3, j], E[6, 4, j], E[6, 5, j])
        if d1[0] == 0.0 and d1[1] == 0.0 and d1[2] == 0.0 and \
                d2[0] == 0.0 and d2[1] == 0.0 and d2[2] == 0.0:
            continue
        dA, _ = _turned(b, S, ex, ey, ez, d1, d2)
        y0 = E[0, 3, j] - E[5, 3, j]  # dW/dq_j
        y1 = E[0, 4, j] - E[5, 4, j]
        y2 = E[0, 5, j] - E[5, 5, j]
        for i in range(3):
            r = rr[3 + i]
            if r >= 0:
                Phi[r, j] += (dA[3 * i] * W0 + dA[3 * i + 1] * W1 + dA[3 * i + 2] * W2
                              + A[3 * i] * y0 + A[3 * i + 1] * y1 + A[3 * i + 2] * y2)
        g = (dA[0] * l0 + dA[3] * l1 + dA[6] * l2, dA[1] * l0 + dA[4] * l1 + dA[7] * l2,
             dA[2] * l0 + dA[5] * l1 + dA[8] * l2)  # dA^T lam
        if g[0] != 0.0 or g[1] != 0.0 or g[2] != 0.0:
            for k in range(nv):
                wk0 = E[1, 3, k] - E[6, 3, k]
                wk1 = E[1, 4, k] - E[6, 4, k]
                wk2 = E[1, 5, k] - E[6, 5, k]
                Aq[k, j] -= (wk0 * g[0] + wk1 * g[1] + wk2 * g[2]) / dt
    _moved_torque(jnt, cs.joint1, 1.0, tq, E[1], dt, Aq)
    _moved_torque(jnt, cs.joint2, -1.0, tq, E[6], dt, Aq)


@jit
def _drift_terms(cs, h, rr, v, dt, E, Phi, Psi):
    """A soft point row's velocity-product and d(J v)/dq terms at (q, v, 0) (module
    docstring): Phi += -(1 - dt B) e_i . d(u1 - u2)/dq + dt d(g1 - g2)_i/dq, Psi += dt
    d(g1 - g2)_i/dv, g = a_lin + w x u(p) the classical acceleration at zero ddq."""
    K, B = stiffness_damping(h, dt)
    keep = 1.0 - dt * B
    nv = v.shape[0]
    for side in range(2):  # body 1, then body 2 (its terms negated)
        s, o = 1.0 - 2.0 * side, 5 * side
        DQ, DV, AQ, AV = E[o], E[o + 1], E[o + 2], E[o + 3]
        p0 = p1 = p2 = w0 = w1 = w2 = 0.0
        for k in range(nv):
            p0 += DV[0, k] * v[k]
            p1 += DV[1, k] * v[k]
            p2 += DV[2, k] * v[k]
            w0 += DV[3, k] * v[k]
            w1 += DV[4, k] * v[k]
            w2 += DV[5, k] * v[k]
        for k in range(nv):
            gq = (AQ[0, k] + DQ[4, k] * p2 - DQ[5, k] * p1 + w1 * DQ[2, k] - w2 * DQ[1, k],
                  AQ[1, k] + DQ[5, k] * p0 - DQ[3, k] * p2 + w2 * DQ[0, k] - w0 * DQ[2, k],
                  AQ[2, k] + DQ[3, k] * p1 - DQ[4, k] * p0 + w0 * DQ[1, k] - w1 * DQ[0, k])
            gv = (AV[0, k] + DV[4, k] * p2 - DV[5, k] * p1 + w1 * DV[2, k] - w2 * DV[1, k],
                  AV[1, k] + DV[5, k] * p0 - DV[3, k] * p2 + w2 * DV[0, k] - w0 * DV[2, k],
                  AV[2, k] + DV[3, k] * p1 - DV[4, k] * p0 + w0 * DV[1, k] - w1 * DV[0, k])
            for i in range(3):
                r = rr[i]
                if r >= 0:
                    Phi[r, k] += s * (-keep * DQ[i, k] + dt * gq[i])
                    Psi[r, k] += s * dt * gv[i]


@jit
def _rotation_drift_terms(cs, h, rr, v, dt, b, A, e, E, Phi, Psi):
    """A soft weld's rotation rows at (q, v, 0) (module docstring), their velocity product
    c = A hh - |W|^2 / 4 e_v (equality_rows.py: hh = al1 - al2 - w2 x W, W = w1 - w2, al a
    body's angular acceleration at zero ddq): Phi += -(1 - dt B) d(J v)/dq + dt dc/dq,
    Psi += dt dc/dv, with
      dc/dq_j = dA_j hh + A dhh/dq_j - (W . dW/dq_j) / 2 e_v - |W|^2 / 4 de_v,j,
      dc/dv_j = A dhh/dv_j - (W . dW/dv_j) / 2 e_v,
    dA_j and de_v,j = S R2^T (w1_j - w2_j) as in _rotation_terms, and al = 1/2 (dal/dv) v (the
    acceleration at zero ddq is quadratic in v)."""
    K, B = stiffness_damping(h, dt)
    keep = 1.0 - dt * B
    nv = v.shape[0]
    W0 = W1 = W2 = u0 = u1 = u2 = h0 = h1 = h2 = 0.0  # W, w2 and hh (al1 - al2 first)
    for k in range(nv):
        W0 += (E[1, 3, k] - E[6, 3, k]) * v[k]
        W1 += (E[1, 4, k] - E[6, 4, k]) * v[k]
        W2 += (E[1, 5, k] - E[6, 5, k]) * v[k]
        u0 += E[6, 3, k] * v[k]
        u1 += E[6, 4, k] * v[k]
        u2 += E[6, 5, k] * v[k]
        h0 += 0.5 * (E[3, 3, k] - E[8, 3, k]) * v[k]
        h1 += 0.5 * (E[3, 4, k] - E[8, 4, k]) * v[k]
        h2 += 0.5 * (E[3, 5, k] - E[8, 5, k]) * v[k]
    h0 -= u1 * W2 - u2 * W1
    h1 -= u2 * W0 - u0 * W2
    h2 -= u0 * W1 - u1 * W0
    ww = 0.25 * (W0 * W0 + W1 * W1 + W2 * W2)
    ew, ex, ey, ez = e
    S = _s_matrix(ew, ex, ey, ez)
    for j in range(nv):
        for side in range(2):  # 0: d/dq_j (DQ, AQ blocks), 1: d/dv_j (DV, AV)
            o = side  # (body 1's E[0], E[2]: dv/dq, da/dq; E[1], E[3]: dv/dv, da/dv)
            d0 = E[o, 3, j] - E[5 + o, 3, j]  # dW
            d1 = E[o, 4, j] - E[5 + o, 4, j]
            d2 = E[o, 5, j] - E[5 + o, 5, j]
            c0, c1, c2 = E[5 + o, 3, j], E[5 + o, 4, j], E[5 + o, 5, j]  # dw2
            g0 = E[o + 2, 3, j] - E[7 + o, 3, j] - (c1 * W2 - c2 * W1) - (u1 * d2 - u2 * d1)
            g1 = E[o + 2, 4, j] - E[7 + o, 4, j] - (c2 * W0 - c0 * W2) - (u2 * d0 - u0 * d2)
            g2 = E[o + 2, 5, j] - E[7 + o, 5, j] - (c0 * W1 - c1 * W0) - (u0 * d1 - u1 * d0)
            half = 0.5 * (W0 * d0 + W1 * d1 + W2 * d2)
            dc = (A[0] * g0 + A[1] * g1 + A[2] * g2 - half * ex,
                  A[3] * g0 + A[4] * g1 + A[5] * g2 - half * ey,
                  A[6] * g0 + A[7] * g1 + A[8] * g2 - half * ez)
            if side == 1:
                for i in range(3):
                    r = rr[3 + i]
                    if r >= 0:
                        Psi[r, j] += dt * dc[i]
                continue
            t1 = (E[1, 3, j], E[1, 4, j], E[1, 5, j])  # the turn of q_j: angular columns
            t2 = (E[6, 3, j], E[6, 4, j], E[6, 5, j])
            dA, de = _turned(b, S, ex, ey, ez, t1, t2)
            for i in range(3):
                r = rr[3 + i]
                if r < 0:
                    continue
                dJv = (dA[3 * i] * W0 + dA[3 * i + 1] * W1 + dA[3 * i + 2] * W2
                       + A[3 * i] * d0 + A[3 * i + 1] * d1 + A[3 * i + 2] * d2)
                dcq = (dc[i] + dA[3 * i] * h0 + dA[3 * i + 1] * h1 + dA[3 * i + 2] * h2
                       - ww * de[i])
                Phi[r, j] += -keep * dJv + dt * dcq
