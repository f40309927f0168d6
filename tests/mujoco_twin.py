"""MuJoCo twins of fastdyn models: the same URDF compiled by MuJoCo, and the state conversions
between the two (tests/test_simulator_mujoco.py and bench/test_simulator.py use them).

State conventions:
- configuration: fastdyn (Pinocchio) stores a free-flyer as [x y z qx qy qz qw] (quaternion
  w LAST); MuJoCo's free joint as [x y z qw qx qy qz] (w FIRST);
- velocity: fastdyn's free-flyer velocity is [v; w], both in the BODY frame (Pinocchio's
  LOCAL); MuJoCo's free-joint qvel has the linear velocity of the body origin in WORLD axes and
  the angular velocity in body axes: v_fastdyn = R^T v_mujoco, w_fastdyn = w_mujoco, with R the
  base orientation;
- the other joints (revolute, prismatic) are matched by name, one coordinate each.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import mujoco
import numpy as np

import fastdyn as fd
from fastdyn.kernels import layout as L

# URDF elements MuJoCo would act on and fastdyn's contact-free rollouts do not have: meshes
# (MuJoCo cannot resolve package:// paths), transmissions and simulator extensions, mimic
# couplings (fastdyn ignores them), joint damping and dry friction (removed on both sides).
STRIPPED = ("visual", "collision", "mimic", "dynamics", "transmission", "gazebo")


def bare_urdf(path) -> str:
    """The URDF at ``path`` without the STRIPPED elements, as a string."""
    root = ET.parse(str(path)).getroot()
    for parent in root.iter():
        for child in list(parent):
            if child.tag in STRIPPED:
                parent.remove(child)
    return ET.tostring(root, encoding="unicode")


def bare_model(model: fd.Model) -> fd.Model:
    """``model`` without position, effort limits, damping and dry friction: the contact-free
    dynamics only (no constraint rows in a Scene step)."""
    prm = np.array(model.prm)
    for i in range(1, model.njoints):
        prm[i, L.P_Q_LOWER:L.P_Q_LOWER + 7] = -np.inf
        prm[i, L.P_Q_UPPER:L.P_Q_UPPER + 7] = np.inf
        prm[i, L.P_EFFORT_MAX:L.P_EFFORT_MAX + 6] = np.inf
        prm[i, L.P_DAMPING:L.P_DAMPING + 6] = 0.0
        prm[i, L.P_FRICTION:L.P_FRICTION + 6] = 0.0
    return model.with_parameters(prm)


def spec(model: fd.Model, urdf_path, dt: float) -> mujoco.MjSpec:
    """MuJoCo's spec of the bare URDF, a free joint "root_joint" on the root body when
    ``model`` has a free-flyer, timestep dt, inertias from the URDF only (never from geoms)."""
    s = mujoco.MjSpec.from_string(bare_urdf(urdf_path))
    s.option.timestep = dt
    s.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    if model.joint_type(1) == "freeflyer":
        s.worldbody.first_body().add_freejoint(name=model.joint_names[1])
    return s


class Twin:
    """A fastdyn model and its compiled MuJoCo twin, with the coordinate maps between them."""

    def __init__(self, model: fd.Model, m: mujoco.MjModel):
        if (m.nq, m.nv) != (model.nq, model.nv):
            raise ValueError(f"MuJoCo twin has nq, nv = {m.nq}, {m.nv}; fastdyn {model.nq}, "
                             f"{model.nv}")
        self.model, self.m = model, m
        self.free = model.joint_type(1) == "freeflyer"
        qi, vi = [], []  # fastdyn index -> MuJoCo index, joints after the root
        for j in range(2 if self.free else 1, model.njoints):
            jm = m.joint(model.joint_names[j])
            if model.jnt[j]["nq"] != 1 or model.jnt[j]["nv"] != 1:
                raise ValueError(f"joint {model.joint_names[j]!r}: only 1-dof joints map")
            qi.append((model.jnt[j]["idx_q"], jm.qposadr[0]))
            vi.append((model.jnt[j]["idx_v"], jm.dofadr[0]))
        self.qf, self.qm = (np.array(x, dtype=int) for x in zip(*qi))
        self.vf, self.vm = (np.array(x, dtype=int) for x in zip(*vi))
        if self.free:
            root = m.joint(model.joint_names[1])
            self.qroot, self.vroot = int(root.qposadr[0]), int(root.dofadr[0])

    def joint_refs(self, q: np.ndarray) -> np.ndarray:
        """MuJoCo's actuator order: the position of each actuated joint in ``q`` (fastdyn),
        for actuators named after their joints."""
        return np.array([q[self.model.jnt[self.model.joint_id(self.m.actuator(a).name)]
                           ["idx_q"]] for a in range(self.m.nu)])

    def to_mujoco(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        qpos, qvel = np.zeros(self.m.nq), np.zeros(self.m.nv)
        qpos[self.qm], qvel[self.vm] = q[self.qf], v[self.vf]
        if self.free:
            a, b = self.qroot, self.vroot
            qpos[a:a + 3] = q[:3]
            qpos[a + 3], qpos[a + 4:a + 7] = q[6], q[3:6]
            qvel[b:b + 3] = rotation(q[3:7]) @ v[:3]
            qvel[b + 3:b + 6] = v[3:6]
        return qpos, qvel

    def from_mujoco(self, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q, v = np.zeros(self.model.nq), np.zeros(self.model.nv)
        q[self.qf], v[self.vf] = qpos[self.qm], qvel[self.vm]
        if self.free:
            a, b = self.qroot, self.vroot
            q[:3] = qpos[a:a + 3]
            q[3:6], q[6] = qpos[a + 4:a + 7], qpos[a + 3]
            v[:3] = rotation(q[3:7]).T @ qvel[b:b + 3]
            v[3:6] = qvel[b + 3:b + 6]
        return q, v

    def initial_states(self, Q: np.ndarray, V: np.ndarray) -> np.ndarray:
        """mujoco.rollout's initial states (N, nstate: mjSTATE_FULLPHYSICS) of fastdyn's rows."""
        d = mujoco.MjData(self.m)
        spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
        out = np.empty((Q.shape[0], mujoco.mj_stateSize(self.m, spec)))
        for r in range(Q.shape[0]):
            mujoco.mj_resetData(self.m, d)
            d.qpos[:], d.qvel[:] = self.to_mujoco(Q[r], V[r])
            mujoco.mj_getState(self.m, d, out[r], spec)
        return out

    def qpos_qvel(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """qpos, qvel inside an mjSTATE_FULLPHYSICS state (time first)."""
        return state[1:1 + self.m.nq], state[1 + self.m.nq:1 + self.m.nq + self.m.nv]


def rotation(quat_xyzw) -> np.ndarray:
    x, y, z, w = quat_xyzw
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def contact_free(model: fd.Model, urdf_path, dt: float = 1e-3) -> Twin:
    """The contact-free twin: no geometry, MuJoCo's contacts and limits disabled (and
    fastdyn's ``bare_model`` on the other side); zero-torque rollouts need no actuator."""
    s = spec(model, urdf_path, dt)
    s.option.disableflags |= (mujoco.mjtDisableBit.mjDSBL_CONTACT
                              | mujoco.mjtDisableBit.mjDSBL_LIMIT)
    return Twin(model, s.compile())


def standing(model: fd.Model, urdf_path, feet, radius: float, mu: float, kp: float,
             kd: float, dt: float = 1e-3, impratio: float = 1.0, noslip: int = 0) -> Twin:
    """The legged robot on the plane z = 0: a sphere of ``radius`` at each frame of ``feet``
    (on the body of the frame's parent joint, at the frame's position), plane and spheres
    with friction ``mu`` (condim 3, MuJoCo's elliptic cone), only sphere-plane contacts (the
    spheres have contype 1 / conaffinity 0, the plane the reverse). Every joint but the root
    gets a position actuator "kp, kv = kd" named after it: with ctrl = q_ref its force is
    kp (q_ref - q) - kd v, fastdyn's PD (clamped to the URDF's effort limits, which MuJoCo
    reads as the joints' actuator force ranges, as fastdyn clamps its torques). MuJoCo's
    default solver (Newton), default solref/solimp; ``impratio`` and ``noslip``
    (noslip_iterations) as given."""
    s = spec(model, urdf_path, dt)
    s.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    s.option.impratio = impratio
    s.option.noslip_iterations = noslip
    s.worldbody.add_geom(name="ground", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1],
                         contype=0, conaffinity=1, condim=3, friction=[mu, 0, 0])
    for f in feet:
        fr = model.frm[model.frame_id(f) if isinstance(f, str) else f]
        body = s.joint(model.joint_names[fr["parent_joint"]]).parent
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[radius, 0, 0],
                      pos=np.asarray(fr["p"], float), contype=1, conaffinity=0, condim=3,
                      friction=[mu, 0, 0])
    for j in range(2, model.njoints):
        name = model.joint_names[j]
        s.add_actuator(name=name, target=name,
                       trntype=mujoco.mjtTrn.mjTRN_JOINT).set_to_position(kp=kp, kv=kd)
    return Twin(model, s.compile())
