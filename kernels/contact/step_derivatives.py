"""Transition Jacobians of one simulator step: A = d(q+, v+)/d(q, v) (2nv x 2nv) and
B = d(q+, v+)/d(tau) (2nv x nv), what iLQR and MPC consume, with the constraints' active set
held fixed.

The step (time_step.py) without constraint rows is
  tau_c = clip(tau, -effort_max, effort_max)
  v+    = v + dt a,   (M(q) + dt D) a = tau_c - h(q, v) - D v     (D = diag(damping))
  q+    = q (+) dt v+                                             (integrate: exponential map)
with armature on M's diagonal and the external forces fext held fixed (LOCAL, in h). The
acceleration solves RNEA(q, v, a) + D (v + dt a) = tau_c, so by the implicit function theorem
(Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS 2018,
sec. V, with M + dt D in place of M):
  da/dq = -(M + dt D)^-1 dtau/dq,  da/dv = -(M + dt D)^-1 (dtau/dv + D),
  da/dtau = (M + dt D)^-1 P,       P = diag(1 where |tau_k| <= effort_max_k, else 0)
with dtau/dq, dtau/dv from rnea_derivatives.py at (q, v, a): a clamped torque does not move
(its column of B is zero; at |tau_k| = effort_max_k exactly the unclamped side is taken).
Then, with Gq = d integrate(q, x)/dq and Gu = d integrate(q, x)/dx at x = dt v+ (the
configuration Jacobians of kernels/configuration, Pinocchio's dIntegrate ARG0 / ARG1):
  dv+/dq = dt da/dq                 dv+/dv = I + dt da/dv        dv+/dtau = dt da/dtau
  dq+/dq = Gq + dt Gu dv+/dq        dq+/dv = dt Gu dv+/dv        dq+/dtau = dt Gu dv+/dtau
Free-flyer and planar joints step from u = v + dt a + dt [w x v_lin; 0], their end velocity in
the start axes (kernels/configuration/frozen.py, which gives the blocks): the rows above are
those of u, with dt d[w x v_lin; 0]/dv added to dv/dv; Gq, Gu are frozen.py's d q+/d q and
d q+/d x at x = dt u, and the velocity rows are then multiplied by its d v+/d u.
With contact, limit or friction rows (constraint_rows.py), the step is run as time_step runs
it, from a cold start (Scene.step after Scene.reset), and its percussions lam classify the
rows (separated, sticking, sliding; at a bound or between): held to these classes, v+ is a
smooth function of (q, v, tau), and a above becomes the step's acceleration (v+ - v) / dt with
the percussions as external forces at fixed lam, then the percussions' own derivatives are
added by the implicit function theorem on the solver's optimality conditions
(constraint_derivatives.py states the system, what it holds fixed and the sides it takes;
equality_derivatives.py adds the constraints' always-active bilateral rows, eqc).
The derivative is one-sided where a perturbation would change the active set: it is the
derivative of the branch the step is on.
Perturbations are tangent vectors at q and at q+, q (+) dq = integrate(q, dq), Pinocchio's
convention: row and column order (q, v) in A, as pinocchio.computeABADerivatives composed with
pinocchio.dIntegrate would give. The step's own path is followed (so q+, v+ are the step's
bits): ABA and aba_derivatives.py where the scene has no constraint at all (O_FREE), else
time_step itself and its factorization of M + dt D, reused for the solves.
"""

from .._jit import jit
from ..configuration.frozen import (d_advance_block, d_frozen_velocity, euler, frozen_of,
                                    frozen_velocity)
from ..joints.codes import LIE_GROUP, SE2, SE3, SO2, VECTOR
from ..layout import NO, O_DT, O_FREE, O_INTEGRATOR, P_DAMPING, RK4
from ..algorithms.aba_derivatives import aba_derivatives
from ..linalg.cholesky import inverse_sparse, solve_pair
from .constraint_derivatives import (classify, compliance_terms, constrained_rows,
                                     constraint_buffers, constraint_size, contact_terms,
                                     contact_wrenches, count_contacts, limit_terms, targets)
from .equality_derivatives import equality_terms, slot_range, wrenches
from .geom_derivatives import geom_compliance, geom_targets, geom_terms, geom_wrenches
from ..checks import all_nv, check_state, first_nonfinite, nq_nv
from .geom_detect import float_size, int_size
from .geom_rows import capacity
from ..algorithms.rnea_derivatives import rnea_derivatives
from .time_step import (DIVERGED as TS_DIVERGED, TOO_MANY as TS_TOO_MANY, clamp_torque, buffers,
                        contact_capacity, geom_offset, sizes, time_step_inlined)

CODE = 1_000_000
OK = 0
SINGULAR = 1  # M + dt D not positive definite (detail: the dof), as time_step
DIVERGED = 2  # the next state or a Jacobian is not finite (detail: 0 state, 1 Jacobians)
NOT_EULER = 4  # the scene integrates with RK4: not differentiated
DEGENERATE = 5  # the linearized constraint problem is singular (detail: its row)
TOO_MANY = 6  # more geom contacts than the scene takes (detail: how many), as time_step
STALE = 9  # step_derivatives_checked: the scene's options are not those of the prepared copy
CHECKED = 10  # step_derivatives_checked returns these codes + CHECKED (guard.py's are below)
WRONG_CALLEE = 22  # a caller's address and stamp of step_derivatives_checked are not those
#                    of its compiled code for the caller's types (kernels/_pointer_call.py)


@jit
def derivative_size(nv, npair, njoints, nkeys):
    """Floats of the ``dbuf`` that ``step_derivatives`` works in for nv dofs, npair contact
    entries (time_step.contact_capacity), njoints joints and nkeys warm-start keys (the geoms'
    K, geom_rows.capacity): 5 (nv, nv) + 3 (nv,), then constraint_derivatives.py's."""
    return head_size(nv) + constraint_size(nv, npair, njoints, nkeys)


@jit
def step_sizes(nv, sph, hsp, geo, eqc):
    """(floats of fbuf, ints of ibuf, contact entries, warm-start keys) of a step of these
    tables, as Scene._sizes makes them (time_step.sizes plus the geoms' scratch)."""
    npair = contact_capacity(sph, hsp, geo, eqc)
    K = capacity(geo)
    nf, ni = sizes(nv, 1, npair)[2:]
    if geo is not None:
        ng = geo[0].shape[0]
        nf += float_size(ng, K)
        ni += int_size(ng, K, geo[3][1])
    return nf, ni, npair, K


@jit
def head_size(nv):
    """Floats at the head of dbuf: derivative_buffers' views, 5 (nv, nv) + 3 (nv,), then
    3 nv for ``state_copies``."""
    return 5 * nv * nv + 6 * nv


@jit(inline="always")  # returns views: compiled into its caller (_jit.py)
def state_copies(dbuf, q, v):
    """C-contiguous copies of q and v after derivative_buffers' views (2 nv floats hold q:
    no joint has more than two coordinates per dof, tests/test_joints.py). time_step
    takes them: q and v of any layout would compile time_step's whole tree a second time
    for the derivatives (~60 s cold), beside the C-contiguous one of Scene.step and the
    rollouts."""
    nv = v.shape[0]
    o = 5 * nv * nv + 3 * nv
    qs = dbuf[o:o + q.shape[0]]
    vs = dbuf[o + 2 * nv:o + 3 * nv]
    for k in range(q.shape[0]):
        qs[k] = q[k]
    for k in range(nv):
        vs[k] = v[k]
    return qs, vs


@jit(inline="always")  # returns views: compiled into its caller (_jit.py)
def derivative_buffers(dbuf, nv):
    """Views of dbuf: da/dq, da/dv, (M + dt D)^-1, a configuration Jacobian, M, tau_c, dt v+,
    and a."""
    n2 = nv * nv
    Aq = dbuf[:n2].reshape((nv, nv))
    Av = dbuf[n2:2 * n2].reshape((nv, nv))
    Minv = dbuf[2 * n2:3 * n2].reshape((nv, nv))
    G = dbuf[3 * n2:4 * n2].reshape((nv, nv))
    M2 = dbuf[4 * n2:5 * n2].reshape((nv, nv))
    o = 5 * n2
    return Aq, Av, Minv, G, M2, dbuf[o:o + nv], dbuf[o + nv:o + 2 * nv], dbuf[o + 2 * nv:o + 3 * nv]


@jit
def step_derivatives(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws, fbuf, ibuf,
                     dbuf, qn, vn, A, B):
    """One step from (q, v) under the commanded torque tau (not modified) and fext, as
    time_step with a cold start (zero warm start: Scene.step after Scene.reset): qn, vn the
    next state (time_step's bits), A (2nv, 2nv) and B (2nv, nv) its Jacobians, with the active
    set of the constraint rows held fixed (module docstring). geo, eqc: time_step's (None:
    none; numba then compiles none of their code). fbuf, ibuf as time_step's (step_sizes),
    dbuf (derivative_size(nv, npair, njoints, nkeys),). Returns OK, or code * 1_000_000 +
    detail: SINGULAR, DIVERGED, DEGENERATE, NOT_EULER, TOO_MANY."""
    return step_derivatives_inlined(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws,
                                    fbuf, ibuf, dbuf, qn, vn, A, B)


# The body, compiled into fastdyn's own entry points (the checked single call, the batch rows)
# for the reason time_step.time_step_inlined is: one compile of the tree per entry point, not
# one more per level (11 s cold for this level and _constrained_rows', measured).
@jit(inline="always")
def step_derivatives_inlined(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws, fbuf,
                             ibuf, dbuf, qn, vn, A, B):
    """step_derivatives' body (its docstring); for fastdyn's entry points only."""
    nv = v.shape[0]
    dt = opt[O_DT]
    if opt[O_INTEGRATOR] == RK4:
        return NOT_EULER * CODE
    Aq, Av, Minv, G, M2, tc, u, a = derivative_buffers(dbuf, nv)
    for k in range(nv):
        tc[k] = tau[k]
    clamp_torque(jnt, prm, tc)
    if opt[O_FREE] > 0.0:
        code = _free_rows(jnt, prm, dof, q, v, tc, tau, fext, ws, fbuf, dt, Aq, Av, Minv, a, qn,
                          vn, A, B)
    else:
        code = _constrained_rows(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tc, tau, fext,
                                 ws, fbuf, ibuf, dbuf, dt, Aq, Av, Minv, M2, a, qn, vn, A, B)
    if code != OK:
        return code
    return finish(jnt, q, vn, dt, u, G, A, B)


@jit
def finish(jnt, q, vn, dt, u, G, A, B):
    """The configuration rows from the velocity rows (u, G scratch), and OK or DIVERGED * CODE
    + 1 when a velocity row is not finite."""
    nv = vn.shape[0]
    frozen_of(jnt, vn, dt, u)
    for k in range(nv):
        u[k] *= dt
    configuration_rows(jnt, q, u, dt, G, A, B)
    # the configuration rows are the velocity rows through the finite Gu (vn is finite);
    # x - x is 0 for a finite x, NaN else: a count without a branch (an integer sum, which
    # the compiler may reorder and vectorize, where a floating-point sum is one long chain)
    bad = 0
    for r in range(nv, 2 * nv):
        for k in range(2 * nv):
            bad += A[r, k] - A[r, k] != 0.0
        for k in range(nv):
            bad += B[r, k] - B[r, k] != 0.0
    return OK if bad == 0 else DIVERGED * CODE + 1


@jit
def _free_rows(jnt, prm, dof, q, v, tc, tau, fext, ws, fbuf, dt, Aq, Av, Minv, a, qn, vn, A,
               B):
    """The step and the velocity rows of A and B where the scene has no constraint row
    (O_FREE): ABA's derivatives. M, Uf, D are scratch here, at the head of fbuf, built
    without time_step.buffers' views of the constraint arrays (a reshape costs ~30 ns, and a
    contact-free step at nv = 6 is ~2 us)."""
    nv = v.shape[0]
    n2 = nv * nv
    M = fbuf[:n2].reshape((nv, nv))
    Uf = fbuf[n2:2 * n2].reshape((nv, nv))
    D = fbuf[2 * n2:2 * n2 + nv]
    bad = aba_derivatives(jnt, prm, dof, q, v, tc, fext, ws, a, Aq, Av, M, Uf, D, Minv)
    if bad >= 0:
        return SINGULAR * CODE + jnt[bad].idx_v
    if not advance(jnt, q, v, a, dt, qn, vn):
        return DIVERGED * CODE
    d_frozen_velocity(jnt, v, Av)
    velocity_rows(dt, tau, tc, Aq, Av, Minv, A, B)
    return OK


@jit
def advance(jnt, q, v, a, dt, qn, vn):
    """The Euler step from the acceleration a: vn = v + dt a, qn = q (+) dt vn (frozen.euler);
    True when both are finite."""
    euler(jnt, q, v, a, dt, qn, vn)
    return first_nonfinite(vn) < 0 and first_nonfinite(qn) < 0


@jit(inline="always")  # into step_derivatives_inlined: a level less to compile (above)
def _constrained_rows(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tc, tau, fext, ws, fbuf,
                      ibuf, dbuf, dt, Aq, Av, Minv, M2, a, qn, vn, A, B):
    """The step (time_step, cold) and the velocity rows of A and B where constraint rows may
    arise: the rows' terms on their active set (module docstring)."""
    nv = v.shape[0]
    nsp = sph.shape[0] * hsp.shape[0]
    npair = contact_capacity(sph, hsp, geo, eqc)
    nj = jnt.shape[0]
    F, warm, cf, stats, kind, kb, er, slide, H, X, Phi, DQ, DV, pl, za, T, Psi, E = \
        constraint_buffers(dbuf[head_size(nv):], nv, npair, nj, capacity(geo))
    M, Uf, D, h, vf, zero, rhs, J, Z, Gd, c, lam, lo, hi, mu, point, slot, pair = \
        buffers(fbuf, ibuf, nv, npair)
    for s in range(warm.shape[0]):
        warm[s] = 0.0
    # the step itself: its next state to the bit (cf: the sphere pairs' rows only)
    qs, vs = state_copies(dbuf, q, v)
    code = time_step_inlined(jnt, prm, dof, sph, hsp, geo, eqc, opt, qs, vs, tc, fext, ws, fbuf,
                             ibuf, warm, qn, vn, cf[:nsp], stats)
    if code == TS_DIVERGED:
        return DIVERGED * CODE
    if code // CODE == TS_TOO_MANY:
        return TOO_MANY * CODE + code % CODE
    if code != 0:
        return code  # SINGULAR * CODE + dof, time_step's own encoding
    m = int(stats[0])
    nc = 0
    forces = fext
    eq0, eq1 = slot_range(eqc, 3 * nsp)  # the constraints' warm-start slots
    if m > 0:
        nc = count_contacts(slot, m, 3 * npair, eq0, eq1)
        classify(opt, nc, m, Gd, c, lam, lo, hi, mu, kind, slide)
        targets(jnt, prm, dof, sph, hsp, opt, q, v, ws, nc, m, J, vf, pair, slot, 3 * npair,
                kind, kb, er)
        if geo is not None:
            geom_targets(geo, opt, fbuf[geom_offset(nv, npair):], nc, pair, nsp,
                         npair - capacity(geo), J.shape[0], kind, kb, er)
        if nc > 0 or eq1 > eq0:
            contact_wrenches(sph, hsp, fext, ws, nc, lam, pair, point, dt, F)
            if geo is not None:
                geom_wrenches(geo, fbuf[geom_offset(nv, npair):], ws, nc, lam, pair, nsp,
                              npair - capacity(geo), J.shape[0], dt, F)
            if eqc is not None:
                wrenches(jnt, eqc, ws, nc, m, slot, eq0, lam, dt, F)
            forces = F
    u = derivative_buffers(dbuf, nv)[6]
    frozen_of(jnt, vn, dt, u)  # v+ in the start axes, which the rows hold
    for k in range(nv):  # the acceleration of the step, constraints included
        a[k] = (u[k] - v[k]) / dt
    frozen_velocity(jnt, v, -1.0, a)
    rnea_derivatives(jnt, prm, q, v, a, forces, ws, tc[:0], Aq, Av, M2)
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        for d in range(jr.nv):
            Av[jr.idx_v + d, jr.idx_v + d] += prm[i, P_DAMPING + d]
    if m > 0:
        for r in range(m):
            for k in range(nv):
                Phi[r, k] = 0.0
        limit_terms(nc, m, J, kind, kb, Phi)
        if nc > 0:
            compliance_terms(sph, hsp, opt, ws, nc, lam, pair, kind, J, Phi)
            rest = False
            for r in range(m):
                rest = rest or er[r] != 0.0
            if rest:
                contact_terms(jnt, prm, sph, hsp, q, v, ws, nc, lam, pair, kind, er, True, dt,
                              za, pl, DQ, DV, Aq, Phi)
            contact_terms(jnt, prm, sph, hsp, q, u, ws, nc, lam, pair, kind, er, False, dt,
                          za, pl, DQ, DV, Aq, Phi)
        if geo is not None and nc > 0:
            gf = fbuf[geom_offset(nv, npair):]
            g0 = npair - capacity(geo)  # the geom contacts' first entry
            geom_compliance(geo, opt, gf, nc, lam, pair, nsp, g0, kind, J, Phi)
            soft = False
            for r in range(3 * nc):
                soft = soft or er[r] != 0.0
            if soft:
                geom_terms(jnt, prm, geo, q, v, ws, gf, nc, lam, pair, nsp, g0, kind, er, True,
                           dt, za, pl, E, Aq, Phi)
            geom_terms(jnt, prm, geo, q, u, ws, gf, nc, lam, pair, nsp, g0, kind, er, False, dt,
                       za, pl, E, Aq, Phi)
        if eqc is not None:
            for r in range(m):
                for k in range(nv):
                    Psi[r, k] = 0.0
            equality_terms(jnt, prm, eqc, opt, q, v, u, ws, nc, m, slot, eq0, lam, J, za, pl, E,
                           er, Aq, Phi, Psi)
    solve_pair(dof, Uf, D, Aq, Av)
    for r in range(nv):
        for k in range(nv):
            Aq[r, k] = -Aq[r, k]
            Av[r, k] = -Av[r, k]
    d_frozen_velocity(jnt, v, Av)
    inverse_sparse(dof, Uf, D, Minv)
    velocity_rows(dt, tau, tc, Aq, Av, Minv, A, B)
    if m > 0:
        if eqc is None:
            bad = constrained_rows(dof, Uf, D, nc, m, J, Gd, kind, er, slide, mu, Phi, None, H,
                                   X, T, A, B)
        else:
            bad = constrained_rows(dof, Uf, D, nc, m, J, Gd, kind, er, slide, mu, Phi, Psi, H,
                                   X, T, A, B)
        if bad >= 0:
            return DEGENERATE * CODE + bad
    return OK


@jit
def velocity_rows(dt, tau, tc, Aq, Av, Minv, A, B):
    """The velocity rows of A and B from da/dq, da/dv and (M + dt D)^-1 (clamped torques:
    zero columns)."""
    nv = Aq.shape[0]
    for r in range(nv):
        for k in range(nv):
            A[nv + r, k] = dt * Aq[r, k]
            A[nv + r, nv + k] = dt * Av[r, k] + (1.0 if r == k else 0.0)
            B[nv + r, k] = dt * Minv[r, k] if tc[k] == tau[k] else 0.0


@jit
def flat(jnt):
    """True when d integrate(q, u)/dq and /du are the identity at every q and u: every joint
    is a vector space or SO(2) (a fixed base of revolute, prismatic and continuous joints)."""
    for i in range(1, jnt.shape[0]):
        g = LIE_GROUP[jnt[i].type]
        if g != VECTOR and g != SO2:
            return False
    return True


@jit
def flat_rows(dt, tau, tc, Aq, Av, Minv, A, B):
    """velocity_rows and then finish for a ``flat`` model in one pass (the same bits):
    A = [I 0; 0 I] + [dt; 1] (dt Aq, dt Av), B = [dt; 1] dt Minv P. True when they are
    finite."""
    nv = Aq.shape[0]
    bad = 0  # as finish's count
    for r in range(nv):
        for k in range(nv):
            x = dt * Aq[r, k]
            y = dt * Av[r, k] + (1.0 if r == k else 0.0)
            b = dt * Minv[r, k] if tc[k] == tau[k] else 0.0
            A[nv + r, k] = x
            A[nv + r, nv + k] = y
            B[nv + r, k] = b
            A[r, k] = dt * x + (1.0 if r == k else 0.0)
            A[r, nv + k] = dt * y
            B[r, k] = dt * b
            bad += (x - x != 0.0) + (y - y != 0.0) + (b - b != 0.0)
    return bad == 0


@jit
def configuration_rows(jnt, q, u, dt, G, A, B):
    """The configuration rows of A and B from their velocity rows and the configuration
    Jacobians at (q, u = dt v+ in the start axes), block diagonal, joint by joint: a
    vector-space or SO(2) joint's blocks are the identity (rows = [I 0] + dt (velocity
    rows)); another's are written into its diagonal block of G (scratch) and multiplied,
    whole rows at a time; a free-flyer's or planar joint's velocity rows, those of u until
    then, are then turned into those of v+ (frozen.py's d v+/d u)."""
    nv = G.shape[0]
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        iv = jr.idx_v
        nvi = jr.nv
        g = LIE_GROUP[jr.type]
        if g == VECTOR or g == SO2:
            for r in range(iv, iv + nvi):
                for k in range(2 * nv):
                    A[r, k] = dt * A[nv + r, k]
                A[r, r] += 1.0
                for k in range(nv):
                    B[r, k] = dt * B[nv + r, k]
            continue
        d_advance_block(g, nvi, u, 0, iv, G)
        for r in range(iv, iv + nvi):
            for k in range(2 * nv):
                A[r, k] = 0.0
            for k in range(nv):
                B[r, k] = 0.0
            for s in range(iv, iv + nvi):
                A[r, s] = G[r, s]
        d_advance_block(g, nvi, u, 1, iv, G)
        for r in range(iv, iv + nvi):
            for s in range(iv, iv + nvi):  # whole rows at a time: contiguous inner loops
                c = dt * G[r, s]
                for k in range(2 * nv):
                    A[r, k] += c * A[nv + s, k]
                for k in range(nv):
                    B[r, k] += c * B[nv + s, k]
        if g == SE2 or g == SE3:
            d_advance_block(g, nvi, u, 2, iv, G)
            _turn(G, iv, nvi, A, nv)
            _turn(G, iv, nvi, B, nv)


@jit
def _turn(G, iv, nvi, X, nv):
    """X's velocity rows iv..iv + nvi (at nv + iv..) = G's diagonal block times them; the
    block's angular rows are the identity's (frozen.py's d v+/d u): only the linear ones
    change."""
    nl = nvi - 3 if nvi == 6 else 2
    for k in range(X.shape[1]):
        y0 = 0.0
        y1 = 0.0
        y2 = 0.0
        for s in range(iv, iv + nvi):
            x = X[nv + s, k]
            y0 += G[iv, s] * x
            y1 += G[iv + 1, s] * x
            if nl == 3:
                y2 += G[iv + 2, s] * x
        X[nv + iv, k] = y0
        X[nv + iv + 1, k] = y1
        if nl == 3:
            X[nv + iv + 2, k] = y2


@jit
def scratch_size(nq, nv, nf, npair, nkeys, njoints):
    """Floats of step_derivatives_checked's ``scratch``: the prepared options, fbuf (nf), dbuf
    (derivative_size), qn and vn end to end."""
    return NO + nf + derivative_size(nv, npair, njoints, nkeys) + nq + nv


@jit
def qn_offset(jnt, sph, hsp, geo, eqc):
    """Where qn starts in step_derivatives_checked's ``scratch`` (vn follows it)."""
    nv = nq_nv(jnt)[1]
    nf, ni, npair, K = step_sizes(nv, sph, hsp, geo, eqc)
    return NO + nf + derivative_size(nv, npair, jnt.shape[0], K)


@jit(inline="always")
def checked_views(jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v, tau, fext, ws, ibuf, scratch, A,
                  B, tol):
    """step_derivatives_checked's checks and its views of ``scratch``: (code, opt, fbuf, dbuf,
    qn, vn), code 0 when the kernel may run (inlined: it returns views)."""
    nq, nv = nq_nv(jnt)
    nf, ni, npair, K = step_sizes(nv, sph, hsp, geo, eqc)
    nd = derivative_size(nv, npair, jnt.shape[0], K)
    opt = scratch[:NO]
    fbuf = scratch[NO:NO + nf]
    dbuf = scratch[NO + nf:NO + nf + nd]
    qn = scratch[NO + nf + nd:NO + nf + nd + nq]
    vn = scratch[NO + nf + nd + nq:]
    code = 0
    if sopt.shape[0] != NO or scratch.shape[0] != scratch_size(nq, nv, nf, npair, K,
                                                               jnt.shape[0]):
        code = STALE * CODE
    for k in range(NO):
        if code == 0 and k != O_FREE and not sopt[k] == scratch[k]:
            code = STALE * CODE
    if code == 0:
        code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    if code == 0 and not (all_nv(jnt, v, tau, tau) and ibuf.shape[0] == ni
                          and A.shape[0] == 2 * nv and A.shape[1] == 2 * nv
                          and B.shape[0] == 2 * nv and B.shape[1] == nv and dof.shape[0] == nv):
        code = 8 * CODE
    return code, opt, fbuf, dbuf, qn, vn


@jit
def step_derivatives_checked(jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v, tau, fext, ws, ibuf,
                             scratch, A, B, tol):
    """The object API's entry point: guard.py's input checks and codes (finiteness, unit
    quaternions, sizes), then the kernel, whose own codes come back shifted by CHECKED.
    ``scratch`` holds the caller's prepared copy of the scene's options ``sopt`` (O_FREE set),
    then fbuf, dbuf, qn and vn (scratch_size): one array for five, as unboxing an array
    argument costs ~40 ns at the entry point. STALE * CODE if the options differ from the
    scene's elsewhere than O_FREE (the scene was edited since: the caller prepares again), a
    comparison that costs nanoseconds here and a fraction of the call in Python."""
    code, opt, fbuf, dbuf, qn, vn = checked_views(jnt, prm, dof, sph, hsp, geo, eqc, sopt, q, v,
                                                  tau, fext, ws, ibuf, scratch, A, B, tol)
    if code == 0:
        code = step_derivatives_inlined(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext,
                                        ws, fbuf, ibuf, dbuf, qn, vn, A, B)
        if code != 0:
            code += CHECKED * CODE
    return code
