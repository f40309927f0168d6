"""The arithmetic of MJCF: frame orientations and the inertia of primitive geoms.

Orientations follow the "Frame orientations" section of MuJoCo's XML reference (Modeling
chapter): ``quat`` is (w, x, y, z) and normalized; ``axisangle`` rotates about the normalized
axis; ``euler`` composes three rotations in the order ``eulerseq`` names, a lower-case axis
turning with the frame (intrinsic: q = q q_i) and an upper-case one fixed (extrinsic:
q = q_i q); ``xyaxes`` gives x, then y made orthogonal to it, z = x cross y; ``zaxis`` is the
smallest rotation taking (0, 0, 1) to the vector. Geom masses and inertias are those of the
XML reference's ``geom`` section (``density`` 1000 unless told, ``mass`` overriding it):
solid spheres, capsules (a cylinder and two half-spheres), cylinders, boxes and ellipsoids,
about the geom's centre in its own frame. Each function returns None or raises ValueError
with the reason, and the caller adds the file, line and element.

Numbers anywhere in a double's range: vectors are normalized by their largest entry first
(|v| of a 1e308 vector would overflow, of a 1e-200 one underflow, and either would then give a
wrong direction), and geom masses and moments come out as NumPy floats, inf where they
overflow (never Python's OverflowError), for the caller to check against ``LARGEST`` at the
element they come from (fastdyn/io/_mjcf_build.py).
"""

from __future__ import annotations

import numpy as np

MJMINVAL = 1e-15  # MuJoCo's smallest meaningful value (mjMINVAL), used by its checks
# The largest mass [kg], centre-of-mass offset [m] or moment of inertia [kg m^2] fastdyn takes:
# beyond it their products (m c c^T, eigenvalues) overflow a double; builder.check_inertia
# refuses the same, the MJCF reader says it at the element and attribute it comes from.
LARGEST = 1e150


def scale(x) -> float:
    """The power of two at or just below max |x| (1 for zeros): dividing by it is exact, so
    a result scaled back is the unscaled arithmetic's wherever that neither overflows nor
    underflows."""
    k = float(np.max(np.abs(x)))
    return float(np.ldexp(1.0, np.frexp(k)[1] - 1)) if k > 0.0 else 1.0


def unit(v, zero: str) -> np.ndarray:
    """v / |v|, scaled by a power of two first (no overflow, no underflow); ValueError
    ``zero`` where |v| <= MJMINVAL (MuJoCo's test for a zero vector)."""
    v = np.asarray(v, dtype=np.float64)
    if not np.any(v):
        raise ValueError(zero)
    k = scale(v)
    u = v / k
    n = float(np.sqrt(u @ u))  # in [1, 4)
    if not k * n > MJMINVAL:
        raise ValueError(zero)
    return u / n


def quat_to_R(q) -> np.ndarray:
    """Rotation matrix of the (w, x, y, z) quaternion ``q`` (normalized here)."""
    w, x, y, z = unit(q, "the quaternion is zero")
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def axis_angle(axis, angle: float) -> np.ndarray:
    """Rotation by ``angle`` [rad] about ``axis`` (normalized here; a zero axis refused)."""
    a = unit(axis, "the rotation axis is zero")
    h = 0.5 * angle
    return quat_to_R(np.concatenate([[np.cos(h)], np.sin(h) * a]))


def euler(angles, seq: str) -> np.ndarray:
    """Rotation of three angles [rad] about the axes of ``seq`` (e.g. "xyz", "ZYX", "xYz")."""
    R = np.eye(3)
    for angle, ax in zip(angles, seq):
        Ri = axis_angle(np.eye(3)["xyz".index(ax.lower())], angle)
        R = R @ Ri if ax.islower() else Ri @ R
    return R


def xyaxes(v) -> np.ndarray:
    """Rotation whose columns are x = v[:3], y = v[3:] made orthogonal to x, z = x cross y."""
    x = unit(v[:3], "the x axis is zero")
    y = np.asarray(v[3:], dtype=np.float64)
    k = scale(y)  # y / k: its part across x, scaled back by k in the test
    y = y / k
    y = y - (x @ y) * x
    if not k * float(np.sqrt(y @ y)) > MJMINVAL:
        raise ValueError("the y axis is zero or parallel to the x axis")
    y = unit(y, "the y axis is zero or parallel to the x axis")
    return np.column_stack([x, y, np.cross(x, y)])


def z_to(v) -> np.ndarray:
    """The smallest rotation taking (0, 0, 1) to the direction of ``v``; a half turn about x
    when ``v`` points down -z (MuJoCo's choice where every axis would do)."""
    v = unit(v, "the z axis is zero")
    c = float(np.clip(v[2], -1.0, 1.0))
    axis = np.array([-v[1], v[0], 0.0])  # z cross v
    s = float(np.sqrt(axis @ axis))
    if s < MJMINVAL:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    return axis_angle(axis, float(np.arctan2(s, c)))


# --- geoms ------------------------------------------------------------------------------------

# How many of size's numbers each solid reads (with fromto, the last is the half-length that
# fromto gives, and box and ellipsoid take size[0] for both cross axes).
SIZES = {"sphere": 1, "capsule": 2, "cylinder": 2, "box": 3, "ellipsoid": 3}


def fromto_frame(ft, size: tuple, kind: str) -> tuple[np.ndarray, np.ndarray, tuple]:
    """(R, p, size) of a geom given by its end points ``ft`` (6 numbers): centred between
    them, its z axis along from - to (MuJoCo's sign), the half-length from their distance
    (halves first: 1e308 apart is a finite half-length; inf where it is not)."""
    a, b = np.asarray(ft[:3], dtype=np.float64), np.asarray(ft[3:], dtype=np.float64)
    d = 0.5 * a - 0.5 * b
    k = scale(d)
    with np.errstate(over="ignore"):
        half = k * float(np.sqrt((d / k) @ (d / k)))
    if not half > MJMINVAL:
        raise ValueError("fromto's two points coincide")
    R = z_to(d)
    if kind in ("capsule", "cylinder"):
        size = (float(size[0]), half, 0.0)
    else:  # box, ellipsoid
        size = (float(size[0]), float(size[0]), half)
    return R, 0.5 * a + 0.5 * b, size


def volume(kind: str, s: tuple) -> float:
    """The solid's volume (inf where it overflows, 0 where it underflows)."""
    s = np.asarray(s, dtype=np.float64)
    if kind == "sphere":
        return 4.0 / 3.0 * np.pi * s[0] ** 3
    if kind == "capsule":
        return np.pi * s[0] ** 2 * (2.0 * s[1]) + 4.0 / 3.0 * np.pi * s[0] ** 3
    if kind == "cylinder":
        return np.pi * s[0] ** 2 * (2.0 * s[1])
    if kind == "box":
        return 8.0 * s[0] * s[1] * s[2]
    return 4.0 / 3.0 * np.pi * s[0] * s[1] * s[2]  # ellipsoid


def principal_inertia(kind: str, s: tuple, mass: float) -> np.ndarray:
    """Principal moments (3,) about the geom's centre, in its frame, of a solid of ``mass``
    (the capsule splits it by volume between its cylinder and its half-spheres). Products are
    ordered as (m r) r so that a moment stays finite wherever it is (inf where it is not)."""
    s, m = np.asarray(s, dtype=np.float64), np.float64(mass)
    if kind == "sphere":
        return np.full(3, 0.4 * m * s[0] * s[0])
    if kind == "capsule":
        r, h = s[0], 2.0 * s[1]
        mc = m / (1.0 + (4.0 / 3.0 * r) / h)  # the cylinder's share: pi r^2 h of the volume
        ms = m - mc  # the two half-spheres, a sphere's mass
        # each half-sphere: 83/320 m r^2 about its centre of mass, 3 r / 8 from the flat face,
        # moved to the capsule's centre (parallel axes): the terms below, summed
        ixx = ((mc * r) * r / 4 + (mc * h) * h / 12 + (ms * r) * r * 0.4 + (ms * h) * h / 4
               + (ms * r) * h * 3 / 8)
        return np.array([ixx, ixx, (mc * r) * r / 2 + (ms * r) * r * 0.4])
    if kind == "cylinder":
        r, h = s[0], 2.0 * s[1]
        ixx = (m * r) * r / 4 + (m * h) * h / 12
        return np.array([ixx, ixx, (m * r) * r / 2])
    k = m / 3.0 if kind == "box" else m / 5.0  # half-sizes; ellipsoid semi-axes
    a2, b2, c2 = (k * s[0]) * s[0], (k * s[1]) * s[1], (k * s[2]) * s[2]
    return np.array([b2 + c2, a2 + c2, a2 + b2])


def combine(parts) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, centre of mass, inertia about it) of parts (m, c, I_c) in one frame."""
    m = sum(p[0] for p in parts)
    if m <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = sum(p[0] * p[1] for p in parts) / m
    I = np.zeros((3, 3))
    for mi, ci, Ii in parts:
        d = ci - c
        I += Ii + mi * ((d @ d) * np.eye(3) - np.outer(d, d))
    return m, c, I


def principal(I: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(moments (3,), axes (3x3 rotation, columns)) of a symmetric inertia, finite (scaled
    by its largest entry for LAPACK, which fails on entries near the top of a double)."""
    k = scale(I)
    ev, V = np.linalg.eigh(0.5 * (I / k) + 0.5 * (I / k).T)
    ev = ev * k
    if np.linalg.det(V) < 0:
        V[:, 0] = -V[:, 0]
    return ev, V
