"""Sphere against sphere, capsule (its segment's closest point), box (the clamped point) and
cylinder (the closest point of the solid cylinder: on its side, a cap or a rim).

Two spheres (c1, r1), (c2, r2): n = (c2 - c1) / |c2 - c1|, signed distance
|c2 - c1| - r1 - r2, witness points c1 + r1 n and c2 - r2 n; every analytic routine here
reduces to it (MuJoCo documentation, "Computation / Collision detection"; Ericson,
"Real-Time Collision Detection", 2005, sec. 5.1.2 closest point on a segment, 5.1.3 on a box).
A sphere whose centre is inside a box has the box's nearest face: depth s_k - |x_k| + r; inside
a cylinder (radius R, half-length h; local centre x with rho = |(x_0, x_1)|), the nearer of its
side (depth R - rho + r, radially) and its caps (h - |x_2| + r, axially).
"""

import numpy as np

from .._jit import jit
from .geoms import write


@jit
def spheres(a0, a1, a2, r1, b0, b1, b2, r2, margin, con, k):
    """The contact of sphere (a, r1) with sphere (b, r2); radius 0 is a point. Coincident
    centres take the normal +x."""
    d0, d1, d2 = b0 - a0, b1 - a1, b2 - a2
    L = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    d = L - r1 - r2
    if d >= margin:
        return 0
    if L > 0.0:
        n0, n1, n2 = d0 / L, d1 / L, d2 / L
    else:
        n0, n1, n2 = 1.0, 0.0, 0.0
    s = r1 + 0.5 * d
    return write(con, k, a0 + s * n0, a1 + s * n1, a2 + s * n2, n0, n1, n2, d)


@jit
def segment_point(p, R, h, x0, x1, x2):
    """Parameter t in [-h, h] of the point of the segment p + t R[:, 2] closest to x."""
    t = R[0, 2] * (x0 - p[0]) + R[1, 2] * (x1 - p[1]) + R[2, 2] * (x2 - p[2])
    return min(h, max(-h, t))


@jit
def sphere_sphere(p1, r1, p2, r2, margin, con, k):
    """Sphere (p1, r1) and sphere (p2, r2): 1 contact."""
    return spheres(p1[0], p1[1], p1[2], r1, p2[0], p2[1], p2[2], r2, margin, con, k)


@jit
def sphere_capsule(p1, r1, p2, R2, r2, h2, margin, con, k):
    """Sphere (p1, r1) and capsule (p2, R2, radius r2, half-length h2): 1 contact."""
    t = segment_point(p2, R2, h2, p1[0], p1[1], p1[2])
    return spheres(p1[0], p1[1], p1[2], r1, p2[0] + t * R2[0, 2], p2[1] + t * R2[1, 2],
                   p2[2] + t * R2[2, 2], r2, margin, con, k)


@jit
def box_point(p, R, s, x0, x1, x2, r, flip, margin, con, k):
    """The contact of the sphere (x, r) (r = 0: a point) with the box (p, R, half-sizes s);
    normal from the sphere to the box, or from the box to the sphere if flip."""
    l0 = R[0, 0] * (x0 - p[0]) + R[1, 0] * (x1 - p[1]) + R[2, 0] * (x2 - p[2])
    l1 = R[0, 1] * (x0 - p[0]) + R[1, 1] * (x1 - p[1]) + R[2, 1] * (x2 - p[2])
    l2 = R[0, 2] * (x0 - p[0]) + R[1, 2] * (x1 - p[1]) + R[2, 2] * (x2 - p[2])
    q0, q1, q2 = min(s[0], max(-s[0], l0)), min(s[1], max(-s[1], l1)), min(s[2], max(-s[2], l2))
    e0, e1, e2 = q0 - l0, q1 - l1, q2 - l2  # local, from the centre to the box's point
    L = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    if L > 0.0:
        d = L - r
        e0, e1, e2 = e0 / L, e1 / L, e2 / L
    else:  # centre inside: leave through the nearest face
        j, pen = 0, s[0] - abs(l0)
        for i in (1, 2):
            pi = s[i] - abs((l0, l1, l2)[i])
            if pi < pen:
                j, pen = i, pi
        d = -pen - r
        sg = -1.0 if (l0, l1, l2)[j] >= 0.0 else 1.0  # into the box, away from the face
        e0, e1, e2 = (sg if j == 0 else 0.0), (sg if j == 1 else 0.0), (sg if j == 2 else 0.0)
    if d >= margin:
        return 0
    n0 = R[0, 0] * e0 + R[0, 1] * e1 + R[0, 2] * e2
    n1 = R[1, 0] * e0 + R[1, 1] * e1 + R[1, 2] * e2
    n2 = R[2, 0] * e0 + R[2, 1] * e1 + R[2, 2] * e2
    s_ = r + 0.5 * d
    c0, c1, c2 = x0 + s_ * n0, x1 + s_ * n1, x2 + s_ * n2
    if flip:
        return write(con, k, c0, c1, c2, -n0, -n1, -n2, d)
    return write(con, k, c0, c1, c2, n0, n1, n2, d)


@jit
def sphere_box(p1, r1, p2, R2, s2, margin, con, k):
    """Sphere (p1, r1) and box (p2, R2, half-sizes s2): 1 contact."""
    return box_point(p2, R2, s2, p1[0], p1[1], p1[2], r1, False, margin, con, k)


@jit
def local_normal(p1, r1, R2, e0, e1, e2, d, con, k):
    """The contact of the sphere (p1, r1) at signed distance d along the normal e given in the
    frame R2 of the other geom: n = R2 e, the point halfway, p1 + (r1 + d / 2) n."""
    n0 = R2[0, 0] * e0 + R2[0, 1] * e1 + R2[0, 2] * e2
    n1 = R2[1, 0] * e0 + R2[1, 1] * e1 + R2[1, 2] * e2
    n2 = R2[2, 0] * e0 + R2[2, 1] * e1 + R2[2, 2] * e2
    s_ = r1 + 0.5 * d
    return write(con, k, p1[0] + s_ * n0, p1[1] + s_ * n1, p1[2] + s_ * n2, n0, n1, n2, d)


@jit
def sphere_cylinder(p1, r1, p2, R2, rc, h, margin, con, k):
    """Sphere (p1, r1) and cylinder (p2, R2, radius rc, half-length h along R2[:, 2]): 1
    contact. Outside, the solid cylinder's closest point to the centre: the centre's local
    (x_0, x_1) scaled onto the radius if beyond it, x_2 clamped to [-h, h]; inside, the nearer
    of the side and the caps. A centre on the axis, nearer the side, leaves along the
    cylinder's local -x."""
    d0, d1, d2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    l0 = R2[0, 0] * d0 + R2[1, 0] * d1 + R2[2, 0] * d2
    l1 = R2[0, 1] * d0 + R2[1, 1] * d1 + R2[2, 1] * d2
    l2 = R2[0, 2] * d0 + R2[1, 2] * d1 + R2[2, 2] * d2
    rho = np.sqrt(l0 * l0 + l1 * l1)
    if rho > rc or abs(l2) > h:  # outside: from the centre to the closest point
        sc = rc / rho if rho > rc else 1.0
        e0, e1, e2 = l0 * sc - l0, l1 * sc - l1, min(h, max(-h, l2)) - l2
        L = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        d = L - r1
        e0, e1, e2 = e0 / L, e1 / L, e2 / L
    elif rc - rho < h - abs(l2):  # inside, nearer the side: radially into the cylinder
        d = -(rc - rho) - r1
        e0, e1, e2 = (-l0 / rho, -l1 / rho, 0.0) if rho > 0.0 else (-1.0, 0.0, 0.0)
    else:  # inside, nearer a cap: axially into the cylinder
        d = -(h - abs(l2)) - r1
        e0, e1, e2 = 0.0, 0.0, (-1.0 if l2 >= 0.0 else 1.0)
    if d >= margin:
        return 0
    return local_normal(p1, r1, R2, e0, e1, e2, d, con, k)
