"""Forward dynamics and impulse dynamics under rigid constraints, on the tree's sparsity.

Source: Featherstone, "Rigid Body Dynamics Algorithms", 2008, sec. 6.5 (M = U D U^T with
branch-induced sparsity: cholesky.py) and ch. 8 (closed-loop systems: the constraint forces
by elimination through the factorization of M, Baumgarte's stabilization);
Carpentier, Budhiraja, Mansard, RSS 2021 (the proximal KKT resolution); Pinocchio's
constraintDynamics and impulseDynamics, whose equations, signs and lambda these are.
Constrained dynamics, the KKT system with the rows of rigid_constraints.py:
    M ddq = tau - h(q, v) + J^T lambda,    J ddq = rhs
(lambda: the forces the constraints apply to the robot, in the rows' frames), by elimination:
    M = U D U^T;  a0 = M^-1 (tau - h)          (the unconstrained acceleration, ABA's)
    G = J M^-1 J^T                            (the Delassus matrix, delassus.py: sparse solves)
    G lambda = rhs - J a0                     (m x m, dense: proximal.py)
    ddq = a0 + M^-1 J^T lambda
Impulse dynamics (the Kindr cheat sheet's impulse equation M (u+ - u-) = W Lambda), with
Newton's restitution e on the constrained velocities:
    M (v+ - v-) = J^T Lambda,  J v+ = -e J v-:
    G Lambda = -(1 + e) J v-,  v+ = v- + M^-1 J^T Lambda
The cost is one CRBA (+ RNEA), one tree-sparse factorization, m sparse solves and an m x m
Cholesky factorization: never the dense (nv + m) x (nv + m) KKT matrix.
Both kernels return (status, detail): (OK, 0); (SINGULAR_MASS, dof) when M is not positive
definite at dof; (DEPENDENT, row) when, with mu = 0, row ``row`` of the set is a combination
of the rows before it (proximal.py). Scratch is one float64 array of ``work_size(nv, m)``
floats (m = the number of rows, lambda's length): nothing is allocated.
"""

from .._jit import jit
from ..algorithms.crba import crba, crba_rnea
from ..layout import X_MU
from ..linalg.cholesky import cholesky, solve
from .constraint_rows import RIGID
from .delassus import delassus
from .proximal import factor, proximal_solve
from .rigid_constraints import TMP_SIZE, rigid_jacobian, rigid_rhs

OK, SINGULAR_MASS, DEPENDENT = 0, 1, 2


@jit
def work_size(nv, m):
    """Floats of scratch for nv dofs and m constraint rows."""
    return 2 * nv * nv + 4 * nv + 2 * m * nv + 2 * m * m + 7 * m + TMP_SIZE


@jit(inline="always")
def views(work, nv, m):
    """M, U (nv, nv), D, h, x, zero (nv,), J, Z (m, nv), G, F (m, m), rhs, b, prev (m,),
    tip (3m,: delassus.py's), soft (m,) and tmp (TMP_SIZE,): views of work, one after the
    other."""
    o = 0
    M = work[o:o + nv * nv].reshape((nv, nv))
    o += nv * nv
    U = work[o:o + nv * nv].reshape((nv, nv))
    o += nv * nv
    D = work[o:o + nv]
    h = work[o + nv:o + 2 * nv]
    x = work[o + 2 * nv:o + 3 * nv]
    zero = work[o + 3 * nv:o + 4 * nv]
    o += 4 * nv
    J = work[o:o + m * nv].reshape((m, nv))
    o += m * nv
    Z = work[o:o + m * nv].reshape((m, nv))
    o += m * nv
    G = work[o:o + m * m].reshape((m, m))
    o += m * m
    F = work[o:o + m * m].reshape((m, m))
    o += m * m
    rhs = work[o:o + m]
    b = work[o + m:o + 2 * m]
    prev = work[o + 2 * m:o + 3 * m]
    tip = work[o + 3 * m:o + 6 * m]
    soft = work[o + 6 * m:o + 7 * m]
    o += 7 * m
    tmp = work[o:o + TMP_SIZE]
    return M, U, D, h, x, zero, J, Z, G, F, rhs, b, prev, tip, soft, tmp


@jit
def _forces(dof, U, D, J, b, prox, Z, G, F, tip, soft, prev, x, lam, out):
    """lam from G lam = b (G = J M^-1 J^T, built here), then out += M^-1 J^T lam. Returns
    -1, or the dependent row (mu = 0)."""
    m = lam.shape[0]
    nv = out.shape[0]
    for r in range(m):
        soft[r] = RIGID  # no compliance: the proximal term is the only regularization
    delassus(dof, U, D, J, m, 0.0, soft, Z, G, tip)
    bad = factor(G, m, prox[X_MU], F)
    if bad >= 0:
        return bad
    proximal_solve(G, F, b, prox, lam, prev)
    for k in range(nv):
        acc = 0.0
        for r in range(m):
            acc += J[r, k] * lam[r]
        x[k] = acc
    solve(dof, U, D, x)
    for k in range(nv):
        out[k] += x[k]
    return -1


@jit
def constraint_dynamics(jnt, prm, dof, cst, q, v, tau, prox, ws, work, ddq, lam):
    """ddq (nv,) and lam (m,) of M ddq = tau - h + J^T lam, J ddq = rhs (the module
    docstring) for the constraints cst (layout.CONSTRAINT_DTYPE, rows 0..m-1) and the
    proximal settings prox (layout.NX: mu, max_iter, accuracies in; iterations, residuals
    out). Returns (status, detail)."""
    nv = v.shape[0]
    m = lam.shape[0]
    M, U, D, h, x, zero, J, Z, G, F, rhs, b, prev, tip, soft, tmp = views(work, nv, m)
    for k in range(nv):
        zero[k] = 0.0
    crba_rnea(jnt, prm, q, v, zero, zero[:0].reshape((0, 6)), ws, M, h)
    bad = cholesky(dof, M, U, D)
    if bad >= 0:
        return SINGULAR_MASS, bad
    for k in range(nv):
        ddq[k] = tau[k] - h[k]
    solve(dof, U, D, ddq)  # a0
    rigid_jacobian(jnt, cst, ws, tmp, J)
    rigid_rhs(jnt, prm, cst, ws, q, v, tmp, rhs)
    for r in range(m):
        acc = rhs[r]
        for k in range(nv):
            acc -= J[r, k] * ddq[k]
        b[r] = acc
    bad = _forces(dof, U, D, J, b, prox, Z, G, F, tip, soft, prev, x, lam, ddq)
    return (DEPENDENT, bad) if bad >= 0 else (OK, 0)


@jit
def impulse_dynamics(jnt, prm, dof, cst, q, v, restitution, prox, ws, work, v_after, lam):
    """v_after (nv,) and the impulses lam (m,) of M (v+ - v) = J^T lam, J v+ = -e J v (e =
    restitution), for the constraints cst and settings prox as constraint_dynamics'.
    Returns (status, detail)."""
    nv = v.shape[0]
    m = lam.shape[0]
    M, U, D, h, x, zero, J, Z, G, F, rhs, b, prev, tip, soft, tmp = views(work, nv, m)
    crba(jnt, prm, q, ws, M, zero[:0])
    bad = cholesky(dof, M, U, D)
    if bad >= 0:
        return SINGULAR_MASS, bad
    rigid_jacobian(jnt, cst, ws, tmp, J)
    for r in range(m):
        acc = 0.0
        for k in range(nv):
            acc += J[r, k] * v[k]
        b[r] = -(1.0 + restitution) * acc
    for k in range(nv):
        v_after[k] = v[k]
    bad = _forces(dof, U, D, J, b, prox, Z, G, F, tip, soft, prev, x, lam, v_after)
    return (DEPENDENT, bad) if bad >= 0 else (OK, 0)
