"""A legged robot standing on the ground, ready to simulate.

``place_on_ground(model, q, feet, radius)`` moves a free-flying base vertically until the
lowest of its feet touches the plane z = 0; ``standing_scene()`` is the bundled quadruped
standing that way in a Scene with PD gains that hold it, the first simulation of the README
and of ``python -m fastdyn.examples.rollouts``:

    scene, q, kp, kd = fd.sim.standing_scene()
    out = scene.rollout(q, np.zeros(scene.model.nv), 1000, kp=kp, kd=kd)
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from .. import models
from .._internal import checks as _checks
from ..configuration import neutral
from ..kernels.joints import codes
from ..kinematics import forward_kinematics, update_frame_placements
from ..model import Model
from .scene import Scene

__all__ = ["StandingScene", "place_on_ground", "standing_scene", "QUADRUPED_FEET",
           "QUADRUPED_FOOT_RADIUS"]

QUADRUPED_FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")  # the bundled quadruped's feet
QUADRUPED_FOOT_RADIUS = 0.016  # [m] the contact spheres standing_scene puts on them


class StandingScene(NamedTuple):
    """What ``standing_scene`` returns: the scene, the standing configuration q (nq,) and the
    PD gains kp, kd (nv,) that hold it (zero on the free-flyer's six dofs)."""
    scene: Scene
    q: np.ndarray
    kp: np.ndarray
    kd: np.ndarray


def place_on_ground(model: Model, q, feet: Sequence[str | int], radius: float = 0.0) -> np.ndarray:
    """A copy of q with the free-flyer base moved along the world z axis so that the lowest of
    the frames ``feet`` is at height ``radius`` (a contact sphere of that radius centred on the
    frame then touches the plane z = 0). The root joint must be a free-flyer (its q[2] is the
    base height in the world); nothing else changes."""
    _checks.model_arg(model)
    if model.njoints < 2 or int(model.jnt[1]["type"]) != codes.FREEFLYER:
        raise ValueError(f"place_on_ground: model {model.name!r} has no free-flyer root joint "
                         "(load it with root_joint='freeflyer')")
    q = np.array(_checks.vector(q, model.nq, "q"))
    frames = [_checks.frame_index(model, f) for f in feet]
    if not frames:
        raise ValueError("place_on_ground: no feet given")
    data = model.create_data()
    forward_kinematics(model, data, q)
    update_frame_placements(model, data)
    q[int(model.jnt[1]["idx_q"]) + 2] -= min(data.oMf_p[f][2] for f in frames) - radius
    return q


def standing_scene(dt: float = 1e-3, mu: float = 0.8, kp: float = 5.0,
                   kd: float = 0.2) -> StandingScene:
    """The bundled quadruped (``fastdyn.models.load("quadruped")``) on the plane z = 0 with
    friction ``mu``, a contact sphere of ``QUADRUPED_FOOT_RADIUS`` on each foot, in a crouched
    pose (hip flexion 0.8 rad, knee -1.6 rad, mirrored on the hind legs) with its feet on the
    ground, and PD gains ``kp`` [N m/rad] and ``kd`` [N m s/rad] on the twelve leg joints that
    hold it there (``scene.rollout(Q0, V0, steps, kp=kp, kd=kd)`` holds each rollout's
    initial pose, its default reference)."""
    model = models.load("quadruped")
    q = neutral(model)
    for leg in ("FL", "FR", "HL", "HR"):
        s = 1.0 if leg[0] == "F" else -1.0
        q[model.jnt[model.joint_id(leg + "_HFE")]["idx_q"]] = 0.8 * s
        q[model.jnt[model.joint_id(leg + "_KFE")]["idx_q"]] = -1.6 * s
    q = place_on_ground(model, q, QUADRUPED_FEET, QUADRUPED_FOOT_RADIUS)
    scene = Scene(model, dt=dt, mu=mu)
    for f in QUADRUPED_FEET:
        scene.add_sphere(f, QUADRUPED_FOOT_RADIUS)
    legs = model.nv - 6
    return StandingScene(scene, q, np.r_[np.zeros(6), np.full(legs, float(kp))],
                         np.r_[np.zeros(6), np.full(legs, float(kd))])
