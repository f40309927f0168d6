"""fastdyn's Numba kernels: plain @njit functions over the model's topology ``jnt``, its
parameter table ``prm`` and a Data workspace, callable from your own @njit code.

    from fastdyn.kernels import aba, integrate, rnea

    @numba.njit
    def computed_torque(jnt, prm, q, v, q_ref, dt, steps, fext, ws, a_des, tau, ddq, q_next):
        for _ in range(steps):
            for k in range(q.shape[0]):       # a revolute arm: q and v share indices
                a_des[k] = 100.0 * (q_ref[k] - q[k]) - 20.0 * v[k]
            rnea(jnt, prm, q, v, a_des, fext, ws, tau)   # tau <- inverse dynamics
            aba(jnt, prm, q, v, tau, fext, ws, ddq)      # ddq <- forward dynamics
            for k in range(v.shape[0]):
                v[k] += dt * ddq[k]
            integrate(jnt, q, v, dt, q_next)                 # Lie-group step
            q[:] = q_next

    computed_torque(model.jnt, model.prm, q, v, q_ref, 1e-3, 1000, np.zeros((0, 6)),
                    data.ws, np.empty(model.nv), data.tau, data.ddq, np.empty(model.nq))

tests/test_user_njit.py runs this loop. Arguments follow one order: model arrays
(``model.jnt`` the topology, ``model.prm`` the parameters (njoints, NP) with gravity in
its universe row, ``model.frm``, ``model.dof``), inputs, the workspace
``data.ws`` (or ``workspace(model.jnt)``: not ``np.zeros``, whose universe row lacks the
identity placements the kernels read, so every result would be NaN), outputs last. Inputs are trusted: check
them with the object API (``fastdyn.rnea`` etc.) or validate them yourself. ``fext`` is
(njoints, 6) LOCAL forces or a (0, 6) array for none; an empty ``v`` (shape (0,)) means
"placements only" where a kernel accepts it. The derivative kernels read the same way, their
(nv, nv) outputs last (Data's arrays of the same names):
``rnea_derivatives(jnt, prm, q, v, a, fext, ws, tau, dtau_dq, dtau_dv, M)``,
``aba_derivatives(jnt, prm, dof, q, v, tau, fext, ws, ddq, ddq_dq, ddq_dv, M, U, D, Minv)``
(returns -1, or a joint whose inertia is singular) and
``static_torque_derivatives(jnt, prm, q, fext, ws, tau, dtau_dq)``; one simulator step's
Jacobians, ``step_derivatives(jnt, prm, dof, sph, hsp, geo, eqc, opt, q, v, tau, fext, ws, fbuf,
ibuf, dbuf, qn, vn, A, B)`` (geo, eqc: None, or a scene's tables, fastdyn.sim.step_derivatives.
step_tables; buffers: its step_buffers). Kinematics derivatives:
``kinematics_derivatives(jnt, prm, q, v, a, ws)``, then
``joint_motion_derivatives(jnt, ws, joint, reference, dv_dq, dv_dv, da_dq, da_dv, da_da)`` or
``frame_motion_derivatives(jnt, frm, ws, f, reference, oMf, dv_dq, ...)`` ((6, nv) outputs; the
acceleration ones (6, 0) for velocities only);
``centroidal_dynamics_derivatives(jnt, prm, q, v, a, ws, dh_dq, dhdot_dq, dhdot_dv, dhdot_da,
hg, dhg)`` (returns the total mass).
A controller's tick: ``all_terms(jnt, prm, frm, q, v, frame, with_com, ws, oMf, M, nle, J,
mass, com, vcom, acom, Jcom, zero)`` (fastdyn.compute_all_terms' kernel; frame -1: every
frame placement), ``computed_torque_law(jnt, q, v, q_ref, v_ref, a_ref, kp, kd, M, h, x, tau)``
(tau = M (a_ref + kp (q_ref (-) q) + kd (v_ref - v)) + h; kp, kd (nv,) or (1,); x (nv,)
scratch) and ``simulate``'s step, ``kernels.entry.simulate.euler_step``.
Rigid constraints (fastdyn.RigidConstraint; ``fastdyn.constraint_table(model, constraints)``
gives their table, lambda has ``table["kind"].sum()`` = m rows):
``constraint_dynamics(jnt, prm, dof, table, q, v, tau, prox, ws, work, ddq, lam)`` and
``impulse_dynamics(jnt, prm, dof, table, q, v, restitution, prox, ws, work, v_after, lam)``,
with prox the (layout.NX,) proximal settings (mu, max_iter, absolute and relative accuracy in;
iterations and residuals out) and work ``constraint_work_size(nv, m)`` floats of scratch; both
return (status, detail), (0, 0) when solved (kernels/contact/constrained_dynamics.py);
``constraint_dynamics_derivatives(jnt, prm, dof, table, q, v, tau, prox, ws, work, ddq, lam,
ddq_d, lam_d)`` adds d ddq/d(q, v, tau) (3, nv, nv) and d lam/d(q, v, tau) (3, m, nv) for
contacts with the world (mu = 0; work: ``constraint_derivatives_work_size(nv, m, njoints)``),
``impulse_dynamics_derivatives(jnt, prm, dof, table, q, v, restitution, prox, ws, work,
v_after, lam, dv_d, lam_d)`` d v+/d(q, v-) (2, nv, nv) and d lam/d(q, v-) (2, m, nv).
For a loop over sampled inertias, ``rnea_inertias``, ``aba_inertias`` and ``crba_inertias``
take one more array after ``prm``: the bodies' inertias pi (njoints - 1, 10), body i in row
i - 1 (one sample of ``fastdyn.sample_parameters``), read instead of prm's.
"""

from .algorithms.aba import aba, aba_inertias
from .entry.all_terms import all_terms
from .algorithms.aba_derivatives import aba_derivatives
from .algorithms.center_of_mass import center_of_mass
from .entry.computed_torque import computed_torque_law
from .algorithms.centroidal_derivatives import centroidal_dynamics_derivatives
from .linalg.cholesky import cholesky, inverse as cholesky_inverse, solve as cholesky_solve
from .algorithms.crba import crba, crba_inertias
from .contact.constrained_dynamics import constraint_dynamics, impulse_dynamics
from .contact.constrained_dynamics import work_size as constraint_work_size
from .contact.constrained_dynamics_derivatives import (constraint_dynamics_derivatives,
                                                       impulse_dynamics_derivatives)
from .contact.constrained_dynamics_derivatives import (
    derivatives_work_size as constraint_derivatives_work_size)
from .algorithms.energy import kinetic_energy, potential_energy
from .algorithms.forward_kinematics import forward_kinematics
from .algorithms.frames import update_frame_placements
from .algorithms.jacobian import frame_jacobian, joint_jacobian, joint_jacobians
from .algorithms.kinematics_derivatives import (frame_motion_derivatives,
                                                joint_motion_derivatives, kinematics_derivatives)
from .algorithms.rnea import rnea, rnea_inertias
from .algorithms.rnea_derivatives import rnea_derivatives, static_torque_derivatives
from .algorithms.simulate import simulate
from .contact.step_derivatives import step_derivatives
from .configuration.dispatch import difference, integrate, neutral, normalize
from .joints.jcalc import jcalc
from .layout import workspace

__all__ = ["aba", "aba_inertias", "aba_derivatives", "all_terms", "center_of_mass",
           "centroidal_dynamics_derivatives", "cholesky", "cholesky_inverse", "cholesky_solve",
           "computed_torque_law", "constraint_derivatives_work_size", "constraint_dynamics",
           "constraint_dynamics_derivatives", "constraint_work_size", "crba",
           "crba_inertias", "difference", "forward_kinematics", "frame_jacobian",
           "frame_motion_derivatives", "impulse_dynamics", "impulse_dynamics_derivatives",
           "integrate", "jcalc", "joint_jacobian", "joint_jacobians",
           "joint_motion_derivatives", "kinematics_derivatives",
           "kinetic_energy", "neutral", "normalize", "potential_energy", "rnea",
           "rnea_derivatives", "rnea_inertias", "simulate", "static_torque_derivatives",
           "step_derivatives", "update_frame_placements", "workspace"]
