"""Contacts between collision geoms without a Scene: build a geom table, place it, collide.

    from fastdyn.sim import collision as col
    table = col.geom_table([dict(type="plane"),
                            dict(type="box", size=(0.1, 0.1, 0.1), body=1)])
    oMb = np.stack([np.eye(4), T])          # world placement of each body (4x4 or 3x4)
    c = col.collide(table, oMb)             # every pair whose boxes overlap, filtered
    c.geom, c.pos, c.normal, c.dist         # (n, 2), (n, 3), (n, 3), (n,)

Each geom is a dict: ``type`` ("plane", "sphere", "capsule", "ellipsoid", "cylinder", "box",
"convex"), ``size`` (sphere (r,), capsule and cylinder (r, half-length) along the geom's z,
ellipsoid (a, b, c) semi-axes, box (x, y, z) half-sizes, plane none: the half-space z <= 0
of its frame), ``vertices`` (convex: (n, 3), n >= 4, not flat, in the geom frame; their
convex hull is the shape), ``body`` (0: the world), ``pos`` and ``rot`` (3x3) or ``quat``
(x, y, z, w) in the body, ``friction``, ``margin``, ``solref``, ``solimp``, ``contype``,
``conaffinity`` (MuJoCo's defaults). Normals point from ``geom[:, 0]`` to ``geom[:, 1]``;
``dist`` is the signed distance (negative in penetration); ``pos`` is halfway between the
witness points, which are ``pos -+ dist / 2 * normal``. The kernels (fastdyn.kernels.collision)
do the same from @njit code with preallocated arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from ..errors import GeomError
from ..kernels.collision import broadphase, epa, geoms as G, narrow

__all__ = ["GeomTable", "Contacts", "geom_table", "placements", "collide", "collide_pair"]

_NSIZE = {G.PLANE: 0, G.SPHERE: 1, G.CAPSULE: 2, G.ELLIPSOID: 3, G.CYLINDER: 2, G.BOX: 3,
          G.CONVEX: 0}
_DEFAULTS = dict(body=0, pos=(0.0, 0.0, 0.0), friction=(1.0, 0.005, 0.0001), margin=0.0,
                 solref=(0.02, 1.0), solimp=(0.9, 0.95, 0.001, 0.5, 2.0), contype=1,
                 conaffinity=1)
_KEYS = set(_DEFAULTS) | {"type", "size", "vertices", "rot", "quat"}


@dataclass(frozen=True)
class GeomTable:
    """The flat geom table of fastdyn.kernels.collision.geoms: ``geom`` (ngeom,) records,
    ``gprm`` (ngeom, GP) parameters, ``verts`` (nverts, 3) convex vertices."""
    geom: np.ndarray
    gprm: np.ndarray
    verts: np.ndarray

    @property
    def ngeom(self) -> int:
        """Number of geoms."""
        return self.geom.shape[0]


class Contacts(NamedTuple):
    """Contacts: geom pair (n, 2), point (n, 3), normal from geom 0 to geom 1 (n, 3), signed
    distance (n,)."""
    geom: np.ndarray
    pos: np.ndarray
    normal: np.ndarray
    dist: np.ndarray


def _vector(g: int, field: str, x, n: int) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise GeomError(g, field, f"expected {n} numbers, got {x!r}") from None
    if a.size != n:
        raise GeomError(g, field, f"expected {n} numbers, got {a.size}")
    if not np.all(np.isfinite(a)):
        raise GeomError(g, field, f"not finite: {a.tolist()}")
    return a


def _rotation(g: int, d: dict) -> np.ndarray:
    if "rot" in d and "quat" in d:
        raise GeomError(g, "rot", "give rot or quat, not both")
    if "quat" in d:
        x, y, z, w = _vector(g, "quat", d["quat"], 4)
        n = np.sqrt(x * x + y * y + z * z + w * w)
        if abs(n - 1.0) > 1e-6:
            raise GeomError(g, "quat", f"not a unit quaternion (norm {n:.9g})")
        x, y, z, w = x / n, y / n, z / n, w / n
        return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    R = _vector(g, "rot", d.get("rot", np.eye(3)), 9).reshape(3, 3)
    if np.abs(R @ R.T - np.eye(3)).max() > 1e-9 or np.linalg.det(R) < 0.0:
        raise GeomError(g, "rot", "not a rotation matrix (R R^T != 1 or det R < 0)")
    return R


def _vertices(g: int, v) -> np.ndarray:
    try:
        v = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise GeomError(g, "vertices", "not an (n, 3) array of numbers") from None
    if v.ndim != 2 or v.shape[1] != 3:
        raise GeomError(g, "vertices", f"expected shape (n, 3), got {v.shape}")
    if v.shape[0] < 4:
        raise GeomError(g, "vertices", f"{v.shape[0]} points: a convex set needs at least 4")
    bad = np.flatnonzero(~np.all(np.isfinite(v), axis=1))
    if bad.size:
        raise GeomError(g, "vertices", f"vertex {bad[0]} is not finite: {v[bad[0]].tolist()}")
    s = np.linalg.svd(v - v.mean(axis=0), compute_uv=False)
    if s[2] <= 1e-9 * s[0]:
        raise GeomError(g, "vertices", "the points are flat (coplanar): no volume")
    return v


def geom_table(geoms: Sequence[dict]) -> GeomTable:
    """The geom table of a list of geom descriptions (see the module's docstring); raises
    GeomError naming the geom's index and field for an unknown type or key, a size that is
    missing, not finite or not positive, a degenerate vertex set or a bad rotation."""
    n = len(geoms)
    geom = np.zeros(n, dtype=G.GEOM_DTYPE)
    gprm = np.zeros((n, G.GP))
    verts = []
    nv = 0
    for g, d in enumerate(geoms):
        if not isinstance(d, dict):
            raise GeomError(g, "geom", f"expected a dict, got {type(d).__name__}")
        unknown = set(d) - _KEYS
        if unknown:
            raise GeomError(g, sorted(unknown)[0], f"unknown field (known: {sorted(_KEYS)})")
        name = d.get("type")
        if name not in G.TYPE_NAMES:
            raise GeomError(g, "type", f"unknown geom type {name!r} (known: {G.TYPE_NAMES})")
        t = G.TYPE_NAMES.index(name)
        e = {**_DEFAULTS, **d}
        k = _NSIZE[t]
        if k:
            if "size" not in d:
                raise GeomError(g, "size", f"a {name} needs {k} size numbers")
            s = _vector(g, "size", d["size"], k)
            if np.any(s <= 0.0):
                raise GeomError(g, "size", f"sizes must be positive, got {s.tolist()}")
            gprm[g, G.G_SIZE:G.G_SIZE + k] = s
        elif "size" in d and t == G.PLANE:
            pass  # MuJoCo's plane sizes are for drawing only
        if t == G.CONVEX:
            if "vertices" not in d:
                raise GeomError(g, "vertices", "a convex geom needs its vertices")
            v = _vertices(g, d["vertices"])
            geom[g]["vadr"], geom[g]["vnum"] = nv, v.shape[0]
            lo, hi = v.min(axis=0), v.max(axis=0)
            gprm[g, G.G_LBOX:G.G_LBOX + 6] = np.r_[(lo + hi) / 2, (hi - lo) / 2]
            verts.append(v)
            nv += v.shape[0]
        elif "vertices" in d:
            raise GeomError(g, "vertices", f"only convex geoms take vertices, not a {name}")
        body = e["body"]
        if not isinstance(body, (int, np.integer)) or body < 0:
            raise GeomError(g, "body", f"expected a body index >= 0, got {body!r}")
        for f in ("contype", "conaffinity"):
            if not isinstance(e[f], (int, np.integer)) or e[f] < 0:
                raise GeomError(g, f, f"expected a non-negative integer bit mask, got {e[f]!r}")
        geom[g]["type"], geom[g]["body"] = t, body
        geom[g]["contype"], geom[g]["conaffinity"] = e["contype"], e["conaffinity"]
        gprm[g, G.G_R:G.G_R + 9] = _rotation(g, d).reshape(-1)
        gprm[g, G.G_P:G.G_P + 3] = _vector(g, "pos", e["pos"], 3)
        gprm[g, G.G_FRICTION:G.G_FRICTION + 3] = _vector(g, "friction", e["friction"], 3)
        gprm[g, G.G_MARGIN] = m = _vector(g, "margin", e["margin"], 1)[0]
        if m < 0.0:
            raise GeomError(g, "margin", f"must be >= 0, got {m}")
        gprm[g, G.G_SOLREF:G.G_SOLREF + 2] = _vector(g, "solref", e["solref"], 2)
        gprm[g, G.G_SOLIMP:G.G_SOLIMP + 5] = _vector(g, "solimp", e["solimp"], 5)
    v = np.concatenate(verts) if verts else np.zeros((0, 3))
    return GeomTable(geom, gprm, np.ascontiguousarray(v))


def placements(table: GeomTable, oMb) -> tuple[np.ndarray, np.ndarray]:
    """World placements (xpos (ngeom, 3), xmat (ngeom, 3, 3)) of the geoms from the bodies'
    world placements oMb (nbodies, 4, 4) or (nbodies, 3, 4)."""
    T = np.asarray(oMb, dtype=float)
    if T.ndim != 3 or T.shape[1:] not in ((4, 4), (3, 4)):
        raise ValueError(f"body placements: expected shape (nbodies, 4, 4) or (nbodies, 3, 4),"
                         f" got {T.shape}")
    if not np.all(np.isfinite(T)):
        raise ValueError("body placements: not finite")
    nb = T.shape[0]
    if table.ngeom and table.geom["body"].max() >= nb:
        g = int(np.argmax(table.geom["body"]))
        raise GeomError(g, "body", f"body {table.geom[g]['body']} but {nb} body placements")
    flat = np.ascontiguousarray(np.concatenate([T[:, :3, :3].reshape(nb, 9), T[:, :3, 3]], 1))
    xpos, xmat = np.zeros((table.ngeom, 3)), np.zeros((table.ngeom, 3, 3))
    G.geom_placements(table.geom, table.gprm, flat, xpos, xmat)
    return xpos, xmat


def _workspaces():
    return np.zeros(epa.WF_SIZE), np.zeros(epa.WI_SIZE, dtype=np.int64)


def _result(con, cg, n) -> Contacts:
    return Contacts(cg[:n].copy(), con[:n, G.C_POS:G.C_POS + 3].copy(),
                    con[:n, G.C_NRM:G.C_NRM + 3].copy(), con[:n, G.C_DIST].copy())


def collide(table: GeomTable, oMb, parent=None, exclude=None) -> Contacts:
    """Contacts of every pair of geoms the broad phase keeps (boxes overlapping, filtered:
    same body, parent-child unless the parent is the world, contype/conaffinity bits, the
    exclude list of body pairs (n, 2)); parent (nbodies,) each body's parent, -1 for none
    (default: no parent-child filter). Bodies are placed by oMb as in ``placements``."""
    xpos, xmat = placements(table, oMb)
    nb = np.asarray(oMb).shape[0]
    par = np.full(nb, -1, np.int64) if parent is None else np.asarray(parent, np.int64)
    if par.shape != (nb,):
        raise ValueError(f"parent: expected shape ({nb},), got {par.shape}")
    ex = np.zeros((0, 2), np.int64) if exclude is None else np.asarray(exclude, np.int64)
    if ex.ndim != 2 or ex.shape[1] != 2 or (ex.size and (ex.min() < 0 or ex.max() >= nb)):
        raise ValueError(f"exclude: expected (n, 2) body indices below {nb}")
    ng = table.ngeom
    box = np.zeros((ng, 6))
    broadphase.geom_aabbs(table.geom, table.gprm, xpos, xmat, box)
    order, checks = np.arange(ng, dtype=np.int64), np.zeros(1, np.int64)
    pairs = np.zeros((max(ng, 1), 2), np.int64)
    npairs = broadphase.sweep_and_prune(table.geom, box, par, ex, 0, order, pairs, checks)
    if npairs > pairs.shape[0]:
        pairs = np.zeros((npairs, 2), np.int64)
        broadphase.sweep_and_prune(table.geom, box, par, ex, 0, order, pairs, checks)
    con = np.zeros((G.MAX_PAIR * npairs, G.CW))
    cg = np.zeros((G.MAX_PAIR * npairs, 2), np.int64)
    wf, wi = _workspaces()
    n = narrow.collide_pairs(table.geom, table.gprm, table.verts, xpos, xmat, pairs, npairs,
                             con, cg, wf, wi)
    return _result(con, cg, n)


def collide_pair(table: GeomTable, g1: int, g2: int, oMb) -> Contacts:
    """Contacts of geoms g1 and g2 whatever the filter (normals from g1 to g2)."""
    for g in (g1, g2):
        if not 0 <= g < table.ngeom:
            raise IndexError(f"geom {g} out of range for {table.ngeom} geoms")
    xpos, xmat = placements(table, oMb)
    con, cg = np.zeros((G.MAX_PAIR, G.CW)), np.zeros((G.MAX_PAIR, 2), np.int64)
    cg[:] = (g1, g2)
    wf, wi = _workspaces()
    n = narrow.collide_geoms(table.geom, table.gprm, table.verts, xpos, xmat, g1, g2, con, 0,
                             wf, wi)
    return _result(con, cg, n)
