"""The viewer's nodes: what is drawn on which frame or joint of the model, and where each one
is in the world at a configuration (fastdyn's own forward kinematics)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..io.description import Visual
from ..io.visuals import link_frame
from ..kernels import layout as L
from ..kinematics import forward_kinematics, update_frame_placements
from . import shapes

__all__ = ["Node", "visual_nodes", "bone_nodes", "scene_nodes", "frame_nodes", "placements"]


@dataclass
class Node:
    """One node of the scene graph: ``parts`` (shapes.py) drawn at ``local`` (4x4) in the
    frame (``on`` "frame") or joint (``on`` "joint") ``index`` of the model."""
    name: str
    on: str
    index: int
    local: np.ndarray
    parts: list


def safe(name: str) -> str:
    """A meshcat path component: no "/" (its separator) and no spaces."""
    return re.sub(r"[/\s]+", "_", name)


def visual_nodes(model, visuals: dict[str, list[Visual]], meshes: dict, opacity: float,
                 fallback: float) -> list[Node]:
    out = []
    for link, items in visuals.items():
        f = link_frame(model, link, "link")
        for i, v in enumerate(items):
            what = f"link {link!r} visual {i} ({v.mesh})"
            out.append(Node(f"{safe(link)}_{i}", "frame", f, shapes.placement(v.R, v.p),
                            shapes.visual(v, what, meshes, opacity, fallback)))
    return out


def bone_nodes(model, opacity: float) -> list[Node]:
    """A model without visuals: at each joint a sphere, and a cylinder to each child joint
    and to each link merged into it by a fixed joint (its BODY frame away from the joint)."""
    tips = {j: [] for j in range(model.njoints)}
    for j in range(1, model.njoints):
        tips[int(model.jnt[j]["parent"])].append(model.prm[j, L.P_P:L.P_P + 3].copy())
    for f in range(model.nframes):
        fr = model.frm[f]
        if int(fr["type"]) == L.BODY_FRAME and np.linalg.norm(fr["p"]) > 1e-9:
            tips[int(fr["parent_joint"])].append(np.array(fr["p"]))
    lengths = [np.linalg.norm(d) for ds in tips.values() for d in ds if np.linalg.norm(d) > 0]
    radius = float(np.clip(0.08 * np.median(lengths), 0.004, 0.04)) if lengths else 0.02
    mat = shapes.material(shapes.GREY, opacity)
    out = []
    for j in range(1, model.njoints):
        name = safe(model.joint_names[j])
        out.append(Node(f"{name}_joint", "joint", j, np.eye(4),
                        shapes.bone(np.zeros(3), radius, mat)[:1]))
        for k, d in enumerate(tips[j]):
            out.append(Node(f"{name}_bone{k}", "joint", j, np.eye(4),
                            shapes.bone(d, radius, mat)[1:]))
    return out


def scene_nodes(scene, opacity: float) -> list[Node]:
    """A Scene's contact spheres (a point: a 5 mm ball) on their joints."""
    mat = shapes.material(shapes.CONTACT, opacity)
    out = []
    for s, name in enumerate(scene.sphere_names):
        row = scene.spheres[s]
        r = max(float(row["radius"]), 0.005)
        out.append(Node(f"{safe(name)}", "joint", int(row["joint"]),
                        shapes.placement(np.eye(3), row["p"]),
                        shapes.primitive("sphere", (r,), mat)))
    return out


def frame_nodes(model, frames, scale: float) -> list[Node]:
    """Axes on the frames given by name or index ("all": every frame)."""
    if isinstance(frames, str) and frames == "all":
        frames = range(model.nframes)
    out = []
    for f in frames:
        i = model.frame_id(f) if isinstance(f, str) else int(f)
        if not 0 <= i < model.nframes:
            raise IndexError(f"frame index {i} is out of range 0..{model.nframes - 1}")
        out.append(Node(safe(model.frame_names[i]), "frame", i, np.eye(4), shapes.triad(scale)))
    return out


def placements(model, data, q, nodes: list[Node], offset) -> np.ndarray:
    """(len(nodes), 4, 4) world placements of ``nodes`` at configuration q, moved by offset."""
    forward_kinematics(model, data, q)
    update_frame_placements(model, data)
    P = np.empty((len(nodes), 4, 4))
    for k, n in enumerate(nodes):
        R, p = (data.oMf_R[n.index], data.oMf_p[n.index]) if n.on == "frame" else \
            (data.oMi_R[n.index], data.oMi_p[n.index])
        P[k] = np.eye(4)
        P[k, :3, :3] = R @ n.local[:3, :3]
        P[k, :3, 3] = R @ n.local[:3, 3] + p + offset
    return P
