"""Controllers the simulator runs inside its compiled loop.

A controller (a "policy") is any @njit function with the signature
  policy(r, k, t, q, v, args, tau)
r the rollout, k the step, t = k dt the time, (q, v) the state, ``args`` whatever tuple the
caller passed (arrays, scalars), and tau (nv,) the commanded torque it must write. The
simulator clamps tau to the effort limits before applying it. The rollout loop receives it as
a C callback of that signature and calls it through a function pointer (fastdyn/sim/policy.py),
so the loop, compiled once per type of ``args``, loads from the disk cache in later processes.
"""

from .._jit import jit
from ..configuration.dispatch import difference_joint, lie_group
from ..joints.codes import VECTOR


@jit
def pick(n, i):
    """Row i of a table with n rows, or its only row: per-rollout or per-step tables
    broadcast when they have one row, and the last step's row holds after the table ends."""
    return 0 if n == 1 else min(i, n - 1)


@jit
def pd_feedforward(r, k, t, q, v, args, tau):
    """tau = tau_ff + Kp (q_ref (-) q) + Kd (v_ref - v), joint-wise gains, with (-) the
    configuration difference (Lie group log), so a free-flyer's or ball joint's error is a
    tangent vector. args = (jnt, KP (1|N, nv), KD (1|N, nv), QREF (1|N, 1|T, nq),
    VREF (1|N, 1|T, nv), TFF (1|N, 1|T, nv)); zero gains give an open-loop torque table."""
    jnt, KP, KD, QREF, VREF, TFF = args
    # rows by index, not as views: a view is reference-counted, and this runs every step
    a, b = pick(KP.shape[0], r), pick(KD.shape[0], r)
    vr, vk = pick(VREF.shape[0], r), pick(VREF.shape[1], k)
    fr, fk = pick(TFF.shape[0], r), pick(TFF.shape[1], k)
    qref = QREF[pick(QREF.shape[0], r), pick(QREF.shape[1], k)]
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iq, iv = jr.idx_q, jr.idx_v
        # the torque law is written twice on purpose: for vector-space joints the error
        # stays in a register (storing it in tau and reading it back measured 100 against
        # 80 ns a call on the quadruped)
        if lie_group(jr.type) == VECTOR:  # the error is qref - q: one pass, no stored error
            for d in range(jr.nv):
                j = iv + d
                e = qref[iq + d] - q[iq + d]
                tau[j] = TFF[fr, fk, j] + KP[a, j] * e + KD[b, j] * (VREF[vr, vk, j] - v[j])
            continue
        if _nonzero(KP, a, iv, jr.nv):  # else no position gain (a free base): no log
            difference_joint(jr, q, qref, tau)
        else:
            for j in range(iv, iv + jr.nv):
                tau[j] = 0.0
        for j in range(iv, iv + jr.nv):
            tau[j] = TFF[fr, fk, j] + KP[a, j] * tau[j] + KD[b, j] * (VREF[vr, vk, j] - v[j])


@jit
def open_loop(r, k, t, q, v, args, tau):
    """pd_feedforward with every gain zero (the object API's choice when kp and kd are all
    zero): tau = tau_ff, the same bits for a finite state, without the loops over the gains."""
    TFF = args[5]
    fr, fk = pick(TFF.shape[0], r), pick(TFF.shape[1], k)
    for j in range(tau.shape[0]):
        tau[j] = TFF[fr, fk, j]


@jit
def _nonzero(X, row, start, n):
    for j in range(start, start + n):
        if X[row, j] != 0.0:
            return True
    return False
