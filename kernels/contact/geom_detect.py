"""The geom contacts of a step (geom_rows.py): the per-thread scratch in the step's buffers,
and the broad and narrow phases on the bodies' placements.

Each step: the geoms' world placements from CRBA's joint placements (ws[:, OM:OM + 12]), their
boxes, sweep-and-prune with the parent/exclude/contype filter (broadphase.py), the pairs sorted
(so the contact order, hence the solver's sweep order, never depends on a thread's history),
then each pair's manifold (narrow.py: point p halfway between the witness points, unit normal n
from geom 1 to geom 2, signed distance d), the first K kept and all of them counted.

The per-thread scratch sits in the step's own buffers: floats (``float_size``) in fbuf after
the contact solver's workspace (time_step.geom_offset), ints (``int_size``) at the end of
ibuf, its last INFO entries [order made, contacts found, contacts kept, box pairs checked].
"""

from .._jit import jit
from ..collision.broadphase import geom_aabbs, sweep_and_prune
from ..collision.epa import WF_SIZE, WI_SIZE
from ..collision.geoms import CW, MAX_PAIR, geom_placements
from ..collision.narrow import collide_geoms
from ..layout import NH, OM

INFO = 4  # ints at the end of ibuf: [order made, contacts found, contacts kept, box checks]
FOUND = 1  # INFO entry: contacts the step's narrow phase found (may exceed K)


@jit
def float_size(ng, K):
    """Floats of the per-thread scratch: placements, boxes, contacts, EPA, a mixed softness
    row, each contact's frame (n, t1, t2) and world force."""
    if ng == 0:
        return 0
    return 18 * ng + (K + MAX_PAIR) * CW + WF_SIZE + NH + 12 * K


@jit
def int_size(ng, K, P):
    """Ints of the per-thread scratch: the sweep order, pairs, contact geoms, EPA, keys,
    slots, rows, slot marks, INFO."""
    if ng == 0:
        return 0
    return ng + 2 * P + 2 * K + WI_SIZE + 4 * K + INFO


@jit(inline="always")  # returns views: compiled into its caller
def float_views(gf, ng, K):
    o = 0
    xpos = gf[o:o + 3 * ng].reshape((ng, 3))
    o += 3 * ng
    xmat = gf[o:o + 9 * ng].reshape((ng, 3, 3))
    o += 9 * ng
    box = gf[o:o + 6 * ng].reshape((ng, 6))
    o += 6 * ng
    con = gf[o:o + (K + MAX_PAIR) * CW].reshape((K + MAX_PAIR, CW))
    o += (K + MAX_PAIR) * CW
    wf = gf[o:o + WF_SIZE]
    o += WF_SIZE
    hrow = gf[o:o + NH]
    o += NH
    frame = gf[o:o + 9 * K].reshape((K, 9))
    o += 9 * K
    force = gf[o:o + 3 * K].reshape((K, 3))
    return xpos, xmat, box, con, wf, hrow, frame, force


@jit(inline="always")  # returns views: compiled into its caller
def int_views(gi, ng, K, P):
    o = 0
    order = gi[o:o + ng]
    o += ng
    pairs = gi[o:o + 2 * P].reshape((P, 2))
    o += 2 * P
    cg = gi[o:o + 2 * K].reshape((K, 2))
    o += 2 * K
    wi = gi[o:o + WI_SIZE]
    o += WI_SIZE
    key = gi[o:o + K]
    cslot = gi[o + K:o + 2 * K]
    crow = gi[o + 2 * K:o + 3 * K]
    taken = gi[o + 3 * K:o + 4 * K]
    info = gi[gi.shape[0] - INFO:]
    return order, pairs, cg, wi, key, cslot, crow, taken, info


@jit
def _sort_pairs(pairs, n):
    """Insertion sort of pairs[:n] by (g1, g2): the contact order of a step is then the
    same whatever order the sweep kept from earlier steps."""
    for i in range(1, n):
        a, b = pairs[i, 0], pairs[i, 1]
        j = i - 1
        while j >= 0 and (pairs[j, 0] > a or (pairs[j, 0] == a and pairs[j, 1] > b)):
            pairs[j + 1, 0], pairs[j + 1, 1] = pairs[j, 0], pairs[j, 1]
            j -= 1
        pairs[j + 1, 0], pairs[j + 1, 1] = a, b


@jit
def detect(geo, ws, xpos, xmat, box, con, wf, order, pairs, cg, wi, key, info):
    """The step's contacts into con[:K], their geoms into cg and keys into key; returns how
    many the narrow phase found (all of them counted, the first K kept)."""
    geom, gprm, verts, gaux, binv = geo
    ng = geom.shape[0]
    K, nb, ne = gaux[0], gaux[3], gaux[2]
    parent = gaux[4:4 + nb]
    exclude = gaux[4 + nb:4 + nb + 2 * ne].reshape((ne, 2))
    geom_placements(geom, gprm, ws[:, OM:OM + 12], xpos, xmat)
    geom_aabbs(geom, gprm, xpos, xmat, box)
    if info[0] == 0:  # the sweep's order: any permutation, kept from step to step
        for g in range(ng):
            order[g] = g
        info[0] = 1
    npairs = min(sweep_and_prune(geom, box, parent, exclude, 0, order, pairs, info[3:4]),
                 pairs.shape[0])  # (P is every pair of geoms: never more)
    _sort_pairs(pairs, npairs)
    total = 0
    for p in range(npairs):
        g1, g2 = pairs[p, 0], pairs[p, 1]
        k = min(total, K)  # past K: counted, written over the last rows, not kept
        n = collide_geoms(geom, gprm, verts, xpos, xmat, g1, g2, con, k, wf, wi)
        for j in range(n):
            if k + j < K:
                cg[k + j, 0], cg[k + j, 1] = g1, g2
                key[k + j] = (g1 * ng + g2) * MAX_PAIR + j
        total += n
    return total
