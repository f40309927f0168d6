"""Transition Jacobians of one simulator step: ``scene.step_derivatives(q, v, tau)`` -> (A, B).

    A, B = scene.step_derivatives(q, v, tau)   # A (2nv, 2nv) = d(q+, v+)/d(q, v), B (2nv, nv)
    AA, BB = fd.batch.step_derivatives(scene, Q, V, TAU)   # one pair per row, in parallel

(q+, v+) is ``scene.step(q, v, tau)``, bit for bit (after ``scene.reset()`` when constraint
rows enter the step: the solve starts cold). Perturbations are tangent vectors at q and
at q+, q (+) dq = ``integrate(q, dq)``, Pinocchio's convention: rows and columns are ordered
(dq, dv), and the matrices equal pinocchio.computeABADerivatives composed with
pinocchio.dIntegrate (the equations are in kernels/contact/step_derivatives.py).

What is differentiated is the step: semi-implicit Euler on the Lie group with implicit
viscous damping ((M + dt D) in place of M), armature on M's diagonal, the external forces
``fext`` held fixed, effort clamping, whose derivative is zero for a clamped torque (its column
of B is zero; at |tau_k| = effort_max_k the unclamped side is taken), and the constraint rows
(contacts, joint limits, dry joint friction) **with their active set held fixed**: the step's
percussions say which contacts are separated, sticking or sliding and which limit and friction
rows are at a bound, and the Jacobians are those of the step on that branch (sticking
contacts and rows between their bounds as equality constraints with the step's compliance and
targets, sliding contacts with friction mu lam_n against the slip, separated contacts and rows
at a bound fixed). They do not see a perturbation that would change the active set (a contact
closing or opening, sticking turning to sliding): at such a transition they are one-sided.
The compliance R = r diag(G) is held at its value (its own q-dependence, of relative size r,
is dropped). kernels/contact/constraint_derivatives.py states the equations and which side
each degenerate state takes. The constraint solve starts cold (zero warm start), so (q+, v+)
is ``Scene.step``'s after ``Scene.reset()``; both stop at the scene's ``tolerance``, so the
Jacobians describe the exact solution of the step's problem only to that tolerance (finite
differences of ``Scene.step`` agree once it is tight). A state whose linearized constraint
problem is singular raises numpy.linalg.LinAlgError. Scenes with integrator="rk4" are
refused. Soft contacts (``Scene(solref=, solimp=)``) are differentiated with their
compliance and targets as functions of the state (the impedance d(phi(q)), J(q) v).
Constraints (``Scene.add_constraint(s)``, ``add_mjcf_equalities``: loop closures, welds, joint
couplings) are bilateral rows, always active: differentiated exactly (their Jacobians' own
q-dependence, the world-fixed forces on the moving points and frames, hard targets' erp slope,
soft ones' impedance, compliance and velocity product as functions of the state, a soft
weld's rotation rows included: kernels/contact/equality_derivatives.py), but for hard rows'
compliance r diag(G), held at its value as for contacts. Geom contacts (``Scene.add_geom``)
are differentiated with their contact frame (n, t1, t2) held at its value and their point
moving as the narrow phase moves it (a sphere's or capsule's below its centre,
a corner against the world with its body, else as a material point of each body); the gap's
first-order derivative is exact (the envelope theorem: d depth = J_n dq). Exact where the
normal is a face of the world (a box on the ground or on a world box, a sphere on a world box);
where a moving body's face gives the normal, its turning is dropped
(kernels/contact/geom_derivatives.py states what is held and tests/test_step_derivatives_geoms.py
measures it).

Two consequences worth knowing. A contact at rest settles at a gap of about -1e-13 m, where
the gap's target switches slope (erp / dt inside, 1 / dt outside): its Jacobians take the
penetrating side, and a finite difference straddling that gap would average the two. With
redundant rows (a box's four corners flat on the ground) the split of the percussions among
them is decided by the compliance alone, and Gauss-Seidel stops at the tolerance long before
that split converges: the Jacobians are those of the converged split, which matters only where
the split moves the bodies (corners slipping in different directions).

From your own @njit code: ``fastdyn.kernels.step_derivatives`` (kernels/algorithms/
step_derivatives.py), with the buffers of ``step_buffers`` below.
"""

from __future__ import annotations

import numba
import numpy as np

from .._internal import checks as _checks
from .._internal.checks import QUAT_TOL
from .._internal.fastcall import ANY_VECTOR, Kernel
from .._internal.pointer_call import compiled_address
from ..dynamics import NO_FORCES
from ..errors import DivergenceError, SingularMassMatrixError, TooManyContactsError
from ..kernels import layout as L
from ..kernels.contact import generated_step_derivatives as _gsd
from ..kernels.contact import step_derivatives as _sd

# one entry point per type of ``geo`` and ``eqc`` (None, or the scene's tables), generic and
# generated: a Kernel binds to the signature of its first call
_KERNELS = {(g, e): Kernel(_sd.step_derivatives_checked, vectors=(8, 9, 10))
            for g in (False, True) for e in (False, True)}
_GENERATED = {(g, e): Kernel(_gsd.generated_step_derivatives_checked, vectors=(11, 12, 13))
              for g in (False, True) for e in (False, True)}
# the generic single call's (address, stamp) per type of geo and eqc, for the generated
# route's other steps: made with the first call's argument types (``generic_code``)
_GENERIC: dict[tuple[bool, bool], tuple[int, int]] = {}
_free_kernel = Kernel(_gsd.free_step_derivatives_checked, vectors=(4, 5, 6))
_F64 = _checks.F64
_STALE = _sd.STALE * _sd.CODE


def step_options(scene, PRM: np.ndarray) -> np.ndarray:
    """The scene's options as its step kernel reads them for these robots (O_FREE set as
    Scene's launches set it); refuses a scene that integrates with RK4 (ValueError)."""
    if scene.opt[L.O_INTEGRATOR] == L.RK4:
        raise ValueError("step_derivatives: this scene integrates with integrator='rk4'; only "
                         "the semi-implicit Euler step ('euler') is differentiated")
    opt = scene.opt.copy()
    opt[L.O_FREE] = float(scene._free(PRM))
    return opt


def step_tables(scene) -> tuple:
    """(geo, eqc): the scene's geom and constraint tables as its step reads them (None for
    none: the kernels then compile none of their code)."""
    return scene._geo_tables(), scene._eqc_tables()


def _entries(scene, geo) -> tuple[int, int]:
    """(contact entries, warm-start keys) of the scene's step (time_step.contact_capacity,
    geom_rows.capacity)."""
    K = 0 if geo is None else int(geo[3][0])
    return scene._npair() + K, K


def prepared(scene) -> tuple:
    """(model, spheres, halfspaces, ws, ibuf, scratch, A's shape, B's shape, geo, eqc, the
    number of constraints, the entry point's Kernel for geo and eqc) for single calls on the
    scene's model,
    kept on the scene (one Scene per thread, as for ``step``); scratch holds the prepared
    options, fbuf, dbuf, qn and vn end to end (kernels/contact/step_derivatives.py's
    step_derivatives_checked). Valid while the model and the geometry arrays are the same
    objects (adding a sphere or a half-space replaces its array), the constraints and geoms
    the same, and the scene's options equal the prepared ones but for O_FREE, which the
    kernel checks (STALE)."""
    m = scene.model
    opt = step_options(scene, m.prm[None])
    geo, eqc = step_tables(scene)
    _, _, nf, ni = scene._sizes()
    npair, K = _entries(scene, geo)
    scratch = np.zeros(_sd.scratch_size(m.nq, m.nv, nf, npair, K, m.njoints))
    scratch[:L.NO] = opt
    cache = (m, scene.spheres, scene.halfspaces, L.workspace(m.jnt), np.zeros(ni, np.int64),
             scratch, (2 * m.nv, 2 * m.nv), (2 * m.nv, m.nv), geo, eqc, len(scene._constraints),
             _KERNELS[geo is not None, eqc is not None])
    scene.__dict__["_step_derivatives"] = cache
    return cache


def current(scene) -> tuple:
    """``prepared``'s tuple kept on the scene, prepared again when the scene's model,
    geometry arrays, constraints or geom tables are not the ones it was made for."""
    c = scene.__dict__.get("_step_derivatives")
    if c is None or c[0] is not scene.model or c[1] is not scene.spheres or \
            c[2] is not scene.halfspaces or c[10] != len(scene._constraints) or \
            (scene._geoms and c[8] is not scene._geo_tables()):
        c = prepared(scene)
    return c


def step_buffers(scene, threads: int | None = None) -> tuple[np.ndarray, ...]:
    """(ws, fbuf, ibuf, dbuf): the workspaces the step_derivatives kernel needs, one set, or
    one per thread (a leading axis) when ``threads`` is given (its geo and eqc:
    ``step_tables``)."""
    model = scene.model
    _, _, nf, ni = scene._sizes()
    npair, K = _entries(scene, scene._geo_tables())
    nd = _sd.derivative_size(model.nv, npair, model.njoints, K)
    if threads is None:
        return L.workspace(model.jnt), np.zeros(nf), np.zeros(ni, np.int64), np.zeros(nd)
    return (L.workspace(model.jnt, threads), L.per_thread(threads, (nf,)),
            L.per_thread(threads, (ni,), np.int64), L.per_thread(threads, (nd,)))


def explain(scene, code: int, where: str = "the step") -> None:
    """Raise the error a step_derivatives code stands for."""
    kind, detail = divmod(int(code), _sd.CODE)
    model = scene.model
    if kind == _sd.DEGENERATE:
        raise np.linalg.LinAlgError(
            f"step_derivatives: the linearized constraint problem of {where} is singular at "
            f"its row {detail} (a degenerate active set, e.g. redundant rows without "
            f"compliance: set Scene.regularization > 0)")
    if kind == _sd.SINGULAR:
        j = int(model.dof[detail]["joint"])
        raise SingularMassMatrixError(
            f"{where}: M(q) + dt diag(damping) is not positive definite at dof {detail} (joint "
            f"{model.joint_names[j]!r}): a moving joint carries no mass or inertia")
    if kind == _sd.DIVERGED:
        what = "the next state" if detail == 0 else "its Jacobians"
        raise DivergenceError(f"{where}: {what} is not finite although the inputs are (an "
                              f"overflow: inputs too large for float64)")
    if kind == _sd.NOT_EULER:
        raise ValueError("step_derivatives: integrator='rk4' steps are not differentiated")
    if kind == _sd.TOO_MANY:
        raise TooManyContactsError(
            f"{where}: the geoms have {detail} contacts, more than the scene's max_contacts "
            f"({scene.max_contacts}): raise Scene.max_contacts")
    raise RuntimeError(f"unknown step_derivatives code {code}")


def step_derivatives(scene, q, v, tau=None, fext=None,
                     generated=None) -> tuple[np.ndarray, np.ndarray]:
    """(A, B): the Jacobians of ``scene.step(q, v, tau, fext)``, A = d(q+, v+)/d(q, v)
    (2nv, 2nv) and B = d(q+, v+)/d(tau) (2nv, nv), in the tangent spaces at q and q+
    (Pinocchio's convention); contacts, limits and dry friction with their active set held
    fixed (separated, sticking or sliding contacts, rows at a bound or between as this step
    has them: one-sided where a perturbation would switch them), the solve started cold (the
    step after ``reset``); clamped torques have zero columns. See fastdyn/sim/step_derivatives.py;
    ``fastdyn.batch.step_derivatives`` for many states. ``generated``:
    ``fastdyn.codegen.generate(model, algorithms=(..., "aba_derivatives"))`` for a step
    without constraint rows or fext (kernels/contact/generated_step_derivatives.py; other
    steps take the generic route). This function is ``Scene.step_derivatives`` itself."""
    f = scene._step_derivatives_free
    prepare = True  # the short route below: (re)prepared after this call when it was not taken
    if f is not None and f[0] is generated and fext is None:
        # the generated route of a contact-free step, as an earlier call below prepared it
        _, model, sph, hsp, nq, nv, shape_a, shape_b, address, free = f
        if (model is scene.model and sph is scene.spheres and hsp is scene.halfspaces
                and type(q) is type(v) is type(tau) is np.ndarray  # as below
                and q.dtype is v.dtype is tau.dtype is _F64 and q.ndim == v.ndim == tau.ndim == 1
                and len(q) == nq and len(v) == len(tau) == nv):
            A, B = np.empty(shape_a), np.empty(shape_b)
            code = _free_kernel.call(address, model.jnt, model.prm, scene.opt, q, v, tau, free,
                                     A, B, QUAT_TOL)
            if not code:
                return A, B
            prepare = code == _STALE  # else the route below checks, steps and explains
    model = scene.model
    nq, nv = model.nq, model.nv
    if tau is None:
        tau = np.zeros(nv)
    if not (type(q) is type(v) is type(tau) is np.ndarray  # _checks.fast_state, inlined
            and q.dtype is v.dtype is tau.dtype is _F64
            and q.ndim == v.ndim == tau.ndim == 1 and len(q) == nq and len(v) == len(tau) == nv):
        q, v, tau = _checks.fast_state(q, v, tau, nq, nv, "tau")
    fext = NO_FORCES if fext is None else _checks.forces(model, fext)
    c = current(scene)
    A, B = np.empty(c[6]), np.empty(c[7])
    if generated is None:
        code = c[11].call(model.jnt, model.prm, model.dof, c[1], c[2], c[8], c[9], scene.opt, q,
                          v, tau, fext, c[3], c[4], c[5], A, B, QUAT_TOL)
        if code:
            _finish(scene, code, c[11].call, (), q, v, tau, fext, A, B)
        return A, B
    # the generated route: its callback's address kept on the scene with the kernels it came
    # from (checked against the scene's model once)
    address = generated_address(scene, generated)
    key = c[8] is not None, c[9] is not None
    call = _GENERATED[key].call
    generic = _GENERIC.get(key)
    if generic is None:  # typing the arguments costs ~150 us: once, as the kernel's entry
        generic = _GENERIC[key] = generic_code(model, c, scene.opt, fext, A, B)
    code = call(address, *generic, model.jnt, model.prm, model.dof, c[1], c[2], c[8], c[9],
                scene.opt, q, v, tau, fext, c[3], c[4], c[5], A, B, QUAT_TOL)
    if code:
        _finish(scene, code, call, (address, *generic), q, v, tau, fext, A, B)
    c = scene.__dict__["_step_derivatives"]  # as _finish left it
    if prepare and fext is NO_FORCES and c[5][L.O_FREE] > 0.0:  # the next calls: above
        free = np.zeros(_gsd.free_size(nq, nv))
        free[:L.NO] = c[5][:L.NO]
        scene._step_derivatives_free = (generated, model, c[1], c[2], nq, nv, c[6], c[7],
                                        address, free)
    return A, B


def single_call_types(model, c, opt, fext, A, B) -> tuple:
    """The numba types of step_derivatives_checked's arguments in the single call
    (``_KERNELS``': any-layout q, v, tau; ``c`` a ``prepared`` tuple); the generated route's
    kernel takes three integers before them (its callback's address, then ``generic_code``)."""
    t = numba.typeof
    return (t(model.jnt), t(model.prm), t(model.dof), t(c[1]), t(c[2]), t(c[8]), t(c[9]),
            t(opt), ANY_VECTOR, ANY_VECTOR, ANY_VECTOR, t(fext), t(c[3]), t(c[4]), t(c[5]),
            t(A), t(B), numba.float64)


def generic_code(model, c, opt, fext, A, B) -> tuple[int, int]:
    """(address, stamp) of step_derivatives_checked's compiled code for the single call's
    argument types (``single_call_types``), which the generated route calls for the steps it
    does not take (and the horizon for each step): one compiled code for every route
    (kernels/_pointer_call.py)."""
    return compiled_address(_sd.step_derivatives_checked,
                            single_call_types(model, c, opt, fext, A, B))


def generated_address(scene, generated) -> int:
    """The C callback address of ``generated``'s ABA derivatives for the scene's model, kept on
    the scene with the module it came from (checked against the model once)."""
    g = scene.__dict__.get("_step_derivatives_generated")
    if g is None or g[0] is not generated or g[1] is not scene.model:
        from .generated_step_derivatives import aba_derivatives
        g = (generated, scene.model, aba_derivatives(scene.model, generated).address)
        scene.__dict__["_step_derivatives_generated"] = g
    return g[2]


def _finish(scene, code, call, head, q, v, tau, fext, A, B) -> None:
    """A call that returned a code: retried once if it found the scene's options edited
    (STALE), else the error the code stands for is raised."""
    model = scene.model
    if code == _STALE:  # the scene's options were edited since the last call
        c = prepared(scene)
        code = call(*head, model.jnt, model.prm, model.dof, c[1], c[2], c[8], c[9], scene.opt, q,
                    v, tau, fext, c[3], c[4], c[5], A, B, QUAT_TOL)
        if code == _STALE:
            raise ValueError(f"step_derivatives: the scene's options are not finite: "
                             f"{scene.opt.tolist()}")
    if code == _sd.WRONG_CALLEE * _sd.CODE:
        raise RuntimeError("step_derivatives: the generic step's compiled code was not the one "
                           "for these argument types, or raised (an internal error: please "
                           "report it)")
    if code >= _sd.CHECKED * _sd.CODE:
        explain(scene, code - _sd.CHECKED * _sd.CODE)
    if code:
        _checks.explain(model, code, ("q", "v", "tau"), q, v, tau)


__all__ = ["step_derivatives", "step_buffers", "step_options", "step_tables", "prepared",
           "current", "explain", "generated_address"]
