"""Velocity and acceleration of a frame, from the joint motions of forward kinematics.

Source: Traversaro & Saccon (2019), sec. 5.1 (eq. 33, a twist in any frame), sec. 5.2
(eq. 35, the mixed frame E[A]) and sec. 5.4 (eqs. 47-54, intrinsic vs apparent acceleration).
Frame f is fixed to joint j at jM_f = (R_f, p_f); with the LOCAL twist x_j = [v; w] of joint j
(x = velocity, or spatial acceleration, gravity excluded) and oM_f = (R, p):
  LOCAL                x^E    = jX_f^-1 x_j = [R_f^T (v - p_f x w); R_f^T w]
  LOCAL_WORLD_ALIGNED  x^E[A] = [R v^E; R w^E]
  WORLD                x^A    = ^0X_j x_j
The classical acceleration adds w x v to the linear part of the spatial acceleration in the
same reference: in LOCAL_WORLD_ALIGNED that is ^A o_E'' (eq. 54), the acceleration of the frame
origin; in LOCAL the same vector in the frame's axes; in WORLD, Pinocchio's definition (the
formula applied to world-origin twists, which is not the acceleration of a material point).
Reference: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019.
"""

from .._jit import jit
from ..layout import A, LOCAL, OM, V, WORLD
from ..spatial import motion
from .frames import frame_placement


@jit
def frame_twist(frm, f, ws, col, reference, oMf):
    """The velocity (col = layout.V) or spatial acceleration (col = layout.A) of frame f as a
    6-tuple in ``reference``; writes oMf[f]. ws must hold that column (forward kinematics)."""
    frame_placement(frm, f, ws, oMf[f], 0)
    fr = frm[f]
    w = ws[fr.parent_joint]
    if reference == WORLD:
        return motion.act(w, OM, w, col)
    R = fr.R
    p = fr.p
    wx, wy, wz = w[col + 3], w[col + 4], w[col + 5]
    vx = w[col] - (p[1] * wz - p[2] * wy)
    vy = w[col + 1] - (p[2] * wx - p[0] * wz)
    vz = w[col + 2] - (p[0] * wy - p[1] * wx)
    lv = (R[0, 0] * vx + R[1, 0] * vy + R[2, 0] * vz,
          R[0, 1] * vx + R[1, 1] * vy + R[2, 1] * vz,
          R[0, 2] * vx + R[1, 2] * vy + R[2, 2] * vz)
    lw = (R[0, 0] * wx + R[1, 0] * wy + R[2, 0] * wz,
          R[0, 1] * wx + R[1, 1] * wy + R[2, 1] * wz,
          R[0, 2] * wx + R[1, 2] * wy + R[2, 2] * wz)
    if reference == LOCAL:
        return (lv[0], lv[1], lv[2], lw[0], lw[1], lw[2])
    M = oMf[f]
    return (M[0] * lv[0] + M[1] * lv[1] + M[2] * lv[2],
            M[3] * lv[0] + M[4] * lv[1] + M[5] * lv[2],
            M[6] * lv[0] + M[7] * lv[1] + M[8] * lv[2],
            M[0] * lw[0] + M[1] * lw[1] + M[2] * lw[2],
            M[3] * lw[0] + M[4] * lw[1] + M[5] * lw[2],
            M[6] * lw[0] + M[7] * lw[1] + M[8] * lw[2])


@jit
def frame_velocity(frm, f, reference, ws, oMf, out):
    """out (6,) = velocity of frame f in ``reference`` (Pinocchio's getFrameVelocity)."""
    motion.put6(out, 0, frame_twist(frm, f, ws, V, reference, oMf))


@jit
def frame_acceleration(frm, f, reference, ws, oMf, out):
    """out (6,) = spatial acceleration of frame f (Pinocchio's getFrameAcceleration)."""
    motion.put6(out, 0, frame_twist(frm, f, ws, A, reference, oMf))


@jit
def frame_classical_acceleration(frm, f, reference, ws, oMf, out):
    """out (6,) = [a + w x v; alpha] (Pinocchio's getFrameClassicalAcceleration)."""
    x = frame_twist(frm, f, ws, V, reference, oMf)
    a = frame_twist(frm, f, ws, A, reference, oMf)
    c = motion.cross3(x[3], x[4], x[5], x[0], x[1], x[2])
    out[0] = a[0] + c[0]
    out[1] = a[1] + c[1]
    out[2] = a[2] + c[2]
    out[3] = a[3]
    out[4] = a[4]
    out[5] = a[5]
