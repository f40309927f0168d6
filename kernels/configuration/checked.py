"""Entry points for the object API's configuration calls: the inputs checked inside the
compiled call, then the operation, then the result's finiteness (as kernels/algorithms/
guard.py does for the dynamics; its codes: 0 ran, 7 overflow, 8 sizes, anything else a bad
input that the Python side words by rerunning its own checks)."""

from .._jit import jit
from ..checks import CODE, check_inputs, first_nonfinite, nq_nv
from ..joints.codes import LIE_GROUP, UNIT_LENGTH, UNIT_OFFSET
from .dispatch import (d_difference, d_integrate, difference, integrate, interpolate,
                       normalize)


@jit
def _overflow_or_zero(out):
    k = first_nonfinite(out)
    return 0 if k < 0 else 7 * CODE + k


@jit
def _overflow_or_zero_matrix(out):
    for r in range(out.shape[0]):
        k = first_nonfinite(out[r])
        if k >= 0:
            return 7 * CODE + r * out.shape[1] + k
    return 0


@jit
def _two_configurations(jnt, q0, q1, empty, no_forces, tol):
    """check_inputs on q0, then on q1 (code 1 names the one refused: the caller rechecks)."""
    code = check_inputs(jnt, q0, empty, empty, no_forces, tol)
    if code == 0:
        code = check_inputs(jnt, q1, empty, empty, no_forces, tol)
    return code


@jit
def integrate_checked(jnt, q, v, dt, out, empty, no_forces, tol):
    code = check_inputs(jnt, q, v, empty, no_forces, tol)
    if code == 0 and (v.shape[0] != nq_nv(jnt)[1] or out.shape[0] != q.shape[0]):
        code = 8 * CODE
    if code == 0:
        integrate(jnt, q, v, dt, out)
        code = _overflow_or_zero(out)
    return code


@jit
def difference_checked(jnt, q0, q1, out, empty, no_forces, tol):
    code = check_inputs(jnt, q0, empty, empty, no_forces, tol)
    if code == 0:
        code = check_inputs(jnt, q1, empty, empty, no_forces, tol)
    if code == 0 and out.shape[0] != nq_nv(jnt)[1]:
        code = 8 * CODE
    if code == 0:
        difference(jnt, q0, q1, out)
        code = _overflow_or_zero(out)
    return code


@jit
def normalize_checked(jnt, q, out):
    """q finite, no unit part all zero (it has no direction), then normalize into out."""
    if q.shape[0] != nq_nv(jnt)[0] or out.shape[0] != q.shape[0]:
        return 8 * CODE
    k = first_nonfinite(q)
    if k >= 0:
        return 1 * CODE + k
    for i in range(1, jnt.shape[0]):
        g = LIE_GROUP[jnt[i].type]
        o = jnt[i].idx_q + UNIT_OFFSET[g]
        s = 0.0
        for k in range(UNIT_LENGTH[g]):
            s += q[o + k] * q[o + k]
        if UNIT_LENGTH[g] > 0 and s == 0.0:
            return 5 * CODE + i
    normalize(jnt, q, out)
    return 0


@jit
def interpolate_checked(jnt, q0, q1, u, out, empty, no_forces, tol):
    code = _two_configurations(jnt, q0, q1, empty, no_forces, tol)
    if code == 0 and out.shape[0] != q0.shape[0]:
        code = 8 * CODE
    if code == 0:
        interpolate(jnt, q0, q1, u, out)
        code = _overflow_or_zero(out)
    return code


@jit
def is_square(jnt, out):
    nv = nq_nv(jnt)[1]
    return out.shape[0] == nv and out.shape[1] == nv


@jit
def d_integrate_checked(jnt, q, v, arg, out, empty, no_forces, tol):
    code = check_inputs(jnt, q, v, empty, no_forces, tol)
    if code == 0 and (v.shape[0] != nq_nv(jnt)[1] or not is_square(jnt, out)):
        code = 8 * CODE
    if code == 0:
        d_integrate(jnt, q, v, arg, out)
        code = _overflow_or_zero_matrix(out)
    return code


@jit
def d_difference_checked(jnt, q0, q1, arg, out, empty, no_forces, tol):
    code = _two_configurations(jnt, q0, q1, empty, no_forces, tol)
    if code == 0 and not is_square(jnt, out):
        code = 8 * CODE
    if code == 0:
        d_difference(jnt, q0, q1, arg, out)
        code = _overflow_or_zero_matrix(out)
    return code
