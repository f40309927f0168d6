"""From the MJCF reader's bodies (fastdyn/io/mjcf.py) to a Description: names, masses,
joint chains, sites and collision shapes, with the checks MuJoCo's compiler makes on them.

Masses, inertias and placements are checked where they are computed (``_geom_inertia``,
``_body_inertia``, the joints' placements): finite and within ``_mjcf_math.LARGEST``, else an
MJCFError at the element, naming the attributes they come from; so numbers anywhere in a
double's range give a model or that error, never NumPy's or Python's arithmetic errors.

Names: an unnamed body, joint or site is called as MuJoCo numbers it (``body3``, ``joint0``,
``site2``: its id in the compiled mjModel, bodies from 1 after the world). A body without a
joint hangs on a fixed joint "<body>_fixed"; a body with several joints gets a massless link
"<body>_<joint>" after each but its last (a suffix ``_1``, ``_2`` ... where a name is taken).
"""

from __future__ import annotations

import os

import numpy as np

from . import _mjcf_math as mm
from . import _mjcf_mesh as _mesh
from ._mjcf_doc import Attrs
from .description import Collision, Description, Frame, Inertial, Joint, Link, Visual

_KINDS = {"hinge": "revolute", "slide": "prismatic", "ball": "spherical", "free": "floating"}


def _fresh(base: str, taken: set) -> str:
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


class _Names:
    """Every body's, joint's and site's name: the file's, checked unique as MuJoCo does, or
    MuJoCo's number for it."""

    def __init__(self, r, world):
        self.body, self.joint, self.site = {}, {}, {}
        self.links, self.joints = {"world"}, set()
        sites: set = set()
        firsts: dict = {}

        def own(kind, name, node, taken):
            if name is None:
                return None
            if name in taken or (kind == "body" and name == "world"):
                first = firsts.get((kind, name))
                where = (f" (first at {r.where(first)})" if first is not None else
                         " (the world body's name)")
                r.fail(f"repeated {kind} name {name!r}{where}", Attrs(node))
            taken.add(name)
            firsts[(kind, name)] = node
            return name

        for b in r.bodies:
            self.body[id(b)] = own("body", b.name, b.node, self.links)
            for j in b.joints:
                self.joint[id(j)] = own("joint", j.name, j.node, self.joints)
            for s in b.sites:
                self.site[id(s)] = own("site", s[0], s[3], sites)
        for s in world.sites:
            self.site[id(s)] = own("site", s[0], s[3], sites)
        nj = ns = 0  # MuJoCo's ids: bodies in document order, their joints and sites in turn
        for s in world.sites:
            self.site[id(s)] = self.site[id(s)] or _fresh(f"site{ns}", sites)
            ns += 1
        for k, b in enumerate(r.bodies, start=1):
            self.body[id(b)] = self.body[id(b)] or _fresh(f"body{k}", self.links)
            for j in b.joints:
                self.joint[id(j)] = self.joint[id(j)] or _fresh(f"joint{nj}", self.joints)
                nj += 1
            for s in b.sites:
                self.site[id(s)] = self.site[id(s)] or _fresh(f"site{ns}", sites)
                ns += 1


def _line(r, node) -> int | None:
    """The element's line, where it is in the main file (a Description has one source)."""
    return node.line if node.source == r.source else None


def _geom_inertia(r, g) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, centre, inertia about it in the body frame) of a solid geom, each checked at the
    geom: its mass and moments within LARGEST and, when it has mass, its centre too (the
    body's com is a mean of its geoms' centres)."""
    a = g.attrs
    shape = ("fromto", "size") if "fromto" in a else ("size",)
    src = ("mass",) if g.mass is not None else shape + ("density",)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        m = np.float64(g.mass) if g.mass is not None else g.density * mm.volume(g.kind, g.size)
        r.derived(a, src, f"the {g.kind}'s mass [kg]", m, limit=mm.LARGEST)
        moments = mm.principal_inertia(g.kind, g.size, m)
        r.derived(a, shape + src, f"the {g.kind}'s moment of inertia [kg m^2]", moments,
                  limit=mm.LARGEST)
        I = g.R @ np.diag(moments) @ g.R.T  # orthonormal R: entries below 3 LARGEST
    if m > 0:
        r.derived(a, ("fromto",) if "fromto" in a else ("pos",),
                  "the centre of this geom with mass, in its body [m]", g.p, limit=mm.LARGEST)
    return float(m), g.p, I


def _mesh_inertia(r, g):
    """(mass, centre, inertia) of mesh geom ``g`` in its body (fastdyn/io/_mjcf_mesh.py), or
    None where trimesh or SciPy is missing (the caller notes the geom as left out)."""
    a = r.mesh_nodes.get(g.mesh)
    if a is None:
        r.fail(f"{g.attrs.shown('mesh')}: no <asset><mesh> of that name", g.attrs)
    kind = r.keyword(a, "inertia", _mesh.INERTIAS, _mesh.DEFAULT_INERTIA)
    if kind == "shell":
        r.fail(f"{a.shown('inertia')}: a hollow mesh's inertia is not supported by fastdyn; "
               f"give the body an <inertial>", a)
    here = os.path.dirname(os.path.abspath(r.source)) if r.source != "<string>" else os.getcwd()
    try:
        if g.mesh not in r.mesh_cache:
            r.mesh_cache[g.mesh] = _mesh.asset_mesh(r, a, here, r.meshdir)
        return _mesh.geom_inertia(r, g, r.mesh_cache[g.mesh], kind)
    except ImportError:
        return None


def _inertia(r, b, name: str) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, com, inertia about it) of body ``b`` in its frame, as <compiler> says."""
    use_geoms = r.inertiafromgeom == "true" or (r.inertiafromgeom == "auto" and
                                                 b.inertial is None)
    if use_geoms:
        parts = []
        for g in b.geoms:
            if not r.groups[0] <= g.group <= r.groups[1]:
                continue
            gname = g.node.attrib.get("name")
            if g.shell and g.kind != "plane":
                r.fail("shellinertia=\"true\" (a hollow geom's inertia) is not supported by "
                       "fastdyn; give the body an <inertial>", Attrs(g.node))
            if g.mesh is not None and g.kind == "mesh":
                part = _mesh_inertia(r, g)
                if part is not None:
                    parts.append(part)
                    continue
            if g.mesh is not None:
                r.note("meshes", f"{gname or g.kind} ({g.mesh}) in body {name!r} "
                       f"({r.where(g.node)})")
                continue
            if g.kind not in mm.SIZES:  # a plane: no volume
                continue
            parts.append(_geom_inertia(r, g))
        with np.errstate(over="ignore", invalid="ignore"):
            m, c, I = mm.combine(parts)
        # each geom is within LARGEST: only their sum, or their spread about it, is not
        r.derived(Attrs(b.node), (), f"body {name!r}: the mass, centre of mass or inertia "
                  f"[kg m^2] of its geoms together (their size, density, mass and pos)",
                  m, c, I, limit=mm.LARGEST)
    elif b.inertial is not None:
        m, c, I = b.inertial[:3]  # checked as it was read
    else:
        m, c, I = 0.0, np.zeros(3), np.zeros((3, 3))
    m = max(m, r.boundmass)  # (the bounds are within LARGEST: checked as they were read)
    if r.boundinertia > 0 or r.balance:
        ev, V = mm.principal(I)
        new = np.maximum(ev, r.boundinertia)
        if r.balance and new[0] + new[1] < new[2]:
            new[:] = new.sum() / 3.0
        if np.any(new != ev):
            I = V @ np.diag(new) @ V.T
    return m, c, I


def _check_inertia(r, b, name, m, I) -> None:
    """MuJoCo refuses a body whose principal moments break A + B >= C unless told to
    balance them; so does fastdyn (the URDF loader, following Pinocchio, only warns)."""
    ev = mm.principal(I)[0]
    tol = 1e-9 * max(1.0, float(abs(ev).max()))
    node = b.inertial[3] if b.inertial is not None and r.inertiafromgeom != "true" else b.node
    if ev[0] < -tol:
        r.fail(f"body {name!r}: a negative principal moment of inertia {ev[0]:.6g}",
               Attrs(node))
    if ev[0] + ev[1] < ev[2] - tol:
        r.fail(f"body {name!r}: principal moments {ev[0]:.6g}, {ev[1]:.6g}, {ev[2]:.6g} break "
               f"A + B >= C, which no body has; MuJoCo refuses them too (<compiler "
               f"balanceinertia=\"true\"> evens them out)", Attrs(node))


def _check_moving(r, names, inertia) -> None:
    """MuJoCo's rule: a body with joints, with the bodies welded to it, has mass and inertia
    above mjMINVAL (else its dofs have no inertia and the mass matrix is singular)."""

    def welded(b, R, p, out):
        m, c, I = inertia[id(b)]
        out.append((m, p + R @ c, R @ I @ R.T))
        for ch in b.children:
            if not ch.joints:
                welded(ch, R @ ch.R, p + R @ ch.p, out)
        return out

    for b in r.bodies:
        if not b.joints:
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            m, c, I = mm.combine(welded(b, np.eye(3), np.zeros(3), []))
        r.derived(Attrs(b.node), (), f"body {names.body[id(b)]!r} moves: the mass, centre "
                  f"of mass or inertia [kg m^2] of it and the bodies welded to it (their pos)",
                  m, c, I, limit=mm.LARGEST)
        low = float(mm.principal(I)[0][0]) if m > 0 else 0.0
        if m < mm.MJMINVAL or low < mm.MJMINVAL:
            r.fail(f"body {names.body[id(b)]!r} moves but has mass {m:.3g} and smallest "
                   f"principal inertia {low:.3g} (with the bodies welded to it); MuJoCo "
                   f"requires both above mjMINVAL = 1e-15: give it an <inertial> or geoms",
                   Attrs(b.node))


def _collision(r, g) -> Collision:
    s = [float(x) for x in g.size]
    kind = "mesh" if g.mesh is not None and g.kind not in ("hfield", "sdf") else g.kind
    if kind == "sphere":
        size = (s[0],)
    elif kind == "box":  # MJCF: half-sizes; Collision: edge lengths, as URDF
        size = (2 * s[0], 2 * s[1], 2 * s[2])
    elif kind in ("capsule", "cylinder"):  # MJCF: half-length
        size = (s[0], 2 * s[1])
    elif kind == "ellipsoid":
        size = tuple(s)
    else:
        size = ()
    contact = None
    if g.attrs is not None:
        contact = _contact(r, g.attrs)
        contact["type"] = g.kind  # a primitive fitted to its mesh: kind "mesh", type "box"
        contact["where"] = (g.node.source, g.node.line)  # (the included file's, if one)
    return Collision(kind, g.R, g.p, size, g.mesh, _line(r, g.node), g.friction, contact)


# MuJoCo's defaults of the contact parameters a geom_table takes (XML reference, <geom>)
_FRICTION = (1.0, 0.005, 0.0001)
_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


def _contact(r, a: Attrs) -> dict:
    """A geom's contact parameters (its own over its class's), padded with MuJoCo's defaults
    where fewer numbers are given, as MuJoCo reads them: checked for what fastdyn's contacts
    need only by collision_geoms, so a file MuJoCo loads loads here too."""
    def padded(key, default, count):
        x = r.floats(a, key, (1, count), default=default)
        return tuple(float(v) for v in np.concatenate([x, default[len(x):]]))

    return dict(name=a.get("name"), friction=padded("friction", _FRICTION, 3),
                margin=r.number(a, "margin", 0.0), solref=padded("solref", (0.02, 1.0), 2),
                solimp=padded("solimp", _SOLIMP, 5), contype=r.integer(a, "contype", 1),
                conaffinity=r.integer(a, "conaffinity", 1))


def _visual(r, g) -> Visual:
    """A geom as a viewer draws it (MuJoCo shows groups 0 to 2 by default): its shape as
    ``_collision``'s, its colour from rgba, else its material's, else MuJoCo's grey."""
    c = _collision(r, g)
    a = g.attrs
    rgba = r.floats(a, "rgba", 4) if a is not None and "rgba" in a else None
    if rgba is None and a is not None and a.get("material") is not None:
        rgba = r.materials.get(a.get("material"))
    rgba = (0.5, 0.5, 0.5, 1.0) if rgba is None else tuple(float(x) for x in rgba)
    return Visual(c.kind, c.R, c.p, c.size, c.mesh, (1.0, 1.0, 1.0), rgba, c.line)


def describe(r, d: Description, world) -> None:
    """Fill ``d`` from the reader ``r``'s bodies below ``world``."""
    names = _Names(r, world)
    inertia = {id(b): _inertia(r, b, names.body[id(b)]) for b in r.bodies}
    if r.totalmass > 0:
        total = sum(m for m, _, _ in inertia.values())
        if total > 0:  # m / total first: the ratio of the masses is what settotalmass keeps
            with np.errstate(over="ignore", invalid="ignore"):
                inertia = {i: (r.totalmass * (m / total), c, r.totalmass * (I / total))
                           for i, (m, c, I) in inertia.items()}
            for b in r.bodies:
                r.derived(r.compiler_attrs["settotalmass"], ("settotalmass",),
                          f"body {names.body[id(b)]!r}'s inertia scaled to the total mass "
                          f"[kg m^2]", inertia[id(b)][2], limit=mm.LARGEST)
    for b in r.bodies:
        _check_inertia(r, b, names.body[id(b)], inertia[id(b)][0], inertia[id(b)][2])
    _check_moving(r, names, inertia)

    d.links.append(Link("world", None, None,
                        [_collision(r, g) for g in world.geoms if g.collides]))
    for s in world.sites:
        d.frames.append(Frame(names.site[id(s)], "world", s[1], s[2], _line(r, s[3])))
    moving = {id(world): False}
    for b in r.bodies:  # document order: parents before children
        name = names.body[id(b)]
        parent = "world" if b.parent is world else names.body[id(b.parent)]
        moving[id(b)] = moving[id(b.parent)] or bool(b.joints)
        m, c, I = inertia[id(b)]
        inertial = Inertial(m, c, I, _line(r, b.node)) if m > 0 or np.any(I) else None
        for g in b.geoms:
            if g.kind == "plane" and moving[id(b)]:
                r.fail("a plane geom belongs to a body that does not move (MuJoCo's rule)",
                       Attrs(g.node))
        d.links.append(Link(name, inertial, _line(r, b.node),
                            [_collision(r, g) for g in b.geoms if g.collides],
                            [_visual(r, g) for g in b.geoms if g.group <= 2]))
        _joints(r, d, b, name, parent, names, world, inertia[id(b)])
        for s in b.sites:
            d.frames.append(Frame(names.site[id(s)], name, s[1], s[2], _line(r, s[3])))


def _joints(r, d: Description, b, name: str, parent: str, names, world, body) -> None:
    """The joints placing body ``b`` (called ``name``, ``body``: its (mass, com, inertia))
    on ``parent``, their placements checked finite at each joint and the body's com within
    LARGEST of its joint, its inertia about it finite (the Model keeps them so)."""
    line = _line(r, b.node)
    if b.mocap and (b.parent is not world or b.joints):
        r.fail("a mocap body must be a child of the worldbody without joints (MuJoCo's rule)",
               Attrs(b.node))
    if not b.joints:
        d.joints.append(Joint(_fresh(f"{name}_fixed", names.joints), "fixed", parent, name,
                              b.R, b.p, line=line))
        return
    free = [j for j in b.joints if j.kind == "free"]
    if free and len(b.joints) > 1:
        r.fail("a free joint must be its body's only joint", Attrs(free[0].node))
    if free and b.parent is not world:
        r.fail("a free joint belongs to a child of the worldbody (MuJoCo: 'free joint can "
               "only be used on top level')", Attrs(free[0].node))
    for k, j in enumerate(b.joints):
        if j.kind == "ball" and any(o.kind in ("hinge", "ball") for o in b.joints[k + 1:]):
            r.fail("a ball joint followed by another rotation in the same body (MuJoCo "
                   "refuses it: 'ball followed by rotation')", Attrs(j.node))
    link, prev = parent, None
    for k, j in enumerate(b.joints):
        jname = names.joint[id(j)]
        last = k == len(b.joints) - 1
        child = name if last else _fresh(f"{name}_{jname}", names.links)
        # A joint's frame: at its anchor, turned back by its ref (q = ref is the pose the
        # file draws), so that q is MuJoCo's qpos (Pinocchio 4's reading of ref too)
        with np.errstate(over="ignore", invalid="ignore"):
            R, p = np.eye(3), (j.pos if prev is None else j.pos - prev)
            if j.kind == "hinge" and j.ref:
                R = mm.axis_angle(j.axis, -j.ref)
            elif j.kind == "slide" and j.ref:
                p = p - j.ref * j.axis
            if j.kind == "free":  # q is the body's pose in the world, as MuJoCo's qpos
                R, p = np.eye(3), np.zeros(3)
            elif prev is None:
                R, p = b.R @ R, b.p + b.R @ p
        if j.kind != "free":
            r.derived(j.attrs, ("pos", "ref"), "the joint's position in its parent [m]", p)
        lower, upper = j.limits if j.limits is not None else (None, None)
        J = Joint(jname, _KINDS[j.kind], link, child, R, p, axis=j.axis, lower=lower,
                  upper=upper, effort=j.effort, damping=j.damping, friction=j.frictionloss,
                  armature=j.armature, line=_line(r, j.node))
        if last and j.kind != "free" and np.any(j.pos):
            J.child_place = (np.eye(3), -j.pos)
            m, c, _ = body
            if m > 0:
                with np.errstate(over="ignore", invalid="ignore"):
                    cj = c - j.pos
                    far = (m * float(np.abs(cj).max())) * float(np.abs(cj).max())
                r.derived(j.attrs, ("pos",), f"body {name!r}'s centre of mass from this joint "
                          f"[m]", cj, limit=mm.LARGEST)
                r.derived(j.attrs, ("pos",), f"body {name!r}'s inertia about this joint "
                          f"(m |c|^2) [kg m^2]", far)
        if not last:
            d.links.append(Link(child, None, _line(r, j.node)))
        d.joints.append(J)
        link, prev = child, j.pos
