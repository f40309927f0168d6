"""SRDF files (MoveIt's Semantic Robot Description Format): named postures and the link pairs
whose collisions are never checked, read against a model: ``load_srdf(model, path)``.

    srdf = fd.io.load_srdf(model, "anymal.srdf")
    q = srdf.states["standing"]              # (nq,): a group_state as a configuration
    srdf.disabled                            # {("LF_FOOT", "LF_SHANK"), ...}: sorted pairs

- ``<group_state name group>`` with ``<joint name value>`` children: the model's neutral
  configuration with each named joint set to ``value`` (its nq numbers in fastdyn's q layout:
  a free-flyer's position then its (x, y, z, w) quaternion, as Pinocchio's); an unbounded
  revolute joint (nq = 2) also takes its angle, stored as (cos, sin). Pinocchio's
  loadReferenceConfigurations reads the same postures (tests/test_srdf.py compares them).
- ``<disable_collisions link1 link2>``: the pair, sorted, in ``disabled`` (the scene's
  collision filter takes link names; links merged into their parent by a fixed joint keep
  their names as frames).
- ``<group name>``: its ``<joint>`` children, in ``groups``.
Joints and links the model does not have are left out with one SRDFWarning naming them (an
SRDF often names a gripper's or a sensor's, as Pinocchio's reader also skips); a value of the
wrong size, not a number, or a quaternion that is not unit raises SRDFError naming the file,
line and joint. Other SRDF elements (virtual joints, end effectors, passive joints, chains)
carry nothing a model lacks and are not read.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._internal import checks as _checks
from ..configuration import neutral
from ..errors import SRDFError, SRDFWarning
from ..kernels.joints import codes
from ..model import Model
from . import _xml

MAX_BYTES = 16 * 2**20
_LOADERS = "load_srdf"
_QUAT_TOL = 1e-6  # |norm - 1| allowed in a file's quaternion (files give 6-9 digits)


@dataclass(frozen=True)
class SRDF:
    """What ``load_srdf`` read (see the module docstring)."""

    name: str
    states: dict[str, np.ndarray] = field(default_factory=dict)
    disabled: frozenset = frozenset()
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)


def load_srdf(model: Model, path_or_xml, *, max_bytes: int | None = MAX_BYTES) -> SRDF:
    """The SRDF file (a path) or document (a string starting with "<") of ``model``'s robot,
    read against the model (module docstring)."""
    _checks.model_arg(model)
    cap = _xml.check_max_bytes(max_bytes)
    data, source = _xml.read(path_or_xml, cap, SRDFError, "SRDF", _LOADERS)
    root = _xml.tree(data, source, SRDFError)
    if root.tag != "robot":
        raise SRDFError(f"the root element is <{root.tag}>, expected <robot>", source, "XML",
                        root.line)
    joints = set(model.joint_names)
    links = set(model.frame_names)
    unknown: list[str] = []
    states, groups, disabled = {}, {}, set()
    for c in root.children:
        if c.tag == "group_state":
            name = _name(c, source)
            states[name] = _state(model, c, source, joints, unknown)
        elif c.tag == "group":
            groups[_name(c, source)] = tuple(j.attrib.get("name", "") for j in c.children
                                             if j.tag == "joint")
        elif c.tag == "disable_collisions":
            pair = (c.attrib.get("link1"), c.attrib.get("link2"))
            if None in pair:
                raise SRDFError("<disable_collisions> needs link1 and link2", source,
                                "<disable_collisions>", c.line)
            missing = [x for x in pair if x not in links]
            if missing:
                unknown.extend(f"link {x!r}" for x in missing)
                continue
            disabled.add(tuple(sorted(pair)))
    if unknown:
        names = sorted(set(unknown))
        warnings.warn(f"{source}: {len(names)} joint(s) or link(s) the model does not have, "
                      f"left out: {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}",
                      SRDFWarning, stacklevel=2)
    return SRDF(root.attrib.get("name", ""), states, frozenset(disabled), groups)


def _name(node: _xml.Node, source: str) -> str:
    name = node.attrib.get("name")
    if not name:
        raise SRDFError(f"<{node.tag}> needs a name", source, f"<{node.tag}>", node.line)
    return name


def _state(model: Model, node: _xml.Node, source: str, joints: set, unknown: list
           ) -> np.ndarray:
    q = neutral(model).copy()
    for j in node.children:
        if j.tag != "joint":
            continue
        name = j.attrib.get("name", "")
        if name not in joints:
            unknown.append(f"joint {name!r}")
            continue
        where = f"<joint name=\"{name}\">"
        try:
            value = np.array([float(x) for x in j.attrib.get("value", "").split()])
        except ValueError:
            value = np.array([np.nan])
        if value.size == 0 or not np.isfinite(value).all():
            raise SRDFError(f"value={j.attrib.get('value')!r} is not a list of finite "
                            f"numbers", source, where, j.line)
        k = model.joint_id(name)
        s = model.q_slice(k)
        nq = s.stop - s.start
        kind = int(model.jnt[k]["type"])
        if value.size == 1 and codes.unit_part(kind) == (0, 2):  # SO(2): cos, sin
            value = np.array([np.cos(value[0]), np.sin(value[0])])  # from an angle
        if value.size != nq:
            raise SRDFError(f"{value.size} value(s) for a joint with nq = {nq} "
                            f"({model.joint_type(k)})", source, where, j.line)
        for o, n in _units(model, k):
            norm = np.linalg.norm(value[o:o + n])
            if abs(norm - 1.0) > _QUAT_TOL:
                raise SRDFError(f"its unit part q[{o}:{o + n}] has norm {norm:.9g}, not 1",
                                source, where, j.line)
        q[s] = value
    return q


def _units(model: Model, k: int):
    """(offset in the joint's q, size) of joint k's unit-norm parts (quaternions, cos/sin)."""
    start = model.q_slice(k).start
    return [(o - start, n) for i, o, n in _checks.unit_parts(model) if i == k]
