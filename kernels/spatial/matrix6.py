"""6x6 blocks stored row-major in 36 contiguous floats: ABA's articulated-body inertias, and
the per-subtree B of the Coriolis matrix (coriolis.py).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Inertia" (the 6x6 form of a
spatial inertia). ABA works in the world frame, so these blocks never change frame (no
congruence transform is needed).
"""

from .._jit import jit


@jit
def mul_vec(A, a, x, i):
    """A x for the 6x6 at A[a:a+36] and the 6-vector at x[i:i+6]."""
    return (A[a] * x[i] + A[a + 1] * x[i + 1] + A[a + 2] * x[i + 2] + A[a + 3] * x[i + 3]
            + A[a + 4] * x[i + 4] + A[a + 5] * x[i + 5],
            A[a + 6] * x[i] + A[a + 7] * x[i + 1] + A[a + 8] * x[i + 2] + A[a + 9] * x[i + 3]
            + A[a + 10] * x[i + 4] + A[a + 11] * x[i + 5],
            A[a + 12] * x[i] + A[a + 13] * x[i + 1] + A[a + 14] * x[i + 2] + A[a + 15] * x[i + 3]
            + A[a + 16] * x[i + 4] + A[a + 17] * x[i + 5],
            A[a + 18] * x[i] + A[a + 19] * x[i + 1] + A[a + 20] * x[i + 2] + A[a + 21] * x[i + 3]
            + A[a + 22] * x[i + 4] + A[a + 23] * x[i + 5],
            A[a + 24] * x[i] + A[a + 25] * x[i + 1] + A[a + 26] * x[i + 2] + A[a + 27] * x[i + 3]
            + A[a + 28] * x[i + 4] + A[a + 29] * x[i + 5],
            A[a + 30] * x[i] + A[a + 31] * x[i + 1] + A[a + 32] * x[i + 2] + A[a + 33] * x[i + 3]
            + A[a + 34] * x[i + 4] + A[a + 35] * x[i + 5])


@jit
def from_inertia(Y, y, out, o):
    """The 6x6 of the 10-parameter inertia at Y[y:y+10] (see inertia.py) into out[o:o+36]."""
    m, hx, hy, hz = Y[y], Y[y + 1], Y[y + 2], Y[y + 3]
    for k in range(36):
        out[o + k] = 0.0
    out[o] = out[o + 7] = out[o + 14] = m
    # top-right -[h]x, bottom-left [h]x
    out[o + 4] = hz
    out[o + 5] = -hy
    out[o + 9] = -hz
    out[o + 11] = hx
    out[o + 15] = hy
    out[o + 16] = -hx
    out[o + 19] = -hz
    out[o + 20] = hy
    out[o + 24] = hz
    out[o + 26] = -hx
    out[o + 30] = -hy
    out[o + 31] = hx
    out[o + 21] = Y[y + 4]
    out[o + 22] = out[o + 27] = Y[y + 5]
    out[o + 28] = Y[y + 6]
    out[o + 23] = out[o + 33] = Y[y + 7]
    out[o + 29] = out[o + 34] = Y[y + 8]
    out[o + 35] = Y[y + 9]
