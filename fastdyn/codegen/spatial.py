"""Spatial algebra on symbolic 6-vectors (lists, linear first) for generated code.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Rigid transformation",
"Cross products", "Inertia"; the same formulas as kernels/spatial/{motion,force,inertia}.py,
written over the tracer's values:
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


def body_to_world(T: Tracer, jr, R, p):
    """The 10 parameters of joint ``jr``'s body in the frame where its joint frame sits at
    (R, p), from its mass m, com c and inertia I_c about the com (constants of the model):
    c' = R c + p,  h' = m c',  I' = R I_c R^T + m (|c'|^2 I3 - c' c'^T)  (parallel axes).
    Fewer products than moving pi's origin (kernels/spatial/inertia.py's h p^T terms): only
    R I_c R^T of a constant I_c, often diagonal, and the com's own outer product."""
    m = float(jr["mass"])
    Ic = [[float(jr["inertia"][r, c]) for c in range(3)] for r in range(3)]
    cw = T.add(T.matvec(R, [float(x) for x in jr["com"]]), p)
    ri = T.matmul(R, Ic)
    cc = T.dot(cw, cw)
    out = [m] + [T.sop([(m, x)]) for x in cw]
    for r, c in ((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)):
        terms = [(1.0, ri[r][k], R[c][k]) for k in range(3)] + [(-m, cw[r], cw[c])]
        if r == c:
            terms.append((m, cc))
        out.append(T.sop(terms))
    return out


def pi_to_world(T: Tracer, pi, R, p):
    """The 10 parameters ``pi`` (about the joint origin, in the joint frame; names read at run
    time) in the frame where the joint frame sits at (R, p): with h_R = R h,
      h' = h_R + m p,
      I' = R I R^T + 2 (p . h_R) I3 - p h_R^T - h_R p^T + m (|p|^2 I3 - p p^T)
    (the parallel-axis theorem for a moved origin, the arithmetic of kernels/spatial/inertia.py).
    Used when the inertia is a run-time parameter, so body_to_world's constant com and I_c are
    not known."""
    m, hR = pi[0], T.matvec(R, pi[1:4])
    I3 = rot_inertia(pi)
    ri = T.matmul(R, I3)
    ph = T.dot(p, hR)
    pp = T.dot(p, p)
    out = [m] + [T.sop([(1.0, x), (1.0, m, y)]) for x, y in zip(hR, p)]
    for r, c in ((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)):
        terms = [(1.0, ri[r][k], R[c][k]) for k in range(3)]
        terms += [(-1.0, p[r], hR[c]), (-1.0, hR[r], p[c]), (-1.0, m, p[r], p[c])]
        if r == c:
            terms += [(2.0, ph), (1.0, m, pp)]
        out.append(T.sop(terms))
    return out
