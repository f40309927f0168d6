"""Contact manifolds with closed forms: a box resting on a plane touches at its 4 bottom
corners, a box on a box at the corners of the overlap polygon of the two faces (computed here
by brute force: corners of each face inside the other and crossings of their edges), a
standing cylinder on a triangle of its rim, lying capsules at both ends, two spheres at
|c2 - c1| - r1 - r2."""

import numpy as np
import pytest

from fastdyn.sim import collision as col


def _rz(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _T(R=np.eye(3), p=(0.0, 0.0, 0.0)):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def _pair(g1, g2, T1, T2):
    tab = col.geom_table([g1, dict(g2, body=1)])
    return col.collide_pair(tab, 0, 1, np.stack([T1, T2]))


def _same_points(a, b, tol):
    """Every row of a matches a row of b and vice versa (as sets, within tol)."""
    d = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    return len(a) == len(b) and d.min(axis=1).max() < tol and d.min(axis=0).max() < tol


@pytest.mark.parametrize("depth", [0.003, -0.002])  # penetrating, and 2 mm above (margin)
def test_box_on_a_tilted_plane_touches_at_its_four_bottom_corners(depth):
    rng = np.random.default_rng(3)
    s = np.array([0.3, 0.2, 0.1])
    Rp = _rz(0.4) @ np.array([[1, 0, 0], [0, np.cos(0.3), -np.sin(0.3)],
                              [0, np.sin(0.3), np.cos(0.3)]])
    pp = rng.normal(size=3)
    Rb = Rp @ _rz(1.1)  # the box's bottom face on the plane, turned about the normal
    pb = pp + Rp @ np.array([0.5, -0.2, s[2] - depth])
    c = _pair(dict(type="plane", margin=0.01), dict(type="box", size=s), _T(Rp, pp), _T(Rb, pb))
    n = Rp[:, 2]
    corners = np.array([pb + Rb @ (np.array([x, y, -1.0]) * s)
                        for x in (-1, 1) for y in (-1, 1)])
    assert len(c.dist) == 4
    np.testing.assert_allclose(c.dist, -depth, atol=1e-15)  # 0 achieved with exact inputs
    np.testing.assert_allclose(c.normal, np.tile(n, (4, 1)), atol=1e-15)
    assert _same_points(c.pos, corners + depth / 2 * n, 1e-14)


def _overlap_polygon(A, B):
    """Vertices of the intersection of two convex polygons (counter-clockwise (n, 2)), by brute
    force: vertices of each inside the other and crossings of their edges."""
    def inside(p, P):
        e = np.roll(P, -1, axis=0) - P
        return np.all(e[:, 0] * (p[1] - P[:, 1]) - e[:, 1] * (p[0] - P[:, 0]) >= -1e-12)
    pts = [p for p in A if inside(p, B)] + [p for p in B if inside(p, A)]
    for i in range(len(A)):
        a0, a1 = A[i], A[(i + 1) % len(A)]
        for j in range(len(B)):
            b0, b1 = B[j], B[(j + 1) % len(B)]
            M = np.array([a1 - a0, b0 - b1]).T
            if abs(np.linalg.det(M)) < 1e-14:
                continue
            t, u = np.linalg.solve(M, b0 - a0)
            if 0 < t < 1 and 0 < u < 1:
                pts.append(a0 + t * (a1 - a0))
    return np.array(pts)


@pytest.mark.parametrize("yaw, offset, n", [(0.0, (0.25, 0.1), 4), (np.pi / 4, (0.0, 0.0), 8),
                                            (0.3, (0.2, -0.15), None)])
def test_box_on_a_box_touches_at_the_corners_of_the_faces_overlap(yaw, offset, n):
    sa, sb, depth = np.array([0.3, 0.3, 0.2]), np.array([0.3, 0.3, 0.1]), 0.004
    pb = np.array([offset[0], offset[1], sa[2] + sb[2] - depth])
    c = _pair(dict(type="box", size=sa), dict(type="box", size=sb), _T(), _T(_rz(yaw), pb))
    top = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * sa[:2]
    bottom = (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * sb[:2]) @ _rz(yaw)[:2, :2].T \
        + pb[:2]
    poly = _overlap_polygon(top, bottom)
    if n is not None:
        assert len(poly) == n
    assert len(c.dist) == len(poly)
    np.testing.assert_allclose(c.dist, -depth, atol=1e-15)  # 5e-17 achieved
    np.testing.assert_allclose(c.normal, np.tile([0.0, 0.0, 1.0], (len(poly), 1)), atol=1e-15)
    z = sa[2] - depth / 2  # halfway between the two faces
    assert _same_points(c.pos, np.c_[poly, np.full(len(poly), z)], 1e-14)


def test_a_standing_cylinder_rests_on_a_triangle_and_a_lying_one_on_two_points():
    r, h, d = 0.1, 0.2, 0.001
    c = _pair(dict(type="plane"), dict(type="cylinder", size=(r, h)), _T(),
              _T(_rz(0.7), (0.3, 0.2, h - d)))
    assert len(c.dist) == 3
    np.testing.assert_allclose(c.dist, -d, atol=1e-15)
    rim = np.linalg.norm(c.pos[:, :2] - [0.3, 0.2], axis=1)
    np.testing.assert_allclose(rim, r, atol=1e-15)
    e = c.pos[:, :2] - c.pos[:, :2].mean(axis=0)  # an equilateral triangle about the axis
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), r, atol=1e-15)
    lying = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])  # the axis along world -y
    c = _pair(dict(type="plane"), dict(type="cylinder", size=(r, h)), _T(),
              _T(lying, (0.0, 0.0, r - d)))
    assert len(c.dist) == 2
    np.testing.assert_allclose(np.sort(c.pos[:, 1]), [-h, h], atol=1e-15)
    np.testing.assert_allclose(c.dist, -d, atol=1e-15)


def test_lying_capsules_touch_at_both_ends():
    r, h, d = 0.05, 0.2, 0.002
    lying = np.array([[0, 0, 1.0], [0, 1, 0], [-1, 0, 0]])  # z axis along world x
    c = _pair(dict(type="plane"), dict(type="capsule", size=(r, h)), _T(), _T(lying, (0, 0, r - d)))
    np.testing.assert_allclose(np.sort(c.pos[:, 0]), [-h, h], atol=1e-15)
    np.testing.assert_allclose(c.dist, -d, atol=1e-15)
    box = dict(type="box", size=(0.5, 0.5, 0.1))
    c = _pair(dict(type="capsule", size=(r, h)), box, _T(lying, (0.1, 0, 0.1 + r - d)), _T())
    assert len(c.dist) >= 2
    np.testing.assert_allclose(c.dist, -d, atol=1e-15)
    np.testing.assert_allclose(c.normal, np.tile([0, 0, -1.0], (len(c.dist), 1)), atol=1e-15)
    for end in (0.1 - h, 0.1 + h):
        assert np.abs(c.pos[:, 0] - end).min() < 1e-15
    c = _pair(dict(type="capsule", size=(r, h)), dict(type="capsule", size=(r, h)),
              _T(lying, (0, 0, 0)), _T(lying, (0.05, 0, 2 * r - d)))
    assert len(c.dist) >= 2
    np.testing.assert_allclose(c.dist, -d, atol=1e-15)


def test_sphere_sphere_distance_is_the_centres_distance_minus_the_radii():
    c = _pair(dict(type="sphere", size=(0.3,), margin=1.0), dict(type="sphere", size=(0.2,)),
              _T(p=(1.0, 2.0, 3.0)), _T(p=(1.3, 2.4, 3.0)))  # centres 0.5 apart
    np.testing.assert_allclose(c.dist, [0.0], atol=1e-15)
    np.testing.assert_allclose(c.normal, [[0.6, 0.8, 0.0]], atol=1e-15)
    np.testing.assert_allclose(c.pos, [[1.18, 2.24, 3.0]], atol=1e-15)
    c = _pair(dict(type="sphere", size=(0.3,), margin=1.01), dict(type="sphere", size=(0.2,)),
              _T(p=(0.0, 0.0, 0.0)), _T(p=(0.0, 0.0, 1.5)))
    np.testing.assert_allclose(c.dist, [1.0], atol=1e-15)
    c = _pair(dict(type="sphere", size=(0.3,), margin=0.99), dict(type="sphere", size=(0.2,)),
              _T(p=(0.0, 0.0, 0.0)), _T(p=(0.0, 0.0, 1.5)))
    assert len(c.dist) == 0  # beyond the margin


def test_the_routines_run_inside_a_users_njit_code():
    import numba

    from fastdyn.kernels.collision.geoms import CW
    from fastdyn.kernels.collision.plane import plane_box

    @numba.njit
    def drop(z0, steps, con):  # a box falling onto the floor, stopped by its first contact
        p, R, s, zero = np.zeros(3), np.eye(3), np.array([0.1, 0.2, 0.3]), np.zeros(3)
        p[2] = z0
        for k in range(steps):
            p[2] -= 0.001
            n = plane_box(zero, R, p, R, s, 0.0, con, 0)
            if n:
                return k, n
        return steps, 0

    con = np.zeros((8, CW))
    k, n = drop(0.3505, 1000, con)
    assert n == 4 and k == 50  # the bottom face (z = p - 0.3) crosses 0 at step 50
    np.testing.assert_allclose(con[:4, 6], 0.3505 - 0.051 - 0.3, atol=1e-12)


def test_convex_sets_report_their_distance_within_the_margin_and_nothing_beyond():
    cube = np.array([[x, y, z] for x in (-0.1, 0.1) for y in (-0.1, 0.1) for z in (-0.1, 0.1)])
    for margin, n in ((0.25, 1), (0.15, 0)):  # the cubes' faces are 0.2 apart
        c = _pair(dict(type="convex", vertices=cube, margin=margin),
                  dict(type="ellipsoid", size=(0.1, 0.2, 0.3)), _T(), _T(p=(0.4, 0.05, 0.0)))
        assert len(c.dist) == n
        if n:  # the ellipsoid's tip along x is at 0.3: 0.2 from the cube's face x = 0.1
            np.testing.assert_allclose(c.dist, [0.2], atol=1e-12)  # 0 achieved
            np.testing.assert_allclose(c.normal, [[1.0, 0.0, 0.0]], atol=1e-9)


CUBE = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)


@pytest.mark.parametrize("lower", ["box", "convex"])
@pytest.mark.parametrize("yaw, offset, n", [(0.0, (0.25, 0.1), 4), (np.pi / 4, (0.0, 0.0), 8),
                                            (0.3, (0.2, -0.15), None)])
def test_a_convex_set_on_a_box_or_a_convex_set_touches_at_the_faces_overlap(lower, yaw, offset,
                                                                            n):
    """The same closed form as box on box, through GJK/EPA and the face manifold."""
    sa, sb, depth = np.array([0.3, 0.3, 0.2]), np.array([0.3, 0.3, 0.1]), 0.004
    pb = np.array([offset[0], offset[1], sa[2] + sb[2] - depth])
    g1 = dict(type="box", size=sa) if lower == "box" else dict(type="convex", vertices=CUBE * sa)
    c = _pair(g1, dict(type="convex", vertices=CUBE * sb), _T(), _T(_rz(yaw), pb))
    top = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * sa[:2]
    bottom = (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * sb[:2]) @ _rz(yaw)[:2, :2].T \
        + pb[:2]
    poly = _overlap_polygon(top, bottom)
    if n is not None:
        assert len(poly) == n
    assert len(c.dist) == len(poly)
    np.testing.assert_allclose(c.dist, -depth, atol=1e-15)
    np.testing.assert_allclose(c.normal, np.tile([0.0, 0.0, 1.0], (len(poly), 1)), atol=1e-15)
    assert _same_points(c.pos, np.c_[poly, np.full(len(poly), sa[2] - depth / 2)], 1e-14)


def test_a_slightly_tilted_convex_set_rests_on_its_four_corners_at_their_heights():
    sa, sb, th = np.array([0.3, 0.3, 0.2]), np.array([0.1, 0.1, 0.1]), 2e-4
    Rx = np.array([[1, 0, 0], [0, np.cos(th), -np.sin(th)], [0, np.sin(th), np.cos(th)]])
    pb = np.array([0.05, -0.02, sa[2] + sb[2] - 0.001])
    c = _pair(dict(type="box", size=sa), dict(type="convex", vertices=CUBE * sb), _T(),
              _T(Rx, pb))
    corners = np.array([pb + Rx @ (np.array([x, y, -1.0]) * sb) for x in (-1, 1)
                        for y in (-1, 1)])
    d = corners[:, 2] - sa[2]  # each corner's height over the lower box's top face
    assert len(c.dist) == 4
    got = sorted(zip(c.dist, map(tuple, c.pos)))
    want = sorted(zip(d, map(tuple, corners - np.c_[0 * d, 0 * d, d / 2])))
    np.testing.assert_allclose([g[0] for g in got], [w[0] for w in want], atol=1e-15)
    np.testing.assert_allclose([g[1] for g in got], [w[1] for w in want], atol=1e-15)


@pytest.mark.parametrize("lower", ["box", "convex"])
def test_a_cylinder_stands_on_its_rim_and_lies_on_its_two_ends(lower):
    sa, r, h, depth = np.array([0.5, 0.5, 0.2]), 0.1, 0.15, 0.002
    g1 = dict(type="box", size=sa) if lower == "box" else dict(type="convex", vertices=CUBE * sa)
    cyl = dict(type="cylinder", size=(r, h))
    c = _pair(g1, cyl, _T(), _T(_rz(0.3), (0.1, 0.05, sa[2] + h - depth)))
    assert len(c.dist) == 8  # the rim octagon, each point on the rim, at the depth
    np.testing.assert_allclose(c.dist, -depth, atol=1e-15)
    np.testing.assert_allclose(np.hypot(c.pos[:, 0] - 0.1, c.pos[:, 1] - 0.05), r, atol=1e-15)
    lying = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])  # the axis along world -y
    c = _pair(g1, cyl, _T(), _T(lying, (0.1, 0.05, sa[2] + r - depth)))
    assert len(c.dist) == 2
    np.testing.assert_allclose(c.dist, -depth, atol=1e-15)
    np.testing.assert_allclose(np.sort(c.pos[:, 1]), [0.05 - h, 0.05 + h], atol=1e-15)
    np.testing.assert_allclose(c.pos[:, 0], 0.1, atol=1e-15)


@pytest.mark.parametrize("where,centre,dist,normal", [
    # cylinder radius 0.2, half-length 0.3, axis z; sphere radius 0.1; normal sphere -> cylinder
    ("side", (0.25, 0.0, 0.1), 0.25 - 0.2 - 0.1, (-1.0, 0.0, 0.0)),
    ("cap", (0.05, 0.1, 0.38), 0.38 - 0.3 - 0.1, (0.0, 0.0, -1.0)),
    ("rim", (0.2 + 0.06, 0.0, 0.3 + 0.08), 0.1 - 0.1, (-0.6, 0.0, -0.8)),
    ("inside, nearer the side", (0.0, -0.15, 0.0), -(0.2 - 0.15) - 0.1, (0.0, 1.0, 0.0)),
    ("inside, nearer a cap", (0.0, 0.05, -0.28), -(0.3 - 0.28) - 0.1, (0.0, 0.0, 1.0)),
])
def test_sphere_cylinder_is_the_closest_point_of_the_solid_cylinder(where, centre, dist,
                                                                    normal):
    """A sphere beside the side, above a cap, off a rim (a 3-4-5 offset), and with its centre
    inside the cylinder nearer the side or a cap, in a turned and moved frame: the distance,
    normal and point of each case's closed form (both rotated), to round-off. The cylinder
    given first gives the same contact with the normal reversed."""
    R = _rz(0.7) @ np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    p = np.array([0.3, -0.2, 1.1])
    sphere, cyl = dict(type="sphere", size=(0.1,), margin=0.1), dict(type="cylinder",
                                                                    size=(0.2, 0.3))
    c = _pair(sphere, cyl, _T(p=p + R @ np.array(centre)), _T(R, p))
    n = R @ np.array(normal)
    np.testing.assert_allclose(c.dist, [dist], atol=1e-15)
    np.testing.assert_allclose(c.normal, [n], atol=1e-15)
    # the midpoint of the witness points: the sphere's centre + (r + dist / 2) n
    np.testing.assert_allclose(c.pos, [p + R @ np.array(centre) + (0.1 + dist / 2) * n],
                               atol=1e-15)
    r = _pair(dict(cyl, margin=0.1), dict(sphere, margin=0.0), _T(R, p),
              _T(p=p + R @ np.array(centre)))
    np.testing.assert_allclose(r.normal, -c.normal, atol=0)
    np.testing.assert_allclose(r.dist, c.dist, atol=0)


def _ellipsoid_cases():
    rng = np.random.default_rng(21)
    a = np.array([0.12, 0.05, 0.2])
    R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    R *= np.linalg.det(R)  # a rotation
    p = rng.normal(size=3)
    out = []
    for x in (np.array([0.3, -0.1, 0.25]), np.array([0.02, 0.03, -0.21]),  # outside
              np.array([0.05, 0.01, 0.1]), np.array([-0.03, 0.0, 0.04]),  # inside
              np.array([0.06, 0.0, -0.05]), np.zeros(3)):  # inside, in the smallest axis's plane
        out.append((a, R, p, x))
    return out


@pytest.mark.parametrize("case", range(6))
def test_sphere_on_an_ellipsoid_is_the_nearest_surface_point(case):
    """The witness point y is on the surface, x - y is along the surface normal there, and no
    point of a dense sampling of the surface is nearer to the centre x (global, not only a
    stationary point); the signed distance and the normal follow from y."""
    a, R, p, x = _ellipsoid_cases()[case]
    r = 0.01
    c = _pair(dict(type="sphere", size=(r,), margin=1.0), dict(type="ellipsoid", size=a),
              _T(p=p + R @ x), _T(R, p))
    assert len(c.dist) == 1
    n = R.T @ c.normal[0]
    inside = np.sum((x / a) ** 2) < 1
    # the ellipsoid's witness point, in its frame: from the contact's midpoint
    y = R.T @ (c.pos[0] - p) + 0.5 * c.dist[0] * n
    assert abs(np.sum((y / a) ** 2) - 1) < 1e-13  # 2e-16 achieved
    g = y / a ** 2
    g /= np.linalg.norm(g)
    np.testing.assert_allclose(n, -g, atol=1e-12)  # into the ellipsoid; 1e-16 achieved
    dist = np.linalg.norm(x - y)
    np.testing.assert_allclose(c.dist[0], (-dist if inside else dist) - r, atol=1e-14)
    u = np.random.default_rng(5).normal(size=(200_000, 3))
    s = u / np.linalg.norm(u, axis=1)[:, None] * a  # points on the surface
    assert np.linalg.norm(s - x, axis=1).min() >= dist - 1e-9
