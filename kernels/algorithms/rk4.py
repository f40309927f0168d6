"""One classical Runge-Kutta (RK4) step of the contact-free dynamics on the configuration
Lie group.

Munthe-Kaas' method (H. Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl.
Numer. Math. 29, 1999; Hairer, Lubich & Wanner, "Geometric Numerical Integration", Springer
2006, sec. IV.8.2, Algorithm 8.3): the configuration moves as q(t) = q (+) th(t) with th in
the Lie algebra, where q' = q v (v body-fixed, as every joint's) becomes
th' = dexp^-1_{-th}(v) = v + [th, v]/2 + [th, [th, v]]/12 + ..., a differential equation in
a vector space that the classical RK4 tableau integrates, the series cut after the [th, [th, .]]
term (enough for order 4: HLW IV.8.2, "truncated after the term of order p - 2"):
  k1 = ABA(q, v);     F1 = v
  th2 = dt/2 F1;      q2 = q (+) th2,  v2 = v + dt/2 k1,  k2 = ABA(q2, v2),  F2 = dexpinv(th2, v2)
  th3 = dt/2 F2;      q3 = q (+) th3,  v3 = v + dt/2 k2,  k3 = ABA(q3, v3),  F3 = dexpinv(th3, v3)
  th4 = dt F3;        q4 = q (+) th4,  v4 = v + dt k3,    k4 = ABA(q4, v4),  F4 = dexpinv(th4, v4)
  v+ = v + dt/6 (k1 + 2 k2 + 2 k3 + k4);   q+ = q (+) dt/6 (F1 + 2 F2 + 2 F3 + F4)
with (+) the exponential map (integrate) and [., .] the Lie bracket of the joint's group:
zero on vector spaces and SO(2) (F = v there: the classical RK4), w1 x w2 on SO(3), the
motion cross product [w1 x v2 - w2 x v1; w1 x w2] on SE(3) (linear first), its planar
restriction on SE(2). Fourth order on every joint (tests/test_integrator_physics.py measures
it on a tumbling free body), and on the manifold: never q + v dt.
"""

from .._jit import jit
from ..configuration.dispatch import integrate
from ..joints.codes import LIE_GROUP, SE2, SE3, SO3
from .aba import aba


@jit
def _bracket(g, th, x, iv, out):
    """out[iv..] = [th, x] of one joint of Lie group g (SO(3), SE(3), SE(2)), from th and x
    at iv (module docstring); out may be x."""
    if g == SO3:
        bx, by, bz = x[iv], x[iv + 1], x[iv + 2]
        out[iv] = th[iv + 1] * bz - th[iv + 2] * by
        out[iv + 1] = th[iv + 2] * bx - th[iv] * bz
        out[iv + 2] = th[iv] * by - th[iv + 1] * bx
    elif g == SE3:
        px, py, pz = x[iv], x[iv + 1], x[iv + 2]
        bx, by, bz = x[iv + 3], x[iv + 4], x[iv + 5]
        tx, ty, tz = th[iv], th[iv + 1], th[iv + 2]
        ax, ay, az = th[iv + 3], th[iv + 4], th[iv + 5]
        out[iv] = ay * pz - az * py - (by * tz - bz * ty)
        out[iv + 1] = az * px - ax * pz - (bz * tx - bx * tz)
        out[iv + 2] = ax * py - ay * px - (bx * ty - by * tx)
        out[iv + 3] = ay * bz - az * by
        out[iv + 4] = az * bx - ax * bz
        out[iv + 5] = ax * by - ay * bx
    else:  # SE(2): [w1 S v2 - w2 S v1; 0], S = [[0, -1], [1, 0]]
        px, py, w = x[iv], x[iv + 1], x[iv + 2]
        out[iv] = -th[iv + 2] * py + w * th[iv + 1]
        out[iv + 1] = th[iv + 2] * px - w * th[iv]
        out[iv + 2] = 0.0


@jit
def dexp_inv(jnt, th, v, b, out):
    """out = v + [th, v]/2 + [th, [th, v]]/12 joint by joint (out = v on vector spaces and
    SO(2)); b (nv) scratch."""
    for k in range(v.shape[0]):
        out[k] = v[k]
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        g = LIE_GROUP[jr.type]
        if g != SO3 and g != SE3 and g != SE2:
            continue
        iv = jr.idx_v
        _bracket(g, th, v, iv, b)
        for k in range(iv, iv + jr.nv):
            out[k] += 0.5 * b[k]
        _bracket(g, th, b, iv, b)
        for k in range(iv, iv + jr.nv):
            out[k] += b[k] / 12.0


@jit
def rk4_step(jnt, prm, dt, q, v, tau, fext, ws, buf, qn, vn):
    """(qn, vn) after one RK4 step under tau; buf (>= 8 nv) holds the stages. Returns -1, or
    the joint whose articulated inertia is singular at a stage."""
    nv = v.shape[0]
    qs = buf[:2 * nv]  # a stage configuration: nq <= 2 nv
    vs = buf[2 * nv:3 * nv]
    k = buf[3 * nv:4 * nv]
    dv = buf[4 * nv:5 * nv]  # accumulates k1 + 2 k2 + 2 k3 + k4
    dq = buf[5 * nv:6 * nv]  # accumulates F1 + 2 F2 + 2 F3 + F4
    th = buf[6 * nv:7 * nv]  # the stage's th
    F = buf[7 * nv:8 * nv]
    for j in range(nv):
        vs[j] = v[j]
        dv[j] = 0.0
        dq[j] = 0.0
        F[j] = v[j]  # F1 = v (th1 = 0)
    for j in range(qn.shape[0]):
        qs[j] = q[j]
    for stage in range(4):
        w = 1.0 if stage == 0 or stage == 3 else 2.0
        bad = aba(jnt, prm, qs[:qn.shape[0]], vs, tau, fext, ws, k)
        if bad >= 0:
            return bad
        if stage > 0:  # F = dexpinv(th, v_stage); qs, read by ABA, is free: the scratch
            dexp_inv(jnt, th, vs, qs[:nv], F)
        for j in range(nv):
            dv[j] += w * k[j]
            dq[j] += w * F[j]
        if stage < 3:
            h = dt if stage == 2 else 0.5 * dt
            for j in range(nv):
                th[j] = h * F[j]
                vs[j] = v[j] + h * k[j]
            integrate(jnt, q, th, 1.0, qs[:qn.shape[0]])  # q (+) th_stage
    for j in range(nv):
        vn[j] = v[j] + dt / 6.0 * dv[j]
    integrate(jnt, q, dq, dt / 6.0, qn)
    return -1
