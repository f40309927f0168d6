"""Equality rows of a time step: loop closures, welds and joint couplings as bilateral rows.

A scene's constraints (fastdyn.RigidConstraint, fastdyn.JointCoupling) reach the step as one
tuple ``eqc = (cst, eprm)``: their layout.CONSTRAINT_DTYPE table (frame c1 on joint1, c2 on
joint2, the world when joint2 = 0; ``row`` the first row of each) and eprm (n, EQ_WIDTH) their
softness in a half-space row's columns (H_SOLREF, H_SOLIMP: zeros for a hard constraint,
softness.py) and MuJoCo's approximate diagonal of the Delassus matrix (EQ_DIAG, EQ_DIAG_ROT).
A scene without constraints passes ``eqc = None`` (NO_EQC): numba types it as none and drops
every ``eqc is not None`` branch, so such a step compiles none of this.

The rows are MuJoCo's equality rows (its engine_core_constraint.c, mj_instantiateEquality; its
documentation, "Computation: Constraint"), whatever axes the constraint object names (the
axes of a bilateral row do not change the step's velocities), with e the residual:
- point (3 rows, "connect"): e = p1 - p2 in world axes, J = J_p1 - J_p2 (the world velocity
  Jacobians of the two points, each on its own body: Traversaro & Saccon 2019, sec. 8), so
  that J v = de/dt exactly;
- frame (6 rows, "weld"): rows 0-2 as a point; rows 3-5 e = the vector part of the error
  quaternion q2* q1 (q_i the orientation of c_i, scalar part >= 0), about half the angle
  between the frames, J = 1/2 (e_w I - [e_v]x) R2^T (J_w1 - J_w2), its exact rate (Kindr cheat
  sheet, quaternion kinematics: dq/dt = 1/2 w (x) q in world axes);
- coupling (1 row): e = q1 - ratio q2 - offset, J = e1 - ratio e2.
Every row is bilateral: lo = -inf, hi = +inf (1e300), no friction. Its target b (the row's
velocity after the step, J v+ = b when the solve is exact) is
- hard (no solref/solimp): b = -(erp / dt) e, the scene's erp (Baumgarte's stabilization at
  the velocity level: a residual decays by the factor 1 - erp per step), with the scene's
  relative regularization r diag(G) as compliance (redundant rows, e.g. a weld closing a
  planar loop, stay well posed; the constraint's own kp, kd are constraint_dynamics', not
  read here);
- soft (MuJoCo's solref/solimp, softness.py): b = J v + dt (a_ref - dJ/dt v), a_ref =
  -B (J v) - K d e (MuJoCo 4 refers the rows' acceleration J ddq + dJ/dt v to a_ref: measured
  on its efc_aref, which holds a_ref - dJ/dt v; the velocity product comes from the bodies'
  accelerations at zero ddq, ``_motion``),
  compliance R = (1 - d) / d A^, with one impedance d for all rows of a constraint taken at
  the norm of its residual (MuJoCo's rule for connect and weld) and A^ MuJoCo's diagApprox:
  the two bodies' translational inverse weights (body_invweight0) on position rows, their
  rotational ones on a weld's rotation rows, the two dofs' dof_invweight0 on a coupling.
A row the state cannot move (|J_r| <= ZERO_ROW everywhere: a planar linkage's out-of-plane
row) is left out: it carries no force and would make the Delassus matrix singular.
Warm-start slots: slot0 + the constraint's row + i (Scene reserves them after the sphere pairs).
"""

from math import sqrt

from .._jit import jit
from ..layout import NH, O_DT, O_ERP, OJ, OM
from .rigid_constraints import COUPLING
from .softness import impedance, is_soft, stiffness_damping

EQ_DIAG = NH  # eprm column: A^ of position and coupling rows (MuJoCo's diagApprox)
EQ_DIAG_ROT = NH + 1  # eprm column: A^ of a weld's rotation rows
EQ_WIDTH = NH + 2
ZERO_ROW = 1e-12  # a row whose entries are all this small is left out (module docstring)
MIN_R = 1e-15  # the smallest soft compliance (MuJoCo's mjMINVAL)
FREE = 1e300  # a bilateral row's bounds: +-FREE
NO_EQC = None  # a scene without constraints (its kernels compile none of this module)


@jit
def eq_rows(eqc):
    """The rows of the scene's constraints (0 without): 3 per point, 6 per frame, 1 per
    coupling."""
    if eqc is None:
        return 0
    cst = eqc[0]
    n = 0
    for k in range(cst.shape[0]):
        n += cst[k].kind
    return n


@jit
def eq_capacity(eqc):
    """The contact entries (3 rows, 3 warm-start slots each) the step's buffers add for the
    constraints' rows: ceil(rows / 3)."""
    return (eq_rows(eqc) + 2) // 3


@jit
def placed(ws, j, R, p):
    """oMc (R row-major, then p) of a frame at (R, p) in joint j's frame (the world: j = 0)."""
    w = ws[j]
    a = (w[OM], w[OM + 1], w[OM + 2], w[OM + 3], w[OM + 4], w[OM + 5], w[OM + 6], w[OM + 7],
         w[OM + 8])
    r00 = a[0] * R[0, 0] + a[1] * R[1, 0] + a[2] * R[2, 0]
    r01 = a[0] * R[0, 1] + a[1] * R[1, 1] + a[2] * R[2, 1]
    r02 = a[0] * R[0, 2] + a[1] * R[1, 2] + a[2] * R[2, 2]
    r10 = a[3] * R[0, 0] + a[4] * R[1, 0] + a[5] * R[2, 0]
    r11 = a[3] * R[0, 1] + a[4] * R[1, 1] + a[5] * R[2, 1]
    r12 = a[3] * R[0, 2] + a[4] * R[1, 2] + a[5] * R[2, 2]
    r20 = a[6] * R[0, 0] + a[7] * R[1, 0] + a[8] * R[2, 0]
    r21 = a[6] * R[0, 1] + a[7] * R[1, 1] + a[8] * R[2, 1]
    r22 = a[6] * R[0, 2] + a[7] * R[1, 2] + a[8] * R[2, 2]
    x = w[OM + 9] + a[0] * p[0] + a[1] * p[1] + a[2] * p[2]
    y = w[OM + 10] + a[3] * p[0] + a[4] * p[1] + a[5] * p[2]
    z = w[OM + 11] + a[6] * p[0] + a[7] * p[1] + a[8] * p[2]
    return (r00, r01, r02, r10, r11, r12, r20, r21, r22, x, y, z)


@jit
def error_quat(m00, m01, m02, m10, m11, m12, m20, m21, m22):
    """(w, x, y, z) of the rotation matrix M, w >= 0 (Shepperd's branches on the largest of
    tr M and the diagonal, as rotations.matrix_to_quat)."""
    tr = m00 + m11 + m22
    if tr > 0.0:
        s = 2.0 * sqrt(tr + 1.0)
        return 0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s
    if m00 >= m11 and m00 >= m22:
        s = 2.0 * sqrt(1.0 + m00 - m11 - m22)
        w, x, y, z = (m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s
    elif m11 >= m22:
        s = 2.0 * sqrt(1.0 + m11 - m00 - m22)
        w, x, y, z = (m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s
    else:
        s = 2.0 * sqrt(1.0 + m22 - m00 - m11)
        w, x, y, z = (m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s
    if w < 0.0:
        return -w, -x, -y, -z
    return w, x, y, z


@jit
def _columns(jnt, ws, b, sign, px, py, pz, A, J, m, rotation):
    """Adds sign times body b's columns to rows m..m+2 of J: the world velocity of its point p
    (rotation False) or A times its angular velocity (rotation True; A row-major 3x3)."""
    # CRBA left the world Jacobian columns about joint 1's origin (world_origin.py)
    rx, ry, rz = px - ws[1, OM + 9], py - ws[1, OM + 10], pz - ws[1, OM + 11]
    i = b
    while i > 0:
        wi = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            wx, wy, wz = wi[o + 3], wi[o + 4], wi[o + 5]
            if rotation:
                x = A[0] * wx + A[1] * wy + A[2] * wz
                y = A[3] * wx + A[4] * wy + A[5] * wz
                z = A[6] * wx + A[7] * wy + A[8] * wz
            else:
                x = wi[o] + wy * rz - wz * ry
                y = wi[o + 1] + wz * rx - wx * rz
                z = wi[o + 2] + wx * ry - wy * rx
            J[m, iv + d] += sign * x
            J[m + 1, iv + d] += sign * y
            J[m + 2, iv + d] += sign * z
        i = jnt[i].parent


@jit
def _motion(jnt, ws, b, v):
    """(ov, oa) of body b (joint b's; zeros for the world): its velocity and its acceleration
    at zero ddq, spatial, at the world origin in world axes, from CRBA's world columns:
    ov = sum S_k v_k, oa = sum (ov_k x S_k) v_k over b's support, ov_k the velocity of the body
    joint k moves (Featherstone 2008, eq. 2.42 and sec. 5.3: a column fixed in that body
    changes as ov_k x S_k; a universal joint's, which also turns in it, misses its c_J)."""
    r0x, r0y, r0z = ws[1, OM + 9], ws[1, OM + 10], ws[1, OM + 11]
    vx = vy = vz = wx = wy = wz = 0.0
    i = b
    while i > 0:
        wi = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            sx, sy, sz = wi[o + 3], wi[o + 4], wi[o + 5]
            x = v[iv + d]
            vx += x * (wi[o] + r0y * sz - r0z * sy)  # (about the origin: lin + r0 x ang)
            vy += x * (wi[o + 1] + r0z * sx - r0x * sz)
            vz += x * (wi[o + 2] + r0x * sy - r0y * sx)
            wx, wy, wz = wx + x * sx, wy + x * sy, wz + x * sz
        i = jnt[i].parent
    ax = ay = az = bx = by = bz = 0.0
    cx, cy, cz, kx, ky, kz = vx, vy, vz, wx, wy, wz  # ov of the body joint i moves
    i = b
    while i > 0:
        wi = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            sx, sy, sz = wi[o + 3], wi[o + 4], wi[o + 5]
            lx = wi[o] + r0y * sz - r0z * sy
            ly = wi[o + 1] + r0z * sx - r0x * sz
            lz = wi[o + 2] + r0x * sy - r0y * sx
            x = v[iv + d]
            # (c, k) x (l, s) = (k x l + c x s, k x s)
            ax += x * (ky * lz - kz * ly + cy * sz - cz * sy)
            ay += x * (kz * lx - kx * lz + cz * sx - cx * sz)
            az += x * (kx * ly - ky * lx + cx * sy - cy * sx)
            bx += x * (ky * sz - kz * sy)
            by += x * (kz * sx - kx * sz)
            bz += x * (kx * sy - ky * sx)
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            sx, sy, sz = wi[o + 3], wi[o + 4], wi[o + 5]
            x = v[iv + d]
            cx -= x * (wi[o] + r0y * sz - r0z * sy)
            cy -= x * (wi[o + 1] + r0z * sx - r0x * sz)
            cz -= x * (wi[o + 2] + r0x * sy - r0y * sx)
            kx, ky, kz = kx - x * sx, ky - x * sy, kz - x * sz
        i = jnt[i].parent
    return (vx, vy, vz, wx, wy, wz, ax, ay, az, bx, by, bz)


@jit
def _point_acc(mo, px, py, pz):
    """The classical acceleration at zero ddq of the body point p, from _motion's (ov, oa):
    a_lin + a_ang x p + w x (v + w x p) (Traversaro & Saccon 2019, eq. 54)."""
    wx, wy, wz = mo[3], mo[4], mo[5]
    ux = mo[0] + wy * pz - wz * py
    uy = mo[1] + wz * px - wx * pz
    uz = mo[2] + wx * py - wy * px
    return (mo[6] + mo[10] * pz - mo[11] * py + wy * uz - wz * uy,
            mo[7] + mo[11] * px - mo[9] * pz + wz * ux - wx * uz,
            mo[8] + mo[9] * py - mo[10] * px + wx * uy - wy * ux)


@jit
def _residual(jnt, cs, q, v, ws, J, c, m, drift):
    """Rows m.. of J for constraint cs (module docstring), its residual e in c[m:m + kind];
    returns the rows' velocity product dJ/dt v (six entries, the unused ones 0) when
    ``drift`` (soft rows: MuJoCo 4 refers their acceleration J ddq + dJ/dt v to a_ref), else
    zeros."""
    nil = 0.0
    if cs.kind == COUPLING:
        i1 = jnt[cs.joint1]
        J[m, i1.idx_v] = 1.0
        e = q[i1.idx_q] - cs.offset
        if cs.joint2 > 0:
            i2 = jnt[cs.joint2]
            J[m, i2.idx_v] -= cs.ratio
            e -= cs.ratio * q[i2.idx_q]
        c[m] = e
        return (nil, nil, nil, nil, nil, nil)  # (J constant)
    a = placed(ws, cs.joint1, cs.R1, cs.p1)
    b = placed(ws, cs.joint2, cs.R2, cs.p2)
    _columns(jnt, ws, cs.joint1, 1.0, a[9], a[10], a[11], a, J, m, False)
    _columns(jnt, ws, cs.joint2, -1.0, b[9], b[10], b[11], a, J, m, False)
    for k in range(3):
        c[m + k] = a[9 + k] - b[9 + k]
    g0 = g1 = g2 = nil
    m1 = m2 = _motion(jnt, ws, 0, v)  # (zeros: the world's)
    if drift:
        m1 = _motion(jnt, ws, cs.joint1, v)
        m2 = _motion(jnt, ws, cs.joint2, v)
        a1 = _point_acc(m1, a[9], a[10], a[11])
        a2 = _point_acc(m2, b[9], b[10], b[11])
        g0, g1, g2 = a1[0] - a2[0], a1[1] - a2[1], a1[2] - a2[2]
    if cs.kind != 6:
        return (g0, g1, g2, nil, nil, nil)
    # E = R2^T R1, its quaternion e; rows 1/2 (e_w I - [e_v]x) R2^T (w1 - w2)
    e00 = b[0] * a[0] + b[3] * a[3] + b[6] * a[6]
    e01 = b[0] * a[1] + b[3] * a[4] + b[6] * a[7]
    e02 = b[0] * a[2] + b[3] * a[5] + b[6] * a[8]
    e10 = b[1] * a[0] + b[4] * a[3] + b[7] * a[6]
    e11 = b[1] * a[1] + b[4] * a[4] + b[7] * a[7]
    e12 = b[1] * a[2] + b[4] * a[5] + b[7] * a[8]
    e20 = b[2] * a[0] + b[5] * a[3] + b[8] * a[6]
    e21 = b[2] * a[1] + b[5] * a[4] + b[8] * a[7]
    e22 = b[2] * a[2] + b[5] * a[5] + b[8] * a[8]
    w, x, y, z = error_quat(e00, e01, e02, e10, e11, e12, e20, e21, e22)
    # S = 1/2 (w I - [e_v]x), A = S R2^T (R2^T's row k: column k of R2)
    s00, s01, s02 = 0.5 * w, 0.5 * z, -0.5 * y
    s10, s11, s12 = -0.5 * z, 0.5 * w, 0.5 * x
    s20, s21, s22 = 0.5 * y, -0.5 * x, 0.5 * w
    A = (s00 * b[0] + s01 * b[1] + s02 * b[2], s00 * b[3] + s01 * b[4] + s02 * b[5],
         s00 * b[6] + s01 * b[7] + s02 * b[8],
         s10 * b[0] + s11 * b[1] + s12 * b[2], s10 * b[3] + s11 * b[4] + s12 * b[5],
         s10 * b[6] + s11 * b[7] + s12 * b[8],
         s20 * b[0] + s21 * b[1] + s22 * b[2], s20 * b[3] + s21 * b[4] + s22 * b[5],
         s20 * b[6] + s21 * b[7] + s22 * b[8])
    _columns(jnt, ws, cs.joint1, 1.0, 0.0, 0.0, 0.0, A, J, m + 3, True)
    _columns(jnt, ws, cs.joint2, -1.0, 0.0, 0.0, 0.0, A, J, m + 3, True)
    c[m + 3], c[m + 4], c[m + 5] = x, y, z
    if not drift:
        return (g0, g1, g2, 0.0, 0.0, 0.0)
    # d2 e_v / dt2 at zero ddq: A (al1 - al2 - w2 x w) - |w|^2 e_v / 4, w = w1 - w2 (e's
    # kinematics de/dt = 1/2 Om (x) e, Om = R2^T w, dOm/dt = R2^T (dw/dt - w2 x w))
    rx, ry, rz = m1[3] - m2[3], m1[4] - m2[4], m1[5] - m2[5]
    hx = m1[9] - m2[9] - (m2[4] * rz - m2[5] * ry)
    hy = m1[10] - m2[10] - (m2[5] * rx - m2[3] * rz)
    hz = m1[11] - m2[11] - (m2[3] * ry - m2[4] * rx)
    w2 = 0.25 * (rx * rx + ry * ry + rz * rz)
    return (g0, g1, g2, A[0] * hx + A[1] * hy + A[2] * hz - w2 * x,
            A[3] * hx + A[4] * hy + A[5] * hz - w2 * y,
            A[6] * hx + A[7] * hy + A[8] * hz - w2 * z)


@jit
def equality_rows(jnt, eqc, opt, q, ws, v, vf, J, c, lo, hi, slot, soft, m, slot0):
    """The constraints' rows from row m on (time_step.py's arrays; soft: each row's compliance,
    delassus.py), warm-start slots from slot0 on. Needs the placements and world Jacobian
    columns of CRBA in ws. Returns the new row count."""
    cst, eprm = eqc
    dt, erp = opt[O_DT], opt[O_ERP]
    nv = vf.shape[0]
    for k in range(cst.shape[0]):
        cs = cst[k]
        h = eprm[k]
        n = cs.kind
        for r in range(m, m + n):
            for j in range(nv):
                J[r, j] = 0.0
        jd = _residual(jnt, cs, q, v, ws, J, c, m, is_soft(h))
        d, K, B = 1.0, 0.0, 0.0
        if is_soft(h):
            norm = 0.0
            for i in range(n):
                norm += c[m + i] * c[m + i]
            d = impedance(h, sqrt(norm))
            K, B = stiffness_damping(h, dt)
        out = m
        for i in range(n):
            r = m + i
            e = c[r]
            big, u0, uf = 0.0, 0.0, 0.0
            for j in range(nv):
                x = J[r, j]
                big = max(big, abs(x))
                u0 += x * v[j]
                uf += x * vf[j]
            if not big > ZERO_ROW:
                continue
            if out != r:
                for j in range(nv):
                    J[out, j] = J[r, j]
            if is_soft(h):
                b = u0 - dt * (B * u0 + K * d * e + jd[i])
                diag = h[EQ_DIAG_ROT] if n == 6 and i >= 3 else h[EQ_DIAG]
                soft[out] = max((1.0 - d) / d * diag, MIN_R)
            else:
                b = -erp * e / dt
                soft[out] = 0.0
            c[out] = uf - b
            lo[out], hi[out] = -FREE, FREE
            slot[out] = slot0 + cs.row + i
            out += 1
        m = out
    return m
