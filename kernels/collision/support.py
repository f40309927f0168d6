"""Support points of every convex geom: the point of the shape farthest along a direction.

A sphere and a capsule are a core (their centre, their segment) grown by their radius
(van den Bergen 2003, sec. 4.3.2, "swept spheres"): GJK and EPA run on the cores, which are
polytopes or exact curves, and the radius is added afterwards, so those two converge in finite
steps. Support maps, for a unit-free direction d in the geom's frame (van den Bergen, sec. 4.3):
  box         (s0 sgn d0, s1 sgn d1, s2 sgn d2)
  ellipsoid   S^2 d / |S d|,  S = diag(a, b, c)
  cylinder    (r d_xy / |d_xy|, h sgn dz)
  capsule     (0, 0, h sgn dz)  (core)      sphere  0  (core)
  convex      the vertex with the largest d.v (a pass over the vertices)
"""

import numpy as np

from .._jit import jit
from .geoms import BOX, CAPSULE, CYLINDER, ELLIPSOID, SPHERE


@jit
def core_radius(t, size):
    """The radius grown around the core: a sphere's or capsule's radius, else 0."""
    return size[0] if t == SPHERE or t == CAPSULE else 0.0


@jit
def _sgn(x, s):
    return s if x >= 0.0 else -s


@jit
def support(t, size, v, p, R, d0, d1, d2):
    """World support point of geom (type t, size, vertices v, placement p, R) along the world
    direction d, of its core for a sphere or a capsule."""
    a0 = R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2
    a1 = R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2
    a2 = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
    x0, x1, x2 = 0.0, 0.0, 0.0
    if t == BOX:
        x0, x1, x2 = _sgn(a0, size[0]), _sgn(a1, size[1]), _sgn(a2, size[2])
    elif t == CAPSULE:
        x2 = _sgn(a2, size[1])
    elif t == ELLIPSOID:
        e0, e1, e2 = size[0] * a0, size[1] * a1, size[2] * a2
        L = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        if L > 0.0:
            x0, x1, x2 = size[0] * e0 / L, size[1] * e1 / L, size[2] * e2 / L
    elif t == CYLINDER:
        L = np.sqrt(a0 * a0 + a1 * a1)
        if L > 0.0:
            x0, x1 = size[0] * a0 / L, size[0] * a1 / L
        x2 = _sgn(a2, size[1])
    elif t != SPHERE:  # convex
        best = -np.inf
        for i in range(v.shape[0]):
            s = a0 * v[i, 0] + a1 * v[i, 1] + a2 * v[i, 2]
            if s > best:
                best, x0, x1, x2 = s, v[i, 0], v[i, 1], v[i, 2]
    return (p[0] + R[0, 0] * x0 + R[0, 1] * x1 + R[0, 2] * x2,
            p[1] + R[1, 0] * x0 + R[1, 1] * x1 + R[1, 2] * x2,
            p[2] + R[2, 0] * x0 + R[2, 1] * x1 + R[2, 2] * x2)
