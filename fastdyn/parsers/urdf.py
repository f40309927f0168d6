"""URDF parser: ``load_urdf(path_or_xml, root_joint=None)`` -> Model, as Pinocchio builds it.

The model matches ``pinocchio.buildModelFromUrdf`` (4.1): same joints in the same depth-first
order (children sorted by joint name, urdfdom's order), same names, nq, nv, joint types (axes
equal to +X/+Y/+Z up to 1e-12 give the aligned types, any other axis — "0 0 -1" included —
the any-axis type with the normalized axis, so q keeps the URDF's sign), same limits (with
unbounded where Pinocchio writes DBL_MAX), same frames in the same order, fixed joints folded
into frames with their child's inertia merged into the moving body above.

Reading follows urdfdom's rules (the <limit> of revolute and prismatic joints, <mass> and all
six <inertia> entries are required; <visual>, <collision>, <material>, <gazebo>, <transmission>
and <sensor> are ignored) with stricter numbers: C-locale decimals only, never NaN, inf or a
decimal comma. Errors raise ``URDFError`` naming the file, the element and the line; the
physically inconsistent inertias many published URDFs contain are kept, with a ``URDFWarning``.

XML safety: the document is read by expat (the parser behind xml.etree) with handlers that
reject any DOCTYPE, ENTITY or external-entity declaration before it is processed, so entity
expansion bombs and external entities never expand; documents are not fetched or included.
"""

from __future__ import annotations

import os
import re
from pyexpat import ExpatError, ErrorString, ParserCreate
from pyexpat import XML_PARAM_ENTITY_PARSING_NEVER

import numpy as np

from ..model import Model
from .description import (Description, DescriptionError, Inertial, Joint, Link, to_model)

__all__ = ["load_urdf", "parse_urdf", "URDFError", "URDFWarning"]


class URDFError(DescriptionError):
    """A URDF fastdyn cannot load: ``str(err)`` is "file, line N: element: reason";
    ``.source``, ``.line``, ``.element`` and ``.reason`` hold the parts."""


class URDFWarning(UserWarning):
    """Something Pinocchio accepts silently but a reader should know (e.g. a non-physical
    inertia, a mimic tag naming a fixed joint)."""


def load_urdf(path_or_xml, root_joint: str | None = None, mimic: bool = False) -> Model:
    """The Model of a URDF file (a path) or document (a string starting with "<", or bytes).

    ``root_joint``: None (fixed base), "freeflyer" (alias "free-flyer"), "planar" or any
    axis-aligned type of ``fastdyn.JOINT_TYPES``, inserted between the universe and the root
    link under the name "root_joint", as
    ``pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())`` does.
    ``mimic``: mimic tags are always kept in ``model.mimic`` and the joints stay independent;
    ``mimic=True`` (mimic joints that follow their leader) is not supported yet.
    """
    if mimic:
        raise NotImplementedError("mimic=True: fastdyn keeps mimic joints independent; the "
                                  "relations are in model.mimic (load with mimic=False)")
    return to_model(parse_urdf(path_or_xml), root_joint)


def parse_urdf(path_or_xml) -> Description:
    """Read a URDF into a ``Description`` (no topology checks yet: ``to_model`` does them)."""
    data, source = _read(path_or_xml)
    return _Reader(source).robot(_xml_tree(data, source))


# --- XML --------------------------------------------------------------------------------------

class _Node:
    __slots__ = ("tag", "attrib", "children", "line")

    def __init__(self, tag: str, attrib: dict, line: int):
        self.tag, self.attrib, self.children, self.line = tag, attrib, [], line

    def first(self, tag: str) -> "_Node | None":
        return next((c for c in self.children if c.tag == tag), None)


_DECL = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def _read(path_or_xml) -> tuple[bytes, str]:
    if isinstance(path_or_xml, (bytes, bytearray)):
        return bytes(path_or_xml), "<string>"
    if isinstance(path_or_xml, str) and path_or_xml.lstrip("\ufeff \t\r\n").startswith("<"):
        return path_or_xml.encode("utf-8"), "<string>"
    path = os.fspath(path_or_xml)
    with open(path, "rb") as fh:
        return fh.read(), str(path)


def _xml_tree(data: bytes, source: str) -> _Node:
    """Parse with expat into _Nodes carrying line numbers; no DTD, entity or external fetch."""
    m = _DECL.search(data)
    if m:  # cheap first line of defence, before expat sees anything
        line = data.count(b"\n", 0, m.start()) + 1
        raise URDFError(f"<!{m.group(1).decode().upper()} ...> declarations are not allowed "
                        f"(entity expansion and external entities are unsafe); remove it",
                        source, "XML", line)
    p = ParserCreate()
    p.SetParamEntityParsing(XML_PARAM_ENTITY_PARSING_NEVER)

    def reject(what):
        def handler(*_):
            raise URDFError(f"{what} declarations are not allowed (entity expansion and "
                            f"external entities are unsafe)", source, "XML", p.CurrentLineNumber)
        return handler

    p.StartDoctypeDeclHandler = reject("DOCTYPE")
    p.EntityDeclHandler = reject("ENTITY")
    p.UnparsedEntityDeclHandler = reject("ENTITY")
    p.NotationDeclHandler = reject("NOTATION")
    p.ExternalEntityRefHandler = reject("external entity")
    stack: list[_Node] = []
    top: list[_Node] = []

    def start(tag, attrib):
        node = _Node(tag, attrib, p.CurrentLineNumber)
        (stack[-1].children if stack else top).append(node)
        stack.append(node)

    def end(tag):
        stack.pop()

    p.StartElementHandler = start
    p.EndElementHandler = end
    try:
        p.Parse(data, True)
    except ExpatError as e:
        raise URDFError(f"malformed XML: {ErrorString(e.code)} (column {e.offset + 1})", source,
                        "XML", e.lineno) from None
    return top[0]


# --- URDF semantics ---------------------------------------------------------------------------

_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")


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
        t = s.strip()
        full = node.attrib.get(attr, s)
        shown = f"<{node.tag} {attr}=\"{full[:60]}\">" + (f" ({t[:30]!r})" if t != full.strip()
                                                          else "")
        if not _FLOAT.fullmatch(t):
            hint = ("a decimal comma? URDF numbers use a point (C locale)" if _COMMA.fullmatch(t)
                    else "not a finite decimal number")
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
        parts = s.split()
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
        if n is None or not n.strip():
            self.fail("no name attribute", what, node.line)
        return n

    # elements
    def robot(self, root: _Node) -> Description:
        if root.tag != "robot":
            self.fail(f"the root element is <{root.tag}>, expected <robot>", "XML", root.line)
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
        return Link(name, Inertial(mass, c, R @ I @ R.T, inn.line), node.line)

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
        if kind in ("revolute", "continuous", "prismatic"):
            a = node.first("axis")
            if a is not None:
                if "xyz" not in a.attrib:
                    self.fail("<axis> has no xyz attribute", what, a.line)
                j.axis = self.vector(a, "xyz", what)
                if np.linalg.norm(j.axis) < 1e-12:
                    self.fail(f"<axis xyz=\"{a.attrib['xyz']}\"> is zero: a {kind} joint needs a "
                              f"direction", what, a.line)
        lim = node.first("limit")
        if lim is None and kind in ("revolute", "prismatic"):
            self.fail(f"a {kind} joint needs <limit lower=... upper=... effort=... "
                      f"velocity=.../>", what, node.line)
        if lim is not None and kind in ("revolute", "continuous", "prismatic"):
            j.lower = self.number(lim, "lower", what, 0.0)
            j.upper = self.number(lim, "upper", what, 0.0)
            j.effort = self.number(lim, "effort", what)
            j.velocity = self.number(lim, "velocity", what)
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
            if kind in ("revolute", "continuous", "prismatic"):
                j.damping = self.number(dyn, "damping", what, 0.0)
                j.friction = self.number(dyn, "friction", what, 0.0)
                if j.damping < 0 or j.friction < 0:
                    self.fail("<dynamics> damping and friction must be >= 0", what, dyn.line)
        mim = node.first("mimic")
        if mim is not None:
            target = mim.attrib.get("joint", "").strip()
            if not target:
                self.fail("<mimic> has no joint attribute", what, mim.line)
            j.mimic = (target, self.number(mim, "multiplier", what, 1.0),
                       self.number(mim, "offset", what, 0.0))
        return j
