"""Safe XML reading shared by the URDF and MJCF parsers.

``read`` takes a path, a document string or bytes and reads at most ``max_bytes + 1`` bytes,
so a device or a pipe given as a path cannot exhaust memory; ``tree`` parses with expat and
refuses any DOCTYPE, ENTITY, NOTATION or external-entity declaration before it is processed,
so entity expansion bombs and external entities never expand. Both raise the caller's error
class (a ``DescriptionError``) naming the source, the line and "XML".
"""

from __future__ import annotations

import operator
import os
import re
from pyexpat import XML_PARAM_ENTITY_PARSING_NEVER, ErrorString, ExpatError, ParserCreate


class Node:
    """One XML element: tag, attributes, children, the line it starts on and the file (or
    "<string>") it was read from."""

    __slots__ = ("tag", "attrib", "children", "line", "source")

    def __init__(self, tag: str, attrib: dict, line: int, source: str):
        self.tag, self.attrib, self.children, self.line = tag, attrib, [], line
        self.source = source

    def first(self, tag: str) -> "Node | None":
        return next((c for c in self.children if c.tag == tag), None)


def depth(node: Node) -> tuple[int, Node]:
    """How deep elements nest below ``node`` (1: no children), and the deepest one; without
    recursion, so any depth expat accepts can be measured."""
    best, deepest = 1, node
    stack = [(node, 1)]
    while stack:
        n, d = stack.pop()
        if d > best:
            best, deepest = d, n
        stack.extend((c, d + 1) for c in n.children)
    return best, deepest


_DECL = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def check_max_bytes(max_bytes) -> int | None:
    """``max_bytes`` as an int >= 0, or None (no cap); anything else is a ValueError."""
    if max_bytes is None:
        return None
    given = max_bytes
    try:
        max_bytes = -1 if isinstance(given, bool) else operator.index(given)
    except TypeError:
        max_bytes = -1
    if max_bytes < 0:
        raise ValueError(f"max_bytes must be None or an integer >= 0, got {given!r}")
    return max_bytes


def read_path(path: str, cap: int | None) -> bytes | None:
    """The file's bytes, or None if it holds more than ``cap`` (after reading cap + 1)."""
    with open(path, "rb") as fh:
        if cap is None:
            return fh.read()
        # read(n) stops after n bytes whatever the file is; st_size is 0 for devices and
        # pipes, so it cannot be trusted to decide beforehand
        data = fh.read(cap + 1)
        return None if len(data) > cap else data


def read(path_or_xml, max_bytes, error: type, kind: str, loaders: str) -> tuple[bytes, str]:
    """(bytes, source) of a path or a document (a str starting with "<", or bytes); ``kind``
    ("URDF", "MJCF") and ``loaders`` (the functions that take max_bytes) word the errors."""
    max_bytes = check_max_bytes(max_bytes)
    if isinstance(path_or_xml, (bytes, bytearray)):
        data, source = bytes(path_or_xml), "<string>"
    elif isinstance(path_or_xml, str) and path_or_xml.lstrip("\ufeff \t\r\n").startswith("<"):
        if max_bytes is not None and len(path_or_xml) > max_bytes:  # UTF-8: >= 1 byte a char
            too_big("<string>", max_bytes, "the document", error, kind, loaders)
        data, source = path_or_xml.encode("utf-8"), "<string>"
    else:
        try:
            source = os.fsdecode(os.fspath(path_or_xml))
        except TypeError:
            art = "an" if kind[0] in "AEFHILMNORSX" else "a"  # an MJCF, a URDF (as spoken)
            raise TypeError(f"path_or_xml must be {art} {kind} file's path or {art} {kind} "
                            f"document (str or bytes), got {type(path_or_xml).__name__}") from None
        data = read_path(source, max_bytes)
        if data is None:
            size = os.stat(source).st_size
            too_big(source, max_bytes, f"the file ({size} bytes)" if size > max_bytes
                    else "the file (a device or a pipe?)", error, kind, loaders)
    if max_bytes is not None and len(data) > max_bytes:
        too_big(source, max_bytes, "the document", error, kind, loaders)
    return data, source


def root_tag(path_or_xml) -> str | None:
    """The root element's tag of a file (a path) or document (a str starting with "<", or
    bytes): the first tag after the XML declaration, comments and DOCTYPE, read from the
    first MiB; None where there is none. Tells a URDF ("robot") from an MJCF ("mujoco")."""
    if isinstance(path_or_xml, (bytes, bytearray)):
        head = bytes(path_or_xml[:1 << 20])
    elif isinstance(path_or_xml, str) and path_or_xml.lstrip("\ufeff \t\r\n").startswith("<"):
        head = path_or_xml[:1 << 20].encode("utf-8")
    else:
        with open(os.fspath(path_or_xml), "rb") as f:
            head = f.read(1 << 20)
    root = re.search(rb"<([A-Za-z_][\w.:-]*)", re.sub(rb"<!--.*?-->|<[?!][^>]*>", b"", head,
                                                     flags=re.S))
    return None if root is None else root.group(1).decode("utf-8", "replace")


def too_big(source: str, max_bytes: int, what: str, error: type, kind: str, loaders: str):
    mib = f" ({max_bytes / 2**20:g} MiB)" if max_bytes >= 2**20 else ""
    raise error(f"{what} is larger than max_bytes={max_bytes}{mib}, more than a {kind} needs, "
                f"and was not read further; if it really is a {kind}, pass a larger "
                f"max_bytes=... (or max_bytes=None for no cap) to {loaders}", source)


def tree(data: bytes, source: str, error: type) -> Node:
    """Parse with expat into Nodes carrying line numbers; no DTD, entity or external fetch."""
    m = _DECL.search(data)
    if m:  # cheap first line of defence, before expat sees anything
        line = data.count(b"\n", 0, m.start()) + 1
        raise error(f"<!{m.group(1).decode().upper()} ...> declarations are not allowed "
                    f"(entity expansion and external entities are unsafe); remove it",
                    source, "XML", line)
    p = ParserCreate()
    p.SetParamEntityParsing(XML_PARAM_ENTITY_PARSING_NEVER)

    def reject(what):
        def handler(*_):
            raise error(f"{what} declarations are not allowed (entity expansion and "
                        f"external entities are unsafe)", source, "XML", p.CurrentLineNumber)
        return handler

    p.StartDoctypeDeclHandler = reject("DOCTYPE")
    p.EntityDeclHandler = reject("ENTITY")
    p.UnparsedEntityDeclHandler = reject("ENTITY")
    p.NotationDeclHandler = reject("NOTATION")
    p.ExternalEntityRefHandler = reject("external entity")
    stack: list[Node] = []
    top: list[Node] = []

    def start(tag, attrib):
        node = Node(tag, attrib, p.CurrentLineNumber, source)
        (stack[-1].children if stack else top).append(node)
        stack.append(node)

    def end(tag):
        stack.pop()

    p.StartElementHandler = start
    p.EndElementHandler = end
    try:
        p.Parse(data, True)
    except ExpatError as e:
        raise error(f"malformed XML: {ErrorString(e.code)} (column {e.offset + 1})", source,
                    "XML", e.lineno) from None
    return top[0]
