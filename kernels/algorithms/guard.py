"""Entry points for the object API: check the state inside the compiled call, then run.

Checking finiteness and unit quaternions in Python costs microseconds per call (each NumPy
reduction is ~1 us); the same checks compiled here cost nanoseconds and save a dispatch. Each
``*_checked`` kernel returns 0 when it ran, or an error code that fastdyn._checks.explain turns
into a message naming the argument and the joint:
  1, 2, 3, 4: q, v, a (or tau), fext has a non-finite entry at index ``detail``
  5: the unit part (quaternion / (cos, sin)) of joint ``detail`` is off the manifold
  6: forward dynamics singular at joint ``detail`` (massless subtree on a moving joint)
The code is returned as code * 1_000_000 + detail.
"""

from math import sqrt

from .._jit import jit
from ..joints.codes import CONTINUOUS, CONTINUOUS_X, FREEFLYER, PLANAR, SPHERICAL
from .aba import aba
from .crba import crba
from .forward_kinematics import forward_kinematics
from .jacobian import frame_jacobian, joint_jacobians
from .rnea import rnea

CODE = 1_000_000


@jit
def _finite(x):
    for k in range(x.shape[0]):
        if not (x[k] - x[k] == 0.0):  # false for nan and +-inf
            return k
    return -1


@jit
def check_state(jnt, q, v, a, fext, tol):
    """0, or the code of the first problem found (see the module docstring)."""
    k = _finite(q)
    if k >= 0:
        return 1 * CODE + k
    k = _finite(v)
    if k >= 0:
        return 2 * CODE + k
    k = _finite(a)
    if k >= 0:
        return 3 * CODE + k
    for r in range(fext.shape[0]):
        for c in range(6):
            if not (fext[r, c] - fext[r, c] == 0.0):
                return 4 * CODE + r
    for i in range(1, jnt.shape[0]):
        t = jnt[i].type
        iq = jnt[i].idx_q
        if t == SPHERICAL or t == FREEFLYER:
            o = iq + 3 if t == FREEFLYER else iq
            n = sqrt(q[o] ** 2 + q[o + 1] ** 2 + q[o + 2] ** 2 + q[o + 3] ** 2)
        elif t == PLANAR or (CONTINUOUS_X <= t <= CONTINUOUS):
            o = iq + 2 if t == PLANAR else iq
            n = sqrt(q[o] ** 2 + q[o + 1] ** 2)
        else:
            continue
        if abs(n - 1.0) > tol:
            return 5 * CODE + i
    return 0


@jit
def rnea_checked(jnt, gravity, q, v, a, fext, ws, tau, tol):
    code = check_state(jnt, q, v, a, fext, tol)
    if code == 0:
        rnea(jnt, gravity, q, v, a, fext, ws, tau)
    return code


@jit
def aba_checked(jnt, gravity, q, v, tau, fext, ws, ddq, tol):
    code = check_state(jnt, q, v, tau, fext, tol)
    if code == 0:
        bad = aba(jnt, gravity, q, v, tau, fext, ws, ddq)
        if bad >= 0:
            code = 6 * CODE + bad
    return code


@jit
def crba_checked(jnt, q, ws, M, empty, no_forces, tol):
    code = check_state(jnt, q, empty, empty, no_forces, tol)
    if code == 0:
        crba(jnt, q, ws, M, empty)
    return code


@jit
def forward_kinematics_checked(jnt, q, v, a, ws, no_forces, tol):
    code = check_state(jnt, q, v, a, no_forces, tol)
    if code == 0:
        forward_kinematics(jnt, q, v, a, ws)
    return code


@jit
def joint_jacobians_checked(jnt, q, ws, J, empty, no_forces, tol):
    code = check_state(jnt, q, empty, empty, no_forces, tol)
    if code == 0:
        joint_jacobians(jnt, q, ws, J)
    return code


@jit
def frame_jacobian_checked(jnt, frm, q, f, reference, ws, oMf, J, empty, no_forces, tol):
    code = check_state(jnt, q, empty, empty, no_forces, tol)
    if code == 0:
        frame_jacobian(jnt, frm, q, f, reference, ws, oMf, J)
    return code
