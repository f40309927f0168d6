"""MJCF mesh assets as triangle meshes, and the mass a mesh geom gives its body.

A ``<mesh>`` asset is a file under ``<compiler meshdir>`` (relative to the main file's
folder) or inline ``vertex`` (and ``face``) numbers, its vertices multiplied by ``scale``
(a negative product of the three flips the faces, which keeps them facing out). Its mass
properties follow the asset's ``inertia`` attribute (the ``mesh`` section of MuJoCo's XML
reference): "convex" (the convex hull's solid), "exact" (the closed mesh's own solid),
"legacy" (each face's tetrahedron counted with its absolute volume, an overcount for a
non-convex mesh; MuJoCo 4.0's default); "exact" needs a closed, consistently oriented mesh;
"shell" (mass on the surface) is refused. The geom's mass is its ``mass``, else ``density``
times the volume, placed at the mesh's centre of mass in the geom's frame (MuJoCo moves the
mesh's frame there; the solid is the same).
"""

from __future__ import annotations

import os

import numpy as np

from . import _mjcf_math as mm
from ._mjcf_doc import Attrs
from .meshes import TriangleMesh, load_mesh
from .mesh_geometry import check_closed, check_points, convex_hull, mass_properties

# MuJoCo's default <mesh inertia> (checked against the installed MuJoCo by the tests)
DEFAULT_INERTIA = "legacy"  # MuJoCo 4.0: "legacy" still
INERTIAS = ("convex", "exact", "legacy", "shell")


def asset_mesh(r, a: Attrs, here: str, meshdir: str, max_mesh_bytes: int | None = None,
               fail=None) -> TriangleMesh:
    """The mesh asset with attributes ``a`` (its class's applied) as triangles, scaled; its
    faces are those of the file or ``face``, else (inline points alone) their convex hull.
    ``r``: a ``Numbers`` reader (errors name the asset); ``fail(message)``: where a file's
    problem is reported (default: at the asset)."""
    if fail is None:
        def fail(msg):
            r.fail(msg, a)
    scale = r.floats(a, "scale", 3, default=(1.0, 1.0, 1.0))
    if np.any(scale == 0):
        r.fail(f"{a.shown('scale')}: a zero scale flattens the mesh", a)
    if "vertex" in a:
        v = r.floats(a, "vertex", (12, 3 * 2**24))
        if v.size % 3:
            r.fail(f"{a.shown('vertex')}: {v.size} numbers, not a multiple of 3", a)
        v = v.reshape(-1, 3) * scale
        if "face" not in a:
            try:
                return convex_hull(v)
            except ValueError as e:
                r.fail(f"{a.shown('vertex')}: {e}", a)
        f = r.floats(a, "face", (3, 3 * 2**24))
        if f.size % 3 or np.any(f != np.round(f)) or f.min() < 0 or f.max() >= len(v):
            r.fail(f"{a.shown('face')}: triples of vertex indices 0..{len(v) - 1}", a)
        mesh = TriangleMesh(v, f.reshape(-1, 3).astype(np.int64))
    else:
        if a.get("file") is None:
            r.fail("a <mesh> needs file=\"...\" or vertex=\"...\"", a)
        path = os.path.join(here, meshdir, a.get("file"))
        if not os.path.isfile(path):
            fail(f"mesh file {path!r} does not exist")
        size = os.path.getsize(path)
        if max_mesh_bytes is not None and size > max_mesh_bytes:
            fail(f"mesh file {path!r} has {size} bytes, above max_mesh_bytes="
                 f"{max_mesh_bytes}; pass a larger max_mesh_bytes (or None) to read it")
        try:
            mesh = load_mesh(path, scale)
        except (ValueError, OSError) as e:
            fail(str(e))
    if np.prod(np.sign(scale)) < 0:  # a mirror image: keep the faces' normals outwards
        mesh = TriangleMesh(mesh.vertices, mesh.faces[:, ::-1].copy())
    return mesh


def geom_inertia(r, g, mesh: TriangleMesh, kind: str) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, centre, inertia about it) in the body frame of mesh geom ``g`` (a reader's
    _Geom) of triangles ``mesh``, by the asset's inertia ``kind``."""
    a = g.attrs
    try:
        check_points(mesh.vertices)
        if kind == "convex":
            vol, c, I = mass_properties(convex_hull(mesh.vertices))
        else:
            if kind == "exact":  # (MuJoCo refuses an open or inconsistent mesh here too)
                check_closed(mesh)
            vol, c, I = mass_properties(mesh, legacy=kind == "legacy")
    except ValueError as e:
        r.fail(f"mesh {g.mesh!r} (inertia=\"{kind}\"): {e}", a)
    with np.errstate(over="ignore", invalid="ignore"):
        m = np.float64(g.mass) if g.mass is not None else g.density * vol
        r.derived(a, ("mass",) if g.mass is not None else ("density",),
                  f"the mesh {g.mesh!r}'s mass [kg]", m, limit=mm.LARGEST)
        I = (m / vol) * I
        r.derived(a, ("mass", "density"), f"the mesh {g.mesh!r}'s inertia [kg m^2]", I,
                  limit=mm.LARGEST)
    return float(m), g.p + g.R @ c, g.R @ I @ g.R.T
