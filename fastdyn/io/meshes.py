"""Mesh files (STL, OBJ, DAE/COLLADA, PLY, glTF ...) as triangle arrays, read with trimesh.

    from fastdyn.io.meshes import load_mesh, try_load_mesh
    vertices, faces = load_mesh("link.stl", scale=0.001)     # (n, 3) float64, (m, 3) int64
    mesh = try_load_mesh("link.dae")          # None, with a MeshWarning naming it, if unreadable

trimesh (an optional dependency: the ``view`` extra) reads each format; COLLADA (.dae) needs
pycollada besides. A file holding a scene of several meshes is flattened into one triangle
soup, each part moved by its node's transform in the file (trimesh's ``Scene.to_mesh``;
COLLADA's <unit meter> scale is applied by trimesh). Vertices are in the file's units times
``scale``; faces index them, counter-clockwise seen from outside where the file says so.
"""

from __future__ import annotations

import os
import warnings
from typing import NamedTuple, Sequence

import numpy as np

from ..errors import MeshWarning

__all__ = ["TriangleMesh", "load_mesh", "try_load_mesh", "MeshWarning"]


class TriangleMesh(NamedTuple):
    """vertices (n, 3) float64 [m], faces (m, 3) int64 indices into them."""
    vertices: np.ndarray
    faces: np.ndarray


def _scale(scale) -> np.ndarray:
    s = np.broadcast_to(np.asarray(scale, dtype=np.float64), (3,)).copy() if np.ndim(scale) < 2 \
        else None
    if s is None or not np.all(np.isfinite(s)) or np.any(s == 0):
        raise ValueError(f"mesh scale must be a finite non-zero number or 3 of them, got "
                         f"{scale!r}")
    return s


def load_mesh(path: str | os.PathLike, scale: float | Sequence[float] = 1.0) -> TriangleMesh:
    """The triangles of the mesh file ``path``, vertices multiplied by ``scale`` (a number or
    one per axis, as URDF's <mesh scale> and MJCF's <mesh scale>). Raises FileNotFoundError
    for a missing file, ImportError when trimesh (or, for .dae, pycollada) is not installed,
    and ValueError naming the file when it holds no triangles or a coordinate that is not
    finite."""
    s = _scale(scale)
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"mesh file {path!r} does not exist")
    try:
        import trimesh
    except ImportError as e:
        raise ImportError(f"reading the mesh {path!r} needs trimesh: pip install "
                          f"'fastdyn[view]'") from e
    try:
        loaded = trimesh.load(path, force="mesh", process=False)
    except ImportError as e:  # COLLADA: trimesh imports pycollada on first use
        raise ImportError(f"reading the mesh {path!r} needs {e.name or 'a missing package'} "
                          f"(pip install 'fastdyn[view]')") from e
    except Exception as e:  # trimesh raises many types for a corrupt or unknown file
        raise ValueError(f"mesh file {path!r} could not be read: {type(e).__name__}: {e}") \
            from e
    v = np.asarray(getattr(loaded, "vertices", np.zeros((0, 3))), dtype=np.float64)
    f = np.asarray(getattr(loaded, "faces", np.zeros((0, 3))), dtype=np.int64)
    if v.ndim != 2 or v.shape[1] != 3 or f.ndim != 2 or f.shape[1] != 3 or len(f) == 0:
        raise ValueError(f"mesh file {path!r} holds no triangles")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"mesh file {path!r}: vertex {int(np.argmin(np.isfinite(v).all(1)))} "
                         f"is not finite")
    if f.min() < 0 or f.max() >= len(v):
        raise ValueError(f"mesh file {path!r}: a face indexes a vertex outside 0..{len(v) - 1}")
    return TriangleMesh(v * s, f)


def try_load_mesh(path: str | os.PathLike, scale: float | Sequence[float] = 1.0, *,
                  what: str = "", stacklevel: int = 2) -> TriangleMesh | None:
    """``load_mesh``, or None with a ``MeshWarning`` naming the file (and ``what`` uses it,
    e.g. "link 'wrist' <visual>") when the file is missing or unreadable: the caller draws a
    primitive in its place. A missing trimesh is not a file's fault: ImportError."""
    try:
        return load_mesh(path, scale)
    except (FileNotFoundError, ValueError, OSError) as e:
        warnings.warn(f"{what + ': ' if what else ''}{e}; drawn as a primitive instead",
                      MeshWarning, stacklevel=stacklevel + 1)
        return None
