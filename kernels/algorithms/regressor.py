"""Dynamic regressors: the dynamics as linear maps of the inertial parameters.

Every body's inertia enters the equations of motion linearly through its ten dynamic
parameters pi_j = [m, m c_x, m c_y, m c_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz] (I about the
joint origin, Pinocchio's ``Inertia.toDynamicParameters`` order; Atkeson, An & Hollerbach 1986).
So, with the parameters of bodies 1..n stacked into pi (10 n,):

  tau = Y(q, v, a) pi + armature * a       (joint torque regressor, (nv, 10 n))
  T   = y_T(q, v) . pi + armature . v^2 / 2 (kinetic energy regressor, (10 n,))
  V   = y_V(q) . pi                        (potential energy regressor, (10 n,))

Body j's wrench in its frame is f_j = Yb(v_j, a_j) pi_j with a_j gravity included, and
  Yb = [[beta, [dw]x + [w]x[w]x, 0], [0, -[beta]x, d(I dw + w x I w)/dI]],  beta = a_lin + w x v_lin
(the Newton-Euler equations written for the parameters; Featherstone (2008) sec. 2.13 for the
spatial inertia, Pinocchio's ``bodyRegressor``). Joint i carries the wrenches of the bodies
it supports: Y[rows of i, columns of j] = S_i^T ^iX_j^* Yb_j for every j in the subtree of i.
Velocities and accelerations come from RNEA's forward pass (kernels/algorithms/rnea.py).
"""

from .._jit import jit
from ..layout import AGF, LI, OM, P_GRAVITY, S, TMP, V
from ..spatial import force, se3
from .rnea import rnea


@jit
def body_column(w, c):
    """Column c (0..9) of the 6 x 10 body regressor Yb(v, a_gf) of the body whose workspace
    row is w (LOCAL velocity at V, gravity-including acceleration at AGF)."""
    vx, vy, vz, wx, wy, wz = w[V], w[V + 1], w[V + 2], w[V + 3], w[V + 4], w[V + 5]
    ax, ay, az, dx, dy, dz = w[AGF], w[AGF + 1], w[AGF + 2], w[AGF + 3], w[AGF + 4], w[AGF + 5]
    bx = ax + wy * vz - wz * vy  # beta = a_lin + w x v_lin
    by = ay + wz * vx - wx * vz
    bz = az + wx * vy - wy * vx
    if c == 0:
        return bx, by, bz, 0.0, 0.0, 0.0
    if c <= 3:  # h = m c along unit axis e: ([dw]x + [w]x[w]x) e and e x beta
        ex = 1.0 if c == 1 else 0.0
        ey = 1.0 if c == 2 else 0.0
        ez = 1.0 if c == 3 else 0.0
        wex = wy * ez - wz * ey
        wey = wz * ex - wx * ez
        wez = wx * ey - wy * ex
        return (dy * ez - dz * ey + wy * wez - wz * wey,
                dz * ex - dx * ez + wz * wex - wx * wez,
                dx * ey - dy * ex + wx * wey - wy * wex,
                ey * bz - ez * by, ez * bx - ex * bz, ex * by - ey * bx)
    # I = E, the symmetric unit matrix of entry (r, s): E dw + w x (E w)
    k = c - 4  # Ixx, Ixy, Iyy, Ixz, Iyz, Izz
    r = (0, 0, 1, 0, 1, 2)[k]
    s = (0, 1, 1, 2, 2, 2)[k]
    ex, ey, ez = _unit_sym(r, s, wx, wy, wz)
    fx, fy, fz = _unit_sym(r, s, dx, dy, dz)
    return (0.0, 0.0, 0.0, fx + wy * ez - wz * ey, fy + wz * ex - wx * ez,
            fz + wx * ey - wy * ex)


@jit
def _unit_sym(r, s, x0, x1, x2):
    """E x for E the symmetric matrix with ones at (r, s) and (s, r), zeros elsewhere."""
    x = (x0, x1, x2)
    return ((x[s] if r == 0 else 0.0) + (x[r] if s == 0 and r != s else 0.0),
            (x[s] if r == 1 else 0.0) + (x[r] if s == 1 and r != s else 0.0),
            (x[s] if r == 2 else 0.0) + (x[r] if s == 2 and r != s else 0.0))


@jit
def joint_torque_regressor(jnt, prm, q, v, a, no_forces, ws, Y, scratch):
    """Y (nv, 10 (njoints - 1)) at (q, v, a), Pinocchio's computeJointTorqueRegressor:
    tau = Y pi + armature * a. ``no_forces`` is an empty (0, 6) array; ``scratch`` (nv,)
    receives RNEA's torques (the forward pass that fills v_i and a_i is RNEA's own; its
    backward pass is the few flops wasted). Returns -1, or the first column holding a
    non-finite entry (an overflow: checked as entries are written, not in a second pass)."""
    rnea(jnt, prm, q, v, a, no_forces, ws, scratch)
    bad = -1
    for r in range(Y.shape[0]):
        for k in range(Y.shape[1]):
            Y[r, k] = 0.0
    for j in range(1, jnt.shape[0]):
        wj = ws[j]
        for c in range(10):
            col = 10 * (j - 1) + c
            f = body_column(wj, c)
            i = j
            while i > 0:  # up the support of j: S_i^T f, then f into the parent's frame
                w = ws[i]
                for d in range(jnt[i].nv):
                    acc = 0.0
                    for k in range(6):
                        acc += w[S + 6 * d + k] * f[k]
                    Y[jnt[i].idx_v + d, col] = acc
                    if bad < 0 and not (acc - acc == 0.0):
                        bad = col
                if jnt[i].parent > 0:
                    for k in range(6):
                        w[TMP + k] = f[k]
                    f = force.act(w, LI, w, TMP)
                i = jnt[i].parent
    return bad


@jit
def kinetic_energy_regressor(jnt, ws, y):
    """y (10 (njoints - 1),) with T = y . pi: per body [|v|^2 / 2, v x w, w w^T entries], from
    the LOCAL velocities of a forward_kinematics(q, v) already in ws. Returns -1, or the first
    non-finite entry (an overflow)."""
    for j in range(1, jnt.shape[0]):
        w = ws[j]
        vx, vy, vz, wx, wy, wz = w[V], w[V + 1], w[V + 2], w[V + 3], w[V + 4], w[V + 5]
        o = 10 * (j - 1)
        y[o] = 0.5 * (vx * vx + vy * vy + vz * vz)
        y[o + 1] = vy * wz - vz * wy
        y[o + 2] = vz * wx - vx * wz
        y[o + 3] = vx * wy - vy * wx
        y[o + 4] = 0.5 * wx * wx
        y[o + 5] = wx * wy
        y[o + 6] = 0.5 * wy * wy
        y[o + 7] = wx * wz
        y[o + 8] = wy * wz
        y[o + 9] = 0.5 * wz * wz
    return _first_nonfinite(y)


@jit
def potential_energy_regressor(jnt, prm, ws, y):
    """y (10 (njoints - 1),) with V = y . pi = -sum_j g . (m_j p_j + R_j h_j), p_j and R_j the
    joint's world placement from a forward_kinematics(q) already in ws (V = 0 at the world
    origin's height, as fastdyn.compute_potential_energy). Returns -1, or the first non-finite
    entry."""
    gx, gy, gz = prm[0, P_GRAVITY], prm[0, P_GRAVITY + 1], prm[0, P_GRAVITY + 2]
    for j in range(1, jnt.shape[0]):
        w = ws[j]
        o = 10 * (j - 1)
        y[o] = -(gx * w[OM + 9] + gy * w[OM + 10] + gz * w[OM + 11])
        rx, ry, rz = se3.rot_t(w, OM, gx, gy, gz)  # R^T g
        y[o + 1] = -rx
        y[o + 2] = -ry
        y[o + 3] = -rz
        for k in range(4, 10):
            y[o + k] = 0.0
    return _first_nonfinite(y)


@jit
def _first_nonfinite(y):
    for k in range(y.shape[0]):
        if not (y[k] - y[k] == 0.0):
            return k
    return -1
