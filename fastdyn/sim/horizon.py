"""``Scene.horizon``: a horizon of steps and their Jacobians in one call, for iLQR and MPC.

    h = scene.horizon(q0, v0, U)                       # open loop: U (H, nv)
    h = scene.horizon(q0, v0, U, gains=K, q_ref=h.q[:-1], v_ref=h.v[:-1])   # iLQR's forward pass
    h.q (H+1, nq), h.v (H+1, nv), h.tau (H, nv), h.A (H, 2nv, 2nv), h.B (H, 2nv, nv)

An iLQR iteration needs, along a trajectory, every state and every step's Jacobians (A, B);
asking ``Scene.step`` and ``Scene.step_derivatives`` for them step by step crosses from Python
into compiled code twice a step. This call crosses once (kernels/entry/horizon.py): each
step is ``Scene.step_derivatives``'s, so the states are ``Scene.step``'s after
``Scene.reset()`` (the constraint solve starts cold at every step) and the Jacobians are
``step_derivatives``' (the same active-set conventions), bit for bit. ``gains`` closes the
loop as iLQR's forward pass does: tau_k = U_k + K_k [difference(q_ref,k, q_k); v_k - v_ref,k]
(the error in the tangent space at q_ref,k, ``fastdyn.difference``), and ``h.tau`` holds the
torques so commanded (the effort limits then clamp them inside the step; a clamped torque's
column of B is zero). ``out``: a Horizon of the right shapes to fill instead of new arrays
(an MPC loop allocates nothing per tick).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .._internal import checks as _checks
from .._internal.checks import QUAT_TOL
from .._internal.fastcall import Kernel
from .._internal.pointer_call import compiled_address
from ..kernels.contact import generated_step_derivatives as _gsd, step_derivatives as _sd
from ..kernels.entry import horizon as _hz
from . import step_derivatives as _step_derivatives

# Q, V and TAU (positions 23, 24, 25) as any-layout matrices: their rows are then the types
# of step_derivatives' single call, whose compiled code the horizon's loop calls through its
# address (kernels/_pointer_call.py: compiled once for both, not linked in twice). One entry
# point for the generic kernels (address None), one for generated ones (an integer address),
# each per type of geo and eqc (None or tables).
_KERNELS = {(a, g, e): Kernel(_hz.horizon_checked, vectors=(13, 14), matrices=(23, 24, 25))
            for a in (False, True) for g in (False, True) for e in (False, True)}
# The step kernel's (address, stamp) for each entry point, made with its first call's
# argument types (fastcall's entry point keeps those types for every later call too).
_STEPS: dict[tuple[bool, bool, bool], tuple[int, int, int, int]] = {}
_OPEN = (np.zeros((0, 0, 0)), np.zeros((0, 0)), np.zeros((0, 0)))  # K, q_ref, v_ref: none
_NO_FEXT = np.zeros((1, 0, 6))


class Horizon(NamedTuple):
    """States q (H+1, nq), v (H+1, nv) from the initial one, the commanded torques tau (H, nv)
    and each step's Jacobians A (H, 2nv, 2nv) = d(q+, v+)/d(q, v), B (H, 2nv, nv) =
    d(q+, v+)/d(tau), in the tangent spaces (Pinocchio's convention: ``step_derivatives``)."""
    q: np.ndarray
    v: np.ndarray
    tau: np.ndarray
    A: np.ndarray
    B: np.ndarray


def empty(model, steps: int) -> Horizon:
    """A Horizon's arrays for ``steps`` steps of ``model``, to pass as ``out=``."""
    nq, nv = model.nq, model.nv
    return Horizon(np.empty((steps + 1, nq)), np.empty((steps + 1, nv)), np.empty((steps, nv)),
                   np.empty((steps, 2 * nv, 2 * nv)), np.empty((steps, 2 * nv, nv)))


def horizon(scene, q0, v0, U, *, gains=None, q_ref=None, v_ref=None, fext=None,
            out: Horizon | None = None, generated=None) -> Horizon:
    """The states, commanded torques and Jacobians of ``U.shape[0]`` steps from (q0, v0)
    under the torques ``U`` (H, nv), in one compiled call (fastdyn/sim/horizon.py).
    ``gains`` (H, nv, 2nv) with ``q_ref`` (H, nq) and ``v_ref`` (H, nv): the feedback
    tau_k = U_k + gains_k [difference(q_ref,k, q_k); v_k - v_ref,k] (iLQR's forward pass),
    all three or none. ``fext``: (njoints, 6) at every step, or (H, njoints, 6) one per step
    (LOCAL, as ``fastdyn.rnea``). ``out``: a Horizon (``fastdyn.sim.horizon.empty``) to
    fill. Each step is ``step_derivatives``' (the constraint solve started cold), so the
    scene's kinds of step and errors are its: scenes with integrator="rk4" are refused.
    ``generated``: the model's generated module with "aba_derivatives"
    (``fastdyn.codegen.generate``), as ``step_derivatives(generated=)``."""
    model = scene.model
    nq, nv = model.nq, model.nv
    U = _checks.matrix(U, (-1, nv), "U (one torque vector per step)")
    H = U.shape[0]
    q0 = _checks.configuration(model, q0, "q0")
    v0 = _checks.vector(v0, nv, "v0")
    closed = (gains, q_ref, v_ref)
    if all(x is None for x in closed):
        K, QR, VR = _OPEN
    elif any(x is None for x in closed):
        raise ValueError("horizon: gains, q_ref and v_ref go together (the feedback "
                         "U_k + gains_k [difference(q_ref_k, q_k); v_k - v_ref_k]): pass all "
                         "three")
    else:
        K = _checks.matrix(gains, (H, nv, 2 * nv), "gains")
        QR = _checks.matrix(q_ref, (H, nq), "q_ref")
        VR = _checks.matrix(v_ref, (H, nv), "v_ref")
    if fext is None:
        F = _NO_FEXT
    else:
        F = np.asarray(fext)
        F = (_checks.forces(model, F)[None] if F.ndim == 2
             else _checks.matrix(F, (H, model.njoints, 6), "fext (one (njoints, 6) per step)"))
    if out is None:
        out = empty(model, H)
    else:
        for name, x, shape in zip(Horizon._fields, out, empty_shapes(nq, nv, H)):
            _checks.output(x, shape, f"out.{name}")
    c = _step_derivatives.current(scene)
    dx = np.empty(2 * nv)
    address = None if generated is None else _step_derivatives.generated_address(scene,
                                                                                 generated)
    for attempt in range(2):
        key = address is not None, c[8] is not None, c[9] is not None
        kernel = _KERNELS[key]
        step = _STEPS.get(key)
        if step is None:  # typing the arguments costs ~150 us: once, as the kernel's entry
            step = _STEPS[key] = _step_code(address, model, c, scene.opt, F, out)
        code, k = kernel.call(address, *step, model.jnt, model.prm, model.dof, c[1], c[2], c[8],
                              c[9], scene.opt, q0, v0, U, K, QR, VR, F, c[3], c[4], c[5], *out,
                              dx, QUAT_TOL)
        if code != _sd.STALE * _sd.CODE or attempt:
            break
        c = _step_derivatives.prepared(scene)  # the scene's options changed since: again
    if code:
        _explain(scene, int(code), int(k), out)
    return out


def _step_code(address, model, c, opt, F, out) -> tuple[int, int, int, int]:
    """(address, stamp) of the compiled step kernel the horizon's loop calls (kernels/entry/
    horizon.py), then the generic step_derivatives_checked's (the generated route's other
    steps), for the argument types the loop passes: those of the single calls
    (``_step_derivatives._KERNELS``, ``_GENERATED``: any-layout q, v, tau), so that they and
    the horizon share one compiled code."""
    types = _step_derivatives.single_call_types(model, c, opt, F[0], out.A[0], out.B[0])
    generic = compiled_address(_sd.step_derivatives_checked, types)
    if address is None:
        return generic + generic
    step = compiled_address(_gsd.generated_step_derivatives_checked,
                            (numba.typeof(address), numba.int64, numba.int64) + types)
    return step + generic


def empty_shapes(nq: int, nv: int, steps: int) -> tuple[tuple[int, ...], ...]:
    """The shapes of a Horizon's arrays (q, v, tau, A, B) for ``steps`` steps."""
    return ((steps + 1, nq), (steps + 1, nv), (steps, nv), (steps, 2 * nv, 2 * nv),
            (steps, 2 * nv, nv))


def _explain(scene, code: int, k: int, out: Horizon) -> None:
    """Raise the error of step k's code, naming the step."""
    where = f"step {k} of the horizon"
    if code == _sd.STALE * _sd.CODE:
        raise ValueError(f"horizon: the scene's options are not finite: {scene.opt.tolist()}")
    if code == _sd.WRONG_CALLEE * _sd.CODE:
        raise RuntimeError("horizon: the step's compiled code was not the one for these "
                           "argument types, or raised (an internal error: please report it)")
    if code == _hz.BAD_SIZES * _sd.CODE:
        raise ValueError("horizon: the arrays do not fit the model (the scene's buffers or "
                         "the inputs' shapes)")
    if code >= _sd.CHECKED * _sd.CODE:
        _step_derivatives.explain(scene, code - _sd.CHECKED * _sd.CODE, where)
    names = (f"q at {where}", f"v at {where}", f"tau at {where} (U plus the feedback)")
    _checks.explain(scene.model, code, names, out.q[k], out.v[k], out.tau[k])
    raise RuntimeError(f"horizon: unknown code {code} at {where}")
