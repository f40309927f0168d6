"""Analytical derivatives of forward dynamics: ddq/dq, ddq/dv and ddq/dtau = M(q)^-1.

Source: Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms",
Robotics: Science and Systems 2018, sec. V: differentiating the identity
ID(q, v, FD(q, v, tau)) = tau gives, at a = FD(q, v, tau),
  ddq/dq = -M^-1 dtau/dq,   ddq/dv = -M^-1 dtau/dv,   ddq/dtau = M^-1,
with dtau/dq, dtau/dv and M from rnea_derivatives.py at (q, v, a) (the same external forces);
its forward pass starts from what ABA leaves in the workspace (placements, J, v, a_gf).
q is perturbed along tangent vectors, q (+) dq = integrate(q, dq), as Pinocchio's
computeABADerivatives, so the matrices are interchangeable with it. M^-1 is applied through the
tree-sparse factorization M = U D U^T (cholesky.py: Featherstone 2008, sec. 6.5), right-hand
sides a row at a time (solve_pair); M^-1 itself is the same solve on the identity, cut to the
entries it reaches (inverse_sparse).
"""

from .._jit import jit
from ..layout import LI, OM
from .aba import aba
from ..linalg.cholesky import cholesky, inverse_sparse, solve_pair
from .rnea_derivatives import backward_pass, clear, joint_columns
from .world_origin import restore_origin


@jit
def aba_derivatives(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dq, ddq_dv, M, U, D, Minv):
    """ddq (nv,) = ABA(q, v, tau, fext); ddq_dq, ddq_dv, Minv (nv, nv), both triangles; M, U, D
    hold M(q) and its factorization after the call. Returns -1, or the index of a joint whose
    (articulated or composite) inertia is not positive definite: the outputs are then not
    meaningful."""
    bad = aba(jnt, prm, q, v, tau, fext, ws, ddq)
    if bad >= 0:
        return bad
    # ABA leaves jcalc's rows, J, v and a_gf (OJ, OV, OAG) at the origin world_origin.py
    # chose, and oMi moved back to the world's: move oMi there again and reuse the rest.
    n = jnt.shape[0]
    rx, ry, rz = (ws[1, LI + 9], ws[1, LI + 10], ws[1, LI + 11]) if n > 1 else (0.0, 0.0, 0.0)
    ws[0, OM + 9] = -rx
    ws[0, OM + 10] = -ry
    ws[0, OM + 11] = -rz
    for i in range(1, n):
        ws[i, OM + 9] -= rx
        ws[i, OM + 10] -= ry
        ws[i, OM + 11] -= rz
    clear(ddq_dq)
    clear(ddq_dv)
    clear(M)
    for i in range(1, n):
        joint_columns(jnt[i], prm[i], i, q, v, ddq, fext, ws[i], ws[jnt[i].parent])
    backward_pass(jnt, prm, q, ddq, ws, tau[:0], ddq_dq, ddq_dv, M)
    restore_origin(ws, rx, ry, rz)
    k = cholesky(dof, M, U, D)
    if k >= 0:
        return dof[k].joint
    solve_pair(dof, U, D, ddq_dq, ddq_dv)
    nv = M.shape[0]
    for r in range(nv):
        for c in range(nv):
            ddq_dq[r, c] = -ddq_dq[r, c]
            ddq_dv[r, c] = -ddq_dv[r, c]
    inverse_sparse(dof, U, D, Minv)
    return -1
