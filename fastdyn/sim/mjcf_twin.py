"""A Scene's MuJoCo twin: an MJCF that MuJoCo compiles into the same bodies, contacts and step.

    xml = scene.to_mjcf()                   # or scene.to_mjcf("twin.xml")
    m = mujoco.MjModel.from_xml_string(xml)
    twin = MujocoMap(scene.model)           # fastdyn's (q, v, tau) <-> MuJoCo's (qpos, qvel, ctrl)
    qpos, qvel = twin.to_mujoco(q, v)

What is written, and why it is the same system:
- one MuJoCo body per fastdyn joint, placed in its parent by the joint's placement at q0 (the
  parameter row's R and p): bodies that fastdyn merged across fixed joints stay merged, so a
  foot sphere sits where fastdyn has it (a URDF given to MuJoCo directly keeps fixed links as
  bodies of their own, and the two then disagree wherever a merged link carried geometry);
- each body's inertia: mass, centre of mass and the inertia about it (``fullinertia``, from
  fastdyn's 10 dynamic parameters about the joint origin by the parallel-axis theorem);
- joints, acting at the body's origin as fastdyn's do (MuJoCo applies a body's joints in
  order, each axis turned by the ones before it, MuJoCo documentation "Kinematic tree"):
  freeflyer -> free; spherical -> ball; revolute, continuous -> hinge; prismatic -> slide;
  planar -> slide x, slide y, hinge z; translation -> three slides; universal -> two hinges
  (Pinocchio's exp(q1 a1) exp(q2 a2)); spherical_zyx -> hinges z, y, x. Helical joints have no
  MuJoCo counterpart and are refused. Position limits (when the scene has limits on) become
  ``range``; armature, damping and dry friction become ``armature``, ``damping`` and
  ``frictionloss`` (MuJoCo's friction loss is a soft constraint, fastdyn's a rigid row);
- a ``motor`` actuator (gear 1) on each one-coordinate joint, ctrl = tau, its ``ctrlrange`` the
  effort limit (fastdyn clamps tau to it too); multi-dof joints get none;
- frames other than the bodies' own as sites, so ``data.site(name)`` finds them;
- the scene's spheres as sphere geoms on their joints' bodies, its half-spaces as planes, and
  one explicit ``<pair>`` per (sphere, half-space) with the half-space's friction (condim 3,
  elliptic cone) and its solref / solimp: MuJoCo then collides exactly the pairs fastdyn does,
  with the parameters fastdyn uses, and nothing else (every geom has contype = conaffinity = 0);
  the scene's collision geoms (``add_geom``) as fastdyn/sim/mjcf_twin_geoms.py says, meeting
  the planes and each other through MuJoCo's contype / conaffinity filter;
  A rigid half-space becomes MuJoCo's default soft contact (MuJoCo has no rigid contact;
  ``rigid_solref`` / ``rigid_solimp`` choose others); restitution is not carried over;
- the options: timestep, gravity, impratio, the elliptic cone, MuJoCo's Euler integrator (the
  same semi-implicit Euler, with MuJoCo's free-joint scheme that fastdyn's step follows).

State conventions (``MujocoMap``): a free joint's qpos is [x y z qw qx qy qz] (fastdyn's
quaternion has w last) and its linear qvel is in world axes (fastdyn's in the body's: v =
R^T v_mujoco); a ball joint's quaternion likewise; a continuous joint's angle is atan2(sin, cos)
of fastdyn's (cos, sin); a planar joint's slide rates are in the parent's axes (fastdyn's in the
body's). MuJoCo's own documentation ("MJCF Reference", "Computation") has the rest.
"""

from __future__ import annotations

import math
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..errors import MJCFWarning
from ..io._mjcf_math import quat_to_R
from ..kernels import layout as L
from .mjcf_twin_geoms import write_geoms

__all__ = ["to_mjcf", "MujocoMap"]

# MuJoCo's joint kinds, per fastdyn joint type name: a list of (kind, axis), axis None: the
# joint's own axis (P_AXIS; universal's second: P_AXIS2)
_X, _Y, _Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
_KINDS = {
    "freeflyer": [("free", None)], "spherical": [("ball", None)],
    "revolute_x": [("hinge", _X)], "revolute_y": [("hinge", _Y)],
    "revolute_z": [("hinge", _Z)], "revolute": [("hinge", "axis")],
    "continuous_x": [("hinge", _X)], "continuous_y": [("hinge", _Y)],
    "continuous_z": [("hinge", _Z)], "continuous": [("hinge", "axis")],
    "prismatic_x": [("slide", _X)], "prismatic_y": [("slide", _Y)],
    "prismatic_z": [("slide", _Z)], "prismatic": [("slide", "axis")],
    "planar": [("slide", _X), ("slide", _Y), ("hinge", _Z)],
    "translation": [("slide", _X), ("slide", _Y), ("slide", _Z)],
    "universal": [("hinge", "axis"), ("hinge", "axis2")],
    "spherical_zyx": [("hinge", _Z), ("hinge", _Y), ("hinge", _X)],
}
_UNLIMITED = ("freeflyer", "spherical", "planar", "continuous", "continuous_x", "continuous_y",
              "continuous_z")  # no range: not angles or lengths one by one
_NQ = {"free": 7, "ball": 4, "hinge": 1, "slide": 1}
_NV = {"free": 6, "ball": 3, "hinge": 1, "slide": 1}


def _num(x) -> str:
    return " ".join(repr(float(a)) for a in np.ravel(x))


def _order(model) -> list[int]:
    """The joints in MuJoCo's order: depth first, children by index (as they are written)."""
    children: dict[int, list[int]] = {}
    for j in range(1, model.njoints):
        children.setdefault(int(model.jnt[j]["parent"]), []).append(j)
    out, stack = [], list(reversed(children.get(0, [])))
    while stack:
        j = stack.pop()
        out.append(j)
        stack.extend(reversed(children.get(j, [])))
    return out


def _joint_kinds(model, j: int) -> list[tuple[str, str, tuple]]:
    """(MuJoCo name, kind, axis) of the MuJoCo joints standing for fastdyn joint j."""
    t = model.joint_type(j)
    name = model.joint_names[j]
    if t not in _KINDS:
        raise ValueError(f"to_mjcf: joint {name!r} is {t}, which MuJoCo has no joint for "
                         f"(a helical joint needs an equality constraint: not written)")
    kinds = _KINDS[t]
    if t == "freeflyer" and int(model.jnt[j]["parent"]) != 0:
        raise ValueError(f"to_mjcf: freeflyer joint {name!r} is not on a root body (MuJoCo "
                         f"allows free joints only on children of the world)")
    prm = L.named(model.prm)[j]
    out = []
    for k, (kind, axis) in enumerate(kinds):
        if axis in ("axis", "axis2"):
            axis = tuple(float(a) for a in prm[axis])
        out.append((name if len(kinds) == 1 else f"{name}:{k}", kind, axis))
    return out


class MujocoMap:
    """fastdyn's (q, v, tau) and MuJoCo's (qpos, qvel, ctrl) of ``to_mjcf``'s twin of
    ``model``: the addresses follow the order the twin is written in, so no compiled MuJoCo
    model is needed to convert."""

    def __init__(self, model):
        self.model = model
        self.nq = self.nv = self.nu = 0
        self.joints = []  # (fastdyn joint, type name, qpos address, dof address, MuJoCo parts)
        self.actuated = []  # fastdyn dof index of each actuator, in ctrl order
        for j in _order(model):
            parts = _joint_kinds(model, j)
            self.joints.append((j, model.joint_type(j), self.nq, self.nv, parts))
            for _, kind, _ in parts:
                self.nq += _NQ[kind]
                self.nv += _NV[kind]
            if len(parts) == 1 and parts[0][1] in ("hinge", "slide"):
                self.actuated.append(int(model.jnt[j]["idx_v"]))
        self.nu = len(self.actuated)

    def to_mujoco(self, q, v) -> tuple[np.ndarray, np.ndarray]:
        """MuJoCo's (qpos, qvel) of fastdyn's (q, v)."""
        q, v = np.asarray(q, float), np.asarray(v, float)
        qpos, qvel = np.zeros(self.nq), np.zeros(self.nv)
        jnt = self.model.jnt
        for j, t, a, b, _ in self.joints:
            iq, iv = int(jnt[j]["idx_q"]), int(jnt[j]["idx_v"])
            nq, nv = int(jnt[j]["nq"]), int(jnt[j]["nv"])
            x, w = q[iq:iq + nq], v[iv:iv + nv]
            if t == "freeflyer":
                qpos[a:a + 7] = [*x[:3], x[6], *x[3:6]]
                qvel[b:b + 3] = _rotation(x[3:7]) @ w[:3]
                qvel[b + 3:b + 6] = w[3:]
            elif t == "spherical":
                qpos[a:a + 4] = [x[3], *x[:3]]
                qvel[b:b + 3] = w
            elif t.startswith("continuous"):
                qpos[a] = math.atan2(x[1], x[0])
                qvel[b] = w[0]
            elif t == "planar":
                qpos[a:a + 3] = [x[0], x[1], math.atan2(x[3], x[2])]
                qvel[b:b + 2] = _turn(x[2], x[3]) @ w[:2]
                qvel[b + 2] = w[2]
            else:
                qpos[a:a + nq] = x
                qvel[b:b + nv] = w
        return qpos, qvel

    def from_mujoco(self, qpos, qvel) -> tuple[np.ndarray, np.ndarray]:
        """fastdyn's (q, v) of MuJoCo's (qpos, qvel)."""
        qpos, qvel = np.asarray(qpos, float), np.asarray(qvel, float)
        q, v = np.zeros(self.model.nq), np.zeros(self.model.nv)
        jnt = self.model.jnt
        for j, t, a, b, _ in self.joints:
            iq, iv = int(jnt[j]["idx_q"]), int(jnt[j]["idx_v"])
            nq, nv = int(jnt[j]["nq"]), int(jnt[j]["nv"])
            if t == "freeflyer":
                q[iq:iq + 7] = [*qpos[a:a + 3], *qpos[a + 4:a + 7], qpos[a + 3]]
                v[iv:iv + 3] = _rotation(q[iq + 3:iq + 7]).T @ qvel[b:b + 3]
                v[iv + 3:iv + 6] = qvel[b + 3:b + 6]
            elif t == "spherical":
                q[iq:iq + 4] = [*qpos[a + 1:a + 4], qpos[a]]
                v[iv:iv + 3] = qvel[b:b + 3]
            elif t.startswith("continuous"):
                q[iq:iq + 2] = math.cos(qpos[a]), math.sin(qpos[a])
                v[iv] = qvel[b]
            elif t == "planar":
                c, s = math.cos(qpos[a + 2]), math.sin(qpos[a + 2])
                q[iq:iq + 4] = qpos[a], qpos[a + 1], c, s
                v[iv:iv + 2] = _turn(c, s).T @ qvel[b:b + 2]
                v[iv + 2] = qvel[b + 2]
            else:
                q[iq:iq + nq] = qpos[a:a + nq]
                v[iv:iv + nv] = qvel[b:b + nv]
        return q, v

    def ctrl(self, tau) -> np.ndarray:
        """MuJoCo's ctrl (the motors' order) of fastdyn's tau (nv,): the actuated dofs."""
        return np.asarray(tau, float)[self.actuated]


def _rotation(quat_xyzw) -> np.ndarray:
    x, y, z, w = quat_xyzw
    return quat_to_R((w, x, y, z))


def _turn(c: float, s: float) -> np.ndarray:
    return np.array([[c, -s], [s, c]])


def _inertial(body: ET.Element, pi: np.ndarray) -> None:
    """<inertial> of the dynamic parameters pi = [m, m c, Ixx Ixy Iyy Ixz Iyz Izz about the
    joint origin]: I_c = I_o - m ([c]^T [c]) (Featherstone RBDA eq. 2.63)."""
    m = float(pi[0])
    c = pi[1:4] / m if m > 0 else np.zeros(3)
    xx, xy, yy, xz, yz, zz = pi[4:10]
    Io = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    Ic = Io - m * (float(c @ c) * np.eye(3) - np.outer(c, c))
    ET.SubElement(body, "inertial", pos=_num(c), mass=repr(m),
                  fullinertia=_num([Ic[0, 0], Ic[1, 1], Ic[2, 2], Ic[0, 1], Ic[0, 2], Ic[1, 2]]))


def _placement(el: ET.Element, R: np.ndarray, p: np.ndarray) -> None:
    el.set("pos", _num(p))
    if not np.array_equal(R, np.eye(3)):
        el.set("xyaxes", _num(np.concatenate([R[:, 0], R[:, 1]])))


def to_mjcf(scene, path=None, *, rigid_solref=None, rigid_solimp=None) -> str:
    """The MJCF of ``scene``'s twin (see the module docstring); written to ``path`` too when
    given. ``rigid_solref`` / ``rigid_solimp``: the soft parameters that stand in for rigid
    half-spaces (default: MuJoCo's)."""
    if scene.constraints:  # (a twin without them would simulate another mechanism)
        raise NotImplementedError(
            f"to_mjcf: this scene has {len(scene.constraints)} constraints "
            f"(Scene.add_constraint); the twin does not write <equality> elements: load the "
            f"MJCF the constraints came from in MuJoCo instead")
    model = scene.model
    mapping = MujocoMap(model)  # refuses joints MuJoCo cannot have, before any writing
    opt = scene.opt
    root = ET.Element("mujoco", model=str(model.name))
    ET.SubElement(root, "compiler", angle="radian", autolimits="true", inertiafromgeom="false")
    ET.SubElement(root, "option", timestep=repr(float(opt[L.O_DT])),
                  gravity=_num(model.gravity), impratio=repr(float(opt[L.O_IMPRATIO])),
                  cone="elliptic", integrator="Euler")
    world = ET.SubElement(root, "worldbody")
    prm = L.named(model.prm)
    bodies = {0: world}
    own = _own_frames(model)
    limits = opt[L.O_LIMITS] > 0
    for j, t, _, _, parts in mapping.joints:
        body = ET.SubElement(bodies[int(model.jnt[j]["parent"])], "body",
                             name=own.get(j, model.joint_names[j]))
        bodies[j] = body
        _placement(body, prm[j]["R"], prm[j]["p"])
        _inertial(body, prm[j]["pi"])
        for k, (name, kind, axis) in enumerate(parts):
            el = ET.SubElement(body, "joint", name=name, type=kind)
            if kind in ("hinge", "slide"):
                el.set("axis", _num(axis))
            _dof_terms(el, model, j, k, kind)
            lo, hi = prm[j]["q_lower"][k], prm[j]["q_upper"][k]
            if limits and kind in ("hinge", "slide") and t not in _UNLIMITED and \
                    (np.isfinite(lo) or np.isfinite(hi)):
                el.set("range", _num([max(lo, -1e10), min(hi, 1e10)]))
    _sites(model, bodies, own)
    _contacts(scene, root, world, bodies, rigid_solref, rigid_solimp)
    names = {0: "world", **{j: own.get(j, model.joint_names[j]) for j in bodies if j}}
    write_geoms(scene, root, bodies, names, rigid_solref, rigid_solimp)
    actuators = ET.SubElement(root, "actuator")
    for j, t, _, _, parts in mapping.joints:
        if len(parts) == 1 and parts[0][1] in ("hinge", "slide"):
            e = float(prm[j]["effort_max"][0])
            el = ET.SubElement(actuators, "motor", name=parts[0][0], joint=parts[0][0], gear="1")
            if np.isfinite(e):
                el.set("ctrlrange", _num([-e, e]))
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode") + "\n"
    if path is not None:
        Path(path).write_text(text)
    return text


def _dof_terms(el: ET.Element, model, j: int, k: int, kind: str) -> None:
    """armature, damping, frictionloss of part k of joint j; a free or ball joint's are one
    number in MuJoCo, so its dofs must agree. Warns where the twin's step will differ."""
    prm = L.named(model.prm)[j]
    n = _NV[kind]
    name, t = model.joint_names[j], model.joint_type(j)
    linear = 2 if t == "planar" else 3
    if k == 0 and t in ("freeflyer", "planar") and np.any(prm["armature"][:linear]):
        warnings.warn(f"to_mjcf: joint {name!r} ({t}) has armature on its translation, which "
                      f"fastdyn (as Pinocchio) adds in the body's axes and MuJoCo in the "
                      f"world's: the twin's accelerations differ by armature x (w x v)",
                      MJCFWarning, stacklevel=4)
    if k == 0 and np.any(prm["friction"][:int(model.jnt[j]["nv"])]):
        warnings.warn(f"to_mjcf: joint {name!r} has dry friction, a rigid row in fastdyn and "
                      f"a soft constraint (frictionloss) in MuJoCo: the twin's steps differ "
                      f"while it sticks", MJCFWarning, stacklevel=4)
    for attr, field in (("armature", "armature"), ("damping", "damping"),
                        ("frictionloss", "friction")):
        x = prm[field][k:k + n]
        if np.any(x != x[0]):
            raise ValueError(f"to_mjcf: joint {model.joint_names[j]!r} has {field} "
                             f"{x.tolist()}; MuJoCo's {kind} joint takes one value for all "
                             f"its dofs")
        if x[0] != 0:
            el.set(attr, repr(float(x[0])))


def _own_frames(model) -> dict[int, str]:
    """joint -> the name of the body frame fastdyn placed at that joint's origin (the link the
    joint moves), which names the twin's body."""
    own = {}
    for f in range(model.frm.shape[0]):
        fr = model.frm[f]
        j = int(fr["parent_joint"])
        if fr["type"] == L.BODY_FRAME and j > 0 and j not in own and \
                np.array_equal(fr["R"], np.eye(3)) and not np.any(fr["p"]):
            own[j] = model.frame_names[f]
    return own


def _sites(model, bodies: dict, own: dict) -> None:
    """Every frame that is not a body's own or a joint's as a site on its joint's body."""
    taken = set(own.values())
    for f in range(model.frm.shape[0]):
        fr = model.frm[f]
        name = model.frame_names[f]
        if name in taken or fr["type"] == L.JOINT_FRAME or int(fr["parent_joint"]) not in bodies:
            continue
        el = ET.SubElement(bodies[int(fr["parent_joint"])], "site", name=name, size="0.005")
        _placement(el, fr["R"], fr["p"])


def _contacts(scene, root, world, bodies, rigid_solref, rigid_solimp) -> None:
    """Sphere geoms, plane geoms, and one <pair> per (sphere, half-space); the planes meet
    the scene's collision geoms (mjcf_twin_geoms.py) through MuJoCo's filter."""
    geoms = bool(scene._geoms)
    if not len(scene.halfspaces) or not (len(scene.spheres) or geoms):
        return
    contact = ET.SubElement(root, "contact")
    names = []
    for s, sp in enumerate(scene.spheres):
        name = f"sphere:{scene.sphere_names[s]}"
        names.append(name)
        ET.SubElement(bodies[int(sp["joint"])], "geom", name=name, type="sphere",
                      size=repr(max(float(sp["radius"]), 1e-9)), pos=_num(sp["p"]),
                      contype="0", conaffinity="0")
    for e, h in enumerate(scene.halfspaces):
        n, t1, t2 = h[L.H_N:L.H_N + 3], h[L.H_T1:L.H_T1 + 3], h[L.H_T2:L.H_T2 + 3]
        plane = f"halfspace:{e}"
        el = ET.SubElement(world, "geom", name=plane, type="plane", size="0 0 1",
                           contype=str(int(geoms)), conaffinity=str(int(geoms)))
        _placement(el, np.column_stack([t1, t2, n]), h[L.H_OFFSET] * n)
        soft = h[L.H_SOLREF:L.H_SOLIMP + 5]
        mu = float(h[L.H_MU])
        if geoms:  # what its contacts with the geoms take (scene_geoms.planes)
            el.set("condim", "3")
            el.set("friction", _num([mu, 0.005, 0.0001]))
            ref, imp = (soft[:2], soft[2:]) if np.any(soft) else (rigid_solref, rigid_solimp)
            if ref is not None:
                el.set("solref", _num(ref))
            if imp is not None:
                el.set("solimp", _num(imp))
        for name in names:
            pair = ET.SubElement(contact, "pair", geom1=name, geom2=plane, condim="3",
                                 friction=_num([mu, mu, 0.005, 0.0001, 0.0001]))
            if np.any(soft):
                pair.set("solref", _num(soft[:2]))
                pair.set("solimp", _num(soft[2:]))
            else:
                if rigid_solref is not None:
                    pair.set("solref", _num(rigid_solref))
                if rigid_solimp is not None:
                    pair.set("solimp", _num(rigid_solimp))
