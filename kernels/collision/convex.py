"""Any two convex geoms: GJK's distance when they are apart, EPA's penetration when they
overlap, on their cores (support.py), then grown by the radii of spheres and capsules.

With a and b the witness points of the cores and r1, r2 the radii: apart by d > TOUCH, the
normal is n = (b - a) / d and the signed distance d - r1 - r2; overlapping (or closer than
TOUCH, where GJK's direction is poorly conditioned), EPA's face normal m is n and the signed
distance -depth - r1 - r2 (EPA from a simplex just off the origin is kept only if its depth
is at least -d; else GJK's answer stands). The witness points are a + r1 n and b - r2 n.
Accuracy: exact to round-off for polytopes and cores (boxes, convex sets, spheres, capsules),
to GJK's and EPA's convergence for curved surfaces (ellipsoids, cylinders' rims): measured
1.8e-9 m in distance (tests/test_collision_coal.py quotes it). One contact per pair, except
where flat faces (boxes', convex sets', cylinders' ends and sides) meet: then the overlap of
the faces (manifold.py), up to MAX_PAIR contacts.
"""

import numpy as np

from .._jit import jit
from .epa import epa, epa_witnesses
from .geoms import CYLINDER, write
from .gjk import gjk, witnesses
from .manifold import face_manifold
from .support import core_radius

TOUCH = 1e-6  # [m] below this core distance the normal comes from EPA (GJK's v is too short to
# give a direction on curved surfaces: measured 1e-3 normal errors at 1e-9 m)


@jit
def convex_convex(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, margin, con, k, wf, wi):
    """Geoms (type t, size s, vertices v, placement p, R) 1 and 2: 0 or 1 contact, normal
    from 1 to 2. wf, wi: workspaces of at least epa.WF_SIZE and epa.WI_SIZE entries."""
    r1, r2 = core_radius(t1, s1), core_radius(t2, s2)
    n, vv = gjk(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, wf, margin + r1 + r2)
    if n == 0:
        return 0  # farther apart than the margin
    dc = np.sqrt(vv)
    epa_ok, depth, m0, m1, m2, l0, l1, l2, f = False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1
    if n == 4 or dc <= TOUCH:
        depth, m0, m1, m2, l0, l1, l2, f = epa(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, wf, wi,
                                                n)
        # EPA from a simplex just off the origin (dc > 0) can fail to close around it: then
        # its depth is below -dc, and GJK's answer stands
        # (a GJK that stopped just off the origin with the origin in fact deep inside D is
        # what EPA is for: then its depth is positive)
        epa_ok = f >= 0 and np.isfinite(depth) and (n == 4 or depth + dc >= -2.0 * TOUCH)
    if epa_ok:
        a, b = epa_witnesses(wf, wi, f, l0, l1, l2)
        n0, n1, n2 = m0, m1, m2
        d = -depth - r1 - r2
    elif dc > 0.0:
        a, b = witnesses(wf, n)
        n0, n1, n2 = b[0] - a[0], b[1] - a[1], b[2] - a[2]
        L = np.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        n0, n1, n2 = n0 / L, n1 / L, n2 / L
        d = L - r1 - r2
    else:  # touching cores and a flat difference: the normal along the centres
        a, b = witnesses(wf, n)
        n0, n1, n2 = p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]
        L = np.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        n0, n1, n2 = (n0 / L, n1 / L, n2 / L) if L > 0.0 else (1.0, 0.0, 0.0)
        d = -r1 - r2
    if d >= margin:
        return 0
    if t1 >= CYLINDER and t2 >= CYLINDER:  # boxes, convex sets, cylinders: flat faces
        m = face_manifold(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, n0, n1, n2, margin, con, k,
                          wf)
        if m > 0:
            return m
    s = 0.5 * (r1 - r2)  # midpoint of a + r1 n and b - r2 n
    return write(con, k, 0.5 * (a[0] + b[0]) + s * n0, 0.5 * (a[1] + b[1]) + s * n1,
                 0.5 * (a[2] + b[2]) + s * n2, n0, n1, n2, d)
