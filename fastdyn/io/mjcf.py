"""MJCF loader: ``load_mjcf(path_or_xml, root_joint=None, mimic=False)`` -> Model, the robot
MuJoCo compiles.

Reads MuJoCo's XML format (the XML Reference chapter of MuJoCo's documentation, version 3 and
4) into the ``Description`` the URDF parser fills, then builds the Model the same way:

- bodies in document order (MuJoCo's body order, so q is MuJoCo's qpos order); the worldbody
  is the root link "world"; a body without a joint is welded to its parent (a fixed joint
  named "<body>_fixed", its inertia merged as URDF fixed joints are); ``<frame>`` elements
  compose their pose (and ``childclass``) into what they hold;
- joints: hinge -> revolute (any axis), slide -> prismatic, ball -> spherical, free (and
  ``<freejoint/>``) -> freeflyer. A joint sits at its ``pos`` in the body (the body frame is
  a BODY frame placed back from it). Several joints in one body compose in order at the
  body, as MuJoCo's do: each but the last carries a massless link "<body>_<joint>" (as
  Pinocchio does with a composite joint, here as plain joints, so every joint keeps its
  name). A hinge or slide joint's ``ref`` is the q at which the body is where the file draws
  it (the joint frame is turned back by it), so q is MuJoCo's qpos, as in Pinocchio 4
  (fastdyn's neutral q = 0 is then not MuJoCo's qpos0 = ref);
- q and v, against MuJoCo's qpos and qvel: equal, but quaternions are (x, y, z, w) here and
  (w, x, y, z) there, and a free joint's v is
  [R^T v_world; w_body] here where MuJoCo's qvel is [v_world; w_body] (R the body's
  orientation), so accelerations convert with the extra term -w x v and forces with R^T
  (``tests/test_mjcf.py`` does both ways against MuJoCo);
- orientations ``quat``, ``axisangle``, ``euler`` (with ``eulerseq``), ``xyaxes``, ``zaxis``
  with ``<compiler angle>`` (degrees unless told: MJCF's default), fastdyn/io/_mjcf_math.py;
- ``<default>`` classes, ``childclass`` and ``<include>``: fastdyn/io/_mjcf_doc.py;
- mass: ``<inertial>`` (pos, orientation, mass, diaginertia or fullinertia), or the geoms
  (sphere, capsule, cylinder, box, ellipsoid, ``fromto``; density 1000 unless told; only
  those in ``inertiagrouprange``) as ``<compiler inertiafromgeom>`` says; mesh geoms by their
  asset's ``inertia`` (convex, exact, legacy: MuJoCo's default; fastdyn/io/_mjcf_mesh.py,
  which reads the files with trimesh and SciPy, the ``view`` extra); hfield and sdf geoms,
  primitives fitted to a mesh, and meshes where trimesh is missing are left out with an
  ``MJCFWarning`` naming them; ``boundmass``, ``boundinertia``, ``balanceinertia`` and
  ``settotalmass`` as MuJoCo applies them; a moving body (with its welded descendants) must
  have mass and inertia, as MuJoCo requires;
- armature, damping, frictionloss (-> the joint's dry friction), range with ``limited`` and
  ``<compiler autolimits>``, ``actuatorfrcrange`` (-> effort limit); ``<option gravity>``
  and ``<flag gravity="disable">``;
- sites: operational frames on their body; geoms that collide (contype or conaffinity not 0)
  as ``Collision`` shapes (``mjcf_collisions``, ``Scene.add_mjcf_collisions``; as geom_table
  dicts on the model's joints: ``fastdyn.io.collision_geoms``).

Mimic joints: with ``mimic=True``, ``<equality><joint>`` with a linear ``polycoef`` makes
joint1 follow joint2 (``load_mjcf``; fastdyn/mimic.py).

Not read (an ``MJCFWarning`` says so where it changes the dynamics): joint springs
(``stiffness``), ball-joint cone limits, ``gravcomp``, ``<equality>`` (but joint equalities
with ``mimic=True``) and ``<tendon>`` constraints; actuators, sensors, contacts, keyframes,
assets and visuals have no place in a Model. ``<attach>``, ``<replicate>``, ``<composite>``,
``<flexcomp>``, free joints aligned to the inertia (``align``, ``alignfree``),
``shellinertia`` and ``<mesh inertia="shell">`` are refused with an error rather than read
wrongly.

Safety: as ``load_urdf`` (fastdyn/io/_xml.py): no DOCTYPE or entity, ``max_bytes``
(64 MiB) for the document and its includes together; errors raise ``MJCFError`` naming the
file (the included one where it is), the line and the element. Numbers anywhere in a
double's range give the model or an ``MJCFError`` naming the attributes: what is computed
from them (geom volumes, masses and moments, placements through frames, inertias about
joints) is checked finite, and masses, com offsets and inertias within 1e150, where it is
computed (fastdyn/io/_mjcf_build.py).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..mimic import MimicModel
from ..model import Model
from . import _mjcf_equality as _equality
from . import _mjcf_math as mm
from . import _xml
from ._mjcf_build import describe
from ._mjcf_doc import ORIENTATIONS, Attrs, Defaults, Numbers, expand_includes
from .description import (Collision, Description, DescriptionError, Visual, root_joint_type,
                          to_model)
from ..errors import MJCFError, MJCFWarning  # noqa: F401

__all__ = ["load_mjcf", "parse_mjcf", "mjcf_collisions", "mjcf_visuals", "MJCFError",
           "MJCFWarning"]

MAX_BYTES = 64 * 2**20  # as load_urdf: the document and everything it includes
_LOADERS = "load_mjcf, parse_mjcf or mjcf_collisions"


def load_mjcf(path_or_xml, root_joint: str | None = None, mimic: bool = False, *,
              max_bytes: int | None = MAX_BYTES) -> Model | MimicModel:
    """The Model of an MJCF file (a path) or document (a string starting with "<", or bytes).

    ``root_joint``: None (the file's own joints, free ones included), or a joint type as in
    ``load_urdf`` ("freeflyer", "planar", ...) placed between the world and the worldbody's
    only body, which must have no joint of its own: the joint, named "root_joint", replaces
    that body's placement in the world (as ``pinocchio.buildModelFromMJCF(path, root)``).
    ``mimic``: False (default): ``<equality>`` constraints are not modelled (an
    ``MJCFWarning`` says so). True: each ``<equality><joint joint1="j" joint2="i"
    polycoef="c0 c1 0 0 0">`` makes joint j a mimic joint of i, as ``load_urdf(...,
    mimic=True)`` does with ``<mimic>``: MuJoCo's y - y0 = c0 + c1 (x - x0) (y0, x0 the
    joints' ``ref``) is q_j = c1 q_i + (y0 + c0 - c1 x0), enforced exactly where MuJoCo
    enforces it softly; the result is a ``fastdyn.mimic.MimicModel``. A nonlinear polycoef, a
    missing joint1 or joint2, or joints other than hinge and slide raise ``MJCFError``;
    inactive ones (``active="false"``) and the other equality kinds are left out, with the
    warning.
    ``max_bytes``: the document and its included files together (64 MiB by default; None for
    no cap). Raises ``MJCFError`` for a file it cannot load.
    """
    if root_joint is not None:
        root_joint_type(root_joint)  # a bad name fails as in load_urdf, before the file is read
    if not isinstance(mimic, (bool, np.bool_)):
        raise TypeError(f"mimic must be True or False, got {mimic!r}")
    d = parse_mjcf(path_or_xml, max_bytes=max_bytes, mimic=bool(mimic))
    if root_joint is not None:
        _float_base(d)
    return to_model(d, root_joint, bool(mimic))


def parse_mjcf(path_or_xml, *, max_bytes: int | None = MAX_BYTES, mimic: bool = False,
               constraints: bool = False) -> Description:
    """Read an MJCF document and its includes into a ``Description`` (what ``load_mjcf``
    builds the Model from); ``mimic``: read ``<equality><joint>`` as mimic relations;
    ``constraints``: read the equalities into ``Description.equalities`` (mjcf_constraints)."""
    cap = _xml.check_max_bytes(max_bytes)
    data, source = _xml.read(path_or_xml, cap, MJCFError, "MJCF", _LOADERS)
    root = _xml.tree(data, source, MJCFError)
    if root.tag != "mujoco":
        hint = "; this is a URDF: load it with fastdyn.load_urdf" if root.tag == "robot" else ""
        raise MJCFError(f"the root element is <{root.tag}>, expected <mujoco>{hint}", source,
                        "XML", root.line)
    is_file = source != "<string>"
    main_dir = os.path.dirname(os.path.abspath(source)) if is_file else os.getcwd()
    expand_includes(root, main_dir, source if is_file else None,
                    [None if cap is None else cap - len(data)], MJCFError)
    return _Reader(source, mimic, constraints).model(root)


def mjcf_collisions(path_or_xml, *, max_bytes: int | None = MAX_BYTES
                    ) -> dict[str, list[Collision]]:
    """The colliding geoms (contype or conaffinity not 0) of each body, by body name, in the
    body's frame ("world" for the worldbody's own); bodies without any are left out."""
    d = parse_mjcf(path_or_xml, max_bytes=max_bytes)
    return {lk.name: lk.collisions for lk in d.links if lk.collisions}


def mjcf_visuals(path_or_xml, *, max_bytes: int | None = MAX_BYTES
                 ) -> dict[str, list[Visual]]:
    """The geoms MuJoCo draws by default (groups 0, 1, 2) of each body, by body name, in the
    body's frame, with their colour (rgba, else their material's); bodies without any and
    the worldbody are left out. A mesh geom's ``mesh`` is its file's path (the <asset>
    <mesh file> under <compiler meshdir>, relative to the main file's folder) and ``scale``
    the asset's; the loader's warnings about the model are not repeated here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MJCFWarning)
        d = parse_mjcf(path_or_xml, max_bytes=max_bytes)
    here = os.path.dirname(os.path.abspath(d.source)) if d.source != "<string>" else os.getcwd()
    meshes = d.assets.get("mesh", {})
    out = {}
    for lk in d.links:
        if lk.name == "world" or not lk.visuals:
            continue
        for v in lk.visuals:
            if v.kind == "mesh" and v.mesh in meshes:
                f, v.scale = meshes[v.mesh]
                v.mesh = os.path.join(here, f)
        out[lk.name] = lk.visuals
    return out


def _float_base(d: Description) -> None:
    """Make the worldbody's only body the root link, for to_model's root joint."""
    tops = [j for j in d.joints if j.parent == "world"]
    if len(tops) != 1 or tops[0].kind != "fixed":
        shown = ", ".join(f"{j.child!r} ({'no joint' if j.kind == 'fixed' else j.kind})"
                          for j in tops[:4]) or "none"
        d.fail(f"root_joint needs the worldbody to hold exactly one body, without a joint of "
               f"its own; it holds {len(tops)}: {shown}. Load with root_joint=None (a free "
               f"joint in the file makes the base float)", "<worldbody>")
    sites = [f.name for f in d.frames if f.link == "world"]
    if sites:
        d.fail(f"root_joint: the worldbody's sites {sites[:4]} would have nothing to stay on "
               f"once its body floats; load with root_joint=None", "<worldbody>")
    d.links = [lk for lk in d.links if lk.name != "world"]
    d.joints.remove(tops[0])


# --- the document's parts, before they become a Description ------------------------------------

@dataclass
class _Joint:
    name: str | None
    kind: str  # hinge, slide, ball, free
    node: _xml.Node
    pos: np.ndarray = field(default_factory=lambda: np.zeros(3))
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    limits: tuple[float, float] | None = None
    ref: float = 0.0
    armature: float = 0.0
    damping: float = 0.0
    frictionloss: float = 0.0
    effort: float | None = None
    attrs: Attrs | None = None  # its attributes, over its class's (None: a <freejoint>)


@dataclass
class _Geom:
    kind: str
    node: _xml.Node
    R: np.ndarray
    p: np.ndarray
    size: tuple
    mass: float | None
    density: float
    group: int
    collides: bool
    friction: float
    mesh: str | None = None  # a mesh geom, or a primitive fitted to this mesh
    shell: bool = False
    attrs: Attrs | None = None  # its attributes, over its class's


@dataclass
class _Body:
    name: str | None
    node: _xml.Node
    parent: "_Body | None"
    R: np.ndarray
    p: np.ndarray
    joints: list[_Joint] = field(default_factory=list)
    inertial: tuple | None = None  # (mass, com, inertia about it, node), body frame
    geoms: list[_Geom] = field(default_factory=list)
    sites: list[tuple] = field(default_factory=list)  # (name, R, p, node)
    children: list["_Body"] = field(default_factory=list)
    mocap: bool = False


# Top-level sections: read, or without a place in a Model (ignored).
_SECTIONS = ("compiler", "option", "default", "worldbody")
_IGNORED = ("size", "statistic", "asset", "contact", "actuator", "sensor", "keyframe", "visual",
            "custom", "extension", "deformable", "equality", "tendon")
_UNSUPPORTED = ("attach", "replicate", "composite", "flexcomp")
_GEOM_TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh",
               "sdf")


class _Reader(Numbers):
    def __init__(self, source: str, mimic: bool = False, constraints: bool = False):
        super().__init__(MJCFError)
        self.source = source
        self.mimic = mimic
        self.constraints = constraints  # read <equality> for mjcf_constraints
        self.equalities: list[tuple] = []  # (node, joint1, joint2, c0, c1) read as mimic
        self.defaults = Defaults(MJCFError)
        self.angle = np.pi / 180.0  # <compiler angle="degree">, MJCF's default
        self.eulerseq = "xyz"
        self.autolimits = True
        self.inertiafromgeom = "auto"
        self.groups = (0, 5)
        self.boundmass = self.boundinertia = 0.0
        self.balance = False
        self.totalmass = -1.0
        self.alignfree = False
        self.compiler_attrs: dict[str, Attrs] = {}  # attribute -> the <compiler> that set it
        self.gravity = np.array([0.0, 0.0, -9.81])
        self.bodies: list[_Body] = []
        self.loops: list[_xml.Node] = []  # <equality>'s connect and weld elements
        self.notes: dict[str, list[str]] = {}  # warning kind -> what
        self.meshdir = ""  # <compiler meshdir> (else assetdir), for a viewer's mesh files
        self.meshes: dict[str, tuple] = {}  # <asset> <mesh>: name -> (file, scale)
        self.materials: dict[str, tuple] = {}  # <asset> <material>: name -> rgba
        self.mesh_nodes: dict[str, Attrs] = {}  # <asset> <mesh>: name -> its attributes
        self.excludes: list[tuple] = []  # <contact> <exclude>: (body1, body2, node)
        self.mesh_cache: dict = {}  # mesh asset name -> TriangleMesh, read for masses

    def note(self, kind: str, what: str) -> None:
        self.notes.setdefault(kind, []).append(what)

    def where(self, node: _xml.Node) -> str:
        return (f"line {node.line}" if node.source == self.source else
                f"{os.path.basename(node.source)}:{node.line}")

    # --- the document ------------------------------------------------------------------------
    def model(self, root: _xml.Node) -> Description:
        for c in root.children:
            if c.tag not in _SECTIONS + _IGNORED:
                self.fail(f"unknown element <{c.tag}> in <mujoco>", Attrs(c))
        for c in root.children:  # compiler and defaults first: they shape what follows
            if c.tag == "compiler":
                self.compiler(Attrs(c))
        for c in root.children:  # (MuJoCo too reads every <default> before the assets)
            if c.tag == "default":
                self.defaults.add_top(c)
        for c in root.children:
            if c.tag == "option":
                self.option(c)
            elif c.tag == "asset":
                self.assets(c)
            elif c.tag == "equality" and self.mimic:
                self.equality(c)
            elif c.tag in ("equality", "tendon") and c.children:
                self.note("constraints", f"<{c.tag}> ({self.where(c)}, {len(c.children)} "
                          f"element{'s' if len(c.children) > 1 else ''})")
            elif c.tag == "contact":
                self.contact(c)
            if c.tag == "equality":  # (joint equalities are mimic relations with mimic=True)
                self.loops.extend(x for x in c.children if x.tag in _equality.KINDS
                                  and not (self.mimic and x.tag == "joint"))
        world = _Body("world", root, None, np.eye(3), np.zeros(3))
        for c in root.children:
            if c.tag == "worldbody":
                self.elements(world, c, np.eye(3), np.zeros(3), "main", in_frame=False)
        return self.describe(root, world)

    def assets(self, node: _xml.Node) -> None:
        """<mesh> files (relative to meshdir) and <material> colours, for a viewer only."""
        for c in node.children:
            a = self.defaults.attrs(c, "main") if c.tag == "mesh" else Attrs(c)
            if c.tag == "mesh":
                name = a.get("name") or (os.path.splitext(os.path.basename(a.get("file")))[0]
                                         if a.get("file") else None)
                if name is not None:
                    self.mesh_nodes[name] = a
            if c.tag == "mesh" and a.get("file") is not None:
                name = a.get("name") or os.path.splitext(os.path.basename(a.get("file")))[0]
                scale = self.floats(a, "scale", 3, default=(1.0, 1.0, 1.0))
                self.meshes[name] = (os.path.join(self.meshdir, a.get("file")),
                                     tuple(float(x) for x in scale))
            elif c.tag == "material" and a.get("name") is not None and "rgba" in a:
                self.materials[a.get("name")] = tuple(float(x) for x in self.floats(a, "rgba", 4))

    def contact(self, node: _xml.Node) -> None:
        """<contact>'s <exclude body1 body2> pairs, for collision_geoms (explicit <pair>s
        are not read: fastdyn's collision filter has no per-pair parameters)."""
        for c in node.children:
            if c.tag == "exclude":
                a = Attrs(c)
                b1, b2 = a.get("body1"), a.get("body2")
                if not b1 or not b2:
                    self.fail("<exclude> needs body1=\"...\" and body2=\"...\"", a)
                self.excludes.append((b1, b2, c))

    def equality(self, node: _xml.Node) -> None:
        """``<equality>`` with mimic=True: its active ``<joint>`` elements, checked; the
        rest noted as not modelled."""
        left = []
        for c in node.children:
            a = Attrs(c)
            if c.tag != "joint":
                left.append(c)
                continue
            if self.keyword(a, "active", ("true", "false"), "true") == "false":
                left.append(c)  # MuJoCo starts with it off
                continue
            j1, j2 = a.get("joint1"), a.get("joint2")
            if not j1:
                self.fail("<joint> equality needs joint1=\"...\", the joint that follows", a)
            if not j2:
                self.fail(f"no joint2: joint {j1!r} is held at a constant, which fastdyn's "
                          f"mimic joints (one joint following another) do not model", a)
            k = self.floats(a, "polycoef", (1, 5), default=(0.0, 1.0, 0.0, 0.0, 0.0))
            k = np.concatenate([k, (0.0, 1.0, 0.0, 0.0, 0.0)[len(k):]])  # MuJoCo's defaults
            if np.any(k[2:] != 0.0):
                self.fail(f"{a.shown('polycoef')}: a nonlinear polynomial (coefficients of "
                          f"x^2 and above not 0); fastdyn's mimic joints are linear, q1 = c0 + "
                          f"c1 q2 (load with mimic=False to leave the constraint out)", a)
            self.equalities.append((c, j1, j2, float(k[0]), float(k[1])))
        if left:
            self.note("constraints", f"<equality> ({self.where(node)}, {len(left)} element"
                      f"{'s' if len(left) > 1 else ''} other than active <joint>)")

    def mimics(self, d: Description) -> None:
        """The equalities as the joints' mimic relations, offsets through the joints' refs."""
        refs = {j.name: j for b in self.bodies for j in b.joints if j.name}
        joints = {j.name: j for j in d.joints}
        for node, j1, j2, c0, c1 in self.equalities:
            a = Attrs(node)
            for name in (j1, j2):
                if name not in refs:
                    self.fail(f"no joint named {name!r} in this model", a)
            J = joints[j1]
            if J.mimic is not None:
                self.fail(f"joint {j1!r} already follows {J.mimic[0]!r} (an earlier "
                          f"<equality><joint>); a joint follows one other", a)
            # MuJoCo: y - y0 = c0 + c1 (x - x0), y0 and x0 the refs (qpos0), q = qpos here
            y0, x0 = refs[j1].ref, refs[j2].ref
            J.mimic = (j2, c1, y0 + c0 - c1 * x0)
            J.mimic_line = node.line if node.source == self.source else None

    def closures(self, d: Description) -> None:
        """The equalities' connect, weld and joint elements, each over its default class
        (fastdyn/io/_mjcf_equality.py), for mjcf_constraints."""
        if not (self.constraints and self.loops):
            return
        with np.errstate(over="ignore", invalid="ignore"):  # (checked where they are used)
            poses = _equality.drawn_poses(self.bodies)
        sites = {s[0] for b in self.bodies for s in b.sites if s[0]}
        refs = {j.name: j for b in self.bodies for j in b.joints if j.name}
        for c in self.loops:
            cls = c.attrib.get("class")
            cls = self.defaults.check(cls, c, "class") if cls is not None else "main"
            a = Attrs(c, self.defaults.classes[cls].get("equality"), cls)
            d.equalities.append(_equality.read_joint(self, c, a, refs) if c.tag == "joint"
                                else _equality.read(self, c, a, poses, sites))

    def compiler(self, a: Attrs) -> None:
        if a.get("coordinate") not in (None, "local"):
            self.fail(f"{a.shown('coordinate')}: global coordinates are no longer MJCF "
                      f"(MuJoCo 2.3.3 dropped them); convert the file to local ones", a)
        if "angle" in a:
            unit = self.keyword(a, "angle", ("degree", "radian"), "degree")
            self.angle = np.pi / 180.0 if unit == "degree" else 1.0
        seq = a.get("eulerseq")
        if seq is not None:
            if len(seq) != 3 or any(ch not in "xyzXYZ" for ch in seq):
                self.fail(f"{a.shown('eulerseq')}: three of the letters x, y, z, X, Y, Z", a)
            self.eulerseq = seq
        tf = ("true", "false")
        if "autolimits" in a:
            self.autolimits = self.keyword(a, "autolimits", tf, "true") == "true"
        if "inertiafromgeom" in a:
            self.inertiafromgeom = self.keyword(a, "inertiafromgeom", tf + ("auto",), "auto")
        if "inertiagrouprange" in a:
            g = self.floats(a, "inertiagrouprange", 2)
            if not np.all(g == np.round(g)):
                self.fail(f"{a.shown('inertiagrouprange')}: two integers", a)
            self.groups = (int(g[0]), int(g[1]))
        self.boundmass = self.nonnegative(a, "boundmass", self.boundmass)
        self.boundinertia = self.nonnegative(a, "boundinertia", self.boundinertia)
        if "balanceinertia" in a:
            self.balance = self.keyword(a, "balanceinertia", tf, "false") == "true"
        self.totalmass = self.number(a, "settotalmass", self.totalmass)
        for k, x in (("boundmass", self.boundmass), ("boundinertia", self.boundinertia),
                     ("settotalmass", self.totalmass)):
            if k in a:
                self.compiler_attrs[k] = a
                self.derived(a, (k,), "a mass or moment of inertia", x, limit=mm.LARGEST)
        self.meshdir = a.get("meshdir") or a.get("assetdir") or self.meshdir
        if "alignfree" in a:
            self.alignfree = self.keyword(a, "alignfree", tf, "false") == "true"

    def option(self, node: _xml.Node) -> None:
        a = Attrs(node)
        if "gravity" in a:
            self.gravity = self.floats(a, "gravity", 3)
        for c in node.children:
            if c.tag == "flag" and c.attrib.get("gravity") is not None:
                if self.keyword(Attrs(c), "gravity", ("enable", "disable"), "enable") == "disable":
                    self.gravity = np.zeros(3)

    # --- poses ---------------------------------------------------------------------------------
    def orientation(self, a: Attrs) -> np.ndarray:
        keys = [k for k in ORIENTATIONS if k in a]
        if len(keys) > 1:
            self.fail(f"{' and '.join(a.shown(k) for k in keys)}: more than one orientation "
                      f"(MuJoCo allows one of {', '.join(ORIENTATIONS)})", a)
        if not keys:
            return np.eye(3)
        k = keys[0]
        v = self.floats(a, k, {"quat": 4, "axisangle": 4, "euler": 3, "xyaxes": 6,
                                "zaxis": 3}[k])
        try:
            if k == "quat":
                return mm.quat_to_R(v)
            if k == "axisangle":
                return mm.axis_angle(v[:3], v[3] * self.angle)
            if k == "euler":
                return mm.euler(v * self.angle, self.eulerseq)
            if k == "xyaxes":
                return mm.xyaxes(v)
            return mm.z_to(v)
        except ValueError as e:
            self.fail(f"{a.shown(k)}: {e}", a)

    def pose(self, a: Attrs) -> tuple[np.ndarray, np.ndarray]:
        return self.orientation(a), self.floats(a, "pos", 3, default=(0.0, 0.0, 0.0))

    def placed(self, a: Attrs, R, p, Rl, pl, keys=("pos",)) -> tuple[np.ndarray, np.ndarray]:
        """(R Rl, p + R pl): an element's pose (Rl, pl) in the frame (R, p) it stands in,
        checked finite (a 1e308 pos in a 1e308 frame overflows) at the element."""
        with np.errstate(over="ignore", invalid="ignore"):
            out = R @ Rl, p + R @ pl
        self.derived(a, keys, "its position in its body (with the frames around it) [m]",
                     out[1])
        return out

    def childclass(self, node: _xml.Node, inherited: str) -> str:
        cc = node.attrib.get("childclass")
        return inherited if cc is None else self.defaults.check(cc, node, "childclass")

    # --- bodies --------------------------------------------------------------------------------
    def elements(self, body: _Body, node: _xml.Node, R, p, cls: str, in_frame: bool) -> None:
        """What ``node`` (a body, the worldbody or a frame at (R, p) in ``body``) holds."""
        world = body.parent is None
        for c in node.children:
            t = c.tag
            if t == "body":
                self.body(c, body, R, p, cls)
            elif t == "frame":
                a = Attrs(c)
                Rf, pf = self.placed(a, R, p, *self.pose(a))
                self.elements(body, c, Rf, pf, self.childclass(c, cls), True)
            elif t == "geom":
                body.geoms.append(self.geom(self.defaults.attrs(c, cls), R, p))
            elif t == "site":
                body.sites.append(self.site(self.defaults.attrs(c, cls), R, p))
            elif t in ("joint", "freejoint"):
                if world:
                    self.fail(f"<{t}> in the worldbody: the world does not move (put it in a "
                              f"<body>)", Attrs(c))
                body.joints.append(self.joint(c, R, p, cls))
            elif t == "inertial":
                if world or in_frame:
                    self.fail("<inertial> belongs directly in a <body>", Attrs(c))
                if body.inertial is not None:
                    self.fail("a second <inertial> in this body", Attrs(c))
                body.inertial = self.inertial(Attrs(c))
            elif t in ("camera", "light", "plugin"):
                continue
            elif t in _UNSUPPORTED:
                self.fail(f"<{t}> is not supported by fastdyn's MJCF loader (compile the model "
                          f"in MuJoCo and save it with mj_saveLastXML to expand it)", Attrs(c))
            else:
                self.fail(f"unknown element <{t}> in <{node.tag}>", Attrs(c))

    def body(self, node: _xml.Node, parent: _Body, R, p, cls: str) -> None:
        a = Attrs(node)
        b = _Body(node.attrib.get("name"), node, parent, *self.placed(a, R, p, *self.pose(a)))
        b.mocap = self.keyword(a, "mocap", ("true", "false"), "false") == "true"
        if self.number(a, "gravcomp", 0.0) != 0.0:
            self.note("gravcomp", f"{b.name or '<body>'} ({self.where(node)})")
        parent.children.append(b)
        self.bodies.append(b)  # document order: MuJoCo's body ids, from 1
        self.elements(b, node, np.eye(3), np.zeros(3), self.childclass(node, cls), False)

    def joint(self, node: _xml.Node, R, p, cls: str) -> _Joint:
        if node.tag == "freejoint":  # takes no defaults (MuJoCo's schema)
            a = Attrs(node)
            align = self.keyword(a, "align", ("true", "false", "auto"), "auto")
            if align == "true" or (align == "auto" and self.alignfree):
                self.fail("a free joint aligned to the body's inertia (align / alignfree) "
                          "moves the body frame; fastdyn does not support it", a)
            return _Joint(node.attrib.get("name"), "free", node)
        a = self.defaults.attrs(node, cls)
        kind = self.keyword(a, "type", ("hinge", "slide", "ball", "free"), "hinge")
        j = _Joint(a.get("name"), kind, node, attrs=a)
        j.pos = self.placed(a, R, p, np.eye(3), self.floats(a, "pos", 3,
                                                              default=(0.0, 0.0, 0.0)))[1]
        if kind in ("hinge", "slide"):
            try:  # normalized before it turns: |R a| of a 1e308 axis could overflow
                j.axis = R @ mm.unit(self.floats(a, "axis", 3, default=(0.0, 0.0, 1.0)), "")
            except ValueError:
                self.fail(f"{a.shown('axis')}: a {kind} joint's axis cannot be zero", a)
        scale = self.angle if kind in ("hinge", "ball") else 1.0
        j.ref = self.number(a, "ref", 0.0) * (self.angle if kind == "hinge" else 1.0)
        if self.number(a, "stiffness", 0.0) != 0.0:
            self.note("springs", f"{a.get('name') or '<joint>'} ({self.where(node)})")
        j.armature = self.nonnegative(a, "armature", 0.0)
        j.damping = self.nonnegative(a, "damping", 0.0)
        j.frictionloss = self.nonnegative(a, "frictionloss", 0.0)
        if kind == "free" and (j.armature or j.frictionloss):
            self.note("free terms", f"{a.get('name') or '<joint>'} ({self.where(node)})")
        if self.limited(a, "limited", "range") and kind != "free":
            lo, hi = self.floats(a, "range", 2, default=(0.0, 0.0)) * scale
            if not lo < hi:
                self.fail(f"joint range [{lo:g}, {hi:g}]: range[0] must be below range[1]", a)
            if kind == "ball":
                self.note("ball limits", f"{a.get('name') or '<joint>'} ({self.where(node)})")
            else:
                j.limits = (lo, hi)
        if self.limited(a, "actuatorfrclimited", "actuatorfrcrange"):
            lo, hi = self.floats(a, "actuatorfrcrange", 2, default=(0.0, 0.0))
            if lo > hi:
                self.fail(f"{a.shown('actuatorfrcrange')}: the lower bound is above the upper",
                          a)
            j.effort = max(-lo, hi)
        return j

    def limited(self, a: Attrs, flag: str, rng: str) -> bool:
        """The limited / actuatorfrclimited rule: "auto" means limited where a range is given,
        with <compiler autolimits="true"> (MuJoCo's default), and is an error without it."""
        v = self.keyword(a, flag, ("true", "false", "auto"), "auto")
        if v != "auto":
            return v == "true"
        if rng in a and not self.autolimits:
            self.fail(f"{a.shown(rng)} without {flag}=\"true\" or \"false\": with "
                      f"<compiler autolimits=\"false\"> MuJoCo needs it said", a)
        return rng in a

    def geom(self, a: Attrs, R, p) -> _Geom:
        kind = self.keyword(a, "type", _GEOM_TYPES, "sphere")
        size = self.floats(a, "size", (1, 3), default=(0.0, 0.0, 0.0))
        size = tuple(float(x) for x in size) + (0.0,) * (3 - len(size))
        ft = self.floats(a, "fromto", 6)
        if ft is not None:
            if "pos" in a:  # (MuJoCo: "both pos and fromto defined in geom", class or not)
                self.fail(f"{a.shown('pos')} and {a.shown('fromto')}: a geom takes one", a)
            if kind not in ("capsule", "cylinder", "box", "ellipsoid"):
                self.fail(f"{a.shown('fromto')}: fromto takes a capsule, cylinder, box or "
                          f"ellipsoid, not a {kind}", a)
            try:
                Rg, pg, size = mm.fromto_frame(ft, size, kind)
            except ValueError as e:
                self.fail(f"{a.shown('fromto')}: {e}", a)
        else:
            Rg, pg = self.pose(a)
        mesh = a.get("mesh")
        if kind in mm.SIZES and mesh is None:
            for k in range(mm.SIZES[kind]):
                if not size[k] > 0:
                    self.fail(f"<geom size>: size[{k}] of a {kind} must be positive, got "
                              f"{size[k]:g}", a)
        mass = self.floats(a, "mass", 1)
        if mass is not None and mass[0] < 0:
            self.fail(f"{a.shown('mass')}: must be >= 0", a)
        friction = self.floats(a, "friction", (1, 3), default=(1.0,))
        collides = (self.integer(a, "contype", 1) | self.integer(a, "conaffinity", 1)) != 0
        if kind in ("hfield", "sdf") and mesh is None:
            mesh = a.get(kind) or "?"
        Rg, pg = self.placed(a, R, p, Rg, pg, ("fromto",) if ft is not None else ("pos",))
        return _Geom(kind, a.node, Rg, pg, size,
                     None if mass is None else float(mass[0]),
                     self.nonnegative(a, "density", 1000.0), self.integer(a, "group", 0),
                     collides, float(friction[0]), mesh if kind != "plane" else None,
                     self.keyword(a, "shellinertia", ("true", "false"), "false") == "true",
                     attrs=a)

    def site(self, a: Attrs, R, p) -> tuple:
        ft = self.floats(a, "fromto", 6)
        if ft is not None and "pos" in a:  # (MuJoCo: "both pos and fromto defined in site")
            self.fail(f"{a.shown('pos')} and {a.shown('fromto')}: a site takes one", a)
        if ft is not None:
            kind = self.keyword(a, "type", ("sphere", "capsule", "ellipsoid", "cylinder", "box"),
                                "sphere")
            if kind == "sphere":
                self.fail(f"{a.shown('fromto')}: fromto takes a capsule, cylinder, box or "
                          f"ellipsoid site", a)
            try:
                Rs, ps, _ = mm.fromto_frame(ft, (1.0, 1.0, 1.0), kind)
            except ValueError as e:
                self.fail(f"{a.shown('fromto')}: {e}", a)
        else:
            Rs, ps = self.pose(a)
        Rs, ps = self.placed(a, R, p, Rs, ps, ("fromto",) if ft is not None else ("pos",))
        return a.get("name"), Rs, ps, a.node

    def inertial(self, a: Attrs) -> tuple:
        c = self.floats(a, "pos", 3)
        if c is None:
            self.fail("<inertial> needs a pos=\"x y z\" attribute", a)
        mass = self.number(a, "mass", None)
        if mass < 0:
            self.fail(f"{a.shown('mass')}: must be >= 0", a)
        if "diaginertia" in a and "fullinertia" in a:
            self.fail("<inertial> takes diaginertia or fullinertia, not both", a)
        if "fullinertia" in a:
            if any(k in a for k in ORIENTATIONS):
                self.fail("<inertial fullinertia=...> is already in the body's axes: it takes "
                          "no orientation", a)
            v = self.floats(a, "fullinertia", 6)
            I = np.array([[v[0], v[3], v[4]], [v[3], v[1], v[5]], [v[4], v[5], v[2]]])
        else:
            d = self.floats(a, "diaginertia", 3, default=(0.0, 0.0, 0.0))
            if np.any(d < 0):
                self.fail(f"{a.shown('diaginertia')}: moments of inertia must be >= 0", a)
            R = self.orientation(a)
            with np.errstate(over="ignore", invalid="ignore"):
                I = R @ np.diag(d) @ R.T
        self.derived(a, ("mass",), "the mass [kg]", mass, limit=mm.LARGEST)
        self.derived(a, ("pos",), "the centre of mass [m]", c, limit=mm.LARGEST)
        self.derived(a, ("fullinertia", "diaginertia") + ORIENTATIONS,
                     "the inertia (once rotated) [kg m^2]", I, limit=mm.LARGEST)
        return mass, c, I, a.node

    # --- the Description -------------------------------------------------------------------
    def describe(self, root: _xml.Node, world: _Body) -> Description:
        d = Description(root.attrib.get("model", "MuJoCo Model"), source=self.source,
                        child_order="document", error=MJCFError, warning=MJCFWarning,
                        gravity=self.gravity)
        describe(self, d, world)
        d.assets = {"mesh": self.meshes, "material": self.materials,
                    "mesh_node": self.mesh_nodes, "meshdir": self.meshdir}
        d.excludes = [(b1, b2, node) for b1, b2, node in self.excludes]
        self.mimics(d)
        self.closures(d)
        for kind, items in self.notes.items():
            warnings.warn(_NOTES[kind].format(n=len(items), source=self.source,
                                              items="; ".join(items[:8]) +
                                              (" ..." if len(items) > 8 else "")),
                          MJCFWarning, stacklevel=5)
        return d


_NOTES = {
    "meshes": "{source}: {n} mesh, hfield or sdf geom(s) left out of their bodies' mass and "
              "inertia (hfields, sdfs and primitives fitted to a mesh are not read, and "
              "meshes need trimesh and scipy: pip install 'fastdyn[view]'; or give those "
              "bodies an <inertial>): {items}",
    "springs": "{source}: {n} joint spring(s) (stiffness) not modelled: {items}",
    "ball limits": "{source}: {n} ball joint cone limit(s) not modelled: {items}",
    "gravcomp": "{source}: {n} body gravity compensation(s) (gravcomp) not modelled: {items}",
    "constraints": "{source}: equality and tendon constraints are not modelled in the Model "
                   "(fastdyn.io.mjcf_constraints(model, file) gives the connect and weld ones "
                   "as fastdyn.RigidConstraint): {items}",
    "free terms": "{source}: {n} free joint(s) with armature or frictionloss, which fastdyn "
                  "applies along the body's axes and MuJoCo along the world's for the linear "
                  "part (with armature the dynamics differ by armature (w x v)): {items}",
}
