"""One time step of the simulator: free motion, constraint percussions, integration.

Moreau-Jean time stepping on the impulse-level equations of motion (Kindr cheat sheet,
"Equations of motion with contacts and impulses": M du - h dt = W P; Acary & Brogliato 2008,
ch. 10), with semi-implicit (symplectic) Euler on the configuration Lie group:
  tau    = clip(tau_cmd, -effort_max, effort_max)
  M_d    = M(q) + dt diag(damping)                 (viscous damping, implicit in v+)
  v_free = v + dt M_d^-1 (tau - h(q, v) - damping v)     (h = C v + g - J^T f_ext, by RNEA)
  P      : the percussions of the constraint rows (constraint_rows.py) solved by pgs.py
           (or admm.py, the scene's O_SOLVER) on G = W^T M_d^-1 W + R (delassus.py; R and
           the targets of contacts on soft half-spaces are MuJoCo's, softness.py); PGS
           tries, after 1, 2, 4, ... sweeps, the solution on the active set they show,
           refined by block pivoting (active_set.py: kept when it meets the same
           tolerance; fewer sweeps)
  v+     = v_free + M_d^-1 W P; a limit that v+ reaches and v_free did not (other rows'
           percussions move it) becomes a row and P is solved again (constraint_rows.py)
  q+     = q (+) dt v+                             (the exponential map, never q + v dt)
with free-flyer and planar joints' v_free and v+ in the step's start axes, v+ then turned
exactly into the new ones (kernels/configuration/frozen.py: v_free gains dt [w x v_lin; 0]).
Contact forces are P / dt. Armature is on M's diagonal (CRBA). When no row can arise at all
(O_FREE), the step is v+ = v + dt ABA(q, v, tau), the same equations without a factorization,
or one classical Runge-Kutta step (rk4.py) when the scene asks for it.
"""

from .._jit import jit
from ..configuration.frozen import advance, frozen_velocity
from ..layout import (ADMM, H_N, H_T1, H_T2, O_DT, O_FREE, O_INTEGRATOR, O_ITERATIONS, O_NO_CLAMP,
                      O_REGULARIZATION, O_SOLVER, O_TOL, P_DAMPING, P_EFFORT_MAX, RK4)
from .active_set import active_set_start
from .admm import admm, work_size
from ..linalg.cholesky import cholesky, solve
from .constraint_rows import RIGID, contact_rows, joint_rows, reached_limits
from .equality_rows import eq_capacity, equality_rows
from ..algorithms.crba import crba_rnea
from .delassus import chain_code, code_range, delassus
from .geom_rows import capacity, geom_codes, geom_finish, geom_rows, last_dof
from ..checks import first_nonfinite
from .pgs import pgs
from ..algorithms.rk4 import rk4_step
from ..algorithms.simulate import euler_step

OK = 0
SINGULAR = 1  # M_d not positive definite (detail: the dof)
DIVERGED = 2  # the next state is not finite
TOO_MANY = 4  # more geom contacts than the scene takes (detail: how many; geom_rows.py)


@jit
def free_velocity(jnt, prm, dof, q, v, tau, fext, dt, ws, M, Uf, D, h, zero, rhs, vf):
    """The step's velocity before the constraints: M_d = M(q) + dt diag(damping) factorized
    into (Uf, D) (cholesky.py), rhs = M_d^-1 (tau - h(q, v) - damping v) and vf = v + dt rhs
    (the module docstring's v_free; step_derivatives.py differentiates this very sequence).
    Returns -1, or the dof where M_d is not positive definite."""
    for k in range(v.shape[0]):
        zero[k] = 0.0
    crba_rnea(jnt, prm, q, v, zero, fext, ws, M, h)
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        for d in range(jr.nv):
            k = jr.idx_v + d
            damping = prm[i, P_DAMPING + d]
            M[k, k] += dt * damping
            rhs[k] = tau[k] - h[k] - damping * v[k]
    bad = cholesky(dof, M, Uf, D)
    if bad >= 0:
        return bad
    solve(dof, Uf, D, rhs)
    for k in range(v.shape[0]):
        vf[k] = v[k] + dt * rhs[k]
    return -1


@jit
def sizes(nv, nsph, nhsp):
    """(rows, warm-start slots, floats, ints) of a step's buffers for nv dofs, nsph spheres
    and nhsp half-spaces: at most 3 rows per pair, one limit and one friction row per dof."""
    npair = nsph * nhsp
    rows = 3 * npair + 3 * nv
    nf = (solver_offset(nv, npair) + work_size(rows)
          + 8 * nv)  # the last 8 nv: rk4_step's stages
    return rows, 3 * npair + 3 * nv, nf, 2 * rows  # (geoms: Scene._sizes adds their room)


@jit
def solver_offset(nv, npair):
    """Where the contact solver's own workspace (admm.py's) starts in fbuf, after
    ``buffers``' views."""
    rows = 3 * npair + 3 * nv
    return 2 * nv * nv + 5 * nv + 2 * rows * nv + rows * rows + 8 * rows + 4 * npair


@jit
def geom_offset(nv, npair):
    """Where fbuf holds the geom contacts' scratch (geom_rows.float_size), after the contact
    solver's workspace and before RK4's stages."""
    return solver_offset(nv, npair) + work_size(3 * npair + 3 * nv)


@jit
def contact_capacity(sph, hsp, geo, eqc):
    """The contact entries of a step's buffers: one per sphere/half-space pair, the
    constraints' room (equality_rows.py: their rows take the entries' three slots each; 0
    without constraints), then the geom contacts' K (geom_rows.py; 0 without geoms)."""
    return sph.shape[0] * hsp.shape[0] + eq_capacity(eqc) + capacity(geo)


@jit
def rhs_offset(nv):
    """Where ``buffers`` puts rhs in fbuf (for Python, which cannot take the views
    themselves: numba boxes a returned view of fbuf as fbuf itself)."""
    return 2 * nv * nv + 4 * nv


@jit
def compliance_offset(nv, npair):
    """Where fbuf holds soft (rows,), after ``buffers``' views: each row's compliance factor
    (constraint_rows.contact_rows, delassus.py)."""
    return solver_offset(nv, npair) - 4 * (3 * npair + 3 * nv)


@jit
def delassus_offset(nv, npair):
    """Where fbuf holds delassus.py's tip (3 rows,: codes, then the spans of the step's m
    rows at [m, 3m)), after the compliance."""
    return solver_offset(nv, npair) - 3 * (3 * npair + 3 * nv)


@jit(inline="always")  # returns views: compiled into its caller (_jit.py)
def buffers(fbuf, ibuf, nv, npair):
    """Views of a step's flat buffers: matrices and vectors in fbuf, indices in ibuf."""
    rows = 3 * npair + 3 * nv
    o = 0
    M = fbuf[o:o + nv * nv].reshape((nv, nv))
    o += nv * nv
    Uf = fbuf[o:o + nv * nv].reshape((nv, nv))
    o += nv * nv
    D = fbuf[o:o + nv]
    h = fbuf[o + nv:o + 2 * nv]
    vf = fbuf[o + 2 * nv:o + 3 * nv]
    zero = fbuf[o + 3 * nv:o + 4 * nv]
    rhs = fbuf[rhs_offset(nv):rhs_offset(nv) + nv]
    o += 5 * nv
    J = fbuf[o:o + rows * nv].reshape((rows, nv))
    o += rows * nv
    Z = fbuf[o:o + rows * nv].reshape((rows, nv))
    o += rows * nv
    G = fbuf[o:o + rows * rows].reshape((rows, rows))
    o += rows * rows
    c = fbuf[o:o + rows]
    lam = fbuf[o + rows:o + 2 * rows]
    lo = fbuf[o + 2 * rows:o + 3 * rows]
    hi = fbuf[o + 3 * rows:o + 4 * rows]
    o += 4 * rows
    mu = fbuf[o:o + npair]
    point = fbuf[o + npair:o + 4 * npair].reshape((npair, 3))
    slot = ibuf[:rows]
    pair = ibuf[rows:]  # (its tail past 2 rows: the geom contacts' int scratch, geom_rows.py)
    return M, Uf, D, h, vf, zero, rhs, J, Z, G, c, lam, lo, hi, mu, point, slot, pair


@jit
def time_step(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws, fbuf, ibuf, warm,
              qn, vn, cf, stats):
    """(q, v) -> (qn, vn) under the commanded torque tau (clamped in place to the effort
    limits: it holds the applied torque on return) and external forces fext
    (njoints, 6; LOCAL, as RNEA's; (0, 6) for none). ``warm`` holds the last step's
    percussions by slot (zeros to start cold) and receives this step's. cf (npair, 6)
    receives each sphere/half-space pair's contact force [N] (world axes) and point [m]
    (zeros when apart); stats (3,) the number of constraint rows, solver sweeps (PGS) or
    iterations (ADMM) of all the step's solves and the last one's residual (above the
    tolerance: the solver stopped at its cap, not converged). On return, the rhs view of
    fbuf (``buffers``) holds the constraints' generalized force W P / dt (nv) (joint-limit
    and friction torques, contact forces seen in joint space). Returns
    OK, SINGULAR * 1_000_000 + dof, DIVERGED, or TOO_MANY * 1_000_000 + the geom contacts found.
    ``geo``: the scene's collision geoms (geom_rows.py; empty tables: none), whose contacts
    are rows after the spheres'; fbuf, ibuf and warm then have their room (Scene._sizes).
    ``eqc``: the scene's loop closures, welds and couplings (equality_rows.py; None: none),
    bilateral rows after the joint rows, their warm-start slots after the sphere pairs'."""
    return time_step_inlined(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws, fbuf,
                             ibuf, warm, qn, vn, cf, stats)


# time_step's body, compiled into fastdyn's own entry points (Scene.step's, the step
# derivatives'): numba links a callee's whole tree into each caller and optimizes and emits it
# again, so a time_step called from an entry point cost one more such pass over the step's
# tree (5.8 s cold, measured); inlined, the entry point's compile is the only one. Users' code
# calls time_step itself: inlined there, the body would be compiled with the caller's options
# (its error model, no contraction to FMA) and give other bits.
@jit(inline="always")
def time_step_inlined(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws, fbuf, ibuf,
                      warm, qn, vn, cf, stats):
    """time_step's body (its docstring); for fastdyn's entry points only (the comment above)."""
    nv = v.shape[0]
    dt = opt[O_DT]
    if opt[O_FREE] > 0.0:  # two views, not buffers' eighteen (each one is reference-counted)
        o = rhs_offset(nv)
        if opt[O_INTEGRATOR] == RK4:
            clamp_torque_step(jnt, prm, opt, tau)
            stages = fbuf[fbuf.shape[0] - 8 * nv:]
            bad = rk4_step(jnt, prm, opt[O_DT], q, v, tau, fext, ws, stages, qn, vn)
            return end_without_rows(bad, jnt, fbuf[o:o + nv], cf, stats, qn, vn)
        return _free_step(jnt, prm, opt, q, v, tau, fext, ws, fbuf[o - 2 * nv:o - nv],
                          fbuf[o:o + nv], qn, vn, cf, stats)
    M, Uf, D, h, vf, zero, rhs, J, Z, G, c, lam, lo, hi, mu, point, slot, pair = \
        buffers(fbuf, ibuf, nv, contact_capacity(sph, hsp, geo, eqc))
    clamp_torque_step(jnt, prm, opt, tau)
    bad = free_velocity(jnt, prm, dof, q, v, tau, fext, dt, ws, M, Uf, D, h, zero, rhs, vf)
    if bad >= 0:
        return SINGULAR * 1_000_000 + bad
    return constrained_step(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, ws, fbuf, warm, qn,
                            vn, cf, stats, Uf, D, vf, J, G, c, lam, lo, hi, mu, point, slot,
                            pair)


# Inlined, and handed the views its caller made: a call, or views made again, would count
# references to some twenty arrays in and out, about 0.3 us of the quadruped's 4.5 us step.
@jit(inline="always")
def constrained_step(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, ws, fbuf, warm, qn, vn, cf,
                     stats, Uf, D, vf, J, G, c, lam, lo, hi, mu, point, slot, pair):
    """time_step after ``free_velocity``: from v_free and M_d = U D U^T (``buffers``' views
    of fbuf) and the placements and world Jacobian columns of CRBA in ws, the rows, their
    percussions, v+ and q+. Returns OK, DIVERGED or TOO_MANY * 1_000_000 + contacts found."""
    nv = v.shape[0]
    dt = opt[O_DT]
    zero = fbuf[rhs_offset(nv) - nv:rhs_offset(nv)]  # (``buffers``' zero and rhs: at most 30
    rhs = fbuf[rhs_offset(nv):rhs_offset(nv) + nv]  # arguments, or CPython passes them as a
    # tuple, which numba cannot inline; so is Z, delassus.py's scratch)
    rows = J.shape[0]
    o = 2 * nv * nv + 5 * nv + rows * nv
    Z = fbuf[o:o + rows * nv].reshape((rows, nv))
    frozen_velocity(jnt, v, dt, vf)  # v_free, v+ in the start axes (configuration/frozen.py)
    for k in range(nv):
        vn[k] = vf[k]
    o = compliance_offset(nv, mu.shape[0])
    soft = fbuf[o:o + c.shape[0]]
    o = delassus_offset(nv, mu.shape[0])
    tip = fbuf[o:o + 3 * c.shape[0]]
    nc, m = step_rows(jnt, prm, sph, hsp, geo, eqc, opt, q, v, ws, vf, J, c, lo, hi, mu, slot,
                      pair, point, soft, fbuf, warm)
    if m < 0:  # more geom contacts than the scene takes: none is dropped silently
        return TOO_MANY * 1_000_000 - m
    for p in range(cf.shape[0]):
        for k in range(6):
            cf[p, k] = 0.0
    sweeps, residual = 0, 0.0
    for k in range(nv):
        rhs[k] = 0.0
    nslot = 3 * mu.shape[0]
    known = sphere_codes(jnt, dof, sph, hsp, pair, nc, tip)
    if geo is not None:
        known = geom_codes(jnt, dof, geo, pair, nc, known, tip, J.shape[0], mu.shape[0])
    while m > 0:  # again while the solved velocity reaches limits not yet rows
        delassus(dof, Uf, D, J, m, opt[O_REGULARIZATION], soft, Z, G, tip, known)
        n, residual = step_solve(opt, G, c, mu, nc, lo, hi, m, lam, warm, slot, fbuf, nv)
        sweeps += n
        for k in range(nv):  # v+ = v_free + M^-1 W P; zero is free after RNEA
            zero[k] = 0.0
        for r in range(m):  # (on the dofs row r's code bounds: a box's 12 of a stack's 60)
            k0, k1 = code_range(tip[r])
            for k in range(k0, k1 + 1):
                zero[k] += lam[r] * J[r, k]
        for k in range(nv):
            rhs[k] = zero[k] / dt
        solve(dof, Uf, D, zero)
        for k in range(nv):
            vn[k] = vf[k] + zero[k]
        n = reached_limits(jnt, prm, opt, q, vf, vn, 3 * nc, m, nslot, J, c, lo, hi, slot)
        if n == m:
            break
        for r in range(m):  # the next solve starts from this one's percussions
            warm[slot[r]] = lam[r]
        for r in range(m, n):
            soft[r] = RIGID
        m = n
    for s in range(warm.shape[0]):
        warm[s] = 0.0
    for r in range(m):
        warm[slot[r]] = lam[r]
    nsp = cf.shape[0]
    for i in range(nc):
        if pair[i] < nsp:  # (geom contacts' pairs come after the spheres')
            _contact_force(hsp, pair[i] % hsp.shape[0], lam, 3 * i, dt, point[i], cf[pair[i]])
    if geo is not None:
        geom_finish(geo, fbuf[geom_offset(nv, mu.shape[0]):], pair, lam, warm, dt, nv)
    stats[0], stats[1], stats[2] = m, sweeps, residual
    advance(jnt, q, vn, dt, qn, vn)
    if first_nonfinite(vn) >= 0 or first_nonfinite(qn) >= 0:
        return DIVERGED
    return OK


@jit
def step_rows(jnt, prm, sph, hsp, geo, eqc, opt, q, v, ws, vf, J, c, lo, hi, mu, slot, pair,
              point, soft, fbuf, warm):
    """The step's constraint rows (``buffers``' arrays): contacts first (spheres on
    half-spaces, then geom pairs: geom_rows.py), then joint limits and dry friction
    (constraint_rows.py; limit rows hold exactly, without the regularization: soft RIGID;
    friction rows have it: soft 0), then the constraints' bilateral rows (equality_rows.py).
    Returns (contacts, rows), or (contacts, -found) when the geoms have more contacts than
    the scene takes."""
    nc = contact_rows(jnt, sph, hsp, opt, ws, v, vf, J, c, mu, slot, pair, point, soft)
    if geo is not None:
        nc = geom_rows(jnt, geo, opt, ws, v, vf, J, c, mu, slot, pair, point, soft, nc,
                       fbuf[geom_offset(vf.shape[0], mu.shape[0]):], warm)
        if nc < 0:
            return 0, nc
    m = joint_rows(jnt, prm, opt, q, vf, 3 * nc, 3 * mu.shape[0], J, c, lo, hi, slot)
    nlim = 3 * mu.shape[0] + 2 * vf.shape[0]  # the slots of limit rows end there
    for r in range(3 * nc, m):
        soft[r] = RIGID if slot[r] < nlim else 0.0
    if eqc is not None:  # (their slots: after the sphere pairs')
        m = equality_rows(jnt, eqc, opt, q, ws, v, vf, J, c, lo, hi, slot, soft, m,
                          3 * sph.shape[0] * hsp.shape[0])
    return nc, m


@jit
def sphere_codes(jnt, dof, sph, hsp, pair, nc, tip):
    """tip[r] <- delassus.chain_code of the sphere contacts' rows (the first ones: geom
    contacts follow them), from the chain of each sphere's joint (constraint_rows.sphere_rows
    writes the dofs of that joint and its ancestors); returns how many rows have theirs. Read
    off J, the quadruped's 12 codes took ~0.2 us of its 1.1 us Delassus matrix."""
    nsp = sph.shape[0] * hsp.shape[0]
    i = 0
    while i < nc and pair[i] < nsp:
        code = chain_code(dof, last_dof(jnt, sph[pair[i] // hsp.shape[0]].joint))
        for k in range(3):
            tip[3 * i + k] = code
        i += 1
    return 3 * i


@jit
def step_solve(opt, G, c, mu, nc, lo, hi, m, lam, warm, slot, fbuf, nv):
    """lam[:m]: the percussions of the step's m rows, from the warm start by slot, by the
    scene's solver (ADMM, or PGS as ``_pgs``), on G's spans by row (delassus.py's, in
    fbuf). Returns (sweeps or iterations, residual)."""
    for r in range(m):
        lam[r] = warm[slot[r]]
    o = delassus_offset(nv, mu.shape[0])
    span = fbuf[o + m:o + 3 * m]
    o = solver_offset(nv, mu.shape[0])
    if opt[O_SOLVER] == ADMM:
        return admm(G, c, mu, nc, lo, hi, m, lam, opt[O_TOL], opt[O_ITERATIONS],
                    fbuf[o:o + work_size(m)], span)
    # rows of one robot (delassus.py's mark): PGS compiled without spans, as before them (read
    # per row, the bounds cost the standing quadruped's solve 0.47 -> 0.54 us a step)
    if m > 0 and span[0] < 0.0:
        return _pgs(G, c, mu, nc, lo, hi, m, lam, opt, fbuf[o:o + work_size(m)], None)
    return _pgs(G, c, mu, nc, lo, hi, m, lam, opt, fbuf[o:o + work_size(m)], span)


@jit
def _pgs(G, c, mu, nc, lo, hi, m, lam, opt, work, span=None):
    """PGS from the warm start lam, in runs of 1, 1, 2, 4, ... sweeps; after each run that does
    not end it, the solution on the active set the sweeps show (active_set.py) is tried: kept
    when one more sweep finds it converged (that sweep changes nothing to the tolerance), else
    the sweeps go on from where they were, so that a problem whose active set is not found
    gets PGS's own iterates. Returns (sweeps, residual), sweeps as pgs counts them (the
    checking sweep of a kept solution is the converged sweep it does not count). ``span``:
    G's non-zero columns by row (delassus.py; None: every column)."""
    tol, iterations = opt[O_TOL], int(opt[O_ITERATIONS])
    saved = work[m * m + 3 * m:m * m + 4 * m]  # (after active_set_start's share)
    done, until = 0, 1
    residual = 0.0
    while done < iterations:
        n = min(until, iterations) - done
        sweeps, residual = pgs(G, c, mu, nc, lo, hi, m, lam, tol, n, span)
        if sweeps < n or not residual == residual:
            return done + sweeps, residual
        done += n
        if done == iterations:
            break
        for r in range(m):
            saved[r] = lam[r]
        if active_set_start(G, c, mu, nc, lo, hi, m, lam, work, False, span):
            sweeps, checked = pgs(G, c, mu, nc, lo, hi, m, lam, tol, 1, span)
            if sweeps == 0:  # (a NaN counts one sweep)
                return done, checked
            for r in range(m):
                lam[r] = saved[r]
        until = 2 * done
    return iterations, residual


@jit
def clamp_torque_step(jnt, prm, opt, tau):
    """clamp_torque, unless opt[O_NO_CLAMP] says no dof has a finite effort limit (a rollout
    checks its robots once, not every step)."""
    if not opt[O_NO_CLAMP] > 0.0:
        clamp_torque(jnt, prm, tau)


@jit
def clamp_torque(jnt, prm, tau):
    """tau = clip(tau, -effort_max, effort_max) dof by dof."""
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        for d in range(jr.nv):
            emax = prm[i, P_EFFORT_MAX + d]
            tau[jr.idx_v + d] = min(max(tau[jr.idx_v + d], -emax), emax)


@jit
def _free_step(jnt, prm, opt, q, v, tau, fext, ws, ddq, rhs, qn, vn, cf, stats):
    """The step when no constraint row can arise (no contact pairs, no limits, no dry
    friction, no damping: the object API's O_FREE): v+ = v + dt ABA(q, v, tau), O(n)."""
    clamp_torque_step(jnt, prm, opt, tau)
    bad = euler_step(jnt, prm, q, v, tau, opt[O_DT], fext, ws, ddq, qn, vn)
    return end_without_rows(bad, jnt, rhs, cf, stats, qn, vn)


@jit
def end_without_rows(bad, jnt, rhs, cf, stats, qn, vn):
    """A step without constraint rows (no constraint force, no contact, no solve) ends: its
    code from ``bad`` (-1, or the joint whose articulated inertia was singular) and qn, vn."""
    for k in range(rhs.shape[0]):
        rhs[k] = 0.0
    for p in range(cf.shape[0]):
        for k in range(6):
            cf[p, k] = 0.0
    stats[0], stats[1], stats[2] = 0.0, 0.0, 0.0
    if bad >= 0:
        return SINGULAR * 1_000_000 + jnt[bad].idx_v
    if first_nonfinite(vn) >= 0 or first_nonfinite(qn) >= 0:
        return DIVERGED
    return OK


@jit
def _contact_force(hsp, e, lam, n, dt, point, out):
    """out = [f; p]: the percussion of rows n..n+2 as a world force P / dt, and the point."""
    h = hsp[e]
    for k in range(3):
        out[k] = (lam[n] * h[H_N + k] + lam[n + 1] * h[H_T1 + k] + lam[n + 2] * h[H_T2 + k]) / dt
        out[3 + k] = point[k]
