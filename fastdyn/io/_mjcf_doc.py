"""The MJCF document before its bodies are read: ``<include>`` expansion, ``<default>`` classes
and reading an element's attributes (its own over its class's) as checked numbers.

Includes follow the ``include`` section of MuJoCo's XML reference: the element is replaced by
the children of the included file's root, ``<mujoco>`` or ``<mujocoinclude>`` (MuJoCo 2's
name for it, still in published models; MuJoCo 4 takes any root element's children, fastdyn
refuses other roots, e.g. a URDF's <robot>, as mistakes), and a relative name is looked up
against the main file's directory, then the including file's (the order MuJoCo 3 and 4
use; a document given as a string has the current directory as its main directory). As in
MuJoCo a file may be included once; fastdyn also names a cycle as such, caps the nesting
depth (``MAX_INCLUDE_DEPTH``) and the number of includes (``MAX_INCLUDES``), and counts every
included byte against the document's ``max_bytes``.

Defaults follow the "Default settings" section of the Modeling chapter: the top-level
``<default>`` is class "main", nested ones inherit their parent's attributes, an element takes
its ``class=``, else the nearest enclosing ``childclass=``, else "main", and its own
attributes override the class's (an own orientation replaces the class's, whichever of
quat, axisangle, euler, xyaxes or zaxis each used).
"""

from __future__ import annotations

import os
import re

import numpy as np

from . import _xml

MAX_INCLUDE_DEPTH = 16  # nested includes; Menagerie models use 1 or 2
MAX_INCLUDES = 256  # distinct files one model may include
# Elements nested deeper are refused: bodies are read recursively, and a chain of 300 bodies
# is far beyond any robot (a 100-link rope is 100 deep) yet within Python's recursion limit.
MAX_NESTING = 300

ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")
# Element kinds whose defaults are read (others, e.g. motor, material, are ignored).
DEFAULTED = ("joint", "geom", "site", "equality", "mesh")

# ASCII decimals only: Python's float() also takes "nan", "inf", "1_0" and other scripts'
# digits, none of which is a sensible MJCF number (MuJoCo itself accepts NaN with a warning).
_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_SPACE = re.compile(r"[ \t\r\n]+")


def check_nesting(node: _xml.Node, above: int, error: type) -> None:
    """Refuse elements nested more than MAX_NESTING deep (``above``: levels above ``node``)."""
    d, deepest = _xml.depth(node)
    if above + d > MAX_NESTING:
        raise error(f"elements nested more than {MAX_NESTING} deep (bodies, frames, defaults); "
                    f"no robot needs that many", deepest.source, f"<{deepest.tag}>",
                    deepest.line)


def expand_includes(root: _xml.Node, main_dir: str, main_file: str | None, budget: list,
                    error: type) -> None:
    """Replace every <include file=...> below ``root`` by the included file's elements, in
    place. ``budget``: [bytes still allowed] (None: no cap), shared with the caller."""
    seen: dict[str, _xml.Node] = {}
    stack = [os.path.realpath(main_file)] if main_file else []
    check_nesting(root, 0, error)

    def fail(msg, node):
        raise error(msg, node.source, "<include>", node.line)

    def resolve(node) -> str:
        name = node.attrib.get("file")
        if name is None or not name.strip():
            fail("<include> has no file=\"...\" attribute", node)
        if os.path.isabs(name):
            places = [name]
        else:  # MuJoCo's order: the main file's directory, then the including file's
            here = (os.path.dirname(node.source) if node.source != "<string>" else main_dir)
            places = [os.path.join(main_dir, name), os.path.join(here, name)]
        for p in places:
            if os.path.isfile(p):
                return p
        fail(f"included file {name!r} not found (looked for "
             f"{' and '.join(repr(p) for p in dict.fromkeys(places))})", node)

    def walk(node: _xml.Node, level: int) -> None:
        out = []
        for c in node.children:
            if c.tag != "include":
                walk(c, level + 1)
                out.append(c)
                continue
            path = resolve(c)
            real = os.path.realpath(path)
            if real in stack:
                chain = stack[stack.index(real):] + [real]
                fail("the includes form a cycle: " + " -> ".join(
                    os.path.basename(x) for x in chain), c)
            if real in seen:
                first = seen[real]
                fail(f"{c.attrib['file']!r} is already included (at {first.source}, line "
                     f"{first.line}); MuJoCo includes a file once", c)
            if len(stack) > MAX_INCLUDE_DEPTH:
                fail(f"includes nested more than {MAX_INCLUDE_DEPTH} deep", c)
            if len(seen) >= MAX_INCLUDES:
                fail(f"more than {MAX_INCLUDES} included files", c)
            seen[real] = c
            cap = budget[0]
            try:
                data = _xml.read_path(path, cap)
            except OSError as e:
                fail(f"cannot read included file {path!r}: {e.strerror or e}", c)
            if data is None:
                fail(f"the document and its included files are larger than max_bytes "
                     f"(this file would pass the {cap} bytes left); pass a larger max_bytes=... "
                     f"(or None) to load it", c)
            if cap is not None:
                budget[0] = cap - len(data)
            sub = _xml.tree(data, path, error)
            if sub.tag not in ("mujoco", "mujocoinclude"):
                raise error(f"an included file's root element must be <mujoco> (or "
                            f"<mujocoinclude>, as older MuJoCo files write it), got "
                            f"<{sub.tag}>", path, "XML", sub.line)
            check_nesting(sub, level - 1, error)  # its children take the include's place
            stack.append(real)
            walk(sub, level)
            stack.pop()
            out.extend(sub.children)
        node.children = out

    walk(root, 1)


class Attrs:
    """An element's attributes after its default class: ``get`` a value's text, ``shown`` it
    for a message (saying which class it came from)."""

    def __init__(self, node: _xml.Node, defaults: dict | None = None, cls: str | None = None):
        self.node, self.values, self.cls = node, {}, {}
        if defaults:
            own_orientation = any(k in node.attrib for k in ORIENTATIONS)
            for k, v in defaults.items():
                if not (own_orientation and k in ORIENTATIONS):
                    self.values[k], self.cls[k] = v, cls
        for k, v in node.attrib.items():
            self.values[k], self.cls[k] = v, None

    def get(self, key: str) -> str | None:
        return self.values.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.values

    def shown(self, key: str) -> str:
        v = self.values[key]
        v = v if len(v) <= 60 else v[:57] + "..."
        origin = f" (from default class {self.cls[key]!r})" if self.cls[key] else ""
        return f"<{self.node.tag} {key}=\"{v}\">{origin}"


class Defaults:
    """The default classes: class name -> element kind -> attributes."""

    def __init__(self, error: type):
        self.error = error
        self.classes: dict[str, dict[str, dict]] = {"main": {}}
        self.lines: dict[str, _xml.Node] = {}

    def add_top(self, node: _xml.Node) -> None:
        """A top-level <default>: more attributes of "main", and its nested classes."""
        name = node.attrib.get("class", "main")
        if name != "main":
            raise self.error(f"the top-level default class is \"main\" and cannot be renamed "
                             f"(class={name!r})", node.source, "<default>", node.line)
        self._fill("main", node)

    def _fill(self, name: str, node: _xml.Node) -> None:
        own = self.classes[name]
        for c in node.children:  # first the class's own attributes: a nested class copies
            if c.tag in DEFAULTED:  # them wherever it stands (MuJoCo's order too)
                d = own.setdefault(c.tag, {})
                if any(k in c.attrib for k in ORIENTATIONS):
                    for k in ORIENTATIONS:
                        d.pop(k, None)
                d.update(c.attrib)
        for c in node.children:
            if c.tag != "default":
                continue
            sub = c.attrib.get("class")
            if sub is None or not sub.strip():
                raise self.error("a nested <default> needs a class=\"...\" name", c.source,
                                 "<default>", c.line)
            if sub in self.classes:
                first = self.lines.get(sub)
                where = f" (first at {first.source}, line {first.line})" if first else ""
                raise self.error(f"default class {sub!r} is defined twice{where}", c.source,
                                 "<default>", c.line)
            self.classes[sub] = {k: dict(v) for k, v in own.items()}
            self.lines[sub] = c
            self._fill(sub, c)

    def check(self, name: str, node: _xml.Node, attr: str) -> str:
        if name not in self.classes:
            raise self.error(f"{attr}={name!r}: no default class of that name", node.source,
                             f"<{node.tag}>", node.line)
        return name

    def attrs(self, node: _xml.Node, childclass: str) -> Attrs:
        """``node``'s attributes over those of its class (or ``childclass``)."""
        cls = node.attrib.get("class")
        cls = self.check(cls, node, "class") if cls is not None else childclass
        return Attrs(node, self.classes[cls].get(node.tag), cls)


class Numbers:
    """Reads attributes as numbers, raising ``error`` with the file, line and element."""

    def __init__(self, error: type):
        self.error = error

    def fail(self, message: str, a: Attrs, what: str | None = None):
        n = a.node
        name = n.attrib.get("name")
        if what is None:  # the element, by name where it has one
            what = f"<{n.tag} name=\"{name[:40]}\">" if name else f"<{n.tag}>"
        raise self.error(message, n.source, what, n.line)

    def derived(self, a: Attrs, keys: tuple, quantity: str, *values,
                limit: float | None = None) -> None:
        """Fail at ``a``'s element unless every number of ``values`` (what the reader computed
        from its attributes ``keys``: a mass, an inertia, a placement) is finite and, with
        ``limit``, at most ``limit`` in magnitude; the message names ``quantity`` and those of
        ``keys`` the element has (from its default class too)."""
        with np.errstate(invalid="ignore"):
            x = np.abs(np.concatenate([np.ravel(np.asarray(v, dtype=np.float64))
                                       for v in values]))
        if np.all(np.isfinite(x)) and (limit is None or not x.size or x.max() <= limit):
            return
        shown = " and ".join(a.shown(k) for k in keys if k in a) or f"<{a.node.tag}>"
        how = ("overflows a double" if not np.all(np.isfinite(x)) else
               f"is {x.max():.3g}, beyond {limit:g}, which no body has (its products would "
               f"overflow a double)")
        self.fail(f"{shown}: {quantity} {how}", a)

    def floats(self, a: Attrs, key: str, count, what: str | None = None,
               default=None) -> np.ndarray | None:
        """The numbers of ``key``: ``count`` of them (an int, or (least, most)); ``default``
        when absent (None: absent is allowed and gives None)."""
        s = a.get(key)
        if s is None:
            return None if default is None else np.array(default, dtype=np.float64)
        parts = [x for x in _SPACE.split(s) if x]
        lo, hi = (count, count) if isinstance(count, int) else count
        if not lo <= len(parts) <= hi:
            need = f"{lo}" if lo == hi else f"{lo} to {hi}"
            self.fail(f"{a.shown(key)}: needs {need} number{'s' if hi > 1 else ''}, got "
                      f"{len(parts)}", a, what)
        out = np.empty(len(parts))
        for i, t in enumerate(parts):
            if not _FLOAT.fullmatch(t):
                hint = ("; not a finite decimal number" if t.isascii() else
                        "; non-ASCII characters (MJCF numbers are ASCII decimals)")
                self.fail(f"{a.shown(key)}: {t[:30]!r}{hint}", a, what)
            out[i] = float(t)
            if not np.isfinite(out[i]):
                self.fail(f"{a.shown(key)}: {t[:30]!r} overflows a double", a, what)
        return out

    def number(self, a: Attrs, key: str, default: float | None, what: str | None = None):
        x = self.floats(a, key, 1, what)
        if x is None:
            if default is None:
                self.fail(f"<{a.node.tag}> needs a {key}=\"...\" attribute", a, what)
            return default
        return float(x[0])

    def nonnegative(self, a: Attrs, key: str, default: float, what: str | None = None):
        x = self.number(a, key, default, what)
        if x < 0:
            self.fail(f"{a.shown(key)}: must be >= 0", a, what)
        return x

    def keyword(self, a: Attrs, key: str, choices: tuple, default: str,
                what: str | None = None) -> str:
        s = a.get(key)
        if s is None:
            return default
        if s not in choices:
            self.fail(f"{a.shown(key)}: expected one of {', '.join(choices)}", a, what)
        return s

    def integer(self, a: Attrs, key: str, default: int, what: str | None = None) -> int:
        s = a.get(key)
        if s is None:
            return default
        if not re.fullmatch(r"[+-]?\d{1,18}", s.strip(" \t\r\n"), re.ASCII):
            self.fail(f"{a.shown(key)}: not an integer", a, what)
        return int(s)
