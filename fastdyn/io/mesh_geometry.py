"""What a triangle mesh is as a rigid solid: its convex hull (the shape a collision geom takes)
and its volume, centre of mass and inertia (the mass a body gets from it).

    from fastdyn.io.mesh_geometry import convex_hull, hull_vertices, mass_properties
    hull = convex_hull(vertices)                   # TriangleMesh: the hull's points and faces
    points = hull_vertices(vertices, max_vertices=1000)   # what a "convex" geom takes
    volume, com, inertia = mass_properties(hull)  # unit density, inertia about the com

Convex hulls are trimesh's (``trimesh.convex.convex_hull``, Qhull through SciPy: the
``view`` extra). Mass properties follow the divergence theorem applied triangle by triangle
(Mirtich, "Fast and Accurate Computation of Polyhedral Mass Properties", 1996; Eberly,
"Polyhedral Mass Properties (Revisited)", Geometric Tools): each face (a, b, c) of a closed
mesh, oriented outwards, spans a tetrahedron with the origin o of signed volume
V = det[a b c] / 6, centroid (a + b + c) / 4 and second moment
∫ x x^T dV = V / 20 (a a^T + b b^T + c c^T + s s^T), s = a + b + c; summed over the faces
they give the solid's volume, first and second moments whatever o is, and the inertia
about the centre of mass c is tr(C) 1 - C with C the second moment about c (unit density).
The same sums with |V| in place of V are MuJoCo's "legacy" mesh volume, exact for a convex
mesh and an overcount for a non-convex one (MuJoCo's XML reference, <mesh inertia>;
``mass_properties(legacy=True)`` says where its sums are taken).
"""

from __future__ import annotations

import numpy as np

from .meshes import TriangleMesh

__all__ = ["convex_hull", "hull_vertices", "mass_properties", "check_points", "check_closed"]


def check_points(v: np.ndarray) -> np.ndarray:
    """``v`` as (n, 3) float64 points that span a volume: ValueError saying why not (fewer
    than 4 points, a coordinate not finite, all on a plane or a line)."""
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 3:
        raise ValueError(f"expected (n, 3) vertices, got shape {v.shape}")
    bad = np.flatnonzero(~np.all(np.isfinite(v), axis=1))
    if bad.size:
        raise ValueError(f"vertex {bad[0]} is not finite: {v[bad[0]].tolist()}")
    if len(np.unique(v, axis=0)) < 4:
        raise ValueError(f"{len(np.unique(v, axis=0))} distinct vertices: a solid needs at "
                         f"least 4")
    # (the test geom_table makes: a hull flatter than this has no volume to collide with)
    s = np.linalg.svd(v - v.mean(axis=0), compute_uv=False)
    if s[2] <= 1e-9 * s[0]:
        raise ValueError("the vertices are flat (all on one plane or line): no volume")
    return v


def check_closed(mesh: TriangleMesh) -> None:
    """ValueError unless the mesh is a closed, consistently oriented surface: with equal
    vertices merged (STL repeats them per face), every directed edge a -> b has exactly one
    face with the edge b -> a (what the divergence theorem's sums need to be a volume)."""
    _, idx = np.unique(np.asarray(mesh.vertices), axis=0, return_inverse=True)
    f = idx.reshape(-1)[np.asarray(mesh.faces)]
    e = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    e = e[e[:, 0] != e[:, 1]]  # (a degenerate face's collapsed edge bounds nothing)
    n = int(idx.max()) + 1
    fwd, counts = np.unique(e[:, 0] * n + e[:, 1], return_counts=True)
    rev = np.sort(e[:, 1] * n + e[:, 0])
    if np.any(counts > 1):
        k = int(fwd[np.argmax(counts > 1)])
        raise ValueError(f"edge ({k // n}, {k % n}) (merged vertex indices) is used twice in "
                         f"the same direction: faces not consistently oriented, or not a "
                         f"manifold")
    missing = ~np.isin(fwd, rev)
    if np.any(missing):
        k = int(fwd[np.argmax(missing)])
        raise ValueError(f"not a closed surface: edge ({k // n}, {k % n}) (merged vertex "
                         f"indices) borders one face only ({int(missing.sum())} such edges)")


def convex_hull(vertices) -> TriangleMesh:
    """The convex hull of the points, its faces counter-clockwise seen from outside (trimesh,
    Qhull). ValueError for points without volume; ImportError without trimesh or SciPy."""
    v = check_points(vertices)
    try:
        import trimesh
        import scipy.spatial  # noqa: F401  (trimesh's convex hull is Qhull through SciPy)
    except ImportError as e:
        raise ImportError(f"a mesh's convex hull needs {e.name or 'trimesh and scipy'}: "
                          f"pip install 'fastdyn[view]'") from e
    hull = trimesh.convex.convex_hull(v, repair=True)
    hv = np.asarray(hull.vertices, dtype=np.float64)
    hf = np.asarray(hull.faces, dtype=np.int64)
    if len(hf) < 4:
        raise ValueError("the convex hull has no volume")
    return TriangleMesh(hv, hf)


def hull_vertices(vertices, *, hull: bool = True, max_vertices: int | None = None
                  ) -> np.ndarray:
    """The points a convex geom needs for the solid the vertices span: the vertices of their
    convex hull (``hull=True``), or all of them, deduplicated (``hull=False``: the same
    shape, as a convex geom is the hull of its points, and no SciPy needed, at the cost of
    slower contacts). ValueError where there are more than ``max_vertices`` (None: no cap)."""
    v = check_points(vertices)
    out = convex_hull(v).vertices if hull else np.unique(v, axis=0)
    if max_vertices is not None and len(out) > max_vertices:
        what = "its convex hull has" if hull else "it has"
        raise ValueError(f"{what} {len(out)} vertices, above max_vertices={max_vertices}; "
                         f"pass a larger max_vertices (or None), or simplify the mesh")
    return np.ascontiguousarray(out)


def _tetrahedra(v, f, o, absolute: bool):
    """Each face's tetrahedron with ``o``: signed (or absolute) volumes V, the faces'
    corners a, b, c from o and s = a + b + c."""
    a, b, c = v[f[:, 0]] - o, v[f[:, 1]] - o, v[f[:, 2]] - o
    V = np.einsum("ij,ij->i", a, np.cross(b, c)) / 6.0
    return (np.abs(V) if absolute else V), a, b, c, a + b + c


def _second_moment(V, a, b, c, s) -> np.ndarray:
    """sum over the tetrahedra of V / 20 (a a^T + b b^T + c c^T + s s^T): the solid's
    second moment about their common vertex."""
    return (np.einsum("k,ki,kj->ij", V, a, a) + np.einsum("k,ki,kj->ij", V, b, b)
            + np.einsum("k,ki,kj->ij", V, c, c) + np.einsum("k,ki,kj->ij", V, s, s)) / 20.0


def mass_properties(mesh: TriangleMesh, *, legacy: bool = False
                    ) -> tuple[float, np.ndarray, np.ndarray]:
    """(volume, centre of mass (3,), inertia about it (3, 3)) of the closed, outward-oriented
    triangle mesh as a solid of unit density (module docstring). ValueError if the volume is
    not positive (open, inside-out or flat).

    ``legacy``: MuJoCo's legacy mesh inertia, which counts each tetrahedron with |V|: the
    centre is found from the faces' area-weighted centroid, then the volume and the second
    moment are summed about that centre and taken as central (no parallel-axis term); equal
    to the solid's for a convex mesh, an overcount otherwise (matched to MuJoCo 4.0 to 1e-15
    by tests/test_mjcf_mesh_inertia.py)."""
    v, f = np.asarray(mesh.vertices, dtype=np.float64), np.asarray(mesh.faces, np.int64)
    if legacy:
        e1, e2 = v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]]
        area = np.linalg.norm(np.cross(e1, e2), axis=1)
        if not area.sum() > 0.0:
            raise ValueError("the mesh's faces have no area")
        o = (area[:, None] * v[f].mean(axis=1)).sum(axis=0) / area.sum()
        V, _, _, _, s = _tetrahedra(v, f, o, True)
        if not V.sum() > 0.0:
            raise ValueError("the mesh encloses no volume")
        o = o + (V[:, None] * s).sum(axis=0) / (4.0 * V.sum())
        V, a, b, c, s = _tetrahedra(v, f, o, True)
        vol, com, C = float(V.sum()), np.zeros(3), _second_moment(V, a, b, c, s)
    else:
        o = v.mean(axis=0)  # the tetrahedra's apex: near the mesh, for round-off
        V, a, b, c, s = _tetrahedra(v, f, o, False)
        vol = float(V.sum())
        if not vol > 0.0:
            raise ValueError(f"the mesh encloses volume {vol:.6g}: not a closed surface with "
                             f"its faces' normals outwards")
        com = (V[:, None] * s).sum(axis=0) / (4.0 * vol)
        C = _second_moment(V, a, b, c, s) - vol * np.outer(com, com)  # parallel axis
    inertia = np.trace(C) * np.eye(3) - C
    return vol, com + o, 0.5 * (inertia + inertia.T)
