"""Inverse dynamics of many robots along one trajectory: the regressor times each robot's
parameters, reduced to each robot's peak and RMS torque on the fly.

The torque is linear in the inertial parameters (regressor.py): robot s's torque at step t of
a trajectory (q_t, v_t, a_t) is

  tau_s(t) = Y(q_t, v_t, a_t) pi_s + armature * a_t,        pi_s (P,), P = 10 (njoints - 1)

(Atkeson, An & Hollerbach 1986), so a Monte Carlo study over the inertias evaluates Y once per
step and then only the products, a matrix product C = PI Y^T of the samples PI (N, P) with the
T nv regressor rows. Per sample this kernel returns

  peak_s[v] = max_t |tau_s(t)[v]|,    rms_s[v] = sqrt(sum_t tau_s(t)[v]^2 / T)

(the two numbers an actuator is sized by: its peak and its continuous torque), and optionally
the torques themselves at every ``every``-th step, without holding all N T nv torques at once.

Order of the arithmetic (why results are bit-identical wherever a sample is computed): every
product is accumulated as ((0 + y_0 pi_0) + y_1 pi_1) + ..., over p = 0..P-1 in order, each term
one fused multiply-add (the jit policy allows contraction, never reassociation: the sum's order
is the source's), skipping the p whose regressor column is zero along the whole trajectory for
that joint (``live``, fixed by the trajectory alone). Vectorization runs across steps, never
along the sum. So a sample's torques depend on its parameters and the trajectory only, not on
which thread, block or process computes it, nor on how many samples it is computed with.

Blocking (a small GEMM): SB samples x TB steps of one joint's torques stay in a block C that
fits the L1 cache; for each live p every entry gets one multiply-add, the inner loop running
over TB consecutive steps of Y's (joint, p) row, stored contiguous in t (layout YV (nv, P, T)).
"""

import numpy as np
from numba import int64, prange

from .._jit import jit
from .batch import chunk

SB = 8  # samples per block
TB = 128  # steps per block: C is SB x TB doubles, 8 KB


@jit
def regressor_product_chunk(t, nt, YV, live, ARMA, PI, every, CB, TAU, PEAK, RMS):
    """Chunk t of nt (contiguous samples) of the products, serially.

    YV (nv, P, T): the regressor, YV[v, p, t] = Y(q_t, v_t, a_t)[v, p]; live (nv, P) bool: the
    columns to sum (see the module docstring); ARMA (nv, T): armature * a; PI (N, P): one
    sample's parameters per row; CB (nt, SB, TB): one block per thread (kernels do not
    allocate). Outputs: PEAK, RMS (N, nv); TAU (N, T_kept, nv) with the torques at steps 0,
    every, 2 every, ... (T_kept = ceil(T / every)), or (0, 0, nv) for none.
    """
    nv, P, T = YV.shape
    lo, hi = chunk(PI.shape[0], nt, t)
    keep = TAU.shape[0] > 0
    C = CB[t]
    for s0 in range(lo, hi, SB):
        nb = min(SB, hi - s0)
        for v in range(nv):
            for s in range(nb):
                PEAK[s0 + s, v] = 0.0
                RMS[s0 + s, v] = 0.0  # the sum of squares until the last block
            for t0 in range(0, T, TB):
                tb = min(TB, T - t0)
                C[:, :] = 0.0
                for p in range(P):
                    if not live[v, p]:
                        continue
                    y = YV[v, p, t0:t0 + tb]
                    for s in range(nb):
                        w = PI[s0 + s, p]
                        c = C[s]
                        for k in range(tb):
                            c[k] += w * y[k]
                arma = ARMA[v, t0:t0 + tb]
                for s in range(nb):
                    c = C[s]
                    peak = PEAK[s0 + s, v]
                    ss = RMS[s0 + s, v]
                    for k in range(tb):
                        x = c[k] + arma[k]
                        a = abs(x)
                        if a > peak:
                            peak = a
                        ss += x * x
                        if keep and (t0 + k) % every == 0:
                            TAU[s0 + s, (t0 + k) // every, v] = x
                    PEAK[s0 + s, v] = peak
                    RMS[s0 + s, v] = ss
            for s in range(nb):
                RMS[s0 + s, v] = np.sqrt(RMS[s0 + s, v] / T)


@jit(parallel=True)
def regressor_product_batch(YV, live, ARMA, PI, every, CB, TAU, PEAK, RMS):
    """``regressor_product_chunk`` on CB.shape[0] threads, one contiguous chunk each."""
    nt = CB.shape[0]
    for t in prange(nt):
        regressor_product_chunk(int64(t), nt, YV, live, ARMA, PI, every, CB, TAU, PEAK, RMS)

