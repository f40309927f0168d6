"""Derivatives of constrained dynamics, d(ddq, lambda)/d(q, v, tau), and of impulse dynamics,
d(v+, Lambda)/d(q, v-), for contacts with the world.

Source: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS
2018 (the derivatives of RNEA and of frame motions, rnea_derivatives.py and
kinematics_derivatives.py), applied as Pinocchio's computeConstraintDynamicsDerivatives does
(Carpentier, Budhiraja, Mansard, RSS 2021): at the solution of constrained_dynamics.py,
    r1(q, v, ddq, lam) = RNEA(q, v, ddq) - J(q)^T lam - tau = 0
    r2(q, v, ddq)      = a_c(q, v, ddq) - b(q, v) = 0
with a_c = J ddq + gamma the constraint's acceleration (classical for a point, spatial for a
frame) and b Baumgarte's term -Kp e - Kd de/dt (rigid_constraints.py). By the implicit
function theorem, for x = q (along tangent vectors, q (+) dx) and x = v:
    [M  -J^T] [d ddq/dx]     [dr1/dx]
    [J   0  ] [d lam/dx] = - [dr2/dx],
solved on the factorizations constrained_dynamics made:
    Y = M^-1 dr1/dx,   d lam/dx = G^-1 (J Y - dr2/dx),   d ddq/dx = -Y + M^-1 J^T d lam/dx;
    d lam/dtau = -G^-1 J M^-1,   d ddq/dtau = M^-1 + M^-1 J^T d lam/dtau.
dr1/dx is RNEA's derivative at (q, v, ddq) with the constraint forces as external forces
fixed in their contact frames; a LOCAL_WORLD_ALIGNED force is fixed in the world instead, so
its frame's turning adds J_c^T (w_k x f_c) to column k (w_k, f_c: the frame's angular
Jacobian column and the force, in the frame's axes). dr2/dx comes from the frame's LOCAL
velocity and acceleration derivatives (kinematics_derivatives.py): for a point,
    d a_c = d a_lin + d w x v_lin + w x d v_lin,   d e/dq_k = J_lin,k - J_ang,k x e
(e = R1^T (p1 - p2), the position error in the frame); for a frame, d e/dq_k = -D0 J_k with
D0 the derivative of log6(oMc1^-1 oMc2) with respect to oMc1 (configuration/se3.py's
d_difference). LOCAL_WORLD_ALIGNED rows are R1 times the LOCAL ones; their derivatives add
w_k x R1 r2, which vanishes at the solution (r2 = 0). Impulse dynamics is the same with
    r1 = M(q) (v+ - v-) - J(q)^T Lambda = RNEA(q, 0, v+ - v-) - g(q) - J^T Lambda,
    r2 = J(q) (v+ + e v-)
(the frame's velocity derivatives at v+ + e v-), and for v-: d Lambda/dv- = -(1 + e) G^-1 J,
d v+/dv- = I + M^-1 J^T d Lambda/dv-. A joint coupling's row (kind 1, rigid_constraints.py)
has a constant J: it adds no spatial force to r1, and its r2 derivatives are Kp J along q
and Kd J along v (zero along q for impulses). Loop closures (joint2 > 0 on a frame
constraint) are not handled here: the object API refuses them.
"""

from .._jit import jit
from ..algorithms.kinematics_derivatives import kinematics_derivatives, motion_derivatives
from ..algorithms.rnea_derivatives import rnea_derivatives, static_torque_derivatives
from ..configuration.se3 import d_difference
from ..layout import LOCAL, V
from ..linalg.cholesky import inverse_sparse, solve_rows
from ..spatial import motion
from ..spatial.rotations import matrix_to_quat
from .constrained_dynamics import constraint_dynamics, impulse_dynamics, views, work_size
from .rigid_constraints import COUPLING, T_C1, T_C2, T_ROT, placements


@jit
def derivatives_work_size(nv, m, njoints):
    """Floats of scratch: constraint_dynamics' and the forces, five (6, nv) frame derivatives,
    M^-1 J^T (nv, m) and 64 floats for one 6x6 block and two placements."""
    return work_size(nv, m) + 6 * njoints + 30 * nv + m * nv + 64


@jit(inline="always")
def _extra(work, nv, m, njoints):
    """fext (njoints, 6), dv_dq, dv_dv, da_dq, da_dv, da_da (6, nv), W = M^-1 J^T (nv, m),
    D6 (6, 6), q0, q1 (7,): views of work after constraint_dynamics' part."""
    o = work_size(nv, m)
    fext = work[o:o + 6 * njoints].reshape((njoints, 6))
    o += 6 * njoints
    dv_dq = work[o:o + 6 * nv].reshape((6, nv))
    dv_dv = work[o + 6 * nv:o + 12 * nv].reshape((6, nv))
    da_dq = work[o + 12 * nv:o + 18 * nv].reshape((6, nv))
    da_dv = work[o + 18 * nv:o + 24 * nv].reshape((6, nv))
    da_da = work[o + 24 * nv:o + 30 * nv].reshape((6, nv))
    o += 30 * nv
    W = work[o:o + m * nv].reshape((nv, m))
    o += m * nv
    D6 = work[o:o + 36].reshape((6, 6))
    return fext, dv_dq, dv_dv, da_dq, da_dv, da_da, W, D6, work[o + 36:o + 43], \
        work[o + 43:o + 50]


@jit
def _rot_t(tmp, x, y, z):
    """R1^T (x, y, z), R1 = oMc1's rotation (rigid_constraints' tmp)."""
    return (tmp[T_C1] * x + tmp[T_C1 + 3] * y + tmp[T_C1 + 6] * z,
            tmp[T_C1 + 1] * x + tmp[T_C1 + 4] * y + tmp[T_C1 + 7] * z,
            tmp[T_C1 + 2] * x + tmp[T_C1 + 5] * y + tmp[T_C1 + 8] * z)


@jit
def _forces(cst, ws, lam, tmp, fext):
    """fext[j] (LOCAL, joint j's frame) = the forces lam of the constraints on joint j."""
    fext[:, :] = 0.0
    for k in range(cst.shape[0]):
        c = cst[k]
        if c.kind == COUPLING:  # a generalized force along a constant J: no spatial force
            continue
        placements(cst, k, ws, tmp)
        r = c.row
        f = (lam[r], lam[r + 1], lam[r + 2])
        t = (0.0, 0.0, 0.0) if c.kind == 3 else (lam[r + 3], lam[r + 4], lam[r + 5])
        if c.reference != LOCAL:  # world axes -> the frame's
            f = _rot_t(tmp, f[0], f[1], f[2])
            t = _rot_t(tmp, t[0], t[1], t[2])
        R, p = c.R1, c.p1  # the frame in its joint: jXc^* [f; t] = [R f; p x R f + R t]
        fx = R[0, 0] * f[0] + R[0, 1] * f[1] + R[0, 2] * f[2]
        fy = R[1, 0] * f[0] + R[1, 1] * f[1] + R[1, 2] * f[2]
        fz = R[2, 0] * f[0] + R[2, 1] * f[1] + R[2, 2] * f[2]
        m = motion.cross3(p[0], p[1], p[2], fx, fy, fz)
        j = c.joint1
        fext[j, 0] += fx
        fext[j, 1] += fy
        fext[j, 2] += fz
        for a in range(3):
            fext[j, 3 + a] += m[a] + R[a, 0] * t[0] + R[a, 1] * t[1] + R[a, 2] * t[2]


@jit
def _frame_velocity(c, ws):
    """The LOCAL velocity of c1 (a 6-tuple) from its joint's LOCAL velocity."""
    w = ws[c.joint1]
    R, p = c.R1, c.p1
    wx, wy, wz = w[V + 3], w[V + 4], w[V + 5]
    u = motion.cross3(wx, wy, wz, p[0], p[1], p[2])
    vx, vy, vz = w[V] + u[0], w[V + 1] + u[1], w[V + 2] + u[2]
    return (R[0, 0] * vx + R[1, 0] * vy + R[2, 0] * vz,
            R[0, 1] * vx + R[1, 1] * vy + R[2, 1] * vz,
            R[0, 2] * vx + R[1, 2] * vy + R[2, 2] * vz,
            R[0, 0] * wx + R[1, 0] * wy + R[2, 0] * wz,
            R[0, 1] * wx + R[1, 1] * wy + R[2, 1] * wz,
            R[0, 2] * wx + R[1, 2] * wy + R[2, 2] * wz)


@jit
def _pose(tmp, o, out):
    """out (7,) = the placement tmp[o:o+12] as a free-flyer configuration (p, quaternion)."""
    R = tmp[T_ROT:T_ROT + 9].reshape((3, 3))
    for k in range(9):
        tmp[T_ROT + k] = tmp[o + k]
    out[0], out[1], out[2] = tmp[o + 9], tmp[o + 10], tmp[o + 11]
    matrix_to_quat(R, out[3:7])


@jit
def _classical(vl, kd, dv, da, X):
    """X (3, nv) = d/dx of the classical acceleration a_lin + w x v_lin plus Kd d v_lin/dx,
    from the frame's LOCAL velocity vl and its derivatives dv, da along x."""
    for k in range(dv.shape[1]):
        a = motion.cross3(dv[3, k], dv[4, k], dv[5, k], vl[0], vl[1], vl[2])
        b = motion.cross3(vl[3], vl[4], vl[5], dv[0, k], dv[1, k], dv[2, k])
        for r in range(3):
            X[r, k] = da[r, k] + a[r] + b[r] + kd * dv[r, k]


@jit
def _point_rows(c, vl, tmp, dv_dq, dv_dv, da_dq, da_dv, da_da, Rq, Rv):
    """Rq, Rv (3, nv) = dr2/dq, dr2/dv of a point contact, in the frame's axes."""
    x, y, z = (tmp[T_C1 + 9] - tmp[T_C2 + 9], tmp[T_C1 + 10] - tmp[T_C2 + 10],
               tmp[T_C1 + 11] - tmp[T_C2 + 11])
    e = _rot_t(tmp, x, y, z)
    _classical(vl, c.kd, dv_dq, da_dq, Rq)
    _classical(vl, c.kd, dv_dv, da_dv, Rv)
    if c.kp != 0.0:  # Kp de/dq_k = Kp (J_lin,k - J_ang,k x e)
        for k in range(dv_dq.shape[1]):
            g = motion.cross3(da_da[3, k], da_da[4, k], da_da[5, k], e[0], e[1], e[2])
            for r in range(3):
                Rq[r, k] += c.kp * (da_da[r, k] - g[r])


@jit
def _frame_rows(c, tmp, dv_dq, dv_dv, da_dq, da_dv, da_da, D6, q0, q1, Rq, Rv):
    """Rq, Rv (6, nv) = dr2/dq, dr2/dv of a frame contact, in the frame's axes."""
    kp, kd = c.kp, c.kd
    if kp != 0.0:
        _pose(tmp, T_C1, q0)
        _pose(tmp, T_C2, q1)
        d_difference(q0, q1, 0, 0, 0, D6)  # d log6(oMc1^-1 oMc2) / d oMc1 (body-fixed)
    for k in range(dv_dq.shape[1]):
        for r in range(6):
            Rq[r, k] = da_dq[r, k] + kd * dv_dq[r, k]
            Rv[r, k] = da_dv[r, k] + kd * dv_dv[r, k]
        if kp != 0.0:  # -Kp de/dq_k = -Kp D0 J_k  (e = -log6)
            for r in range(6):
                acc = 0.0
                for s in range(6):
                    acc += D6[r, s] * da_da[s, k]
                Rq[r, k] -= kp * acc


@jit
def _to_world(tmp, X, halves):
    """X's rows, 3 at a time, from the frame's axes to the world's: R1 x."""
    for h in range(halves):
        for k in range(X.shape[1]):
            x, y, z = X[3 * h, k], X[3 * h + 1, k], X[3 * h + 2, k]
            for r in range(3):
                X[3 * h + r, k] = (tmp[T_C1 + 3 * r] * x + tmp[T_C1 + 3 * r + 1] * y
                                   + tmp[T_C1 + 3 * r + 2] * z)


@jit
def _turning_force(c, lam, tmp, da_da, dr1):
    """dr1/dq += J_c^T (w_k x f_c) for a LOCAL_WORLD_ALIGNED force (module docstring)."""
    r = c.row
    f = _rot_t(tmp, lam[r], lam[r + 1], lam[r + 2])
    t = (0.0, 0.0, 0.0) if c.kind == 3 else _rot_t(tmp, lam[r + 3], lam[r + 4], lam[r + 5])
    nv = dr1.shape[0]
    for k in range(nv):
        if da_da[3, k] == 0.0 and da_da[4, k] == 0.0 and da_da[5, k] == 0.0:
            continue
        u = motion.cross3(da_da[3, k], da_da[4, k], da_da[5, k], f[0], f[1], f[2])
        w = motion.cross3(da_da[3, k], da_da[4, k], da_da[5, k], t[0], t[1], t[2])
        for lcol in range(nv):
            acc = (da_da[0, lcol] * u[0] + da_da[1, lcol] * u[1] + da_da[2, lcol] * u[2]
                   + da_da[3, lcol] * w[0] + da_da[4, lcol] * w[1] + da_da[5, lcol] * w[2])
            dr1[lcol, k] += acc


@jit
def _solve_columns(F, X):
    """X (m, n) <- G^-1 X (F: G's Cholesky factor, ``solve_factored``'s sweeps): the sweeps
    run on whole rows of X, every column at once (contiguous inner loops, no chain of
    dependent operations per column), in solve_factored's order of operations."""
    m = X.shape[0]
    for i in range(m):
        for k in range(i):
            _axpy(X, i, -F[i, k], k)
        _scale(X, i, 1.0 / F[i, i])
    for i in range(m - 1, -1, -1):
        for k in range(i + 1, m):
            _axpy(X, i, -F[k, i], k)
        _scale(X, i, 1.0 / F[i, i])


@jit(inline="always")
def _axpy(X, i, a, k):
    """X[i] += a X[k]."""
    for col in range(X.shape[1]):
        X[i, col] += a * X[k, col]


@jit(inline="always")
def _scale(X, i, a):
    for col in range(X.shape[1]):
        X[i, col] *= a


@jit
def _implicit(dof, U, D, J, W, F, X, L):
    """X (nv, nv) = dr1/dx, L (m, nv) = dr2/dx in; d ddq/dx, d lam/dx out (module
    docstring), W = M^-1 J^T."""
    nv, m = X.shape[0], L.shape[0]
    solve_rows(dof, U, D, X)  # Y
    for r in range(m):  # L <- J Y - L
        for col in range(nv):
            L[r, col] = -L[r, col]
        _add_rows(L, r, J[r], X)
    _solve_columns(F, L)
    for s in range(nv):  # X <- W L - X
        for col in range(nv):
            X[s, col] = -X[s, col]
        _add_rows(X, s, W[s], L)


@jit
def _add_rows(Y, i, c, X):
    """Y[i] += c @ X: whole rows of X at a time, so the inner loop runs along contiguous rows
    with no chain of dependent additions (a dot product down X's columns is one long chain),
    and a zero of c (J's columns off the contact's branch) skips its row. The sum runs in the
    order of the dot product, so the result is the same."""
    for s in range(c.shape[0]):
        w = c[s]
        if w != 0.0:
            for col in range(Y.shape[1]):
                Y[i, col] += w * X[s, col]


@jit
def constraint_dynamics_derivatives(jnt, prm, dof, cst, q, v, tau, prox, ws, work, ddq, lam,
                                    ddq_d, lam_d):
    """ddq, lam as constraint_dynamics (prox's mu must be 0), then ddq_d (3, nv, nv) =
    d ddq/d(q, v, tau) and lam_d (3, m, nv) = d lam/d(q, v, tau). Contacts with the world
    only (every joint2 = 0). Returns constraint_dynamics' (status, detail)."""
    nv = v.shape[0]
    m = lam.shape[0]
    status, detail = constraint_dynamics(jnt, prm, dof, cst, q, v, tau, prox, ws, work, ddq, lam)
    if status != 0:
        return status, detail
    M, U, D, h, x, zero, J, Z, G, F, rhs, b, prev, tip, soft, tmp = views(work, nv, m)
    fext, dv_dq, dv_dv, da_dq, da_dv, da_da, W, D6, q0, q1 = _extra(work, nv, m, jnt.shape[0])
    _forces(cst, ws, lam, tmp, fext)
    dr1q, dr1v, Minv = ddq_d[0], ddq_d[1], ddq_d[2]
    dr2q, dr2v = lam_d[0], lam_d[1]
    rnea_derivatives(jnt, prm, q, v, ddq, fext, ws, h, dr1q, dr1v, M)
    kinematics_derivatives(jnt, prm, q, v, ddq, ws)
    for k in range(cst.shape[0]):
        c = cst[k]
        r, n = c.row, c.kind
        if n == COUPLING:  # r2 = J ddq + Kp e + Kd de/dt with J constant
            for col in range(nv):
                dr2q[r, col] = c.kp * J[r, col]
                dr2v[r, col] = c.kd * J[r, col]
            continue
        placements(cst, k, ws, tmp)
        motion_derivatives(jnt, ws, c.joint1, tmp, T_C1, LOCAL, dv_dq, dv_dv, da_dq, da_dv,
                           da_da)
        if n == 3:
            _point_rows(c, _frame_velocity(c, ws), tmp, dv_dq, dv_dv, da_dq, da_dv, da_da,
                        dr2q[r:r + 3], dr2v[r:r + 3])
        else:
            _frame_rows(c, tmp, dv_dq, dv_dv, da_dq, da_dv, da_da, D6, q0, q1, dr2q[r:r + 6],
                        dr2v[r:r + 6])
        if c.reference != LOCAL:
            _to_world(tmp, dr2q[r:r + n], n // 3)
            _to_world(tmp, dr2v[r:r + n], n // 3)
            _turning_force(c, lam, tmp, da_da, dr1q)
    # the implicit function theorem (module docstring)
    for k in range(nv):
        for r in range(m):
            W[k, r] = J[r, k]
    solve_rows(dof, U, D, W)  # M^-1 J^T
    _implicit(dof, U, D, J, W, F, dr1q, dr2q)
    _implicit(dof, U, D, J, W, F, dr1v, dr2v)
    inverse_sparse(dof, U, D, Minv)
    L = lam_d[2]
    for r in range(m):
        for col in range(nv):
            L[r, col] = -W[col, r]
    _solve_columns(F, L)
    for s in range(nv):
        _add_rows(Minv, s, W[s], L)
    return 0, 0


@jit
def impulse_dynamics_derivatives(jnt, prm, dof, cst, q, v, restitution, prox, ws, work,
                                 v_after, lam, dv_d, lam_d):
    """v_after, lam as impulse_dynamics (prox's mu must be 0), then dv_d (2, nv, nv) =
    d v+/d(q, v-) and lam_d (2, m, nv) = d Lambda/d(q, v-) (module docstring). Contacts with
    the world only. Returns impulse_dynamics' (status, detail)."""
    nv = v.shape[0]
    m = lam.shape[0]
    status, detail = impulse_dynamics(jnt, prm, dof, cst, q, v, restitution, prox, ws, work,
                                      v_after, lam)
    if status != 0:
        return status, detail
    M, U, D, h, x, zero, J, Z, G, F, rhs, b, prev, tip, soft, tmp = views(work, nv, m)
    fext, dv_dq, dv_dv, da_dq, da_dv, da_da, W, D6, q0, q1 = _extra(work, nv, m, jnt.shape[0])
    _forces(cst, ws, lam, tmp, fext)
    dr1q, scratch = dv_d[0], dv_d[1]
    dr2q = lam_d[0]
    for k in range(nv):
        zero[k] = 0.0
        x[k] = v_after[k] - v[k]
    rnea_derivatives(jnt, prm, q, zero, x, fext, ws, h, dr1q, scratch, M)  # (M dv - J^T L)'
    static_torque_derivatives(jnt, prm, q, zero[:0].reshape((0, 6)), ws, h[:0], scratch)
    for r in range(nv):
        for k in range(nv):
            dr1q[r, k] -= scratch[r, k]  # less g(q)'s
    for k in range(nv):
        x[k] = v_after[k] + restitution * v[k]
    kinematics_derivatives(jnt, prm, q, x, zero, ws)
    for k in range(cst.shape[0]):
        c = cst[k]
        r, n = c.row, c.kind
        if n == COUPLING:  # r2 = J (v+ + e v-) with J constant
            for col in range(nv):
                dr2q[r, col] = 0.0
            continue
        placements(cst, k, ws, tmp)
        motion_derivatives(jnt, ws, c.joint1, tmp, T_C1, LOCAL, dv_dq, dv_dv, da_dq, da_dv,
                           da_da)
        for a in range(n):
            for col in range(nv):
                dr2q[r + a, col] = dv_dq[a, col]
        if c.reference != LOCAL:
            _to_world(tmp, dr2q[r:r + n], n // 3)
            _turning_force(c, lam, tmp, da_da, dr1q)
    for k in range(nv):
        for r in range(m):
            W[k, r] = J[r, k]
    solve_rows(dof, U, D, W)  # M^-1 J^T
    _implicit(dof, U, D, J, W, F, dr1q, dr2q)
    L, X = lam_d[1], dv_d[1]
    for r in range(m):
        for col in range(nv):
            L[r, col] = -(1.0 + restitution) * J[r, col]
    _solve_columns(F, L)
    for s in range(nv):
        for col in range(nv):
            X[s, col] = 1.0 if s == col else 0.0
        _add_rows(X, s, W[s], L)
    return 0, 0
