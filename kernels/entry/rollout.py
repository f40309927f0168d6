"""Rollouts: many time steps (time_step.py) under a controller, for a batch of initial states
and robots, in parallel.

Each rollout r starts from (Q[r], V[r]) with robot PRM[r] (or PRM[0] for all) and runs steps
k0..k1-1, so that a long batch can be launched in slices (the object API checks Ctrl-C
between them); Q, V and the warm starts WARM[r] carry the state from one slice to the next.
``rollout_rows(t, lo, hi, ...)`` runs rollouts lo..hi-1 with thread t's workspace and
buffers (QN, VN, TC, CF, ST, FBUF, IBUF: (nt, s, ...), thread t's at [t, 0], the rows
between keeping threads off each other's cache lines: kernels/layout.py's per_thread); the
object API hands blocks of rows to threads as they free up (fastdyn/_internal/threads.py):
a row of the batch is bit-for-bit the serial rollout, whichever thread runs it. A rollout that fails stops
alone: STATUS[r, :2] = (code, step), code as time_step's or RAISED (the policy raised at that
step: it returns non-zero, fastdyn/sim/policy.py's guard), -1 while it runs. A step whose
solver stopped at its cap with the residual above the tolerance (stats[2] > opt[O_TOL]) does
not stop the rollout, it is counted: STATUS[r, 2] the first such step (-1: none), STATUS[r, 3]
how many (0 to start).
Recorded (when the array has room, i.e. its step axis is not empty): RQ[r, k + 1], RV[r, k + 1]
the state after step k, RTAU[r, k] the applied torque, RCF[r, k] the contact forces and points,
RSTATS[r, k] the rows, sweeps and residual of the contact solve, RNC[r, k] the geom contacts the
step found (geo: the scene's geoms, geom_rows.py), RCON[r, k] the force of each constraint row
(eqc: the scene's constraints, equality_rows.py; their percussions / dt, from their slots);
RF[r, k, j] the world placement (R row-major, then p: 12 numbers) of frame FRAMES[j] at the
state k, by a forward kinematics pass of its own (the step recomputes its kinematics from q:
recording changes no state).
Steps go through generated_step.py: with ``generated`` true, ``aba`` and ``fv`` are the model's
generated forward dynamics and free velocity (function pointers: fastdyn/sim/generated_rollout.py);
otherwise they are generated_step.no_aba and no_free_velocity, never called, and every step is
time_step.py's (a step with rows its sequence inlined on the thread's views: the same bits).
"""

from .._jit import jit
from ..layout import O_DT, O_TOL
from .batch import robot
from ..algorithms.frames import frame_placement
from ..algorithms.forward_kinematics import forward_kinematics
from ..contact.generated_step import generated_time_step
from ..contact.geom_detect import FOUND, INFO
from ..contact.time_step import OK, buffers, contact_capacity

RAISED = 3  # STATUS code: the policy raised (after time_step's OK, SINGULAR, DIVERGED)


@jit
def _frames(jnt, prm, frm, FRAMES, q, ws, out):
    forward_kinematics(jnt, prm, q, q[:0], q[:0], ws)
    for j in range(FRAMES.shape[0]):
        frame_placement(frm, FRAMES[j], ws, out[j], 0)


@jit
def rollout_rows(t, lo, hi, jnt, PRM, dof, sph, hsp, geo, eqc, opt, policy, args, k0, k1, Q, V,
                 FEXT, WARM, FBUF, IBUF, ws3, QN, VN, TC, CF, ST, RQ, RV, RTAU, RCF, RSTATS,
                 RNC, RCON, STATUS, frm, FRAMES, RF, generated, aba, fv):
    dt, tol = opt[O_DT], opt[O_TOL]
    # this thread's rows, each made once (a view costs its reference counts: not per step)
    qn, vn, tc, cf, st = QN[t, 0], VN[t, 0], TC[t, 0], CF[t, 0], ST[t, 0]
    ws, fbuf, ibuf = ws3[t], FBUF[t, 0], IBUF[t, 0]
    nq, nv = qn.shape[0], vn.shape[0]
    views = buffers(fbuf, ibuf, nv, contact_capacity(sph, hsp, geo, eqc))
    found = ibuf.shape[0] - INFO + FOUND  # (geoms: the step's geom contacts, geom_rows.py)
    s0 = 3 * sph.shape[0] * hsp.shape[0]  # (constraints: their rows' slots, equality_rows.py)
    for r in range(lo, hi):
        if STATUS[r, 0] >= 0:
            continue
        prm = PRM[robot(PRM, r)]
        q, v, warm = Q[r], V[r], WARM[r]
        fx = FEXT[robot(FEXT, r)]
        f0 = fx[0]
        if RF.shape[1] > 0 and k0 == 0:
            _frames(jnt, prm, frm, FRAMES, q, ws, RF[r, 0])
        for k in range(k0, k1):
            if policy(r, k, k * dt, q, v, args, tc) != 0:
                STATUS[r, 0] = RAISED * 1_000_000
                STATUS[r, 1] = k
                break
            code = generated_time_step(generated, aba, fv, jnt, prm, dof, sph, hsp, geo, eqc, opt,
                                       q, v, tc, f0 if fx.shape[0] == 1 else fx[k], ws, fbuf,
                                       ibuf, warm, qn, vn, cf, st, views)
            if code != OK:
                STATUS[r, 0] = code
                STATUS[r, 1] = k
                break
            if not st[2] <= tol:  # the solver stopped at its cap (or met a NaN)
                if STATUS[r, 2] < 0:
                    STATUS[r, 2] = k
                STATUS[r, 3] += 1
            for j in range(nq):
                q[j] = qn[j]
            for j in range(nv):
                v[j] = vn[j]
            if RQ.shape[1] > 0:
                for j in range(nq):
                    RQ[r, k + 1, j] = qn[j]
            if RV.shape[1] > 0:
                for j in range(nv):
                    RV[r, k + 1, j] = vn[j]
            if RTAU.shape[1] > 0:  # tc: the applied torque after time_step's clamp
                for j in range(nv):
                    RTAU[r, k, j] = tc[j]
            if RCF.shape[1] > 0:
                for p in range(cf.shape[0]):
                    for j in range(6):
                        RCF[r, k, p, j] = cf[p, j]
            if RSTATS.shape[1] > 0:
                for j in range(3):
                    RSTATS[r, k, j] = st[j]
            if RNC.shape[1] > 0:
                RNC[r, k] = 0 if geo is None else ibuf[found]
            if RCON.shape[1] > 0:  # the percussions the step left in the warm start, / dt
                for j in range(RCON.shape[2]):
                    RCON[r, k, j] = warm[s0 + j] / dt
            if RF.shape[1] > 0:
                _frames(jnt, prm, frm, FRAMES, qn, ws, RF[r, k + 1])

