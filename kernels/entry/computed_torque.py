"""A computed-torque controller's whole tick in one pass: compute_all_terms, then the law.

    e   = q_ref (-) q                       (configuration difference: Lie group log)
    tau = M(q) (a_ref + Kp e + Kd (v_ref - v)) + h(q, v)

Source: the computed-torque (inverse-dynamics) control law, Siciliano, Sciavicco, Villani &
Oriolo, "Robotics: Modelling, Planning and Control" (2009), sec. 8.5.2, eq. (8.57) with the
outer loop (8.58); Lynch & Park, "Modern Robotics" (2017), sec. 11.4.1, eq. (11.35). M and
h = C(q, v) v + g(q) come from all_terms.py (CRBA and RNEA at a = 0); the error is Pinocchio's
``difference(q, q_ref)``, so a free-flyer's or ball joint's error is a tangent vector (the
same error as the simulator's built-in PD, controllers.pd_feedforward). Gains are joint-wise:
Kp and Kd (nv,), or (1,) for one gain on every dof.

Everything compute_all_terms leaves is left too (placements, J, the tracked frame's
placement and Jacobian, M and h recorded for forward_step.py), so a controller that needs
more than the law reads it from the same pass.
"""

from .._jit import jit
from ..configuration.dispatch import difference
from .all_terms import all_terms_checked
from ..linalg.dense import affine
from ..checks import CODE, check_inputs, first_nonfinite


@jit
def computed_torque_law(jnt, q, v, q_ref, v_ref, a_ref, kp, kd, M, nle, x, tau):
    """tau = M x + h with x = a_ref + Kp (q_ref (-) q) + Kd (v_ref - v); x (nv,) scratch.
    kp, kd: (nv,) or (1,) (one gain for every dof)."""
    nv = v.shape[0]
    difference(jnt, q, q_ref, x)
    one_p, one_d = kp.shape[0] == 1, kd.shape[0] == 1
    for k in range(nv):
        p = kp[0] if one_p else kp[k]
        d = kd[0] if one_d else kd[k]
        x[k] = a_ref[k] + p * x[k] + d * (v_ref[k] - v[k])
    affine(M, nle, x, nv, tau)


@jit
def computed_torque_checked(jnt, prm, frm, q, v, q_ref, v_ref, a_ref, kp, kd, frame, reference,
                            with_com, ws, oMf, M, nle, J, Jf, mass, com, vcom, acom, Jcom, TM,
                            tx, tau, tol):
    """The object API's entry point. 0, or a code: guard.py's codes of all_terms_checked for
    (q, v); 11, 12, 13 (* CODE + index) q_ref, v_ref, a_ref not finite; 15 q_ref off the
    manifold (at joint ``index``); 14 a gain not finite (index: 0 kp, 1 kd); 18 a size of
    the references, the gains or tau. Nothing is computed when a reference or gain is bad."""
    nv = v.shape[0]
    if not (v_ref.shape[0] == nv and a_ref.shape[0] == nv and tau.shape[0] == nv
            and (kp.shape[0] == nv or kp.shape[0] == 1)
            and (kd.shape[0] == nv or kd.shape[0] == 1)):
        return 18 * CODE
    code = check_inputs(jnt, q_ref, v_ref, a_ref, ws[:0, :6], tol)
    if code != 0:
        return code + 10 * CODE
    if first_nonfinite(kp) >= 0:
        return 14 * CODE
    if first_nonfinite(kd) >= 0:
        return 14 * CODE + 1
    code = all_terms_checked(jnt, prm, frm, q, v, frame, reference, with_com, ws, oMf, M, nle,
                             J, Jf, mass, com, vcom, acom, Jcom, TM, tx, tol)
    if code != 0:
        return code
    # the record's D part (all_terms_checked's scratch, zeroed) is free until forward_step
    # factors M into it
    nq = q.shape[0]
    x = tx[4 + nq + 2 * nv:4 + nq + 3 * nv]
    computed_torque_law(jnt, q, v, q_ref, v_ref, a_ref, kp, kd, M, nle, x, tau)
    if first_nonfinite(tau) >= 0:
        return 7 * CODE
    return 0
