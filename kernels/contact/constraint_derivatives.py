"""Derivatives of a time step's constraint percussions, with the active set held fixed.

The step (time_step.py) solves, after the free velocity, u = G lam + c for the percussions lam
of its m rows J (constraint_rows.py; G = J M_d^-1 J^T + R, R = r diag(J M_d^-1 J^T),
M_d = M + dt diag(damping)). With w = v+ and a = (w - v) / dt the solution satisfies
  (E)  M(q) (w - v) + dt h(q, v) + dt D w - dt tau_c - J(q)^T lam = 0       (dynamics)
  (U)  u = J(q) w - b(q, v) + R lam                                        (row velocities)
and, at a fixed point of the Gauss-Seidel sweep (pgs.py), for each row or contact:
  separated contact (lam_n = 0), limit at 0, friction at a bound, tangents with mu = 0:
        lam fixed (FIXED);
  contact sticking (lam_n > 0, ||lam_t|| < mu lam_n), limit pushing (lam > 0), friction
  strictly between its bounds, the normal of a sliding contact: u_r = 0 (EQUAL);
  contact sliding (||lam_t|| = mu lam_n and ||u_t|| > the solver tolerance):
        lam_t = -mu lam_n s, s = u_t / ||u_t||  (maximal dissipation; SLIDE).
Held to these classes (the active set), the equations are smooth, and the implicit function
theorem (as in Carpentier & Mansard, RSS 2018, for the unconstrained step) gives, with x any
of (q, v, tau) and Y = dw/dx at fixed lam (the unconstrained Jacobians, time_step's step with
J^T lam as an external percussion):
  dw = Y dx + M_d^-1 J^T dlam,   du = G dlam + c',   c' = J Y dx + Phi dx,
  EQUAL: du_r = 0;  FIXED: dlam_r = 0;
  SLIDE: dlam_t = -mu s dlam_n - kappa (I - s s^T) du_t,   kappa = mu lam_n / ||u_t||,
a linear system H dlam = rhs in the m rows (gauss.py) for all 3 nv directions at once.
Phi = d(J w)/dq - db/dq (at fixed w) and -db/dv:
  contact rows (direction e of n, t1, t2; sphere centre x fixed to body b, radius r, point
  p = x - r n): J_e w = e . (u(x) - r Omega x n), so d(J_e w)/dq = e . du(x)/dq
  - r (n x e) . dOmega/dq, from the LOCAL_WORLD_ALIGNED velocity derivatives of the point x
  (kinematics_derivatives.py); the target b = -phi / dt (phi > 0) or -erp phi / dt
  (phi <= 0) has db/dq = -(1 or erp) J_n / dt (dphi/dq = J_n); under restitution,
  b = -e J_n(q) v: db/dv = -e J_n, db/dq = -e d(J_n v)/dq (the same derivative at v);
  limit rows: db/dq = -(1 or erp) J_r / dt; friction rows: none.
In Y, d(J(q)^T lam)/dq at fixed lam: lam enters RNEA's derivatives as LOCAL external forces at
the contact points (rnea_derivatives.py differentiates them as fixed to the bodies), and the
contact force f is fixed in the world, applied at the moving point p: the difference, for dofs
k, j on the support of the body, with u_k(x) and w_k its point-velocity and angular columns,
  d(J^T lam)_k / dq_j - (fixed to the body) = -u_k(x) . (w_j x f) + r w_k . (w_j x (n x f))
(from d(oM_b)/dq_j = J_j oM_b: a body-fixed wrench W turns as J_j x* W, the world-fixed
force's moment (p x f) changes by u_j(x) x f). Not differentiated: the compliance R's own
dependence on q (through diag(J M_d^-1 J^T); held at its value, a term of relative size r,
1e-8 by default).
Soft contacts (softness.py; held to the same classes): the normal target is
b_n = k J_n(q) v - dt K d(phi) phi and the tangent targets b_t = k J_t(q) v, k = 1 - dt B,
so -db/dv = -k J and -db/dq = -k d(J v)/dq + dt K (d + d' phi) J_n (d' = dd/dphi; the
d(J v)/dq pass of restitution, with coefficient -k on all three rows); and their compliance
R_r = rho_r (1 - d) / d w (w the sphere's inverse weight, a model constant, rho_r 1 on the
normal and 1 / impratio on the tangents) moves with the gap: du_r gains
lam_r dR_r/dq = -lam_r rho_r w d' / d^2 J_n, added to Phi.
Degenerate states take one side: lam_n = 0 exactly is separated, lam_n > 0 is in contact
(also at zero gap); a contact on the cone's boundary whose slip speed is within the solver
tolerance is sticking; a limit or friction row exactly at a bound is fixed there; a gap
phi = 0 takes the erp slope; restitution equal to the stabilization target takes the latter.
"""

from math import sqrt

from .._jit import jit
from ..layout import (H_N, H_OFFSET, H_RESTITUTION, H_T1, H_T2, LOCAL_WORLD_ALIGNED, O_BOUNCE,
                      O_DT, O_ERP, O_IMPRATIO, O_TOL, OM, P_Q_LOWER, P_Q_UPPER)
from ..linalg.cholesky import solve_rows
from .constraint_rows import REST_GAP, along, sphere_rows
from .equality_derivatives import EQ_SCRATCH
from ..linalg.gauss import gauss_solve
from ..algorithms.kinematics_derivatives import kinematics_derivatives, motion_derivatives
from .pgs import row_velocity
from .softness import impedance, impedance_slope, is_soft, stiffness_damping

FIXED = 0
EQUAL = 1
SLIDE = 2
BOUNDARY = 1e-9  # ||lam_t|| >= mu lam_n (1 - BOUNDARY): on the cone (PGS projects onto it)
RCOND = 1e-13  # a pivot this small relative to H is singular (redundant rows without compliance)


@jit
def constraint_size(nv, npair, njoints, nkeys):
    """Floats of the buffer ``constraint_buffers`` cuts for npair contact entries (sphere
    pairs, the constraints' room, geom contacts) and nkeys warm-start keys (geom_rows.py)."""
    rows = 3 * npair + 3 * nv
    return (6 * njoints + 3 * npair + 3 * nv + nkeys + 6 * npair + 3 + 3 * rows + 3 * npair
            + rows * rows + 5 * rows * nv + 12 * nv + 12 + nv + 3 * nv * nv
            + EQ_SCRATCH * 6 * nv)


@jit(inline="always")  # returns views: compiled into its caller (_jit.py)
def constraint_buffers(cbuf, nv, npair, njoints, nkeys):
    """Views of cbuf: F (njoints, 6) external forces with the contacts', the step's warm start
    (with nkeys keys), cf (npair, 6) and stats (3,), per row kind, kb (the target's slope) and
    er (restitution), per contact (s1, s2, kappa) of a sliding one, H (rows, rows),
    X (rows, 3 nv), Phi (rows, nv), the point derivatives DQ, DV (6, nv), a placement (12), a
    zero (nv), T (nv, 3 nv), Psi (rows, nv) and E (EQ_SCRATCH, 6, nv) (the equality rows',
    equality_derivatives.py)."""
    rows = 3 * npair + 3 * nv
    o = 0
    F = cbuf[o:o + 6 * njoints].reshape((njoints, 6))
    o += 6 * njoints
    warm = cbuf[o:o + 3 * npair + 3 * nv + nkeys]
    o += 3 * npair + 3 * nv + nkeys
    cf = cbuf[o:o + 6 * npair].reshape((npair, 6))
    o += 6 * npair
    stats = cbuf[o:o + 3]
    o += 3
    kind = cbuf[o:o + rows]
    kb = cbuf[o + rows:o + 2 * rows]
    er = cbuf[o + 2 * rows:o + 3 * rows]
    o += 3 * rows
    slide = cbuf[o:o + 3 * npair].reshape((npair, 3))
    o += 3 * npair
    H = cbuf[o:o + rows * rows].reshape((rows, rows))
    o += rows * rows
    X = cbuf[o:o + 3 * rows * nv].reshape((rows, 3 * nv))
    o += 3 * rows * nv
    Phi = cbuf[o:o + rows * nv].reshape((rows, nv))
    o += rows * nv
    DQ = cbuf[o:o + 6 * nv].reshape((6, nv))
    DV = cbuf[o + 6 * nv:o + 12 * nv].reshape((6, nv))
    o += 12 * nv
    pl = cbuf[o:o + 12]
    za = cbuf[o + 12:o + 12 + nv]
    o += 12 + nv
    T = cbuf[o:o + 3 * nv * nv].reshape((nv, 3 * nv))
    o += 3 * nv * nv
    Psi = cbuf[o:o + rows * nv].reshape((rows, nv))
    o += rows * nv
    E = cbuf[o:o + EQ_SCRATCH * 6 * nv].reshape((EQ_SCRATCH, 6, nv))
    return F, warm, cf, stats, kind, kb, er, slide, H, X, Phi, DQ, DV, pl, za, T, Psi, E


@jit
def count_contacts(slot, m, nslot, eq0, eq1):
    """The number of contacts among the step's m rows (contact rows come first; their
    warm-start slots are below nslot and outside the constraints' [eq0, eq1))."""
    r = 0
    while r < m and slot[r] < nslot and not eq0 <= slot[r] < eq1:
        r += 1
    return r // 3


@jit
def classify(opt, nc, m, G, c, lam, lo, hi, mu, kind, slide):
    """kind[:m] (FIXED, EQUAL, SLIDE) from the solved percussions, and (s1, s2, kappa) of
    each sliding contact (module docstring)."""
    for i in range(nc):
        n = 3 * i
        kind[n] = kind[n + 1] = kind[n + 2] = FIXED
        if not lam[n] > 0.0:
            continue
        kind[n] = EQUAL
        if mu[i] == 0.0:
            continue
        radius = mu[i] * lam[n]
        norm = sqrt(lam[n + 1] * lam[n + 1] + lam[n + 2] * lam[n + 2])
        u1, u2 = row_velocity(G, c, lam, m, n + 1), row_velocity(G, c, lam, m, n + 2)
        speed = sqrt(u1 * u1 + u2 * u2)
        if norm >= radius * (1.0 - BOUNDARY) and speed > opt[O_TOL] and speed > 0.0:
            kind[n + 1] = kind[n + 2] = SLIDE
            slide[i, 0], slide[i, 1], slide[i, 2] = u1 / speed, u2 / speed, radius / speed
        else:
            kind[n + 1] = kind[n + 2] = EQUAL
    for r in range(3 * nc, m):
        kind[r] = FIXED if lam[r] == lo[r] or lam[r] == hi[r] else EQUAL


@jit
def _centre(sph, s, ws):
    sp = sph[s]
    w = ws[sp.joint]
    c = sp.p
    return (w[OM] * c[0] + w[OM + 1] * c[1] + w[OM + 2] * c[2] + w[OM + 9],
            w[OM + 3] * c[0] + w[OM + 4] * c[1] + w[OM + 5] * c[2] + w[OM + 10],
            w[OM + 6] * c[0] + w[OM + 7] * c[1] + w[OM + 8] * c[2] + w[OM + 11])


@jit
def targets(jnt, prm, dof, sph, hsp, opt, q, v, ws, nc, m, J, vf, pair, slot, nslot, kind, kb,
            er):
    """kb[r] = -db_r/dphi (1 / dt or erp / dt) of each EQUAL normal or limit row, er[r] the
    restitution coefficient of a normal row whose target is Newton's (then kb[r] = 0), as
    constraint_rows.py chose them; on a soft contact kb[n] = dt K (d + d' phi) and
    er = -(1 - dt B) on its three rows (limit slots from nslot on; the constraints' rows,
    below it: equality_derivatives.py's). Needs time_step's placements in ws."""
    dt, erp, bounce = opt[O_DT], opt[O_ERP], opt[O_BOUNCE]
    nh = hsp.shape[0]
    nv = vf.shape[0]
    for r in range(m):
        kb[r] = 0.0
        er[r] = 0.0
    nsph = sph.shape[0] * nh
    for i in range(nc):
        n = 3 * i
        if pair[i] >= nsph or kind[n] != EQUAL:  # (geom contacts: geom_derivatives.py)
            continue
        s, e = pair[i] // nh, pair[i] % nh
        h = hsp[e]
        # the step's own gap and sums (rewriting J's rows n..n+2 as they are), so that the
        # targets are classified as constraint_rows.contact_rows classified them, to the bit
        phi, _, _, _, u0, u1, u2, f0, f1, f2 = sphere_rows(jnt, sph, hsp, s, e, ws, v, vf, J, n)
        if is_soft(h):
            K, B = stiffness_damping(h, dt)
            kb[n] = dt * K * (impedance(h, phi) + impedance_slope(h, phi) * phi)
            er[n] = er[n + 1] = er[n + 2] = -(1.0 - dt * B)
            continue
        b = -phi / dt if phi > 0.0 else -erp * phi / dt
        un, un0 = along(h, H_N, f0, f1, f2), along(h, H_N, u0, u1, u2)
        rest = h[H_RESTITUTION]
        if rest > 0.0 and un0 < -bounce and phi + dt * un < REST_GAP and -rest * un0 > b:
            er[n] = rest
        else:
            kb[n] = 1.0 / dt if phi > 0.0 else erp / dt
    for r in range(3 * nc, m):
        o = slot[r] - nslot
        if kind[r] != EQUAL or o < 0 or o >= 2 * nv:  # friction rows have no target
            continue
        side, k = o // nv, o % nv
        j = dof[k].joint
        d = k - jnt[j].idx_v
        x = q[jnt[j].idx_q + d]
        phi = x - prm[j, P_Q_LOWER + d] if side == 0 else prm[j, P_Q_UPPER + d] - x
        kb[r] = 1.0 / dt if phi > 0.0 else erp / dt


@jit
def contact_wrenches(sph, hsp, fext, ws, nc, lam, pair, point, dt, F):
    """F = fext (or zero) plus each contact's force lam / dt at its point, as LOCAL forces on
    the sphere's body (RNEA's convention). Needs time_step's placements in ws."""
    for i in range(F.shape[0]):
        for k in range(6):
            F[i, k] = fext[i, k] if fext.shape[0] > 0 else 0.0
    nh = hsp.shape[0]
    for i in range(nc):
        n = 3 * i
        if pair[i] >= sph.shape[0] * nh:  # (geom contacts: geom_derivatives.py)
            continue
        h = hsp[pair[i] % nh]
        b = sph[pair[i] // nh].joint
        f0 = (lam[n] * h[H_N] + lam[n + 1] * h[H_T1] + lam[n + 2] * h[H_T2]) / dt
        f1 = (lam[n] * h[H_N + 1] + lam[n + 1] * h[H_T1 + 1] + lam[n + 2] * h[H_T2 + 1]) / dt
        f2 = (lam[n] * h[H_N + 2] + lam[n + 1] * h[H_T1 + 2] + lam[n + 2] * h[H_T2 + 2]) / dt
        f = (f0, f1, f2)
        w = ws[b]
        r0 = point[i, 0] - w[OM + 9]
        r1 = point[i, 1] - w[OM + 10]
        r2 = point[i, 2] - w[OM + 11]
        m = (r1 * f[2] - r2 * f[1], r2 * f[0] - r0 * f[2], r0 * f[1] - r1 * f[0])
        for k in range(3):  # R^T (world to the body's axes)
            F[b, k] += w[OM + k] * f[0] + w[OM + 3 + k] * f[1] + w[OM + 6 + k] * f[2]
            F[b, 3 + k] += w[OM + k] * m[0] + w[OM + 3 + k] * m[1] + w[OM + 6 + k] * m[2]


@jit
def _dir(h, o, DQ, k):
    """h[o:o+3] . (rows 0..2 of DQ at column k), then the same with rows 3..5."""
    lin = h[o] * DQ[0, k] + h[o + 1] * DQ[1, k] + h[o + 2] * DQ[2, k]
    ang = h[o] * DQ[3, k] + h[o + 1] * DQ[4, k] + h[o + 2] * DQ[5, k]
    return lin, ang


@jit
def contact_terms(jnt, prm, sph, hsp, q, w, ws, nc, lam, pair, kind, er, restitution, dt,
                  za, pl, DQ, DV, Aq, Phi):
    """The pass of kinematics_derivatives.py at velocity w, then for each contact the
    derivatives of its point's velocity: with ``restitution`` False (w = v+), Phi's contact
    rows d(J_e w)/dq and Aq's correction -(d(J^T lam)/dq - its body-fixed part) / dt; with
    ``restitution`` True (w = v), er d(J_n v)/dq on restitution rows only."""
    nv = w.shape[0]
    nh = hsp.shape[0]
    for k in range(nv):
        za[k] = 0.0
    kinematics_derivatives(jnt, prm, q, w, za, ws)
    none = DQ[:, :0]
    for i in range(nc):
        n = 3 * i
        if pair[i] >= sph.shape[0] * nh:  # (geom contacts: geom_derivatives.py)
            continue
        if restitution and er[n] == 0.0 and er[n + 1] == 0.0:
            continue
        moved = lam[n] != 0.0 or lam[n + 1] != 0.0 or lam[n + 2] != 0.0
        if not restitution and kind[n] == FIXED and not moved:
            continue
        s, e = pair[i] // nh, pair[i] % nh
        h = hsp[e]
        b = sph[s].joint
        pl[9], pl[10], pl[11] = _centre(sph, s, ws)
        motion_derivatives(jnt, ws, b, pl, 0, LOCAL_WORLD_ALIGNED, DQ, DV, none, none, none)
        rad = sph[s].radius
        if restitution:  # (tangent rows: soft contacts' targets, module docstring)
            for k in range(nv):
                Phi[n, k] += er[n] * _dir(h, H_N, DQ, k)[0]
                if er[n + 1] != 0.0:
                    Phi[n + 1, k] += er[n + 1] * (_dir(h, H_T1, DQ, k)[0]
                                                  - rad * _dir(h, H_T2, DQ, k)[1])
                    Phi[n + 2, k] += er[n + 2] * (_dir(h, H_T2, DQ, k)[0]
                                                  + rad * _dir(h, H_T1, DQ, k)[1])
            continue
        for k in range(nv):
            if kind[n] != FIXED:
                Phi[n, k] += _dir(h, H_N, DQ, k)[0]
            if kind[n + 1] != FIXED:  # n x t1 = t2, n x t2 = -t1
                Phi[n + 1, k] += _dir(h, H_T1, DQ, k)[0] - rad * _dir(h, H_T2, DQ, k)[1]
                Phi[n + 2, k] += _dir(h, H_T2, DQ, k)[0] + rad * _dir(h, H_T1, DQ, k)[1]
        if not moved:
            continue
        f0 = lam[n] * h[H_N] + lam[n + 1] * h[H_T1] + lam[n + 2] * h[H_T2]
        f1 = lam[n] * h[H_N + 1] + lam[n + 1] * h[H_T1 + 1] + lam[n + 2] * h[H_T2 + 1]
        f2 = lam[n] * h[H_N + 2] + lam[n + 1] * h[H_T1 + 2] + lam[n + 2] * h[H_T2 + 2]
        g0 = h[H_N + 1] * f2 - h[H_N + 2] * f1  # n x f
        g1 = h[H_N + 2] * f0 - h[H_N] * f2
        g2 = h[H_N] * f1 - h[H_N + 1] * f0
        jj = b
        while jj > 0:  # the body's support, dof j (the other dofs leave the point alone)
            for dj in range(jnt[jj].nv):
                j = jnt[jj].idx_v + dj
                w0, w1, w2 = DV[3, j], DV[4, j], DV[5, j]
                a0, a1, a2 = w1 * f2 - w2 * f1, w2 * f0 - w0 * f2, w0 * f1 - w1 * f0  # w_j x f
                c0, c1, c2 = w1 * g2 - w2 * g1, w2 * g0 - w0 * g2, w0 * g1 - w1 * g0
                kk = b
                while kk > 0:  # ... and dof k
                    for dk in range(jnt[kk].nv):
                        k = jnt[kk].idx_v + dk
                        corr = (DV[0, k] * a0 + DV[1, k] * a1 + DV[2, k] * a2
                                - rad * (DV[3, k] * c0 + DV[4, k] * c1 + DV[5, k] * c2))
                        Aq[k, j] += corr / dt
                    kk = jnt[kk].parent
            jj = jnt[jj].parent


@jit
def compliance_terms(sph, hsp, opt, ws, nc, lam, pair, kind, J, Phi):
    """Phi's compliance terms lam_r dR_r/dq of the non-FIXED rows of soft contacts (module
    docstring). Needs time_step's placements in ws."""
    nh = hsp.shape[0]
    nv = J.shape[1]
    for i in range(nc):
        n = 3 * i
        if pair[i] >= sph.shape[0] * nh:  # (geom contacts: geom_derivatives.py)
            continue
        s, e = pair[i] // nh, pair[i] % nh
        h = hsp[e]
        if kind[n] == FIXED or not is_soft(h):
            continue
        x0, x1, x2 = _centre(sph, s, ws)
        phi = h[H_N] * x0 + h[H_N + 1] * x1 + h[H_N + 2] * x2 - h[H_OFFSET] - sph[s].radius
        d = impedance(h, phi)
        slope = -impedance_slope(h, phi) / (d * d) * sph[s].invweight  # dR_n/dphi
        for r in range(n, n + 3):
            if kind[r] == FIXED:
                continue
            g = lam[r] * slope / (1.0 if r == n else max(opt[O_IMPRATIO], 1e-15))
            for k in range(nv):
                Phi[r, k] += g * J[n, k]


@jit
def limit_terms(nc, m, J, kind, kb, Phi):
    """Phi's target terms: kb J_r on EQUAL normal and limit rows (module docstring)."""
    nv = J.shape[1]
    for r in range(m):
        if kind[r] == EQUAL and kb[r] != 0.0:
            for k in range(nv):
                Phi[r, k] += kb[r] * J[r, k]


@jit
def constrained_rows(dof, Uf, D, nc, m, J, G, kind, er, slide, mu, Phi, Psi, H, X, T, A, B):
    """Adds M_d^-1 J^T dlam to the velocity rows of A (nv.., 2 nv) and B (nv.., nv), which hold
    Y on entry (the derivatives at fixed lam). Psi: -db/dv beyond er J (rows, nv; None: none,
    a step without soft constraints). Returns -1, or the column where the linearized problem
    H is singular."""
    nv = J.shape[1]
    nx = 3 * nv
    for r in range(m):  # c' = J Y + Phi
        for k in range(nx):
            X[r, k] = 0.0
        for ll in range(nv):
            jr = J[r, ll]
            if jr != 0.0:
                for k in range(2 * nv):
                    X[r, k] += jr * A[nv + ll, k]
                for k in range(nv):
                    X[r, 2 * nv + k] += jr * B[nv + ll, k]
        for k in range(nv):
            X[r, k] += Phi[r, k]
            X[r, nv + k] += er[r] * J[r, k]
        if Psi is not None:
            for k in range(nv):
                X[r, nv + k] += Psi[r, k]
    for r in range(m):
        for s in range(m):
            H[r, s] = 0.0
        if kind[r] == FIXED:
            H[r, r] = 1.0
            for k in range(nx):
                X[r, k] = 0.0
        elif kind[r] == EQUAL:
            for s in range(m):
                H[r, s] = G[r, s]
            for k in range(nx):
                X[r, k] = -X[r, k]
    for i in range(nc):
        n = 3 * i
        if kind[n + 1] != SLIDE:
            continue
        s1, s2, kappa = slide[i, 0], slide[i, 1], slide[i, 2]
        p11, p12, p22 = 1.0 - s1 * s1, -s1 * s2, 1.0 - s2 * s2
        for s in range(m):
            H[n + 1, s] = kappa * (p11 * G[n + 1, s] + p12 * G[n + 2, s])
            H[n + 2, s] = kappa * (p12 * G[n + 1, s] + p22 * G[n + 2, s])
        H[n + 1, n + 1] += 1.0
        H[n + 2, n + 2] += 1.0
        H[n + 1, n] += mu[i] * s1
        H[n + 2, n] += mu[i] * s2
        for k in range(nx):
            x1, x2 = X[n + 1, k], X[n + 2, k]
            X[n + 1, k] = -kappa * (p11 * x1 + p12 * x2)
            X[n + 2, k] = -kappa * (p12 * x1 + p22 * x2)
    bad = gauss_solve(H, m, X[:m], RCOND)
    if bad >= 0:
        return bad
    for k in range(nv):  # T = J^T dlam
        for c in range(nx):
            T[k, c] = 0.0
    for r in range(m):
        for k in range(nv):
            jr = J[r, k]
            if jr != 0.0:
                for c in range(nx):
                    T[k, c] += jr * X[r, c]
    solve_rows(dof, Uf, D, T)
    for k in range(nv):
        for c in range(2 * nv):
            A[nv + k, c] += T[k, c]
        for c in range(nv):
            B[nv + k, c] += T[k, 2 * nv + c]
    return -1
