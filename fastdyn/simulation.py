"""A first integrator: semi-implicit Euler on the configuration Lie group."""

from __future__ import annotations

import numpy as np

from . import _checks
from .dynamics import NO_FORCES, SingularMassMatrixError
from .kernels.algorithms import simulate as _sim
from .model import Model


def simulate(model: Model, q0, v0, torques, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Roll the model forward under ``torques`` (T, nv), one row per step of length ``dt``:
    v_{k+1} = v_k + dt aba(q_k, v_k, tau_k), q_{k+1} = integrate(q_k, dt v_{k+1}).
    Returns (qs (T + 1, nq), vs (T + 1, nv)), the initial state first."""
    q0 = _checks.configuration(model, q0, "q0")
    v0 = _checks.vector(v0, model.nv, "v0")
    torques = _checks.matrix(torques, (-1, model.nv), "torques")
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite time step, got {dt}")
    steps = torques.shape[0]
    qs = np.empty((steps + 1, model.nq))
    vs = np.empty((steps + 1, model.nv))
    data = model.create_data()
    bad = _sim.simulate(model.jnt, model.gravity, q0, v0, torques, float(dt), NO_FORCES, data.ws,
                        qs, vs, np.empty(model.nv))
    if bad >= 0:
        raise SingularMassMatrixError(f"simulate: singular forward dynamics at step {bad}")
    return qs, vs
