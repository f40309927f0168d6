"""A small, format-neutral robot description and the one function that turns it into a Model.

A parser (URDF, MJCF) fills a ``Description`` — links with their inertials, joints with their
origins, axes and limits, extra operational frames — recording the source line of every
element; ``to_model`` then checks the topology (one root, one parent per link, no cycle,
no joint mimicking itself through a chain of mimic tags) and builds the Model through
``ModelBuilder`` the way Pinocchio's URDF parser builds its own:

- a depth-first walk from the root link; children are visited in the order ``child_order``
  says (``"name"``: sorted by joint name, which is what urdfdom's ``std::map`` and therefore
  Pinocchio do; ``"document"``: as listed);
- every moving joint gets a JOINT frame and its child link a BODY frame; a fixed joint becomes
  a FIXED_JOINT frame, its child link a BODY frame on the same joint, and the child's inertia is
  merged into the body of the closest moving joint above it;
- with a fixed base the root link's BODY frame hangs on the universe (its inertia, which moves
  nothing, is dropped; Pinocchio adds it to ``inertias[0]``); with a ``root_joint`` a joint
  named "root_joint" carries the root link.
"""

from __future__ import annotations

import difflib
import warnings
from dataclasses import dataclass, field

import numpy as np

from .. import builder as _builder
from ..builder import ModelBuilder
from ..kernels import layout
from ..kernels.joints import codes
from ..mimic import MimicModel
from ..model import Model
from ..errors import DescriptionError  # noqa: F401

JOINT_KINDS = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar", "spherical")

# Pinocchio's bounds on (cos, sin) and quaternion coordinates.
_UNIT_BOUND = 1.01

# Root joints given by name; types that need an axis cannot be named alone.
_ROOT_ALIASES = {"freeflyer": codes.FREEFLYER, "free-flyer": codes.FREEFLYER,
                 "free_flyer": codes.FREEFLYER, "floating": codes.FREEFLYER}
_NEEDS_AXIS = (codes.REVOLUTE, codes.CONTINUOUS, codes.PRISMATIC, codes.HELICAL, codes.UNIVERSAL)


@dataclass
class Inertial:
    """Mass, centre of mass (3,) and rotational inertia about it (3x3), in the link frame."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    line: int | None = None


@dataclass
class Collision:
    """A collision shape in its link's frame, placed at (R, p): ``kind`` "sphere" (size =
    (radius,)), "box" (full edge lengths), "cylinder" or "capsule" (radius, length along z),
    "ellipsoid" (semi-axes), "plane" (the half-space below its z = 0; no size), or "mesh",
    "hfield", "sdf" (``mesh`` the file or asset name; no size). ``friction``: the sliding
    friction coefficient the file gives (MJCF), or None. ``contact``: an MJCF geom's contact
    parameters as ``fastdyn.sim.collision.geom_table`` takes them (friction (3,), margin,
    solref, solimp, contype, conaffinity) and its ``name``, or None (URDF)."""

    kind: str
    R: np.ndarray
    p: np.ndarray
    size: tuple[float, ...] = ()
    mesh: str | None = None
    line: int | None = None
    friction: float | None = None
    contact: dict | None = None
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)  # a URDF <mesh scale>


@dataclass
class Visual:
    """A visual shape (what a viewer draws) in its link's frame, placed at (R, p): ``kind``
    and ``size`` as ``Collision``'s ("mesh": ``mesh`` the file as the document writes it,
    ``scale`` (3,) its vertices' scale); ``rgba`` the colour in [0, 1], or None."""

    kind: str
    R: np.ndarray
    p: np.ndarray
    size: tuple[float, ...] = ()
    mesh: str | None = None
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    rgba: tuple[float, float, float, float] | None = None
    line: int | None = None


@dataclass
class Link:
    name: str
    inertial: Inertial | None = None  # None: massless
    line: int | None = None
    collisions: list[Collision] = field(default_factory=list)
    visuals: list[Visual] = field(default_factory=list)  # MJCF; URDF: urdf.urdf_visuals


@dataclass
class Joint:
    """A joint of kind ``JOINT_KINDS`` placing ``child`` in ``parent`` at (R, p) (at q = 0).

    ``axis`` is a unit vector for revolute/continuous/prismatic joints. Limits are scalars
    (None: unbounded); floating, planar and spherical joints ignore them, as Pinocchio does.
    ``armature``, ``damping`` and ``friction`` apply to every degree of freedom of the joint
    (planar joints ignore them). ``child_place``: the child link's frame in the joint frame,
    (R, p), or None for the joint frame itself (URDF's rule; an MJCF joint sits at an anchor
    away from its body's origin). ``mimic``: (mimicked joint, multiplier, offset) or None,
    read at line ``mimic_line``.
    """

    name: str
    kind: str
    parent: str
    child: str
    R: np.ndarray = field(default_factory=lambda: np.eye(3))
    p: np.ndarray = field(default_factory=lambda: np.zeros(3))
    axis: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    lower: float | None = None
    upper: float | None = None
    effort: float | None = None
    velocity: float | None = None
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0
    child_place: tuple[np.ndarray, np.ndarray] | None = None
    mimic: tuple[str, float, float] | None = None
    line: int | None = None
    mimic_line: int | None = None


@dataclass
class Frame:
    """An operational frame fixed to ``link`` at (R, p) in the link frame."""

    name: str
    link: str
    R: np.ndarray = field(default_factory=lambda: np.eye(3))
    p: np.ndarray = field(default_factory=lambda: np.zeros(3))
    line: int | None = None


@dataclass
class Description:
    """What a robot file says, before it becomes a Model (see the module docstring)."""

    name: str
    links: list[Link] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    source: str = "<description>"
    child_order: str = "name"  # "name" (URDF, as Pinocchio) or "document"
    gravity: np.ndarray | None = None  # None: the ModelBuilder's default
    equalities: list = field(default_factory=list)  # MJCF connect/weld (_mjcf_equality.py)
    error: type = DescriptionError  # raised as error(message, source, element, line)
    warning: type = UserWarning
    # MJCF <asset>s a viewer needs: "mesh": name -> (file path, scale (3,)), "material":
    # name -> rgba
    assets: dict = field(default_factory=dict)
    # MJCF <contact><exclude body1 body2>: (body1, body2, line)
    excludes: list = field(default_factory=list)

    def fail(self, message: str, element: str | None = None, line: int | None = None):
        """Raise this description's error class (URDFError, MJCFError) at (element, line)."""
        raise self.error(message, self.source, element, line)


def root_joint_type(root_joint) -> int:
    """The joint code for ``root_joint`` (a name: "freeflyer", "planar", "spherical", ...)."""
    if not isinstance(root_joint, str):
        raise TypeError(f"root_joint must be None or a joint type name, got {root_joint!r}")
    key = root_joint.lower()
    if key in _ROOT_ALIASES:
        return _ROOT_ALIASES[key]
    if key in codes.NAMES and key != "universe":
        t = codes.NAMES.index(key)
        if t in _NEEDS_AXIS:
            raise ValueError(f"root_joint {root_joint!r} needs an axis; use an axis-aligned type "
                             f"such as {key}_z" if t != codes.UNIVERSAL else
                             "root_joint 'universal' needs two axes; build it with ModelBuilder")
        return t
    raise ValueError(f"unknown root_joint {root_joint!r}; use None (fixed base), 'freeflyer', "
                     f"'planar' or one of {', '.join(n for n in codes.NAMES[1:])}")


def _aligned(axis: np.ndarray) -> int:
    """0, 1, 2 if ``axis`` is +X, +Y, +Z to Eigen's isApprox (relative 1e-12), else -1."""
    n2 = float(axis @ axis)
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1.0
        d = axis - e
        if float(d @ d) <= 1e-24 * min(n2, 1.0):
            return k
    return -1


def _joint_args(j: Joint) -> tuple[int, dict]:
    """Joint code and ModelBuilder.add_joint keywords, with Pinocchio's URDF limits."""
    inf = np.inf
    u = _UNIT_BOUND
    terms = dict(armature=j.armature, damping=j.damping, friction=j.friction)
    if j.kind == "floating":
        return codes.FREEFLYER, dict(lower=[-inf, -inf, -inf, -u, -u, -u, -u],
                                     upper=[inf, inf, inf, u, u, u, u], **terms)
    if j.kind == "spherical":
        return codes.SPHERICAL, dict(lower=[-u] * 4, upper=[u] * 4, **terms)
    if j.kind == "planar":
        u = _UNIT_BOUND
        return codes.PLANAR, dict(lower=[-inf, -inf, -u, -u], upper=[inf, inf, u, u])
    base = {"revolute": codes.REVOLUTE_X, "continuous": codes.CONTINUOUS_X,
            "prismatic": codes.PRISMATIC_X}[j.kind]
    k = _aligned(j.axis)
    t = base + (k if k >= 0 else 3)
    kw = dict(effort=inf if j.effort is None else j.effort,
              velocity=inf if j.velocity is None else j.velocity, **terms)
    if k < 0:
        kw["axis"] = j.axis / np.linalg.norm(j.axis)
    if j.kind == "continuous":
        kw.update(lower=-_UNIT_BOUND, upper=_UNIT_BOUND)
    else:
        kw.update(lower=-inf if j.lower is None else j.lower,
                  upper=inf if j.upper is None else j.upper)
    return t, kw


def _compose(A: tuple, B: tuple) -> tuple[np.ndarray, np.ndarray]:
    return A[0] @ B[0], A[1] + A[0] @ B[1]


def _check_inertial(d: Description, link: Link, place=None) -> bool:
    """Hard errors for impossible inertials; False if merely non-physical (kept, warned).
    ``place``: (R, p) of the link in the frame of the joint that will carry it."""
    what = f"link {link.name!r} <inertial>"
    i = link.inertial
    line = i.line if i.line is not None else link.line
    if not (np.isfinite(i.mass) and np.all(np.isfinite(i.com)) and np.all(np.isfinite(i.inertia))):
        d.fail("mass, origin and inertia must be finite", what, line)
    if i.mass < 0:
        d.fail(f"negative mass {i.mass:g}", what, line)
    if np.any(np.diag(i.inertia) < -1e-9 * max(1.0, float(np.abs(i.inertia).max()))):
        d.fail(f"negative moment of inertia on the diagonal {np.diag(i.inertia).tolist()}",
               what, line)
    # Finite inputs can still overflow once the body is symmetrized, moved into its joint's
    # frame and turned into Pinocchio's dynamic parameters (m c, I + m [c]x^T [c]x): refuse
    # here, where the link and line are known, rather than with a bare "non-finite" later.
    R, p = place if place is not None else (np.eye(3), np.zeros(3))
    c = p + R @ i.com
    pi = _builder.dynamic_parameters(i.mass, c, R @ i.inertia @ R.T)
    if not (np.all(np.isfinite(i.inertia + i.inertia.T)) and np.all(np.isfinite(pi))):
        d.fail("mass, centre of mass or inertia so large that the body's inertia about its "
               "joint overflows a double", what, line)
    try:
        _builder.check_inertia(i.mass, i.com, i.inertia, what)
    except ValueError:
        return False
    return True


def _topology(d: Description):
    """Check names and the tree; return (root link, children lists keyed by link name)."""
    links: dict[str, Link] = {}
    for lk in d.links:
        if lk.name in links:
            d.fail(f"duplicate link name (first defined at line {links[lk.name].line})",
                   f"link {lk.name!r}", lk.line)
        links[lk.name] = lk
    if not links:
        d.fail("the description has no links")
    joints: dict[str, Joint] = {}
    parent_joint: dict[str, Joint] = {}
    children: dict[str, list[Joint]] = {n: [] for n in links}
    for j in d.joints:
        what = f"joint {j.name!r}"
        if j.name in joints:
            d.fail(f"duplicate joint name (first defined at line {joints[j.name].line})", what,
                   j.line)
        joints[j.name] = j
        if j.name == "universe":
            d.fail("'universe' is the name of joint 0, the world, in fastdyn and Pinocchio; "
                   "rename this joint", what, j.line)
        if j.kind not in JOINT_KINDS:
            d.fail(f"unknown joint type {j.kind!r}; known: {', '.join(JOINT_KINDS)}", what, j.line)
        for role, ln in (("parent", j.parent), ("child", j.child)):
            if ln not in links:
                d.fail(f"{role} link {ln!r} is not defined", what, j.line)
        if j.parent == j.child:
            d.fail(f"link {j.child!r} is its own parent (a cycle)", what, j.line)
        if j.child in parent_joint:
            o = parent_joint[j.child]
            d.fail(f"link {j.child!r} has two parent joints: {o.name!r} (line {o.line}) and "
                   f"{j.name!r}; a kinematic tree allows one (closed loops are not supported)",
                   what, j.line)
        parent_joint[j.child] = j
        children[j.parent].append(j)
    roots = [lk for lk in d.links if lk.name not in parent_joint]
    if len(roots) > 1:
        shown = ", ".join(f"{lk.name!r} (line {lk.line})" for lk in roots[:5])
        d.fail(f"{len(roots)} root links (links no joint has as child): {shown}"
               f"{' ...' if len(roots) > 5 else ''}; a robot has exactly one",
               f"link {roots[1].name!r}", roots[1].line)
    if not roots:
        j = d.joints[0]
        d.fail("no root link: every link is the child of a joint, so the joints form a cycle",
               f"joint {j.name!r}", j.line)
    if d.child_order == "name":
        for v in children.values():
            v.sort(key=lambda j: j.name.encode("utf-8"))  # std::string order
    # With one root and one parent per link, links not reached from the root lie on a cycle.
    seen = {roots[0].name}
    stack = [roots[0].name]
    while stack:
        for j in children[stack.pop()]:
            seen.add(j.child)
            stack.append(j.child)
    if len(seen) < len(links):
        start = next(n for n in links if n not in seen)
        path, n = [], start
        while n not in path:
            path.append(n)
            n = parent_joint[n].parent
        cyc = path[path.index(n):]
        j = parent_joint[cyc[0]]
        d.fail("the joints form a cycle through links " + " <- ".join(repr(x) for x in
               cyc + [cyc[0]]), f"joint {j.name!r}", j.line)
    return roots[0], children, links, joints


def _mimic_relations(d: Description, joints: dict[str, Joint],
                     strict: bool = False) -> tuple[list, list[str]]:
    """The mimic relations a Model keeps, [(joint, mimicked, multiplier, offset)], and the
    tags it drops, described for a warning.

    A tag on a fixed joint is dropped with a warning (it has no coordinate to follow;
    Pinocchio drops it silently, and Talos's grippers have such tags). With ``strict``
    (``mimic=True``: the relations will be enforced) every other tag must be one the model
    can follow, or the file is refused: a mimicked joint that exists and moves, both joints
    1-dof (revolute, prismatic, or both continuous). Without it, a tag naming a fixed or
    undefined joint is dropped with a warning as well (alex_psyonic_hands names joints that
    do not exist; the relations are only recorded). A cycle (a joint that mimics itself,
    directly or through other mimic joints) is refused either way: no joint in it has a value
    to follow, so any use of the relations would loop or contradict itself.
    """
    moving = {n for n, j in joints.items() if j.kind != "fixed"}
    relations, ignored = [], []
    for j in d.joints:
        if j.mimic is None:
            continue
        target, mul, off = j.mimic
        line = j.mimic_line if j.mimic_line is not None else j.line
        what = f"joint {j.name!r} <mimic>"
        if j.kind == "fixed":
            ignored.append(f"{j.name!r} (line {j.line}) is fixed")
        elif target not in moving:
            if target in joints:
                why = f"mimics {target!r}, a fixed joint"
                if strict:
                    d.fail(f"{why}, which has no coordinate to follow", what, line)
                ignored.append(f"{j.name!r} (line {j.line}) {why}")
            else:
                near = difflib.get_close_matches(target, list(joints), n=2)
                hint = f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""
                if strict:
                    d.fail(f"mimics {target!r}, which is not a joint of this file{hint}",
                           what, line)
                ignored.append(f"{j.name!r} (line {j.line}) mimics {target!r}, which is not "
                               f"defined{hint}")
        else:
            if strict:
                kinds = (j.kind, joints[target].kind)
                if any(k not in ("revolute", "prismatic", "continuous") for k in kinds) or (
                        (kinds[0] == "continuous") != (kinds[1] == "continuous")):
                    d.fail(f"a {kinds[0]} joint mimicking a {kinds[1]} joint {target!r}: mimic "
                           f"joints join 1-dof revolute or prismatic joints, or two continuous "
                           f"ones (as Pinocchio)", what, line)
            relations.append((j, target, mul, off))
    follows = {j.name: target for j, target, _, _ in relations}
    done: set[str] = set()
    for j, _, _, _ in relations:  # each joint follows at most one: walk until a repeat
        path, n = {}, j.name  # joint -> position on the walk (dicts keep order)
        while n in follows and n not in done and n not in path:
            path[n] = len(path)
            n = follows[n]
        if n in path:
            cyc = list(path)[path[n]:]
            first = min((joints[c] for c in cyc), key=lambda x: (x.mimic_line or x.line or 0))
            k = cyc.index(first.name)
            cyc = cyc[k:] + cyc[:k]
            line = first.mimic_line if first.mimic_line is not None else first.line
            if len(cyc) == 1:
                d.fail("the joint mimics itself, so it has no value of its own to follow; "
                       "remove its <mimic>", f"joint {first.name!r} <mimic>", line)
            shown = cyc + [cyc[0]] if len(cyc) <= 8 else cyc[:6] + ["...", cyc[-1], cyc[0]]
            chain = " -> ".join(c if c == "..." else repr(c) for c in shown)
            d.fail(f"mimic tags form a cycle {chain} (each joint mimics the next), so none of "
                   f"these {len(cyc)} joints has a value of its own to follow; remove the "
                   f"<mimic> of one of them", f"joint {first.name!r} <mimic>", line)
        done.update(path)
    return relations, ignored


def to_model(d: Description, root_joint: str | None = None, mimic: bool = False
             ) -> Model | MimicModel:
    """Build the Model ``d`` describes, Pinocchio's way (module docstring), or raise d.error.
    ``mimic``: a MimicModel whose mimic joints follow their leaders (fastdyn/mimic.py), the
    relations checked strictly (``_mimic_relations``); the Model itself when no moving joint
    mimics another."""
    # Absurd but finite numbers (a 1e308 inertia, 1e200 offsets) overflow while placements
    # compose and inertias merge: the checks below and the Model's own report them as errors
    # naming the element, so NumPy's RuntimeWarnings would only be noise.
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        model = _to_model(d, root_joint, mimic)
    if not (mimic and model.mimic):  # no relation to enforce: the Model, with everything
        return model
    try:
        return MimicModel(model)
    except ValueError as e:  # (the strict checks above should have said it, with a line)
        d.fail(str(e))


def _to_model(d: Description, root_joint: str | None, mimic: bool) -> Model:
    root, children, links, joints = _topology(d)
    relations, ignored = _mimic_relations(d, joints, strict=mimic)
    b = ModelBuilder(d.name) if d.gravity is None else ModelBuilder(d.name, d.gravity)
    bad_inertia: list[Link] = []

    def add_inertia(jid: int, link: Link, place) -> None:
        i = link.inertial
        if i is None or jid == 0:
            return
        ok = _check_inertial(d, link, place)
        if not ok:
            bad_inertia.append(link)
        try:
            b.add_body(jid, i.mass, i.com, i.inertia, place, physical=False)
        except ValueError as e:
            d.fail(str(e), f"link {link.name!r}", link.line)

    ident = (np.eye(3), np.zeros(3))
    if root.inertial is not None:
        _check_inertial(d, root)  # errors only; the universe carries nothing
    if root_joint is None:
        jroot = 0
        body = b.add_frame(root.name, 0, None, layout.BODY_FRAME, parent_frame=0)
    else:
        t = root_joint_type(root_joint)
        if "root_joint" in joints:
            j = joints["root_joint"]
            d.fail("a joint is already named 'root_joint', the name given to the root joint",
                   "joint 'root_joint'", j.line)
        jroot = b.add_joint("root_joint", t, 0, None, frame=False)
        jf = b.add_frame("root_joint", jroot, None, layout.JOINT_FRAME, parent_frame=0)
        if root.inertial is not None:
            bad_inertia.extend([] if _check_inertial(d, root) else [root])
            b.add_body(jroot, root.inertial.mass, root.inertial.com, root.inertial.inertia,
                       physical=False)
        body = b.add_frame(root.name, jroot, None, layout.BODY_FRAME, parent_frame=jf)
    where = {root.name: (jroot, ident, body)}  # link -> (joint, placement in it, BODY frame)
    stack = [(j, where[root.name]) for j in reversed(children[root.name])]
    while stack:
        j, (jpar, place, fpar) = stack.pop()
        child = links[j.child]
        what = f"joint {j.name!r}"
        origin = _compose(place, (j.R, j.p))
        inside = ident if j.child_place is None else j.child_place  # the child in the joint
        try:
            if j.kind == "fixed":
                ff = b.add_frame(j.name, jpar, origin, layout.FIXED_JOINT_FRAME, parent_frame=fpar)
                at = _compose(origin, inside)
                add_inertia(jpar, child, at)
                fb = b.add_frame(child.name, jpar, at, layout.BODY_FRAME, parent_frame=ff)
                here = (jpar, at, fb)
            else:
                t, kw = _joint_args(j)
                jid = b.add_joint(j.name, t, jpar, origin, frame=False, **kw)
                jf = b.add_frame(j.name, jid, None, layout.JOINT_FRAME, parent_frame=fpar)
                add_inertia(jid, child, inside)
                fb = b.add_frame(child.name, jid, inside, layout.BODY_FRAME, parent_frame=jf)
                here = (jid, inside, fb)
        except ValueError as e:
            if isinstance(e, d.error):
                raise
            d.fail(str(e).replace(f"{what}: ", ""), what, j.line)
        where[child.name] = here
        stack.extend((c, here) for c in reversed(children[child.name]))
    for f in d.frames:
        if f.link not in where:
            d.fail(f"frame attached to undefined link {f.link!r}", f"frame {f.name!r}", f.line)
        jid, place, fb = where[f.link]
        try:
            b.add_frame(f.name, jid, _compose(place, (f.R, f.p)), layout.OP_FRAME, parent_frame=fb)
        except ValueError as e:
            d.fail(str(e), f"frame {f.name!r}", f.line)
    for j, target, mul, off in relations:
        b.set_mimic(j.name, target, mul, off)
    if ignored:
        warnings.warn(f"{d.source}: {len(ignored)} mimic tag(s) ignored: {'; '.join(ignored[:6])}"
                      f"{' ...' if len(ignored) > 6 else ''}", d.warning, stacklevel=4)
    if bad_inertia:
        shown = ", ".join(f"{lk.name!r} (line {lk.line})" for lk in bad_inertia[:6])
        warnings.warn(f"{d.source}: {len(bad_inertia)} link inertia(s) are not physically "
                      f"consistent (a negative principal moment or I1 + I2 < I3); kept as "
                      f"Pinocchio does: {shown}{' ...' if len(bad_inertia) > 6 else ''}",
                      d.warning, stacklevel=4)
    try:
        return b.build()
    except ValueError as e:  # the Model's own checks: from a parsed file only overflow fails them
        why = ("(an overflow: the masses, inertias or offsets merged into this joint are too "
               "large for a double)")
        msg = str(e)
        for j in d.joints:
            prefix = f"joint {j.name!r}: "
            if msg.startswith(prefix):
                d.fail(f"{msg[len(prefix):]} {why}", f"joint {j.name!r}", j.line)
        d.fail(f"{msg} {why}")
