"""MJCF ``<equality>``: its ``connect`` and ``weld`` elements as the frames they hold together,
its ``joint`` elements as linear couplings.

MuJoCo's XML reference ("equality"): ``connect`` holds a point of body1 (``anchor``, in
body1's frame) to the same point of body2 (or of the world), where both are in the pose the
file draws (qpos0: the compiler computes body2's anchor there); with ``site1``/``site2`` the
two sites' origins coincide. ``weld`` holds body2's pose relative to body1 at ``relpose``
(position, then a (w, x, y, z) quaternion; all-zero quaternion: the relative pose drawn at
qpos0): the point ``relpose[:3]`` of body1 is held to the point ``anchor`` of body2, and
body1's axes turned by relpose's quaternion to body2's axes (MuJoCo's weld residual: those
points' world difference and the quaternion error); with an all-zero quaternion, body1's
point and turn are where body2's anchor and axes are drawn. With sites, the two sites'
frames coincide. Each becomes one ``Equality`` record here: frame names, the constrained frame
relative to frame 1 and the target relative to frame 2 (the world when frame 2 is None),
and MuJoCo's ``solref``/``solimp``; fastdyn/io/mjcf_constraints.py makes them
fastdyn.RigidConstraint objects on a model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _mjcf_math as mm
from . import _xml
from ._mjcf_doc import Attrs

SOLREF = (0.02, 1.0)  # MuJoCo's defaults (XML reference, "solref" and "solimp")
SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)
KINDS = ("connect", "weld", "joint")


@dataclass
class Equality:
    kind: str  # "connect" (3 rows) or "weld" (6 rows)
    name: str
    node: _xml.Node
    frame1: str  # a body's or a site's name
    frame2: str | None  # None: the world
    placement1: tuple  # (R, p): the constrained frame in frame1
    placement2: tuple  # (R, p): its target in frame2 (in the world when frame2 is None)
    solref: np.ndarray
    solimp: np.ndarray
    active: bool
    where: str


@dataclass
class JointEquality:
    """``<joint joint1 joint2 polycoef>``, linear: q1 = ratio q2 + offset (joint2 None:
    q1 = offset), MuJoCo's y - y0 = c0 + c1 (x - x0) with y0, x0 the joints' refs."""

    name: str
    node: _xml.Node
    joint1: str
    joint2: str | None
    ratio: float
    offset: float
    solref: np.ndarray
    solimp: np.ndarray
    active: bool
    where: str


def read_joint(reader, node: _xml.Node, a: Attrs, refs: dict) -> JointEquality:
    """The JointEquality of one ``<joint>`` element (attributes over its class's)."""
    solref, solimp, active = _soft(reader, a)
    j1, j2 = a.get("joint1"), a.get("joint2")
    if not j1:
        reader.fail("<joint> equality needs joint1=\"...\", the joint that follows", a)
    for j in (j1, j2):
        if j is not None and j not in refs:
            reader.fail(f"no joint named {j!r} in this model", a)
    k = reader.floats(a, "polycoef", (1, 5), default=(0.0, 1.0, 0.0, 0.0, 0.0))
    k = np.concatenate([k, (0.0, 1.0, 0.0, 0.0, 0.0)[len(k):]])
    if np.any(k[2:] != 0.0):
        reader.fail(f"{a.shown('polycoef')}: a nonlinear polynomial (coefficients of x^2 and "
                    f"above not 0); fastdyn's joint couplings are linear", a)
    y0 = refs[j1].ref
    if j2 is None:
        ratio, offset = 0.0, y0 + k[0]
    else:
        ratio, offset = k[1], y0 + k[0] - k[1] * refs[j2].ref
    name = a.get("name") or f"joint {j1}-{j2 or 'constant'}"
    return JointEquality(name, node, j1, j2, float(ratio), float(offset), solref, solimp,
                         active, reader.where(node))


def _soft(reader, a: Attrs):
    """(solref, solimp, active) of an equality element, MuJoCo's defaults filled in."""
    solref = reader.floats(a, "solref", 2, default=SOLREF)
    solimp = reader.floats(a, "solimp", (3, 5), default=SOLIMP)
    solimp = np.concatenate([solimp, SOLIMP[len(solimp):]])
    if not (0.0 < solimp[0] < 1.0 and 0.0 < solimp[1] < 1.0):
        reader.fail(f"{a.shown('solimp')}: dmin and dmax must be in (0, 1)", a)
    if solref[0] > 0.0 and solref[1] <= 0.0:
        reader.fail(f"{a.shown('solref')}: a positive timeconst needs a positive dampratio", a)
    active = reader.keyword(a, "active", ("true", "false"), "true") == "true"
    return solref, solimp, active


def drawn_poses(bodies) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """World pose (R, p) of each named body and site, as the file draws them (qpos0)."""
    out: dict = {}
    world: dict[int, tuple] = {}
    for b in bodies:  # document order: a parent comes before its children
        if b.parent is None or b.parent.parent is None:
            Rp, pp = np.eye(3), np.zeros(3)  # the worldbody's children
        else:
            Rp, pp = world[id(b.parent)]
        R, p = Rp @ b.R, pp + Rp @ b.p
        world[id(b)] = (R, p)
        if b.name:
            out[b.name] = (R, p)
        for name, Rs, ps, _ in b.sites:
            if name:
                out[name] = (R @ Rs, p + R @ ps)
    return out


def read(reader, node: _xml.Node, a: Attrs, poses: dict, sites: set) -> Equality:
    """The Equality of one ``connect`` or ``weld`` element (attributes over its class's)."""
    kind = node.tag
    solref, solimp, active = _soft(reader, a)
    s1, s2 = a.get("site1"), a.get("site2")
    b1, b2 = a.get("body1"), a.get("body2")
    if s1 is not None or s2 is not None:
        if b1 is not None or b2 is not None:
            reader.fail(f"<{kind}> names bodies and sites: give body1 (and body2), or site1 "
                        f"and site2", a)
        if s1 is None or s2 is None:
            reader.fail(f"<{kind}> with sites needs both site1 and site2", a)
        for s in (s1, s2):
            if s not in sites:
                reader.fail(f"no site named {s!r} in this model", a)
        eye = (np.eye(3), np.zeros(3))
        f1, f2, place1, place2 = s1, s2, eye, eye
    else:
        if b1 is None:
            reader.fail(f"<{kind}> needs body1=\"...\" (or site1 and site2)", a)
        for b in (b1, b2):
            if b is not None and b != "world" and b not in poses:
                reader.fail(f"no body named {b!r} in this model", a)
        f2 = None if b2 in (None, "world") else b2
        f1 = b1
        if f1 == "world":
            reader.fail(f"<{kind}>: body1 is the world; name the moving body as body1", a)
        T1 = poses[f1]
        T2 = poses[f2] if f2 is not None else (np.eye(3), np.zeros(3))
        if kind == "connect":
            anchor = reader.floats(a, "anchor", 3, default=(0.0, 0.0, 0.0))
            with np.errstate(over="ignore", invalid="ignore"):
                point = T1[1] + T1[0] @ anchor  # in the world, where the file draws it
                place2 = (np.eye(3), T2[0].T @ (point - T2[1]))
            place1 = (np.eye(3), anchor)
        else:
            anchor = reader.floats(a, "anchor", 3, default=(0.0, 0.0, 0.0))
            rel = reader.floats(a, "relpose", 7, default=(0, 0, 0, 0, 0, 0, 0))
            if np.any(rel[3:] != 0.0):  # body1's point and body2's orientation, as given
                place1 = (mm.quat_to_R(rel[3:]), rel[:3])
            else:  # where body2's anchor and axes are drawn, in body1's frame
                with np.errstate(over="ignore", invalid="ignore"):
                    place1 = (T1[0].T @ T2[0], T1[0].T @ (T2[1] + T2[0] @ anchor - T1[1]))
            place2 = (np.eye(3), anchor)
    if not all(np.isfinite(x).all() for x in (*place1, *place2)):
        reader.fail(f"<{kind}>: the frames' drawn poses are not finite (positions near the "
                    f"largest double overflow)", a)
    torquescale = reader.number(a, "torquescale", 1.0) if kind == "weld" else 1.0
    if torquescale != 1.0:
        reader.fail(f"{a.shown('torquescale')}: a weld's torque scale other than 1 is not "
                    f"modelled (fastdyn's weld is a rigid 6D constraint)", a)
    name = a.get("name") or f"{kind} {f1}-{f2 or 'world'}"
    return Equality(kind, name, node, f1, f2, place1, place2, solref, solimp, active,
                    reader.where(node))
