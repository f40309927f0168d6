"""Derivative of forward dynamics with respect to the inertial parameters: d(ddq)/dpi.

Inverse dynamics is linear in the parameters pi (10 per body, regressor.py):
RNEA(q, v, a) = Y(q, v, a) pi + armature * a - sum_i J_i^T fext_i, so dtau/dpi = Y itself.
Differentiating the identity RNEA(q, v, FD(q, v, tau)) = tau in pi at a = FD(q, v, tau), with
q, v, tau and fext held fixed (Carpentier & Mansard, RSS 2018, sec. V, applied to pi instead of
q or v):
  Y(q, v, a) + M(q) d(ddq)/dpi = 0,   d(ddq)/dpi = -M(q)^-1 Y(q, v, a)      (nv x 10 (njoints-1))
Columns in the regressor's order (body by body, Pinocchio's [m, m c, I about the joint
origin]). The armature and the external forces do not depend on pi: they enter through a only.
"""

from .._jit import jit
from ..layout import IA
from ..algorithms.aba import aba
from ..linalg.cholesky import cholesky, solve_pair
from ..algorithms.crba import crba
from ..checks import (CODE, all_nv, check_state, first_nonfinite, first_nonfinite_row, is_square,
                      nq_nv, overflow_code)
from ..algorithms.regressor import joint_torque_regressor


@jit
def aba_parameter_derivatives(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dpi, M, U, D,
                              scratch):
    """ddq (nv,) = ABA(q, v, tau, fext) and ddq_dpi (nv, 10 (njoints - 1)) = -M^-1 Y(q, v, ddq);
    M, U, D hold M(q) and its factorization, scratch (nv,) RNEA's torque without fext. Returns
    -1, or the joint whose articulated inertia (ABA) or whose dof's pivot of M is not positive."""
    bad = aba(jnt, prm, q, v, tau, fext, ws, ddq)
    if bad >= 0:
        return bad
    joint_torque_regressor(jnt, prm, q, v, ddq, fext[:0], ws, ddq_dpi, scratch)
    crba(jnt, prm, q, ws, M, q[:0])
    k = cholesky(dof, M, U, D)
    if k >= 0:
        return dof[k].joint
    # P = 10 (njoints - 1) is even: the two halves of the columns are solve_pair's pair
    h = ddq_dpi.shape[1] // 2
    solve_pair(dof, U, D, ddq_dpi[:, :h], ddq_dpi[:, h:])
    for r in range(ddq_dpi.shape[0]):
        for c in range(ddq_dpi.shape[1]):
            ddq_dpi[r, c] = -ddq_dpi[r, c]
    return -1


@jit
def aba_parameter_derivatives_checked(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dpi, M, U, D,
                                      scratch, tol):
    """The object API's entry point: guard.py's checks and codes, then the kernel."""
    code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    nv = nq_nv(jnt)[1]
    if code == 0 and not (all_nv(jnt, v, tau, ddq) and D.shape[0] == nv
                          and scratch.shape[0] == nv and dof.shape[0] == nv
                          and is_square(nv, M) and is_square(nv, U) and ddq_dpi.shape[0] == nv
                          and ddq_dpi.shape[1] == 10 * (jnt.shape[0] - 1)):
        code = 8 * CODE
    if code == 0:
        bad = aba_parameter_derivatives(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dpi, M, U,
                                        D, scratch)
        if bad >= 0:  # singular if the articulated inertia is finite (as aba_checked)
            code = 6 * CODE + bad if first_nonfinite_row(ws[bad:bad + 1], IA, 36, 1) < 0 \
                else 7 * CODE
        else:
            code = overflow_code(first_nonfinite(ddq))
            for r in range(ddq_dpi.shape[0]):
                for c in range(ddq_dpi.shape[1]):
                    if code == 0 and not (ddq_dpi[r, c] - ddq_dpi[r, c] == 0.0):
                        code = 7 * CODE + r
    return code
