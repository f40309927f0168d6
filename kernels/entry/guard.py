"""Entry points for the object API: check the state inside the compiled call, then run.

Checking finiteness and unit quaternions in Python costs microseconds per call (each NumPy
reduction is ~1 us); the same checks compiled here cost nanoseconds and save a dispatch. Each
``*_checked`` kernel returns 0 when it ran, or an error code that
fastdyn._internal.checks.explain turns into a message naming the argument and the joint:
  1, 2, 3, 4: q, v, a (or tau), fext has a non-finite entry at index ``detail``
  5: the unit part (quaternion / (cos, sin)) of joint ``detail`` is off the manifold
  6: forward dynamics singular at joint ``detail`` (massless subtree on a moving joint)
  7: the result is not finite although every input is (an overflow: e.g. v = 1e200)
  8: the workspace, the parameters, an input or an output does not have the model's sizes
     (nothing written)
  9: M(q) is not positive definite at dof ``detail`` (its factorization met a pivot <= 0)
The code is returned as code * 1_000_000 + detail. The sizes are checked here, in compiled
code, because the kernels run without bounds checks: this is the last guard between a
mismatched workspace (a Data rebound by hand, a Data of another model) and a write past the
end of an array.
"""

from math import sqrt

from .._jit import jit
from ..checks import (CODE, all_nv, check_state, diagonal_overflow, first_nonfinite,
                      first_nonfinite_row, is_square, nq_nv, overflow_code, placements_overflow)
from ..joints.codes import LIE_GROUP, UNIT_LENGTH, UNIT_OFFSET
from ..layout import A, IA, NP, NW, OM, OYC, V
from ..algorithms.aba import aba
from ..algorithms.aba_derivatives import aba_derivatives
from ..algorithms.centroidal_derivatives import centroidal_dynamics_derivatives
from ..linalg.cholesky import cholesky, inverse_sparse
from ..algorithms.crba import crba
from ..algorithms.forward_kinematics import forward_kinematics
from ..algorithms.jacobian import frame_jacobian, joint_jacobians
from ..algorithms.kinematics_derivatives import kinematics_derivatives
from ..algorithms.regressor import joint_torque_regressor
from ..algorithms.rnea import rnea
from ..algorithms.rnea_derivatives import rnea_derivatives, static_torque_derivatives

@jit
def rnea_checked(jnt, prm, q, v, a, fext, ws, tau, tol):
    code = check_state(jnt, prm, q, v, a, fext, ws, tol)
    if code == 0 and not all_nv(jnt, v, a, tau):
        code = 8 * CODE
    if code == 0:
        rnea(jnt, prm, q, v, a, fext, ws, tau)
        code = overflow_code(first_nonfinite(tau))
    return code


@jit
def aba_checked(jnt, prm, q, v, tau, fext, ws, ddq, tol):
    code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    if code == 0 and not all_nv(jnt, v, tau, ddq):
        code = 8 * CODE
    if code == 0:
        bad = aba(jnt, prm, q, v, tau, fext, ws, ddq)
        if bad >= 0:  # D_i not positive: singular if the articulated inertia is finite
            code = 6 * CODE + bad if first_nonfinite_row(ws[bad:bad + 1], IA, 36, 1) < 0 \
                else 7 * CODE
        else:
            code = overflow_code(first_nonfinite(ddq))
    return code


@jit
def crba_checked(jnt, prm, q, ws, M, empty, no_forces, tol):
    code = check_state(jnt, prm, q, empty, empty, no_forces, ws, tol)
    nv = nq_nv(jnt)[1]
    if code == 0 and (M.shape[0] != nv or M.shape[1] != nv):
        code = 8 * CODE
    if code == 0:
        crba(jnt, prm, q, ws, M, empty)
        for k in range(nv):  # a non-finite entry puts a non-finite one on the diagonal
            if not (M[k, k] - M[k, k] == 0.0):
                return 7 * CODE + k
    return code


@jit
def forward_kinematics_checked(jnt, prm, q, v, a, ws, no_forces, tol):
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    if code == 0:
        forward_kinematics(jnt, prm, q, v, a, ws)
        code = placements_overflow(jnt, ws, v, a)
    return code


@jit
def joint_jacobians_checked(jnt, prm, q, ws, J, empty, no_forces, tol):
    code = check_state(jnt, prm, q, empty, empty, no_forces, ws, tol)
    if code == 0 and (J.shape[0] != 6 or J.shape[1] != nq_nv(jnt)[1]):
        code = 8 * CODE
    if code == 0:
        joint_jacobians(jnt, prm, q, ws, J)
        code = placements_overflow(jnt, ws, empty, empty)
    return code


@jit
def frame_jacobian_checked(jnt, prm, frm, q, f, reference, ws, oMf, J, empty, no_forces, tol):
    code = check_state(jnt, prm, q, empty, empty, no_forces, ws, tol)
    if code == 0 and (J.shape[0] != 6 or J.shape[1] != nq_nv(jnt)[1] or f < 0
                      or f >= frm.shape[0] or oMf.shape[0] != frm.shape[0]
                      or oMf.shape[1] != 12):
        code = 8 * CODE
    if code == 0:
        frame_jacobian(jnt, prm, frm, q, f, reference, ws, oMf, J)
        code = placements_overflow(jnt, ws, empty, empty)
    return code


@jit
def joint_torque_regressor_checked(jnt, prm, q, v, a, no_forces, ws, Y, scratch, tol):
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    if code == 0 and not (all_nv(jnt, v, a, scratch) and Y.shape[0] == v.shape[0]
                          and Y.shape[1] == 10 * (jnt.shape[0] - 1)):
        code = 8 * CODE
    if code == 0:
        code = overflow_code(joint_torque_regressor(jnt, prm, q, v, a, no_forces, ws, Y,
                                                scratch))
    return code


@jit
def minverse_checked(jnt, prm, dof, q, ws, M, U, D, Minv, empty, no_forces, tol):
    """crba_checked, then M = U D U^T and Minv = M^-1 (data.M, U, D, Minv), in one call."""
    code = crba_checked(jnt, prm, q, ws, M, empty, no_forces, tol)
    nv = M.shape[0]
    if code == 0 and (U.shape[0] != nv or U.shape[1] != nv or D.shape[0] != nv
                      or Minv.shape[0] != nv or Minv.shape[1] != nv or dof.shape[0] != nv):
        code = 8 * CODE
    if code == 0:
        bad = cholesky(dof, M, U, D)
        if bad >= 0:
            return 9 * CODE + bad
        inverse_sparse(dof, U, D, Minv)
        for k in range(nv):  # a pivot near zero overflows its row of the inverse
            if not (Minv[k, k] - Minv[k, k] == 0.0):
                return 7 * CODE + k
    return code


@jit
def rnea_derivatives_checked(jnt, prm, q, v, a, fext, ws, tau, dtau_dq, dtau_dv, M, tol):
    """check_state, then rnea_derivatives (tau, dtau_dq, dtau_dv, M); code 7 if one of tau or
    the diagonals is not finite."""
    code = check_state(jnt, prm, q, v, a, fext, ws, tol)
    nv = nq_nv(jnt)[1]
    if code == 0 and not (all_nv(jnt, v, a, tau) and is_square(nv, dtau_dq)
                          and is_square(nv, dtau_dv) and is_square(nv, M)):
        code = 8 * CODE
    if code == 0:
        rnea_derivatives(jnt, prm, q, v, a, fext, ws, tau, dtau_dq, dtau_dv, M)
        code = overflow_code(first_nonfinite(tau))
        for X in (dtau_dq, dtau_dv, M):
            if code == 0:
                code = diagonal_overflow(X)
    return code


@jit
def aba_derivatives_checked(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dq, ddq_dv, M, U, D,
                            Minv, tol):
    """check_state, then aba_derivatives (ddq, ddq_dq, ddq_dv, Minv; M, U, D on the way)."""
    code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    nv = nq_nv(jnt)[1]
    if code == 0 and not (all_nv(jnt, v, tau, ddq) and D.shape[0] == nv
                          and dof.shape[0] == nv and is_square(nv, ddq_dq)
                          and is_square(nv, ddq_dv) and is_square(nv, M) and is_square(nv, U)
                          and is_square(nv, Minv)):
        code = 8 * CODE
    if code == 0:
        bad = aba_derivatives(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dq, ddq_dv, M, U, D,
                              Minv)
        if bad >= 0:  # singular if the articulated inertia is finite (as aba_checked)
            code = 6 * CODE + bad if first_nonfinite_row(ws[bad:bad + 1], IA, 36, 1) < 0 \
                else 7 * CODE
        else:
            code = overflow_code(first_nonfinite(ddq))
            for X in (ddq_dq, ddq_dv, Minv):
                if code == 0:
                    code = diagonal_overflow(X)
    return code


@jit
def static_torque_derivatives_checked(jnt, prm, q, fext, ws, tau, dtau_dq, empty, tol):
    """check_state, then static_torque_derivatives (tau, dtau_dq)."""
    code = check_state(jnt, prm, q, empty, empty, fext, ws, tol)
    nv = nq_nv(jnt)[1]
    if code == 0 and not (tau.shape[0] == nv and is_square(nv, dtau_dq)):
        code = 8 * CODE
    if code == 0:
        static_torque_derivatives(jnt, prm, q, fext, ws, tau, dtau_dq)
        code = overflow_code(first_nonfinite(tau))
        if code == 0:
            code = diagonal_overflow(dtau_dq)
    return code


@jit
def kinematics_derivatives_checked(jnt, prm, q, v, a, ws, no_forces, tol):
    """check_state, then kinematics_derivatives; code 7 if a placement, v or a is not finite
    (the columns are products of the same numbers)."""
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    if code == 0 and not all_nv(jnt, v, a, a):
        code = 8 * CODE
    if code == 0:
        kinematics_derivatives(jnt, prm, q, v, a, ws)
        code = placements_overflow(jnt, ws, v, a)
    return code


@jit
def centroidal_dynamics_derivatives_checked(jnt, prm, q, v, a, ws, dh_dq, dhdot_dq, dhdot_dv,
                                            dhdot_da, hg, dhg, no_forces, tol):
    """check_state, then centroidal_dynamics_derivatives; code 7 if h_g or dh_g/dt is not
    finite although the mass (left in ws[0, OYC]) is positive: the caller refuses a massless
    robot itself."""
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    nv = nq_nv(jnt)[1]
    ok = all_nv(jnt, v, a, a) and hg.shape[0] == 6 and dhg.shape[0] == 6
    for X in (dh_dq, dhdot_dq, dhdot_dv, dhdot_da):
        ok = ok and X.shape[0] == 6 and X.shape[1] == nv
    if code == 0 and not ok:
        code = 8 * CODE
    if code == 0:
        centroidal_dynamics_derivatives(jnt, prm, q, v, a, ws, dh_dq, dhdot_dq, dhdot_dv,
                                        dhdot_da, hg, dhg)
        code = placements_overflow(jnt, ws, v, a)
        if code == 0 and ws[0, OYC] > 0.0:
            code = overflow_code(max(first_nonfinite(hg), first_nonfinite(dhg)))
    return code
