"""A model's generated ABA derivatives handed to the step-Jacobian kernel.

``Scene.step_derivatives(q, v, tau, generated=gen)`` differentiates a contact-free step with
``gen.kernels.aba_derivatives(gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv)``
(fastdyn.codegen, algorithms=(..., "aba_derivatives")) in place of the generic kernel
(kernels/contact/generated_step_derivatives.py). The kernel reaches it as a C callback of
that fixed signature (fastdyn/sim/policy.py's pattern, as fastdyn/sim/generated_rollout.py), so the
step kernel is compiled once for every model (users' own @njit loops may pass
``no_aba_derivatives`` on the generic route: never called there). The callback is compiled
once per model and cached beside its module.
"""

from __future__ import annotations

from numba.core.ccallback import CFunc

from . import policy as _policy
from .._internal import batching
from ..kernels.contact import generated_step_derivatives as _gsd
from ..model import Model

SIGNATURE = _gsd.SIGNATURE


def aba_derivatives(model: Model, generated) -> CFunc:
    """``generated``'s aba_derivatives as the step kernel's callback (its ``address`` is what
    the checked kernel takes), after checking that it was generated from ``model`` with that
    algorithm."""
    if not hasattr(generated, "kernels") or not hasattr(generated, "model_token"):
        raise TypeError(f"generated must be fastdyn.codegen.generate(model)'s kernels, got "
                        f"{type(generated).__name__}")
    batching.generated_for(model, generated)
    if not hasattr(generated.kernels, "aba_derivatives"):
        raise ValueError("these generated kernels have no ABA derivatives: fastdyn.codegen."
                         "generate(model, algorithms=(..., 'aba_derivatives'))")
    return _policy.callback(generated.kernels.aba_derivatives, SIGNATURE)
