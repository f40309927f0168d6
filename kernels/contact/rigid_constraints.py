"""The rows of rigid (bilateral) constraints: their Jacobian J and the acceleration they ask for.

A constraint (layout.CONSTRAINT_DTYPE) holds frame c1, fixed to joint1, to frame c2, fixed to
joint2 (the world when joint2 = 0): a point contact / "connect" (3 rows) keeps the origins of
c1 and c2 together, a frame contact / "weld" (6 rows) keeps the frames together. Its rows are
those of Pinocchio's RigidConstraintModel (constrained-dynamics.hxx, contact-info.hxx) and
follow its conventions exactly, so that lambda means the same in both. With (R1, p1) = oMc1,
(R2, p2) = oMc2, the world velocity ov_j and the spatial acceleration at zero ddq oa_j of
joint j (at the world origin; both zero for the world), and u_j(p) = ov_j,lin + ov_j,ang x p:
  point, rows  J = R^T (J_p1 - J_p2), J_p the world velocity Jacobian of a body point at p
               (R = R1 in LOCAL, I in LOCAL_WORLD_ALIGNED);
         rhs = R^T (-g1 + g2 - Kp (p1 - p2) - Kd (u1(p1) - u2(p2))), with
               g_j = oa_j,lin + oa_j,ang x p_j + ov_j,ang x u_j(p_j) the classical acceleration
               of the point at zero ddq (Traversaro & Saccon 2019, eq. 54);
  frame, rows  J = X (J_j1 - J_j2), X the change to c1 (LOCAL: ^c1 X_0; LOCAL_WORLD_ALIGNED:
               the world axes at p1), J_j the world Jacobian of joint j's body;
         rhs = X (oa2 - oa1) - [LOCAL only] (vc1 - vc2) x vc2 + A (-Kp e - Kd (vc1 - vc2)),
               vc_j = ^c1 X_0 ov_j, e = -log6(c1Mc2) (c1Mc2 = oMc1^-1 oMc2), A = I in LOCAL,
               diag(R1, R1) in LOCAL_WORLD_ALIGNED.
  coupling (kind 1, one row: joint1's coordinate follows joint2's, q1 = ratio q2 + offset,
         both one-coordinate joints; joint2 = 0: q1 = offset, a lock), as MuJoCo's linear
         joint equality: J = e1 - ratio e2, rhs = -Kp (q1 - ratio q2 - offset)
               - Kd (v1 - ratio v2) (J is constant: no velocity product).
The constrained acceleration then satisfies J ddq = rhs: with Kp = Kd = 0 the constraint's
acceleration (classical for points, spatial for frames) is zero; the gains are Baumgarte's
stabilization (Baumgarte 1972), acting on the position and velocity errors as Pinocchio's
corrector does. The Jacobian is built from CRBA's world columns (ws[i, OJ:], about joint 1's
origin: world_origin.py), the right-hand side from RNEA's local velocities and accelerations.
References: Carpentier, Budhiraja, Mansard, "Proximal and sparse resolution of constrained
dynamic equations", RSS 2021; Pinocchio's constrained-dynamics.hxx; Traversaro & Saccon,
"Multibody dynamics notation (version 2)", 2019.
"""

from .._jit import jit
from ..layout import AGF, LOCAL, OJ, OM, P_GRAVITY, V
from ..spatial import motion, se3
from ..spatial.rotations import log6

# tmp (>= TMP_SIZE floats): oMc1, oMc2, c1Mc2 (12 each), world motions ov1, oa1, ov2, oa2 (6
# each), log6's output (6) and its 3x3 rotation
T_C1, T_C2, T_REL, T_OV1, T_OA1, T_OV2, T_OA2, T_LOG, T_ROT = 0, 12, 24, 36, 42, 48, 54, 60, 66
TMP_SIZE = 75
COUPLING = 1  # a constraint's kind (layout.CONSTRAINT_DTYPE) for a joint coupling


@jit
def _place(ws, j, R, p, out, o):
    """out[o:o+12] = oMj (R, p): a placement given in joint j's frame, put in the world."""
    w = ws[j]
    for r in range(3):
        a, b, c = w[OM + 3 * r], w[OM + 3 * r + 1], w[OM + 3 * r + 2]
        for k in range(3):
            out[o + 3 * r + k] = a * R[0, k] + b * R[1, k] + c * R[2, k]
        out[o + 9 + r] = w[OM + 9 + r] + a * p[0] + b * p[1] + c * p[2]


@jit
def placements(cst, k, ws, tmp):
    """oMc1, oMc2 of constraint k into tmp (T_C1, T_C2); needs the joint placements."""
    c = cst[k]
    _place(ws, c.joint1, c.R1, c.p1, tmp, T_C1)
    _place(ws, c.joint2, c.R2, c.p2, tmp, T_C2)


@jit
def _columns(jnt, ws, c, j, px, py, pz, sign, tmp, J):
    """J[c.row:] += sign * the rows of joint j's support, for the body point at p (points) or
    the frame c1 (frames, p = p1)."""
    rx, ry, rz = ws[1, OM + 9], ws[1, OM + 10], ws[1, OM + 11]  # the columns' origin
    dx, dy, dz = px - rx, py - ry, pz - rz
    local = c.reference == LOCAL
    row = c.row
    i = j
    while i > 0:
        w = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            wx, wy, wz = w[o + 3], w[o + 4], w[o + 5]
            lx = w[o] + wy * dz - wz * dy
            ly = w[o + 1] + wz * dx - wx * dz
            lz = w[o + 2] + wx * dy - wy * dx
            if local:
                lx, ly, lz = (tmp[T_C1] * lx + tmp[T_C1 + 3] * ly + tmp[T_C1 + 6] * lz,
                              tmp[T_C1 + 1] * lx + tmp[T_C1 + 4] * ly + tmp[T_C1 + 7] * lz,
                              tmp[T_C1 + 2] * lx + tmp[T_C1 + 5] * ly + tmp[T_C1 + 8] * lz)
                wx, wy, wz = (tmp[T_C1] * wx + tmp[T_C1 + 3] * wy + tmp[T_C1 + 6] * wz,
                              tmp[T_C1 + 1] * wx + tmp[T_C1 + 4] * wy + tmp[T_C1 + 7] * wz,
                              tmp[T_C1 + 2] * wx + tmp[T_C1 + 5] * wy + tmp[T_C1 + 8] * wz)
            J[row, iv + d] += sign * lx
            J[row + 1, iv + d] += sign * ly
            J[row + 2, iv + d] += sign * lz
            if c.kind == 6:
                J[row + 3, iv + d] += sign * wx
                J[row + 4, iv + d] += sign * wy
                J[row + 5, iv + d] += sign * wz
        i = jnt[i].parent


@jit
def rigid_jacobian(jnt, cst, ws, tmp, J):
    """J (m, nv): every constraint's rows (the module docstring), from CRBA's placements and
    world columns in ws. Columns on both supports cancel (to the bit for frames)."""
    J[:, :] = 0.0
    for k in range(cst.shape[0]):
        c = cst[k]
        if c.kind == COUPLING:
            J[c.row, jnt[c.joint1].idx_v] += 1.0
            if c.joint2 > 0:
                J[c.row, jnt[c.joint2].idx_v] -= c.ratio
            continue
        placements(cst, k, ws, tmp)
        x, y, z = tmp[T_C1 + 9], tmp[T_C1 + 10], tmp[T_C1 + 11]
        _columns(jnt, ws, c, c.joint1, x, y, z, 1.0, tmp, J)
        if c.kind == 3:
            x, y, z = tmp[T_C2 + 9], tmp[T_C2 + 10], tmp[T_C2 + 11]
        _columns(jnt, ws, c, c.joint2, x, y, z, -1.0, tmp, J)


@jit
def _world_motions(ws, j, gx, gy, gz, tmp, o):
    """tmp[o:o+6] = ov_j, tmp[o+6:o+12] = oa_j (world origin; zero for the world) from RNEA's
    local velocity and its acceleration with -g folded in (AGF): oa = ^0X_j a_gf + [g; 0]."""
    if j == 0:
        for k in range(12):
            tmp[o + k] = 0.0
        return
    w = ws[j]
    motion.put6(tmp, o, motion.act(w, OM, w, V))
    motion.put6(tmp, o + 6, motion.act(w, OM, w, AGF))
    tmp[o + 6] += gx
    tmp[o + 7] += gy
    tmp[o + 8] += gz


@jit
def _at(x, o, px, py, pz):
    """The linear part of the world-origin motion x[o:o+6] at the point p: lin + ang x p."""
    c = motion.cross3(x[o + 3], x[o + 4], x[o + 5], px, py, pz)
    return x[o] + c[0], x[o + 1] + c[1], x[o + 2] + c[2]


@jit
def _point_rhs(c, tmp, rhs):
    kp, kd, r = c.kp, c.kd, c.row
    p1x, p1y, p1z = tmp[T_C1 + 9], tmp[T_C1 + 10], tmp[T_C1 + 11]
    p2x, p2y, p2z = tmp[T_C2 + 9], tmp[T_C2 + 10], tmp[T_C2 + 11]
    u1 = _at(tmp, T_OV1, p1x, p1y, p1z)
    u2 = _at(tmp, T_OV2, p2x, p2y, p2z)
    a1 = _at(tmp, T_OA1, p1x, p1y, p1z)
    a2 = _at(tmp, T_OA2, p2x, p2y, p2z)
    c1 = motion.cross3(tmp[T_OV1 + 3], tmp[T_OV1 + 4], tmp[T_OV1 + 5], u1[0], u1[1], u1[2])
    c2 = motion.cross3(tmp[T_OV2 + 3], tmp[T_OV2 + 4], tmp[T_OV2 + 5], u2[0], u2[1], u2[2])
    x = -(a1[0] + c1[0]) + (a2[0] + c2[0]) - kp * (p1x - p2x) - kd * (u1[0] - u2[0])
    y = -(a1[1] + c1[1]) + (a2[1] + c2[1]) - kp * (p1y - p2y) - kd * (u1[1] - u2[1])
    z = -(a1[2] + c1[2]) + (a2[2] + c2[2]) - kp * (p1z - p2z) - kd * (u1[2] - u2[2])
    if c.reference == LOCAL:
        M = tmp
        x, y, z = (M[T_C1] * x + M[T_C1 + 3] * y + M[T_C1 + 6] * z,
                   M[T_C1 + 1] * x + M[T_C1 + 4] * y + M[T_C1 + 7] * z,
                   M[T_C1 + 2] * x + M[T_C1 + 5] * y + M[T_C1 + 8] * z)
    rhs[r], rhs[r + 1], rhs[r + 2] = x, y, z


@jit
def _relative_log(tmp):
    """tmp[T_LOG:T_LOG+6] = log6(c1Mc2), c1Mc2 = oMc1^-1 oMc2 (kept at T_REL)."""
    se3.compose_inv(tmp, T_C1, tmp, T_C2, tmp, T_REL)
    R = tmp[T_ROT:T_ROT + 9].reshape((3, 3))
    for k in range(9):
        tmp[T_ROT + k] = tmp[T_REL + k]
    log6(R, tmp[T_REL + 9:T_REL + 12], tmp[T_LOG:T_LOG + 6])


@jit
def _frame_rhs(c, tmp, rhs):
    kp, kd, r = c.kp, c.kd, c.row
    vc1 = motion.act_inv(tmp, T_C1, tmp, T_OV1)
    vc2 = motion.act_inv(tmp, T_C1, tmp, T_OV2)
    _relative_log(tmp)
    err = (vc1[0] - vc2[0], vc1[1] - vc2[1], vc1[2] - vc2[2],
           vc1[3] - vc2[3], vc1[4] - vc2[4], vc1[5] - vc2[5])
    # Baumgarte's term in c1's axes: -Kp e - Kd de with e = -log6(c1Mc2)
    b = (kp * tmp[T_LOG] - kd * err[0], kp * tmp[T_LOG + 1] - kd * err[1],
         kp * tmp[T_LOG + 2] - kd * err[2], kp * tmp[T_LOG + 3] - kd * err[3],
         kp * tmp[T_LOG + 4] - kd * err[4], kp * tmp[T_LOG + 5] - kd * err[5])
    if c.reference == LOCAL:
        a1 = motion.act_inv(tmp, T_C1, tmp, T_OA1)
        a2 = motion.act_inv(tmp, T_C1, tmp, T_OA2)
        x = motion.cross3(err[3], err[4], err[5], vc2[0], vc2[1], vc2[2])
        y = motion.cross3(err[0], err[1], err[2], vc2[3], vc2[4], vc2[5])
        z = motion.cross3(err[3], err[4], err[5], vc2[3], vc2[4], vc2[5])
        drift = (x[0] + y[0], x[1] + y[1], x[2] + y[2], z[0], z[1], z[2])  # err x vc2
        for k in range(6):
            rhs[r + k] = a2[k] - a1[k] - drift[k] + b[k]
        return
    M = tmp
    p1x, p1y, p1z = tmp[T_C1 + 9], tmp[T_C1 + 10], tmp[T_C1 + 11]
    a1 = _at(tmp, T_OA1, p1x, p1y, p1z)
    a2 = _at(tmp, T_OA2, p1x, p1y, p1z)
    for h in range(2):  # linear then angular: R1 b's halves
        e0, e1, e2 = b[3 * h], b[3 * h + 1], b[3 * h + 2]
        for k in range(3):
            rb = M[T_C1 + 3 * k] * e0 + M[T_C1 + 3 * k + 1] * e1 + M[T_C1 + 3 * k + 2] * e2
            if h == 0:
                d = a2[k] - a1[k]
            else:
                d = tmp[T_OA2 + 3 + k] - tmp[T_OA1 + 3 + k]
            rhs[r + 3 * h + k] = d + rb


@jit
def _coupling_rhs(jnt, c, q, v, rhs):
    i1, i2 = jnt[c.joint1], jnt[c.joint2]
    q2 = q[i2.idx_q] if c.joint2 > 0 else 0.0
    v2 = v[i2.idx_v] if c.joint2 > 0 else 0.0
    err = q[i1.idx_q] - c.ratio * q2 - c.offset
    rhs[c.row] = -c.kp * err - c.kd * (v[i1.idx_v] - c.ratio * v2)


@jit
def rigid_rhs(jnt, prm, cst, ws, q, v, tmp, rhs):
    """rhs (m,): what J ddq must equal (the module docstring), from RNEA's local velocities
    and accelerations at zero ddq (V, AGF), the world placements in ws and, for couplings,
    the state (q, v)."""
    gx, gy, gz = prm[0, P_GRAVITY], prm[0, P_GRAVITY + 1], prm[0, P_GRAVITY + 2]
    for k in range(cst.shape[0]):
        c = cst[k]
        if c.kind == COUPLING:
            _coupling_rhs(jnt, c, q, v, rhs)
            continue
        placements(cst, k, ws, tmp)
        _world_motions(ws, c.joint1, gx, gy, gz, tmp, T_OV1)
        _world_motions(ws, c.joint2, gx, gy, gz, tmp, T_OV2)
        if c.kind == 3:
            _point_rhs(c, tmp, rhs)
        else:
            _frame_rhs(c, tmp, rhs)
