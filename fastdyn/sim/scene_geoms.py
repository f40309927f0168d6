"""A Scene's collision geoms: the descriptions it keeps, the tables its step reads, the results.

A scene keeps its geoms as the dicts of ``fastdyn.sim.collision.geom_table`` (``body`` the
model joint the geom hangs on, 0 the world; pos/rot in that joint's frame) and builds, per
launch, the tuple the step reads (kernels/contact/geom_rows.py): the user's geoms and one world
plane per half-space of the scene (the default ground, ``add_halfspace``), so that a box meets
the ground with its 4-point manifold. Rigid geoms (no solref/solimp, as the scene's default)
take a margin of at least the scene's (their contacts enter a step as a sphere's do); soft
ones keep their own (MuJoCo's: default 0).
What collides: geom with geom (bodies not parent and child, not excluded, contype/conaffinity
matching) and geom with the scene's half-spaces; ``add_sphere`` points (and ``add_box`` corners
and the other sphere shapes) collide with half-spaces only, never with geoms.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import GeomError
from ..kernels import layout as L
from ..kernels.collision import epa, geoms as G
from ..kernels.contact import geom_detect as _gd, geom_rows as _gr
from .collision import geom_table

NO_GEO = _gr.NO_GEO  # a scene without geoms: None (its kernels compile no collision code)


class GeomContacts(NamedTuple):
    """The geom contacts of a step: ``geom`` (n, 2) the two geoms (scene indices; the
    half-spaces' planes come after the scene's geoms, ``Scene.geom_names``), ``pos`` (n, 3)
    the point halfway between the witness points, ``normal`` (n, 3) from geom 0 to geom 1,
    ``dist`` (n,) the signed distance (negative: penetration), ``force`` (n, 3) the world
    force on geom 1's body [N] (on geom 0's body: its opposite; zero for a contact found
    within the margin that did not become a constraint)."""
    geom: np.ndarray
    pos: np.ndarray
    normal: np.ndarray
    dist: np.ndarray
    force: np.ndarray


def described(model, index, frame, type, size, pos, rot, quat, friction, margin, solref,
              solimp, contype, conaffinity, soft) -> dict:
    """The geom_table dict of ``Scene.add_geom``'s arguments (the scene's geom ``index``): the
    frame's placement composed with the geom's (the geom hangs on the frame's joint); soft:
    the [solref, solimp] row it takes (zeros: rigid)."""
    from .._internal.checks import frame_index, matrix, vector
    if rot is not None and quat is not None:
        raise GeomError(index, "rot", "give rot or quat, not both")
    R = np.eye(3)
    if quat is not None:
        try:
            R = geom_table([{"type": "sphere", "size": (1.0,), "quat": quat}]).gprm[0, 3:12]
        except GeomError as e:
            raise GeomError(index, e.field, e.reason) from None
        R = R.reshape(3, 3)
    elif rot is not None:
        R = matrix(rot, (3, 3), "rot")
    p = vector(pos, 3, "pos")
    if frame is None or (isinstance(frame, str) and frame == "world"):
        body, Rf, pf = 0, np.eye(3), np.zeros(3)
    else:
        f = frame_index(model, frame)
        fr = model.frm[f]
        body, Rf, pf = int(fr["parent_joint"]), fr["R"], fr["p"]
    d = {"type": type, "body": body, "pos": Rf @ p + pf, "rot": Rf @ R,
         "solref": soft[:2], "solimp": soft[2:]}
    if size is not None:
        d["size"] = size
    if friction is not None:
        d["friction"] = (float(friction), 0.005, 0.0001) if np.ndim(friction) == 0 else friction
    for k, x in (("margin", margin), ("contype", contype), ("conaffinity", conaffinity)):
        if x is not None:
            d[k] = x
    return d


def checked(geoms: list, model) -> None:
    """GeomError (index, field, reason) for a geom whose body is not a joint of the model; the
    rest is geom_table's check."""
    for g, d in enumerate(geoms):
        b = d.get("body", 0)
        if isinstance(b, (int, np.integer)) and not 0 <= b < model.njoints:
            raise GeomError(g, "body", f"joint {b} is not one of the model's {model.njoints} "
                            f"joints (0: the world)")
    geom_table(geoms)


def planes(halfspaces: np.ndarray) -> list[dict]:
    """One world plane geom per half-space row: z along its normal, on its boundary, with its
    friction and softness (a rigid half-space: no solref/solimp)."""
    out = []
    for h in halfspaces:
        n, t1, t2 = h[L.H_N:L.H_N + 3], h[L.H_T1:L.H_T1 + 3], h[L.H_T2:L.H_T2 + 3]
        out.append({"type": "plane", "body": 0, "pos": h[L.H_OFFSET] * n,
                    "rot": np.column_stack([t1, t2, n]),
                    "friction": (h[L.H_MU], 0.005, 0.0001),
                    "solref": h[L.H_SOLREF:L.H_SOLREF + 2], "solimp": h[L.H_SOLIMP:L.H_SOLIMP + 5]})
    return out


def capacity(ngeom: int, max_contacts: int | None) -> int:
    """K: the scene's max_contacts, by default 8 per geom (a box on a box has up to 8)
    and at least 32."""
    return max(32, 8 * ngeom) if max_contacts is None else int(max_contacts)


def tables(scene, inverse_weight) -> tuple:
    """The step's geo tuple (geom_rows.py) of a scene: NO_GEO when it has no geoms."""
    if not scene._geoms:
        return NO_GEO
    model = scene.model
    t = geom_table(scene._geoms + planes(scene.halfspaces))
    gprm = t.gprm.copy()
    soft = gprm[:, G.G_SOLIMP + 1] > 0
    gprm[~soft, G.G_MARGIN] = np.maximum(gprm[~soft, G.G_MARGIN], scene.margin)
    ng, nb = t.ngeom, model.njoints
    ex = np.array(scene._excluded, np.int64).reshape(-1, 2)
    K = capacity(len(scene._geoms), scene.max_contacts)
    P = ng * (ng - 1) // 2
    gaux = np.concatenate([[K, P, len(ex), nb], model.jnt["parent"], ex.reshape(-1)])
    binv = np.zeros(nb)
    if soft.any():
        for b in np.unique(t.geom["body"]):
            binv[b] = inverse_weight(model, int(b))
    return (t.geom, np.ascontiguousarray(gprm), t.verts, gaux.astype(np.int64), binv)


def sizes(base_sizes, nv: int, npair: int, geo) -> tuple[int, int, int, int]:
    """(rows, warm-start slots, floats, ints) of a step's buffers with the geoms' room."""
    if geo is None:
        return base_sizes
    ng = geo[0].shape[0]
    from ..kernels.contact import time_step as _ts
    K, P = int(geo[3][0]), int(geo[3][1])
    rows, nwarm, nf, ni = _ts.sizes(nv, 1, npair + K)
    return rows, nwarm + K, nf + _gd.float_size(ng, K), ni + _gd.int_size(ng, K, P)


def results(geo, fbuf: np.ndarray, ibuf: np.ndarray, nv: int, npair: int) -> GeomContacts:
    """The last step's geom contacts, read from its buffers (geom_rows.py's scratch)."""
    from ..kernels.contact import time_step as _ts
    if geo is None:
        z = np.zeros((0, 3))
        return GeomContacts(np.zeros((0, 2), np.int64), z, z.copy(), np.zeros(0), z.copy())
    ng = geo[0].shape[0]
    K, P = int(geo[3][0]), int(geo[3][1])
    n = int(ibuf[-_gd.INFO + 2])
    o = _ts.geom_offset(nv, npair + K) + 18 * ng
    con = fbuf[o:o + (K + G.MAX_PAIR) * G.CW].reshape(-1, G.CW)[:n]
    o += (K + G.MAX_PAIR) * G.CW + epa.WF_SIZE + L.NH + 9 * K
    force = fbuf[o:o + 3 * K].reshape(K, 3)[:n]
    r = 2 * (3 * (npair + K) + 3 * nv)
    cg = ibuf[r + ng + 2 * P:r + ng + 2 * P + 2 * K].reshape(K, 2)[:n]
    return GeomContacts(cg.copy(), con[:, G.C_POS:G.C_POS + 3].copy(),
                        con[:, G.C_NRM:G.C_NRM + 3].copy(), con[:, G.C_DIST].copy(),
                        force.copy())
