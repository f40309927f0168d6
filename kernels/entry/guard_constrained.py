"""Entry points of fastdyn.constraint_dynamics and impulse_dynamics: the state checked inside
the compiled call (guard.py's codes), then the kernel of contact/constrained_dynamics.py.

Each returns (code, status, detail): code 0 when the inputs were valid and the kernel ran,
else guard.py's error code (nothing run); status and detail are the kernel's. A non-finite
result from finite inputs is code 7 (an overflow).
"""

from .._jit import jit
from ..checks import CODE, all_nv, check_state, first_nonfinite, nq_nv, overflow_code
from ..contact.constrained_dynamics import constraint_dynamics, impulse_dynamics, work_size
from ..contact.constrained_dynamics_derivatives import (constraint_dynamics_derivatives,
                                                        derivatives_work_size,
                                                        impulse_dynamics_derivatives)
from ..contact.rigid_constraints import COUPLING
from ..layout import NX


@jit
def _sizes(jnt, dof, cst, prox, work, lam):
    """Whether the buffers fit the model and the constraint table (the kernels run without
    bounds checks: a mismatch would write past an array's end)."""
    nv = nq_nv(jnt)[1]
    m = lam.shape[0]
    rows = 0
    for k in range(cst.shape[0]):
        c = cst[k]
        if c.row != rows or not (c.kind == COUPLING or c.kind == 3 or c.kind == 6) or \
                not (0 < c.joint1 < jnt.shape[0] and 0 <= c.joint2 < jnt.shape[0]):
            return False
        if c.kind == COUPLING and not (jnt[c.joint1].nq == 1 and jnt[c.joint1].nv == 1 and
                                (c.joint2 == 0 or (jnt[c.joint2].nq == 1 and
                                                   jnt[c.joint2].nv == 1))):
            return False  # (a coupling reads one coordinate of each joint)
        rows += c.kind
    return (rows == m and dof.shape[0] == nv and prox.shape[0] >= NX
            and work.shape[0] >= work_size(nv, m))


@jit
def _finite(X):
    """Whether every entry of the 3-D array X is finite."""
    for a in range(X.shape[0]):
        for r in range(X.shape[1]):
            for c in range(X.shape[2]):
                if not (X[a, r, c] - X[a, r, c] == 0.0):
                    return False
    return True


@jit
def constraint_dynamics_checked(jnt, prm, dof, cst, q, v, tau, prox, ws, work, ddq, lam,
                                no_forces, tol):
    code = check_state(jnt, prm, q, v, tau, no_forces, ws, tol)
    if code == 0 and not (all_nv(jnt, v, tau, ddq) and _sizes(jnt, dof, cst, prox, work, lam)):
        code = 8 * CODE
    if code != 0:
        return code, 0, 0
    status, detail = constraint_dynamics(jnt, prm, dof, cst, q, v, tau, prox, ws, work, ddq,
                                         lam)
    if status == 0:
        k = first_nonfinite(ddq)
        code = overflow_code(k if k >= 0 else first_nonfinite(lam))
    return code, status, detail


@jit
def impulse_dynamics_checked(jnt, prm, dof, cst, q, v, restitution, prox, ws, work, v_after,
                             lam, no_forces, tol):
    code = check_state(jnt, prm, q, v, v[:0], no_forces, ws, tol)
    if code == 0 and not (all_nv(jnt, v, v, v_after) and _sizes(jnt, dof, cst, prox, work, lam)):
        code = 8 * CODE
    if code != 0:
        return code, 0, 0
    status, detail = impulse_dynamics(jnt, prm, dof, cst, q, v, restitution, prox, ws, work,
                                      v_after, lam)
    if status == 0:
        k = first_nonfinite(v_after)
        code = overflow_code(k if k >= 0 else first_nonfinite(lam))
    return code, status, detail


@jit
def _derivative_buffers(jnt, cst, work, lam, x_d, lam_d, n):
    """Whether the derivative kernels can take these buffers (x_d (n, nv, nv), lam_d
    (n, m, nv), the scratch) and constraints (contacts with the world and couplings only)."""
    nv, m = nq_nv(jnt)[1], lam.shape[0]
    for k in range(cst.shape[0]):
        if cst[k].joint2 != 0 and cst[k].kind != COUPLING:
            return False
    return (work.shape[0] >= derivatives_work_size(nv, m, jnt.shape[0])
            and x_d.shape[0] == n and x_d.shape[1] == nv and x_d.shape[2] == nv
            and lam_d.shape[0] == n and lam_d.shape[1] == m and lam_d.shape[2] == nv)


@jit
def constraint_dynamics_derivatives_checked(jnt, prm, dof, cst, q, v, tau, prox, ws, work,
                                            ddq, lam, ddq_d, lam_d, no_forces, tol):
    code = check_state(jnt, prm, q, v, tau, no_forces, ws, tol)
    if code == 0 and not (all_nv(jnt, v, tau, ddq) and _sizes(jnt, dof, cst, prox, work, lam)
                          and _derivative_buffers(jnt, cst, work, lam, ddq_d, lam_d, 3)):
        code = 8 * CODE
    if code != 0:
        return code, 0, 0
    status, detail = constraint_dynamics_derivatives(jnt, prm, dof, cst, q, v, tau, prox, ws,
                                                     work, ddq, lam, ddq_d, lam_d)
    if status == 0:
        k = first_nonfinite(ddq)
        code = overflow_code(k if k >= 0 else first_nonfinite(lam))
        if code == 0 and not (_finite(ddq_d) and _finite(lam_d)):
            code = 7 * CODE
    return code, status, detail


@jit
def impulse_dynamics_derivatives_checked(jnt, prm, dof, cst, q, v, restitution, prox, ws,
                                         work, v_after, lam, dv_d, lam_d, no_forces, tol):
    code = check_state(jnt, prm, q, v, v[:0], no_forces, ws, tol)
    if code == 0 and not (all_nv(jnt, v, v, v_after) and _sizes(jnt, dof, cst, prox, work, lam)
                          and _derivative_buffers(jnt, cst, work, lam, dv_d, lam_d, 2)):
        code = 8 * CODE
    if code != 0:
        return code, 0, 0
    status, detail = impulse_dynamics_derivatives(jnt, prm, dof, cst, q, v, restitution, prox,
                                                  ws, work, v_after, lam, dv_d, lam_d)
    if status == 0:
        k = first_nonfinite(v_after)
        code = overflow_code(k if k >= 0 else first_nonfinite(lam))
        if code == 0 and not (_finite(dv_d) and _finite(lam_d)):
            code = 7 * CODE
    return code, status, detail
