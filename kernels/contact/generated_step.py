"""The simulator's time step with a model's generated forward dynamics (fastdyn.codegen).

Where time_step.py takes its contact-free step (O_FREE, semi-implicit Euler), this step is the
same equations with the articulated-body algorithm (Featherstone 2008, "Rigid Body Dynamics
Algorithms", sec. 7.3) replaced by the model's generated ``aba_prm(prm, q, v, tau, ddq)``:
  tau = clip(tau_cmd, -effort_max, effort_max)
  v+  = v + dt ABA(q, v, tau),   q+ = q (+) dt v+       (simulate.euler_step)
``aba`` arrives as a first-class function (a pointer of that fixed signature:
fastdyn/sim/generated_rollout.py), so one compiled rollout loop serves every model's kernels.
A step that may have constraint rows (contacts, limits, dry friction, damping) starts with
the model's generated ``free_velocity(prm, q, v, tau, dt, ws, U, D, vf)`` instead
(fastdyn/codegen/free_velocity.py: M_d = M + dt diag(damping) = U D U^T, the free velocity
vf = v + dt M_d^-1 (tau - h - damping v), and the placements and world Jacobian columns the
rows read), then goes on as time_step does (time_step.constrained_step). A step with rows on
the generic kernels (no generated ones, or external forces, which they do not take) is
time_step's own sequence on the rollout thread's views of its buffers; so is one whose
generated factorization meets a pivot that is not positive, retaken there, whose generic
factorization names the dof as the generic rollout would. Contact-free steps the generated
ABA does not take (external forces, Runge-Kutta) go to time_step unchanged; one whose
generated ddq is not finite (a singular articulated inertia, an overflow) is retaken by
time_step, whose generic ABA names the failure.
"""

from math import nan

from .._jit import jit
from ..configuration.frozen import euler
from ..layout import O_DT, O_FREE, O_INTEGRATOR, RK4
from ..checks import first_nonfinite
from .time_step import (SINGULAR, clamp_torque_step, constrained_step, end_without_rows,
                        free_velocity, rhs_offset, time_step_inlined)


@jit
def no_aba(prm, q, v, tau, ddq):
    """The stand-in ``aba`` of rollouts on the generic kernels (never called there): NaN."""
    for k in range(ddq.shape[0]):
        ddq[k] = nan


@jit
def no_free_velocity(prm, q, v, tau, dt, ws, U, D, vf):
    """The stand-in ``free_velocity`` of rollouts without a generated one: 0, which sends
    every step with rows to the generic free velocity (time_step.free_velocity)."""
    return 0


@jit(inline="always")  # into the rollout loop: a call passes some twenty arrays
def generated_time_step(generated, aba, fv, jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau,
                        fext, ws, fbuf, ibuf, warm, qn, vn, cf, stats, views):
    """time_step's (q, v) -> (qn, vn), arguments and return code as its (``views``: the
    rollout thread's ``buffers`` of fbuf and ibuf, made once, not per step), with ``aba`` the
    generated forward dynamics in the contact-free Euler step and ``fv`` the generated free
    velocity of the other steps (the module docstring) when ``generated``. A step with rows
    on the generic kernels is time_step's own sequence (clamp_torque_step, free_velocity,
    constrained_step: the same bits) on those views; a contact-free one is time_step."""
    if opt[O_FREE] <= 0.0:
        M, Uf, D, h, vf, zero, rhs, J, Z, G, c, lam, lo, hi, mu, point, slot, pair = views
        clamp_torque_step(jnt, prm, opt, tau)
        if not (generated and fext.shape[0] == 0
                and fv(prm, q, v, tau, opt[O_DT], ws, Uf, D, vf) < 0):
            bad = free_velocity(jnt, prm, dof, q, v, tau, fext, opt[O_DT], ws, M, Uf, D, h,
                                zero, rhs, vf)
            if bad >= 0:
                return SINGULAR * 1_000_000 + bad
        return constrained_step(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, ws, fbuf, warm, qn,
                                vn, cf, stats, Uf, D, vf, J, G, c, lam, lo, hi, mu, point,
                                slot, pair)
    if generated and opt[O_INTEGRATOR] != RK4 and fext.shape[0] == 0:
        nv = v.shape[0]
        ddq = fbuf[:nv]  # M's storage, unused by a step without constraint rows
        clamp_torque_step(jnt, prm, opt, tau)
        aba(prm, q, v, tau, ddq)
        if first_nonfinite(ddq) < 0:
            euler(jnt, q, v, ddq, opt[O_DT], qn, vn)
            o = rhs_offset(nv)
            return end_without_rows(-1, jnt, fbuf[o:o + nv], cf, stats, qn, vn)
    return time_step_inlined(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws, fbuf,
                             ibuf, warm, qn, vn, cf, stats)
