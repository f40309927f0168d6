"""A first integrator: semi-implicit Euler on the configuration Lie group."""

from __future__ import annotations

import numpy as np

from .._internal import checks as _checks
from ..dynamics import NO_FORCES, SingularMassMatrixError, aba
from ..kernels.algorithms import simulate as _sim
from ..model import Model


def simulate(model: Model, q0, v0, torques, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Roll the model forward under ``torques`` (T, nv), one row per step of length ``dt``:
    v_{k+1} = v_k + dt aba(q_k, v_k, tau_k), q_{k+1} = integrate(q_k, dt v_{k+1}), except
    that free-flyer and planar joints advance their linear velocity in the step's start axes
    and turn it exactly into the new ones (kernels/configuration/frozen.py: a spinning free
    body keeps its speed).
    Returns (qs (T + 1, nq), vs (T + 1, nv)), the initial state first."""
    q0 = _checks.configuration(model, q0, "q0")
    v0 = _checks.vector(v0, model.nv, "v0")
    torques = _checks.matrix(torques, (-1, model.nv), "torques")
    dt = _checks.scalar(dt, "dt", positive=True)
    steps = torques.shape[0]
    qs = np.empty((steps + 1, model.nq))
    vs = np.empty((steps + 1, model.nv))
    data = model.create_data()
    bad = _sim.simulate(model.jnt, model.prm, q0, v0, torques, float(dt), NO_FORCES, data.ws,
                        qs, vs, np.empty(model.nv))
    if bad >= 0:
        explain_step(model, qs[bad], vs[bad], torques[bad], bad, dt, "simulate")
    return qs, vs


def explain_step(model: Model, q, v, tau, step: int, dt: float, what: str) -> None:
    """Raise for a rollout that stopped at ``step`` (from state (q, v) under tau): the
    checked forward dynamics at that state names a singular inertia or an overflow there;
    if it runs, the next state was not finite: the rollout diverged (a step too long for
    the dynamics, or torques that grow without bound)."""
    try:
        aba(model, model.create_data(), q, v, tau)
    except SingularMassMatrixError as e:
        raise SingularMassMatrixError(f"{what}: at step {step} (t = {step * dt:.6g} s): {e}") \
            from None
    except ValueError:  # an overflow, or a state already off its manifold: diverged
        pass
    raise _checks.NumericalOverflowError(
        f"{what} diverged at step {step} (t = {step * dt:.6g} s): the next state is not "
        f"finite (max |v| = {float(np.abs(v).max()) if v.size else 0.0:.3g} before it); a "
        f"shorter dt, or bounded torques, keep it finite")
