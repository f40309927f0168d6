"""``Viewer``: a model, its scene and its rollouts drawn with meshcat, live or as an HTML file.

    viewer = fd.Viewer(model, "robot.urdf", scene=scene, frames=["FL_FOOT"])
    viewer.display(q)                          # one configuration
    viewer.animate(out, dt=scene.dt, forces=True)   # a Rollout (or Q (T, nq), (N, T, nq))
    viewer.save("rollout.html")                # replays offline, no network
    viewer.open()                              # or live: prints the URL of meshcat's server

meshcat (Pinocchio's, Drake's and RigidBodyDynamics.jl's viewer: three.js in a browser) is
the optional extra ``view``; placements are fastdyn's forward kinematics.
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from ..sim.scene import Rollout, Scene
from . import graph, shapes
from .record import Recorder, html_page
from .trajectory import check_trajectories, grid_offsets, hold_last_finite, sample_times

__all__ = ["Viewer"]


def meshcat_module():
    """meshcat, or an ImportError saying how to install the extra."""
    try:
        import meshcat
        import meshcat.animation
    except ImportError as e:
        raise ImportError("fastdyn's viewer needs meshcat and trimesh: pip install "
                          "'fastdyn[view]'") from e
    return meshcat


class Viewer:
    """A model drawn in meshcat: its visuals, else a stick figure, its scene's contact
    spheres and half-spaces, axes on ``frames``.

    ``visuals``: None (the stick figure: spheres at the joints, cylinders between them), the
    URDF or MJCF file the model came from (its meshes and primitives,
    ``fastdyn.io.visuals.load_visuals(path, package_dirs)``), or that function's dict.
    A mesh file that is missing or unreadable is drawn as a sphere of ``fallback_radius``,
    with a ``fastdyn.errors.MeshWarning`` naming it. ``scene``: a ``fastdyn.Scene`` whose
    contact spheres and half-spaces are drawn (or give the Scene as ``model``).
    ``frames``: names or indices of frames drawn as axes ``axes`` long ("all": all).
    ``ground_size``: the width [m] of each half-space's slab.

    Every command goes to a ``Recorder`` (``viewer.recorder``, the scene graph), which
    ``save``/``html`` write to a page, and to meshcat's server once ``open`` started one."""

    def __init__(self, model, visuals=None, *, scene: Scene | None = None,
                 package_dirs: Sequence[str] = (), frames=(), axes: float = 0.1,
                 ground_size: float = 4.0, fallback_radius: float = 0.02,
                 prefix: str = "fastdyn"):
        mc = meshcat_module()
        if isinstance(model, Scene):
            scene, model = model, model.model
        if scene is not None and scene.model is not model:
            raise ValueError("the scene's model is not the viewer's model")
        self.model, self.scene, self.data = model, scene, model.create_data()
        if visuals is not None and not isinstance(visuals, dict):
            from ..io.visuals import load_visuals
            visuals = load_visuals(visuals, package_dirs)
        self._visuals, self._frames, self._axes = visuals, frames, float(axes)
        self._fallback, self._ground = float(fallback_radius), float(ground_size)
        self._meshes: dict = {}
        self.recorder = Recorder()
        self.vis = mc.Visualizer(window=self.recorder)
        self.prefix = prefix
        self.nodes: list[graph.Node] = []
        self.copies = 0
        self.url: str | None = None
        self._live = None
        self._animated = False
        self._draw(1, 1.0)
        self.display(np.array(_neutral(model)))

    # --- the scene graph ------------------------------------------------------------------
    def _draw(self, copies: int, opacity: float) -> None:
        """(Re)build ``copies`` copies of the robot, their nodes under robot<k>/."""
        m = self.model
        self.vis[self.prefix].delete()
        nodes = (graph.visual_nodes(m, self._visuals, self._meshes, opacity, self._fallback)
                 if self._visuals is not None else graph.bone_nodes(m, opacity))
        kinds = [("visuals", nodes)]
        if self.scene is not None:
            kinds.append(("contacts", graph.scene_nodes(self.scene, opacity)))
        if self._frames is not None and len(self._frames):
            kinds.append(("frames", graph.frame_nodes(m, self._frames, self._axes)))
        self.nodes, self.paths = [], []
        for k in range(copies):
            for group, items in kinds:
                for n in items:
                    path = f"/meshcat/{self.prefix}/robot{k}/{group}/{n.name}"
                    for part, obj, T in n.parts:
                        self.vis[path][part].set_object(obj)
                        self.vis[path][part].set_transform(T)
                    if k == 0:
                        self.nodes.append(n)
                    self.paths.append(path)
        self.copies = copies
        self.vis["/Axes"].set_property("visible", False)  # the world's axes: frames= draws axes
        if self.scene is not None and len(self.scene.halfspaces):
            self.vis["/Grid"].set_property("visible", False)  # the half-spaces' slabs instead
        for h, row in enumerate(self.scene.halfspaces if self.scene is not None else ()):
            parts, T = shapes.halfspace(row[0:3], row[3], self._ground)
            path = f"/meshcat/{self.prefix}/environment/halfspace{h}"
            for part, obj, Tp in parts:
                self.vis[path][part].set_object(obj)
                self.vis[path][part].set_transform(Tp)
            self.vis[path].set_transform(T)

    def _world(self, q, offset) -> np.ndarray:
        return graph.placements(self.model, self.data, q, self.nodes, offset)

    def _set(self, Q: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Place every node of copy c at Q[c]; returns the nodes' origins (k, 3)."""
        W = np.concatenate([self._world(Q[c], offsets[c]) for c in range(len(Q))])
        for path, T in zip(self.paths, W):
            self.vis[path].set_transform(T)
        return W[:, :3, 3]

    def display(self, q, *, offset: float | None = None) -> None:
        """Show configuration q (nq,), or N of them (N, nq) side by side ``offset`` [m]
        apart on a grid (None: the robot's size and a half)."""
        X = check_trajectories(q, self.model.nq, "q")[0][0]  # rows: the configurations
        if len(X) != self.copies or self._animated:  # (an animation's arrows, opacity: gone)
            self._draw(len(X), 1.0)
        offsets = grid_offsets(len(X), self._spacing(X[0], offset))
        if self._animated:  # a still picture: stop the animation
            self.vis.set_animation(meshcat_module().animation.Animation(), play=False)
            self._animated = False
        self._camera(self._set(X, offsets))

    def _spacing(self, q, offset) -> float:
        if offset is not None:
            return float(offset)
        P = self._world(q, np.zeros(3))[:, :3, 3]
        return 1.5 * max(float(np.ptp(P[:, :2], axis=0).max()) if len(P) else 0.0, 0.3)

    def _camera(self, P: np.ndarray) -> None:
        """Look at the world origin (meshcat's orbit controls turn about it; a batch's grid
        is centred there) from the front-right, above, far enough to see the points P
        (k, 3), the nodes' origins."""
        size = max(float(np.abs(P).max()) if len(P) else 0.0, 0.4)
        # the camera's position is in its parent's y-up axes: (x, z, -y) of the world
        self.vis["/Cameras/default/rotated/<object>"].set_property(
            "position", [1.6 * size, 1.2 * size, 1.6 * size])

    # --- animation ------------------------------------------------------------------------
    def animate(self, trajectory, dt: float | None = None, *, fps: float = 30.0,
                offset: float | None = None, overlay: bool = False, forces: bool = False,
                force_scale: float | None = None, repetitions: int = 1_000_000) -> None:
        """Play ``trajectory``: q rows (T, nq), a batch (N, T, nq) or a ``Rollout`` (its
        recorded q; a rollout that stopped stays where it stopped). Rows are ``dt`` [s]
        apart (None: one row a frame), shown at ``fps``. A batch stands side by side on a
        grid ``offset`` [m] apart (None: from the robot's size), or ``overlay``: in one
        place, half transparent. ``forces`` (a Rollout recorded with "contacts"): arrows
        from each contact point along its force, ``force_scale`` [m/N] (None: the robot's
        weight 0.5 m long, so a foot carrying a quarter of it 12.5 cm; with no gravity, the
        largest force 0.3 m). Raises ValueError naming the row and column of a NaN or infinite
        entry, or the shape that does not fit."""
        points = F = None
        if isinstance(trajectory, Rollout):
            if trajectory.q is None:
                raise ValueError("the rollout has no recorded q: run it with record=('q', ...)")
            if forces and trajectory.contact_forces is None:
                raise ValueError("forces=True needs the rollout's contact forces: record "
                                 "'contacts'")
            Q = np.asarray(trajectory.q, dtype=np.float64)
            Q = hold_last_finite(Q if Q.ndim == 3 else Q[None])
            if forces:
                F, points = (np.asarray(a, dtype=np.float64) for a in
                             (trajectory.contact_forces, trajectory.contact_points))
                F, points = (a if a.ndim == 4 else a[None] for a in (F, points))
        elif forces:
            raise ValueError("forces=True needs a Rollout recorded with 'contacts'")
        else:
            Q = trajectory
        X, _ = check_trajectories(Q, self.model.nq)
        n, T = X.shape[:2]
        opacity = 0.5 if overlay and n > 1 else 1.0
        self._draw(n, opacity)
        offsets = np.zeros((n, 3)) if overlay else grid_offsets(n, self._spacing(X[0, 0], offset))
        rows = sample_times(T, dt, fps)
        W = np.stack([np.concatenate([self._world(X[c, t], offsets[c]) for c in range(n)])
                      for t in rows])  # (frames, copies x nodes, 4, 4)
        tracks = {p: W[:, k] for k, p in enumerate(self.paths)}
        if F is not None:
            tracks.update(self._arrows(F, points, offsets, rows, force_scale))
        self._play(tracks, fps, repetitions)
        self._camera(W[0, :, :3, 3])

    def _arrows(self, F, points, offsets, rows, scale) -> dict:
        """Arrow nodes (shaft, head) per contact pair and copy, placed at each frame: the
        force of a step is drawn with the state after it (the recorded q row t + 1)."""
        weight = float(self.model.mass.sum() * np.linalg.norm(self.model.gravity))
        biggest = float(np.nanmax(np.linalg.norm(F, axis=-1))) if F.size else 0.0
        if scale is None:
            scale = 0.5 / weight if weight > 0 else (0.3 / biggest if biggest > 0 else 0.0)
        radius = 0.006
        mat = shapes.material(shapes.CONTACT)
        shaft, head = shapes.arrow_parts(radius, mat)
        out = {}
        names = self.scene.pairs if self.scene is not None else None
        for c in range(F.shape[0]):
            for k in range(F.shape[2]):
                label = graph.safe(f"{names[k][0]}_h{names[k][1]}" if names else f"pair{k}")
                base = f"/meshcat/{self.prefix}/robot{c}/forces/{label}"
                steps = np.clip(rows - 1, 0, F.shape[1] - 1)
                f = np.where(rows[:, None] > 0, F[c, steps, k], 0.0)
                p = points[c, steps, k] + offsets[c]
                f[~np.isfinite(f).all(axis=1)] = 0.0
                S, H = shapes.arrow_transforms(p, f, scale, radius)
                for part_list, tag, W in ((shaft, "shaft", S), (head, "head", H)):
                    for part, obj, Tp in part_list:
                        self.vis[f"{base}_{tag}"][part].set_object(obj)
                        self.vis[f"{base}_{tag}"][part].set_transform(Tp)
                    self.vis[f"{base}_{tag}"].set_transform(W[0])
                    out[f"{base}_{tag}"] = W
        return out

    def _play(self, tracks: dict, fps: float, repetitions: int) -> None:
        anim_mod = meshcat_module().animation
        anim = anim_mod.Animation(default_framerate=fps)
        frames = None
        for path, W in tracks.items():
            frames = list(range(len(W)))
            pos, quat, scale = _decompose(W)
            clip = anim_mod.AnimationClip(fps=fps)
            clip.tracks["position"] = anim_mod.AnimationTrack("position", "vector3", frames,
                                                              pos.tolist())
            clip.tracks["quaternion"] = anim_mod.AnimationTrack("quaternion", "quaternion",
                                                                frames, quat.tolist())
            if not np.allclose(scale, 1.0):
                clip.tracks["scale"] = anim_mod.AnimationTrack("scale", "vector3", frames,
                                                               scale.tolist())
            anim.clips[self.vis[path].path] = clip
            self.vis[path].set_transform(W[0])
        self.vis.set_animation(anim, play=True, repetitions=int(repetitions))
        self._animated = True

    # --- outputs --------------------------------------------------------------------------
    def html(self, title: str = "fastdyn viewer") -> str:
        """The scene (and its animation) as a self-contained page: meshcat's viewer inlined,
        no network needed to open it."""
        return html_page(self.recorder.commands(), title)

    def save(self, path: str | os.PathLike, title: str = "fastdyn viewer") -> str:
        """Write ``html()`` to ``path``; returns the path."""
        path = os.fspath(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html(title))
        return path

    def open(self) -> str:
        """Start meshcat's server (a subprocess with a zmq socket and a web server on
        localhost), send it the scene so far and every later command, print and return the
        URL to open in a browser (no browser is started here)."""
        if self._live is None:
            live = meshcat_module().Visualizer()
            for command in self.recorder.commands():
                live.window.send(command)
            self.recorder.live, self._live, self.url = live.window, live, live.url()
        print(f"fastdyn viewer: open {self.url} in a browser")
        return self.url

    def close(self) -> None:
        """Stop the meshcat server ``open`` started (the recorded scene stays)."""
        if self._live is not None:
            proc = getattr(self._live.window, "server_proc", None)
            if proc is not None:
                proc.kill()
                proc.wait()
            self.recorder.live = self._live = self.url = None


def _neutral(model):
    from ..configuration import neutral
    return neutral(model)


def _decompose(W: np.ndarray):
    """(positions (n, 3), three.js quaternions x, y, z, w (n, 4), scales (n, 3)) of
    placements W (n, 4, 4) whose 3x3 block is R diag(scale). The quaternion of R by
    Shepperd's method (the largest of 4 w^2, 4 x^2, 4 y^2, 4 z^2 first, the others from the
    off-diagonal sums: no division by a small number)."""
    s = np.linalg.norm(W[:, :3, :3], axis=1)
    R = W[:, :3, :3] / np.where(s > 0, s, 1.0)[:, None, :]
    t = np.stack([R[:, 0, 0] + R[:, 1, 1] + R[:, 2, 2], R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]], 1)
    k = np.argmax(t, axis=1)
    d21, d02, d10 = R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0], R[:, 1, 0] - R[:, 0, 1]
    s21, s02, s10 = R[:, 2, 1] + R[:, 1, 2], R[:, 0, 2] + R[:, 2, 0], R[:, 1, 0] + R[:, 0, 1]
    r = np.sqrt(np.maximum(1.0 + 2.0 * t[np.arange(len(k)), k] - t[:, 0], 1e-300))
    h = 0.5 / r
    q = np.select([k[:, None] == 0, k[:, None] == 1, k[:, None] == 2],
                  [np.column_stack([d21 * h, d02 * h, d10 * h, 0.5 * r]),
                   np.column_stack([0.5 * r, s10 * h, s02 * h, d21 * h]),
                   np.column_stack([s10 * h, 0.5 * r, s21 * h, d02 * h])],
                  np.column_stack([s02 * h, s21 * h, 0.5 * r, d10 * h]))
    return W[:, :3, 3], q, s
