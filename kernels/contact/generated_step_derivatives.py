"""Transition Jacobians of one contact-free step with a model's generated ABA derivatives
(fastdyn.codegen, algorithm "aba_derivatives").

Where step_derivatives.py differentiates a step without constraint rows (O_FREE) through the
generic aba_derivatives, this is the same equations (Carpentier & Mansard, "Analytical
Derivatives of Rigid Body Dynamics Algorithms", RSS 2018, sec. V, composed with the
configuration Jacobians of the exponential map; step_derivatives.py states them):
  a = ABA(q, v, clip(tau)),  da/dq = -M^-1 dtau/dq,  da/dv = -M^-1 dtau/dv,  da/dtau = M^-1 P
with the generated ``aba_derivatives(gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv)`` in place
of the generic one. It arrives as a C callback of that fixed signature
(fastdyn/sim/generated_step_derivatives.py), so this kernel is compiled once for every model; the
checked entry point takes the callback's address (an integer: unboxing a callback object costs
microseconds a call) and rebuilds the function value from it (``as_function``).
Every other step goes to step_derivatives unchanged: constraint rows, external forces, and a
step whose generated results are not finite (a singular M, an overflow), which the generic
path then names.
"""

from math import nan

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .._jit import jit
from .._pointer_call import call_compiled
from ..configuration.frozen import d_frozen_velocity
from ..layout import NO, NP, O_DT, O_FREE, O_INTEGRATOR, P_GRAVITY, RK4
from ..checks import check_inputs, first_nonfinite, nq_nv
from .step_derivatives import (CODE, OK, STALE, WRONG_CALLEE, advance, checked_views,
                               derivative_buffers, finish, flat, flat_rows, head_size,
                               step_derivatives, step_derivatives_checked, velocity_rows)
from .time_step import clamp_torque


_VEC = types.float64[::1]
_MAT = types.float64[:, ::1]
SIGNATURE = types.void(_VEC, _VEC, _VEC, _VEC, _VEC, _MAT, _MAT, _MAT)
FUNCTION = types.FunctionType(SIGNATURE)


@intrinsic
def as_function(typingctx, address):
    """The C callback at ``address`` (an integer) as a first-class function of SIGNATURE:
    numba's function value with only its C address set, which a call goes through."""
    def codegen(context, builder, sig, args):
        f = cgutils.create_struct_proxy(FUNCTION)(context, builder)
        f.c_addr = builder.inttoptr(args[0], cgutils.voidptr_t)
        f.py_addr = cgutils.get_null_value(cgutils.voidptr_t)
        f.jit_addr = cgutils.get_null_value(cgutils.voidptr_t)
        return f._getvalue()
    return FUNCTION(address), codegen


@jit
def no_aba_derivatives(gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv):
    """The stand-in callback of the generic route (never called there): NaN."""
    for k in range(ddq.shape[0]):
        ddq[k] = nan


@jit
def generated_step_derivatives(generated, abad, jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v,
                               tau, fext, ws, fbuf, ibuf, dbuf, qn, vn, A, B):
    """step_derivatives' arguments and codes, with ``abad`` the generated ABA derivatives in a
    contact-free Euler step when ``generated`` (module docstring). q and v are copied into qn
    and vn before the call (the callback takes contiguous vectors), the gravity into fbuf
    (``_free_step``)."""
    if generated and opt[O_FREE] > 0.0 and opt[O_INTEGRATOR] != RK4 and fext.shape[0] == 0:
        # fbuf is scratch in a step without constraint rows: the gravity at its head
        if _free_step(abad, jnt, prm, opt[O_DT], q, v, tau, fbuf[:3], dbuf, qn, vn, A, B):
            return OK
    return step_derivatives(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws, fbuf,
                            ibuf, dbuf, qn, vn, A, B)


@jit
def free_size(nq, nv):
    """Floats of ``free_step_derivatives_checked``'s scratch: the prepared options, the gravity,
    the head of step_derivatives' dbuf (derivative_buffers: head_size), qn and vn."""
    return NO + 3 + head_size(nv) + nq + nv


ROUTE = 11  # free_step_derivatives_checked: this step is not one for the generated route


@jit
def free_step_derivatives_checked(address, jnt, prm, sopt, q, v, tau, scratch, A, B, tol):
    """The object API's entry point for the commonest case, a contact-free Euler step without
    external forces, with the generated ABA derivatives at ``address``: eight arrays to unbox
    where generated_step_derivatives_checked takes fifteen (~40 ns each, a sixth of the call
    at nv = 6). Returns 0 with qn, vn (at scratch's tail) and A, B filled; any other code
    (STALE * CODE: the options were edited; ROUTE * CODE: the scene has constraint rows or
    integrates with RK4, or the generated result is not finite; guard.py's codes for bad
    input) says "take the full route", which checks, steps and explains as before."""
    nq, nv = nq_nv(jnt)
    if sopt.shape[0] != NO or scratch.shape[0] != free_size(nq, nv):
        return STALE * CODE
    for k in range(NO):
        if k != O_FREE and not sopt[k] == scratch[k]:
            return STALE * CODE
    if (prm.shape[0] != jnt.shape[0] or prm.shape[1] != NP or v.shape[0] != nv
            or tau.shape[0] != nv or not (
            A.shape[0] == 2 * nv and A.shape[1] == 2 * nv and B.shape[0] == 2 * nv
            and B.shape[1] == nv)):
        return 8 * CODE
    code = check_inputs(jnt, q, v, tau, prm[:0, :6], tol)
    if code != 0:
        return code
    opt = scratch[:NO]
    if not (opt[O_FREE] > 0.0 and opt[O_INTEGRATOR] != RK4):
        return ROUTE * CODE
    o = NO + 3 + head_size(nv)
    if _free_step(as_function(address), jnt, prm, opt[O_DT], q, v, tau, scratch[NO:NO + 3],
                  scratch[NO + 3:o], scratch[o:o + nq], scratch[o + nq:], A, B):
        return OK
    return ROUTE * CODE


@jit
def _free_step(abad, jnt, prm, dt, q, v, tau, g, dbuf, qn, vn, A, B):
    """The contact-free step and its Jacobians through the generated ABA derivatives abad
    (g: 3 floats for the gravity; dbuf: derivative_buffers'); True when every result is
    finite, else the caller takes the generic route, which names what went wrong. q and v
    are copied into qn and vn before the call: the callback takes contiguous vectors."""
    nq, nv = q.shape[0], v.shape[0]
    Aq, Av, Minv, G, M2, tc, u, a = derivative_buffers(dbuf, nv)
    for k in range(nv):
        tc[k] = tau[k]
        vn[k] = v[k]
    clamp_torque(jnt, prm, tc)
    for k in range(nq):
        qn[k] = q[k]
    for k in range(3):
        g[k] = prm[0, P_GRAVITY + k]
    abad(g, qn, vn, tc, a, Aq, Av, Minv)
    if first_nonfinite(a) >= 0 or not advance(jnt, q, v, a, dt, qn, vn):
        return False
    if flat(jnt):
        return flat_rows(dt, tau, tc, Aq, Av, Minv, A, B)
    d_frozen_velocity(jnt, v, Av)
    velocity_rows(dt, tau, tc, Aq, Av, Minv, A, B)
    return finish(jnt, q, vn, dt, u, G, A, B) == OK


@jit
def generated_step_derivatives_checked(address, generic, stamp, jnt, prm, dof, sph, hsp, geo,
                                       eqc, sopt, q, v, tau, fext, ws, ibuf, scratch, A, B, tol):
    """step_derivatives_checked with the generated ABA derivatives (the C callback at
    ``address``: fastdyn/sim/generated_step_derivatives.py) in a contact-free Euler step
    without external forces, as generated_step_derivatives takes it. Every other step (and
    one whose generated results are not finite) is step_derivatives_checked's own compiled
    code at ``generic`` (``stamp``: kernels/_pointer_call.py), called with this call's
    arguments: not compiled into this kernel again (the generic step and its derivatives,
    about a minute cold). An address for other types gives WRONG_CALLEE * CODE."""
    code, opt, fbuf, dbuf, qn, vn = checked_views(jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v,
                                                  tau, fext, ws, ibuf, scratch, A, B, tol)
    if code != 0:
        return code
    if opt[O_FREE] > 0.0 and opt[O_INTEGRATOR] != RK4 and fext.shape[0] == 0:
        # fbuf is scratch in a step without constraint rows: the gravity at its head
        if _free_step(as_function(address), jnt, prm, opt[O_DT], q, v, tau, fbuf[:3], dbuf, qn,
                      vn, A, B):
            return OK
    code = call_compiled(step_derivatives_checked, generic, stamp,
                         (jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v, tau, fext, ws, ibuf,
                          scratch, A, B, tol))
    return WRONG_CALLEE * CODE if code < 0 else code
