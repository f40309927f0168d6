"""Where a contact step's time goes: microseconds per step of the quadruped scenes of
bench/test_simulator.py (standing and dropped, dt = 1 ms, PD, rigid contacts, PGS), one thread,
split into the phases of kernels/contact/time_step.py:
  dynamics   tau clamped, CRBA + RNEA + tree-sparse factorization -> v_free (free_velocity)
  rows       the constraint rows: contact_rows + joint_rows (step_rows)
  delassus   G = J M^-1 J^T + R (delassus.py; the spheres' rows coded as time_step codes them)
  solve      the warm start gathered by slot, PGS (step_solve: pgs.py and active_set.py; its
             sweeps per step beside it)
  rest       the whole time_step minus the above: percussions scattered to the warm start,
             v+ = v_free + M^-1 J^T P, contact forces, integration, finiteness checks.
The states: NROLL of the bench's seeded rollouts x CONTACT_T steps each, recorded by
Scene.rollout (q, v, applied torque) and replayed through time_step to recover the warm start
before every step (the replay must reproduce the rollout bit for bit). Each timed call runs a
cumulative prefix of the phases over all those states (from each state's q, v, torque and warm
start, as the rollout met them); a phase's time is the difference of consecutive prefixes,
"loop" (copying each state's torque and warm start in) is subtracted. Before timing, the prefix
that ends with the solve must leave the percussions time_step stored (the split times the
step's own work)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from bench.ladder import tag
from bench.test_simulator import CONTACT_T, SCENES, contact_scene, contact_states
from fastdyn.kernels import layout as L
from fastdyn.kernels.configuration.frozen import frozen_velocity
from fastdyn.kernels.contact import geom_detect as gd, geom_rows as gr, time_step as ts
from fastdyn.kernels.contact.delassus import delassus

NROLL = 4
PHASES = ("loop", "dynamics", "rows", "delassus", "solve", "step")  # cumulative prefixes
DETECT = 6  # prefix's phase "dynamics, then the geom contacts' detection" (geom scenes)


@numba.njit  # (no cache: numba would not see the kernels it calls change)
def replay(jnt, prm, dof, sph, hsp, geo, opt, Q, V, TAU, ws, fbuf, ibuf, WARM, QN):
    """time_step from (Q[0], V[0]) under the torques TAU[k]: the warm start before step k in
    WARM[k] (and after the last in WARM[-1]), the states it reaches in QN; returns the first
    code that is not OK, or 0."""
    nq, nv = Q.shape[1], V.shape[1]
    q, v, tau, warm = Q[0].copy(), V[0].copy(), np.empty(nv), np.zeros(WARM.shape[1])
    qn, vn = np.empty(nq), np.empty(nv)
    cf, stats = np.empty((sph.shape[0] * hsp.shape[0], 6)), np.empty(3)
    for k in range(TAU.shape[0]):
        WARM[k] = warm
        tau[:] = TAU[k]
        code = ts.time_step(jnt, prm, dof, sph, hsp, geo, None, opt, q, v, tau,
                            np.zeros((0, 6)), ws, fbuf, ibuf, warm, qn, vn, cf, stats)
        if code != ts.OK:
            return code
        q[:] = qn
        v[:] = vn
        QN[k] = qn
    WARM[TAU.shape[0]] = warm
    return 0


@numba.njit  # (no cache: numba would not see the kernels it calls change)
def prefix(upto, jnt, prm, dof, sph, hsp, geo, opt, Q, V, TAU, WARM, ws, fbuf, ibuf, LAM):
    """time_step's phases 1..upto (PHASES) on every state k: (Q[k], V[k]) under TAU[k] from the
    warm start WARM[k]. Returns the PGS sweeps summed over the states; with upto = 4 (solve),
    LAM[k] receives the percussions by warm-start slot, as time_step stores them. upto = 6
    (DETECT, geoms only): the dynamics, then the geom contacts' broad and narrow phases."""
    nv = V.shape[1]
    npair = ts.contact_capacity(sph, hsp, geo, None)
    tau, warm, fext = np.empty(nv), np.empty(WARM.shape[1]), np.zeros((0, 6))
    qn, vn, stats = np.empty(Q.shape[1]), np.empty(nv), np.empty(3)
    cf = np.empty((sph.shape[0] * hsp.shape[0], 6))
    dt = opt[L.O_DT]
    sweeps = 0.0
    for k in range(Q.shape[0]):
        q, v = Q[k], V[k]
        for j in range(nv):
            tau[j] = TAU[k, j]
        for s in range(warm.shape[0]):
            warm[s] = WARM[k, s]
        if upto == 0:
            continue
        if upto == 5:
            ts.time_step(jnt, prm, dof, sph, hsp, geo, None, opt, q, v, tau, fext, ws, fbuf,
                         ibuf, warm, qn, vn, cf, stats)
            sweeps += stats[1]
            continue
        M, Uf, D, h, vf, zero, rhs, J, Z, G, c, lam, lo, hi, mu, point, slot, pair = \
            ts.buffers(fbuf, ibuf, nv, npair)
        ts.clamp_torque(jnt, prm, tau)
        ts.free_velocity(jnt, prm, dof, q, v, tau, fext, dt, ws, M, Uf, D, h, zero, rhs, vf)
        frozen_velocity(jnt, v, dt, vf)  # a free-flyer's v_free in the start axes, as time_step
        if upto == 1:
            continue
        if upto == DETECT:
            if geo is not None:
                sweeps += _detect(geo, ws, fbuf, pair[J.shape[0]:], nv, npair)
            continue
        o = ts.compliance_offset(nv, npair)
        soft = fbuf[o:o + c.shape[0]]
        nc, m = ts.step_rows(jnt, prm, sph, hsp, geo, None, opt, q, v, ws, vf, J, c, lo,
                             hi, mu, slot, pair, point, soft, fbuf, warm)
        if upto == 2 or m == 0:
            continue
        o = ts.delassus_offset(nv, npair)
        tip = fbuf[o:o + 3 * c.shape[0]]
        known = ts.sphere_codes(jnt, dof, sph, hsp, pair, nc, tip)  # (as time_step)
        if geo is not None:
            known = gr.geom_codes(jnt, dof, geo, pair, nc, known, tip, J.shape[0], npair)
        delassus(dof, Uf, D, J, m, opt[L.O_REGULARIZATION], soft, Z, G, tip, known)
        if upto == 3:
            continue
        sw, _ = ts.step_solve(opt, G, c, mu, nc, lo, hi, m, lam, warm, slot, fbuf, nv)
        sweeps += sw
        if LAM.shape[0] > 0:
            for r in range(m):
                LAM[k, slot[r]] = lam[r]
    return sweeps


@numba.njit
def _detect(geo, ws, fbuf, gi, nv, npair):
    """geom_detect.detect on the step's own scratch (as geom_rows calls it); returns the
    contacts found."""
    geom, gprm, verts, gaux, binv = geo
    ng, K, P = geom.shape[0], gaux[0], gaux[1]
    xpos, xmat, box, con, wf, hrow, frame, force = gd.float_views(
        fbuf[ts.geom_offset(nv, npair):], ng, K)
    order, pairs, cg, wi, key, cslot, crow, taken, info = gd.int_views(gi, ng, K, P)
    return gd.detect(geo, ws, xpos, xmat, box, con, wf, order, pairs, cg, wi, key, info)


class Split:
    """One scene's recorded states and the arguments of ``prefix``: ``n`` rollouts of ``steps``
    steps from (Q0, V0) under the controller ``ctrl`` (Scene.rollout's keywords)."""

    def __init__(self, which: str, scene=None, Q0=None, V0=None, steps: int = CONTACT_T,
                 n: int = NROLL, **ctrl):
        if scene is None:  # the quadruped scenes of bench/test_simulator.py
            scene, (kp, kd) = contact_scene()
            Q0, V0 = contact_states(which)
            ctrl = dict(kp=kp, kd=kd)
        model = scene.model
        out = scene.rollout(Q0[:n], V0[:n], steps, record=("q", "v", "tau"), **ctrl)
        rows, nwarm, nf, ni = scene._sizes()
        opt = scene.opt.copy()  # (contact pairs: never the contact-free step)
        ws, fbuf, ibuf = L.workspace(model.jnt), np.zeros(nf), np.zeros(ni, np.int64)
        Q, V, TAU, WARM, LAM = [], [], [], [], []
        geo = scene._geo_tables()
        base = (model.jnt, model.prm, model.dof, scene.spheres, scene.halfspaces, geo, opt)
        for r in range(n):
            W, QN = np.zeros((steps + 1, nwarm)), np.zeros((steps, model.nq))
            code = replay(*base, out.q[r, :-1].copy(), out.v[r, :-1].copy(), out.tau[r], ws,
                          fbuf, ibuf, W, QN)
            if code != 0 or not np.array_equal(QN, out.q[r, 1:]):
                raise RuntimeError(f"{which}: the replay of rollout {r} is not the rollout")
            Q.append(out.q[r, :-1])
            V.append(out.v[r, :-1])
            TAU.append(out.tau[r])
            WARM.append(W[:-1])
            LAM.append(W[1:])
        self.nstates = n * steps
        self.args = (*base, np.concatenate(Q), np.concatenate(V), np.concatenate(TAU),
                     np.concatenate(WARM), ws, fbuf, ibuf, np.zeros((0, nwarm)))
        lam = np.zeros((self.nstates, nwarm))
        prefix(4, *self.args[:-1], lam)
        keys = int(gr.capacity(geo))  # (warm's last K entries: the geom contacts' keys)
        if not np.array_equal(lam[:, :nwarm - keys], np.concatenate(LAM)[:, :nwarm - keys]):
            raise RuntimeError(f"{which}: the split's solve does not give time_step's "
                               f"percussions")


_SPLITS: dict[str, Split] = {}


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("scene", SCENES)
def test_step_split(benchmark, scene, phase):
    if scene not in _SPLITS:
        _SPLITS[scene] = Split(scene)
    s = _SPLITS[scene]
    upto = PHASES.index(phase)
    sweeps = prefix(upto, *s.args)  # warm-up: compilation, first touch
    tag(benchmark, "step-split", f"quadruped-{scene}", "quadruped", phase, evals=s.nstates,
        variant="1t", sweeps=sweeps / s.nstates)
    benchmark.pedantic(prefix, (upto, *s.args), rounds=7, iterations=1)
