"""Spatial inertia as 10 dynamic parameters pi = [m, hx, hy, hz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz].

h = m c is the first moment and I the rotational inertia about the frame's origin (Pinocchio's
order, see the README's Conventions section). Source: Pinocchio documentation, "SE(3)
operations" cheat sheet, "Inertia" and "Cross products"; Traversaro & Saccon, "Multibody
dynamics notation (version 2)", Technische Universiteit Eindhoven, 2019, sec. 7.
  Y = [[m I3, -[h]x], [[h]x, I]],  Y nu = [m v - h x w; h x v + I w]
  I = I_c - m [c]x^2  (parallel axes);  [a]x[b]x + [b]x[a]x = a b^T + b a^T - 2 (a.b) I3.
Moving the origin by d (new origin at old-frame point d): h' = h - m d,
  I' = I + [h]x[d]x + [d]x[h]x - m [d]x^2;  a rotation R maps (h, I) to (R h, R I R^T).
"""

from .._jit import jit


@jit
def from_triplet(m, c, Ic, out, o):
    """pi from mass m, centre of mass c (3,) and inertia about the com Ic (3, 3)."""
    cx, cy, cz = c[0], c[1], c[2]
    out[o] = m
    out[o + 1] = m * cx
    out[o + 2] = m * cy
    out[o + 3] = m * cz
    out[o + 4] = Ic[0, 0] + m * (cy * cy + cz * cz)
    out[o + 5] = Ic[0, 1] - m * cx * cy
    out[o + 6] = Ic[1, 1] + m * (cx * cx + cz * cz)
    out[o + 7] = Ic[0, 2] - m * cx * cz
    out[o + 8] = Ic[1, 2] - m * cy * cz
    out[o + 9] = Ic[2, 2] + m * (cx * cx + cy * cy)


@jit
def world_first_moment(M, m, Y, y):
    """m c in the frame A of the placement ^A M_B at M[m:m+12], for pi at Y[y:y+10] given in B:
    R h + m p. The centre of mass weighted by the mass needs no division (so a massless body
    adds zero rather than 0/0)."""
    mass = Y[y]
    h = (Y[y + 1], Y[y + 2], Y[y + 3])
    return (M[m] * h[0] + M[m + 1] * h[1] + M[m + 2] * h[2] + mass * M[m + 9],
            M[m + 3] * h[0] + M[m + 4] * h[1] + M[m + 5] * h[2] + mass * M[m + 10],
            M[m + 6] * h[0] + M[m + 7] * h[1] + M[m + 8] * h[2] + mass * M[m + 11])


@jit
def apply(Y, y, x, i):
    """Y nu (Pinocchio cheat sheet, "Inertia", motion-to-force map), pi read at Y[y:y+10], nu
    at x[i:i+6]."""
    m, hx, hy, hz = Y[y], Y[y + 1], Y[y + 2], Y[y + 3]
    vx, vy, vz, wx, wy, wz = x[i], x[i + 1], x[i + 2], x[i + 3], x[i + 4], x[i + 5]
    return (m * vx - (hy * wz - hz * wy),
            m * vy - (hz * wx - hx * wz),
            m * vz - (hx * wy - hy * wx),
            hy * vz - hz * vy + Y[y + 4] * wx + Y[y + 5] * wy + Y[y + 7] * wz,
            hz * vx - hx * vz + Y[y + 5] * wx + Y[y + 6] * wy + Y[y + 8] * wz,
            hx * vy - hy * vx + Y[y + 7] * wx + Y[y + 8] * wy + Y[y + 9] * wz)


@jit
def bias_force(Y, y, x, i):
    """nu x* (Y nu), the gyroscopic term of the Newton-Euler equation (Pinocchio cheat sheet,
    "Cross products")."""
    f = apply(Y, y, x, i)
    vx, vy, vz, wx, wy, wz = x[i], x[i + 1], x[i + 2], x[i + 3], x[i + 4], x[i + 5]
    return (wy * f[2] - wz * f[1],
            wz * f[0] - wx * f[2],
            wx * f[1] - wy * f[0],
            wy * f[5] - wz * f[4] + vy * f[2] - vz * f[1],
            wz * f[3] - wx * f[5] + vz * f[0] - vx * f[2],
            wx * f[4] - wy * f[3] + vx * f[1] - vy * f[0])



@jit
def variation(Y, y, x, i, out, o):
    """d/dt Y = nu x* Y - Y (nu x) for the inertia pi at Y[y:y+10] moving with the twist nu at
    x[i:i+6] (both in one fixed frame), as 10 parameters into out[o:o+10]. (Traversaro & Saccon
    (2019), sec. 5.3/6.1.) Written out from Y's blocks: the mass is constant, h' = m v + w x h,
    I' = [w]x I - I [w]x - (v h^T + h v^T - 2 (v.h) I3) (the entries xx, xy, yy, xz, yz, zz)."""
    m, hx, hy, hz = Y[y], Y[y + 1], Y[y + 2], Y[y + 3]
    I0, I1, I2, I3, I4, I5 = Y[y + 4], Y[y + 5], Y[y + 6], Y[y + 7], Y[y + 8], Y[y + 9]
    vx, vy, vz, wx, wy, wz = x[i], x[i + 1], x[i + 2], x[i + 3], x[i + 4], x[i + 5]
    vh = vx * hx + vy * hy + vz * hz
    out[o] = 0.0
    out[o + 1] = m * vx + wy * hz - wz * hy
    out[o + 2] = m * vy + wz * hx - wx * hz
    out[o + 3] = m * vz + wx * hy - wy * hx
    # [w]x I - I [w]x = A + A^T with A = [w]x I
    out[o + 4] = 2.0 * (wy * I3 - wz * I1) - 2.0 * (vx * hx - vh)
    out[o + 5] = (wy * I4 - wz * I2) + (wz * I0 - wx * I3) - (vx * hy + hx * vy)
    out[o + 6] = 2.0 * (wz * I1 - wx * I4) - 2.0 * (vy * hy - vh)
    out[o + 7] = (wy * I5 - wz * I4) + (wx * I1 - wy * I0) - (vx * hz + hx * vz)
    out[o + 8] = (wz * I3 - wx * I5) + (wx * I2 - wy * I1) - (vy * hz + hy * vz)
    out[o + 9] = 2.0 * (wx * I4 - wy * I3) - 2.0 * (vz * hz - vh)

@jit
def _sym_shift(I0, I1, I2, I3, I4, I5, m, hx, hy, hz, dx, dy, dz):
    """I + [h][d] + [d][h] - m [d]^2 on the 6 unique entries (xx, xy, yy, xz, yz, zz)."""
    hd = hx * dx + hy * dy + hz * dz
    dd = dx * dx + dy * dy + dz * dz
    return (I0 + 2.0 * hx * dx - 2.0 * hd - m * (dx * dx - dd),
            I1 + hx * dy + hy * dx - m * dx * dy,
            I2 + 2.0 * hy * dy - 2.0 * hd - m * (dy * dy - dd),
            I3 + hx * dz + hz * dx - m * dx * dz,
            I4 + hy * dz + hz * dy - m * dy * dz,
            I5 + 2.0 * hz * dz - 2.0 * hd - m * (dz * dz - dd))


@jit
def act(M, m, Y, y, out, o):
    """^A Y = ^A X_B^* ^B Y ^B X_A: an inertia given in B (pi at Y[y:]) expressed in A.

    (Pinocchio cheat sheet, "Inertia application": (m, c, I) -> (m, p + R c, R I R^T))."""
    mass = Y[y]
    # rotate h and I into A's axes
    hx = M[m] * Y[y + 1] + M[m + 1] * Y[y + 2] + M[m + 2] * Y[y + 3]
    hy = M[m + 3] * Y[y + 1] + M[m + 4] * Y[y + 2] + M[m + 5] * Y[y + 3]
    hz = M[m + 6] * Y[y + 1] + M[m + 7] * Y[y + 2] + M[m + 8] * Y[y + 3]
    J = rotate(M, m, Y, y, False)
    # then move the origin from B's origin to A's: d = -p
    px, py, pz = M[m + 9], M[m + 10], M[m + 11]
    s = _sym_shift(J[0], J[1], J[2], J[3], J[4], J[5], mass, hx, hy, hz, -px, -py, -pz)
    out[o] = mass
    out[o + 1] = hx + mass * px
    out[o + 2] = hy + mass * py
    out[o + 3] = hz + mass * pz
    for k in range(6):
        out[o + 4 + k] = s[k]


@jit
def act_inv(M, m, Y, y, out, o):
    """^B Y from ^A Y: the inverse action (Pinocchio cheat sheet: (m, R^T (c - p), R^T I R))."""
    mass = Y[y]
    px, py, pz = M[m + 9], M[m + 10], M[m + 11]
    hx, hy, hz = Y[y + 1], Y[y + 2], Y[y + 3]
    s = _sym_shift(Y[y + 4], Y[y + 5], Y[y + 6], Y[y + 7], Y[y + 8], Y[y + 9],
                   mass, hx, hy, hz, px, py, pz)
    hx -= mass * px
    hy -= mass * py
    hz -= mass * pz
    out[o] = mass
    out[o + 1] = M[m] * hx + M[m + 3] * hy + M[m + 6] * hz
    out[o + 2] = M[m + 1] * hx + M[m + 4] * hy + M[m + 7] * hz
    out[o + 3] = M[m + 2] * hx + M[m + 5] * hy + M[m + 8] * hz
    J = rotate_sym(M, m, s[0], s[1], s[2], s[3], s[4], s[5], True)
    for k in range(6):
        out[o + 4 + k] = J[k]


@jit
def rotate(M, m, Y, y, transpose):
    return rotate_sym(M, m, Y[y + 4], Y[y + 5], Y[y + 6], Y[y + 7], Y[y + 8], Y[y + 9], transpose)


@jit
def rotate_sym(M, m, I0, I1, I2, I3, I4, I5, transpose):
    """R I R^T (transpose=False) or R^T I R (True) on the 6 unique entries of symmetric I."""
    if transpose:
        r00, r01, r02 = M[m], M[m + 3], M[m + 6]
        r10, r11, r12 = M[m + 1], M[m + 4], M[m + 7]
        r20, r21, r22 = M[m + 2], M[m + 5], M[m + 8]
    else:
        r00, r01, r02 = M[m], M[m + 1], M[m + 2]
        r10, r11, r12 = M[m + 3], M[m + 4], M[m + 5]
        r20, r21, r22 = M[m + 6], M[m + 7], M[m + 8]
    # T = R I (rows)
    t00 = r00 * I0 + r01 * I1 + r02 * I3
    t01 = r00 * I1 + r01 * I2 + r02 * I4
    t02 = r00 * I3 + r01 * I4 + r02 * I5
    t10 = r10 * I0 + r11 * I1 + r12 * I3
    t11 = r10 * I1 + r11 * I2 + r12 * I4
    t12 = r10 * I3 + r11 * I4 + r12 * I5
    t20 = r20 * I0 + r21 * I1 + r22 * I3
    t21 = r20 * I1 + r21 * I2 + r22 * I4
    t22 = r20 * I3 + r21 * I4 + r22 * I5
    return (t00 * r00 + t01 * r01 + t02 * r02,
            t10 * r00 + t11 * r01 + t12 * r02,
            t10 * r10 + t11 * r11 + t12 * r12,
            t20 * r00 + t21 * r01 + t22 * r02,
            t20 * r10 + t21 * r11 + t22 * r12,
            t20 * r20 + t21 * r21 + t22 * r22)


@jit
def to_matrix(Y, y, out):
    """The 6x6 matrix [[m I3, -[h]x], [[h]x, I]] into out (6, 6)."""
    m, hx, hy, hz = Y[y], Y[y + 1], Y[y + 2], Y[y + 3]
    for r in range(6):
        for c in range(6):
            out[r, c] = 0.0
    out[0, 0] = m
    out[1, 1] = m
    out[2, 2] = m
    # [h]x
    out[3, 1] = -hz
    out[3, 2] = hy
    out[4, 0] = hz
    out[4, 2] = -hx
    out[5, 0] = -hy
    out[5, 1] = hx
    for r in range(3):
        for c in range(3):
            out[c, 3 + r] = out[3 + r, c]
    out[3, 3] = Y[y + 4]
    out[3, 4] = out[4, 3] = Y[y + 5]
    out[4, 4] = Y[y + 6]
    out[3, 5] = out[5, 3] = Y[y + 7]
    out[4, 5] = out[5, 4] = Y[y + 8]
    out[5, 5] = Y[y + 9]
