"""One step of a simulated plant, as a control loop's plant model takes it: forward dynamics,
then semi-implicit (symplectic) Euler on the configuration Lie group, in one compiled call.

  ddq     = aba(q, v, tau, f_ext)        (Featherstone 2008, Table 7.1)
  v_next  = v + dt ddq
  q_next  = q (+) dt v_next              (the exponential map: Pinocchio documentation,
                                          "SE(3) operations" cheat sheet, "Joint")
The step itself is simulate.euler_step (the one fastdyn.simulate takes); this file is its
entry point for the object API, with the input checks and codes of guard.py. The outputs may
be the inputs themselves (q_next is q, v_next is v): each entry is read before it is written.
"""

from .._jit import jit
from ..layout import IA
from .guard import CODE, _all_nv, _finite, _finite_block, _overflow, _sizes, check_state
from .simulate import euler_step


@jit
def forward_step_checked(jnt, prm, q, v, tau, fext, dt, ws, ddq, q_next, v_next, tol):
    """0, or guard.py's code: 1-5 a bad input, 6 a singular articulated inertia (nothing
    written to q_next, v_next), 7 ddq or the next state not finite, 8 a size."""
    code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    if code == 0 and not (_all_nv(jnt, v, tau, ddq) and v_next.shape[0] == v.shape[0]
                          and q_next.shape[0] == _sizes(jnt)[0]):
        code = 8 * CODE
    if code != 0:
        return code
    bad = euler_step(jnt, prm, q, v, tau, dt, fext, ws, ddq, q_next, v_next)
    if bad >= 0:  # as guard.aba_checked: singular if the articulated inertia is finite
        return 6 * CODE + bad if _finite_block(ws[bad:bad + 1], IA, 36, 1) < 0 else 7 * CODE
    code = _overflow(_finite(ddq))
    if code == 0:
        code = _overflow(max(_finite(v_next), _finite(q_next)))
    return code
