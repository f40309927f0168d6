"""The semi-implicit Euler step of the simulator on the configuration Lie group, with the
velocity of free-flyer (SE(3)) and planar (SE(2)) joints advanced in the axes the joint frame
had at the start of the step ("frozen" axes), then rotated exactly to the new ones.

Why: these joints' velocity is body-fixed (LOCAL) [v; w], whose time derivative, the
acceleration a that ABA returns, carries the -w x v of the turning axes. Euler's
v+ = v + dt a takes that rotation to first order, (I - dt [w]) v, and so stretches v by
sqrt(1 + (w dt)^2) a step: a free body spinning at 10 rad/s speeds up by 5 % in 1 s at
dt = 1 ms. Here the linear part is integrated in the start axes, where the derivative of the
same physical velocity is a_v + w x v (the acceleration of the origin with the frame held,
the form MuJoCo integrates its free joint's world linear velocity in), and turned into the
new axes by the step's own rotation:
  u     = v + dt a + dt [w x v_lin; 0]     the end velocity in the start axes (frozen_velocity)
  w+    = u_ang,   v_lin+ = exp(-dt [w+]) u_lin
  R+    = R exp(dt w+),   p+ = p + dt R u_lin (= p + dt R+ v_lin+)       (``advance``)
(SE(2): w scalar, w x v = w (-v_y, v_x), exp the planar rotation.) In free flight the world
velocity R+ v_lin+ = R u_lin is carried to round-off and the origin moves on a straight line;
the rotation is Pinocchio's SO(3) exponential (the quaternion product, sign and first-order
normalization of its SE(3) integrate). This is the Lie-group Euler step on SO(3) x R^3
(Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl. Numer. Math. 29, 1999:
the group action chosen so that the translation is a vector space), first order as before; the
configuration stays on its manifold. Every other joint: v+ = v + dt a, q+ = q (+) dt v+
(dispatch.integrate), the same bits as before.

Jacobians (for step_derivatives.py), per SE(3) joint with x = dt u (the step's increment in
the start axes), th = x_ang, E = exp([th]), Jr = Jexp3(th) (so3.d_integrate's), tangent
perturbations as Pinocchio's (q (+) d, first order (p + R dp, R exp(dth))):
  d q+ / d q       = [[E^T, -E^T [x_lin]], [0, E^T]]
  d q+ / d x       = [[E^T, 0], [0, Jr]]
  d v+ / d u       = [[E^T, [E^T x_lin] Jr], [0, I]]
  d u / d v (added) = dt [[[w], -[v_lin]], [0, 0]]
and the planar restriction (S = [[0, -1], [1, 0]], E the 2x2 rotation, y = E^T x_lin):
  d q+ / d q = [[E^T, S y], [0, 1]],  d q+ / d x = [[E^T, 0], [0, 1]],
  d v+ / d u = [[E^T, -S y], [0, 1]],  d u / d v (added) = dt [[0, -w, -v_y], [w, 0, v_x], 0].
"""

import math

from .._jit import jit
from ..joints.codes import LIE_GROUP, SE2, SE3, SO2, SO3, VECTOR
from . import so2, so3
from .dispatch import d_integrate_block
from .lie import (exp_coeffs, first_order_normalize, mat3_mul, poly3, put3, quat_exp3, quat_mul,
                  quat_rotate)


@jit
def _se3(q, iq, iv, ux, uy, uz, wx, wy, wz, dt, qn, vn):
    """qn, vn of one free-flyer from its end velocity u in the start axes (``advance``)."""
    x, y, z = q[iq], q[iq + 1], q[iq + 2]
    qx, qy, qz, qw = q[iq + 3], q[iq + 4], q[iq + 5], q[iq + 6]
    dx, dy, dz = quat_rotate(qx, qy, qz, qw, dt * ux, dt * uy, dt * uz)
    ex, ey, ez, ew = quat_exp3(dt * wx, dt * wy, dt * wz)
    rx, ry, rz, rw = quat_mul(qx, qy, qz, qw, ex, ey, ez, ew)
    if rx * qx + ry * qy + rz * qz + rw * qw < 0.0:  # as se3.integrate
        rx, ry, rz, rw = -rx, -ry, -rz, -rw
    rx, ry, rz, rw = first_order_normalize(rx, ry, rz, rw)
    vx, vy, vz = quat_rotate(-ex, -ey, -ez, ew, ux, uy, uz)  # exp(-dt [w]) u
    qn[iq] = dx + x
    qn[iq + 1] = dy + y
    qn[iq + 2] = dz + z
    qn[iq + 3] = rx
    qn[iq + 4] = ry
    qn[iq + 5] = rz
    qn[iq + 6] = rw
    vn[iv] = vx
    vn[iv + 1] = vy
    vn[iv + 2] = vz
    vn[iv + 3] = wx
    vn[iv + 4] = wy
    vn[iv + 5] = wz


@jit
def _se2(q, iq, iv, ux, uy, w, dt, qn, vn):
    """qn, vn of one planar joint from its end velocity u in the start axes (``advance``)."""
    x, y, c0, s0 = q[iq], q[iq + 1], q[iq + 2], q[iq + 3]
    c, s = math.cos(dt * w), math.sin(dt * w)
    cc = c0 * c - s0 * s
    ss = s0 * c + c0 * s
    a = 0.5 * (3.0 - (cc * cc + ss * ss))  # as se2.integrate
    qn[iq] = x + dt * (c0 * ux - s0 * uy)
    qn[iq + 1] = y + dt * (s0 * ux + c0 * uy)
    qn[iq + 2] = a * cc
    qn[iq + 3] = a * ss
    vn[iv] = c * ux + s * uy
    vn[iv + 1] = c * uy - s * ux
    vn[iv + 2] = w


@jit
def _joint(g, jr, q, v, dt, qn):
    """qn = q (+) dt v for one joint of a group other than SE(2), SE(3)."""
    iq, iv = jr.idx_q, jr.idx_v
    if g == VECTOR:
        for k in range(jr.nq):
            qn[iq + k] = q[iq + k] + v[iv + k] * dt
    elif g == SO2:
        so2.integrate(q, v, dt, iq, iv, qn)
    else:
        so3.integrate(q, v, dt, iq, iv, qn)


@jit
def euler(jnt, q, v, a, dt, qn, vn):
    """The step from the acceleration a: u = v + dt a + dt [w x v_lin; 0] per SE(3) / SE(2)
    joint, then ``advance``; v + dt a and q (+) dt v+ elsewhere. qn, vn may be q, v."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iq, iv = jr.idx_q, jr.idx_v
        g = LIE_GROUP[jr.type]
        if g == SE3:
            px, py, pz = v[iv], v[iv + 1], v[iv + 2]
            ox, oy, oz = v[iv + 3], v[iv + 4], v[iv + 5]
            _se3(q, iq, iv, px + dt * (a[iv] + (oy * pz - oz * py)),
                 py + dt * (a[iv + 1] + (oz * px - ox * pz)),
                 pz + dt * (a[iv + 2] + (ox * py - oy * px)),
                 ox + dt * a[iv + 3], oy + dt * a[iv + 4], oz + dt * a[iv + 5], dt, qn, vn)
        elif g == SE2:
            px, py, o = v[iv], v[iv + 1], v[iv + 2]
            _se2(q, iq, iv, px + dt * (a[iv] - o * py), py + dt * (a[iv + 1] + o * px),
                 o + dt * a[iv + 2], dt, qn, vn)
        else:
            for k in range(jr.nv):
                vn[iv + k] = v[iv + k] + dt * a[iv + k]
            _joint(g, jr, q, vn, dt, qn)


@jit
def frozen_velocity(jnt, v, dt, u):
    """u += dt [w x v_lin; 0] on each SE(3) / SE(2) joint (w, v_lin: v's): the free velocity
    v + dt a in u becomes the end velocity in the start axes. u is not v."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iv = jr.idx_v
        g = LIE_GROUP[jr.type]
        if g == SE3:
            px, py, pz = v[iv], v[iv + 1], v[iv + 2]
            ox, oy, oz = v[iv + 3], v[iv + 4], v[iv + 5]
            u[iv] += dt * (oy * pz - oz * py)
            u[iv + 1] += dt * (oz * px - ox * pz)
            u[iv + 2] += dt * (ox * py - oy * px)
        elif g == SE2:
            o = v[iv + 2]
            u[iv] -= dt * o * v[iv + 1]
            u[iv + 1] += dt * o * v[iv]


@jit
def advance(jnt, q, u, dt, qn, vn):
    """(qn, vn) from u, the end velocity in the start axes (module docstring); q (+) dt u
    and vn = u on joints of other groups. qn, vn may be q, u."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iq, iv = jr.idx_q, jr.idx_v
        g = LIE_GROUP[jr.type]
        if g == SE3:
            _se3(q, iq, iv, u[iv], u[iv + 1], u[iv + 2], u[iv + 3], u[iv + 4], u[iv + 5], dt,
                 qn, vn)
        elif g == SE2:
            _se2(q, iq, iv, u[iv], u[iv + 1], u[iv + 2], dt, qn, vn)
        else:
            for k in range(jr.nv):
                vn[iv + k] = u[iv + k]
            _joint(g, jr, q, u, dt, qn)


@jit
def frozen_of(jnt, vn, dt, u):
    """u from a step's vn (``advance`` undone on the velocity): u_lin = exp(dt [w+]) vn_lin
    on SE(3) / SE(2) joints, u = vn elsewhere."""
    for k in range(vn.shape[0]):
        u[k] = vn[k]
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iv = jr.idx_v
        g = LIE_GROUP[jr.type]
        if g == SE3:
            ex, ey, ez, ew = quat_exp3(dt * vn[iv + 3], dt * vn[iv + 4], dt * vn[iv + 5])
            u[iv], u[iv + 1], u[iv + 2] = quat_rotate(ex, ey, ez, ew, vn[iv], vn[iv + 1],
                                                      vn[iv + 2])
        elif g == SE2:
            c, s = math.cos(dt * vn[iv + 2]), math.sin(dt * vn[iv + 2])
            u[iv] = c * vn[iv] - s * vn[iv + 1]
            u[iv + 1] = s * vn[iv] + c * vn[iv + 1]


@jit
def d_frozen_velocity(jnt, v, Av):
    """Av += d [w x v_lin; 0] / dv on each SE(3) / SE(2) joint (the term ``frozen_velocity``
    adds, over dt)."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iv = jr.idx_v
        g = LIE_GROUP[jr.type]
        if g == SE3:
            W = poly3(v[iv + 3], v[iv + 4], v[iv + 5], 0.0, 1.0, 0.0)  # [w]
            P = poly3(v[iv], v[iv + 1], v[iv + 2], 0.0, 1.0, 0.0)  # [v_lin]
            for r in range(3):
                for k in range(3):
                    Av[iv + r, iv + k] += W[3 * r + k]
                    Av[iv + r, iv + 3 + k] -= P[3 * r + k]
        elif g == SE2:
            o = v[iv + 2]
            Av[iv, iv + 1] -= o
            Av[iv + 1, iv] += o
            Av[iv, iv + 2] -= v[iv + 1]
            Av[iv + 1, iv + 2] += v[iv]


@jit
def d_advance_block(g, nv, x, arg, iv, J):
    """One joint's diagonal block of the Jacobians of ``advance`` at the increment x = dt u
    (module docstring): arg 0 d q+/d q, 1 d q+/d x, 2 d v+/d u. Groups other than SE(3),
    SE(2): dispatch.d_integrate_block's (arg 0, 1), the identity (arg 2)."""
    if g == SE3:
        th = (x[iv + 3], x[iv + 4], x[iv + 5])
        c, a, b, cc = exp_coeffs(math.sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2]))
        Et = poly3(th[0], th[1], th[2], c, -a, b)
        for r in range(6):
            for k in range(6):
                J[iv + r, iv + k] = 0.0
        if arg == 0:
            put3(J, iv, iv, Et, 1.0)
            put3(J, iv, iv + 3, mat3_mul(Et, poly3(x[iv], x[iv + 1], x[iv + 2], 0.0, 1.0, 0.0)),
                 -1.0)
            put3(J, iv + 3, iv + 3, Et, 1.0)
        elif arg == 1:
            put3(J, iv, iv, Et, 1.0)
            put3(J, iv + 3, iv + 3, poly3(th[0], th[1], th[2], a, -b, cc), 1.0)
        else:
            y0 = Et[0] * x[iv] + Et[1] * x[iv + 1] + Et[2] * x[iv + 2]
            y1 = Et[3] * x[iv] + Et[4] * x[iv + 1] + Et[5] * x[iv + 2]
            y2 = Et[6] * x[iv] + Et[7] * x[iv + 1] + Et[8] * x[iv + 2]
            put3(J, iv, iv, Et, 1.0)
            put3(J, iv, iv + 3, mat3_mul(poly3(y0, y1, y2, 0.0, 1.0, 0.0),
                                         poly3(th[0], th[1], th[2], a, -b, cc)), 1.0)
            for r in range(3):
                J[iv + 3 + r, iv + 3 + r] = 1.0
    elif g == SE2:
        c, s = math.cos(x[iv + 2]), math.sin(x[iv + 2])
        y0 = c * x[iv] + s * x[iv + 1]
        y1 = c * x[iv + 1] - s * x[iv]
        sy = -1.0 if arg == 2 else 1.0
        J[iv, iv], J[iv, iv + 1], J[iv + 1, iv], J[iv + 1, iv + 1] = c, s, -s, c
        J[iv, iv + 2] = 0.0 if arg == 1 else -sy * y1
        J[iv + 1, iv + 2] = 0.0 if arg == 1 else sy * y0
        J[iv + 2, iv], J[iv + 2, iv + 1], J[iv + 2, iv + 2] = 0.0, 0.0, 1.0
    elif arg == 2:
        for r in range(iv, iv + nv):
            for k in range(iv, iv + nv):
                J[r, k] = 1.0 if r == k else 0.0
    else:
        d_integrate_block(g, nv, x, arg, iv, J)
