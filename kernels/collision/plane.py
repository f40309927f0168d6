"""A plane (the half-space z <= 0 of geom 1's frame, normal n = R1[:, 2] pointing out of the
solid) against each primitive: signed distances of the primitive's lowest points.

A point x of geom 2 at height h = n.(x - p1) has signed distance h; its witness on the plane
is x - h n, so the contact point is x - h/2 n and the normal is n (from the plane to geom 2).
Sources: MuJoCo documentation, "Computation / Collision detection" (plane against each
primitive is analytic; a box gives its corners, a capsule its two end spheres); the
ellipsoid's lowest point along -n is the support point x = p - R S^2 m / |S m|,
m = R^T n, S = diag(a, b, c) (support function of an ellipsoid, e.g. van den Bergen,
"Collision Detection in Interactive 3D Environments", 2003, sec. 4.3).
"""

import numpy as np

from .._jit import jit
from .geoms import write


@jit
def _point(p1, R1, x, y, z, r, margin, con, k):
    """The contact of a sphere of radius r (r = 0: a point) centred at (x, y, z)."""
    n0, n1, n2 = R1[0, 2], R1[1, 2], R1[2, 2]
    d = n0 * (x - p1[0]) + n1 * (y - p1[1]) + n2 * (z - p1[2]) - r
    if d >= margin:
        return 0
    s = r + 0.5 * d
    return write(con, k, x - s * n0, y - s * n1, z - s * n2, n0, n1, n2, d)


@jit
def plane_sphere(p1, R1, p2, r, margin, con, k):
    """Sphere of radius r centred at p2 on the plane (p1, R1)."""
    return _point(p1, R1, p2[0], p2[1], p2[2], r, margin, con, k)


@jit
def plane_capsule(p1, R1, p2, R2, r, h, margin, con, k):
    """Capsule (p2, R2, radius r, half-length h): its two end spheres, up to 2 contacts."""
    n = 0
    for s in (-h, h):
        n += _point(p1, R1, p2[0] + s * R2[0, 2], p2[1] + s * R2[1, 2], p2[2] + s * R2[2, 2],
                    r, margin, con, k + n)
    return n


@jit
def plane_box(p1, R1, p2, R2, s2, margin, con, k):
    """Box (p2, R2, half-sizes s2): its corners within the margin, up to 8 (4 at rest)."""
    n = 0
    for c in range(8):
        a = s2[0] if c & 1 else -s2[0]
        b = s2[1] if c & 2 else -s2[1]
        e = s2[2] if c & 4 else -s2[2]
        n += _point(p1, R1, p2[0] + R2[0, 0] * a + R2[0, 1] * b + R2[0, 2] * e,
                    p2[1] + R2[1, 0] * a + R2[1, 1] * b + R2[1, 2] * e,
                    p2[2] + R2[2, 0] * a + R2[2, 1] * b + R2[2, 2] * e, 0.0, margin, con, k + n)
    return n


@jit
def plane_cylinder(p1, R1, p2, R2, r, h, margin, con, k):
    """Cylinder (p2, R2, radius r, half-length h): the lowest rim point of each end disk, and
    on the lower disk the two rim points 120 degrees on either side (a standing cylinder rests
    on a triangle, a lying one on its two rim points); up to 4 contacts.
    The lowest rim point of a disk with centre c and axis a is c + r u, u the unit vector
    along -(n - (n.a) a); any radius when the disk is parallel to the plane."""
    n0, n1, n2 = R1[0, 2], R1[1, 2], R1[2, 2]
    a0, a1, a2 = R2[0, 2], R2[1, 2], R2[2, 2]
    na = n0 * a0 + n1 * a1 + n2 * a2
    u0, u1, u2 = na * a0 - n0, na * a1 - n1, na * a2 - n2
    nu = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    if nu < 1e-12:  # axis along the normal: every rim point is equally low
        u0, u1, u2 = R2[0, 0], R2[1, 0], R2[2, 0]
    else:
        u0, u1, u2 = u0 / nu, u1 / nu, u2 / nu
    w0, w1, w2 = a1 * u2 - a2 * u1, a2 * u0 - a0 * u2, a0 * u1 - a1 * u0  # a x u, in the disk
    low = -h if na > 0.0 else h  # the end disk nearer the plane
    m = 0
    for s in (low, -low):
        c0, c1, c2 = p2[0] + s * a0, p2[1] + s * a1, p2[2] + s * a2
        m += _point(p1, R1, c0 + r * u0, c1 + r * u1, c2 + r * u2, 0.0, margin, con, k + m)
        if s == low:
            cu, su = -0.5 * r, 0.5 * np.sqrt(3.0) * r
            for sg in (-1.0, 1.0):
                m += _point(p1, R1, c0 + cu * u0 + sg * su * w0, c1 + cu * u1 + sg * su * w1,
                            c2 + cu * u2 + sg * su * w2, 0.0, margin, con, k + m)
    return m


@jit
def plane_ellipsoid(p1, R1, p2, R2, s2, margin, con, k):
    """Ellipsoid (p2, R2, semi-axes s2): its lowest point, 1 contact."""
    m0 = (R2[0, 0] * R1[0, 2] + R2[1, 0] * R1[1, 2] + R2[2, 0] * R1[2, 2]) * s2[0]
    m1 = (R2[0, 1] * R1[0, 2] + R2[1, 1] * R1[1, 2] + R2[2, 1] * R1[2, 2]) * s2[1]
    m2 = (R2[0, 2] * R1[0, 2] + R2[1, 2] * R1[1, 2] + R2[2, 2] * R1[2, 2]) * s2[2]
    nm = np.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
    x0, x1, x2 = -s2[0] * m0 / nm, -s2[1] * m1 / nm, -s2[2] * m2 / nm  # local lowest point
    return _point(p1, R1, p2[0] + R2[0, 0] * x0 + R2[0, 1] * x1 + R2[0, 2] * x2,
                  p2[1] + R2[1, 0] * x0 + R2[1, 1] * x1 + R2[1, 2] * x2,
                  p2[2] + R2[2, 0] * x0 + R2[2, 1] * x1 + R2[2, 2] * x2, 0.0, margin, con, k)


@jit
def _height(p1, R1, p2, R2, v, i):
    """World point of vertex i and its height above the plane."""
    x = p2[0] + R2[0, 0] * v[i, 0] + R2[0, 1] * v[i, 1] + R2[0, 2] * v[i, 2]
    y = p2[1] + R2[1, 0] * v[i, 0] + R2[1, 1] * v[i, 1] + R2[1, 2] * v[i, 2]
    z = p2[2] + R2[2, 0] * v[i, 0] + R2[2, 1] * v[i, 1] + R2[2, 2] * v[i, 2]
    return x, y, z, R1[0, 2] * (x - p1[0]) + R1[1, 2] * (y - p1[1]) + R1[2, 2] * (z - p1[2])


@jit
def plane_convex(p1, R1, p2, R2, v, margin, con, k):
    """Convex vertex set (p2, R2, local vertices v): of its vertices within the margin, up to 4
    that span the support polygon: the lowest, the one farthest from it, the one farthest from
    their line, and the one farthest on the line's other side (MuJoCo keeps a few vertices
    too). Distances along the plane are measured in the plane (heights removed)."""
    nv = v.shape[0]
    n0, n1, n2 = R1[0, 2], R1[1, 2], R1[2, 2]
    best, hb = -1, margin
    for i in range(nv):
        h = _height(p1, R1, p2, R2, v, i)[3]
        if h < hb:
            best, hb = i, h
    if best < 0:
        return 0
    ax, ay, az, ha = _height(p1, R1, p2, R2, v, best)
    ax, ay, az = ax - ha * n0, ay - ha * n1, az - ha * n2  # in-plane projections from here
    m = _point(p1, R1, ax + ha * n0, ay + ha * n1, az + ha * n2, 0.0, margin, con, k)
    # second: farthest from the first; third: farthest from their line; fourth: farthest on
    # the other side of that line. Each is a pass over the vertices (no storage).
    ex, ey, ez = 0.0, 0.0, 0.0  # unit direction first -> second
    fx, fy, fz = 0.0, 0.0, 0.0  # in-plane unit normal of the line, towards the third
    for stage in range(3):
        pick, score = -1, 1e-9
        for i in range(nv):
            x, y, z, h = _height(p1, R1, p2, R2, v, i)
            if h >= margin:
                continue
            dx, dy, dz = x - h * n0 - ax, y - h * n1 - ay, z - h * n2 - az
            if stage == 0:
                sc = np.sqrt(dx * dx + dy * dy + dz * dz)
            elif stage == 1:
                t = dx * ex + dy * ey + dz * ez
                sc = np.sqrt(max(0.0, dx * dx + dy * dy + dz * dz - t * t))
            else:
                sc = -(dx * fx + dy * fy + dz * fz)
            if sc > score:
                pick, score = i, sc
        if pick < 0:
            break
        x, y, z, h = _height(p1, R1, p2, R2, v, pick)
        m += _point(p1, R1, x, y, z, 0.0, margin, con, k + m)
        dx, dy, dz = x - h * n0 - ax, y - h * n1 - ay, z - h * n2 - az
        if stage == 0:
            ex, ey, ez = dx / score, dy / score, dz / score
        elif stage == 1:
            t = dx * ex + dy * ey + dz * ez
            fx, fy, fz = (dx - t * ex) / score, (dy - t * ey) / score, (dz - t * ez) / score
    return m
