"""Contact manifolds of boxes, convex vertex sets and cylinders whose faces meet: the contact
GJK/EPA found (normal n) grown to the polygon where the two faces overlap. A cylinder's flat
end stands for a face through CYLINDER_RIM points of its rim (an inscribed polygon: a disk on
a larger face rests on those points), a lying cylinder for an edge (its two lowest rim points).

Each shape's feature along the normal is its vertices within FEATURE_TOL of its support
plane: a face, an edge or a vertex (Ericson, "Real-Time Collision
Detection", 2005, sec. 3.8 supporting features). If one of them is a face (>= 3 points) and
the other a face or an edge, the incident feature is clipped to the reference face's side
planes (the planes through its edges containing n; Sutherland-Hodgman, as box.py does for
boxes), and each clipped point x is a contact at its height over the reference shape's
support plane: d = n.x - max_A n.a (reference A) or min_B n.b - n.x (reference B). Faces are
put in order by gift wrapping their points projected on the plane normal to n (Jarvis 1973).
Otherwise, or if no clipped point is within the margin, the single contact stands.
"""

import numpy as np

from .._jit import jit
from .geoms import BOX, CYLINDER, MAX_PAIR, write

FEATURE_TOL = 1e-3  # [m] a vertex this close to the support plane belongs to the feature
MAXF = 16  # most points of one feature (further vertices of a large face are left out)
CYLINDER_RIM = 8  # points on a cylinder's rim: the inscribed octagon stands for its disk
_A, _B, _P, _Q = 0, 3 * MAXF, 6 * MAXF, 12 * MAXF  # wf: features, clip buffers (2 MAXF)
WF_MANIFOLD = 18 * MAXF


@jit
def _vertex(t, size, v, p, R, i):
    """World vertex i of a box (its 8 corners) or of a convex set."""
    if t == BOX:
        x0 = size[0] if i & 1 else -size[0]
        x1 = size[1] if i & 2 else -size[1]
        x2 = size[2] if i & 4 else -size[2]
    else:
        x0, x1, x2 = v[i, 0], v[i, 1], v[i, 2]
    return (p[0] + R[0, 0] * x0 + R[0, 1] * x1 + R[0, 2] * x2,
            p[1] + R[1, 0] * x0 + R[1, 1] * x1 + R[1, 2] * x2,
            p[2] + R[2, 0] * x0 + R[2, 1] * x1 + R[2, 2] * x2)


@jit
def _cylinder(size, p, R, n0, n1, n2, sg, tol, wf, o):
    """A cylinder's feature along sg n: its end disk facing that way if the disk is within tol
    of the support plane (CYLINDER_RIM points of its rim, the lowest first), both ends' lowest
    rim points if its side is (a lying cylinder), else the lowest rim point alone."""
    r, h = size[0], size[1]
    a0, a1, a2 = R[0, 2], R[1, 2], R[2, 2]
    na = sg * (n0 * a0 + n1 * a1 + n2 * a2)
    u0, u1, u2 = sg * n0 - na * a0, sg * n1 - na * a1, sg * n2 - na * a2  # outwards in the disk
    L = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    if L < 1e-12:
        u0, u1, u2 = R[0, 0], R[1, 0], R[2, 0]
    else:
        u0, u1, u2 = u0 / L, u1 / L, u2 / L
    w0, w1, w2 = a1 * u2 - a2 * u1, a2 * u0 - a0 * u2, a0 * u1 - a1 * u0
    e = h if na > 0.0 else -h  # the end nearer the support plane
    hmax = sg * (n0 * p[0] + n1 * p[1] + n2 * p[2]) + abs(na) * h + r * L
    m = 0
    if 2.0 * r * L <= tol:  # the disk is flat on the plane: its rim
        for k in range(CYLINDER_RIM):
            c, sn = np.cos(2 * np.pi * k / CYLINDER_RIM), np.sin(2 * np.pi * k / CYLINDER_RIM)
            wf[o + 3 * m] = p[0] + e * a0 + r * (c * u0 + sn * w0)
            wf[o + 3 * m + 1] = p[1] + e * a1 + r * (c * u1 + sn * w1)
            wf[o + 3 * m + 2] = p[2] + e * a2 + r * (c * u2 + sn * w2)
            m += 1
    else:
        for s_ in (e, -e):
            if s_ != e and 2.0 * h * abs(na) > tol:
                break  # the far end is off the plane: one point
            wf[o + 3 * m] = p[0] + s_ * a0 + r * u0
            wf[o + 3 * m + 1] = p[1] + s_ * a1 + r * u1
            wf[o + 3 * m + 2] = p[2] + s_ * a2 + r * u2
            m += 1
    return _wrap(wf, o, m, n0, n1, n2), hmax


@jit
def _feature(t, size, v, p, R, n0, n1, n2, sg, tol, wf, o):
    """Vertices x with sg n.x within tol of its maximum, to wf[o:], ordered counter-clockwise
    about n; returns (count, max sg n.x)."""
    if t == CYLINDER:
        return _cylinder(size, p, R, n0, n1, n2, sg, tol, wf, o)
    nv = 8 if t == BOX else v.shape[0]
    h = -np.inf
    for i in range(nv):
        x = _vertex(t, size, v, p, R, i)
        h = max(h, sg * (n0 * x[0] + n1 * x[1] + n2 * x[2]))
    m = 0
    for i in range(nv):
        x = _vertex(t, size, v, p, R, i)
        if sg * (n0 * x[0] + n1 * x[1] + n2 * x[2]) >= h - tol and m < MAXF:
            wf[o + 3 * m], wf[o + 3 * m + 1], wf[o + 3 * m + 2] = x[0], x[1], x[2]
            m += 1
    return _wrap(wf, o, m, n0, n1, n2), h


@jit
def _turn(wf, a, b, c, n0, n1, n2):
    """n.((b - a) x (c - a)): positive if a, b, c turn counter-clockwise about n."""
    u0, u1, u2 = wf[b] - wf[a], wf[b + 1] - wf[a + 1], wf[b + 2] - wf[a + 2]
    e0, e1, e2 = wf[c] - wf[a], wf[c + 1] - wf[a + 1], wf[c + 2] - wf[a + 2]
    return n0 * (u1 * e2 - u2 * e1) + n1 * (u2 * e0 - u0 * e2) + n2 * (u0 * e1 - u1 * e0)


@jit
def _wrap(wf, o, m, n0, n1, n2):
    """Reorder the m points at wf[o:] as their convex hull, counter-clockwise about n (gift
    wrapping; points inside or in the middle of an edge are dropped); returns its size."""
    if m < 3:
        return m
    ax0, ax1, ax2 = (1.0, 0.0, 0.0) if abs(n0) < 0.9 else (0.0, 1.0, 0.0)
    an = ax0 * n0 + ax1 * n1 + ax2 * n2  # the axis projected on the plane normal to n
    ax0, ax1, ax2 = ax0 - an * n0, ax1 - an * n1, ax2 - an * n2
    start = 0  # the point lowest along an in-plane axis is on the hull
    for i in range(1, m):
        if (wf[o + 3 * i] * ax0 + wf[o + 3 * i + 1] * ax1 + wf[o + 3 * i + 2] * ax2
                < wf[o + 3 * start] * ax0 + wf[o + 3 * start + 1] * ax1
                + wf[o + 3 * start + 2] * ax2):
            start = i
    h, cur = 0, start
    while h < m:
        wf[_Q + h] = cur  # hull indices, as floats, in the clip buffer (free here)
        h += 1
        nxt = 0 if cur != 0 else 1
        for i in range(m):
            if i == cur or i == nxt:
                continue
            t = _turn(wf, o + 3 * cur, o + 3 * nxt, o + 3 * i, n0, n1, n2)
            if t < -1e-20 or (abs(t) <= 1e-20 and _d2(wf, o, cur, i) > _d2(wf, o, cur, nxt)):
                nxt = i  # i is clockwise of cur -> nxt (or farther on its line)
        cur = nxt
        if cur == start:
            break
    for j in range(h):
        i = int(wf[_Q + j])
        for c in range(3):
            wf[_P + 3 * j + c] = wf[o + 3 * i + c]
    for c in range(3 * h):
        wf[o + c] = wf[_P + c]
    return h


@jit
def _d2(wf, o, i, j):
    return ((wf[o + 3 * i] - wf[o + 3 * j]) ** 2 + (wf[o + 3 * i + 1] - wf[o + 3 * j + 1]) ** 2
            + (wf[o + 3 * i + 2] - wf[o + 3 * j + 2]) ** 2)


@jit
def _side(wf, x, a, c0, c1, c2):
    return c0 * (wf[x] - wf[a]) + c1 * (wf[x + 1] - wf[a + 1]) + c2 * (wf[x + 2] - wf[a + 2])


@jit
def _clip(wf, src, n, dst, a, b, n0, n1, n2):
    """Keep the part of the polygon (or segment, n = 2) wf[src:] on the inner side of the
    plane through edge a -> b (points at wf[a], wf[b]) that contains n; into dst, returns
    its size."""
    if n == 0:
        return 0
    e0, e1, e2 = wf[b] - wf[a], wf[b + 1] - wf[a + 1], wf[b + 2] - wf[a + 2]
    c0, c1, c2 = n1 * e2 - n2 * e1, n2 * e0 - n0 * e2, n0 * e1 - n1 * e0  # n x e: inwards
    m = 0
    for i in range(n if n > 2 else 1):
        P, Q = src + 3 * i, src + 3 * ((i + 1) % n)
        dp, dq = _side(wf, P, a, c0, c1, c2), _side(wf, Q, a, c0, c1, c2)
        if dp >= 0.0:
            for c in range(3):
                wf[dst + 3 * m + c] = wf[P + c]
            m += 1
        if (dp < 0.0 < dq) or (dq < 0.0 < dp):
            t = dp / (dp - dq)
            for c in range(3):
                wf[dst + 3 * m + c] = wf[P + c] + t * (wf[Q + c] - wf[P + c])
            m += 1
        if n == 2 and dq >= 0.0:  # a segment: its second end
            for c in range(3):
                wf[dst + 3 * m + c] = wf[Q + c]
            m += 1
    return m


@jit
def face_manifold(t1, s1, v1, p1, R1, t2, s2, v2, p2, R2, n0, n1, n2, margin, con, k, wf):
    """Contacts where a face of polytope 1 or 2 meets a face or an edge of the other, normal n
    from 1 to 2, into con[k:] (at most MAX_PAIR); returns their number, 0 if the features are
    not a face and a face or edge (the caller keeps its single contact)."""
    na, ha = _feature(t1, s1, v1, p1, R1, n0, n1, n2, 1.0, FEATURE_TOL, wf, _A)
    nb, hb = _feature(t2, s2, v2, p2, R2, n0, n1, n2, -1.0, FEATURE_TOL, wf, _B)
    if max(na, nb) < 3 or min(na, nb) < 2:
        return 0
    ref, nr, inc, ni = (_A, na, _B, nb) if na >= nb else (_B, nb, _A, na)
    for c in range(3 * ni):
        wf[_P + c] = wf[inc + c]
    m, src, dst = ni, _P, _Q
    for e in range(nr):
        a, b = ref + 3 * e, ref + 3 * ((e + 1) % nr)  # both features: counter-clockwise about n
        m = _clip(wf, src, m, dst, a, b, n0, n1, n2)
        src, dst = dst, src
    out = 0
    for i in range(m):
        x0, x1, x2 = wf[src + 3 * i], wf[src + 3 * i + 1], wf[src + 3 * i + 2]
        z = n0 * x0 + n1 * x1 + n2 * x2
        d = z - ha if ref == _A else -hb - z
        if d >= margin or out >= MAX_PAIR:
            continue
        s = -0.5 * d if ref == _A else 0.5 * d  # to the midpoint of x and its witness
        out += write(con, k + out, x0 + s * n0, x1 + s * n1, x2 + s * n2, n0, n1, n2, d)
    return out
