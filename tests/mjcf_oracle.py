"""MuJoCo as the MJCF oracle: the same file compiled by MuJoCo, compared with fastdyn's Model.

States (``states``): fastdyn's q is MuJoCo's qpos, but quaternions are (x, y, z, w) in
fastdyn and (w, x, y, z) in MuJoCo (hinge and slide joints are numbered alike, ``ref``
included: the Model's joint frame is turned back by it). A free joint's linear velocity is in
the body frame in fastdyn (v = R^T qvel[:3], R the body's orientation) and in the world in
MuJoCo; angular velocities are in the body frame in both. So qvel = T v with T = diag(R, I3)
on each free joint (identity elsewhere), qacc = T a + [R (w x v_lin); 0] (the derivative of
R), MuJoCo's generalized forces are T^-T ours (T is a rotation: T^-T = T) and its mass matrix
T^-T M T^-1.

Dynamics (``dynamics_errors``): MuJoCo's ``mj_rne`` with flg_acc=1 gives M qacc + bias
without the armature, which MuJoCo adds to its mass matrix only, so the armature term is
added to compare with fastdyn's RNEA (which has it, as Pinocchio's); ``qfrc_bias`` against
the nonlinear effects; ``mj_fullM`` (armature included) against CRBA; ``mj_forward``'s qacc with constraints, springs, dampers and
actuation disabled (``m.opt.disableflags``) and the torques in ``qfrc_applied`` against ABA.
"""

from __future__ import annotations

import numpy as np

import fastdyn as fd
from fastdyn.kernels import layout
from fastdyn.io import _mjcf_math

import mujoco

FREE, BALL = int(mujoco.mjtJoint.mjJNT_FREE), int(mujoco.mjtJoint.mjJNT_BALL)
OFF = (mujoco.mjtDisableBit.mjDSBL_CONSTRAINT | mujoco.mjtDisableBit.mjDSBL_SPRING
       | mujoco.mjtDisableBit.mjDSBL_DAMPER | mujoco.mjtDisableBit.mjDSBL_ACTUATION)


def mj_load(path) -> mujoco.MjModel:
    m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.disableflags |= int(OFF)
    return m


def mj_name(m: mujoco.MjModel, kind: str, k: int) -> str:
    """MuJoCo's name of element k, or fastdyn's for an unnamed one (its MuJoCo id)."""
    obj = {"body": m.body, "joint": m.joint, "site": m.site}[kind](k)
    return obj.name or f"{kind}{k}"


def states(m: mujoco.MjModel, rng):
    """(q, v, a, qpos, qvel, qacc, T) at random: the same state in both conventions."""
    q, qpos = np.zeros(m.nq), m.qpos0.copy()
    v, a = rng.normal(size=m.nv), rng.normal(size=m.nv)
    T = np.eye(m.nv)
    for j in range(m.njnt):
        t, i, k = int(m.jnt_type[j]), int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j])
        if t in (FREE, BALL):
            o = 3 if t == FREE else 0
            w = rng.normal(size=4)
            w /= np.linalg.norm(w)
            qpos[i + o:i + o + 4] = w
            q[i + o:i + o + 4] = w[[1, 2, 3, 0]]
            if t == FREE:
                qpos[i:i + 3] = q[i:i + 3] = rng.uniform(-1, 1, 3)
                T[k:k + 3, k:k + 3] = _mjcf_math.quat_to_R(w)
        else:
            qpos[i] = q[i] = m.qpos0[i] + rng.uniform(-1.5, 1.5)
    return q, v, a, qpos, T @ v, mj_acc(m, T, v, a), T


def q_of(m: mujoco.MjModel, qpos) -> np.ndarray:
    """fastdyn's q of MuJoCo's qpos: the quaternions reordered, (w, x, y, z) -> (x, y, z, w)."""
    q = np.array(qpos, dtype=np.float64)
    for j in np.flatnonzero((m.jnt_type == FREE) | (m.jnt_type == BALL)):
        i = int(m.jnt_qposadr[j]) + (3 if m.jnt_type[j] == FREE else 0)
        q[i:i + 4] = q[[i + 1, i + 2, i + 3, i]]
    return q


def mj_acc(m, T, v, a):
    """MuJoCo's qacc of fastdyn's a: T a plus, on free joints, R (w x v_lin)."""
    out = T @ a
    for j in np.flatnonzero(m.jnt_type == FREE):
        k = int(m.jnt_dofadr[j])
        out[k:k + 3] += T[k:k + 3, k:k + 3] @ np.cross(v[k + 3:k + 6], v[k:k + 3])
    return out


def relative(x, ref) -> float:
    return float(np.abs(np.asarray(x) - ref).max() / max(1.0, float(np.abs(ref).max())))


def dynamics_errors(model: fd.Model, m: mujoco.MjModel, nstates: int = 3, seed: int = 0):
    """Largest relative differences (RNEA, nonlinear effects, M, ABA) over ``nstates`` random
    states. MuJoCo's qfrc_bias is C(q, qvel) qvel + g(q) in its coordinates: with a = 0,
    qacc = R (w x v_lin) on free joints, so fastdyn's nonlinear effects are
    T^T (qfrc_bias + M (R (w x v_lin)))."""
    d, data = mujoco.MjData(m), model.create_data()
    rng = np.random.default_rng(seed)
    worst = np.zeros(4)
    for _ in range(nstates):
        q, v, a, qpos, qvel, qacc, T = states(m, rng)
        d.qpos[:], d.qvel[:] = qpos, qvel
        mujoco.mj_forward(m, d)
        M = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, M)
        nle = fd.non_linear_effects(model, data, q, v).copy()
        e_nle = relative(nle, T.T @ (d.qfrc_bias + M @ mj_acc(m, T, v, np.zeros(m.nv))))
        d.qacc[:] = qacc
        rne = np.zeros(m.nv)
        mujoco.mj_rne(m, d, 1, rne)
        tau = fd.rnea(model, data, q, v, a).copy()
        e_rnea = relative(tau, T.T @ (rne + m.dof_armature * qacc))
        Mf = fd.crba(model, data, q)
        Mf = np.triu(Mf) + np.triu(Mf, 1).T
        e_crba = relative(Mf, T.T @ M @ T)
        tau = rng.normal(size=m.nv)
        d.qfrc_applied[:] = np.linalg.solve(T.T, tau)
        mujoco.mj_forward(m, d)
        acc = fd.aba(model, data, q, v, tau).copy()
        e_aba = relative(mj_acc(m, T, v, acc), d.qacc)
        worst = np.maximum(worst, (e_rnea, e_nle, e_crba, e_aba))
    return worst


def _frame(model: fd.Model, name: str, kind: int) -> int:
    return next(k for k, (n, f) in enumerate(zip(model.frame_names, model.frm))
                if n == name and f["type"] == kind)


def frame_errors(model: fd.Model, m: mujoco.MjModel, nstates: int = 2, seed: int = 1) -> float:
    """Largest difference of every body's and site's world placement (position and rotation
    matrix entries) at random configurations."""
    d, data = mujoco.MjData(m), model.create_data()
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(nstates):
        q, _, _, qpos, _, _, _ = states(m, rng)
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        fd.forward_kinematics(model, data, q)
        for kind, n, xpos, xmat, ftype in (
                ("body", m.nbody, d.xpos, d.xmat, layout.BODY_FRAME),
                ("site", m.nsite, d.site_xpos, d.site_xmat, layout.OP_FRAME)):
            for k in range(1 if kind == "body" else 0, n):
                T = fd.frame_placement(model, data, _frame(model, mj_name(m, kind, k), ftype))
                worst = max(worst, float(np.abs(T[:3, 3] - xpos[k]).max()),
                            float(np.abs(T[:3, :3] - xmat[k].reshape(3, 3)).max()))
    return worst


def inertia_errors(description, m: mujoco.MjModel) -> float:
    """Largest relative difference of each body's mass, centre of mass and inertia tensor
    (MuJoCo's body_mass, body_ipos, R(body_iquat) diag(body_inertia) R^T), in its frame."""
    links = {lk.name: lk for lk in description.links}
    worst = 0.0
    for k in range(1, m.nbody):
        i = links[mj_name(m, "body", k)].inertial
        R = _mjcf_math.quat_to_R(m.body_iquat[k])
        I = R @ np.diag(m.body_inertia[k]) @ R.T
        got = (0.0, np.zeros(3), np.zeros((3, 3))) if i is None else (i.mass, i.com, i.inertia)
        scale = max(1e-300, float(np.abs(I).max()))
        worst = max(worst, abs(got[0] - m.body_mass[k]) / max(1.0, m.body_mass[k]),
                    float(np.abs(got[1] - m.body_ipos[k]).max()),
                    float(np.abs(got[2] - I).max()) / max(scale, 1e-12))
    return worst


def joint_errors(model: fd.Model, m: mujoco.MjModel) -> list[str]:
    """What differs in the joints: names and order, armature, damping, dry friction, limits."""
    out = []
    names = [mj_name(m, "joint", k) for k in range(m.njnt)]
    if list(model.joint_names[1:]) != names:
        return [f"joint names {model.joint_names[1:]} != MuJoCo's {names}"]
    for field, ref in (("armature", m.dof_armature), ("damping", m.dof_damping),
                       ("friction", m.dof_frictionloss)):
        if not np.allclose(getattr(model, field), ref, rtol=1e-12, atol=0):
            out.append(f"{field} {getattr(model, field)} != {ref}")
    for j in range(m.njnt):
        if int(m.jnt_type[j]) in (FREE, BALL):
            continue
        i = int(m.jnt_qposadr[j])
        lo, hi = model.lower_position_limit[i], model.upper_position_limit[i]
        want = m.jnt_range[j] if m.jnt_limited[j] else (-np.inf, np.inf)
        if not np.allclose((lo, hi), want, rtol=1e-12, atol=1e-15):
            out.append(f"limits of {names[j]}: {(lo, hi)} != {tuple(want)}")
    return out
