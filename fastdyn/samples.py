"""Models built in code: a 6-DoF arm, a free-flyer humanoid, a double pendulum, random trees.

Shaped like Pinocchio's buildSampleModelManipulator / buildSampleModelHumanoid (read, not
ported): plausible masses and lengths, every joint with a body, operational frames at the tips.
"""

from __future__ import annotations

import numpy as np

from .builder import ModelBuilder
from .kernels.joints import codes
from .model import Model

__all__ = ["double_pendulum", "manipulator", "humanoid", "random_tree"]


def _box_inertia(m: float, a: float, b: float, c: float) -> np.ndarray:
    return m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def _rpy(r: float, p: float, y: float) -> np.ndarray:
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def double_pendulum(length: float = 1.0, mass: float = 1.0) -> Model:
    """Two point-like links swinging about Y under gravity -Z; q = [t1, t2]."""
    b = ModelBuilder("double_pendulum")
    j1 = b.add_joint("joint1", "revolute_y", 0, None, lower=-np.pi, upper=np.pi)
    b.add_body(j1, mass, (0, 0, -length), _box_inertia(mass, 0.02, 0.02, length) * 1e-3)
    j2 = b.add_joint("joint2", "revolute_y", j1, (np.eye(3), (0, 0, -length)),
                     lower=-np.pi, upper=np.pi)
    b.add_body(j2, mass, (0, 0, -length), _box_inertia(mass, 0.02, 0.02, length) * 1e-3)
    b.add_frame("tip", j2, (np.eye(3), (0, 0, -length)))
    return b.build()


def manipulator() -> Model:
    """A 6-DoF anthropomorphic arm (shoulder Z-Y, elbow Y, wrist Z-Y-X), tool frame "tool0"."""
    b = ModelBuilder("manipulator")
    lim = dict(lower=-np.pi, upper=np.pi, velocity=3.0, effort=150.0)
    axes = ["revolute_z", "revolute_y", "revolute_y", "revolute_z", "revolute_y", "revolute_x"]
    offsets = [(0, 0, 0.1), (0, 0.12, 0.2), (0, -0.1, 0.45), (0, 0, 0.4), (0, 0, 0.05),
               (0, 0, 0.08)]
    masses = [4.0, 3.5, 2.5, 1.2, 0.8, 0.4]
    lengths = [0.2, 0.45, 0.4, 0.05, 0.08, 0.05]
    parent = 0
    for k, (t, off, m, L) in enumerate(zip(axes, offsets, masses, lengths)):
        R = _rpy(0.05 * k, -0.03 * k, 0.02 * k)  # slightly tilted placements exercise R
        parent = b.add_joint(f"joint{k + 1}", t, parent, (R, off), armature=0.0, **lim)
        b.add_body(parent, m, (0.01 * k, -0.005 * k, L / 2), _box_inertia(m, 0.06, 0.07, L),
                   name=f"link{k + 1}")
    b.add_frame("tool0", parent, (np.eye(3), (0, 0, 0.1)))
    return b.build()


def humanoid() -> Model:
    """A free-flyer humanoid with spherical hips, universal ankles, ZYX shoulders, revolute
    knees and elbows, a helical wrist, a prismatic spine extension: 7 + 27 coordinates."""
    b = ModelBuilder("humanoid")
    root = b.add_joint("root_joint", "freeflyer", 0, None)
    b.add_body(root, 8.0, (0, 0, 0.05), _box_inertia(8.0, 0.2, 0.3, 0.2), name="pelvis")
    for side, y in (("left", 0.1), ("right", -0.1)):
        hip = b.add_joint(f"{side}_hip", "spherical", root, (np.eye(3), (0, y, -0.1)))
        b.add_body(hip, 3.0, (0, 0, -0.2), _box_inertia(3.0, 0.1, 0.1, 0.4))
        knee = b.add_joint(f"{side}_knee", "revolute_y", hip, (np.eye(3), (0, 0, -0.4)),
                           lower=0.0, upper=2.5)
        b.add_body(knee, 2.5, (0, 0, -0.2), _box_inertia(2.5, 0.08, 0.08, 0.4))
        ankle = b.add_joint(f"{side}_ankle", "universal", knee, (np.eye(3), (0, 0, -0.4)),
                            axis=(0, 1, 0), axis2=(1, 0, 0))
        b.add_body(ankle, 1.0, (0.05, 0, -0.04), _box_inertia(1.0, 0.2, 0.1, 0.05))
        b.add_frame(f"{side}_sole", ankle, (np.eye(3), (0.05, 0, -0.08)))
    spine = b.add_joint("spine", "prismatic", root, (np.eye(3), (0, 0, 0.15)),
                        axis=(0, 0, 1), lower=-0.05, upper=0.05)
    b.add_body(spine, 0.5, (0, 0, 0.02), _box_inertia(0.5, 0.05, 0.05, 0.05))
    chest = b.add_joint("chest", "revolute", spine, (np.eye(3), (0, 0, 0.05)),
                        axis=(0, 0.6, 0.8), lower=-1.0, upper=1.0)
    b.add_body(chest, 10.0, (0, 0, 0.2), _box_inertia(10.0, 0.25, 0.35, 0.4), name="torso")
    neck = b.add_joint("neck", "continuous_z", chest, (np.eye(3), (0, 0, 0.45)))
    b.add_body(neck, 2.0, (0, 0, 0.1), _box_inertia(2.0, 0.15, 0.15, 0.2), name="head")
    for side, y in (("left", 0.22), ("right", -0.22)):
        sh = b.add_joint(f"{side}_shoulder", "spherical_zyx", chest,
                         (_rpy(0.1 if y > 0 else -0.1, 0, 0), (0, y, 0.35)))
        b.add_body(sh, 1.5, (0, 0, -0.15), _box_inertia(1.5, 0.07, 0.07, 0.3))
        el = b.add_joint(f"{side}_elbow", "revolute_y", sh, (np.eye(3), (0, 0, -0.3)),
                         lower=-2.5, upper=0.0)
        b.add_body(el, 1.0, (0, 0, -0.12), _box_inertia(1.0, 0.06, 0.06, 0.25))
        wr = b.add_joint(f"{side}_wrist", "helical", el, (np.eye(3), (0, 0, -0.25)),
                         axis=(0, 0, 1), pitch=0.01)
        b.add_body(wr, 0.4, (0, 0, -0.05), _box_inertia(0.4, 0.08, 0.04, 0.1))
        b.add_frame(f"{side}_hand", wr, (np.eye(3), (0, 0, -0.1)))
    return b.build()


def random_tree(n: int, seed: int = 0, types: tuple[str, ...] | None = None,
                root: str | None = None) -> Model:
    """A seeded random tree of ``n`` joints (plus an optional ``root`` joint) drawn from
    ``types`` (default: every joint type but the free-flyer), with random placements, axes
    and physically valid bodies, numbered depth first."""
    rng = np.random.default_rng(seed)
    names = list(types) if types is not None else [
        t for t in codes.NAMES[1:] if t != "freeflyer"]
    b = ModelBuilder(f"random_tree_{n}_{seed}")
    first = 0
    if root is not None:
        first = b.add_joint("root", root, 0, None)
        _random_body(b, first, rng)
    # Draw the tree first (node k hangs below an earlier node, -1 = the base), then add the
    # joints depth first: subtrees must own contiguous v ranges, as in Pinocchio.
    parents = [int(rng.integers(-1, k)) for k in range(n)]
    children = [[] for _ in range(n + 1)]
    for k, par in enumerate(parents):
        children[par + 1].append(k)
    index = {-1: first}
    stack = list(reversed(children[0]))
    while stack:
        k = stack.pop()
        t = names[int(rng.integers(len(names)))]
        R = _rpy(*rng.uniform(-np.pi, np.pi, 3))
        p = rng.uniform(-0.5, 0.5, 3)
        axis = rng.normal(size=3)
        axis2 = np.cross(axis, rng.normal(size=3))
        j = b.add_joint(f"j{k}_{t}", t, index[parents[k]], (R, p),
                        axis=axis / np.linalg.norm(axis), axis2=axis2 / np.linalg.norm(axis2),
                        pitch=rng.uniform(-0.2, 0.2), armature=rng.uniform(0.0, 0.1))
        index[k] = j
        _random_body(b, j, rng)
        stack.extend(reversed(children[k + 1]))
    return b.build()


def _random_body(b: ModelBuilder, j: int, rng: np.random.Generator) -> None:
    m = rng.uniform(0.5, 3.0)
    dims = rng.uniform(0.05, 0.5, 3)
    b.add_body(j, m, rng.uniform(-0.2, 0.2, 3), _box_inertia(m, *dims),
               placement=(_rpy(*rng.uniform(-np.pi, np.pi, 3)), np.zeros(3)))
