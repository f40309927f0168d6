"""Where the world-frame algorithms (ABA, CRBA) put the origin of their "world".

Spatial quantities expressed at a point far from the robot carry lever arms of that size:
a robot 1 km from the origin lost 6 digits in world-frame ABA (ABA(RNEA(a)) off by 2e-6 at
1 km, 3e-4 at 10 km, against 4e-12 at the origin). Any fixed frame works for these algorithms,
so they use the world's axes with the origin at the first joint's position: gravity, a free
vector, is unchanged, and every result in joint space is the same. oMi is shifted back after.
"""

from .._jit import jit
from ..joints.jcalc import jcalc
from ..layout import LI, OM


@jit
def shift_origin(jnt, prm, q, v, ws):
    """Put the universe at -p1 (p1: joint 1's position in the world) and return p1."""
    if jnt.shape[0] < 2:
        return 0.0, 0.0, 0.0
    jcalc(jnt, prm, 1, q, v, ws[1])
    rx, ry, rz = ws[1, LI + 9], ws[1, LI + 10], ws[1, LI + 11]
    ws[0, OM + 9] = -rx
    ws[0, OM + 10] = -ry
    ws[0, OM + 11] = -rz
    return rx, ry, rz


@jit
def restore_origin(ws, rx, ry, rz):
    """Undo shift_origin: oMi back in the world frame, the universe at the origin."""
    ws[0, OM + 9] = 0.0
    ws[0, OM + 10] = 0.0
    ws[0, OM + 11] = 0.0
    for i in range(1, ws.shape[0]):
        ws[i, OM + 9] += rx
        ws[i, OM + 10] += ry
        ws[i, OM + 11] += rz
