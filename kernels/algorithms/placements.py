"""World placements of frames and joints as 4x4 homogeneous matrices, from the joint
placements of the last forward kinematics in ws (the object API guarantees they are fresh).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Composition":
^0M_f = ^0M_j ^jM_f for frame f on joint j.
"""

from .._jit import jit
from ..layout import OM
from .frames import frame_placement


@jit
def _homogeneous(x, o, T):
    """T (4, 4) from the 12 numbers x[o:o+12] (R row-major, then p)."""
    for r in range(3):
        for c in range(3):
            T[r, c] = x[o + 3 * r + c]
        T[r, 3] = x[o + 9 + r]
        T[3, r] = 0.0
    T[3, 3] = 1.0


@jit
def frame_T(frm, f, ws, oMf, T):
    """T = ^0M_f, also written to oMf[f]. Returns False (nothing written) if f, oMf or the
    workspace does not fit the model."""
    if (f < 0 or f >= frm.shape[0] or oMf.shape[0] != frm.shape[0] or oMf.shape[1] != 12
            or frm[f].parent_joint >= ws.shape[0]):
        return False
    frame_placement(frm, f, ws, oMf[f], 0)
    _homogeneous(oMf[f], 0, T)
    return True


@jit
def joint_T(j, ws, T):
    """T = ^0M_j. Returns False if j is not a row of the workspace."""
    if j < 0 or j >= ws.shape[0]:
        return False
    _homogeneous(ws[j], OM, T)
    return True
