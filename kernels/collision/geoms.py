"""The flat geom table, the contact table, and the geoms' world placements and bounding boxes.

A scene's collision geometry is three arrays, one row per geom (MuJoCo's ``geom_*`` fields
and sizes, MuJoCo documentation "XML Reference / geom"):
- ``geom`` (ngeom,) GEOM_DTYPE records: type, body, filter bits, vertex range;
- ``gprm`` (ngeom, GP) float64: sizes, placement in the body, contact parameters (G_* below);
- ``verts`` (nverts, 3) float64: the vertices of every convex geom, in its own frame.

Sizes by type (every geom's frame is its centre; capsule and cylinder axes are its z axis):
  PLANE      the half-space z <= 0 of its frame (the plane through the origin, normal +z); -
  SPHERE     radius r                                                    [r, -, -]
  CAPSULE    radius r, half-length h of the segment between centres       [r, h, -]
  ELLIPSOID  semi-axes                                                   [a, b, c]
  CYLINDER   radius r, half-length h                                     [r, h, -]
  BOX        half-sizes                                                  [x, y, z]
  CONVEX     the convex hull of verts[vadr:vadr+vnum] (>= 4 points, not flat)     -
The type codes are ordered as MuJoCo's (without its height field): a pair routine is written
for (t1, t2) with t1 <= t2.

Contacts: ``con`` (maxcon, CW) float64, one row per contact point: C_POS the point halfway
between the two witness points (MuJoCo's contact position), C_NRM the unit normal pointing
from geom 1 to geom 2 (moving geom 2 along it separates the pair: coal's convention), C_DIST
the signed distance (negative: penetration). The witness points are
  on geom 1: pos - dist/2 n,    on geom 2: pos + dist/2 n.
A routine writes only contacts with dist < margin and returns how many it wrote.
"""

import numpy as np

from .._jit import jit

PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, CONVEX = 0, 1, 2, 3, 4, 5, 6
NTYPES = 7
TYPE_NAMES = ("plane", "sphere", "capsule", "ellipsoid", "cylinder", "box", "convex")

GEOM_DTYPE = np.dtype(
    [
        ("type", np.int64),  # type code, above ()
        ("body", np.int64),  # joint (body) the geom is attached to, 0 for the world ()
        ("contype", np.int64),  # contact type bits (MuJoCo's contype) ()
        ("conaffinity", np.int64),  # contact affinity bits (MuJoCo's conaffinity) ()
        ("vadr", np.int64),  # first row of the geom's vertices in verts; convex only ()
        ("vnum", np.int64),  # number of vertices; 0 unless convex ()
    ],
    align=True,
)

# gprm columns, with the number of entries and unit:
G_SIZE = 0  # size parameters by type, above [m] (3)
G_R = 3  # rotation of the geom frame in its body's frame, row-major (9)
G_P = 12  # origin of the geom frame in its body's frame [m] (3)
G_FRICTION = 15  # sliding, torsional, rolling friction (MuJoCo's geom friction) (3)
G_MARGIN = 18  # distance below which a contact is reported; a pair takes the larger [m] (1)
G_SOLREF = 19  # MuJoCo's solref: time constant [s], damping ratio (2)
G_SOLIMP = 21  # MuJoCo's solimp: d0, dwidth, width [m], midpoint, power (5)
G_LBOX = 26  # axis-aligned box of the geom in its own frame: centre, half-sizes [m] (6)
GP = 32  # gprm row width

# con columns:
C_POS = 0  # contact point, halfway between the witness points, world [m] (3)
C_NRM = 3  # unit normal from geom 1 to geom 2, world (3)
C_DIST = 6  # signed distance, negative in penetration [m] (1)
CW = 7  # con row width
MAX_PAIR = 8  # most contacts one pair routine writes (box-box)


@jit
def write(con, k, px, py, pz, nx, ny, nz, d):
    """Store one contact in row k of con; returns 1 (the number written)."""
    con[k, 0] = px
    con[k, 1] = py
    con[k, 2] = pz
    con[k, 3] = nx
    con[k, 4] = ny
    con[k, 5] = nz
    con[k, 6] = d
    return 1


@jit
def geom_placements(geom, gprm, oMb, xpos, xmat):
    """World placement of every geom: R = R_b R_g, p = R_b p_g + p_b (Pinocchio cheat sheet,
    "Composition"); oMb (nbodies, >= 12) holds each body's placement as 12 numbers, R
    row-major then p (a workspace's OM columns); xpos (ngeom, 3), xmat (ngeom, 3, 3)."""
    for g in range(geom.shape[0]):
        b = geom[g].body
        for r in range(3):
            for c in range(3):
                s = 0.0
                for k in range(3):
                    s += oMb[b, 3 * r + k] * gprm[g, G_R + 3 * k + c]
                xmat[g, r, c] = s
            s = oMb[b, 9 + r]
            for k in range(3):
                s += oMb[b, 3 * r + k] * gprm[g, G_P + k]
            xpos[g, r] = s


@jit
def geom_aabb(t, size, lbox, p, R, margin, box, g):
    """World axis-aligned box of one geom, grown by its margin: box[g] = (min xyz, max xyz).
    Half-extent along world axis i: sphere r; capsule |R_i2| h + r; box sum_k |R_ik| s_k;
    ellipsoid sqrt(sum_k (R_ik s_k)^2); cylinder |R_i2| h + r sqrt(1 - R_i2^2); convex the
    rotated local box. A plane is unbounded except along a world axis its normal is."""
    for i in range(3):
        c = p[i]
        if t == SPHERE:
            e = size[0]
        elif t == CAPSULE:
            e = abs(R[i, 2]) * size[1] + size[0]
        elif t == BOX:
            e = abs(R[i, 0]) * size[0] + abs(R[i, 1]) * size[1] + abs(R[i, 2]) * size[2]
        elif t == ELLIPSOID:
            e = np.sqrt((R[i, 0] * size[0]) ** 2 + (R[i, 1] * size[1]) ** 2
                        + (R[i, 2] * size[2]) ** 2)
        elif t == CYLINDER:
            e = abs(R[i, 2]) * size[1] + size[0] * np.sqrt(max(0.0, 1.0 - R[i, 2] ** 2))
        elif t == CONVEX:
            e = 0.0
            for k in range(3):
                c += R[i, k] * lbox[k]
                e += abs(R[i, k]) * lbox[3 + k]
        else:  # plane: solid below z = 0 of its frame
            lo, hi = -np.inf, np.inf
            if R[i, 2] == 1.0:
                hi = p[i] + margin
            elif R[i, 2] == -1.0:
                lo = p[i] - margin
            box[g, i] = lo
            box[g, 3 + i] = hi
            continue
        box[g, i] = c - e - margin
        box[g, 3 + i] = c + e + margin
