"""The collision geoms of a Scene's MuJoCo twin (``Scene.to_mjcf``, fastdyn/sim/mjcf_twin.py).

Each geom of ``Scene.add_geom`` becomes a MuJoCo geom on its joint's body, with what fastdyn's
contacts between geoms read (fastdyn/sim/scene_geoms.py; MuJoCo's XML reference, "geom"):
- type and size as they are (fastdyn's geoms take MuJoCo's size conventions: radii,
  half-lengths, half-sizes); a convex geom becomes a ``mesh`` asset of its vertices (MuJoCo
  collides a mesh as its convex hull, as fastdyn does);
- the placement in the body, ``friction`` (MuJoCo's pair takes the larger, as fastdyn),
  ``contype`` / ``conaffinity`` (the same filter), ``condim`` 3 (sliding friction: fastdyn's
  contacts have no torsional or rolling friction);
- soft geoms their ``solref``, ``solimp`` and ``margin`` (MuJoCo mixes two geoms' solref and
  solimp by their mean, as fastdyn); rigid geoms get MuJoCo's defaults, or ``rigid_solref`` /
  ``rigid_solimp`` (MuJoCo has no rigid contact), and margin 0: a rigid geom's margin in
  fastdyn only says when its speculative rows enter;
- ``Scene.exclude`` pairs as ``<exclude>``. MuJoCo, as fastdyn, never collides a body with its
  parent (but the world) or geoms of the same body.
The scene's half-spaces, written as planes by mjcf_twin.py, take contype = conaffinity = 1
when the scene has geoms, so that they meet the geoms through the same filter (fastdyn's
``scene_geoms.planes``). Where the twin differs: a rigid geom against a soft one takes the
soft one's parameters in fastdyn and the mean with MuJoCo's defaults in the twin.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from ..kernels.collision import geoms as G
from .collision import geom_table


def _num(x) -> str:
    return " ".join(repr(float(a)) for a in np.ravel(x))


def write_geoms(scene, root: ET.Element, bodies: dict, body_names: dict, rigid_solref,
                rigid_solimp) -> None:
    """The scene's geoms into ``bodies`` (joint -> <body>, 0 the <worldbody>), their meshes
    into an <asset> and its excluded pairs into <contact> of ``root``; ``body_names``: joint
    -> the twin's body name (0: "world")."""
    if not scene._geoms:
        return
    t = geom_table(scene._geoms)
    asset = None
    for g in range(t.ngeom):
        rec, p = t.geom[g], t.gprm[g]
        kind = G.TYPE_NAMES[int(rec["type"])]
        el = ET.SubElement(bodies[int(rec["body"])], "geom", name=f"geom:{scene.geom_names[g]}",
                           condim="3")
        if kind == "convex":
            if asset is None:
                asset = ET.Element("asset")
                root.insert(1, asset)  # before the worldbody that uses it
            mesh = f"mesh:{scene.geom_names[g]}"
            v = t.verts[rec["vadr"]:rec["vadr"] + rec["vnum"]]
            ET.SubElement(asset, "mesh", name=mesh, vertex=_num(v))
            el.set("type", "mesh")
            el.set("mesh", mesh)
        else:
            el.set("type", kind)
            n = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}.get(kind)
            el.set("size", _num(p[G.G_SIZE:G.G_SIZE + n]) if n else "0 0 1")
        R = p[G.G_R:G.G_R + 9].reshape(3, 3)
        el.set("pos", _num(p[G.G_P:G.G_P + 3]))
        if not np.array_equal(R, np.eye(3)):
            el.set("xyaxes", _num(np.concatenate([R[:, 0], R[:, 1]])))
        el.set("friction", _num(p[G.G_FRICTION:G.G_FRICTION + 3]))
        el.set("contype", str(int(rec["contype"])))
        el.set("conaffinity", str(int(rec["conaffinity"])))
        soft = p[G.G_SOLREF:G.G_SOLIMP + 5]
        if p[G.G_SOLIMP + 1] > 0:  # soft (scene_geoms.tables' test)
            el.set("solref", _num(soft[:2]))
            el.set("solimp", _num(soft[2:]))
            el.set("margin", repr(float(p[G.G_MARGIN])))
        else:
            if rigid_solref is not None:
                el.set("solref", _num(rigid_solref))
            if rigid_solimp is not None:
                el.set("solimp", _num(rigid_solimp))
    if scene._excluded:
        contact = root.find("contact")
        if contact is None:
            contact = ET.SubElement(root, "contact")
        for a, b in scene._excluded:
            ET.SubElement(contact, "exclude", body1=body_names[a], body2=body_names[b])
