"""URDF mutation fuzzing against Pinocchio: the mutators and the judge behind test_fuzz_urdf.py.

A mutant is a real URDF (bundled or from example-robot-data) with one to three seeded edits:
structural ones on a light element tree (delete, duplicate, move, rename, retype, renumber),
and byte-level ones on the serialized text (truncate, overwrite a byte, inject a DOCTYPE,
re-encode). ``mutant(source, seed)`` rebuilds the same document from the same pair on any
machine, so a failure is reproduced with::

    python -c "import sys; sys.path.insert(0, 'tests'); import fuzz_urdf as f; \\
               print(f.judge('erd/talos', 1234)); print(f.mutant('erd/talos', 1234)[1])"

``judge`` loads the mutant with fastdyn and with Pinocchio and sorts the result into one of
the allowed outcomes (``Verdict.ok``) or a failure whose text says what went wrong. The
allowed disagreements with Pinocchio are the two tables ``STRICTER`` and ``LENIENT``: each
entry says why fastdyn departs from Pinocchio there, so that a new kind of disagreement is a
failure to look at, not something a broad ``except`` swallows.
"""

from __future__ import annotations

import os
import random
import re
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pyexpat import ParserCreate

import numpy as np

import fastdyn
import fastdyn.models as fm
from fastdyn.kernels.joints import codes
from fastdyn.io.urdf import URDFError, URDFWarning, load_urdf

# --- sources ------------------------------------------------------------------------------------

# label -> (name, source for fastdyn.models.path, root joint for both parsers)
SOURCES = {
    "bundled/double_pendulum": ("double_pendulum", "bundled", None),
    "bundled/ur5": ("ur5", "bundled", None),
    "bundled/quadruped": ("quadruped", "bundled", "freeflyer"),
    "bundled/humanoid": ("humanoid", "bundled", "freeflyer"),
    "erd/ur5": ("ur5", "example-robot-data", None),
    "erd/panda": ("panda", "example-robot-data", None),
    "erd/solo12": ("solo12", "example-robot-data", "freeflyer"),
    "erd/talos": ("talos", "example-robot-data", "freeflyer"),
}

_texts: dict[str, str] = {}
_trees: dict[str, list] = {}


def available_sources() -> list[str]:
    """The labels whose file is installed (example-robot-data may be missing)."""
    out = []
    for label, (name, source, _) in SOURCES.items():
        try:
            fm.path(name, source=source)
        except (FileNotFoundError, KeyError):
            continue
        out.append(label)
    return out


def source_text(label: str) -> str:
    if label not in _texts:
        name, source, _ = SOURCES[label]
        _texts[label] = fm.path(name, source=source).read_text(encoding="utf-8")
    return _texts[label]


# --- a light element tree -----------------------------------------------------------------------
# An element is [tag, attrib (dict, document order), children (elements or text strings)].
# Comments and the XML declaration are dropped; namespace prefixes ("xacro:...") are kept as
# written because expat runs without namespace processing.

def parse_tree(text: str) -> list:
    stack: list[list] = []
    top: list[list] = []
    p = ParserCreate()

    def start(tag, attrib):
        node = [tag, dict(attrib), []]
        (stack[-1][2] if stack else top).append(node)
        stack.append(node)

    def end(_):
        stack.pop()

    def chars(s):
        if stack:
            kids = stack[-1][2]
            if kids and isinstance(kids[-1], str):
                kids[-1] += s
            else:
                kids.append(s)

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    p.Parse(text.encode("utf-8"), True)
    return top[0]


def clone(node: list) -> list:
    return [node[0], dict(node[1]), [c if isinstance(c, str) else clone(c) for c in node[2]]]


def _esc(s: str, attr: bool) -> str:
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # XML turns a literal tab or newline in an attribute into a space (expat does, TinyXML2
    # does not): write them as references so both parsers read the value the tree holds
    return (s.replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")
            .replace("\r", "&#13;")) if attr else s


def serialize(node: list) -> str:
    out: list[str] = []

    def emit(n):
        attrs = "".join(f' {k}="{_esc(v, True)}"' for k, v in n[1].items())
        if not n[2]:
            out.append(f"<{n[0]}{attrs}/>")
            return
        out.append(f"<{n[0]}{attrs}>")
        for c in n[2]:
            if isinstance(c, str):
                out.append(_esc(c, False))
            else:
                emit(c)
        out.append(f"</{n[0]}>")

    emit(node)
    return '<?xml version="1.0"?>\n' + "".join(out) + "\n"


def _elements(root: list, with_root: bool = False) -> list[tuple[list, list | None]]:
    """(element, parent) pairs in document order."""
    out = [(root, None)] if with_root else []
    stack = [(c, root) for c in reversed(root[2]) if not isinstance(c, str)]
    while stack:
        n, parent = stack.pop()
        out.append((n, parent))
        stack.extend((c, n) for c in reversed(n[2]) if not isinstance(c, str))
    return out


def _children(root: list, tag: str) -> list[list]:
    return [c for c in root[2] if not isinstance(c, str) and c[0] == tag]


# --- mutations ----------------------------------------------------------------------------------
# Each takes (rng, root) and edits the tree in place, returning a short description, or None
# when it does not apply to this document.

NUMERIC = {"value", "xyz", "rpy", "lower", "upper", "effort", "velocity", "ixx", "ixy", "ixz",
           "iyy", "iyz", "izz", "multiplier", "offset", "damping", "friction"}
BAD_NUMBERS = ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-1", "0", "-0", "1e308",
               "-1e308", "1e-320", "1e999", "1,5", "0,5", "", " ", "1.5.2", "+.5", "5.", "1e",
               "0x10", "1_000", "1e+", "--1", "\u0661", "\uff11", "\u22121", "1\u00a0", "2e-5",
               "123456789012345678901234567890", "1e-300", "3.0000000000000001"]
NAMES = ["", " ", "base_link", "universe", "root_joint", "j\u00e9", "\u673a\u5668\u4eba",
         "a b", "x" * 300, "\u200b", "<tag>", "&amp;", "\"q\"", "name\twith\ttab"]
JOINT_TYPES = ["revolute", "continuous", "prismatic", "fixed", "floating", "planar", "spherical",
               "ball", "", "Revolute", " revolute", "unknown", "screw"]


def _pick(rng, seq):
    return seq[rng.randrange(len(seq))] if seq else None


def m_delete_element(rng, root):
    n, parent = _pick(rng, _elements(root)) or (None, None)
    if n is None:
        return None
    parent[2].remove(n)
    return f"delete <{n[0]} {_label(n)}>"


def m_delete_attribute(rng, root):
    n, _ = _pick(rng, [e for e in _elements(root, True) if e[0][1]]) or (None, None)
    if n is None:
        return None
    k = _pick(rng, list(n[1]))
    del n[1][k]
    return f"delete attribute {k} of <{n[0]} {_label(n)}>"


def m_duplicate_element(rng, root):
    n, parent = _pick(rng, _elements(root)) or (None, None)
    if n is None:
        return None
    parent[2].insert(parent[2].index(n) + 1, clone(n))
    return f"duplicate <{n[0]} {_label(n)}>"


def m_swap_names(rng, root):
    tags = [t for t in ("link", "joint") if len(_children(root, t)) >= 2]
    pool = (_children(root, "link") + _children(root, "joint") if rng.random() < 0.2 or not tags
            else _children(root, _pick(rng, tags)))
    if len(pool) < 2:
        return None
    a, b = rng.sample(pool, 2)
    if "name" not in a[1] or "name" not in b[1]:
        return None
    a[1]["name"], b[1]["name"] = b[1]["name"], a[1]["name"]
    return f"swap names of <{a[0]} {b[1]['name']!r}> and <{b[0]} {a[1]['name']!r}>"


def m_rename(rng, root):
    pool = [e for e, _ in _elements(root, True) if "name" in e[1]]
    n = _pick(rng, pool)
    if n is None:
        return None
    old = n[1]["name"]
    same = [e[1]["name"] for e in pool if e[0] == n[0] and e is not n]
    new = _pick(rng, same) if same and rng.random() < 0.4 else _pick(rng, NAMES)
    n[1]["name"] = new
    return f"rename <{n[0]} {old!r}> to {new!r}"


def m_set_number(rng, root):
    pool = [(e, k) for e, _ in _elements(root) for k in e[1] if k in NUMERIC]
    if not pool:
        return None
    n, k = _pick(rng, pool)
    old = n[1][k]
    bad = _pick(rng, BAD_NUMBERS)
    parts = old.split()
    if len(parts) == 3 and rng.random() < 0.2:  # the same numbers, spaced differently
        new = _pick(rng, ["  ", " \t", "\t", "\n", " , "]).join(parts)
        new = _pick(rng, ["", " ", "\t"]) + new + _pick(rng, ["", " ", "\n"])
    elif len(parts) == 3 and rng.random() < 0.7:
        i = rng.randrange(3)
        parts[i] = bad
        new = " ".join(parts)
    else:
        new = bad
    n[1][k] = new
    return f"<{n[0]} {k}=\"{old}\"> in {_where(root, n)} -> {new!r}"


def m_joint_type(rng, root):
    j = _pick(rng, _children(root, "joint"))
    if j is None:
        return None
    old, new = j[1].get("type"), _pick(rng, JOINT_TYPES)
    j[1]["type"] = new
    return f"joint {j[1].get('name')!r} type {old!r} -> {new!r}"


def m_link_reference(rng, root):
    joints = _children(root, "joint")
    j = _pick(rng, joints)
    if j is None:
        return None
    ends = [c for c in j[2] if not isinstance(c, str) and c[0] in ("parent", "child")]
    e = _pick(rng, ends)
    if e is None:
        return None
    links = [lk[1].get("name", "") for lk in _children(root, "link")]
    other = [c[1]["link"] for c in ends if c is not e and "link" in c[1]]
    new = _pick(rng, links + other + ["ghost", "", "world"])
    old = e[1].get("link")
    e[1]["link"] = new
    return f"joint {j[1].get('name')!r} <{e[0]} link={old!r}> -> {new!r}"


def m_misnest(rng, root):
    els = _elements(root)
    if len(els) < 2:
        return None
    n, parent = _pick(rng, els)
    inside = {id(x) for x, _ in _elements(n, True)}
    targets = [e for e, _ in _elements(root, True) if id(e) not in inside and e is not parent]
    t = _pick(rng, targets)
    if t is None:
        return None
    parent[2].remove(n)
    t[2].insert(rng.randrange(len(t[2]) + 1), n)
    return f"move <{n[0]} {_label(n)}> into <{t[0]} {_label(t)}>"


def m_rename_tag(rng, root):
    n, _ = _pick(rng, _elements(root, True))
    old = n[0]
    new = _pick(rng, [old.upper(), old[:-1], old + "s", "xacro:" + old, "urdf:" + old,
                      _pick(rng, ["link", "joint", "robot", "inertial", "origin", "mass",
                                  "inertia", "axis", "limit", "mimic", "parent", "child"])])
    n[0] = new
    return f"tag <{old} {_label(n)}> -> <{new}>"


def m_axis(rng, root):
    joints = [j for j in _children(root, "joint") if j[1].get("type") in
              ("revolute", "continuous", "prismatic")]
    j = _pick(rng, joints)
    if j is None:
        return None
    new = _pick(rng, ["0 0 0", "0 0 -1", "1 1 0", "1e-300 0 0", "0 1e-13 1", "0 0 1e-200",
                      "-1 0 0", "0.6 0.8 0", "1 0", "1 0 0 0", "3 0 0", "1e308 1e308 0"])
    ax = next((c for c in j[2] if not isinstance(c, str) and c[0] == "axis"), None)
    if ax is None:
        ax = ["axis", {}, []]
        j[2].append(ax)
    ax[1]["xyz"] = new
    return f"joint {j[1].get('name')!r} <axis xyz={new!r}>"


def m_limits(rng, root):
    lims = [(j, c) for j in _children(root, "joint") for c in j[2]
            if not isinstance(c, str) and c[0] == "limit"]
    if not lims:
        return None
    j, lim = _pick(rng, lims)
    what = rng.randrange(3)
    if what == 0 and "lower" in lim[1] and "upper" in lim[1]:
        lim[1]["lower"], lim[1]["upper"] = lim[1]["upper"], lim[1]["lower"]
        return f"joint {j[1].get('name')!r}: swap <limit> lower and upper"
    if what == 1:
        lim[1]["lower"] = lim[1]["upper"] = _pick(rng, ["0", "1", "-1e308", "1e308"])
        return f"joint {j[1].get('name')!r}: <limit> lower = upper = {lim[1]['lower']}"
    k = _pick(rng, ["effort", "velocity"])
    lim[1][k] = _pick(rng, ["-1", "0", "1e308"])
    return f"joint {j[1].get('name')!r}: <limit {k}={lim[1][k]!r}>"


def m_mimic(rng, root):
    joints = _children(root, "joint")
    if not joints:
        return None
    names = [j[1].get("name", "") for j in joints]
    j = _pick(rng, joints)
    if rng.random() < 0.3 and len(joints) >= 2:  # a 2-cycle, the contradiction in the issue
        k = _pick(rng, [x for x in joints if x is not j])
        j[2] = [c for c in j[2] if isinstance(c, str) or c[0] != "mimic"]
        k[2] = [c for c in k[2] if isinstance(c, str) or c[0] != "mimic"]
        j[2].append(["mimic", {"joint": k[1].get("name", "")}, []])
        k[2].append(["mimic", {"joint": j[1].get("name", "")}, []])
        return f"mimic cycle {j[1].get('name')!r} <-> {k[1].get('name')!r}"
    target = _pick(rng, names + ["ghost"])
    attrs = {"joint": target}
    if rng.random() < 0.5:
        attrs["multiplier"] = _pick(rng, ["-1", "2", "nan", "1,5", ""])
    j[2] = [c for c in j[2] if isinstance(c, str) or c[0] != "mimic"]
    j[2].append(["mimic", attrs, []])
    return f"joint {j[1].get('name')!r} <mimic {attrs}>"


def m_non_ascii(rng, root):
    pool = [(e, k) for e, _ in _elements(root, True) for k in e[1]]
    if not pool:
        return None
    n, k = _pick(rng, pool)
    s = n[1][k]
    ins = _pick(rng, ["\u00e9", "\u673a", "\U0001f916", "\u200b", "\u00a0", "\ufeff", "\u2212",
                      "\uff10"])
    i = rng.randrange(len(s) + 1)
    n[1][k] = s[:i] + ins + s[i:]
    return f"<{n[0]} {k}={s[:40]!r}> insert {ins!r} at {i}"


def m_empty_robot(rng, root):
    kids = [c for c in root[2] if not isinstance(c, str)]
    keep = rng.randrange(min(3, len(kids)) + 1) if kids else 0
    root[2] = kids[:keep]
    return f"keep only the first {keep} children of <robot>"


TREE_MUTATIONS = [m_delete_element, m_delete_attribute, m_duplicate_element, m_swap_names,
                  m_rename, m_set_number, m_set_number, m_joint_type, m_link_reference,
                  m_misnest, m_rename_tag, m_axis, m_limits, m_mimic, m_non_ascii, m_empty_robot]


def b_truncate(rng, data: bytes):
    k = rng.randrange(len(data) + 1)
    return data[:k], f"truncate at byte {k} of {len(data)}"


def b_overwrite(rng, data: bytes):
    k = rng.randrange(len(data))
    c = _pick(rng, [b"<", b">", b"&", b'"', b"'", b"/", b"=", b" ", b"\x00", b"\xff", b"\xc3",
                    b"]]>", b"<!--", b"&#0;", b"&#xD800;", b"&lt;"])
    return data[:k] + c + data[k + 1:], f"overwrite byte {k} with {c!r}"


def b_doctype(rng, data: bytes):
    decl = _pick(rng, [b"<!DOCTYPE robot>", b'<!DOCTYPE robot SYSTEM "file:///etc/passwd">',
                       b'<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>',
                       b"<!doctype robot>"])
    i = data.find(b"?>")
    i = 0 if i < 0 else i + 2
    return data[:i] + b"\n" + decl + data[i:], f"inject {decl.decode()}"


def b_encoding(rng, data: bytes):
    kind = rng.randrange(4)
    body = data.split(b"?>", 1)[-1]
    if kind == 0:
        return b"\xef\xbb\xbf" + data, "UTF-8 byte-order mark"
    if kind == 1:
        return (('<?xml version="1.0" encoding="UTF-16"?>'.encode("utf-16")
                 + body.decode("utf-8").encode("utf-16")[2:]), "re-encoded as UTF-16 with BOM")
    if kind == 2:
        return (b'<?xml version="1.0" encoding="ISO-8859-1"?>' + body.decode("utf-8").encode(
            "latin-1", "replace"), "declared and encoded as ISO-8859-1")
    return b'<?xml version="1.0" encoding="ascii"?>' + body, "declared ascii"


def b_text_inject(rng, data: bytes):
    k = data.find(b">", rng.randrange(len(data))) + 1
    junk = _pick(rng, [b"<![CDATA[x]]>", b"<?pi data?>", b"<!-- c -->", b"text", b"&amp;",
                       b"<robot name='nested'/>", b"\xe6\x9c\xba\xe5\x99\xa8"])
    if k <= 0:
        return None
    return data[:k] + junk + data[k:], f"insert {junk!r} at byte {k}"


def b_duplicate_attribute(rng, data: bytes):
    spots = [m.start() for m in re.finditer(rb' (name|link|type|value|xyz)="', data)]
    if not spots:
        return None
    k = _pick(rng, spots)
    end = data.index(b'"', data.index(b'"', k) + 1) + 1
    attr = data[k:end]
    return data[:end] + attr + data[end:], f"repeat attribute {attr.decode('utf-8', 'replace')!r}"


BYTE_MUTATIONS = [b_truncate, b_truncate, b_overwrite, b_overwrite, b_doctype, b_encoding,
                  b_text_inject, b_duplicate_attribute]


def _label(n):
    return repr(n[1]["name"]) if "name" in n[1] else ""


def _where(root, target):
    """The named <link>/<joint> holding ``target``, for descriptions."""
    for top in _children(root, "link") + _children(root, "joint"):
        if any(e is target for e, _ in _elements(top, True)):
            return f"<{top[0]} {_label(top)}>"
    return "<robot>"


def mutant(label: str, seed: int) -> tuple[bytes, str]:
    """The document ``label`` after the edits ``seed`` picks, and a description of them."""
    rng = random.Random(f"{label}/{seed}")
    if label not in _trees:
        _trees[label] = parse_tree(source_text(label))
    root = clone(_trees[label])
    done = []
    n = 1 + (rng.random() < 0.25) + (rng.random() < 0.1)
    use_bytes = rng.random() < 0.25
    for _ in range(n if not use_bytes else n - 1):
        for _attempt in range(5):
            d = _pick(rng, TREE_MUTATIONS)(rng, root)
            if d:
                done.append(d)
                break
    data = serialize(root).encode("utf-8")
    if use_bytes:
        for _attempt in range(5):
            r = _pick(rng, BYTE_MUTATIONS)(rng, data)
            if r:
                data, d = r
                done.append(d)
                break
    return data, "; ".join(done) or "no edit"


# --- the judge ----------------------------------------------------------------------------------

# fastdyn refuses, Pinocchio loads: reason -> (pattern the message matches, why). The first
# matching reason names the refusal; a refusal matching none fails the fuzz test, so keep each
# pattern narrow.
STRICTER = {
    "overflow": (r"length overflows a double|overflows a double once rotated|so large that the "
                 r"body's inertia .* overflows|an overflow:",
                 "numbers so large (1e308) that an axis' length, a rotated inertia, a merged "
                 "body or a body's m c c^T (any of mass, com, inertia above 1e150) overflows: "
                 "Pinocchio keeps the inf/NaN (or a zero axis)"),
    "NaN or inf": (r"(?i)=\"[^\"]*\b(nan|inf)[^\"]*\">.*not a finite decimal|overflows a double",
                   "NaN, inf and numbers beyond a double (1e999) poison every quantity "
                   "computed from them; urdfdom lets some through (e.g. inside <inertial>)"),
    "decimal comma": (r"decimal comma",
                      "'1,5' comes from a decimal-comma locale; urdfdom refuses it where it "
                      "checks, but drops a whole <inertial> holding one"),
    "number syntax": (r"not a finite decimal number|whitespace after the number",
                      "fastdyn wants each number to be one ASCII C-locale decimal; urdfdom "
                      "refuses most other text but, inside <inertial>, drops the whole inertial "
                      "instead (see 'broken inertial')"),
    "vector size": (r"needs 3 numbers separated by spaces",
                    "xyz/rpy with 2 or 4 numbers is a typo; urdfdom drops a broken <inertial> "
                    "origin instead of refusing"),
    "broken inertial": (r"<inertial> has no|<(mass|inertia)> has no \w+=",
                        "urdfdom logs an error for a <inertial> it cannot read and drops it: "
                        "Pinocchio loads that link massless, a silently different robot"),
    "DOCTYPE": (r"declarations are not allowed",
                "DOCTYPE/ENTITY declarations open entity expansion and external entities; no "
                "URDF needs them"),
    "malformed XML": (r"malformed XML",
                      "expat enforces XML well-formedness (valid UTF-8, legal character "
                      "references); Pinocchio's TinyXML2 lets some of it through"),
    "missing or blank name": (r"no name attribute|name=.* is blank",
                              "a link or joint without a name cannot be referred to; urdfdom "
                              "logs an error and keeps it with an empty name"),
    "reserved name": (r"'universe' is the name of joint 0|already named 'root_joint'",
                      "Pinocchio names joint 0 'universe' and a root joint 'root_joint': a "
                      "second joint of that name makes joint lookups by name ambiguous"),
    "kinematic cycle": (r"the joints form a cycle|is its own parent",
                        "urdfdom picks the one link without a parent as the root and never "
                        "reaches links on a loop, so Pinocchio silently drops part of the robot"),
    "mimic cycle": (r"mimic tags form a cycle|mimics itself",
                    "a joint that mimics itself, directly or through others, has no value to "
                    "follow"),
    "impossible inertia": (r"negative mass|negative moment of inertia",
                           "a negative mass or diagonal moment is no body; Pinocchio keeps it "
                           "and its dynamics are meaningless"),
    "limits": (r"lower .* is above upper|effort and velocity must be >= 0|damping and friction "
               r"must be >= 0",
               "an upper limit below the lower one or a negative damping contradicts itself and "
               "Pinocchio keeps both; it refuses negative effort, velocity and friction as "
               "fastdyn does, but only on the joints it builds, not on one a loop cut off"),
    "zero axis": (r"is zero: a \w+ joint needs a direction|<axis> has no xyz",
                  "a zero axis (or an <axis/> without xyz, which urdfdom reads as zero) gives "
                  "Pinocchio a joint whose motion is NaN or nothing"),
}

# fastdyn loads, Pinocchio refuses: reason -> (predicate on the mutation's description and
# Pinocchio's refusal, why).
LENIENT = {
    "encodings": (lambda desc, refusal: "UTF-16" in desc or "ISO-8859-1" in desc,
                  "expat decodes UTF-16 and Latin-1 documents by their declaration; urdfdom's "
                  "TinyXML2 reads UTF-8 only (it refuses them, or keeps Latin-1 bytes in "
                  "names that are then not text)"),
    "ignored elements": (lambda desc, refusal: re.search(
        r"Could not parse (safety|calibration) element|material '.*' is not unique",
        refusal) is not None,
        "fastdyn ignores <safety_controller>, <calibration> and <material> (like <visual> or "
        "<gazebo>); urdfdom refuses malformed numbers in the first two and a material name "
        "defined twice at the top level"),
    "processing instruction": (lambda desc, refusal: "<?pi" in desc and
                               "XML_ERROR_PARSING_DECLARATION" in refusal,
                               "XML allows processing instructions anywhere and they mean "
                               "nothing to a URDF; TinyXML2 mistakes them for a misplaced XML "
                               "declaration"),
}


# Both load, and the models differ for a reason outside the parser: reason -> why. These are
# not parser defects; each stays listed until the kernels (or Pinocchio) change.
KNOWN = {
    "Pinocchio not finite": "a massless link 1e308 m away gives Pinocchio 0 * inf = NaN inertias; "
                            "fastdyn adds no body for a massless link, so its model stays finite",
    "kernel overflow": "with numbers near the largest double (|p| or inertias above 1e150) the "
                       "kernels project a force on an axis-aligned joint with a full dot "
                       "product, where 0 * inf = NaN, while Pinocchio's RX/RY/RZ joints read "
                       "the one component: fastdyn.rnea raises NumericalOverflowError (or "
                       "returns NaN) where Pinocchio still has a finite torque",
}
HUGE = 1e150  # magnitudes from which "kernel overflow" may apply


def _pin():
    import pinocchio

    return pinocchio


from oracle import PIN_JOINT_TYPES as _PIN_TYPES  # noqa: E402  (Pinocchio name -> code)

# A clear refusal: the parser's own error, or a ValueError/KeyError with a message. Anything
# else escaping load_urdf (AttributeError, TypeError, IndexError, RecursionError, MemoryError,
# UnicodeError...) is a parser defect.
_BAD = (AttributeError, TypeError, IndexError, RecursionError, MemoryError, UnicodeError,
        AssertionError, ZeroDivisionError, OverflowError, FloatingPointError)


@dataclass
class Verdict:
    # "agree", "both refuse", "stricter: <reason>", "lenient: <reason>", "known: <reason>"
    # or "FAIL"
    outcome: str
    detail: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.outcome != "FAIL"


class _Stderr:
    """Pinocchio's parser (urdfdom) explains a refusal on C++ stderr only: route fd 2 to a
    file for the call, to keep that explanation for the report and the test log clean."""

    def __init__(self):
        self.file = tempfile.TemporaryFile()

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        self.file.seek(0)
        self.file.truncate()
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace").strip()


_stderr = None


def pin_load(data: bytes, root_joint):
    """Pinocchio's model of ``data`` or the text of its refusal."""
    global _stderr
    pin = _pin()
    if _stderr is None:
        _stderr = _Stderr()
    args = (pin.JointModelFreeFlyer(),) if root_joint == "freeflyer" else ()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    with _stderr as err:
        try:
            if text is not None:
                return pin.buildModelFromXML(text, *args), ""
            with tempfile.NamedTemporaryFile(suffix=".urdf") as f:
                f.write(data)
                f.flush()
                return pin.buildModelFromUrdf(f.name, *args), ""
        except Exception as e:  # noqa: BLE001 - every refusal is an answer here
            refusal = f"{type(e).__name__}: {e}"
    return None, f"{refusal} [{err.text}]"


def fd_load(data: bytes, root_joint):
    """(model or None, exception or None, foreign warnings)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            m, e = load_urdf(data, root_joint=root_joint), None
        except Exception as exc:  # noqa: BLE001 - sorted by judge
            m, e = None, exc
    foreign = [f"{w.category.__name__}: {w.message}" for w in rec
               if not issubclass(w.category, URDFWarning)]
    return m, e, foreign


def _clear(e: BaseException) -> bool:
    return (isinstance(e, (URDFError, ValueError, KeyError)) and not isinstance(e, _BAD)
            and bool(str(e).strip()))


def _stricter_reason(msg: str) -> str | None:
    for reason, (pattern, _) in STRICTER.items():
        if re.search(pattern, msg):
            return reason
    return None


def compare(m, pm, seed: int) -> str:
    """'' if fastdyn's model agrees with Pinocchio's (structure, then RNEA at a random state),
    "known: <reason>" for a difference listed in ``KNOWN``, else what differs."""
    pin = _pin()
    mine, theirs = (m.nq, m.nv, m.njoints), (pm.nq, pm.nv, pm.njoints)
    if mine != theirs:
        return f"(nq, nv, njoints) {mine} != Pinocchio's {theirs}"
    if list(m.joint_names) != list(pm.names):
        return f"joint names {list(m.joint_names)} != Pinocchio's {list(pm.names)}"
    for i in range(1, pm.njoints):
        want = _PIN_TYPES.get(pm.joints[i].shortname())
        if int(m.jnt[i]["type"]) != want:
            return (f"joint {pm.names[i]!r}: type {m.joint_type(i)} but Pinocchio has "
                    f"{pm.joints[i].shortname()}")
    if not all(np.isfinite(pm.inertias[i].toDynamicParameters()).all() and
               np.isfinite(pm.jointPlacements[i].translation).all() for i in range(pm.njoints)):
        return "known: Pinocchio not finite"
    if list(m.frame_names) != [f.name for f in pm.frames]:
        return f"frame names {list(m.frame_names)} != Pinocchio's {[f.name for f in pm.frames]}"
    big = np.finfo(np.float64).max  # Pinocchio's "unbounded"
    for mine, theirs, what in ((m.lower_position_limit, pm.lowerPositionLimit, "lower limits"),
                               (m.upper_position_limit, pm.upperPositionLimit, "upper limits"),
                               (m.velocity_limit, pm.velocityLimit, "velocity limits"),
                               (m.effort_limit, pm.effortLimit, "effort limits"),
                               (m.damping, pm.damping, "damping"),
                               (m.friction, pm.friction, "friction")):
        theirs = np.where(theirs >= big, np.inf, np.where(theirs <= -big, -np.inf, theirs))
        if not np.array_equal(np.asarray(mine), theirs):
            return f"{what} {np.asarray(mine).tolist()} != Pinocchio's {theirs.tolist()}"
    for i in range(1, pm.njoints):
        pi, ref = m.params[i]["pi"], pm.inertias[i].toDynamicParameters()
        if not np.allclose(pi, ref, rtol=1e-9, atol=1e-12 * max(1.0, np.abs(ref).max())):
            return f"joint {pm.names[i]!r}: inertia {pi.tolist()} != Pinocchio's {ref.tolist()}"
    pin.seed(seed)
    q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
    rng = np.random.default_rng(seed)
    v, a = rng.normal(size=pm.nv), rng.normal(size=pm.nv)
    with np.errstate(all="ignore"):
        ref = pin.rnea(pm, pm.createData(), q, v, a)
        try:
            tau = np.array(fastdyn.rnea(m, m.create_data(), q, v, a))
        except (OverflowError, ValueError) as e:  # fastdyn refuses to return inf or NaN
            tau, refused = np.full(m.nv, np.nan), f"{type(e).__name__}: {e}"
        else:
            refused = ""
        huge = max(np.abs(m.params["p"]).max(), np.abs(m.params["pi"]).max()) > HUGE
    fin = np.isfinite(ref)
    if not np.array_equal(fin, np.isfinite(tau)) and not (refused and not fin.all()):
        if huge:
            return "known: kernel overflow"
        return (f"RNEA: fastdyn gives {refused or tau}, Pinocchio {ref} at q={q.tolist()}, "
                f"v={v.tolist()}, a={a.tolist()}")
    if refused:
        return ""
    if fin.any():
        # 1e-8 of the torques, plus what rounding alone can do when the terms RNEA sums are
        # far larger than their sum (an inertia of 1e29, a 1e6 m offset)
        with np.errstate(over="ignore"):
            lever = 1.0 + max(np.abs(m.params["p"]).max(), np.abs(m.com).max())
            rates = 1.0 + np.abs(v).max(initial=0.0) + np.abs(a).max(initial=0.0) + 9.81
            terms = np.abs(m.params["pi"]).max() * (lever * rates) ** 2 * m.njoints
            tol = float(1e-8 * max(1.0, np.abs(ref[fin]).max()) + 1e-15 * terms)
        err = float(np.abs(tau[fin] - ref[fin]).max())
        if not err <= tol:
            return f"RNEA differs by {err:.3g} (tolerance {tol:.3g}) at q={q.tolist()}"
    return ""


def judge(label: str, seed: int) -> Verdict:
    """Load mutant (label, seed) with both parsers and sort the outcome (module docstring)."""
    data, desc = mutant(label, seed)
    root = SOURCES[label][2]
    t = time.perf_counter()
    m, err, foreign = fd_load(data, root)
    dt = time.perf_counter() - t
    where = f"mutant ({label!r}, seed={seed}): {desc}"

    def fail(why):
        return Verdict("FAIL", f"{where}\n    {why}", dt)

    if foreign:
        return fail(f"fastdyn warned with a foreign category: {foreign}")
    if err is not None and not _clear(err):
        return fail(f"fastdyn raised an unclear {type(err).__name__}: {err!r}")
    pm, refusal = pin_load(data, root)
    if m is not None and pm is not None:
        try:
            diff = compare(m, pm, seed)
        except UnicodeDecodeError as e:
            # TinyXML2 keeps a Latin-1 document's bytes, so Pinocchio's names are not text:
            # as good as a refusal, judged like one below
            pm, refusal = None, f"Pinocchio's names are not UTF-8 ({e})"
        except Exception as e:  # noqa: BLE001
            return fail(f"comparing the models raised {type(e).__name__}: {e}")
        else:
            if diff.startswith("known: "):
                return Verdict(diff, "", dt)
            return fail(f"both load but disagree: {diff}") if diff else Verdict("agree", "", dt)
    if m is None and pm is None:
        return Verdict("both refuse", str(err), dt)
    if m is None:
        reason = _stricter_reason(str(err))
        if reason is None:
            return fail(f"fastdyn refuses what Pinocchio loads, for no listed reason: {err}")
        return Verdict(f"stricter: {reason}", str(err), dt)
    for reason, (applies, _) in LENIENT.items():
        if applies(desc, refusal):
            return Verdict(f"lenient: {reason}", refusal, dt)
    return fail(f"fastdyn loads what Pinocchio refuses ({refusal[:600]})")


def run(labels, seeds, budget: float) -> tuple[list[Verdict], dict[str, int], int]:
    """Judge (label, seed) for every seed, round-robin over labels, until ``budget`` seconds
    have passed. Returns (failures, outcome counts, mutants judged)."""
    t0 = time.perf_counter()
    fails, counts, n = [], {}, 0
    for seed in seeds:
        label = labels[seed % len(labels)]
        v = judge(label, seed)
        n += 1
        counts[v.outcome] = counts.get(v.outcome, 0) + 1
        if not v.ok:
            fails.append(v)
        if time.perf_counter() - t0 > budget:
            break
    return fails, counts, n
