"""Contact rows between collision geoms (kernels/collision), warm-start slots and results.

A scene's geoms reach the step as one tuple ``geo = (geom, gprm, verts, gaux, binv)``: the geom
table of kernels/collision/geoms.py (records, parameters, convex vertices), ``gaux`` int64
[K, P, ne, nb, parent (nb), exclude (2 ne)] (K the most contacts a step takes, P the room for
broad-phase pairs, nb bodies (joints) with their parents, ne excluded body pairs) and ``binv``
(nb,) each body's translational inverse weight (MuJoCo's body_invweight0, soft contacts only).
A scene without geoms passes empty tables of the same types (K = 0): its step is unchanged.

Each step's contacts come from geom_detect.py (broad and narrow phase on the bodies'
placements: point p halfway between the witness points, unit normal n from geom 1 to geom 2,
signed distance d). A contact of bodies b1, b2 gives three rows, as a
sphere's on a half-space (constraint_rows.py) with both bodies' point Jacobians:
    n^T (J_p(b2) - J_p(b1)),  t1^T (...),  t2^T (...)
(J_p the world Jacobian applied at p: Traversaro & Saccon 2019, sec. 8; a dof both chains
share cancels), (t1, t2) the shortest-arc rotation of (x, y) onto the normal turned into the
upper hemisphere (continuous in n except across the horizontal). Rigid pairs take the
sphere's targets: the row enters when d + dt min(u_n, 0) < margin (the pair's larger geom
margin, at least the scene's), u_n >= -d / dt when apart (speculative), -erp d / dt in
penetration; geom contacts have no restitution. Soft pairs (either geom with solref/solimp;
both soft: MuJoCo's mix with equal solmix, the mean of the two; one soft: its own) enter when
d < margin and take MuJoCo's targets at r = d - margin (softness.py) with R scaled by the sum
of the two bodies' inverse weights, their friction rows R / impratio. Friction: the larger of
the two sliding frictions (MuJoCo's rule).

Warm starts by slot: contact k of the pair (g1, g2) has the key (g1 ngeom + g2) MAX_PAIR + k;
the warm-start array's last K entries remember each slot's key (plus one) from the last step,
so a contact found again takes its slot (and its percussions) back, a new one a free slot
started cold. A step that finds more than K contacts takes none of them: time_step returns
TOO_MANY (the caller says how many, and that the scene's max_contacts must grow).

The per-thread scratch (in the step's own buffers): geom_detect.py.
"""

import numpy as np

from .._jit import jit
from ..collision.geoms import (C_DIST, C_NRM, C_POS, GEOM_DTYPE, G_FRICTION, G_MARGIN, G_SOLIMP,
                               G_SOLREF, GP)
from ..layout import H_SOLIMP, H_SOLREF, O_DT, O_ERP, O_IMPRATIO, OJ, OM
from .delassus import pair_code
from .geom_detect import FOUND, detect, float_views, int_views
from .softness import is_soft, soft_targets

# A scene without geoms passes ``geo = None`` (NO_GEO): numba then types it as none and drops
# every ``geo is not None`` branch before compiling, so a step, a rollout loop and the step
# derivatives without geoms never compile the collision kernels (their broad and narrow phases
# would add about 40 s to the first contact rollout's compile).
NO_GEO = None


@jit
def capacity(geo):
    """K: the most geom contacts a step takes (0: no geoms)."""
    if geo is None:
        return 0
    return geo[3][0]


@jit
def _slots(n, K, key, cslot, taken, warm, nsp):
    """Each contact's slot: the one its key held in the last step (the last K entries of
    warm), else a free one, whose old percussions are cleared (a cold start)."""
    kb = warm.shape[0] - K
    for j in range(K):
        taken[j] = 0
    for i in range(n):
        cslot[i] = -1
        for j in range(K):
            if taken[j] == 0 and warm[kb + j] == key[i] + 1.0:
                cslot[i], taken[j] = j, 1
                break
    free = 0
    for i in range(n):
        if cslot[i] < 0:
            while taken[free] != 0:
                free += 1
            cslot[i], taken[free] = free, 1
            for k in range(3):
                warm[3 * (nsp + free) + k] = 0.0


@jit
def tangents(n0, n1, n2, fr):
    """fr = [n, t1, t2]: (t1, t2) the shortest-arc rotation of the x and y axes onto the
    normal turned into the upper hemisphere (a = +-n, a_z >= 0), t2 negated with it, so that
    (t1, t2, n) is right-handed and continuous in n away from the horizontal."""
    s = 1.0 if n2 >= 0.0 else -1.0
    a0, a1, a2 = s * n0, s * n1, s * n2
    k = 1.0 / (1.0 + a2)
    fr[0], fr[1], fr[2] = n0, n1, n2
    fr[3], fr[4], fr[5] = 1.0 - a0 * a0 * k, -a0 * a1 * k, -a0
    fr[6], fr[7], fr[8] = s * (-a0 * a1 * k), s * (1.0 - a1 * a1 * k), s * (-a1)


@jit
def _chain(jnt, ws, b, sign, p0, p1, p2, fr, v, vf, J, m):
    """Adds sign times body b's point-Jacobian rows at p (along fr's n, t1, t2) to rows m..m+2
    of J; returns sign times the point's velocity under v and under vf (world axes)."""
    u0 = u1 = u2 = f0 = f1 = f2 = 0.0
    if b <= 0:
        return u0, u1, u2, f0, f1, f2
    # CRBA left the world Jacobian columns about joint 1's origin (world_origin.py)
    r0, r1, r2 = p0 - ws[1, OM + 9], p1 - ws[1, OM + 10], p2 - ws[1, OM + 11]
    i = b
    while i > 0:
        wi = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            a0 = sign * (wi[o] + wi[o + 4] * r2 - wi[o + 5] * r1)
            a1 = sign * (wi[o + 1] + wi[o + 5] * r0 - wi[o + 3] * r2)
            a2 = sign * (wi[o + 2] + wi[o + 3] * r1 - wi[o + 4] * r0)
            J[m, iv + d] += fr[0] * a0 + fr[1] * a1 + fr[2] * a2
            J[m + 1, iv + d] += fr[3] * a0 + fr[4] * a1 + fr[5] * a2
            J[m + 2, iv + d] += fr[6] * a0 + fr[7] * a1 + fr[8] * a2
            x, y = v[iv + d], vf[iv + d]
            u0, u1, u2 = u0 + a0 * x, u1 + a1 * x, u2 + a2 * x
            f0, f1, f2 = f0 + a0 * y, f1 + a1 * y, f2 + a2 * y
        i = jnt[i].parent
    return u0, u1, u2, f0, f1, f2


@jit
def mix(gprm, g1, g2, h):
    """h[H_SOLREF:H_SOLIMP + 5] = the pair's softness (module docstring); True if soft."""
    s1, s2 = gprm[g1, G_SOLIMP + 1] > 0.0, gprm[g2, G_SOLIMP + 1] > 0.0
    w1 = 0.5 if s1 and s2 else (1.0 if s1 else 0.0)
    for k in range(7):
        h[H_SOLREF + k] = w1 * gprm[g1, G_SOLREF + k] + (1.0 - w1) * gprm[g2, G_SOLREF + k]
    if s1 and s2 and (gprm[g1, G_SOLREF] <= 0.0 or gprm[g2, G_SOLREF] <= 0.0):
        for k in range(2):  # a direct solref in either: MuJoCo takes the smaller
            h[H_SOLREF + k] = min(gprm[g1, G_SOLREF + k], gprm[g2, G_SOLREF + k])
    return is_soft(h)


@jit
def _target(d, dt, erp):
    """The rigid normal target of constraint_rows.py: speculative apart, Baumgarte inside."""
    return -d / dt if d > 0.0 else -erp * d / dt


@jit
def geom_rows(jnt, geo, opt, ws, v, vf, J, c, mu, slot, pair, point, soft, nc, gf, warm):
    """The geom contacts' rows after the nc sphere contacts' (``constraint_rows.contact_rows``'s
    arrays); their pair entries are nsp + i for the step's contact i (nsp: the sphere pairs).
    gf: the float scratch (module docstring). Returns the new contact count, or minus the
    contacts found when they are more than K."""
    geom, gprm, verts, gaux, binv = geo
    ng = geom.shape[0]
    K, P = gaux[0], gaux[1]
    rows, nv = J.shape[0], J.shape[1]
    npa = mu.shape[0]
    nsp = npa - K
    xpos, xmat, box, con, wf, hrow, frame, force = float_views(gf, ng, K)
    order, pairs, cg, wi, key, cslot, crow, taken, info = int_views(pair[rows:], ng, K, P)
    found = detect(geo, ws, xpos, xmat, box, con, wf, order, pairs, cg, wi, key, info)
    info[FOUND] = found
    if found > K:
        info[2] = 0
        return -found
    info[2] = found
    _slots(found, K, key, cslot, taken, warm, nsp)
    dt, erp = opt[O_DT], opt[O_ERP]
    for i in range(found):
        crow[i] = -1
        g1, g2 = cg[i, 0], cg[i, 1]
        b1, b2 = geom[g1].body, geom[g2].body
        fr = frame[i]
        tangents(con[i, C_NRM], con[i, C_NRM + 1], con[i, C_NRM + 2], fr)
        p0, p1, p2 = con[i, C_POS], con[i, C_POS + 1], con[i, C_POS + 2]
        d = con[i, C_DIST]
        m = 3 * nc
        for k in range(nv):
            J[m, k] = 0.0
            J[m + 1, k] = 0.0
            J[m + 2, k] = 0.0
        u0, u1, u2, f0, f1, f2 = _chain(jnt, ws, b2, 1.0, p0, p1, p2, fr, v, vf, J, m)
        x0, x1, x2, y0, y1, y2 = _chain(jnt, ws, b1, -1.0, p0, p1, p2, fr, v, vf, J, m)
        u0, u1, u2, f0, f1, f2 = u0 + x0, u1 + x1, u2 + x2, f0 + y0, f1 + y1, f2 + y2
        un = fr[0] * f0 + fr[1] * f1 + fr[2] * f2
        un0 = fr[0] * u0 + fr[1] * u1 + fr[2] * u2
        ft1 = fr[3] * f0 + fr[4] * f1 + fr[5] * f2
        ft2 = fr[6] * f0 + fr[7] * f1 + fr[8] * f2
        margin = max(gprm[g1, G_MARGIN], gprm[g2, G_MARGIN])
        factor, ratio = 0.0, 1.0
        if mix(gprm, g1, g2, hrow):
            if not d < margin:
                continue
            factor, b, keep = soft_targets(hrow, d - margin, un0, dt)
            factor *= binv[b1] + binv[b2]
            ratio = max(opt[O_IMPRATIO], 1e-15)
            c[m + 1] = ft1 - keep * (fr[3] * u0 + fr[4] * u1 + fr[5] * u2)
            c[m + 2] = ft2 - keep * (fr[6] * u0 + fr[7] * u1 + fr[8] * u2)
        else:
            if not d + dt * min(un, 0.0) < margin:
                continue
            b = _target(d, dt, erp)
            c[m + 1] = ft1
            c[m + 2] = ft2
        c[m] = un - b
        mu[nc] = max(gprm[g1, G_FRICTION], gprm[g2, G_FRICTION])
        pair[nc] = nsp + i
        point[nc, 0], point[nc, 1], point[nc, 2] = p0, p1, p2
        s = nsp + cslot[i]
        for k in range(3):
            slot[m + k] = 3 * s + k
            soft[m + k] = factor if k == 0 else factor / ratio
        crow[i] = m
        nc += 1
    return nc


@jit
def geom_codes(jnt, dof, geo, pair, nc, known, tip, rows, npa):
    """tip[r] <- delassus.pair_code of the geom contacts' rows that follow the ``known``
    rows with codes (the sphere contacts'), from the bodies of each contact's two geoms
    (``geom_rows`` writes both bodies' chains); returns how many rows have theirs. Read off
    J (60 dofs a row), the stack of ten boxes' 120 codes took ~5 us of its Delassus matrix.
    rows: J.shape[0] (pair's int scratch starts there); npa: the contact entries (mu's)."""
    geom, gprm, verts, gaux, binv = geo
    K, P = gaux[0], gaux[1]
    nsp = npa - K
    cg = int_views(pair[rows:], geom.shape[0], K, P)[2]
    i = known // 3
    while i < nc and pair[i] >= nsp:
        g = pair[i] - nsp
        code = pair_code(dof, last_dof(jnt, geom[cg[g, 0]].body),
                         last_dof(jnt, geom[cg[g, 1]].body))
        for k in range(3):
            tip[3 * i + k] = code
        i += 1
    return 3 * i


@jit
def last_dof(jnt, b):
    """The last dof of body b's chain (of its joint, or of the nearest ancestor joint with
    dofs; -1: the world): the chain a contact on the body reaches (``delassus.chain_code``,
    ``pair_code``)."""
    while b > 0 and jnt[b].nv == 0:
        b = jnt[b].parent
    return jnt[b].idx_v + jnt[b].nv - 1 if b > 0 else -1


@jit
def geom_finish(geo, gf, pair, lam, warm, dt, nv):
    """After the step's solve (warm already holds this step's percussions by slot): each
    contact's key in the last K entries of warm, and its world force (lam_n n + lam_t1 t1 +
    lam_t2 t2) / dt on geom 2's body (zero for a contact that was not a row)."""
    geom, gprm, verts, gaux, binv = geo
    ng = geom.shape[0]
    K, P = gaux[0], gaux[1]
    rows = warm.shape[0] - K  # (warm: 3 slots per contact entry and per dof, then K keys)
    xpos, xmat, box, con, wf, hrow, frame, force = float_views(gf, ng, K)
    order, pairs, cg, wi, key, cslot, crow, taken, info = int_views(pair[rows:], ng, K, P)
    kb = warm.shape[0] - K
    for i in range(info[2]):
        warm[kb + cslot[i]] = key[i] + 1.0
        r = crow[i]
        fr = frame[i]
        for k in range(3):
            force[i, k] = 0.0 if r < 0 else \
                (lam[r] * fr[k] + lam[r + 1] * fr[3 + k] + lam[r + 2] * fr[6 + k]) / dt
