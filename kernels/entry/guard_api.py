"""Entry points for the object API's everyday calls beyond the core five: the state checked,
the algorithm run and its result's finiteness checked, in one compiled call (guard.py says why,
and what the returned codes mean: 0 ran, 1-3 a non-finite q, v, a, 5 a unit part off its
manifold, 7 an overflow, 8 sizes that do not fit the model).

Each wraps the kernel named in it; the Python side (fastdyn/) words the codes.
"""

from .._jit import jit
from ..algorithms.center_of_mass import center_of_mass
from ..algorithms.center_of_mass_jacobian import jacobian_subtree_center_of_mass
from ..algorithms.centroidal import ccrba, centroidal_momentum
from ..linalg.cholesky import solve
from ..algorithms.energy import kinetic_energy, potential_energy
from ..algorithms.forward_kinematics import forward_kinematics
from ..algorithms.frames import update_frame_placements
from ..checks import (CODE, check_state, first_nonfinite, first_nonfinite_row, nq_nv,
                      overflow_code, placements_overflow)
from ..algorithms.jacobian import joint_jacobian


@jit
def _matrix_overflow(X):
    """Code 7 for the first row of X holding a non-finite entry (0: none)."""
    return overflow_code(first_nonfinite_row(X, 0, X.shape[1], X.shape[0]))


@jit
def _fits(X, rows, cols):
    return X.shape[0] == rows and X.shape[1] == cols


@jit
def center_of_mass_checked(jnt, prm, q, v, a, ws, order, mass, com, vcom, acom, no_forces,
                           tol):
    """forward_kinematics(q, v, a), then center_of_mass (order 0, 1, 2: positions, + v, + a)."""
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    n = jnt.shape[0]
    if code == 0 and not (mass.shape[0] == n and _fits(com, n, 3) and _fits(vcom, n, 3)
                          and _fits(acom, n, 3)):
        code = 8 * CODE
    if code == 0:
        forward_kinematics(jnt, prm, q, v, a, ws)
        code = placements_overflow(jnt, ws, v, a)
    if code == 0:
        center_of_mass(jnt, prm, ws, order, mass, com, vcom, acom)
        code = overflow_code(first_nonfinite(com[0]))
        if code == 0 and order >= 1:
            code = overflow_code(first_nonfinite(vcom[0]))
        if code == 0 and order >= 2:
            code = overflow_code(first_nonfinite(acom[0]))
    return code


@jit
def frames_forward_kinematics_checked(jnt, prm, frm, q, ws, oMf, no_forces, tol):
    """forward_kinematics(q), then every frame's placement into oMf."""
    code = check_state(jnt, prm, q, q[:0], q[:0], no_forces, ws, tol)
    if code == 0 and not _fits(oMf, frm.shape[0], 12):
        code = 8 * CODE
    if code == 0:
        forward_kinematics(jnt, prm, q, q[:0], q[:0], ws)
        code = placements_overflow(jnt, ws, q[:0], q[:0])
    if code == 0:
        update_frame_placements(frm, ws, oMf)
    return code


@jit
def energy_checked(jnt, prm, q, v, ws, energy, no_forces, tol):
    """forward_kinematics(q, v), then energy[1] = potential energy and, when v is not empty,
    energy[0] = kinetic energy."""
    code = check_state(jnt, prm, q, v, q[:0], no_forces, ws, tol)
    if code == 0 and energy.shape[0] != 2:
        code = 8 * CODE
    if code == 0:
        forward_kinematics(jnt, prm, q, v, q[:0], ws)
        if v.shape[0] > 0:
            energy[0] = kinetic_energy(jnt, prm, v, ws)
        energy[1] = potential_energy(jnt, prm, ws)
        code = overflow_code(first_nonfinite(energy))
    return code


@jit
def joint_jacobian_checked(jnt, prm, q, joint, reference, ws, J, no_forces, tol):
    code = check_state(jnt, prm, q, q[:0], q[:0], no_forces, ws, tol)
    if code == 0 and (not _fits(J, 6, nq_nv(jnt)[1]) or joint < 0 or joint >= jnt.shape[0]):
        code = 8 * CODE
    if code == 0:
        joint_jacobian(jnt, prm, q, joint, reference, ws, J)
        code = _matrix_overflow(J)
    return code


@jit
def jacobian_center_of_mass_checked(jnt, prm, q, ws, mass, com, Jc, no_forces, tol):
    """The whole robot's com Jacobian (subtree 0); the caller has checked the mass is
    positive (the kernel divides by it)."""
    code = check_state(jnt, prm, q, q[:0], q[:0], no_forces, ws, tol)
    n = jnt.shape[0]
    if code == 0 and not (mass.shape[0] == n and _fits(com, n, 3)
                          and _fits(Jc, 3, nq_nv(jnt)[1])):
        code = 8 * CODE
    if code == 0:
        jacobian_subtree_center_of_mass(jnt, prm, q, 0, ws, mass, com, Jc)
        code = _matrix_overflow(Jc)
    return code


@jit
def ccrba_checked(jnt, prm, q, v, ws, Ag, hg, Ig, no_forces, tol):
    """A_g, h_g (when v is not empty) and I_g; the caller has checked the mass is positive."""
    code = check_state(jnt, prm, q, v, q[:0], no_forces, ws, tol)
    if code == 0 and not (_fits(Ag, 6, nq_nv(jnt)[1]) and hg.shape[0] == 6
                          and _fits(Ig, 6, 6)):
        code = 8 * CODE
    if code == 0:
        ccrba(jnt, prm, q, v, ws, Ag, hg, Ig)
        code = _matrix_overflow(Ag)
        if code == 0:
            code = _matrix_overflow(Ig)
        if code == 0 and v.shape[0] > 0:
            code = overflow_code(first_nonfinite(hg))
    return code


@jit
def centroidal_momentum_checked(jnt, prm, q, v, a, ws, hg, dhg, no_forces, tol):
    """h_g and, when a is not empty, dh_g/dt."""
    code = check_state(jnt, prm, q, v, a, no_forces, ws, tol)
    if code == 0 and (v.shape[0] == 0 or hg.shape[0] != 6 or dhg.shape[0] != 6):
        code = 8 * CODE
    if code == 0:
        centroidal_momentum(jnt, prm, q, v, a, ws, hg, dhg)
        code = overflow_code(first_nonfinite(hg))
        if code == 0 and a.shape[0] > 0:
            code = overflow_code(first_nonfinite(dhg))
    return code


@jit
def cholesky_solve_checked(dof, U, D, b, x):
    """x = M^-1 b from the factorization M = U D U^T (cholesky); b finite (code 1 names its
    first non-finite entry). x may be b itself."""
    nv = dof.shape[0]
    if b.shape[0] != nv or x.shape[0] != nv or not _fits(U, nv, nv) or D.shape[0] != nv:
        return 8 * CODE
    k = first_nonfinite(b)
    if k >= 0:
        return 1 * CODE + k
    for k in range(nv):
        x[k] = b[k]
    solve(dof, U, D, x)
    return overflow_code(first_nonfinite(x))
