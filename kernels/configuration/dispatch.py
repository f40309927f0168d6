"""Configuration space of the whole model as a product of Lie groups, one factor per joint.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint": the joint integrator
is the exponential map of the joint's configuration manifold, q_t = q_0 exp(t v_q); vector
spaces get q_t = q_0 + t v_q. Semantics are Pinocchio's (pin.integrate, difference,
interpolate, dIntegrate, dDifference, normalize, isNormalized, neutral): the factor of each
joint type is
  R^n   revolute*, prismatic*, helical, universal, translation, spherical_zyx  (q + v)
  SO(2) continuous*  (so2.py)        SO(3) spherical  (so3.py)
  SE(2) planar       (se2.py)        SE(3) freeflyer  (se3.py)
and the model-level Jacobians are block diagonal, one (nv_i x nv_i) block per joint.

Every kernel loops over joints 1..njoints-1 of ``jnt`` (layout.JOINT_DTYPE rows), writes only
into the ``out`` it is given (integrate/interpolate/normalize accept out = q or q0), allocates
nothing, and can be called from other @njit code. ``arg`` is an int: 0 for the first argument
(q, resp. q0), 1 for the second (v, resp. q1).
"""

import math

from .._jit import jit
from ..joints.codes import LIE_GROUP, SE2, SE3, SO2, SO3, UNIT_LENGTH, UNIT_OFFSET, VECTOR
from . import se2, se3, so2, so3

@jit
def lie_group(t):
    """VECTOR, SO2, SO3, SE2 or SE3 for joint type code t (codes.LIE_GROUP)."""
    return LIE_GROUP[t]


@jit
def unit_part(g):
    """(offset in the joint's q, length) of the coordinates that must have unit norm."""
    return UNIT_OFFSET[g], UNIT_LENGTH[g]


@jit
def neutral(jnt, out):
    """The identity of every factor: zeros, with (cos, sin) = (1, 0) and quaternions (0,0,0,1)."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iq = jr.idx_q
        for k in range(jr.nq):
            out[iq + k] = 0.0
        g = lie_group(jr.type)
        if g != VECTOR:
            o, n = unit_part(g)
            out[iq + o + (0 if n == 2 else 3)] = 1.0  # cos of (cos, sin); w of (x, y, z, w)


@jit
def integrate(jnt, q, v, dt, out):
    """out = q (+) v dt = q exp(v dt) joint by joint."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iq = jr.idx_q
        iv = jr.idx_v
        g = lie_group(jr.type)
        if g == VECTOR:
            for k in range(jr.nq):
                out[iq + k] = q[iq + k] + v[iv + k] * dt
        elif g == SO2:
            so2.integrate(q, v, dt, iq, iv, out)
        elif g == SO3:
            so3.integrate(q, v, dt, iq, iv, out)
        elif g == SE2:
            se2.integrate(q, v, dt, iq, iv, out)
        else:
            se3.integrate(q, v, dt, iq, iv, out)


@jit
def difference(jnt, q0, q1, out):
    """out = q1 (-) q0 = log(q0^-1 q1) joint by joint, so that integrate(q0, out) = q1."""
    for i in range(1, jnt.shape[0]):
        difference_joint(jnt[i], q0, q1, out)


@jit
def difference_joint(jr, q0, q1, out):
    """Joint jr's block of ``difference``: out[jr.idx_v:jr.idx_v + jr.nv] only."""
    iq = jr.idx_q
    iv = jr.idx_v
    g = lie_group(jr.type)
    if g == VECTOR:
        for k in range(jr.nq):
            out[iv + k] = q1[iq + k] - q0[iq + k]
    elif g == SO2:
        so2.difference(q0, q1, iq, iv, out)
    elif g == SO3:
        so3.difference(q0, q1, iq, iv, out)
    elif g == SE2:
        se2.difference(q0, q1, iq, iv, out)
    else:
        se3.difference(q0, q1, iq, iv, out)


@jit
def interpolate(jnt, q0, q1, u, out):
    """out = q0 (+) u (q1 (-) q0): q0 at u = 0, q1 at u = 1 (SO(2): Pinocchio's slerp)."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iq = jr.idx_q
        g = lie_group(jr.type)
        if g == VECTOR:
            for k in range(jr.nq):
                out[iq + k] = q0[iq + k] + u * (q1[iq + k] - q0[iq + k])
        elif g == SO2:
            so2.interpolate(q0, q1, u, iq, out)
        elif g == SO3:
            so3.interpolate(q0, q1, u, iq, out)
        elif g == SE2:
            se2.interpolate(q0, q1, u, iq, out)
        else:
            se3.interpolate(q0, q1, u, iq, out)


@jit
def normalize(jnt, q, out):
    """out = q with every quaternion and (cos, sin) pair divided by its norm (a zero one is
    left as is, as Eigen's normalize())."""
    for k in range(q.shape[0]):
        out[k] = q[k]
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        o, n = unit_part(lie_group(jr.type))
        o += jr.idx_q
        z = 0.0
        for k in range(n):
            z += q[o + k] * q[o + k]
        if z > 0.0:
            r = math.sqrt(z)
            for k in range(n):
                out[o + k] = q[o + k] / r


@jit
def is_normalized(jnt, q, tol):
    """True when every quaternion and (cos, sin) pair has | |x| - 1 | < tol (Pinocchio)."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        o, n = unit_part(lie_group(jr.type))
        o += jr.idx_q
        z = 0.0
        for k in range(n):
            z += q[o + k] * q[o + k]
        if n > 0 and not abs(math.sqrt(z) - 1.0) < tol:
            return False
    return True


@jit
def random_configuration(jnt, lower, upper, u, out):
    """A configuration from nq uniforms u in [0, 1): vector coordinates
    lower + (upper - lower) u (finite bounds, nq each), angles of SO(2)/SE(2) uniform in
    [-pi, pi), quaternions uniform on SO(3) (Shoemake); the bounds of unit-norm parts unused."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iq = jr.idx_q
        g = lie_group(jr.type)
        if g == VECTOR:
            for k in range(jr.nq):
                out[iq + k] = lower[iq + k] + (upper[iq + k] - lower[iq + k]) * u[iq + k]
        elif g == SO2:
            so2.random(u, iq, out)
        elif g == SO3:
            so3.random(u, iq, out)
        elif g == SE2:
            se2.random(u, lower, upper, iq, out)
        else:
            se3.random(u, lower, upper, iq, out)


@jit
def random_configurations(jnt, lower, upper, U, out):
    """random_configuration for each row of the uniforms U (n, nq) into out (n, nq)."""
    for r in range(U.shape[0]):
        random_configuration(jnt, lower, upper, U[r], out[r])


@jit
def d_integrate(jnt, q, v, arg, out):
    """out (nv x nv) = d integrate(q, v) / d q (arg 0) or / d v (arg 1), block diagonal:
    identity for vector spaces and SO(2), else see so3/se2/se3.d_integrate (depends on v only)."""
    out[:, :] = 0.0
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        d_integrate_block(lie_group(jr.type), jr.nv, v, arg, jr.idx_v, out)


@jit
def d_integrate_block(g, nv, v, arg, iv, out):
    """d_integrate of one joint (Lie group g, nv dofs from iv): its diagonal block of out, the
    rest left as it is."""
    if g == VECTOR or g == SO2:
        for r in range(iv, iv + nv):
            for k in range(iv, iv + nv):
                out[r, k] = 1.0 if r == k else 0.0
    elif g == SO3:
        so3.d_integrate(v, arg, iv, out)
    elif g == SE2:
        se2.d_integrate(v, arg, iv, out)
    else:
        se3.d_integrate(v, arg, iv, out)


@jit
def d_difference(jnt, q0, q1, arg, out):
    """out (nv x nv) = d difference(q0, q1) / d q0 (arg 0) or / d q1 (arg 1), block diagonal:
    -I / +I for vector spaces and SO(2), else see so3/se2/se3.d_difference."""
    out[:, :] = 0.0
    s = -1.0 if arg == 0 else 1.0
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iq = jr.idx_q
        iv = jr.idx_v
        g = lie_group(jr.type)
        if g == VECTOR or g == SO2:
            for k in range(jr.nv):
                out[iv + k, iv + k] = s
        elif g == SO3:
            so3.d_difference(q0, q1, arg, iq, iv, out)
        elif g == SE2:
            se2.d_difference(q0, q1, arg, iq, iv, out)
        else:
            se3.d_difference(q0, q1, arg, iq, iv, out)
