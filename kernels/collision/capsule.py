"""Capsule against capsule and against box: the closest points of the capsules' segments
(and of the segment and the box), then two spheres; plus the segment's end spheres, so that a
capsule lying on a capsule or a face rests on two points.

Sources: Ericson, "Real-Time Collision Detection", 2005, sec. 5.1.9 (closest points of two
segments); for a segment and a box, d(t)^2 = |x(t) - clamp(x(t))|^2 is convex and C^1 in
the segment parameter t with derivative 2 a.(x - clamp(x)) (the gradient of the squared
distance to a convex set), whose root is found by bisection; a segment that meets the box
penetrates it by the least overlap over the separating axes of a segment and a box (the box's
3 face normals and the 3 products a x e_k: the face normals of their Minkowski difference;
Gottschalk et al., "OBBTree", SIGGRAPH 1996, for the separating-axis test).
"""

import numpy as np

from .._jit import jit
from .geoms import write
from .sphere import box_point, segment_point, spheres

TOUCH = 1e-12  # [m] a segment this close to the box meets it


@jit
def segments(p1, R1, h1, p2, R2, h2):
    """Parameters (s, t) of the closest points p1 + s a1, p2 + t a2 of two segments
    (a_i = R_i[:, 2], |s| <= h1, |t| <= h2); parallel segments take the middle of the
    overlap (Ericson sec. 5.1.9, for centred segments)."""
    r0, r1, r2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    b = R1[0, 2] * R2[0, 2] + R1[1, 2] * R2[1, 2] + R1[2, 2] * R2[2, 2]
    c = R1[0, 2] * r0 + R1[1, 2] * r1 + R1[2, 2] * r2
    f = R2[0, 2] * r0 + R2[1, 2] * r1 + R2[2, 2] * r2
    den = 1.0 - b * b
    if den > 1e-14:
        s = min(h1, max(-h1, (b * f - c) / den))
    else:  # parallel: the middle of the overlap of segment 2's shadow on segment 1
        lo, hi = max(-h1, -f * b - h2), min(h1, -f * b + h2)
        s = min(h1, max(-h1, 0.5 * (lo + hi) if lo <= hi else (-c if abs(-c) < h1 else 0.0)))
    t = min(h2, max(-h2, b * s + f))
    s = min(h1, max(-h1, b * t - c))
    return s, t


@jit
def capsule_capsule(p1, R1, r1, h1, p2, R2, r2, h2, margin, con, k):
    """Capsules (p_i, R_i, radius r_i, half-length h_i): the closest points, and the end
    spheres of capsule 1 against capsule 2 when they are other points within the margin
    (parallel capsules); up to 3 contacts."""
    s, t = segments(p1, R1, h1, p2, R2, h2)
    n = spheres(p1[0] + s * R1[0, 2], p1[1] + s * R1[1, 2], p1[2] + s * R1[2, 2], r1,
                p2[0] + t * R2[0, 2], p2[1] + t * R2[1, 2], p2[2] + t * R2[2, 2], r2, margin,
                con, k)
    if n == 0:
        return 0
    for e in (-h1, h1):
        if abs(e - s) > 1e-6 * h1:
            x0, x1, x2 = p1[0] + e * R1[0, 2], p1[1] + e * R1[1, 2], p1[2] + e * R1[2, 2]
            u = segment_point(p2, R2, h2, x0, x1, x2)
            n += spheres(x0, x1, x2, r1, p2[0] + u * R2[0, 2], p2[1] + u * R2[1, 2],
                         p2[2] + u * R2[2, 2], r2, margin, con, k + n)
    return n


@jit
def _slope(l0, l1, l2, d0, d1, d2, s, t):
    """d/dt of |l(t) - clamp(l(t))|^2 / 2 for l(t) = l + t d in the box's frame."""
    g = 0.0
    for x, d, e in ((l0 + t * d0, d0, s[0]), (l1 + t * d1, d1, s[1]), (l2 + t * d2, d2, s[2])):
        if x > e:
            g += d * (x - e)
        elif x < -e:
            g += d * (x + e)
    return g


@jit
def capsule_box(p1, R1, r, h, p2, R2, s2, margin, con, k):
    """Capsule (p1, R1, radius r, half-length h) and box (p2, R2, half-sizes s2): the closest
    (or deepest) points, and the end spheres when they are other points within the margin;
    up to 3 contacts. Normal from the capsule to the box."""
    # segment in the box's frame: l(t) = l + t d
    w0, w1, w2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    l0 = R2[0, 0] * w0 + R2[1, 0] * w1 + R2[2, 0] * w2
    l1 = R2[0, 1] * w0 + R2[1, 1] * w1 + R2[2, 1] * w2
    l2 = R2[0, 2] * w0 + R2[1, 2] * w1 + R2[2, 2] * w2
    d0 = R2[0, 0] * R1[0, 2] + R2[1, 0] * R1[1, 2] + R2[2, 0] * R1[2, 2]
    d1 = R2[0, 1] * R1[0, 2] + R2[1, 1] * R1[1, 2] + R2[2, 1] * R1[2, 2]
    d2 = R2[0, 2] * R1[0, 2] + R2[1, 2] * R1[1, 2] + R2[2, 2] * R1[2, 2]
    lo, hi = -h, h
    if _slope(l0, l1, l2, d0, d1, d2, s2, lo) >= 0.0:
        t = lo
    elif _slope(l0, l1, l2, d0, d1, d2, s2, hi) <= 0.0:
        t = hi
    else:
        for _ in range(200):
            t = 0.5 * (lo + hi)
            if t <= lo or t >= hi:
                break
            if _slope(l0, l1, l2, d0, d1, d2, s2, t) > 0.0:
                hi = t
            else:
                lo = t
    x0, x1, x2 = p1[0] + t * R1[0, 2], p1[1] + t * R1[1, 2], p1[2] + t * R1[2, 2]
    q0, q1, q2 = l0 + t * d0, l1 + t * d1, l2 + t * d2
    e0 = q0 - min(s2[0], max(-s2[0], q0))
    e1 = q1 - min(s2[1], max(-s2[1], q1))
    e2 = q2 - min(s2[2], max(-s2[2], q2))
    # apart (the bisection stops at the edge of the segment's part inside the box, a hair
    # outside: that is touching, and the separating-axis depth is the answer)
    if e0 * e0 + e1 * e1 + e2 * e2 > TOUCH * TOUCH:
        n = box_point(p2, R2, s2, x0, x1, x2, r, False, margin, con, k)
    else:
        n = _sat(p1, R1, r, h, p2, R2, s2, l0, l1, l2, d0, d1, d2, margin, con, k)
    if n == 0:
        return 0
    for e in (-h, h):
        if abs(e - t) > 1e-6 * h:
            n += box_point(p2, R2, s2, p1[0] + e * R1[0, 2], p1[1] + e * R1[1, 2],
                           p1[2] + e * R1[2, 2], r, False, margin, con, k + n)
    return n


@jit
def _sat(p1, R1, r, h, p2, R2, s2, l0, l1, l2, d0, d1, d2, margin, con, k):
    """The deepest contact of a segment that meets the box: least overlap over the 6 axes."""
    best, bu0, bu1, bu2, face = np.inf, 0.0, 0.0, 0.0, -1
    for ax in range(6):
        if ax < 3:
            u0, u1, u2 = (1.0 if ax == 0 else 0.0), (1.0 if ax == 1 else 0.0), \
                (1.0 if ax == 2 else 0.0)
        else:  # d x e_k
            j = ax - 3
            u0 = d1 * (1.0 if j == 2 else 0.0) - d2 * (1.0 if j == 1 else 0.0)
            u1 = d2 * (1.0 if j == 0 else 0.0) - d0 * (1.0 if j == 2 else 0.0)
            u2 = d0 * (1.0 if j == 1 else 0.0) - d1 * (1.0 if j == 0 else 0.0)
            L = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
            if L < 1e-9:
                continue
            u0, u1, u2 = u0 / L, u1 / L, u2 / L
        c = -(u0 * l0 + u1 * l1 + u2 * l2)  # box centre minus segment centre, along u
        ov = (abs(u0) * s2[0] + abs(u1) * s2[1] + abs(u2) * s2[2]
              + abs(u0 * d0 + u1 * d1 + u2 * d2) * h - abs(c))
        if ov < best:
            sg = 1.0 if c >= 0.0 else -1.0
            best, bu0, bu1, bu2, face = ov, sg * u0, sg * u1, sg * u2, ax
    # deepest segment point along n (local), and its witness on the box
    ud = bu0 * d0 + bu1 * d1 + bu2 * d2
    t = h if ud > 0.0 else -h
    if face >= 3:  # edge-edge: the box edge along e_j that supports -n
        j = face - 3
        e0 = -s2[0] if bu0 > 0.0 else s2[0]
        e1 = -s2[1] if bu1 > 0.0 else s2[1]
        e2 = -s2[2] if bu2 > 0.0 else s2[2]
        # closest points of the lines l + t d and e + u e_j
        dj = (d0, d1, d2)[j]
        wj = (l0 - e0, l1 - e1, l2 - e2)
        den = 1.0 - dj * dj
        t = (dj * wj[j] - (d0 * wj[0] + d1 * wj[1] + d2 * wj[2])) / den
        t = min(h, max(-h, t))
    b0, b1, b2 = l0 + t * d0 - best * bu0, l1 + t * d1 - best * bu1, l2 + t * d2 - best * bu2
    dist = -best - r
    if dist >= margin:
        return 0
    n0 = R2[0, 0] * bu0 + R2[0, 1] * bu1 + R2[0, 2] * bu2
    n1 = R2[1, 0] * bu0 + R2[1, 1] * bu1 + R2[1, 2] * bu2
    n2 = R2[2, 0] * bu0 + R2[2, 1] * bu1 + R2[2, 2] * bu2
    # box witness in world, then the midpoint between it and the capsule's (b + (best + r) n)
    x0 = p2[0] + R2[0, 0] * b0 + R2[0, 1] * b1 + R2[0, 2] * b2
    x1 = p2[1] + R2[1, 0] * b0 + R2[1, 1] * b1 + R2[1, 2] * b2
    x2 = p2[2] + R2[2, 0] * b0 + R2[2, 1] * b1 + R2[2, 2] * b2
    s = 0.5 * (best + r)
    return write(con, k, x0 + s * n0, x1 + s * n1, x2 + s * n2, n0, n1, n2, dist)
