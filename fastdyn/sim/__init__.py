"""The simulator: ``Scene`` (contact, joint limits, friction, PD or a user's @njit policy),
its rollouts and one-step calls with their derivatives, and ``simulate`` (contact-free
semi-implicit Euler).

    import fastdyn as fd
    scene = fd.Scene(model, dt=1e-3)
    scene.add_ground()
    roll = scene.rollout(q0, v0, steps=1000)
"""

from .scene import Rollout, Scene
from .simulation import simulate

__all__ = ["Scene", "Rollout", "simulate"]
