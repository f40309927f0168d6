"""Box against box: the separating-axis test, then a contact manifold by face clipping.

Separating axes of two boxes (Gottschalk, Lin, Manocha, "OBBTree", SIGGRAPH 1996): the 3 face
normals of each and the 9 cross products of their edges. Every axis gives an overlap
r1 + r2 - |t.L| of the boxes' projections; a negative one separates them (and bounds their
distance from below, so a pair beyond the margin stops there). Overlapping boxes penetrate by
the least overlap, along its axis (the faces of the Minkowski difference of two boxes are
those 15 directions). Separated boxes within the margin take GJK's exact distance (gjk.py).
When the normal is a face normal (penetration along a face axis, or a separated vertex or
face over a face), the most anti-parallel face of the other box (the incident face) is clipped
to the reference face's side planes (Sutherland-Hodgman), and each clipped corner within the
margin is a contact at its height over the reference face (up to 8; 4 for a box on a box):
the manifold of ODE's and MuJoCo's box-box routines. Otherwise (edge against edge) one contact
at the edges' closest points (or at GJK's witness points).
"""

import numpy as np

from .._jit import jit
from .geoms import BOX, write
from .gjk import gjk, witnesses

FACE_COS = 1.0 - 1e-9  # a normal this aligned with a face normal is that face's
TOUCH = 1e-10  # [m] a separating gap below this is touching: SAT's axis is the normal


@jit
def _axis(R1, R2, a, b):
    """World axis: face normal a of box 1 (a < 3), of box 2 (b < 3), or their edges' cross."""
    if b < 0:
        return R1[0, a], R1[1, a], R1[2, a]
    if a < 0:
        return R2[0, b], R2[1, b], R2[2, b]
    x0, x1, x2 = R1[1, a] * R2[2, b] - R1[2, a] * R2[1, b], \
        R1[2, a] * R2[0, b] - R1[0, a] * R2[2, b], R1[0, a] * R2[1, b] - R1[1, a] * R2[0, b]
    L = np.sqrt(x0 * x0 + x1 * x1 + x2 * x2)
    if L < 1e-9:  # parallel edges: the face axes cover this direction
        return 0.0, 0.0, 0.0
    return x0 / L, x1 / L, x2 / L


@jit
def _overlap(p1, R1, s1, p2, R2, s2, u0, u1, u2):
    """Overlap of the boxes' projections on the unit axis u, and the sign of (p2 - p1).u."""
    r = 0.0
    for k in range(3):
        r += s1[k] * abs(R1[0, k] * u0 + R1[1, k] * u1 + R1[2, k] * u2)
        r += s2[k] * abs(R2[0, k] * u0 + R2[1, k] * u1 + R2[2, k] * u2)
    c = (p2[0] - p1[0]) * u0 + (p2[1] - p1[1]) * u1 + (p2[2] - p1[2]) * u2
    return r - abs(c), (1.0 if c >= 0.0 else -1.0)


@jit
def _clip(wf, src, n, dst, ax, sg, lim):
    """Keep the part of polygon wf[src:src+3n] with sg x[ax] <= lim, into dst; returns size."""
    m = 0
    for e in range(n):
        P, Q = src + 3 * e, src + 3 * ((e + 1) % n)
        dp, dq = sg * wf[P + ax] - lim, sg * wf[Q + ax] - lim
        if dp <= 0.0:
            for c in range(3):
                wf[dst + 3 * m + c] = wf[P + c]
            m += 1
        if (dp < 0.0 < dq) or (dq < 0.0 < dp):
            t = dp / (dp - dq)
            for c in range(3):
                wf[dst + 3 * m + c] = wf[P + c] + t * (wf[Q + c] - wf[P + c])
            m += 1
    return m


@jit
def _faces(pA, RA, sA, i, sgn, pB, RB, sB, flip, margin, con, k, wf):
    """Clip box B's incident face to face (i, sgn) of box A, contacts within the margin; the
    normal is A's face normal m (from A to B), or -m if flip (A is geom 2)."""
    m0, m1, m2 = sgn * RA[0, i], sgn * RA[1, i], sgn * RA[2, i]
    j, best = 0, 0.0
    for c in range(3):
        x = m0 * RB[0, c] + m1 * RB[1, c] + m2 * RB[2, c]
        if abs(x) > abs(best):
            j, best = c, x
    tau = -1.0 if best > 0.0 else 1.0  # B's face whose normal opposes m
    ja, jb = (j + 1) % 3, (j + 2) % 3
    for q in range(4):  # incident corners, in A's frame
        ea = sB[ja] if q == 0 or q == 3 else -sB[ja]
        eb = sB[jb] if q < 2 else -sB[jb]
        w0 = pB[0] - pA[0] + RB[0, j] * tau * sB[j] + RB[0, ja] * ea + RB[0, jb] * eb
        w1 = pB[1] - pA[1] + RB[1, j] * tau * sB[j] + RB[1, ja] * ea + RB[1, jb] * eb
        w2 = pB[2] - pA[2] + RB[2, j] * tau * sB[j] + RB[2, ja] * ea + RB[2, jb] * eb
        for c in range(3):
            wf[3 * q + c] = RA[0, c] * w0 + RA[1, c] * w1 + RA[2, c] * w2
    ia, ib = (i + 1) % 3, (i + 2) % 3
    n = _clip(wf, 0, 4, 24, ia, 1.0, sA[ia])
    n = _clip(wf, 24, n, 0, ia, -1.0, sA[ia])
    n = _clip(wf, 0, n, 24, ib, 1.0, sA[ib])
    n = _clip(wf, 24, n, 0, ib, -1.0, sA[ib])
    sn = -1.0 if flip else 1.0
    out = 0
    for q in range(n):
        x0, x1, x2 = wf[3 * q], wf[3 * q + 1], wf[3 * q + 2]
        h = sgn * (x0, x1, x2)[i] - sA[i]
        if h >= margin:
            continue
        X0 = pA[0] + RA[0, 0] * x0 + RA[0, 1] * x1 + RA[0, 2] * x2 - 0.5 * h * m0
        X1 = pA[1] + RA[1, 0] * x0 + RA[1, 1] * x1 + RA[1, 2] * x2 - 0.5 * h * m1
        X2 = pA[2] + RA[2, 0] * x0 + RA[2, 1] * x1 + RA[2, 2] * x2 - 0.5 * h * m2
        out += write(con, k + out, X0, X1, X2, sn * m0, sn * m1, sn * m2, h)
    return out


@jit
def _edge(p, R, s, a, n0, n1, n2, sg):
    """Middle of the edge of box (p, R, s) along axis a that supports sg n."""
    x0, x1, x2 = p[0], p[1], p[2]
    for c in range(3):
        if c != a:
            e = s[c] if sg * (n0 * R[0, c] + n1 * R[1, c] + n2 * R[2, c]) > 0.0 else -s[c]
            x0, x1, x2 = x0 + e * R[0, c], x1 + e * R[1, c], x2 + e * R[2, c]
    return x0, x1, x2


@jit
def _edges(p1, R1, s1, p2, R2, s2, a, b, n0, n1, n2, dist, con, k):
    """One contact at the closest points of box 1's edge along axis a that supports n and box
    2's edge along axis b that supports -n (closest points of two lines, Ericson 5.1.8)."""
    e = _edge(p1, R1, s1, a, n0, n1, n2, 1.0)
    f = _edge(p2, R2, s2, b, n0, n1, n2, -1.0)
    w0, w1, w2 = e[0] - f[0], e[1] - f[1], e[2] - f[2]
    bb = R1[0, a] * R2[0, b] + R1[1, a] * R2[1, b] + R1[2, a] * R2[2, b]
    c = R1[0, a] * w0 + R1[1, a] * w1 + R1[2, a] * w2
    g = R2[0, b] * w0 + R2[1, b] * w1 + R2[2, b] * w2
    den = 1.0 - bb * bb
    s = min(s1[a], max(-s1[a], (bb * g - c) / den))
    t = min(s2[b], max(-s2[b], bb * s + g))
    x0 = 0.5 * (e[0] + s * R1[0, a] + f[0] + t * R2[0, b])
    x1 = 0.5 * (e[1] + s * R1[1, a] + f[1] + t * R2[1, b])
    x2 = 0.5 * (e[2] + s * R1[2, a] + f[2] + t * R2[2, b])
    return write(con, k, x0, x1, x2, n0, n1, n2, dist)


@jit
def box_box(p1, R1, s1, p2, R2, s2, margin, con, k, wf):
    """Boxes (p_i, R_i, half-sizes s_i): up to 8 contacts (see above); normal from box 1 to
    box 2. wf: float64 workspace of at least gjk.WF_SIMPLEX and 48 entries."""
    best, ba, bb, bs, bu0, bu1, bu2 = np.inf, -1, -1, 1.0, 0.0, 0.0, 0.0
    for ax in range(15):
        if ax < 3:
            a, b = ax, -1
        elif ax < 6:
            a, b = -1, ax - 3
        else:
            a, b = (ax - 6) // 3, (ax - 6) % 3
        u0, u1, u2 = _axis(R1, R2, a, b)
        if u0 == 0.0 and u1 == 0.0 and u2 == 0.0:
            continue
        ov, sg = _overlap(p1, R1, s1, p2, R2, s2, u0, u1, u2)
        if ov < -margin:
            return 0  # separated by more than the margin along this axis
        if ov < best - (1e-12 if ax >= 6 else 0.0):  # face axes win ties
            best, ba, bb, bs, bu0, bu1, bu2 = ov, a, b, sg, u0, u1, u2
    none = con[0:0]  # boxes have no vertex rows
    if best < -TOUCH:  # separated within the margin: GJK's distance and normal
        n, vv = gjk(BOX, s1, none, p1, R1, BOX, s2, none, p2, R2, wf, margin)
        if n == 0:
            return 0
        wa, wb = witnesses(wf, n)
        n0, n1, n2 = wb[0] - wa[0], wb[1] - wa[1], wb[2] - wa[2]
        d = np.sqrt(n0 * n0 + n1 * n1 + n2 * n2)  # >= the SAT gap > TOUCH
        if d >= margin:
            return 0
        n0, n1, n2 = n0 / d, n1 / d, n2 / d
        i, ci, j, cj = 0, 0.0, 0, 0.0
        for c in range(3):
            x = n0 * R1[0, c] + n1 * R1[1, c] + n2 * R1[2, c]
            y = n0 * R2[0, c] + n1 * R2[1, c] + n2 * R2[2, c]
            if abs(x) > abs(ci):
                i, ci = c, x
            if abs(y) > abs(cj):
                j, cj = c, y
        m = 0
        if max(abs(ci), abs(cj)) > FACE_COS:
            if abs(ci) >= abs(cj):
                m = _faces(p1, R1, s1, i, 1.0 if ci > 0.0 else -1.0, p2, R2, s2, False,
                           margin, con, k, wf)
            else:
                m = _faces(p2, R2, s2, j, -1.0 if cj > 0.0 else 1.0, p1, R1, s1, True,
                           margin, con, k, wf)
        if m > 0:
            return m
        return write(con, k, 0.5 * (wa[0] + wb[0]), 0.5 * (wa[1] + wb[1]),
                     0.5 * (wa[2] + wb[2]), n0, n1, n2, d)
    n0, n1, n2 = bs * bu0, bs * bu1, bs * bu2  # from box 1 to box 2
    if bb < 0:
        m = _faces(p1, R1, s1, ba, bs, p2, R2, s2, False, margin, con, k, wf)
    elif ba < 0:
        m = _faces(p2, R2, s2, bb, -bs, p1, R1, s1, True, margin, con, k, wf)
    else:
        return _edges(p1, R1, s1, p2, R2, s2, ba, bb, n0, n1, n2, -best, con, k)
    if m > 0:
        return m
    # touching (|overlap| <= TOUCH) or no clipped corner (a deep, off-centre overlap): the
    # incident box's deepest vertex,
    # the witness on geom 2 (reference face on box 1) or on geom 1; pos = witness -+ dist/2 n
    if bb < 0:
        x, h = _edge(p2, R2, s2, -1, n0, n1, n2, -1.0), 0.5 * best
    else:
        x, h = _edge(p1, R1, s1, -1, n0, n1, n2, 1.0), -0.5 * best
    return write(con, k, x[0] + h * n0, x[1] + h * n1, x[2] + h * n2, n0, n1, n2, -best)
