"""GJK: the distance between two convex shapes, as the point v of their Minkowski difference
D = A - B nearest the origin, found by growing and shrinking a simplex of support points.

Gilbert, Johnson, Keerthi, "A fast procedure for computing the distance between complex
objects in three-dimensional space", IEEE J. Robotics and Automation, 1988; the simplex is
reduced to the face, edge or vertex nearest the origin by Ericson's region tests ("Real-Time
Collision Detection", 2005, sec. 5.1.5 closest point on a triangle, 5.1.6 on a tetrahedron);
termination |v|^2 - v.w <= eps |v|^2 (van den Bergen 2003, sec. 4.3.5).

Workspace wf (float64, >= WF_SIMPLEX): rows of 6 numbers (a, b), a support point of A and one
of B, w = a - b; simplex vertex i at wf[6i:6i+6], its barycentric weight at wf[24 + i];
the simplex before the last step at wf[28:56] (a step that does not bring v closer is undone).
The witness points are a = sum l_i a_i on A and b = sum l_i b_i on B, and v = a - b.
"""

from .._jit import jit
from .support import support

WF_SIMPLEX = 56  # the simplex, and a copy of it before each step
GJK_ITERATIONS = 256
GJK_EPS = 1e-15  # relative: stop when |v|^2 - v.w <= GJK_EPS |v|^2


@jit
def msupport(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, d0, d1, d2, wf, o):
    """Store the support points of A along d and of B along -d at wf[o:o+6]; returns w."""
    a = support(t1, s1, v1, p1, R1, d0, d1, d2)
    b = support(t2, s2, v2, p2, R2, -d0, -d1, -d2)
    for i in range(3):
        wf[o + i] = a[i]
        wf[o + 3 + i] = b[i]
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


@jit
def wpt(wf, i):
    """w = a - b of simplex row i."""
    o = 6 * i
    return wf[o] - wf[o + 3], wf[o + 1] - wf[o + 4], wf[o + 2] - wf[o + 5]


@jit
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@jit
def _sub(a, b):
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


@jit
def triangle(a, b, c):
    """Barycentric weights of the point of triangle abc nearest the origin (Ericson 5.1.5)."""
    ab, ac = _sub(b, a), _sub(c, a)
    d1, d2 = -_dot(ab, a), -_dot(ac, a)
    if d1 <= 0.0 and d2 <= 0.0:
        return 1.0, 0.0, 0.0
    d3, d4 = -_dot(ab, b), -_dot(ac, b)
    if d3 >= 0.0 and d4 <= d3:
        return 0.0, 1.0, 0.0
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        x = d1 / (d1 - d3)
        return 1.0 - x, x, 0.0
    d5, d6 = -_dot(ab, c), -_dot(ac, c)
    if d6 >= 0.0 and d5 <= d6:
        return 0.0, 0.0, 1.0
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        x = d2 / (d2 - d6)
        return 1.0 - x, 0.0, x
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        x = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return 0.0, 1.0 - x, x
    den = 1.0 / (va + vb + vc)
    return 1.0 - (vb + vc) * den, vb * den, vc * den


@jit
def _keep(wf, n, l0, l1, l2, l3):
    """Compact the simplex to the rows with positive weight; returns (count, v)."""
    m = 0
    v0, v1, v2 = 0.0, 0.0, 0.0
    for i, li in enumerate((l0, l1, l2, l3)):
        if i >= n or li <= 0.0:
            continue
        if m != i:
            for c in range(6):
                wf[6 * m + c] = wf[6 * i + c]
        wf[24 + m] = li
        w = wpt(wf, m)
        v0, v1, v2 = v0 + li * w[0], v1 + li * w[1], v2 + li * w[2]
        m += 1
    return m, v0, v1, v2


@jit
def reduce_simplex(wf, n):
    """Replace the simplex of n rows by its smallest face holding the point nearest the origin;
    returns (rows, v); rows 4 means the origin is inside the tetrahedron."""
    a = wpt(wf, 0)
    if n == 1:
        return _keep(wf, 1, 1.0, 0.0, 0.0, 0.0)
    b = wpt(wf, 1)
    if n == 2:
        ab = _sub(b, a)
        den = _dot(ab, ab)
        x = -_dot(a, ab) / den if den > 0.0 else 0.0
        if x <= 0.0:
            return _keep(wf, 2, 1.0, 0.0, 0.0, 0.0)
        if x >= 1.0:
            return _keep(wf, 2, 0.0, 1.0, 0.0, 0.0)
        return _keep(wf, 2, 1.0 - x, x, 0.0, 0.0)
    c = wpt(wf, 2)
    if n == 3:
        la, lb, lc = triangle(a, b, c)
        return _keep(wf, 3, la, lb, lc, 0.0)
    d = wpt(wf, 3)
    # tetrahedron: the nearest of the faces whose plane separates the origin from the
    # opposite vertex (Ericson 5.1.6); none: the origin is inside
    best, l0, l1, l2, l3 = -1.0, 0.0, 0.0, 0.0, 0.0
    for f in range(4):
        if f == 0:
            x, y, z, o = a, b, c, d
        elif f == 1:
            x, y, z, o = a, c, d, b
        elif f == 2:
            x, y, z, o = a, d, b, c
        else:
            x, y, z, o = b, d, c, a
        xy, xz = _sub(y, x), _sub(z, x)
        nrm = (xy[1] * xz[2] - xy[2] * xz[1], xy[2] * xz[0] - xy[0] * xz[2],
               xy[0] * xz[1] - xy[1] * xz[0])
        if -_dot(nrm, x) * _dot(nrm, _sub(o, x)) > 0.0:
            continue  # origin on the inner side of this face
        ux, uy, uz = triangle(x, y, z)
        q = (ux * x[0] + uy * y[0] + uz * z[0], ux * x[1] + uy * y[1] + uz * z[1],
             ux * x[2] + uy * y[2] + uz * z[2])
        dq = _dot(q, q)
        if best < 0.0 or dq < best:
            best = dq
            if f == 0:
                l0, l1, l2, l3 = ux, uy, uz, 0.0
            elif f == 1:
                l0, l1, l2, l3 = ux, 0.0, uy, uz
            elif f == 2:
                l0, l1, l2, l3 = ux, uz, 0.0, uy
            else:
                l0, l1, l2, l3 = 0.0, ux, uz, uy
    if best < 0.0:
        return 4, 0.0, 0.0, 0.0
    return _keep(wf, 4, l0, l1, l2, l3)


@jit
def _known(wf, n, w):
    """w is (to 1e-12 m) a point of the simplex already: a repeat would make it degenerate."""
    for i in range(n):
        x = wpt(wf, i)
        e = (w[0] - x[0]) ** 2 + (w[1] - x[1]) ** 2 + (w[2] - x[2]) ** 2
        if e <= 1e-24:
            return True
    return False


@jit
def gjk(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, wf, stop):
    """Run GJK on shapes 1 and 2 (of their cores for spheres and capsules). Returns (rows,
    |v|^2): rows 4 (or |v| = 0) when the shapes overlap; the simplex and weights are in wf;
    rows 0 as soon as the distance is known to exceed stop (v.w / |v| is a lower bound of
    it: the gap of the projections on v), the early exit of a pair beyond its margin."""
    d0, d1, d2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    if d0 == 0.0 and d1 == 0.0 and d2 == 0.0:
        d0 = 1.0
    v = msupport(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, d0, d1, d2, wf, 0)
    wf[24] = 1.0
    n = 1
    vv = _dot(v, v)
    for _ in range(GJK_ITERATIONS):
        if vv == 0.0:
            break
        w = msupport(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, -v[0], -v[1], -v[2], wf, 6 * n)
        vw = _dot(v, w)
        if vw > 0.0 and vw * vw > stop * stop * vv:
            return 0, vv
        if vv - vw <= GJK_EPS * vv or _known(wf, n, w):
            break
        for c in range(28):
            wf[28 + c] = wf[c]
        m, x0, x1, x2 = reduce_simplex(wf, n + 1)
        if m == 4:
            return 4, 0.0
        nv = x0 * x0 + x1 * x1 + x2 * x2
        if not nv < vv:  # no progress left in floating point (or NaN): undo the step
            for c in range(28):
                wf[c] = wf[28 + c]
            break
        n = m
        v, vv = (x0, x1, x2), nv
    return n, vv


@jit
def witnesses(wf, n):
    """The witness points a on A and b on B of the simplex's nearest point: (a, b) tuples."""
    a0 = a1 = a2 = b0 = b1 = b2 = 0.0
    for i in range(n):
        li, o = wf[24 + i], 6 * i
        a0, a1, a2 = a0 + li * wf[o], a1 + li * wf[o + 1], a2 + li * wf[o + 2]
        b0, b1, b2 = b0 + li * wf[o + 3], b1 + li * wf[o + 4], b2 + li * wf[o + 5]
    return (a0, a1, a2), (b0, b1, b2)
