"""Spatial force vectors phi = [f; tau] (linear first): frame changes.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Force Application";
Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019, sec. 6.
  ^A X_B^* phi  = [R f; R tau + p x (R f)]
  ^A X_B^-* phi = [R^T f; R^T (tau - p x f)]
The pairing phi . nu is frame invariant: (^A X_B^* phi) . (^A X_B nu) = phi . nu.
"""

from .._jit import jit


@jit
def act(M, m, x, i):
    """^A X_B^* phi: express in A a force given in B."""
    R = M
    fx = R[m] * x[i] + R[m + 1] * x[i + 1] + R[m + 2] * x[i + 2]
    fy = R[m + 3] * x[i] + R[m + 4] * x[i + 1] + R[m + 5] * x[i + 2]
    fz = R[m + 6] * x[i] + R[m + 7] * x[i + 1] + R[m + 8] * x[i + 2]
    px = M[m + 9]
    py = M[m + 10]
    pz = M[m + 11]
    return (fx, fy, fz,
            R[m] * x[i + 3] + R[m + 1] * x[i + 4] + R[m + 2] * x[i + 5] + py * fz - pz * fy,
            R[m + 3] * x[i + 3] + R[m + 4] * x[i + 4] + R[m + 5] * x[i + 5] + pz * fx - px * fz,
            R[m + 6] * x[i + 3] + R[m + 7] * x[i + 4] + R[m + 8] * x[i + 5] + px * fy - py * fx)


@jit
def act_inv(M, m, x, i):
    """^A X_B^-* phi: express in B a force given in A."""
    R = M
    px = M[m + 9]
    py = M[m + 10]
    pz = M[m + 11]
    fx = x[i]
    fy = x[i + 1]
    fz = x[i + 2]
    tx = x[i + 3] - (py * fz - pz * fy)
    ty = x[i + 4] - (pz * fx - px * fz)
    tz = x[i + 5] - (px * fy - py * fx)
    return (R[m] * fx + R[m + 3] * fy + R[m + 6] * fz,
            R[m + 1] * fx + R[m + 4] * fy + R[m + 7] * fz,
            R[m + 2] * fx + R[m + 5] * fy + R[m + 8] * fz,
            R[m] * tx + R[m + 3] * ty + R[m + 6] * tz,
            R[m + 1] * tx + R[m + 4] * ty + R[m + 7] * tz,
            R[m + 2] * tx + R[m + 5] * ty + R[m + 8] * tz)
