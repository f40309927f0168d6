"""EPA: the penetration depth of two overlapping convex shapes, as the point of the boundary of
their Minkowski difference D = A - B nearest the origin, found by expanding a polytope inside D
towards its face nearest the origin (van den Bergen, "Proximity queries and penetration depth
computation on 3D game objects", GDC 2001; "Collision Detection in Interactive 3D
Environments", 2003, sec. 4.3.8).

Starts from GJK's final simplex (gjk.py), grown to a tetrahedron by support points along
directions away from its span. Each step takes the face nearest the origin (outward unit
normal m, distance m.x), adds the support point w of D along m, removes the faces w sees and
closes the hole with faces from w to the horizon. It stops when w is within EPA_TOL of that
face's plane (then the depth is exact to EPA_TOL: the faces' planes bound D from inside, the
support plane from outside), or when the workspace is full (curved shapes: accuracy then
depends on EPA_VERTS; the tests quote it).

Workspace: wf (float64, >= WF_SIZE): the GJK simplex, then EPA_VERTS vertices of 6 numbers
(a, b), then EPA_FACES faces of 4 numbers (m, distance); wi (int64, >= WI_SIZE): the faces'
vertices and neighbours, and the scratch of one expansion (below).
"""

import numpy as np

from .._jit import jit
from .gjk import WF_SIMPLEX, msupport

EPA_VERTS = 256
EPA_FACES = 4 * EPA_VERTS  # a closed polytope of V vertices has 2V - 4 faces
EPA_TOL = 1e-9  # [m] (curved shapes: 1e-12 cost 2-5x the time, for depths no solver needs)
# a face is seen from w if w is this far above its plane [m]: round-off must not decide
# (with the flood fill in _carve, this keeps the polytope closed on flat patches)
EPA_SEE = 1e-13
_V = WF_SIMPLEX  # vertex rows in wf
_F = _V + 6 * EPA_VERTS  # face rows in wf
WF_SIZE = _F + 4 * EPA_FACES
# wi: faces of 8 ints (3 vertex rows, alive flag, the 3 faces across edges v0v1, v1v2, v2v0),
# then a stack of faces to visit, the horizon (i, j, face across, its edge), the new faces
_S = 8 * EPA_FACES
_E = 9 * EPA_FACES
_N = 13 * EPA_FACES
WI_SIZE = 14 * EPA_FACES


@jit
def _w(wf, i):
    o = _V + 6 * i
    return wf[o] - wf[o + 3], wf[o + 1] - wf[o + 4], wf[o + 2] - wf[o + 5]


@jit
def _face(wf, wi, f, i, j, k):
    """Face f = (i, j, k), counter-clockwise seen from outside; returns False if degenerate."""
    a, b, c = _w(wf, i), _w(wf, j), _w(wf, k)
    u0, u1, u2 = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    e0, e1, e2 = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    m0, m1, m2 = u1 * e2 - u2 * e1, u2 * e0 - u0 * e2, u0 * e1 - u1 * e0
    L = np.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
    wi[8 * f], wi[8 * f + 1], wi[8 * f + 2], wi[8 * f + 3] = i, j, k, 1
    o = _F + 4 * f
    if L == 0.0:
        wf[o], wf[o + 1], wf[o + 2], wf[o + 3] = 0.0, 0.0, 0.0, np.inf
        return False
    wf[o], wf[o + 1], wf[o + 2] = m0 / L, m1 / L, m2 / L
    wf[o + 3] = (m0 * a[0] + m1 * a[1] + m2 * a[2]) / L
    return True


@jit
def _grow_dir(wf, n, kd):
    """Direction kd of those tried to grow an n-point simplex: the 6 axis directions (1
    point), 6 directions perpendicular to the edge (2), the triangle's two normals (3)."""
    a = _w(wf, 0)
    if n == 1:
        if kd >= 6:
            return False, 0.0, 0.0, 0.0
        s, ax = (1.0 if kd % 2 == 0 else -1.0), kd // 2
        return True, (s if ax == 0 else 0.0), (s if ax == 1 else 0.0), (s if ax == 2 else 0.0)
    b = _w(wf, 1)
    u0, u1, u2 = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    if n == 2:
        if kd >= 6:
            return False, 0.0, 0.0, 0.0
        ax, s = kd % 3, (1.0 if kd < 3 else -1.0)
        x0, x1 = (1.0 if ax == 0 else 0.0), (1.0 if ax == 1 else 0.0)
        x2 = 1.0 if ax == 2 else 0.0
        return True, s * (u1 * x2 - u2 * x1), s * (u2 * x0 - u0 * x2), s * (u0 * x1 - u1 * x0)
    if kd >= 2:
        return False, 0.0, 0.0, 0.0
    c = _w(wf, 2)
    e0, e1, e2 = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    s = 1.0 if kd == 0 else -1.0
    return True, s * (u1 * e2 - u2 * e1), s * (u2 * e0 - u0 * e2), s * (u0 * e1 - u1 * e0)


@jit
def _off_span(wf, n, w):
    """How far w leaves the span of the first n rows: squared distance to the point, |r x u|^2
    to the edge, |r.m| off the triangle's plane (scaled; compared among candidates only)."""
    a = _w(wf, 0)
    r0, r1, r2 = w[0] - a[0], w[1] - a[1], w[2] - a[2]
    if n == 1:
        return r0 * r0 + r1 * r1 + r2 * r2
    ok, d0, d1, d2 = _grow_dir(wf, n, 0)
    if n == 2:
        b = _w(wf, 1)
        u0, u1, u2 = b[0] - a[0], b[1] - a[1], b[2] - a[2]
        c0, c1, c2 = r1 * u2 - r2 * u1, r2 * u0 - r0 * u2, r0 * u1 - r1 * u0
        return c0 * c0 + c1 * c1 + c2 * c2
    return abs(r0 * d0 + r1 * d1 + r2 * d2)


@jit
def _grow(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, wf, n):
    """Grow the simplex (n points, copied to the vertex rows) to a tetrahedron by the support
    points farthest off its span; returns its size (below 4 if D is flat there)."""
    for i in range(n):
        for c in range(6):
            wf[_V + 6 * i + c] = wf[6 * i + c]
    while n < 4:
        best, bk = 1e-30, -1
        for kd in range(6):
            ok, d0, d1, d2 = _grow_dir(wf, n, kd)
            if not ok:
                break
            w = msupport(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, d0, d1, d2, wf, _V + 6 * n)
            sc = _off_span(wf, n, w)
            if sc > best:
                best, bk = sc, kd
        if bk < 0:
            return n
        ok, d0, d1, d2 = _grow_dir(wf, n, bk)
        msupport(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, d0, d1, d2, wf, _V + 6 * n)
        n += 1
    return n


@jit
def _sees(wf, wi, f, w):
    a = _w(wf, wi[8 * f])
    q = _F + 4 * f
    return wf[q] * (w[0] - a[0]) + wf[q + 1] * (w[1] - a[1]) + wf[q + 2] * (w[2] - a[2]) > EPA_SEE


@jit
def _carve(wf, wi, best, w):
    """Remove the faces seen from w that connect to face best through seen faces (a flood
    fill across the faces' neighbours, so the hole is one disk even where round-off makes a
    far face look seen), and store the hole's boundary (the horizon) as (i, j, g, e): edge
    i -> j of a removed face, g the kept face across it and e that edge's index in g; returns
    their number."""
    wi[8 * best + 3] = 0
    wi[_S] = best
    top, ne = 1, 0
    while top > 0:
        top -= 1
        f = wi[_S + top]
        for e in range(3):
            g = wi[8 * f + 4 + e]
            if not wi[8 * g + 3]:
                continue  # removed too: an inner edge of the hole
            if _sees(wf, wi, g, w):
                wi[8 * g + 3] = 0
                wi[_S + top] = g
                top += 1
            else:
                q = _E + 4 * ne
                wi[q], wi[q + 1], wi[q + 2] = wi[8 * f + e], wi[8 * f + (e + 1) % 3], g
                for c in range(3):
                    if wi[8 * g + 4 + c] == f:
                        wi[q + 3] = c
                ne += 1
    return ne


@jit
def _link(wi, f, e, g):
    """Face g is across edge e of face f."""
    wi[8 * f + 4 + e] = g


@jit
def _close(wf, wi, nf, ne, v):
    """Close the hole with faces (i, j, v) on the horizon's edges, in the removed faces' rows
    first, and link them to their neighbours; returns the new number of face rows."""
    slot = 0
    for h in range(ne):
        while slot < nf and wi[8 * slot + 3]:
            slot += 1
        if slot == nf:
            nf += 1
        q = _E + 4 * h
        _face(wf, wi, slot, wi[q], wi[q + 1], v)
        _link(wi, slot, 0, wi[q + 2])
        _link(wi, wi[q + 2], wi[q + 3], slot)
        wi[_N + h] = slot
    for h in range(ne):  # (i, j, v) meets (j, k, v) along j -> v and (k', i, v) along v -> i
        f = wi[_N + h]
        for k in range(ne):
            g = wi[_N + k]
            if wi[8 * g] == wi[8 * f + 1]:
                _link(wi, f, 1, g)
            if wi[8 * g + 1] == wi[8 * f]:
                _link(wi, f, 2, g)
    return nf


@jit
def epa(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, wf, wi, n):
    """Penetration of shapes 1 and 2 from GJK's final simplex of n rows. Returns (depth,
    m0, m1, m2, l0, l1, l2, face): the depth, the outward unit normal m of D's face nearest
    the origin (moving B along m separates the shapes), the barycentric weights of the nearest
    point on that face, whose 3 vertex rows are wi[8 face:8 face+3]; face -1 if D is flat."""
    if _grow(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, wf, n) < 4:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1
    # orient the tetrahedron: vertex 3 must be on the inner side of face (0, 1, 2)
    _face(wf, wi, 0, 0, 1, 2)
    d3 = _w(wf, 3)
    if wf[_F] * d3[0] + wf[_F + 1] * d3[1] + wf[_F + 2] * d3[2] > wf[_F + 3]:
        for c in range(6):  # swap rows 1 and 2
            x = wf[_V + 6 + c]
            wf[_V + 6 + c] = wf[_V + 12 + c]
            wf[_V + 12 + c] = x
    _face(wf, wi, 0, 0, 1, 2)
    _face(wf, wi, 1, 0, 3, 1)
    _face(wf, wi, 2, 1, 3, 2)
    _face(wf, wi, 3, 2, 3, 0)
    for f, a, b, c in ((0, 1, 2, 3), (1, 3, 2, 0), (2, 1, 3, 0), (3, 2, 1, 0)):
        _link(wi, f, 0, a)  # the faces across each face's edges 0, 1, 2
        _link(wi, f, 1, b)
        _link(wi, f, 2, c)
    nv, nf = 4, 4
    while True:
        best, dmin = -1, np.inf
        for f in range(nf):
            if wi[8 * f + 3] and wf[_F + 4 * f + 3] < dmin:
                best, dmin = f, wf[_F + 4 * f + 3]
        o = _F + 4 * best
        m0, m1, m2 = wf[o], wf[o + 1], wf[o + 2]
        if best < 0:
            return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1
        if nv >= EPA_VERTS or nf + nv + 1 > EPA_FACES:  # a horizon has at most nv edges
            break
        w = msupport(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, m0, m1, m2, wf, _V + 6 * nv)
        if w[0] * m0 + w[1] * m1 + w[2] * m2 - dmin <= EPA_TOL:
            break
        nf = _close(wf, wi, nf, _carve(wf, wi, best, w), nv)
        nv += 1
    # barycentric weights of the nearest point (dmin m) on the best face
    i, j, k = wi[8 * best], wi[8 * best + 1], wi[8 * best + 2]
    a, b, c = _w(wf, i), _w(wf, j), _w(wf, k)
    u = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    e = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    r = (dmin * m0 - a[0], dmin * m1 - a[1], dmin * m2 - a[2])
    uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2]
    ue = u[0] * e[0] + u[1] * e[1] + u[2] * e[2]
    ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2]
    ru = r[0] * u[0] + r[1] * u[1] + r[2] * u[2]
    re = r[0] * e[0] + r[1] * e[1] + r[2] * e[2]
    den = uu * ee - ue * ue
    y = (ee * ru - ue * re) / den
    z = (uu * re - ue * ru) / den
    return dmin, m0, m1, m2, 1.0 - y - z, y, z, best


@jit
def epa_witnesses(wf, wi, face, l0, l1, l2):
    """The witness points (a on A, b on B) of EPA's nearest point, as tuples."""
    a0 = a1 = a2 = b0 = b1 = b2 = 0.0
    for i, li in ((wi[8 * face], l0), (wi[8 * face + 1], l1), (wi[8 * face + 2], l2)):
        o = _V + 6 * i
        a0, a1, a2 = a0 + li * wf[o], a1 + li * wf[o + 1], a2 + li * wf[o + 2]
        b0, b1, b2 = b0 + li * wf[o + 3], b1 + li * wf[o + 4], b2 + li * wf[o + 5]
    return (a0, a1, a2), (b0, b1, b2)
