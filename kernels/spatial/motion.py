"""Spatial motion vectors nu = [v; w] (linear first): frame changes and the cross product.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Motion Application" and
"Cross products"; Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische
Universiteit Eindhoven, 2019, sec. 5.1 (^A X_B) and sec. 5.3 (the 6D cross product).
  ^A X_B nu    = [R v + p x (R w); R w]
  ^A X_B^-1 nu = [R^T (v - p x w); R^T w]
  nu1 x nu2    = [v1 x w2 + w1 x v2; w1 x w2]
A placement (R, p) is read from M[m:m+12] (see se3.py); vectors from x[i:i+6].
"""

from .._jit import jit


@jit
def cross3(ax, ay, az, bx, by, bz):
    return (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx)


@jit
def get6(x, i):
    return (x[i], x[i + 1], x[i + 2], x[i + 3], x[i + 4], x[i + 5])


@jit
def put6(out, o, t):
    out[o] = t[0]
    out[o + 1] = t[1]
    out[o + 2] = t[2]
    out[o + 3] = t[3]
    out[o + 4] = t[4]
    out[o + 5] = t[5]


@jit
def act(M, m, x, i):
    """^A X_B nu: express in A a motion given in B."""
    R = M
    wx = R[m] * x[i + 3] + R[m + 1] * x[i + 4] + R[m + 2] * x[i + 5]
    wy = R[m + 3] * x[i + 3] + R[m + 4] * x[i + 4] + R[m + 5] * x[i + 5]
    wz = R[m + 6] * x[i + 3] + R[m + 7] * x[i + 4] + R[m + 8] * x[i + 5]
    px = M[m + 9]
    py = M[m + 10]
    pz = M[m + 11]
    return (R[m] * x[i] + R[m + 1] * x[i + 1] + R[m + 2] * x[i + 2] + py * wz - pz * wy,
            R[m + 3] * x[i] + R[m + 4] * x[i + 1] + R[m + 5] * x[i + 2] + pz * wx - px * wz,
            R[m + 6] * x[i] + R[m + 7] * x[i + 1] + R[m + 8] * x[i + 2] + px * wy - py * wx,
            wx, wy, wz)


@jit
def act_inv(M, m, x, i):
    """^A X_B^-1 nu: express in B a motion given in A."""
    R = M
    px = M[m + 9]
    py = M[m + 10]
    pz = M[m + 11]
    wx = x[i + 3]
    wy = x[i + 4]
    wz = x[i + 5]
    vx = x[i] - (py * wz - pz * wy)
    vy = x[i + 1] - (pz * wx - px * wz)
    vz = x[i + 2] - (px * wy - py * wx)
    return (R[m] * vx + R[m + 3] * vy + R[m + 6] * vz,
            R[m + 1] * vx + R[m + 4] * vy + R[m + 7] * vz,
            R[m + 2] * vx + R[m + 5] * vy + R[m + 8] * vz,
            R[m] * wx + R[m + 3] * wy + R[m + 6] * wz,
            R[m + 1] * wx + R[m + 4] * wy + R[m + 7] * wz,
            R[m + 2] * wx + R[m + 5] * wy + R[m + 8] * wz)


@jit
def cross(x, i, y, j):
    """nu1 x nu2 = [v1 x w2 + w1 x v2; w1 x w2]  (Pinocchio cheat sheet, "Cross products")."""
    v1x, v1y, v1z, w1x, w1y, w1z = x[i], x[i + 1], x[i + 2], x[i + 3], x[i + 4], x[i + 5]
    v2x, v2y, v2z, w2x, w2y, w2z = y[j], y[j + 1], y[j + 2], y[j + 3], y[j + 4], y[j + 5]
    return (v1y * w2z - v1z * w2y + w1y * v2z - w1z * v2y,
            v1z * w2x - v1x * w2z + w1z * v2x - w1x * v2z,
            v1x * w2y - v1y * w2x + w1x * v2y - w1y * v2x,
            w1y * w2z - w1z * w2y,
            w1z * w2x - w1x * w2z,
            w1x * w2y - w1y * w2x)


@jit
def cross_force(x, i, y, j):
    """nu x* phi = [w x f; w x tau + v x f]  (Pinocchio cheat sheet, "Cross products",
    motion-force)."""
    vx, vy, vz, wx, wy, wz = x[i], x[i + 1], x[i + 2], x[i + 3], x[i + 4], x[i + 5]
    fx, fy, fz, tx, ty, tz = y[j], y[j + 1], y[j + 2], y[j + 3], y[j + 4], y[j + 5]
    return (wy * fz - wz * fy,
            wz * fx - wx * fz,
            wx * fy - wy * fx,
            wy * tz - wz * ty + vy * fz - vz * fy,
            wz * tx - wx * tz + vz * fx - vx * fz,
            wx * ty - wy * tx + vx * fy - vy * fx)
