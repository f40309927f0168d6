"""URDF parser: ``load_urdf(path_or_xml, root_joint=None, mimic=False)`` -> Model, as Pinocchio
builds it (with ``mimic=True``, a ``fastdyn.mimic.MimicModel``: see ``load_urdf``).

The model matches ``pinocchio.buildModelFromUrdf`` (4.1): same joints in the same depth-first
order (children sorted by joint name, urdfdom's order), same names, nq, nv, joint types (axes
equal to +X/+Y/+Z up to 1e-12 give the aligned types, any other axis — "0 0 -1" included —
the any-axis type with the normalized axis, so q keeps the URDF's sign), same limits (with
unbounded where Pinocchio writes DBL_MAX), same frames in the same order, fixed joints folded
into frames with their child's inertia merged into the moving body above.

Reading follows urdfdom's rules (the <limit> of revolute and prismatic joints, <mass> and all
six <inertia> entries are required; <visual>, <collision>, <material>, <gazebo>, <transmission>,
<sensor>, <safety_controller> and <calibration> are ignored) with stricter numbers: ASCII
C-locale decimals only, never NaN, inf or a decimal comma. Where urdfdom logs an error and
carries on with part of the robot missing (an unreadable <inertial> dropped, links on a loop
never reached), this parser refuses the file instead. Errors raise ``URDFError`` naming the
file, the element and the line; the physically inconsistent inertias many published URDFs
contain are kept, with a ``URDFWarning``.

XML safety: the document is read by expat (the parser behind xml.etree) with handlers that
reject any DOCTYPE, ENTITY or external-entity declaration before it is processed, so entity
expansion bombs and external entities never expand; documents are not fetched or included.
Documents above ``max_bytes`` (64 MiB unless told otherwise) are refused after reading at most
that many bytes, so a device or a pipe given as a path cannot exhaust memory.
"""

from __future__ import annotations

import re

import numpy as np

from ..mimic import MimicModel
from ..model import Model
from . import _xml
from .description import (Collision, Description, DescriptionError, Inertial, Joint, Link, Visual,
                          to_model)
from ..errors import URDFError, URDFWarning  # noqa: F401

__all__ = ["load_urdf", "parse_urdf", "urdf_collisions", "urdf_visuals", "URDFError",
           "URDFWarning"]


# A URDF is text, rarely above a few MiB (Talos with every sensor: 0.4 MiB); 64 MiB leaves
# room for generated files while a device (/dev/zero), a pipe or a mistaken path to a huge
# file fails at once instead of filling memory or never returning.
MAX_BYTES = 64 * 2**20


def load_urdf(path_or_xml, root_joint: str | None = None, mimic: bool = False, *,
              max_bytes: int | None = MAX_BYTES) -> Model | MimicModel:
    """The Model of a URDF file (a path) or document (a string starting with "<", or bytes).

    ``root_joint``: None (fixed base), "freeflyer" (alias "free-flyer"), "planar" or any
    axis-aligned type of ``fastdyn.JOINT_TYPES``, inserted between the universe and the root
    link under the name "root_joint", as
    ``pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())`` does.
    ``mimic``: False (default): every joint is independent, the ``<mimic>`` tags are kept in
    ``model.mimic`` (joint -> (mimicked joint, multiplier, offset)). True: mimic joints follow
    their leader, q_j = multiplier q_i + offset, and their coordinates leave q and v, as
    ``pin.buildModelFromUrdf(path, mimic=True)`` (same nq, nv and order): a
    ``fastdyn.mimic.MimicModel`` over the full model, which the kinematics, Jacobians, rnea,
    crba, aba and configuration functions take (others refuse it with an error saying so).
    Mimic and mimicked joints must be 1-dof revolute or prismatic, or both continuous; a
    chain of mimic tags is composed (Pinocchio refuses it), a mimicked joint may come after
    its follower in the tree (Pinocchio refuses Talos's full model and Romeo for that); a tag
    naming an undefined or fixed joint, or joining other types, raises ``URDFError``; a tag on
    a fixed joint is dropped with a ``URDFWarning``, as with mimic=False. A file without a
    moving mimic joint gives the plain Model.
    ``max_bytes``: documents longer than this (64 MiB by default) raise ``URDFError`` after
    reading at most ``max_bytes + 1`` bytes, so a device or a pipe cannot exhaust memory or
    hang the reader; pass a larger number, or None for no cap, to load bigger files.
    """
    if not isinstance(mimic, (bool, np.bool_)):
        raise TypeError(f"mimic must be True or False, got {mimic!r}")
    return to_model(parse_urdf(path_or_xml, max_bytes=max_bytes), root_joint, bool(mimic))


def parse_urdf(path_or_xml, *, max_bytes: int | None = MAX_BYTES) -> Description:
    """Read a URDF into a ``Description`` (no topology checks yet: ``to_model`` does them).
    ``max_bytes`` caps the document's size as in ``load_urdf``."""
    data, source = _read(path_or_xml, max_bytes)
    return _Reader(source).robot(_xml_tree(data, source))


def urdf_collisions(path_or_xml, *, max_bytes: int | None = MAX_BYTES
                    ) -> dict[str, list[Collision]]:
    """Each link's <collision> shapes, by link name (links without any are left out). Read
    apart from ``load_urdf``, which ignores <collision> as Pinocchio's model does: a URDF
    whose collision elements are broken still loads as a model."""
    data, source = _read(path_or_xml, max_bytes)
    root = _xml_tree(data, source)
    reader = _Reader(source)
    out = {}
    for c in root.children:
        if c.tag == "link":
            name = reader.name(c, "<link>")
            shapes = reader.collisions(c, f"link {name!r}")
            if shapes:
                out[name] = shapes
    return out


def urdf_visuals(path_or_xml, *, max_bytes: int | None = MAX_BYTES) -> dict[str, list[Visual]]:
    """Each link's <visual> shapes, by link name (links without any are left out), with
    their colour: the <material> <color rgba> given in the <visual> or, by name, at the top
    of the <robot>. Mesh file names are kept as written ("package://...": fastdyn.io.visuals
    finds the file). Read apart from ``load_urdf``, which ignores <visual> as Pinocchio's
    model does: a URDF whose visual elements are broken still loads as a model."""
    data, source = _read(path_or_xml, max_bytes)
    root = _xml_tree(data, source)
    reader = _Reader(source)
    colours = {}
    for c in root.children:
        if c.tag == "material" and "name" in c.attrib:
            rgba = reader.colour(c, f"<material name={c.attrib['name']!r}>")
            if rgba is not None:
                colours[c.attrib["name"]] = rgba
    out = {}
    for c in root.children:
        if c.tag == "link":
            name = reader.name(c, "<link>")
            shapes = reader.visuals(c, f"link {name!r}", colours)
            if shapes:
                out[name] = shapes
    return out


# --- XML: the shared safe reader (fastdyn/io/_xml.py) ----------------------------------

_Node = _xml.Node
_LOADERS = "load_urdf or parse_urdf"


def _read(path_or_xml, max_bytes: int | None) -> tuple[bytes, str]:
    return _xml.read(path_or_xml, max_bytes, URDFError, "URDF", _LOADERS)


def _xml_tree(data: bytes, source: str) -> _Node:
    return _xml.tree(data, source, URDFError)


# --- URDF semantics ---------------------------------------------------------------------------

# ASCII only: Python's \d and float() also take other scripts' digits ("\u0661", "\uff11") and
# str.strip()/split() Unicode spaces (U+00A0), none of which urdfdom or a C-locale strtod reads.
_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?", re.ASCII)
_XML_SPACE = " \t\r\n"  # XML's whitespace


def _rpy(r: float, p: float, y: float) -> np.ndarray:
    """R = Rz(y) Ry(p) Rx(r), urdfdom's Rotation::setFromRPY."""
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


class _Reader:
    def __init__(self, source: str):
        self.source = source

    def fail(self, message: str, element: str | None, line: int | None):
        raise URDFError(message, self.source, element, line)

    # numbers
    def number(self, node: _Node, attr: str, what: str, default: float | None = None,
               text: str | None = None) -> float:
        s = node.attrib.get(attr) if text is None else text
        if s is None:
            if default is None:
                self.fail(f"<{node.tag}> has no {attr}=\"...\" attribute", what, node.line)
            return default
        t = s.lstrip(_XML_SPACE)
        full = node.attrib.get(attr, s)
        shown = f"<{node.tag} {attr}=\"{full[:60]}\">" + (
            f" ({t[:30]!r})" if t != full.strip(_XML_SPACE) else "")
        if t and t[-1] in _XML_SPACE and _FLOAT.fullmatch(t.rstrip(_XML_SPACE)):
            # urdfdom reads numbers with a stream that skips leading space only: it refuses
            # "1 " in a <limit> and silently drops a whole <inertial> holding one, so
            # accepting it here would give a different robot than Pinocchio or ROS
            self.fail(f"{shown}: whitespace after the number (urdfdom, hence ROS and "
                      f"Pinocchio, refuses it)", what, node.line)
        if not _FLOAT.fullmatch(t):
            hint = ("a decimal comma? URDF numbers use a point (C locale)" if _COMMA.fullmatch(t)
                    else "not a finite decimal number" + ("" if t.isascii() else
                                                          " (non-ASCII characters: URDF numbers "
                                                          "are ASCII, C locale)"))
            self.fail(f"{shown}: {hint}", what, node.line)
        x = float(t)
        if not np.isfinite(x):
            self.fail(f"{shown}: overflows a double", what, node.line)
        return x

    def vector(self, node: _Node, attr: str, what: str, default=(0.0, 0.0, 0.0)) -> np.ndarray:
        s = node.attrib.get(attr)
        if s is None:
            if default is None:
                self.fail(f"<{node.tag}> has no {attr}=\"x y z\" attribute", what, node.line)
            return np.array(default, dtype=np.float64)
        parts = [x for x in s.split(" ") if x]  # urdfdom splits on spaces only
        if len(parts) != 3:
            self.fail(f"<{node.tag} {attr}=\"{s[:60]}\"> needs 3 numbers separated by spaces, "
                      f"got {len(parts)}", what, node.line)
        return np.array([self.number(node, attr, what, text=x) for x in parts])

    def origin(self, parent: _Node, what: str) -> tuple[np.ndarray, np.ndarray]:
        o = parent.first("origin")
        if o is None:
            return np.eye(3), np.zeros(3)
        return _rpy(*self.vector(o, "rpy", what)), self.vector(o, "xyz", what)

    def name(self, node: _Node, what: str) -> str:
        n = node.attrib.get("name")
        if n is None:
            self.fail("no name attribute", what, node.line)
        if not n.strip():  # urdfdom takes it, and then nothing can refer to the element
            self.fail(f"name={n!r} is blank", what, node.line)
        return n

    # elements
    def robot(self, root: _Node) -> Description:
        if root.tag != "robot":
            hint = ("; this is an MJCF (MuJoCo) file: load it with fastdyn.load_mjcf"
                    if root.tag == "mujoco" else "")
            self.fail(f"the root element is <{root.tag}>, expected <robot>{hint}", "XML",
                      root.line)
        d = Description(self.name(root, "<robot>"), source=self.source, child_order="name",
                        error=URDFError, warning=URDFWarning)
        for c in root.children:  # only direct children: <transmission> holds <joint> too
            if c.tag == "link":
                d.links.append(self.link(c))
            elif c.tag == "joint":
                d.joints.append(self.joint(c))
        if not d.links:
            self.fail("no <link> elements", f"robot {d.name!r}", root.line)
        return d

    def collisions(self, node: _Node, what: str) -> list[Collision]:
        """The link's <collision> shapes (the simulator's contact geometry)."""
        out = []
        for c in node.children:
            if c.tag != "collision":
                continue
            R, p = self.origin(c, what + " <collision>")
            kind, size, mesh, scale, shape = self.shape(c, what)
            out.append(Collision(kind, R, p, size, mesh, shape.line, scale=scale))
        return out

    def shape(self, c: _Node, what: str):
        """(kind, size, mesh, scale, node) of the <geometry> inside <collision>/<visual> c."""
        g = c.first("geometry")
        shape = next(iter(g.children), None) if g is not None else None
        if shape is None:
            self.fail(f"<{c.tag}> has no <geometry> shape", what, c.line)
        w = f"{what} <{c.tag}> <{shape.tag}>"
        scale = (1.0, 1.0, 1.0)
        if shape.tag == "sphere":
            size = (self.number(shape, "radius", w),)
        elif shape.tag == "box":
            size = tuple(self.vector(shape, "size", w, default=None))
        elif shape.tag in ("cylinder", "capsule"):
            size = (self.number(shape, "radius", w), self.number(shape, "length", w))
        elif shape.tag == "mesh":
            return "mesh", (), shape.attrib.get("filename", "?"), \
                tuple(self.vector(shape, "scale", w, (1.0, 1.0, 1.0))), shape
        else:
            self.fail(f"unknown {c.tag} shape <{shape.tag}>", what, shape.line)
        if min(size) < 0:
            self.fail(f"<{shape.tag}> has a negative size {size}", what, shape.line)
        return shape.tag, size, None, scale, shape

    def colour(self, material: _Node, what: str):
        """The rgba of a <material>'s <color>, or None (a texture, or a reference by name)."""
        col = material.first("color")
        if col is None or "rgba" not in col.attrib:
            return None
        parts = [x for x in col.attrib["rgba"].split(" ") if x]
        if len(parts) != 4:
            self.fail(f"<color rgba=\"{col.attrib['rgba'][:60]}\"> needs 4 numbers", what,
                      col.line)
        return tuple(min(max(self.number(col, "rgba", what, text=x), 0.0), 1.0)
                     for x in parts)

    def visuals(self, node: _Node, what: str, colours: dict) -> list[Visual]:
        """The link's <visual> shapes (what a viewer draws)."""
        out = []
        for c in node.children:
            if c.tag != "visual":
                continue
            R, p = self.origin(c, what + " <visual>")
            kind, size, mesh, scale, shape = self.shape(c, what)
            rgba, m = None, c.first("material")
            if m is not None:
                rgba = self.colour(m, what + " <visual> <material>")
                if rgba is None:
                    rgba = colours.get(m.attrib.get("name"))
            out.append(Visual(kind, R, p, size, mesh, scale, rgba, shape.line))
        return out

    def link(self, node: _Node) -> Link:
        name = self.name(node, "<link>")
        what = f"link {name!r}"
        inode = node.first("inertial")
        if inode is None:
            return Link(name, None, node.line)
        R, c = self.origin(inode, what + " <inertial>")
        mnode = inode.first("mass")
        if mnode is None:
            self.fail("<inertial> has no <mass value=...> element", what, inode.line)
        mass = self.number(mnode, "value", what)
        inn = inode.first("inertia")
        if inn is None:
            self.fail("<inertial> has no <inertia ixx=... .../> element", what, inode.line)
        v = {k: self.number(inn, k, what) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])
        with np.errstate(over="ignore", invalid="ignore"):
            I = R @ I @ R.T
        if not np.all(np.isfinite(I)):
            self.fail("<inertia> overflows a double once rotated by the <inertial> <origin rpy>: "
                      "values this large are no body", what, inn.line)
        return Link(name, Inertial(mass, c, I, inn.line), node.line)

    def joint(self, node: _Node) -> Joint:
        name = self.name(node, "<joint>")
        what = f"joint {name!r}"
        kind = node.attrib.get("type")
        if kind is None:
            self.fail("<joint> has no type attribute", what, node.line)
        if kind not in ("revolute", "continuous", "prismatic", "fixed", "floating", "planar"):
            self.fail(f"unknown joint type {kind!r} (URDF knows revolute, continuous, prismatic, "
                      f"fixed, floating, planar)", what, node.line)
        ends = {}
        for role in ("parent", "child"):
            e = node.first(role)
            if e is None or not e.attrib.get("link", "").strip():
                self.fail(f"no <{role} link=\"...\"/> element", what, node.line)
            ends[role] = e.attrib["link"]
        R, p = self.origin(node, what + " <origin>")
        j = Joint(name, kind, ends["parent"], ends["child"], R, p, line=node.line)
        a = node.first("axis")
        if a is not None and kind == "planar" and "xyz" in a.attrib:
            self.vector(a, "xyz", what)  # unused (the plane is XY), but urdfdom refuses a bad one
        elif a is not None and kind in ("revolute", "continuous", "prismatic"):
            if "xyz" not in a.attrib:
                self.fail("<axis> has no xyz attribute", what, a.line)
            j.axis = self.vector(a, "xyz", what)
            with np.errstate(over="ignore", under="ignore"):
                n2 = float(j.axis @ j.axis)
            if not np.isfinite(n2):
                self.fail(f"<axis xyz=\"{a.attrib['xyz'][:60]}\">: its length overflows a double "
                          f"(Pinocchio normalizes it to zero); write a unit vector", what, a.line)
            if np.sqrt(n2) < 1e-12:
                self.fail(f"<axis xyz=\"{a.attrib['xyz'][:60]}\"> is zero: a {kind} joint needs a "
                          f"direction", what, a.line)
        lim = node.first("limit")
        if lim is None and kind in ("revolute", "prismatic"):
            self.fail(f"a {kind} joint needs <limit lower=... upper=... effort=... "
                      f"velocity=.../>", what, node.line)
        # urdfdom reads <limit> and <dynamics> on every joint type and refuses malformed ones,
        # so they are checked here too, even where a fixed or floating joint ignores them
        if lim is not None:
            lower = self.number(lim, "lower", what, 0.0)
            upper = self.number(lim, "upper", what, 0.0)
            effort = self.number(lim, "effort", what)
            velocity = self.number(lim, "velocity", what)
        if lim is not None and kind in ("revolute", "continuous", "prismatic"):
            j.lower, j.upper, j.effort, j.velocity = lower, upper, effort, velocity
            if kind == "continuous":
                j.lower = j.upper = None
            elif j.lower > j.upper:
                self.fail(f"<limit> lower {j.lower:g} is above upper {j.upper:g}", what, lim.line)
            if j.effort < 0 or j.velocity < 0:
                self.fail("<limit> effort and velocity must be >= 0", what, lim.line)
        dyn = node.first("dynamics")
        if dyn is not None:
            if "damping" not in dyn.attrib and "friction" not in dyn.attrib:
                self.fail("<dynamics> with neither damping nor friction", what, dyn.line)
            damping = self.number(dyn, "damping", what, 0.0)
            friction = self.number(dyn, "friction", what, 0.0)
            if kind in ("revolute", "continuous", "prismatic"):
                j.damping, j.friction = damping, friction
                if j.damping < 0 or j.friction < 0:
                    self.fail("<dynamics> damping and friction must be >= 0", what, dyn.line)
        mim = node.first("mimic")
        if mim is not None:
            target = mim.attrib.get("joint", "").strip()
            if not target:
                self.fail("<mimic> has no joint attribute", what, mim.line)
            j.mimic = (target, self.number(mim, "multiplier", what, 1.0),
                       self.number(mim, "offset", what, 0.0))
            j.mimic_line = mim.line
        return j
