"""fastdyn's Numba kernels: plain @njit functions over the model's record arrays and a Data
workspace, callable from your own @njit code.

    from fastdyn.kernels import aba, integrate

    @numba.njit
    def pd_loop(jnt, gravity, q, v, q_ref, dt, steps, fext, ws, ddq, q_next):
        for _ in range(steps):
            tau = 100.0 * (q_ref - q) - 20.0 * v
            aba(jnt, gravity, q, v, tau, fext, ws, ddq)   # ddq <- forward dynamics
            v += dt * ddq
            integrate(jnt, q, v, dt, q_next)            # Lie-group step
            q[:] = q_next

    pd_loop(model.jnt, model.gravity, q, v, q_ref, 1e-3, 1000, np.zeros((0, 6)),
            data.ws, data.ddq, np.empty(model.nq))

Arguments follow one order: model arrays (``model.jnt``, ``model.frm``, ``model.dof``,
``model.gravity``), inputs, the workspace ``data.ws``, outputs last. Inputs are trusted: check
them with the object API (``fastdyn.rnea`` etc.) or validate them yourself. ``fext`` is
(njoints, 6) LOCAL forces or a (0, 6) array for none; an empty ``v`` (shape (0,)) means
"placements only" where a kernel accepts it.
"""

from .algorithms.aba import aba
from .algorithms.center_of_mass import center_of_mass
from .algorithms.cholesky import cholesky, inverse as cholesky_inverse, solve as cholesky_solve
from .algorithms.crba import crba
from .algorithms.energy import kinetic_energy, potential_energy
from .algorithms.forward_kinematics import forward_kinematics
from .algorithms.frames import update_frame_placements
from .algorithms.jacobian import frame_jacobian, joint_jacobian, joint_jacobians
from .algorithms.rnea import rnea
from .algorithms.simulate import simulate
from .configuration.dispatch import difference, integrate, neutral, normalize
from .joints.jcalc import jcalc

__all__ = ["aba", "center_of_mass", "cholesky", "cholesky_inverse", "cholesky_solve", "crba",
           "kinetic_energy", "potential_energy", "forward_kinematics", "update_frame_placements",
           "rnea", "simulate", "joint_jacobians", "joint_jacobian", "frame_jacobian", "difference", "integrate", "neutral", "normalize", "jcalc"]
