"""Entry points for the object API: check the state inside the compiled call, then run.

Checking finiteness and unit quaternions in Python costs microseconds per call (each NumPy
reduction is ~1 us); the same checks compiled here cost nanoseconds and save a dispatch. Each
``*_checked`` kernel returns 0 when it ran, or an error code that fastdyn._internal.checks.explain turns
into a message naming the argument and the joint:
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

CODE = 1_000_000


@jit
def _finite(x):
    for k in range(x.shape[0]):
        if not (x[k] - x[k] == 0.0):  # false for nan and +-inf
            return k
    return -1


@jit
def _finite_block(ws, col, width, rows):
    """-1, or the first of ``rows`` rows whose columns col..col+width are not all finite."""
    for i in range(rows):
        for k in range(col, col + width):
            if not (ws[i, k] - ws[i, k] == 0.0):
                return i
    return -1


@jit
def _sizes(jnt):
    """(nq, nv) of the model: joints are numbered depth first with idx_q, idx_v increasing."""
    n = jnt.shape[0]
    if n < 2:
        return 0, 0
    return jnt[n - 1].idx_q + jnt[n - 1].nq, jnt[n - 1].idx_v + jnt[n - 1].nv


@jit
def check_state(jnt, prm, q, v, a, fext, ws, tol):
    """0, or the code of the first problem found (see the module docstring). ``v`` and ``a``
    may be empty (not given)."""
    if (ws.shape[0] != jnt.shape[0] or ws.shape[1] != NW or prm.shape[0] != jnt.shape[0]
            or prm.shape[1] != NP):
        return 8 * CODE
    return check_inputs(jnt, q, v, a, fext, tol)


@jit
def check_inputs(jnt, q, v, a, fext, tol):
    """check_state without a workspace: sizes, finiteness, unit parts of q."""
    nq, nv = _sizes(jnt)
    n = jnt.shape[0]
    if (q.shape[0] != nq or (v.shape[0] != nv and v.shape[0] != 0)
            or (a.shape[0] != nv and a.shape[0] != 0)
            or (fext.shape[0] != n and fext.shape[0] != 0) or fext.shape[1] != 6):
        return 8 * CODE
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
    for i in range(1, n):
        g = LIE_GROUP[jnt[i].type]
        if UNIT_LENGTH[g] == 0:
            continue
        o = jnt[i].idx_q + UNIT_OFFSET[g]
        s = 0.0
        for k in range(UNIT_LENGTH[g]):
            s += q[o + k] ** 2
        if abs(sqrt(s) - 1.0) > tol:
            return 5 * CODE + i
    return 0


@jit
def _all_nv(jnt, x, y, z):
    nv = _sizes(jnt)[1]
    return x.shape[0] == nv and y.shape[0] == nv and z.shape[0] == nv


@jit
def _overflow(k):
    """Code 7 for a non-finite result entry k (-1: none)."""
    return 0 if k < 0 else 7 * CODE + k


@jit
def rnea_checked(jnt, prm, q, v, a, fext, ws, tau, tol):
    code = check_state(jnt, prm, q, v, a, fext, ws, tol)
    if code == 0 and not _all_nv(jnt, v, a, tau):
        code = 8 * CODE
    if code == 0:
        rnea(jnt, prm, q, v, a, fext, ws, tau)
        code = _overflow(_finite(tau))
    return code


@jit
def aba_checked(jnt, prm, q, v, tau, fext, ws, ddq, tol):
    code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    if code == 0 and not _all_nv(jnt, v, tau, ddq):
        code = 8 * CODE
    if code == 0:
        bad = aba(jnt, prm, q, v, tau, fext, ws, ddq)
        if bad >= 0:  # D_i not positive: singular if the articulated inertia is finite
            code = 6 * CODE + bad if _finite_block(ws[bad:bad + 1], IA, 36, 1) < 0 \
                else 7 * CODE
        else:
            code = _overflow(_finite(ddq))
    return code


@jit
def crba_checked(jnt, prm, q, ws, M, empty, no_forces, tol):
    code = check_state(jnt, prm, q, empty, empty, no_forces, ws, tol)
    nv = _sizes(jnt)[1]
    if code == 0 and (M.shape[0] != nv or M.shape[1] != nv):
        code = 8 * CODE
    if code == 0:
        crba(jnt, prm, q, ws, M, empty)
        for k in range(nv):  # a non-finite entry puts a non-finite one on the diagonal
            if not (M[k, k] - M[k, k] == 0.0):
                return 7 * CODE + k
    return code


@jit
def _placements_overflow(jnt, ws, v, a):
    """Code 7 if a placement (or, when given, a velocity or acceleration) is not finite."""
    n = jnt.shape[0]
    k = _finite_block(ws, OM + 9, 3, n)
    if k < 0 and v.shape[0] > 0:
        k = _finite_block(ws, V, 6, n)
    if k < 0 and a.shape[0] > 0:
        k = _finite_block(ws, A, 6, n)
    return _overflow(k)


@jit
def forward_kinematics_checked(jnt, prm, q, v, a, ws, no_forces, tol):
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    if code == 0:
        forward_kinematics(jnt, prm, q, v, a, ws)
        code = _placements_overflow(jnt, ws, v, a)
    return code


@jit
def joint_jacobians_checked(jnt, prm, q, ws, J, empty, no_forces, tol):
    code = check_state(jnt, prm, q, empty, empty, no_forces, ws, tol)
    if code == 0 and (J.shape[0] != 6 or J.shape[1] != _sizes(jnt)[1]):
        code = 8 * CODE
    if code == 0:
        joint_jacobians(jnt, prm, q, ws, J)
        code = _placements_overflow(jnt, ws, empty, empty)
    return code


@jit
def frame_jacobian_checked(jnt, prm, frm, q, f, reference, ws, oMf, J, empty, no_forces, tol):
    code = check_state(jnt, prm, q, empty, empty, no_forces, ws, tol)
    if code == 0 and (J.shape[0] != 6 or J.shape[1] != _sizes(jnt)[1] or f < 0
                      or f >= frm.shape[0] or oMf.shape[0] != frm.shape[0]
                      or oMf.shape[1] != 12):
        code = 8 * CODE
    if code == 0:
        frame_jacobian(jnt, prm, frm, q, f, reference, ws, oMf, J)
        code = _placements_overflow(jnt, ws, empty, empty)
    return code


@jit
def joint_torque_regressor_checked(jnt, prm, q, v, a, no_forces, ws, Y, scratch, tol):
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    if code == 0 and not (_all_nv(jnt, v, a, scratch) and Y.shape[0] == v.shape[0]
                          and Y.shape[1] == 10 * (jnt.shape[0] - 1)):
        code = 8 * CODE
    if code == 0:
        code = _overflow(joint_torque_regressor(jnt, prm, q, v, a, no_forces, ws, Y,
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
def _square(nv, X):
    return X.shape[0] == nv and X.shape[1] == nv


@jit
def _diagonal_overflow(X):
    """Code 7 for the first non-finite diagonal entry of X (0: none). A non-finite entry
    anywhere comes with one on the diagonal or in the vector results (they are computed from
    the same products of the inputs), so the diagonal is the cheap witness."""
    for k in range(X.shape[0]):
        if not (X[k, k] - X[k, k] == 0.0):
            return 7 * CODE + k
    return 0


@jit
def rnea_derivatives_checked(jnt, prm, q, v, a, fext, ws, tau, dtau_dq, dtau_dv, M, tol):
    """check_state, then rnea_derivatives (tau, dtau_dq, dtau_dv, M); code 7 if one of tau or
    the diagonals is not finite."""
    code = check_state(jnt, prm, q, v, a, fext, ws, tol)
    nv = _sizes(jnt)[1]
    if code == 0 and not (_all_nv(jnt, v, a, tau) and _square(nv, dtau_dq)
                          and _square(nv, dtau_dv) and _square(nv, M)):
        code = 8 * CODE
    if code == 0:
        rnea_derivatives(jnt, prm, q, v, a, fext, ws, tau, dtau_dq, dtau_dv, M)
        code = _overflow(_finite(tau))
        for X in (dtau_dq, dtau_dv, M):
            if code == 0:
                code = _diagonal_overflow(X)
    return code


@jit
def aba_derivatives_checked(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dq, ddq_dv, M, U, D,
                            Minv, tol):
    """check_state, then aba_derivatives (ddq, ddq_dq, ddq_dv, Minv; M, U, D on the way)."""
    code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    nv = _sizes(jnt)[1]
    if code == 0 and not (_all_nv(jnt, v, tau, ddq) and D.shape[0] == nv
                          and dof.shape[0] == nv and _square(nv, ddq_dq)
                          and _square(nv, ddq_dv) and _square(nv, M) and _square(nv, U)
                          and _square(nv, Minv)):
        code = 8 * CODE
    if code == 0:
        bad = aba_derivatives(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dq, ddq_dv, M, U, D,
                              Minv)
        if bad >= 0:  # singular if the articulated inertia is finite (as aba_checked)
            code = 6 * CODE + bad if _finite_block(ws[bad:bad + 1], IA, 36, 1) < 0 \
                else 7 * CODE
        else:
            code = _overflow(_finite(ddq))
            for X in (ddq_dq, ddq_dv, Minv):
                if code == 0:
                    code = _diagonal_overflow(X)
    return code


@jit
def static_torque_derivatives_checked(jnt, prm, q, fext, ws, tau, dtau_dq, empty, tol):
    """check_state, then static_torque_derivatives (tau, dtau_dq)."""
    code = check_state(jnt, prm, q, empty, empty, fext, ws, tol)
    nv = _sizes(jnt)[1]
    if code == 0 and not (tau.shape[0] == nv and _square(nv, dtau_dq)):
        code = 8 * CODE
    if code == 0:
        static_torque_derivatives(jnt, prm, q, fext, ws, tau, dtau_dq)
        code = _overflow(_finite(tau))
        if code == 0:
            code = _diagonal_overflow(dtau_dq)
    return code


@jit
def kinematics_derivatives_checked(jnt, prm, q, v, a, ws, no_forces, tol):
    """check_state, then kinematics_derivatives; code 7 if a placement, v or a is not finite
    (the columns are products of the same numbers)."""
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    if code == 0 and not _all_nv(jnt, v, a, a):
        code = 8 * CODE
    if code == 0:
        kinematics_derivatives(jnt, prm, q, v, a, ws)
        code = _placements_overflow(jnt, ws, v, a)
    return code


@jit
def centroidal_dynamics_derivatives_checked(jnt, prm, q, v, a, ws, dh_dq, dhdot_dq, dhdot_dv,
                                            dhdot_da, hg, dhg, no_forces, tol):
    """check_state, then centroidal_dynamics_derivatives; code 7 if h_g or dh_g/dt is not
    finite although the mass (left in ws[0, OYC]) is positive: the caller refuses a massless
    robot itself."""
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    nv = _sizes(jnt)[1]
    ok = _all_nv(jnt, v, a, a) and hg.shape[0] == 6 and dhg.shape[0] == 6
    for X in (dh_dq, dhdot_dq, dhdot_dv, dhdot_da):
        ok = ok and X.shape[0] == 6 and X.shape[1] == nv
    if code == 0 and not ok:
        code = 8 * CODE
    if code == 0:
        centroidal_dynamics_derivatives(jnt, prm, q, v, a, ws, dh_dq, dhdot_dq, dhdot_dv,
                                        dhdot_da, hg, dhg)
        code = _placements_overflow(jnt, ws, v, a)
        if code == 0 and ws[0, OYC] > 0.0:
            code = _overflow(max(_finite(hg), _finite(dhg)))
    return code
