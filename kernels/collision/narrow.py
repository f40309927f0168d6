"""The narrow phase: one routine per pair of geom types, chosen by their codes.

Analytic routines (plane.py, sphere.py, capsule.py, box.py) for: plane with sphere, capsule,
box, cylinder, ellipsoid and convex; sphere with sphere, capsule, ellipsoid (ellipsoid.py), box
and cylinder; capsule with capsule and box; box with box (MuJoCo's analytic pairs, MuJoCo
documentation "Computation / Collision detection", and the ellipsoid's closed form). Every other
pair goes through GJK/EPA (convex.py). Two planes never collide. Routines are written for t1 <=
t2; a pair given the other way round is swapped and its normals negated, so normals always point
from geom g1 to geom g2.
"""

from .._jit import jit
from .box import box_box
from .capsule import capsule_box, capsule_capsule
from .convex import convex_convex
from .ellipsoid import sphere_ellipsoid
from .geoms import (BOX, CAPSULE, CONVEX, CYLINDER, ELLIPSOID, G_MARGIN, G_SIZE, MAX_PAIR,
                    PLANE, SPHERE)
from .plane import (plane_box, plane_capsule, plane_convex, plane_cylinder, plane_ellipsoid,
                    plane_sphere)
from .sphere import sphere_box, sphere_capsule, sphere_cylinder, sphere_sphere


@jit
def _ordered(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, margin, con, k, wf, wi):
    """Contacts of a pair with t1 <= t2."""
    if t1 == PLANE:
        if t2 == SPHERE:
            return plane_sphere(p1, R1, p2, s2[0], margin, con, k)
        if t2 == CAPSULE:
            return plane_capsule(p1, R1, p2, R2, s2[0], s2[1], margin, con, k)
        if t2 == BOX:
            return plane_box(p1, R1, p2, R2, s2, margin, con, k)
        if t2 == CYLINDER:
            return plane_cylinder(p1, R1, p2, R2, s2[0], s2[1], margin, con, k)
        if t2 == ELLIPSOID:
            return plane_ellipsoid(p1, R1, p2, R2, s2, margin, con, k)
        if t2 == CONVEX:
            return plane_convex(p1, R1, p2, R2, v2, margin, con, k)
        return 0
    if t1 == SPHERE:
        if t2 == SPHERE:
            return sphere_sphere(p1, s1[0], p2, s2[0], margin, con, k)
        if t2 == CAPSULE:
            return sphere_capsule(p1, s1[0], p2, R2, s2[0], s2[1], margin, con, k)
        if t2 == ELLIPSOID:
            return sphere_ellipsoid(p1, s1[0], p2, R2, s2, margin, con, k)
        if t2 == BOX:
            return sphere_box(p1, s1[0], p2, R2, s2, margin, con, k)
        if t2 == CYLINDER:
            return sphere_cylinder(p1, s1[0], p2, R2, s2[0], s2[1], margin, con, k)
    elif t1 == CAPSULE:
        if t2 == CAPSULE:
            return capsule_capsule(p1, R1, s1[0], s1[1], p2, R2, s2[0], s2[1], margin, con, k)
        if t2 == BOX:
            return capsule_box(p1, R1, s1[0], s1[1], p2, R2, s2, margin, con, k)
    elif t1 == BOX and t2 == BOX:
        return box_box(p1, R1, s1, p2, R2, s2, margin, con, k, wf)
    return convex_convex(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, margin, con, k, wf, wi)


@jit
def collide_shapes(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, margin, con, k, wf, wi):
    """Contacts of geom 1 (type t1, size s1 (3,), vertices v1 (n, 3) in its frame, used by
    CONVEX only, world placement p1 (3,), R1 (3, 3)) and geom 2, written to con[k:] (at
    most MAX_PAIR rows; the caller leaves room); returns their number. Normals point from 1
    to 2. wf, wi: float64 and int64 workspaces of epa.WF_SIZE and epa.WI_SIZE entries."""
    if t1 <= t2:
        return _ordered(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, margin, con, k, wf, wi)
    n = _ordered(t2, s2, v2, p2, R2, t1, s1, v1, p1, R1, margin, con, k, wf, wi)
    for i in range(k, k + n):
        for c in range(3, 6):
            con[i, c] = -con[i, c]
    return n


@jit
def collide_geoms(geom, gprm, verts, xpos, xmat, g1, g2, con, k, wf, wi):
    """Contacts of geoms g1 and g2 of a table (geoms.py) at world placements xpos, xmat,
    with margin the larger of the two; written to con[k:], returns their number (-1 if con
    has fewer than MAX_PAIR rows left)."""
    if k + MAX_PAIR > con.shape[0]:
        return -1
    a, b = geom[g1], geom[g2]
    margin = max(gprm[g1, G_MARGIN], gprm[g2, G_MARGIN])
    return collide_shapes(a.type, gprm[g1, G_SIZE:G_SIZE + 3], verts[a.vadr:a.vadr + a.vnum],
                          xpos[g1], xmat[g1], b.type, gprm[g2, G_SIZE:G_SIZE + 3],
                          verts[b.vadr:b.vadr + b.vnum], xpos[g2], xmat[g2], margin, con, k,
                          wf, wi)


@jit
def collide_pairs(geom, gprm, verts, xpos, xmat, pairs, npairs, con, cgeom, wf, wi):
    """Contacts of the first npairs rows of pairs (the broad phase's), into con with each
    contact's two geoms in cgeom (maxcon, 2); returns their number, or -1 if con is full
    (call again with more rows: at most MAX_PAIR per pair)."""
    k = 0
    for p in range(npairs):
        g1, g2 = pairs[p, 0], pairs[p, 1]
        n = collide_geoms(geom, gprm, verts, xpos, xmat, g1, g2, con, k, wf, wi)
        if n < 0:
            return -1
        for i in range(k, k + n):
            cgeom[i, 0], cgeom[i, 1] = g1, g2
        k += n
    return k
