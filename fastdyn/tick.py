"""The calls of a control loop's tick, each one crossing into compiled code.

A controller at 1 kHz reads, at every state (q, v), the mass matrix, the nonlinear effects,
placements and Jacobians; a simulated plant then takes one step. Called one by one from
Python, each algorithm pays its own crossing (argument checks, unboxing) and recomputes the
placements the previous one had; here

    fd.compute_all_terms(model, data, q, v)       # Pinocchio's computeAllTerms (+ oMf)
    tau = data.M @ a_des + data.nle               # the control law, the user's own
    q, v = fd.forward_step(model, data, q, v, tau, dt)   # semi-implicit Euler

do it in two calls, and the step solves with the M and h the first call computed instead of
running ABA again (MuJoCo splits its step the same way, mj_step1 / mj_step2). Results are
views into ``data`` (overwritten by the next call: copy them to keep them). The kernels
(kernels/entry/all_terms.py, simulate.euler_step) can be called from a user's own @njit
code.
"""

from __future__ import annotations

import numpy as np

from ._internal import checks as _checks
from ._internal.checks import QUAT_TOL
from ._internal.fastcall import Kernel
from .frames import LOCAL, reference_code
from .kernels.entry import all_terms as _all_terms
from .kernels.entry import computed_torque as _computed_torque
from .kernels.entry import forward_step as _forward_step
from .kernels.checks import CODE
from .kinematics import NO_FORCES
from .model import Data, Model

__all__ = ["compute_all_terms", "computed_torque", "forward_step"]

_NONE = (None,)  # no record yet
_terms = Kernel(_all_terms.all_terms_checked, vectors=(3, 4))
_step = Kernel(_forward_step.forward_step_checked, vectors=(3, 4, 5))
_ct = Kernel(_computed_torque.computed_torque_checked, vectors=(3, 4, 5, 6, 7, 8, 9))
_F64 = _checks.F64
_ND = np.ndarray


def _same(model, data) -> None:
    """Raise unless ``data`` belongs to ``model`` (the fast test failed: say why)."""
    _checks.refuse_mimic(model)
    _checks.data_for(model, data)


def _target(model, data, frame, reference, com) -> tuple[int, int]:
    """Check that ``data`` is ``model``'s and ``com`` a bool; the tracked frame's index (-1:
    every frame) and the reference's code, as compute_all_terms and computed_torque take them
    (a misspelt frame name: KeyError naming it)."""
    try:
        same = data.model_token == model.token
    except AttributeError:  # not a Data or not a Model: _same says which
        same = False
    if not same:
        _same(model, data)
    if frame is None:
        f = -1
    else:
        f = frame if type(frame) is int and 0 <= frame < model.nframes else \
            _checks.frame_index(model, frame)
    ref = reference if type(reference) is int and reference == LOCAL else \
        reference_code(reference)
    if com is not True and com is not False:
        raise TypeError(f"com must be True or False, got {com!r}")
    return f, ref


def compute_all_terms(model: Model, data: Data, q, v, frame: int | str | None = None,
                      reference: int = LOCAL, com: bool = True) -> None:
    """At (q, v), in one compiled call, Pinocchio's computeAllTerms and the frame placements:

    - data.M (nv, nv): M(q), both triangles, armature included (as ``crba``)
    - data.nle (nv,): h(q, v) = C(q, v) v + g(q) (as ``non_linear_effects``)
    - data.J (6, nv): the world Jacobian of every dof (as ``compute_joint_jacobians``)
    - data.oMi_R / oMi_p, data.liMi_*, data.v: placements and LOCAL velocities, as
      ``forward_kinematics(q, v)`` leaves them
    - ``frame`` None: data.oMf (nframes, 12), every frame's placement (as
      ``update_frame_placements``). ``frame`` an id or a name (the frame a controller
      tracks): data.oMf[frame] only, and data.J_frame (6, nv), its Jacobian in ``reference``
      (as ``compute_frame_jacobian``); the other rows of oMf are left as they were.
    - for ``forward_step``: M and h, kept aside (data._tick_M, _tick_x), so that a step from
      this same state solves with them instead of running ABA
    - ``com`` True: data.com, data.vcom, data.mass, subtree centres of mass, their velocities
      and masses, row 0 the whole robot (as ``center_of_mass(q, v)``), and data.Jcom (3, nv),
      the Jacobian of the robot's (as ``jacobian_center_of_mass``); False skips them (left
      as they were).
    Returns None, as Pinocchio's computeAllTerms: read the results from ``data`` (views,
    overwritten by the next call).
    """
    f, ref = _target(model, data, frame, reference, com)
    nq, nv = model.nq, model.nv
    if not (type(q) is type(v) is np.ndarray and q.dtype is v.dtype is _checks.F64
            and q.ndim == v.ndim == 1 and len(q) == nq and len(v) == nv):
        q, v = _checks.vector(q, nq, "q"), _checks.vector(v, nv, "v")
    prm = model.prm
    code = _terms.call(model.jnt, prm, model.frm, q, v, f, ref, com, data.ws, data.oMf,
                       data.M, data.nle, data.J, data.J_frame, data.mass, data.com, data.vcom,
                       data.acom, data.Jcom, data._tick_M, data._tick_x, QUAT_TOL)
    if code:
        data.kinematics = 0
        _checks.explain(model, code, ("q", "v"), q, v)
    data.kinematics = 2
    # whose parameters the record (data._tick_*) holds: forward_step reuses it only for the
    # very same array (held here, so its memory cannot come back as another model's; in a
    # tuple, so that Data.nbytes does not count the model's table as the Data's)
    data._tick_prm = (prm,)


def computed_torque(model: Model, data: Data, q, v, q_ref, v_ref, a_ref, kp, kd,
                    frame: int | str | None = None, reference: int = LOCAL,
                    com: bool = False) -> np.ndarray:
    """The computed-torque control law at (q, v), with ``compute_all_terms``, in one
    compiled call (a controller's whole tick; the law: Siciliano et al. 2009, eq. (8.57);
    Lynch & Park 2017, eq. (11.35)):

        tau = M(q) (a_ref + kp e + kd (v_ref - v)) + h(q, v),   e = q_ref (-) q

    e is ``difference(model, q, q_ref)`` (a tangent vector: a free-flyer's or ball joint's
    error is its Lie group log, as the simulator's built-in PD takes it). ``kp``, ``kd``:
    numbers (one gain for every dof) or (nv,) arrays. ``frame``, ``reference``, ``com``: as
    ``compute_all_terms``, whose results are all left in ``data`` (M, nle, J, placements,
    the tracked frame's oMf row and J_frame); ``com`` defaults to False here (skipped).
    Returns data.tau (a view, overwritten by the next call); ``forward_step(model, data, q,
    v, tau, dt)`` right after steps a simulated plant from the same state with the M and h
    just computed. Bad references or gains raise, naming them; nothing is computed then."""
    f, ref = _target(model, data, frame, reference, com)
    nq, nv = model.nq, model.nv
    if not (type(q) is type(v) is type(q_ref) is type(v_ref) is type(a_ref) is _ND
            and q.dtype is v.dtype is q_ref.dtype is v_ref.dtype is a_ref.dtype is _F64
            and q.ndim == v.ndim == q_ref.ndim == v_ref.ndim == a_ref.ndim == 1
            and len(q) == len(q_ref) == nq and len(v) == len(v_ref) == len(a_ref) == nv):
        q, v = _checks.vector(q, nq, "q"), _checks.vector(v, nv, "v")
        q_ref = _checks.vector(q_ref, nq, "q_ref")
        v_ref, a_ref = _checks.vector(v_ref, nv, "v_ref"), _checks.vector(a_ref, nv, "a_ref")
    kp = _gain(kp, data._kp, nv, "kp")
    kd = _gain(kd, data._kd, nv, "kd")
    prm = model.prm
    tau = data.tau
    code = _ct.call(model.jnt, prm, model.frm, q, v, q_ref, v_ref, a_ref, kp, kd, f, ref, com,
                    data.ws, data.oMf, data.M, data.nle, data.J, data.J_frame, data.mass,
                    data.com, data.vcom, data.acom, data.Jcom, data._tick_M, data._tick_x, tau,
                    QUAT_TOL)
    if code:
        data.kinematics = 0
        _refused(model, code, q, v, q_ref, v_ref, a_ref, kp, kd)
    data.kinematics = 2
    data._tick_prm = (prm,)  # as compute_all_terms: the record is of this model's table
    return tau


def _gain(k, one: np.ndarray, nv: int, name: str) -> np.ndarray:
    """A gain as the kernel takes it: a number into the (1,) array ``one``, or (nv,)."""
    if type(k) is float:
        one[0] = k
        return one
    if type(k) is _ND and k.dtype is _F64 and k.ndim == 1 and len(k) == nv:
        return k
    if isinstance(k, (int, float, np.integer, np.floating)) and not isinstance(k, bool):
        one[0] = _checks.scalar(k, name)
        return one
    if isinstance(k, np.ndarray) and k.ndim == 0:
        one[0] = _checks.scalar(k, name)
        return one
    if not isinstance(k, (np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be a number or an array of {nv} floats, got "
                        f"{type(k).__name__} {k!r}")
    return _checks.vector(k, nv, name)


def _refused(model, code: int, q, v, q_ref, v_ref, a_ref, kp, kd) -> None:
    """Word computed_torque's refusal: the references' and gains' codes (10 + guard's), else
    compute_all_terms' own."""
    kind, detail = divmod(int(code), CODE)
    if kind == 14:
        name = ("kp", "kd")[detail]
        x = (kp, kd)[detail]
        raise ValueError(f"{name} has non-finite entries at indices "
                         f"{np.flatnonzero(~np.isfinite(x))[:5].tolist()}")
    if kind >= 11:
        _checks.configuration(model, q_ref, "q_ref")  # raises, naming the joint and the norm
        code = (kind - 10) * CODE + detail
        _checks.explain(model, code, ("q_ref", "v_ref", "a_ref"), q_ref, v_ref, a_ref)
    _checks.explain(model, code, ("q", "v"), q, v)


def forward_step(model: Model, data: Data, q, v, tau, dt: float,
                 fext=None) -> tuple[np.ndarray, np.ndarray]:
    """One step of length ``dt`` of the free plant under ``tau`` (and LOCAL external forces
    ``fext`` (njoints, 6)), in one compiled call:

        ddq = aba(q, v, tau, fext);  v_next = v + dt ddq;  q_next = q (+) dt v_next

    (semi-implicit Euler on the configuration Lie group, as ``fastdyn.simulate``). Right after
    ``compute_all_terms`` at the same (q, v) and model, without ``fext``, ddq comes from the
    M and h that call computed (ddq = M^-1 (tau - h), a tree-sparse factorization) instead of
    ABA: the same equation, a fraction of the cost. Returns
    (data.q_next, data.v_next); data.ddq holds ddq. Passing them back as q, v next tick is
    fine (each entry is read before it is written). Frame and joint queries then need
    compute_all_terms or forward_kinematics at the new state first."""
    try:
        same = data.model_token == model.token
    except AttributeError:
        same = False
    if not same:
        _same(model, data)
    nq, nv = model.nq, model.nv
    if not (type(q) is type(v) is type(tau) is np.ndarray  # _checks.fast_state, inlined
            and q.dtype is v.dtype is tau.dtype is _checks.F64
            and q.ndim == v.ndim == tau.ndim == 1 and len(q) == nq and len(v) == len(tau) == nv):
        q, v, tau = _checks.fast_state(q, v, tau, nq, nv, "tau")
    if not (type(dt) is float and dt > 0.0 and dt - dt == 0.0):
        dt = _checks.scalar(dt, "dt", positive=True)
    fx = NO_FORCES if fext is None else _checks.forces(model, fext)
    qn, vn = data.q_next, data.v_next
    prm = model.prm
    code = _step.call(model.jnt, prm, model.dof, q, v, tau, fx, dt,
                      data.__dict__.get("_tick_prm", _NONE)[0] is prm, data.ws, data.ddq, qn, vn,
                      data._tick_M, data._tick_x, QUAT_TOL)
    # ws holds the placements of q, not of the q_next the caller moves on to (and may have
    # passed as q): no frame query may take them for the new state's
    data.kinematics = 0
    if code:
        if code // CODE == 7:
            raise _checks.NumericalOverflowError(
                f"forward_step: the next state is not finite although every input is (dt = "
                f"{dt:.6g}, max |tau| = {float(np.abs(tau).max()) if tau.size else 0.0:.3g}): "
                f"the step diverged; a shorter dt or smaller torques keep it finite")
        _checks.explain(model, code, ("q", "v", "tau", "fext"), q, v, tau)
    return qn, vn
