"""A horizon of simulator steps and their Jacobians in one call: what an iLQR or an MPC
iteration needs from the dynamics, in one crossing from Python.

From (q_0, v_0) and the torques U (H x nv), optionally under a time-varying affine feedback
on the state error (the forward pass of iLQR: Li & Todorov 2004; Tassa, Erez & Todorov 2012,
sec. II, u_k = U_k + K_k dx_k with dx_k = [difference(q_ref,k, q_k); v_k - v_ref,k], the
error in the tangent space at q_ref,k, Pinocchio's ``difference``), for k = 0 .. H-1:
    tau_k            = U_k (+ K_k dx_k)                      (the commanded torque)
    (q_k+1, v_k+1)   = step(q_k, v_k, tau_k)                 (time_step.py, started cold)
    (A_k, B_k)       = d(q_k+1, v_k+1) / d((q_k, v_k), tau_k)   (step_derivatives.py)
each step exactly ``step_derivatives_checked``'s (the object API's single call, checks
included), so the states are ``Scene.step``'s after ``Scene.reset()`` at every step and the
Jacobians are ``Scene.step_derivatives``'s, bit for bit. The loop calls that kernel's
compiled code through its address (kernels/_pointer_call.py), the very code the single call
runs: compiling the horizon does not compile the step and its derivatives again (11 s cold).

Returns (code, k): 0 and H, or the first failing step k and its step_derivatives_checked code
(guard.py's input codes, or step_derivatives.py's shifted by CHECKED; STALE: prepare again).
"""

from .._jit import jit
from .._pointer_call import call_compiled
from ..checks import CODE, nq_nv
from ..configuration.dispatch import difference
from ..contact.generated_step_derivatives import generated_step_derivatives_checked
from ..contact.step_derivatives import (STALE, WRONG_CALLEE, qn_offset,
                                        step_derivatives_checked)

BAD_SIZES = 8  # guard.py's code for arrays that do not fit the model


@jit
def horizon_checked(address, callee, stamp, generic, generic_stamp, jnt, prm, dof, sph, hsp, geo,
                    eqc, sopt, q0, v0, U, K, QREF, VREF, FEXT, ws, ibuf, scratch, Q, V, TAU, A, B,
                    dx, tol):
    """The module docstring's horizon. ``address``: None (the generic kernels), or the C
    callback of the model's generated ABA derivatives, each step then
    generated_step_derivatives_checked (None is typed as such: the other branch is pruned
    before compiling). ``callee``, ``stamp``: the address of that step kernel's compiled code
    for the types this loop passes it, and their stamp (fastdyn/_internal/pointer_call.py);
    ``generic``, ``generic_stamp``: step_derivatives_checked's, which the generated route
    takes for the steps it does not (the same as ``callee``, ``stamp`` on the generic route).
    Others give WRONG_CALLEE and no step. ``K`` (H, nv, 2nv) with QREF (H, nq), VREF (H, nv), or
    all three with no rows (open loop); FEXT (H, njoints, 6) or (1, 0, 6) (none); outputs Q
    (H+1, nq), V (H+1, nv), TAU (H, nv), A (H, 2nv, 2nv), B (H, 2nv, nv); dx (2nv,) scratch.
    ``scratch`` is step_derivatives_checked's (its prepared options, buffers, qn and vn);
    ``geo``, ``eqc`` the scene's geom and constraint tables (None: none), as time_step's."""
    nq, nv = nq_nv(jnt)
    H = U.shape[0]
    # where step_derivatives_checked leaves qn, then vn (checked_views' layout)
    o = qn_offset(jnt, sph, hsp, geo, eqc)
    if scratch.shape[0] != o + nq + nv:
        return STALE * CODE, 0
    closed = K.shape[0] > 0
    if not (q0.shape[0] == nq and v0.shape[0] == nv and U.shape[1] == nv
            and Q.shape[0] == H + 1 and Q.shape[1] == nq and V.shape[0] == H + 1
            and V.shape[1] == nv and TAU.shape[0] == H and TAU.shape[1] == nv
            and A.shape[0] == H and B.shape[0] == H and dx.shape[0] == 2 * nv
            and (FEXT.shape[0] == H or (FEXT.shape[0] == 1 and FEXT.shape[1] == 0))
            and (not closed or (K.shape[0] == H and K.shape[1] == nv and K.shape[2] == 2 * nv
                                and QREF.shape[0] == H and QREF.shape[1] == nq
                                and VREF.shape[0] == H and VREF.shape[1] == nv))):
        return BAD_SIZES * CODE, 0
    for i in range(nq):
        Q[0, i] = q0[i]
    for i in range(nv):
        V[0, i] = v0[i]
    for k in range(H):
        q, v, tau = Q[k], V[k], TAU[k]
        for i in range(nv):
            tau[i] = U[k, i]
        if closed:
            difference(jnt, QREF[k], q, dx[:nv])
            for i in range(nv):
                dx[nv + i] = v[i] - VREF[k, i]
            for i in range(nv):
                s = 0.0
                for j in range(2 * nv):
                    s += K[k, i, j] * dx[j]
                tau[i] += s
        fext = FEXT[k] if FEXT.shape[0] == H else FEXT[0]
        # each step through the single call's compiled code (_pointer_call.py: not compiled
        # into this kernel again)
        if address is None:
            code = call_compiled(step_derivatives_checked, callee, stamp,
                                 (jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v, tau, fext, ws,
                                  ibuf, scratch, A[k], B[k], tol))
        else:
            code = call_compiled(generated_step_derivatives_checked, callee, stamp,
                                 (address, generic, generic_stamp, jnt, prm, dof, sph, hsp, geo,
                                  eqc, sopt, q, v, tau, fext, ws, ibuf, scratch, A[k], B[k],
                                  tol))
        if code < 0:
            return WRONG_CALLEE * CODE, k
        if code != 0:
            return code, k
        for i in range(nq):
            Q[k + 1, i] = scratch[o + i]
        for i in range(nv):
            V[k + 1, i] = scratch[o + nq + i]
    return 0, H
