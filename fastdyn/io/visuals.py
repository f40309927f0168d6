"""What a robot file says to draw: each link's visual shapes, mesh files found on disk.

    from fastdyn.io.visuals import load_visuals
    visuals = load_visuals("ur5.urdf")       # {link name: [Visual, ...]}, fastdyn.io.Visual

A URDF's <visual> elements (``fastdyn.io.urdf.urdf_visuals``) or an MJCF's geoms of groups
0 to 2 (``fastdyn.io.mjcf.mjcf_visuals``), read again from the file: a Model keeps no
geometry. Each shape is placed in the frame of its link (its body, in MJCF), which is a
frame of the model of the same file (``model.frame_id(link)``) even where the loader merged
the link into its parent through a fixed joint, so ``fastdyn.frame_placement`` of that frame
composed with the shape's (R, p) is where the shape is drawn.

Mesh paths: "package://pkg/rest" is looked for, as ROS and Pinocchio's ``package_dirs`` do,
as ``<dir>/pkg/rest`` for each of ``package_dirs``, then of $ROS_PACKAGE_PATH's folders, then
of the folders above the file (a file inside ``pkg`` itself is found there too); "file://"
and relative paths are taken from the file's folder. A path not found is kept as the best
guess (the viewer warns, naming it, and draws a primitive).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from ..kernels import layout
from . import _xml
from .description import Visual
from .mjcf import mjcf_visuals
from .urdf import urdf_visuals

__all__ = ["Visual", "load_visuals", "resolve_mesh_path", "link_frame", "link_placement"]


def load_visuals(path: str | os.PathLike, package_dirs: Sequence[str | os.PathLike] = ()
                 ) -> dict[str, list[Visual]]:
    """Each link's (or MJCF body's) visual shapes, by name, from the URDF or MJCF file
    ``path`` (told apart by its root element), mesh paths resolved (the module docstring)."""
    path = os.fspath(path)
    if _xml.root_tag(path) == "mujoco":
        return mjcf_visuals(path)
    out = urdf_visuals(path)
    for items in out.values():
        for v in items:
            if v.kind == "mesh" and v.mesh is not None:
                v.mesh = resolve_mesh_path(v.mesh, path, package_dirs)
    return out


def resolve_mesh_path(name: str, source: str | os.PathLike,
                      package_dirs: Sequence[str | os.PathLike] = ()) -> str:
    """The file a URDF's <mesh filename> names, for the URDF at ``source``."""
    here = Path(os.path.abspath(source)).parent
    if name.startswith("file://"):
        name = name[len("file://"):]
    if not name.startswith("package://"):
        return str(Path(name) if os.path.isabs(name) else here / name)
    rest = name[len("package://"):]
    pkg, _, tail = rest.partition("/")
    roots = [Path(d) for d in package_dirs]
    roots += [Path(d) for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if d]
    roots += list(here.parents) if here.name != pkg else []
    for up in [here, *here.parents]:
        if up.name == pkg:  # the file is inside the package: its root is this folder
            roots.insert(len(package_dirs), up.parent)
    for root in roots:
        candidate = root / pkg / tail
        if candidate.is_file():
            return str(candidate)
    return str((roots[0] if roots else here) / pkg / tail)


def link_frame(model, link: str, what: str = "link") -> int:
    """The model's frame of link (or MJCF body) ``link``: its BODY frame, else any frame of
    that name; KeyError naming it (the ``what``) when the model has neither."""
    for f, n in enumerate(model.frame_names):
        if n == link and int(model.frm[f]["type"]) == layout.BODY_FRAME:
            return f
    if link in model.frame_names:
        return model.frame_names.index(link)
    raise KeyError(f"the {what} {link!r} is not a frame of model {model.name!r}: is the "
                   f"file the model's own?")


def link_placement(model, link: str, what: str = "link") -> tuple[int, np.ndarray, np.ndarray]:
    """(joint, R, p): the joint that carries link ``link`` and the link frame's placement in
    that joint's frame. A link merged into its parent by a fixed joint is carried by the
    moving joint above it, at its place; an MJCF file's "world" is joint 0 (the identity)
    even in a model built with a root joint, which has no frame of that name."""
    if link == "world" and "world" not in model.frame_names:
        return 0, np.eye(3), np.zeros(3)
    fr = model.frm[link_frame(model, link, what)]
    return int(fr["parent_joint"]), np.array(fr["R"]), np.array(fr["p"])
