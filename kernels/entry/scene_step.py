"""``Scene.step``'s compiled entry point: the inputs checked, one time step, its outcome coded.

A controller or an MPC loop calls ``scene.step`` once per tick, so what surrounds the step
counts as much as the step: checking q, v and tau in Python (finiteness, unit quaternions)
costs ~2 us, copying them into the step's buffers and the results out ~1.5 us, against a
contact-free UR5 step of ~1 us. Here the checks are guard.py's, compiled (nanoseconds), the
buffers are views of one ``scratch`` array (unboxing an argument costs ~40 ns at the entry
point), and what the step leaves behind (contact forces, stats, the applied torque) stays in
``scratch`` for the object API to copy only when asked.

``scratch`` (``scratch_size``) holds, end to end: the prepared options (the scene's, with the
per-launch O_FREE and O_NO_CLAMP set), the time step's fbuf, q, v, tau (the step's copies of
the inputs; tau receives the applied, clamped torque), qn, vn, cf (npair x 6), stats (3) and
the warm start before the step (restored when the step fails, so that the object API can
replay it through the rollout path, which words the failure).

Codes: 0, the step ran and converged; UNCONVERGED, it ran and its solver stopped at the cap
above the tolerance (the object API warns); guard.py's input codes (1..8) * CODE + detail;
STALE * CODE, the scene's options differ from the prepared ones (prepare again); FAILED *
CODE, time_step failed (singular, diverged, too many contacts: the object API replays the
step through the rollout path, which names the failure).
"""

from .._jit import jit
from ..checks import CODE, check_state
from ..contact.time_step import OK, sizes, time_step_inlined
from ..layout import NO, O_FREE, O_NO_CLAMP, O_TOL

UNCONVERGED = 1
STALE = 20
FAILED = 21


@jit
def scratch_size(nq, nv, nf, npair, nwarm):
    """The length of ``step_checked``'s scratch for a step buffer of nf floats (Scene._sizes:
    the geoms' room included), npair sphere/half-space pairs and nwarm warm-start slots."""
    return NO + nf + 2 * nq + 3 * nv + 6 * npair + 3 + nwarm


@jit(inline="always")  # returns views: compiled into its caller (_jit.py)
def scratch_views(scratch, nq, nv, nf, npair, nwarm):
    """(opt, fbuf, q, v, tau, qn, vn, cf, stats, before): the views of ``scratch``."""
    o = NO
    fbuf = scratch[o:o + nf]
    o += nf
    q = scratch[o:o + nq]
    v = scratch[o + nq:o + nq + nv]
    tau = scratch[o + nq + nv:o + nq + 2 * nv]
    o += nq + 2 * nv
    qn = scratch[o:o + nq]
    vn = scratch[o + nq:o + nq + nv]
    o += nq + nv
    cf = scratch[o:o + 6 * npair].reshape((npair, 6))
    o += 6 * npair
    stats = scratch[o:o + 3]
    before = scratch[o + 3:o + 3 + nwarm]
    return scratch[:NO], fbuf, q, v, tau, qn, vn, cf, stats, before


@jit
def step_checked(jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v, tau, fext, ws, ibuf, warm,
                 scratch, nf, tol):
    """One ``time_step`` from the caller's (q, v, tau) (any layout; checked here) with the
    prepared options in ``scratch`` (see the module docstring for the layout and the codes).
    ``warm`` (the scene's warm start) receives the step's percussions."""
    nq, nv = q.shape[0], v.shape[0]
    npair = sph.shape[0] * hsp.shape[0]
    nwarm = warm.shape[0]
    if scratch.shape[0] != scratch_size(nq, nv, nf, npair, nwarm) or sopt.shape[0] != NO:
        return STALE * CODE
    opt, fbuf, qs, vs, taus, qn, vn, cf, stats, before = scratch_views(scratch, nq, nv, nf,
                                                                       npair, nwarm)
    for k in range(NO):  # an option edited since the scene prepared its step
        if k != O_FREE and k != O_NO_CLAMP and not sopt[k] == opt[k]:
            return STALE * CODE
    code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    if code == 0 and not (tau.shape[0] == nv and dof.shape[0] == nv
                          and ibuf.shape[0] >= sizes(nv, sph.shape[0], hsp.shape[0])[3]):
        code = 8 * CODE
    if code != 0:
        return code
    for k in range(nq):
        qs[k] = q[k]
    for k in range(nv):
        vs[k] = v[k]
        taus[k] = tau[k]
    for k in range(nwarm):
        before[k] = warm[k]
    r = time_step_inlined(jnt, prm, dof, sph, hsp, geo, eqc, opt, qs, vs, taus, fext, ws, fbuf,
                          ibuf, warm, qn, vn, cf, stats)
    if r != OK:
        for k in range(nwarm):
            warm[k] = before[k]
        return FAILED * CODE
    return 0 if stats[2] <= opt[O_TOL] else UNCONVERGED
