"""Every pair type on many seeded random poses, from deep penetration to apart, without coal:
each result must certify itself. With n the normal, w1, w2 the witness points and h_X the
support function of shape X (closed forms in collision_cases.support_value):
w1 is a support point of geom 1 along n (n.w1 = h_1(n)), w2 one of geom 2 along -n
(-n.w2 = h_2(-n)), and w2 - w1 = d n. Then d equals the gap of the projections on n, a lower
bound of the signed distance (Boyd & Vandenberghe, "Convex Optimization", sec. 8.2.3); for
shapes apart, |w2 - w1| = d is also an upper bound, so d is the distance."""

import collision_cases as cc
import numpy as np
import pytest

from fastdyn.sim import collision as col


class _NoCoal:  # the descriptions only
    Sphere = Capsule = Cylinder = Ellipsoid = Box = Halfspace = staticmethod(lambda *a: None)
    StdVec_Vec3s = list

    class Convex:
        convexHull = staticmethod(lambda *a: None)


CURVED = {"ellipsoid", "cylinder"}


@pytest.mark.parametrize("a,b", cc.PAIRS, ids=[f"{a}-{b}" for a, b in cc.PAIRS])
def test_every_result_certifies_itself(a, b):
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(40):
        d1, _ = cc.shape(_NoCoal, a, rng)
        d2, _ = cc.shape(_NoCoal, b, rng)
        R1, R2 = cc.rotation(rng), cc.rotation(rng)
        u = R1[:, 2] if a == "plane" else cc.rotation(rng)[:, 0]
        p2 = rng.uniform(-0.1 if a == "plane" else 0.0, 0.5) * u
        tab = col.geom_table([dict(d1, margin=2.0), dict(d2, body=1)])
        T = np.tile(np.eye(4), (2, 1, 1))
        T[0, :3, :3], T[1, :3, :3], T[1, :3, 3] = R1, R2, p2
        c = col.collide_pair(tab, 0, 1, T)
        assert len(c.dist) >= 1 and np.all(np.isfinite(c.pos)), (a, b)
        i = int(np.argmin(c.dist))
        n, d = c.normal[i], c.dist[i]
        w1, w2 = c.pos[i] - d / 2 * n, c.pos[i] + d / 2 * n
        assert abs(np.linalg.norm(n) - 1.0) < 1e-15
        worst = max(worst,
                    abs(n @ w1 - cc.support_value(d1, R1, np.zeros(3), n)),
                    abs(-n @ w2 - cc.support_value(d2, R2, p2, -n)))
    curved = bool(CURVED & {a, b}) and (a, b) not in cc.ANALYTIC
    # achieved: 5e-16 on exact pairs (analytic, polytopes and cores); 8.1e-6 on curved pairs,
    # reached at a sphere deep in an ellipsoid (centres 0 apart: EPA's polytope then needs its
    # 256 vertices all round); at the depths of tests/test_collision_coal.py (<= 3 cm) 2e-9
    assert worst < (3e-5 if curved else 1e-13), worst
