"""Frame placements: oMf = oMi[parent joint] * (frame placement in that joint).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Composition". Reads oMi
from the workspace, so forward kinematics must run first (the object API guarantees that).
"""

from .._jit import jit
from ..layout import OM


@jit
def frame_placement(frm, f, ws, out, o):
    """out[o:o+12] = ^0M_f = ^0M_j jM_f for frame f on joint j."""
    fr = frm[f]
    wp = ws[fr.parent_joint]
    R = fr.R
    p = fr.p
    for r in range(3):
        a = wp[OM + 3 * r]
        b = wp[OM + 3 * r + 1]
        c = wp[OM + 3 * r + 2]
        out[o + 3 * r] = a * R[0, 0] + b * R[1, 0] + c * R[2, 0]
        out[o + 3 * r + 1] = a * R[0, 1] + b * R[1, 1] + c * R[2, 1]
        out[o + 3 * r + 2] = a * R[0, 2] + b * R[1, 2] + c * R[2, 2]
        out[o + 9 + r] = wp[OM + 9 + r] + a * p[0] + b * p[1] + c * p[2]


@jit
def update_frame_placements(frm, ws, oMf):
    """oMf (nframes, 12) <- every frame's placement in the world, from the joint placements
    forward kinematics left in ws. Row layout: the rotation R row by row (R[0, 0], R[0, 1],
    R[0, 2], R[1, 0], ...), then the position p: row[:9].reshape(3, 3) is R, row[9:] is p."""
    for k in range(frm.shape[0]):
        frame_placement(frm, k, ws, oMf[k], 0)
