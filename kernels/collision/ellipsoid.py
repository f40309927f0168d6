"""Sphere against ellipsoid: the ellipsoid's surface point closest to the sphere's centre.

In the ellipsoid's frame (semi-axes a_0, a_1, a_2; the sphere's centre x), the closest point y
of the surface to x satisfies x - y = t grad(sum y_k^2 / a_k^2) / 2 for a scalar t, so
  y_k = a_k^2 x_k / (a_k^2 + t),   F(t) = sum_k (a_k x_k / (a_k^2 + t))^2 - 1 = 0
(Eberly, "Distance from a Point to an Ellipse, an Ellipsoid, or a Hyperellipsoid", Geometric
Tools, 2013). F decreases and is convex for t > -a_min^2, so its one root there is found by
Newton's method kept inside a bracket: [0, a_max |x|] when x is outside (F(0) > 0), else
(-a_min^2, 0]; it is the nearest surface point in both cases (Eberly, sec. 3). The iteration
runs on u = t + a_min^2, so that a root just above the pole (x nearly in the plane of the
smallest axis) keeps its digits. When x lies
inside in the plane of the smallest axis (x_m = 0, for every axis that small), F may stay
negative on (-a_min^2, 0]: the nearest points are then y_k = a_k^2 x_k / (a_k^2 - a_m^2) (k !=
m) and y_m = +-a_m sqrt(1 - sum_k y_k^2 / a_k^2), on x_m's side (+ for x_m = 0). Signed distance |x - y|
- r outside, -|x - y| - r inside, normal from the sphere to the ellipsoid: (y - x) / |y - x|
outside, (x - y) / |x - y| inside.
"""

import numpy as np

from .._jit import jit
from .sphere import local_normal


@jit
def _secular(a0, a1, a2, b0, b1, b2, x0, x1, x2, u):
    """F and dF/du at t = u - a_min^2 (b_k = a_k^2 - a_min^2, so a_k^2 + t = b_k + u without
    the cancellation that would lose a root just above the pole)."""
    u0, u1, u2 = a0 * x0 / (b0 + u), a1 * x1 / (b1 + u), a2 * x2 / (b2 + u)
    f = u0 * u0 + u1 * u1 + u2 * u2 - 1.0
    df = -2.0 * (u0 * u0 / (b0 + u) + u1 * u1 / (b1 + u) + u2 * u2 / (b2 + u))
    return f, df


@jit
def closest_on_ellipsoid(a0, a1, a2, x0, x1, x2):
    """(y_0, y_1, y_2, inside): the point of the ellipsoid's surface (semi-axes a) nearest to
    x, in the ellipsoid's frame, and whether x is inside."""
    inside = (x0 / a0) ** 2 + (x1 / a1) ** 2 + (x2 / a2) ** 2 < 1.0
    am = min(a0, a1, a2)
    if inside:
        # in the plane of the smallest axis (of every axis as small; within 1e-12 of it, where
        # the root would be too near the pole for the iteration): maybe the boundary case
        z = 1e-12 * am
        if (a0 > am or abs(x0) <= z) and (a1 > am or abs(x1) <= z) and (a2 > am or abs(x2) <= z):
            m = 0 if a0 == am else (1 if a1 == am else 2)
            s, y0, y1, y2 = 0.0, 0.0, 0.0, 0.0
            if a0 > am:
                y0 = a0 * a0 * x0 / (a0 * a0 - am * am)
                s += (y0 / a0) ** 2
            if a1 > am:
                y1 = a1 * a1 * x1 / (a1 * a1 - am * am)
                s += (y1 / a1) ** 2
            if a2 > am:
                y2 = a2 * a2 * x2 / (a2 * a2 - am * am)
                s += (y2 / a2) ** 2
            if s <= 1.0:
                h = am * np.sqrt(1.0 - s)  # on x_m's side (+ for 0)
                if m == 0:
                    y0 = h if x0 >= 0.0 else -h
                elif m == 1:
                    y1 = h if x1 >= 0.0 else -h
                else:
                    y2 = h if x2 >= 0.0 else -h
                return y0, y1, y2, True
        lo, hi = 0.0, am * am
    else:
        lo, hi = am * am, am * am + max(a0, a1, a2) * np.sqrt(x0 * x0 + x1 * x1 + x2 * x2)
    b0, b1, b2 = a0 * a0 - am * am, a1 * a1 - am * am, a2 * a2 - am * am
    u = am * am  # t = 0
    for _ in range(100):
        f, df = _secular(a0, a1, a2, b0, b1, b2, x0, x1, x2, u)
        if f > 0.0:
            lo = u
        else:
            hi = u
        step = u - f / df
        # Newton, or the bracket's midpoint where Newton leaves it (or stalls at the pole)
        u_new = step if lo < step < hi else 0.5 * (lo + hi)
        done = abs(u_new - u) <= 4e-16 * u_new or f == 0.0  # (relative: roots may be tiny)
        u = u_new
        if done:
            break
    return (a0 * a0 * x0 / (b0 + u), a1 * a1 * x1 / (b1 + u), a2 * a2 * x2 / (b2 + u), inside)


@jit
def sphere_ellipsoid(p1, r1, p2, R2, s2, margin, con, k):
    """Sphere (p1, r1) and ellipsoid (p2, R2, semi-axes s2): 1 contact."""
    d0, d1, d2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    x0 = R2[0, 0] * d0 + R2[1, 0] * d1 + R2[2, 0] * d2
    x1 = R2[0, 1] * d0 + R2[1, 1] * d1 + R2[2, 1] * d2
    x2 = R2[0, 2] * d0 + R2[1, 2] * d1 + R2[2, 2] * d2
    y0, y1, y2, inside = closest_on_ellipsoid(s2[0], s2[1], s2[2], x0, x1, x2)
    e0, e1, e2 = y0 - x0, y1 - x1, y2 - x2
    L = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    if L > 0.0:
        if inside:
            e0, e1, e2 = -e0 / L, -e1 / L, -e2 / L
        else:
            e0, e1, e2 = e0 / L, e1 / L, e2 / L
    else:  # the centre on the surface: into the ellipsoid along its normal there
        g0, g1, g2 = x0 / (s2[0] * s2[0]), x1 / (s2[1] * s2[1]), x2 / (s2[2] * s2[2])
        G = np.sqrt(g0 * g0 + g1 * g1 + g2 * g2)
        e0, e1, e2 = -g0 / G, -g1 / G, -g2 / G
    d = (-L if inside else L) - r1
    if d >= margin:
        return 0
    return local_normal(p1, r1, R2, e0, e1, e2, d, con, k)
