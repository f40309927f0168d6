"""See a model, its scene and its rollouts: ``Viewer`` (meshcat, the optional extra ``view``).

    import fastdyn as fd
    viewer = fd.Viewer(model, "robot.urdf", scene=scene)   # visuals from the robot's file
    viewer.animate(rollout, dt=scene.dt, forces=True)
    viewer.save("rollout.html")          # a page that replays it offline; viewer.open(): live
    fastdyn.view.show(model, q, path="pose.html")           # one call

fastdyn/docs/guide-viewer.md is the guide.
"""

from __future__ import annotations

import numpy as np

from ..sim.scene import Rollout
from .viewer import Viewer

__all__ = ["Viewer", "show"]


def show(model, q=None, *, visuals=None, scene=None, path=None, live: bool = False,
         **kwargs) -> Viewer:
    """A ``Viewer`` of ``model`` (or a Scene) at q (nq,), N configurations (N, nq), or an
    animated trajectory (T, nq), batch (N, T, nq) or Rollout (``kwargs`` go to
    ``Viewer.animate``: dt, fps, overlay, forces ...); None: the neutral configuration.
    ``path``: write the page there; ``live``: also open meshcat's server and print its
    URL. Returns the viewer."""
    anim = {k: kwargs.pop(k) for k in ("dt", "fps", "overlay", "forces", "force_scale",
                                       "repetitions") if k in kwargs}
    viewer = Viewer(model, visuals, scene=scene, **kwargs)
    if isinstance(q, Rollout) or (q is not None and np.ndim(q) == 3) or anim:
        viewer.animate(q, **anim)
    elif q is not None:
        viewer.display(q)
    if path is not None:
        print(f"fastdyn viewer: wrote {viewer.save(path)}")
    if live:
        viewer.open()
    return viewer
