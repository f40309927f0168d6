"""The viewer's shapes as meshcat objects: visuals, primitives, arrows, axes and half-spaces.

Each function returns a list of parts (name, meshcat object, 4x4 placement in the node's
frame). A node of the scene graph is one visual (or contact sphere, arrow, ...) whose
transform is its world placement; its parts are drawn in its frame. three.js draws a
cylinder along its y axis, centred: URDF and MJCF cylinders and capsules lie along z, so
their parts are turned by Rx(pi/2), which takes y to z.
"""

from __future__ import annotations

import numpy as np

from ..io.description import Visual
from ..io.meshes import TriangleMesh, try_load_mesh

GREY = (0.75, 0.75, 0.78, 1.0)  # a visual without a colour
CONTACT = (0.9, 0.35, 0.1, 0.9)  # contact spheres and force arrows
GROUND = (0.55, 0.6, 0.55, 1.0)

_Y_TO_Z = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])  # Rx(pi/2)


def _g():
    import meshcat.geometry as g  # the optional extra "view": imported where used

    return g


def material(rgba=GREY, opacity: float = 1.0):
    """A Lambert (matte) material of colour rgba in [0, 1], its alpha times ``opacity``."""
    r, gr, b, a = (float(x) for x in rgba)
    colour = (int(round(255 * r)) << 16) + (int(round(255 * gr)) << 8) + int(round(255 * b))
    a = a * opacity
    return _g().MeshLambertMaterial(color=colour, opacity=a, transparent=a < 1.0)


def placement(R, p) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def _shifted(z: float) -> np.ndarray:
    T = np.eye(4)
    T[2, 3] = z
    return T


def primitive(kind: str, size, mat) -> list:
    """A URDF/MJCF primitive (sizes as fastdyn.io's Visual) centred on its frame."""
    g = _g()
    if kind == "box":
        return [("box", g.Mesh(g.Box(list(size)), mat), np.eye(4))]
    if kind == "sphere":
        return [("sphere", g.Mesh(g.Sphere(size[0]), mat), np.eye(4))]
    if kind == "ellipsoid":
        return [("ellipsoid", g.Mesh(g.Ellipsoid(list(size)), mat), np.eye(4))]
    if kind in ("cylinder", "capsule"):
        r, length = size
        parts = [("cylinder", g.Mesh(g.Cylinder(length, r), mat), _Y_TO_Z)]
        if kind == "capsule":
            parts += [(f"end{k}", g.Mesh(g.Sphere(r), mat), _shifted(s * length / 2))
                      for k, s in enumerate((-1.0, 1.0))]
        return parts
    raise ValueError(f"no primitive {kind!r}")


def visual(v: Visual, what: str, meshes: dict, opacity: float = 1.0,
           fallback_radius: float = 0.02) -> list:
    """The parts of visual ``v`` (``what`` names it in a warning): a mesh file read once per
    (file, scale) into ``meshes``; a missing or unreadable one (a MeshWarning naming it) and
    a shape without volume ("plane", "hfield", "sdf") become a sphere of ``fallback_radius``."""
    mat = material(v.rgba or GREY, opacity)
    if v.kind == "mesh":
        key = (v.mesh, tuple(v.scale))
        if key not in meshes:
            meshes[key] = try_load_mesh(v.mesh, v.scale, what=what, stacklevel=4)
        m: TriangleMesh | None = meshes[key]
        if m is not None:
            return [("mesh", _g().Mesh(_g().TriangularMeshGeometry(m.vertices, m.faces), mat),
                     np.eye(4))]
        return primitive("sphere", (fallback_radius,), mat)
    if v.kind in ("box", "sphere", "ellipsoid", "cylinder", "capsule"):
        return primitive(v.kind, v.size, mat)
    return primitive("sphere", (fallback_radius,), mat)


def bone(d, radius: float, mat) -> list:
    """A cylinder from the node's origin to d (3,), and a sphere at the origin: what the
    viewer draws for a model without visuals (a joint and the segment to its child)."""
    d = np.asarray(d, dtype=np.float64)
    length = float(np.linalg.norm(d))
    g = _g()
    parts = [("joint", g.Mesh(g.Sphere(1.6 * radius), mat), np.eye(4))]
    if length > 1e-9:
        y = d / length  # a rotation taking three.js's cylinder axis y to d
        a = np.array([1.0, 0, 0]) if abs(y[0]) < 0.9 else np.array([0, 0, 1.0])
        x = np.cross(y, a)
        x /= np.linalg.norm(x)
        T = placement(np.column_stack([x, y, np.cross(x, y)]), d / 2)
        parts.append(("bone", g.Mesh(g.Cylinder(length, radius), mat), T))
    return parts


def arrow_parts(radius: float, mat) -> tuple[list, list]:
    """An arrow of unit length along the node's z: the shaft (scaled along z with the
    length) and the head (a cone, placed at the tip unscaled) are two nodes."""
    g = _g()
    shaft = [("shaft", g.Mesh(g.Cylinder(1.0, radius), mat), _Y_TO_Z @ _shifted_y(0.5))]
    head = [("head", g.Mesh(g.Cylinder(4 * radius, radius=0, radiusTop=0.0,
                                       radiusBottom=2.5 * radius), mat),
             _Y_TO_Z @ _shifted_y(2 * radius))]
    return shaft, head


def _shifted_y(y: float) -> np.ndarray:
    T = np.eye(4)
    T[1, 3] = y
    return T


def triad(scale: float) -> list:
    """Axes x, y, z in red, green, blue, ``scale`` long (meshcat's triad)."""
    return [("axes", _g().triad(scale), np.eye(4))]


def halfspace(normal, offset: float, extent: float, rgba=GROUND) -> tuple[list, np.ndarray]:
    """A slab ``extent`` wide and 1 cm thick under the boundary n.x = offset of a half-space
    (its top face on the boundary). Returns (parts, world placement of the node)."""
    n = np.asarray(normal, dtype=np.float64)
    a = np.eye(3)[int(np.argmin(np.abs(n)))]
    t1 = a - n * (a @ n)
    t1 /= np.linalg.norm(t1)
    R = np.column_stack([t1, np.cross(n, t1), n])
    g = _g()
    parts = [("slab", g.Mesh(g.Box([extent, extent, 0.01]), material(rgba)), _shifted(-0.005))]
    return parts, placement(R, offset * n)


def arrow_transforms(points, forces, scale: float, radius: float):
    """World placements (shaft, head) of arrows from ``points`` (k, 3) along ``forces``
    (k, 3) of length |f| scale: the shaft's z axis along f, stretched to the length (an
    arrow of zero force is shrunk to nothing)."""
    k = len(points)
    shaft = np.tile(np.eye(4), (k, 1, 1))
    head = np.tile(np.eye(4), (k, 1, 1))
    for i in range(k):
        f = np.asarray(forces[i], dtype=np.float64)
        n = float(np.linalg.norm(f))
        if not (n > 0 and np.isfinite(n)):
            shaft[i, :3, :3] = head[i, :3, :3] = 1e-9 * np.eye(3)
            shaft[i, :3, 3] = head[i, :3, 3] = points[i] if np.all(np.isfinite(points[i])) else 0
            continue
        z = f / n
        a = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
        x = np.cross(a, z)
        x /= np.linalg.norm(x)
        R = np.column_stack([x, np.cross(z, x), z])
        length = n * scale
        shaft[i, :3, :3] = R @ np.diag([1.0, 1.0, length])
        shaft[i, :3, 3] = points[i]
        head[i, :3, :3] = R
        head[i, :3, 3] = points[i] + length * z
    return shaft, head
