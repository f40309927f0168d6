"""Random shapes and poses for the collision tests, and coal's answer for them (the oracle).

Each case is a pair of shapes in seeded random orientations, geom 2 moved along a direction
until coal's signed distance is a target (bisection on coal alone: nothing of fastdyn's sets
the pose). coal's conventions (coal docs, coal::Capsule / coal::Cylinder along z with their
full length, coal::Box full sides, coal::Halfspace {x: n.x <= d}, DistanceResult normal from
o1 to o2, signed distance negative in penetration) are mapped here to fastdyn's geoms.
"""

from __future__ import annotations

import numpy as np

TYPES = ("plane", "sphere", "capsule", "ellipsoid", "cylinder", "box", "convex")
# pairs with an analytic routine (MuJoCo's list); the others go through GJK/EPA
ANALYTIC = {("plane", t) for t in TYPES[1:]} | {
    ("sphere", "sphere"), ("sphere", "capsule"), ("sphere", "box"), ("capsule", "capsule"),
    ("capsule", "box"), ("box", "box")}
PAIRS = [(a, b) for i, a in enumerate(TYPES) for b in TYPES[i:] if (a, b) != ("plane", "plane")]


def rotation(rng) -> np.ndarray:
    x, y, z, w = rng.normal(size=4) / 1.0
    n = np.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def shape(coal, t: str, rng):
    """(fastdyn geom description, coal geometry) of a random shape of type t."""
    u = lambda: rng.uniform(0.06, 0.2)  # noqa: E731
    if t == "plane":
        return dict(type=t), coal.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0)
    if t == "sphere":
        r = u()
        return dict(type=t, size=(r,)), coal.Sphere(r)
    if t in ("capsule", "cylinder"):
        r, h = u(), u()
        return dict(type=t, size=(r, h)), (coal.Capsule if t == "capsule" else coal.Cylinder)(
            r, 2 * h)
    if t == "ellipsoid":
        s = (u(), u(), u())
        return dict(type=t, size=s), coal.Ellipsoid(*s)
    if t == "box":
        s = np.array([u(), u(), u()])
        return dict(type=t, size=s), coal.Box(*(2 * s))
    v = rng.normal(size=(16, 3)) * np.array([u(), u(), u()])
    pts = coal.StdVec_Vec3s()
    for p in v:
        pts.append(p)
    return dict(type=t, vertices=v), coal.Convex.convexHull(pts, False, None)


def support_value(desc, R, p, d):
    """max over the shape (placed at p, R) of d.x, by closed forms per type (numpy): a
    sphere's |d| r, a box's sum |d_k| s_k, an ellipsoid's |S d|, a cylinder's
    h |d_z| + r |d_xy| (local d), a vertex set's max; a plane's is finite along its normal."""
    t, a = desc["type"], R.T @ d
    nd = np.linalg.norm(d)
    if t == "plane":
        return np.inf if abs(a[0]) + abs(a[1]) > 1e-12 or a[2] < 0 else d @ p
    if t == "sphere":
        return d @ p + desc["size"][0] * nd
    if t == "capsule":
        r, h = desc["size"]
        return d @ p + h * abs(a[2]) + r * nd
    if t == "ellipsoid":
        return d @ p + np.linalg.norm(np.asarray(desc["size"]) * a)
    if t == "cylinder":
        r, h = desc["size"]
        return d @ p + h * abs(a[2]) + r * np.hypot(a[0], a[1])
    if t == "box":
        return d @ p + np.abs(a) @ np.asarray(desc["size"])
    return d @ p + (np.asarray(desc["vertices"]) @ a).max()


def transform(coal, R, p):
    T = coal.Transform3s()
    T.setRotation(np.asarray(R, dtype=float))
    T.setTranslation(np.asarray(p, dtype=float))
    return T


def coal_distance(coal, g1, T1, g2, T2):
    """coal's signed distance, normal (o1 -> o2) and nearest points, at tight tolerances."""
    req = coal.DistanceRequest()
    req.gjk_tolerance, req.epa_tolerance = 1e-13, 1e-13
    req.gjk_max_iterations, req.epa_max_iterations = 1000, 1000
    res = coal.DistanceResult()
    d = coal.distance(g1, T1, g2, T2, req, res)
    return d, np.array(res.normal), np.array(res.getNearestPoint1()), \
        np.array(res.getNearestPoint2())


def case(coal, a: str, b: str, target: float, rng):
    """Two random shapes and placements with coal's signed distance at target."""
    d1, c1 = shape(coal, a, rng)
    d2, c2 = shape(coal, b, rng)
    R1, R2 = rotation(rng), rotation(rng)
    u = R1[:, 2] if a == "plane" else rotation(rng)[:, 0]
    T1 = transform(coal, R1, np.zeros(3))
    lo, hi = (-0.5 if a == "plane" else 0.0), 2.0
    for _ in range(200):
        s = 0.5 * (lo + hi)
        if coal_distance(coal, c1, T1, c2, transform(coal, R2, s * u))[0] < target:
            lo = s
        else:
            hi = s
        if hi - lo < 1e-15:
            break
    p2 = 0.5 * (lo + hi) * u
    return d1, d2, R1, R2, p2, coal_distance(coal, c1, T1, c2, transform(coal, R2, p2))
