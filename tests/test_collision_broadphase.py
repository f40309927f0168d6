"""The broad phase: world boxes hold their geoms exactly, sweep-and-prune returns exactly the
filtered pairs whose boxes overlap (an O(n^2) loop here is the reference), and its work is
the number of pairs that overlap along the sweep axis, not all pairs."""

import collision_cases as cc
import numpy as np

from fastdyn.sim import collision as col
from fastdyn.kernels.collision import broadphase

NB = 25  # bodies


def _scene(seed, n=120, spread=3.0):
    """Random geoms of every type on NB bodies, with random filter bits; body placements."""
    rng = np.random.default_rng(seed)
    geoms = []
    for g in range(n):
        t = cc.TYPES[1 + g % 6]
        d, _ = cc.shape(_NoCoal, t, rng)
        d.update(body=int(rng.integers(NB)), pos=rng.normal(size=3) * 0.1,
                 rot=cc.rotation(rng), margin=float(rng.uniform(0, 0.02)),
                 contype=int(rng.integers(1, 4)), conaffinity=int(rng.integers(0, 4)))
        geoms.append(d)
    T = np.tile(np.eye(4), (NB, 1, 1))
    for b in range(1, NB):
        T[b, :3, :3], T[b, :3, 3] = cc.rotation(rng), rng.uniform(0, spread, 3)
    parent = np.r_[-1, rng.integers(0, np.arange(1, NB))]  # parent < child, 0 the world
    return geoms, col.geom_table(geoms), T, parent


class _NoCoal:  # cc.shape builds a coal twin; these tests need only the description
    Sphere = Capsule = Cylinder = Ellipsoid = Box = staticmethod(lambda *a: None)
    StdVec_Vec3s = list

    class Convex:
        convexHull = staticmethod(lambda *a: None)

    Halfspace = staticmethod(lambda *a: None)


def _boxes(table, T):
    xpos, xmat = col.placements(table, T)
    box = np.zeros((table.ngeom, 6))
    broadphase.geom_aabbs(table.geom, table.gprm, xpos, xmat, box)
    return xpos, xmat, box


def test_each_box_is_the_support_of_its_geom_along_the_axes_plus_its_margin():
    geoms, table, T, _ = _scene(1)
    xpos, xmat, box = _boxes(table, T)
    for g, d in enumerate(geoms):
        m = d["margin"]
        for i in range(3):
            e = np.eye(3)[i]
            hi = cc.support_value(d, xmat[g], xpos[g], e) + m
            lo = -cc.support_value(d, xmat[g], xpos[g], -e) - m
            if d["type"] == "convex":  # the rotated local box: holds the geom, maybe loosely
                assert box[g, i] <= lo + 1e-12 and box[g, 3 + i] >= hi - 1e-12
            else:  # exact: 4e-16 achieved
                assert abs(box[g, i] - lo) < 1e-13 and abs(box[g, 3 + i] - hi) < 1e-13


def _reference(table, box, parent, exclude):
    """The pairs by brute force, filtered by the documented rules."""
    geom, out, along = table.geom, set(), 0
    ex = {tuple(sorted(e)) for e in exclude}
    for g in range(table.ngeom):
        for h in range(g + 1, table.ngeom):
            if box[g, 0] <= box[h, 3] and box[h, 0] <= box[g, 3]:
                along += 1
            else:
                continue
            if not all(box[g, i] <= box[h, 3 + i] and box[h, i] <= box[g, 3 + i]
                       for i in (1, 2)):
                continue
            a, b = geom[g], geom[h]
            if a["body"] == b["body"]:
                continue
            if (parent[b["body"]] == a["body"] and a["body"] != 0) or \
                    (parent[a["body"]] == b["body"] and b["body"] != 0):
                continue
            if not (a["contype"] & b["conaffinity"] or b["contype"] & a["conaffinity"]):
                continue
            if tuple(sorted((a["body"], b["body"]))) in ex:
                continue
            out.add((g, h))
    return out, along


def _sweep(table, box, parent, exclude, order=None):
    order = np.arange(table.ngeom) if order is None else order
    pairs, checks = np.zeros((table.ngeom ** 2, 2), np.int64), np.zeros(1, np.int64)
    n = broadphase.sweep_and_prune(table.geom, box, np.asarray(parent, np.int64),
                                   np.asarray(exclude, np.int64).reshape(-1, 2), 0, order,
                                   pairs, checks)
    return {tuple(p) for p in pairs[:n]}, int(checks[0]), n


def test_sweep_and_prune_returns_exactly_the_filtered_overlapping_pairs():
    _, table, T, parent = _scene(2, spread=1.0)
    _, _, box = _boxes(table, T)
    exclude = [(1, 2), (5, 3), (7, 8)]
    ref, along = _reference(table, box, parent, exclude)
    got, checks, n = _sweep(table, box, parent, exclude)
    assert n == len(got) and got == ref and len(ref) > 20
    assert checks == along  # the work: pairs overlapping along x
    # from a scrambled order, and a second call from the sorted one: the same pairs
    order = np.random.default_rng(0).permutation(table.ngeom)
    assert _sweep(table, box, parent, exclude, order)[0] == ref
    assert _sweep(table, box, parent, exclude, order)[0] == ref
    assert np.all(np.diff(box[order, 0]) >= 0)  # the order is kept sorted for the next call


def test_the_work_scales_with_near_pairs_not_all_pairs():
    """Same density, 8x the geoms: all pairs grow 64x, the checks about 8x."""
    rng = np.random.default_rng(4)
    counts = []
    for n, side in ((100, 2.0), (800, 16.0)):
        geoms = [dict(type="sphere", size=(0.05,), body=1 + g,
                      pos=(rng.uniform(0, side), rng.uniform(0, 2.0), rng.uniform(0, 2.0)))
                 for g in range(n)]
        table = col.geom_table(geoms)
        T = np.tile(np.eye(4), (n + 1, 1, 1))
        _, _, box = _boxes(table, T)
        got, checks, _ = _sweep(table, box, np.full(n + 1, -1), np.zeros((0, 2)))
        ref, along = _reference(table, box, np.full(n + 1, -1), [])
        assert got == ref and checks == along
        counts.append(checks)
    assert counts[1] < 16 * counts[0]  # 8x expected; all pairs would be 64x
    assert counts[1] < 800 * 799 / 2 / 20


def test_filter_rules_one_by_one():
    geoms = [dict(type="sphere", size=(1.0,), body=b) for b in (0, 1, 1, 2, 3)]
    geoms.append(dict(type="sphere", size=(1.0,), body=4, contype=2, conaffinity=2))
    table = col.geom_table(geoms)
    T = np.tile(np.eye(4), (5, 1, 1))  # everything overlaps
    _, _, box = _boxes(table, T)
    parent = [-1, 0, 1, 2, 0]  # 1 on the world, 2 child of 1, 3 child of 2
    got = _sweep(table, box, parent, [(1, 3)])[0]
    # dropped: (1, 2) one body; (1, 3), (2, 3), (3, 4) parent and child; (1, 4), (2, 4)
    # bodies 1 and 3 excluded; every pair with geom 5: bits 2 against bits 1. Kept: the world
    # (body 0) with every body, its children included.
    assert got == {(0, 1), (0, 2), (0, 3), (0, 4)}


def test_collide_runs_the_broad_and_narrow_phases():
    table = col.geom_table([dict(type="plane"), dict(type="box", size=(0.1, 0.1, 0.1), body=1),
                            dict(type="sphere", size=(0.1,), body=2)])
    T = np.tile(np.eye(4), (3, 1, 1))
    T[1, 2, 3], T[2, :3, 3] = 0.099, (0.0, 0.0, 0.308)  # box 1 mm in, sphere 9 mm above it
    c = col.collide(table, T)
    assert sorted(map(tuple, c.geom)) == [(0, 1)] * 4
    c = col.collide(col.geom_table([dict(type="plane"),
                                    dict(type="box", size=(0.1, 0.1, 0.1), body=1),
                                    dict(type="sphere", size=(0.1,), body=2, margin=0.01)]), T)
    assert sorted(map(tuple, c.geom)) == [(0, 1)] * 4 + [(1, 2)]
    np.testing.assert_allclose(c.dist[-1], 0.009, atol=1e-15)
