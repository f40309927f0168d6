"""A robot file's collision geometry as collision geoms on a model's joints.

    from fastdyn.io import collision_geoms
    model = fd.load_urdf("ur5.urdf")
    geoms = collision_geoms(model, "ur5.urdf", srdf="ur5.srdf")
    table = geoms.table()              # fastdyn.sim.collision.geom_table(geoms.geoms)
    geoms.geoms[0]                     # {"type": "convex", "vertices": ..., "body": 1, ...}
    geoms.exclude                      # (n, 2) joint pairs never tested
    scene.add_geoms(geoms)             # a Scene's geoms, named, their pairs excluded

Each geom is the dict ``fastdyn.sim.collision.geom_table`` takes, its ``body`` the index of
the model's joint that carries the shape and ``pos``/``rot`` its placement in that joint's
frame: a link merged into its parent by a fixed joint is carried by the moving joint above
it, where it is (``fastdyn.io.visuals.link_placement``), so at any q the geom is where
Pinocchio's collision model (URDF) or MuJoCo (MJCF) puts it.

URDF: every link's ``<collision>``: sphere, box (half the edges), cylinder and capsule
(radius, half the length), mesh (STL, OBJ, DAE ... read by ``fastdyn.io.load_mesh`` with its
``scale``; file names as ``fastdyn.io.visuals.resolve_mesh_path`` finds them) as a convex
geom: the vertices of the mesh's convex hull, which is what Pinocchio's convex collision
objects and MuJoCo collide. The geoms take geom_table's default contact parameters.

MJCF: every geom that collides (contype or conaffinity not 0), its ``<default>`` classes
applied, placed through its frames and ``fromto``: plane, sphere, capsule, ellipsoid,
cylinder, box, and mesh as the convex hull of the ``<asset><mesh>`` (a file under
``<compiler meshdir>``, or inline ``vertex`` numbers; times its ``scale``), as MuJoCo
collides meshes; with their friction (sliding, torsional, rolling), margin, solref, solimp,
contype and conaffinity. The worldbody's geoms are on joint 0. Left out, with an MJCFWarning
naming them: hfield and sdf geoms and primitives MuJoCo fits to a mesh, and a mesh's
``maxhullvert`` (the whole hull is kept); not read: ``condim``, ``priority``, ``gap`` and
``<contact><pair>``.

Excluded pairs (``exclude``): the MJCF's ``<contact><exclude body1 body2>`` and, with
``srdf``, its ``<disable_collisions link1 link2>``, each as the pair of joints carrying the
two links (a pair on one joint is dropped: geoms of one joint never collide).

Bad input raises the file's error class (``URDFError``, ``MJCFError``) naming the file, the
element and its line, and why: a mesh file missing, unreadable, larger than
``max_mesh_bytes``, with a vertex not finite or without volume (fewer than 4 points, flat),
a hull above ``max_vertices`` vertices, a size that is zero, an unknown mesh asset or
excluded body.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import MJCFError, MJCFWarning, URDFError
from ..model import Model
from . import _xml
from ._mjcf_doc import Attrs, Numbers
from ._mjcf_mesh import asset_mesh
from .meshes import load_mesh
from .mesh_geometry import hull_vertices
from .mjcf import parse_mjcf
from .srdf import SRDF, load_srdf
from .urdf import urdf_collisions
from .visuals import link_placement, resolve_mesh_path

__all__ = ["CollisionGeoms", "collision_geoms", "MAX_VERTICES", "MAX_MESH_BYTES"]

# A convex geom's contacts cost a pass over its vertices per support point; the hulls of
# example-robot-data's collision meshes keep at most 220 (UR5), 672 (Solo12), 953 (Talos)
# vertices. Above the cap the file is refused, naming the mesh: simplify it or raise the cap.
MAX_VERTICES = 2000
MAX_MESH_BYTES = 64 * 2**20  # a mesh file larger than this is not read (a device, a scan)
_XML_BYTES = 64 * 2**20


@dataclass(frozen=True)
class CollisionGeoms:
    """What ``collision_geoms`` read: ``geoms`` (geom_table's dicts), for each its ``names``
    (the MJCF geom's name, else "link/k") and ``links`` (its link or MJCF body), and the
    ``exclude`` (n, 2) joint pairs (each sorted, no repeats) whose geoms never collide."""
    geoms: tuple
    names: tuple
    links: tuple
    exclude: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    source: str = "<string>"

    def __len__(self) -> int:
        return len(self.geoms)

    def table(self):
        """``fastdyn.sim.collision.geom_table`` of the geoms."""
        from ..sim.collision import geom_table  # (the simulator imports the loaders)
        return geom_table(list(self.geoms))


def collision_geoms(model: Model, path_or_xml, *, links: Sequence[str] | None = None,
                    srdf=None, package_dirs: Sequence[str | os.PathLike] = (),
                    hull: bool = True, max_vertices: int | None = MAX_VERTICES,
                    max_mesh_bytes: int | None = MAX_MESH_BYTES,
                    max_bytes: int | None = _XML_BYTES) -> CollisionGeoms:
    """The collision geometry of the URDF or MJCF file (a path) or document ``path_or_xml``
    (told apart by its root element), on the joints of ``model`` (the model loaded from
    it, with or without a root joint); see the module docstring.

    ``links``: only the geoms of these links (MJCF bodies), by name; ``srdf``: an SRDF file,
    document or ``SRDF`` whose disabled pairs join ``exclude``; ``package_dirs``: where
    "package://" mesh names are looked for (as Pinocchio's); ``hull``: a mesh becomes its
    convex hull's vertices (True) or all its vertices (False: the same convex shape, no
    SciPy needed, slower contacts); ``max_vertices``: the most vertices a mesh geom may keep
    (None: no cap); ``max_mesh_bytes``: the largest mesh file read; ``max_bytes``: the
    document's cap, as the loaders'."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a fastdyn Model, got {type(model).__name__}")
    if max_vertices is not None and (not isinstance(max_vertices, (int, np.integer))
                                     or max_vertices < 4):
        raise ValueError(f"max_vertices must be None or an integer >= 4, got {max_vertices!r}")
    tag = _xml.root_tag(path_or_xml)
    cfg = _Config(model, bool(hull), max_vertices, max_mesh_bytes, package_dirs)
    if tag == "mujoco":
        out = _mjcf(cfg, path_or_xml, max_bytes)
    elif tag == "robot":
        out = _urdf(cfg, path_or_xml, max_bytes)
    else:
        raise ValueError(f"{_shown(path_or_xml)}: the root element is <{tag}>, neither a "
                         f"URDF's <robot> nor an MJCF's <mujoco>")
    geoms, names, owners, pairs, source = out
    if links is not None:
        wanted = set([links] if isinstance(links, str) else links)
        unknown = sorted(wanted - set(cfg.seen) - set(model.frame_names))
        if unknown:
            raise ValueError(f"{source}: links {unknown} are not links (bodies) of the file")
        keep = [k for k, lk in enumerate(owners) if lk in wanted]
        geoms, names, owners = ([x[k] for k in keep] for x in (geoms, names, owners))
    if srdf is not None:
        s = srdf if isinstance(srdf, SRDF) else load_srdf(model, srdf)
        for l1, l2 in sorted(s.disabled):
            pairs.append((link_placement(model, l1)[0], link_placement(model, l2)[0]))
    ex = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b})
    exclude = np.array(ex, dtype=np.int64).reshape(-1, 2)
    return CollisionGeoms(tuple(geoms), tuple(names), tuple(owners), exclude, source)


@dataclass
class _Config:
    model: Model
    hull: bool
    max_vertices: int | None
    max_mesh_bytes: int | None
    package_dirs: Sequence
    seen: list = field(default_factory=list)  # every link (body) name of the file


def _shown(path_or_xml) -> str:
    return "<string>" if isinstance(path_or_xml, (bytes, bytearray)) or (
        isinstance(path_or_xml, str) and path_or_xml.lstrip().startswith("<")) \
        else os.fspath(path_or_xml)


def _placed(cfg: _Config, link: str, R, p, what: str, fail) -> dict:
    """body, pos, rot of a shape at (R, p) in link ``link``."""
    try:
        j, Rl, pl = link_placement(cfg.model, link, what)
    except KeyError as e:
        fail(e.args[0])
    return dict(body=j, pos=pl + Rl @ p, rot=Rl @ R)


def _primitive(kind: str, size, fail) -> dict:
    """geom_table's type and size of a Collision shape (URDF conventions: full lengths)."""
    s = np.asarray(size, dtype=np.float64)
    if kind in ("cylinder", "capsule"):
        half = np.array([s[0], s[1] / 2])
    else:
        half = {"sphere": s[:1], "box": s / 2, "ellipsoid": s}[kind]
    if not np.all(half > 0):
        fail(f"a {kind} with a zero size {tuple(float(x) for x in size)}: no volume to "
             f"collide with")
    return dict(type=kind, size=half)


def _mesh_points(cfg: _Config, path: str, scale, fail, name: str = "") -> np.ndarray:
    """The convex geom's vertices of the mesh file at ``path`` (vertices times ``scale``;
    ``name``: as the file wrote it)."""
    if not os.path.isfile(path):
        fail(f"mesh file {path!r} does not exist" + (
            f" ({name!r}: pass the folder holding its package in package_dirs)"
            if name.startswith("package://") else ""))
    size = os.path.getsize(path)
    if cfg.max_mesh_bytes is not None and size > cfg.max_mesh_bytes:
        fail(f"mesh file {path!r} has {size} bytes, above max_mesh_bytes="
             f"{cfg.max_mesh_bytes}; pass a larger max_mesh_bytes (or None) to read it")
    try:
        v = load_mesh(path, scale).vertices
    except (ValueError, OSError) as e:
        fail(str(e))
    return _hull(cfg, v, f"mesh file {path!r}", fail)


def _hull(cfg: _Config, v, what: str, fail) -> np.ndarray:
    try:
        return hull_vertices(v, hull=cfg.hull, max_vertices=cfg.max_vertices)
    except ValueError as e:
        fail(f"{what}: {e}")


# --- URDF -----------------------------------------------------------------------------------

def _urdf(cfg: _Config, path_or_xml, max_bytes):
    shapes = urdf_collisions(path_or_xml, max_bytes=max_bytes)
    source = _shown(path_or_xml)
    geoms, names, owners = [], [], []
    for link, items in shapes.items():
        for k, c in enumerate(items):
            what = f"link {link!r} <collision> <{'mesh' if c.kind == 'mesh' else c.kind}>"

            def fail(msg, what=what, line=c.line):
                raise URDFError(msg, source, what, line)

            if c.kind == "mesh":
                path = resolve_mesh_path(c.mesh, source, cfg.package_dirs)
                g = dict(type="convex",
                         vertices=_mesh_points(cfg, path, c.scale, fail, c.mesh))
            else:
                g = _primitive(c.kind, c.size, fail)
            g.update(_placed(cfg, link, c.R, c.p, "link", fail))
            geoms.append(g)
            names.append(f"{link}/{k}")
            owners.append(link)
    return geoms, names, owners, [], source


# --- MJCF -----------------------------------------------------------------------------------

_LEFT_OUT = {"hfield": "an hfield", "sdf": "an sdf"}


def _mjcf(cfg: _Config, path_or_xml, max_bytes):
    with warnings.catch_warnings():  # (load_mjcf said them when the model was loaded)
        warnings.simplefilter("ignore", MJCFWarning)
        d = parse_mjcf(path_or_xml, max_bytes=max_bytes)
    source = d.source
    here = os.path.dirname(os.path.abspath(source)) if source != "<string>" else os.getcwd()
    cfg.seen = [lk.name for lk in d.links]
    assets = d.assets.get("mesh_node", {})
    numbers = Numbers(MJCFError)
    geoms, names, owners, skipped = [], [], [], []
    for lk in d.links:
        for k, c in enumerate(lk.collisions):
            info = c.contact
            file, line = info["where"]
            shown = f"<geom name=\"{info['name']}\">" if info["name"] else "<geom>"

            def fail(msg, file=file, shown=shown, line=line):
                raise MJCFError(msg, file, shown, line)

            kind = info["type"]
            if kind in _LEFT_OUT or (c.kind == "mesh" and kind != "mesh"):
                why = _LEFT_OUT.get(kind, f"a {kind} fitted to mesh {c.mesh!r}")
                skipped.append(f"{shown} in body {lk.name!r} ({why}, "
                               f"{os.path.basename(file)}:{line})")
                continue
            if kind == "plane":
                g = dict(type="plane")
            elif kind == "mesh":
                g = dict(type="convex", vertices=_asset_points(cfg, assets, c.mesh, here, d,
                                                               numbers, fail))
            else:
                g = _primitive(kind, c.size, fail)
            g.update(_placed(cfg, lk.name, c.R, c.p, "body", fail))
            g.update({key: info[key] for key in ("friction", "margin", "solref", "solimp",
                                                 "contype", "conaffinity")})
            _check_contact(g, fail)
            geoms.append(g)
            names.append(info["name"] or f"{lk.name}/{k}")
            owners.append(lk.name)
    if skipped:
        warnings.warn(f"{source}: {len(skipped)} colliding geom(s) left out of the collision "
                      f"geoms: {'; '.join(skipped[:6])}{' ...' if len(skipped) > 6 else ''}",
                      MJCFWarning, stacklevel=3)
    pairs = []
    for b1, b2, node in d.excludes:
        for b in (b1, b2):
            if b not in cfg.seen:
                raise MJCFError(f"<exclude> names body {b!r}, which the model does not have",
                                node.source, "<exclude>", node.line)
        pairs.append((_placed(cfg, b1, np.eye(3), np.zeros(3), "body", None)["body"],
                      _placed(cfg, b2, np.eye(3), np.zeros(3), "body", None)["body"]))
    return geoms, names, owners, pairs, source


def _check_contact(g: dict, fail) -> None:
    """What MuJoCo takes but fastdyn's contacts cannot use (geom_table's rules)."""
    if min(g["friction"]) < 0:
        fail(f"friction {g['friction']}: coefficients must be >= 0 for fastdyn's contacts "
             f"(MuJoCo takes negative ones)")
    if g["margin"] < 0:
        fail(f"margin {g['margin']:g}: must be >= 0 for fastdyn's contacts")
    for key in ("contype", "conaffinity"):
        if not 0 <= g[key] < 2**31:
            fail(f"{key} {g[key]}: a bit mask from 0 to 2^31 - 1 for fastdyn's contacts")


def _asset_points(cfg: _Config, assets: dict, name: str, here: str, d, numbers: Numbers,
                  fail) -> np.ndarray:
    """The convex geom's vertices of mesh asset ``name`` (its file's or inline points, times
    its ``scale``); a file's problem is reported at the geom, a bad asset at the asset."""
    a: Attrs | None = assets.get(name)
    if a is None:
        fail(f"mesh={name!r}: no <asset><mesh> of that name")
    cap = numbers.integer(a, "maxhullvert", -1)
    if cap != -1:
        warnings.warn(f"{a.node.source}, line {a.node.line}: mesh {name!r}: "
                      f"maxhullvert={cap} is not read: MuJoCo collides a hull Qhull stopped "
                      f"after {cap} vertices, fastdyn the whole hull", MJCFWarning,
                      stacklevel=4)
    mesh = asset_mesh(numbers, a, here, d.assets.get("meshdir", ""), cfg.max_mesh_bytes, fail)
    what = f"mesh file {os.path.join(d.assets.get('meshdir', ''), a.get('file'))!r}" \
        if a.get("file") else f"mesh {name!r}'s vertex points"
    return _hull(cfg, mesh.vertices, what, fail)
