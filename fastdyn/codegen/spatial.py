"""Spatial algebra on symbolic 6-vectors (lists, linear first) for generated code.

Source: seed 000 "Rigid transformation", "Cross products", "Inertia"; the same formulas as
kernels/spatial/{motion,force,inertia}.py, written over the tracer's values:
  M = (R, p):  act(v, w) = (R v + p x R w, R w),  act_inv(v, w) = (R^T (v - p x w), R^T w)
               act*(f, n) = (R f, R n + p x R f)
  (v, w) x (v2, w2) = (w x v2 + v x w2, w x w2),   (v, w) x* (f, n) = (w x f, w x n + v x f)
  Y (v, w) = (m v - h x w, h x v + I w),  pi = [m, h, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] (origin).
"""

from __future__ import annotations

from .tracer import Tracer


def act(T: Tracer, R, p, x):
    w = T.matvec(R, x[3:])
    return T.add(T.matvec(R, x[:3]), T.cross(p, w)) + w


def act_inv(T: Tracer, R, p, x):
    return T.mattvec(R, T.sub(x[:3], T.cross(p, x[3:]))) + T.mattvec(R, x[3:])


def act_force(T: Tracer, R, p, x):
    f = T.matvec(R, x[:3])
    return f + T.add(T.matvec(R, x[3:]), T.cross(p, f))


def cross_motion(T: Tracer, a, b):
    return T.add(T.cross(a[3:], b[:3]), T.cross(a[:3], b[3:])) + T.cross(a[3:], b[3:])


def cross_force(T: Tracer, a, f):
    return T.cross(a[3:], f[:3]) + T.add(T.cross(a[3:], f[3:]), T.cross(a[:3], f[:3]))


def rot_inertia(pi):
    """The symmetric 3x3 I of pi (entries may be floats or names)."""
    return [[pi[4], pi[5], pi[7]], [pi[5], pi[6], pi[8]], [pi[7], pi[8], pi[9]]]


def apply_inertia(T: Tracer, pi, x):
    m, h, I3 = pi[0], pi[1:4], rot_inertia(pi)
    lin = [T.sop([(1.0, m, x[r]), (1.0, c)]) for r, c in enumerate(T.scale(-1.0, T.cross(h, x[3:])))]
    ang = T.add(T.cross(h, x[:3]), T.matvec(I3, x[3:]))
    return lin + ang


def inertia_to_parent(T: Tracer, pi, R, p):
    """pi of a body expressed in frame i -> the same body in the frame where frame i sits at
    (R, p): rotate (h, I) -> (R h, R I R^T), then move the origin by d = -p (kernels/spatial/
    inertia.py): h' = R h + m p,  I' = R I R^T - (Rh p^T + p Rh^T - 2 (Rh.p) I3) + m(|p|^2 I3 - p p^T)."""
    m = pi[0]
    rh = T.matvec(R, pi[1:4])
    ri = T.matmul(R, rot_inertia(pi))
    rir = [[T.sop([(1.0, ri[r][k], R[c][k]) for k in range(3)]) for c in range(3)]
           for r in range(3)]
    h = [T.sop([(1.0, rh[r]), (1.0, m, p[r])]) for r in range(3)]
    dot_hp = T.dot(rh, p)
    pp = T.dot(p, p)
    out = [m] + h
    for r, c in ((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)):
        terms = [(1.0, rir[r][c]), (-1.0, rh[r], p[c]), (-1.0, p[r], rh[c]), (-1.0, m, p[r], p[c])]
        if r == c:
            terms += [(2.0, dot_hp), (1.0, m, pp)]
        out.append(T.sop(terms))
    return out
