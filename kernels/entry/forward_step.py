"""One step of a simulated plant, as a control loop's plant model takes it: forward dynamics,
then semi-implicit (symplectic) Euler on the configuration Lie group, in one compiled call.

  ddq     = M(q)^-1 (tau - h(q, v) + J^T f_ext)     (= aba(q, v, tau, f_ext))
  v_next  = v + dt ddq
  q_next  = q (+) dt v_next              (the exponential map: Pinocchio documentation,
                                          "SE(3) operations" cheat sheet, "Joint"; free-flyer
                                          and planar joints as configuration/frozen.py)
Two ways to ddq, the same equation: ABA (Featherstone 2008, Table 7.1) in general, through
simulate.euler_step (the step fastdyn.simulate takes); or, when the M(q) and h(q, v) that
compute_all_terms recorded (all_terms.record) are those of this very state and model and no
external force acts, the tree-sparse factorization M = U D U^T and its solve (cholesky.py;
Featherstone 2008, sec. 6.5): a controller's tick has just computed M and h, and solving
with them costs a fraction of ABA. The factor is kept, so a second step from the same state
only solves. The outputs may be the inputs themselves (q_next is q, v_next is v): each entry
is read before it is written.
"""

from .._jit import jit
from ..configuration.frozen import euler
from ..layout import IA
from .all_terms import recorded
from ..linalg.cholesky import cholesky, solve
from ..checks import (CODE, all_nv, check_state, first_nonfinite, first_nonfinite_row, nq_nv,
                      overflow_code)
from ..algorithms.simulate import euler_step


@jit
def forward_step_checked(jnt, prm, dof, q, v, tau, fext, dt, reuse, ws, ddq, q_next, v_next,
                         TM, tx, tol):
    """0, or guard.py's code: 1-5 a bad input, 6 / 9 a singular articulated inertia / M
    (nothing written to q_next, v_next), 7 ddq or the next state not finite, 8 a size.
    ``reuse``: the caller vouches that the record (TM, tx) was made with these parameters
    (the same prm array; gravity, q and v are compared here)."""
    code = check_state(jnt, prm, q, v, tau, fext, ws, tol)
    nq, nv = nq_nv(jnt)
    if code == 0 and not (all_nv(jnt, v, tau, ddq) and v_next.shape[0] == nv
                          and q_next.shape[0] == nq and dof.shape[0] == nv
                          and TM.shape[0] == nv and TM.shape[1] == nv
                          and tx.shape[0] == 1 + nq + 3 * nv + 3):
        code = 8 * CODE
    if code != 0:
        return code
    if reuse and fext.shape[0] == 0 and recorded(prm, q, v, tx):
        oh = 1 + nq + nv + 3
        D = tx[oh + nv:oh + 2 * nv]
        if tx[0] == 1.0:  # M recorded, not yet factored: factor it in place
            bad = cholesky(dof, TM, TM, D)
            if bad >= 0:
                tx[0] = 0.0  # the copy of M is gone
                return 9 * CODE + bad
            tx[0] = 2.0
        for k in range(nv):
            ddq[k] = tau[k] - tx[oh + k]
        solve(dof, TM, D, ddq)
        euler(jnt, q, v, ddq, dt, q_next, v_next)
    else:
        bad = euler_step(jnt, prm, q, v, tau, dt, fext, ws, ddq, q_next, v_next)
        if bad >= 0:  # as guard.aba_checked: singular if the articulated inertia is finite
            return 6 * CODE + bad if first_nonfinite_row(ws[bad:bad + 1], IA, 36, 1) < 0 \
                else 7 * CODE
    code = overflow_code(first_nonfinite(ddq))
    if code == 0:
        code = overflow_code(max(first_nonfinite(v_next), first_nonfinite(q_next)))
    return code
