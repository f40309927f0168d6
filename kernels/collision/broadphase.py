"""The broad phase: world bounding boxes, sweep-and-prune, and the pair filter.

Sweep-and-prune (Baraff, "Dynamic simulation of non-penetrating rigid bodies", 1992, sec. 6;
Cohen et al., "I-COLLIDE", 1995): the geoms, sorted by the lower end of their boxes along one
axis, are swept once; a geom is checked only against those whose interval along that axis
starts before its own ends, so the work is the number of pairs that overlap along the axis,
not all pairs. The order is kept between calls and re-sorted by insertion, which is linear
when the order barely changed since the last step (Cohen et al.'s coherence).

Filter (MuJoCo documentation, "Computation / Collision detection / Selection"): a pair is
dropped if both geoms are on the same body (bodies welded by fixed joints are one body in a
fastdyn model), if one body is the other's parent unless the parent is the world (body 0),
if neither contype & conaffinity' nor contype' & conaffinity is nonzero, or if its two bodies
are a row (either order) of the exclude list (MJCF <exclude>, SRDF <disable_collisions>).
"""

from .._jit import jit
from .geoms import G_LBOX, G_MARGIN, G_SIZE, PLANE, geom_aabb


@jit
def geom_aabbs(geom, gprm, xpos, xmat, box):
    """box (ngeom, 6): every geom's world box (min xyz, max xyz), grown by its margin."""
    for g in range(geom.shape[0]):
        geom_aabb(geom[g].type, gprm[g, G_SIZE:G_SIZE + 3], gprm[g, G_LBOX:G_LBOX + 6],
                  xpos[g], xmat[g], gprm[g, G_MARGIN], box, g)


@jit
def excluded(geom, parent, exclude, g1, g2):
    """True if the filter above drops the pair (g1, g2); parent (nbodies,) the parent body of
    each body (-1 for the world), exclude (nexclude, 2) body pairs."""
    a, b = geom[g1], geom[g2]
    if a.body == b.body or (a.type == PLANE and b.type == PLANE):
        return True
    if (parent[b.body] == a.body and a.body != 0) or (parent[a.body] == b.body and b.body != 0):
        return True
    if (a.contype & b.conaffinity) == 0 and (b.contype & a.conaffinity) == 0:
        return True
    for e in range(exclude.shape[0]):
        if (exclude[e, 0] == a.body and exclude[e, 1] == b.body) or \
                (exclude[e, 0] == b.body and exclude[e, 1] == a.body):
            return True
    return False


@jit
def sweep_and_prune(geom, box, parent, exclude, axis, order, pairs, checks):
    """Pairs (g1 < g2) whose boxes overlap and that the filter keeps, into pairs (maxpairs,
    2); returns their number (if above maxpairs, only the first maxpairs were written: call
    again with more room). order (ngeom,): a permutation of the geoms, sorted here by the
    lower end along axis and kept for the next call. checks[0] = the number of box pairs
    compared (those that overlap along axis)."""
    n = geom.shape[0]
    for i in range(1, n):  # insertion sort: linear for an order that barely changed
        g, key, j = order[i], box[order[i], axis], i - 1
        while j >= 0 and box[order[j], axis] > key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = g
    u, w = (axis + 1) % 3, (axis + 2) % 3
    m, nc = 0, 0
    for i in range(n):
        g = order[i]
        hi = box[g, 3 + axis]
        for j in range(i + 1, n):
            h = order[j]
            if box[h, axis] > hi:
                break
            nc += 1
            if (box[g, u] <= box[h, 3 + u] and box[h, u] <= box[g, 3 + u]
                    and box[g, w] <= box[h, 3 + w] and box[h, w] <= box[g, 3 + w]
                    and not excluded(geom, parent, exclude, g, h)):
                if m < pairs.shape[0]:
                    pairs[m, 0], pairs[m, 1] = min(g, h), max(g, h)
                m += 1
    checks[0] = nc
    return m
