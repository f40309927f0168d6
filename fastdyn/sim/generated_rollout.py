"""A model's generated forward dynamics handed to the compiled rollout loop.

``Scene.rollout(..., generated=gen)`` steps with ``gen.kernels.aba_prm(prm, q, v, tau, ddq)``
(fastdyn.codegen: the model's ABA unrolled, placements and axes as literals, inertias, armature
and gravity read from prm) in place of the generic ABA (kernels/contact/generated_step.py);
rollouts of the model itself (no ``prm=`` batch) take ``gen.kernels.aba_own``, the same
arguments on the kernel with the inertias as literals too (measured on Solo12: 743 ns against
aba_prm's 821 ns a call). The kernel reaches the loop as a C callback of that fixed signature
(fastdyn/sim/policy.py's pattern): numba types it by the signature, not by the function, so the
rollout loop is compiled once and cached on disk for every model and for the generic rollouts
too (which pass ``no_aba``, never called). Each model's callback is compiled once and cached
beside its generated module: measured (2 cores, load ~2.5, core kernels cached) 3.8 s for UR5,
5.5 s Panda, 9.7 s Solo12, 44 s Talos in the first process, 0.01-0.07 s in the next ones. The
call is not inlined: a few nanoseconds against a step of a few hundred nanoseconds or more.

Steps that may have constraint rows (contacts, limits, dry friction, damping) take
``gen.kernels.free_velocity_own`` / ``free_velocity_prm`` likewise (fastdyn/codegen/
free_velocity.py: CRBA, RNEA and the factorization of one step, unrolled), a second callback
of its own fixed signature. A rollout compiles only the one its scene can use: a scene where
no row can arise steps with the ABA, any other with the free velocity.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.core.ccallback import CFunc

from . import policy as _policy
from .._internal import batching
from ..kernels.contact import generated_step
from ..model import Model


def signature(PRM: np.ndarray):
    """aba_prm(prm, q, v, tau, ddq) as the rollout loop calls it: one robot's table PRM[r]
    (read-only when it is the model's own) and C-contiguous vectors (Q[r], V[r], TC[t], a
    slice of FBUF[t])."""
    vec = types.float64[::1]
    return types.void(numba.typeof(PRM[0]), vec, vec, vec, vec)


def fv_signature(PRM: np.ndarray, ws: np.ndarray):
    """free_velocity_prm(prm, q, v, tau, dt, ws, U, D, vf) -> int64 as the rollout loop calls
    it: ``signature``'s robot and vectors, one thread's workspace (a row of the rollout's
    ws3) and U, a C-contiguous view of the step's buffer."""
    vec = types.float64[::1]
    return types.int64(numba.typeof(PRM[0]), vec, vec, vec, types.float64,
                       numba.typeof(ws), types.float64[:, ::1], vec, vec)


def generic(PRM: np.ndarray, ws: np.ndarray) -> tuple[CFunc, CFunc]:
    """The stand-ins (aba, free velocity) of rollouts on the generic kernels."""
    return (_policy.callback(generated_step.no_aba, signature(PRM)),
            _policy.callback(generated_step.no_free_velocity, fv_signature(PRM, ws)))


def callbacks(model: Model, generated, PRM: np.ndarray, ws: np.ndarray,
              free: bool) -> tuple[CFunc, CFunc]:
    """(aba, free velocity) for the rollout loop: ``generated``'s aba_prm (aba_own for the
    model's own table) when ``free`` (no constraint row can arise), else its free_velocity_prm
    (free_velocity_own); the other one the generic stand-in. Checks first that ``generated``
    was generated from ``model`` with what the scene needs, and that every robot of ``PRM``
    has the kinematic parameters it holds (otherwise a ValueError naming the first row that
    has other ones). Kernels generated without free_velocity step rows generically."""
    if not hasattr(generated, "kernels") or not hasattr(generated, "model_token"):
        raise TypeError(f"generated must be fastdyn.codegen.generate(model)'s kernels, got "
                        f"{type(generated).__name__}")
    batching.generated_for(model, generated)
    kernels = generated.kernels
    if free and not hasattr(kernels, "aba_prm"):
        raise ValueError("these generated kernels have no ABA: fastdyn.codegen.generate(model, "
                         "algorithms=(..., 'aba')) for rollouts")
    aba, fv = generic(PRM, ws)
    use = kernels.aba_prm if free else getattr(kernels, "free_velocity_prm", None)
    if use is None:
        return aba, fv  # no generated kernel for this scene: nothing baked in is used
    same = np.array([kernels.same_kinematics(PRM[s]) for s in range(PRM.shape[0])])
    if not same.all():
        batching.kinematics_differ(model, PRM, np.where(same, -1, 0))
        raise ValueError(f"robot {int(np.argmin(same))} of prm has other kinematic parameters "
                         f"than these generated kernels hold: use generated=None for it")
    own = PRM.shape[0] == 1 and np.array_equal(PRM[0], model.prm)
    if free:
        aba = _policy.callback(kernels.aba_own if own and hasattr(kernels, "aba_own")
                               else kernels.aba_prm, signature(PRM))
    else:
        fv = _policy.callback(kernels.free_velocity_own if own else kernels.free_velocity_prm,
                              fv_signature(PRM, ws))
    return aba, fv
