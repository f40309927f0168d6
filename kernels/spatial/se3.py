"""Placements ^A M_B = (R, p): composition, inverse, action on points.

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, sections "Rigid transformation"
and "Composition":  ^A p = R ^B p + p,  ^A M_B ^B M_C = (R1 R2, p1 + R1 p2),
^A M_B^-1 = (R^T, -R^T p).

A placement is stored as 12 contiguous float64: R row-major (9) then p (3), starting at an
offset ``m`` in a 1-D array (a workspace row, a frame row). Helpers read ``(M, m)`` pairs and
return tuples of floats so that callers in joint loops allocate nothing.
"""

from .._jit import jit


@jit
def get(M, m):
    """The 12 numbers of the placement stored at M[m:m+12]."""
    return (M[m], M[m + 1], M[m + 2], M[m + 3], M[m + 4], M[m + 5], M[m + 6], M[m + 7],
            M[m + 8], M[m + 9], M[m + 10], M[m + 11])


@jit
def put(out, o, T):
    """Store the 12-tuple placement T at out[o:o+12]."""
    for k in range(12):
        out[o + k] = T[k]


@jit
def set_identity(out, o):
    for k in range(12):
        out[o + k] = 0.0
    out[o] = 1.0
    out[o + 4] = 1.0
    out[o + 8] = 1.0


@jit
def compose(A, a, B, b, out, o):
    """out = ^A M_B ^B M_C  (Pinocchio cheat sheet, "Composition"); out may alias neither input."""
    for r in range(3):
        x = A[a + 3 * r]
        y = A[a + 3 * r + 1]
        z = A[a + 3 * r + 2]
        for c in range(3):
            out[o + 3 * r + c] = x * B[b + c] + y * B[b + 3 + c] + z * B[b + 6 + c]
        out[o + 9 + r] = A[a + 9 + r] + x * B[b + 9] + y * B[b + 10] + z * B[b + 11]


@jit
def compose_inv(A, a, B, b, out, o):
    """out = (^A M_B)^-1 ^A M_C = (R1^T R2, R1^T (p2 - p1))  (Pinocchio cheat sheet,
    "Composition")."""
    dx = B[b + 9] - A[a + 9]
    dy = B[b + 10] - A[a + 10]
    dz = B[b + 11] - A[a + 11]
    for r in range(3):
        x = A[a + r]
        y = A[a + 3 + r]
        z = A[a + 6 + r]
        for c in range(3):
            out[o + 3 * r + c] = x * B[b + c] + y * B[b + 3 + c] + z * B[b + 6 + c]
        out[o + 9 + r] = x * dx + y * dy + z * dz


@jit
def inverse(A, a, out, o):
    """out = (R^T, -R^T p)  (Pinocchio cheat sheet, "Rigid transformation")."""
    for r in range(3):
        for c in range(3):
            out[o + 3 * r + c] = A[a + 3 * c + r]
    for r in range(3):
        out[o + 9 + r] = -(A[a + r] * A[a + 9] + A[a + 3 + r] * A[a + 10] + A[a + 6 + r] * A[a + 11])


@jit
def act_point(M, m, x, y, z):
    """^A p = R ^B p + p."""
    return (M[m] * x + M[m + 1] * y + M[m + 2] * z + M[m + 9],
            M[m + 3] * x + M[m + 4] * y + M[m + 5] * z + M[m + 10],
            M[m + 6] * x + M[m + 7] * y + M[m + 8] * z + M[m + 11])


@jit
def act_inv_point(M, m, x, y, z):
    """^B p = R^T (^A p - p)."""
    dx = x - M[m + 9]
    dy = y - M[m + 10]
    dz = z - M[m + 11]
    return (M[m] * dx + M[m + 3] * dy + M[m + 6] * dz,
            M[m + 1] * dx + M[m + 4] * dy + M[m + 7] * dz,
            M[m + 2] * dx + M[m + 5] * dy + M[m + 8] * dz)


@jit
def rot(M, m, x, y, z):
    """R x."""
    return (M[m] * x + M[m + 1] * y + M[m + 2] * z,
            M[m + 3] * x + M[m + 4] * y + M[m + 5] * z,
            M[m + 6] * x + M[m + 7] * y + M[m + 8] * z)


@jit
def rot_t(M, m, x, y, z):
    """R^T x."""
    return (M[m] * x + M[m + 3] * y + M[m + 6] * z,
            M[m + 1] * x + M[m + 4] * y + M[m + 7] * z,
            M[m + 2] * x + M[m + 5] * y + M[m + 8] * z)
