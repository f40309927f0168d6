"""The simulator: ``Scene`` (contact, joint limits, friction, PD or a user's @njit policy),
its rollouts and one-step calls with their derivatives, and ``simulate`` (contact-free
semi-implicit Euler).

    import fastdyn as fd
    scene = fd.Scene(model, dt=1e-3)
    scene.add_ground()
    roll = scene.rollout(q0, v0, steps=1000)
    scene, q, kp, kd = fd.sim.standing_scene()   # the bundled quadruped, feet on the ground
"""

from .scene import Rollout, Scene
from .simulation import simulate
from .standing import (QUADRUPED_FEET, QUADRUPED_FOOT_RADIUS, StandingScene, place_on_ground,
                       standing_scene)

__all__ = ["Scene", "Rollout", "simulate", "standing_scene", "StandingScene", "place_on_ground",
           "QUADRUPED_FEET", "QUADRUPED_FOOT_RADIUS"]
