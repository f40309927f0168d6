"""Edit and sample a robot's parameters: ``model.with_inertia(...)`` and friends, and
``fastdyn.sample_parameters`` for Monte Carlo studies.

Every ``with_*`` returns a new Model with the same joints, frames and names (the same topology,
so a Data of one works with the other: they share ``token``) and one thing changed; the
original is untouched. Inertias are checked for physical consistency: positive mass, and
rotational inertia about the com with principal moments that are non-negative and satisfy
the triangle inequality (Traversaro, Brossette, Escande & Nori 2016; Wensing, Kim & Slotine
2017), which is what a real rigid body can have.

``sample_parameters(model, n, seed, mass=..., com=..., inertia=...)`` draws n sets of inertial
parameters (n, njoints - 1, 10) in Pinocchio's order, every one physically consistent by
construction: a body is parametrized as mass m > 0, com c and the principal second moments
s_k > 0 of its mass distribution about the com (with I_c = tr(S) 1 - S, S = R diag(s) R^T the
second-moment matrix; s_k >= 0 is exactly the triangle inequality, so this is the
pseudo-inertia's own parametrization, Wensing et al. 2017; Rucker & Wensing 2022 sample its
log-Cholesky factor, an equivalent choice). m and s are scaled by log-normal factors
exp(sigma N(0, 1)) (``mass``, ``inertia``: the relative spreads sigma), c moves by N(0, sigma^2)
per axis (``com``: metres); ``sample_parameters``' docstring states each law exactly. The
principal axes R stay those of the nominal body. A ``Payload`` adds a point mass with an
uncertain mass and centre on a frame.
Use the samples with the regressors: ``fd.batch.compute_joint_torque_regressor(model, Q, V, A)``
times ``samples.reshape(n, -1).T`` gives every sample's torques along the trajectory.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ._internal import checks as _checks
from ._internal.invariants import VIOLATIONS, check_table, crossed_limits  # noqa: F401
from ._internal.parallel import launch
from .builder import as_placement, check_inertia, dynamic_parameters
from .kernels import layout
from .kernels.entry import parameter_check
from .kernels.joints import codes
from .model import Model

__all__ = ["sample_parameters", "Payload", "point_mass_parameters", "parameter_batch",
           "is_physically_consistent", "with_inertia", "with_placement", "with_armature",
           "with_damping", "with_friction", "with_limits", "with_gravity", "with_parameters",
           "check_parameters", "check_inertias", "explain_inertias", "check_physical"]


def with_parameters(model: Model, prm) -> Model:
    """The model's topology with the parameter table ``prm`` (njoints, NP), e.g. one row of a
    batch from ``parameter_batch``; every invariant a new model must meet is checked
    (``Model.with_parameters``)."""
    _checks.model_arg(model)
    return model.with_parameters(prm)


def with_inertia(model: Model, joint: int | str, mass: float | None = None, com=None,
                 inertia=None) -> Model:
    """``model.with_inertia(joint, mass, com, inertia)``: joint ``joint``'s body changed."""
    _checks.model_arg(model)
    return model.with_inertia(joint, mass, com, inertia)


def with_placement(model: Model, joint: int | str, placement) -> Model:
    """``model.with_placement(joint, placement)``: the joint placed elsewhere in its parent."""
    _checks.model_arg(model)
    return model.with_placement(joint, placement)


def with_armature(model: Model, joint: int | str, armature) -> Model:
    """``model.with_armature(joint, armature)``: the joint's rotor inertia changed."""
    _checks.model_arg(model)
    return model.with_armature(joint, armature)


def with_damping(model: Model, joint: int | str, damping) -> Model:
    """``model.with_damping(joint, damping)``: the joint's viscous damping changed."""
    _checks.model_arg(model)
    return model.with_damping(joint, damping)


def with_friction(model: Model, joint: int | str, friction) -> Model:
    """``model.with_friction(joint, friction)``: the joint's dry friction changed."""
    _checks.model_arg(model)
    return model.with_friction(joint, friction)


def with_limits(model: Model, joint: int | str, lower=None, upper=None, velocity=None,
                effort=None) -> Model:
    """``model.with_limits(joint, lower, upper, velocity, effort)``: the joint's limits."""
    _checks.model_arg(model)
    return model.with_limits(joint, lower, upper, velocity, effort)


def with_gravity(model: Model, gravity) -> Model:
    """``model.with_gravity(gravity)``: the model under another gravity (3,)."""
    _checks.model_arg(model)
    return model.with_gravity(gravity)


def is_physically_consistent(pi, tol: float = 0.0) -> np.ndarray:
    """For inertial parameters pi (..., 10), Pinocchio's order: whether each is a rigid body's
    (positive mass, second moments of the mass distribution about the com >= -tol, i.e. the
    pseudo-inertia [[S_o, h], [h^T, m]] positive semi-definite with m > 0). Vectorized."""
    pi = _checks.real(pi, "pi", "inertial parameters (..., 10)")
    if pi.shape[-1:] != (10,):
        raise ValueError(f"pi must have shape (..., 10), got {pi.shape}")
    m, h = pi[..., 0], pi[..., 1:4]
    I = _sym(pi[..., 4:])
    ok = m > 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        c = h / np.where(ok, m, 1.0)[..., None]
    # I_c = I_o - m (|c|^2 1 - c c^T); S_c = tr(I_c) / 2 1 - I_c, eigenvalues >= 0
    cc = np.einsum("...i,...j->...ij", c, c)
    Ic = I - m[..., None, None] * (np.einsum("...ii->...", cc)[..., None, None] * np.eye(3) - cc)
    S = 0.5 * np.einsum("...ii->...", Ic)[..., None, None] * np.eye(3) - Ic
    ev = np.linalg.eigvalsh(S)
    return ok & (ev[..., 0] >= -tol) & np.all(np.isfinite(pi), axis=-1)


def _sym(x: np.ndarray) -> np.ndarray:
    """[xx, xy, yy, xz, yz, zz] (..., 6) -> symmetric (..., 3, 3)."""
    out = np.empty(x.shape[:-1] + (3, 3))
    for (r, s), k in zip(((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)), range(6)):
        out[..., r, s] = out[..., s, r] = x[..., k]
    return out


def _spread(x, name: str, nb: int, names) -> np.ndarray:
    """A spread per body (nb,) from one number, a sequence of nb, or {joint name: spread}."""
    if isinstance(x, dict):
        out = np.zeros(nb)
        index = {n: i for i, n in enumerate(names)}
        for k, val in x.items():
            if k not in index:
                raise KeyError(f"{name}: no moving joint named {k!r}")
            out[index[k]] = _checks.scalar(val, f"{name}[{k!r}]")
    else:
        out = np.broadcast_to(_checks.real(x, name, f"one spread or {nb}"), (nb,)).copy() \
            if np.ndim(x) == 0 else _checks.vector(x, nb, name)
    if not (np.all(np.isfinite(out)) and np.all(out >= 0.0)):
        raise ValueError(f"{name} spreads must be finite and >= 0, got {out}")
    return out


def point_mass_parameters(mass, position) -> np.ndarray:
    """The 10 inertial parameters (..., 10), Pinocchio's order, of point masses ``mass`` (...)
    at ``position`` (..., 3) in a body's frame, about that frame's origin:
    [m, m p, m (|p|^2 1 - p p^T)] (the parallel-axis theorem for a body with no inertia of its
    own about its centre, Featherstone 2008, eq. 2.63). Parameters of rigid bodies fixed to
    one another add, so ``pi + point_mass_parameters(m, p)`` is the body carrying the mass."""
    m = np.asarray(mass, dtype=np.float64)
    p = np.asarray(position, dtype=np.float64)
    out = np.empty(np.broadcast_shapes(m.shape, p.shape[:-1]) + (10,))
    out[..., 0] = m
    out[..., 1:4] = m[..., None] * p
    p2 = np.einsum("...i,...i->...", p, p)
    for k, (r, t) in enumerate(((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)), start=4):
        out[..., k] = m * (float(r == t) * p2 - p[..., r] * p[..., t])
    return out


@dataclass(frozen=True)
class Payload:
    """A point mass rigidly attached to a frame, with an uncertain mass and centre: a term of
    ``sample_parameters(..., payload=...)`` and ``fd.study.ParameterSampler(..., payload=...)``.

    ``frame``: the frame's name or index (e.g. "tool0"); the mass is added to the body of the
    joint that frame is fixed to (``model.frm[f]["parent_joint"]``), at the frame's placement.
    ``mass``: kg, or (kg, sigma): the nominal mass m0 > 0 and its relative spread, the same
    law as ``sample_parameters``' ``mass``: m = m0 exp(sigma N(0, 1)), log-normal, median m0
    (mean m0 exp(sigma^2 / 2)), always positive. ``com``: metres in the frame's axes, or
    (position, sigma): the nominal centre c0 (3,) and its absolute spread, as ``com``:
    c = c0 + sigma N(0, 1_3), each axis normal with standard deviation sigma metres, unbounded.

        Payload("tool0", mass=(1.0, 0.2), com=((0, 0, 0.05), 0.01))  # 1 kg +-20 %, 5 cm +-1 cm

    In the body's frame the centre is p = R_f c + p_f ((R_f, p_f): the frame's placement in
    its joint), and the body's parameters become pi + [m, m p, m (|p|^2 1 - p p^T)]
    (``point_mass_parameters``), which is exact: parameters about one origin add."""
    frame: str | int
    mass: float | tuple = 1.0
    com: tuple = (0.0, 0.0, 0.0)

    def __post_init__(self):
        m0, sm = self.mass if isinstance(self.mass, (tuple, list)) else (self.mass, 0.0)
        com = self.com
        if isinstance(com, (tuple, list)) and len(com) == 2 and np.ndim(com[0]) == 1:
            c0, sc = com
        else:
            c0, sc = com, 0.0
        m0 = _checks.scalar(m0, "Payload mass")
        sm = _checks.scalar(sm, "Payload mass spread")
        c0 = _checks.vector(c0, 3, "Payload com")
        sc = _checks.scalar(sc, "Payload com spread")
        if not m0 > 0.0:
            raise ValueError(f"Payload mass must be positive, got {m0}")
        if sm < 0.0 or sc < 0.0:
            raise ValueError(f"Payload spreads must be >= 0, got mass {sm}, com {sc}")
        object.__setattr__(self, "_law", (m0, sm, c0, sc))

    def sample(self, model: Model, rng: np.random.Generator, n: int):
        """(joint index, (n, 10) inertial parameters about that joint's origin) of n draws
        from ``rng`` (n masses, then n x 3 com offsets)."""
        f = _checks.frame_index(model, self.frame)
        j = int(model.frm[f]["parent_joint"])
        if j <= 0:
            raise ValueError(f"Payload: frame {model.frame_names[f]!r} is fixed to the world: "
                             "a payload there moves with no body")
        m0, sm, c0, sc = self._law
        m = m0 * np.exp(sm * rng.standard_normal(n))
        c = c0 + sc * rng.standard_normal((n, 3))
        p = c @ model.frm[f]["R"].T + model.frm[f]["p"]  # in the joint's frame
        return j, point_mass_parameters(m, p)


def sample_parameters(model: Model, n: int, seed: int | np.random.Generator | None = None,
                      mass=0.0, com=0.0, inertia=0.0, payload=None) -> np.ndarray:
    """n physically consistent variants of the model's inertial parameters, (n, njoints - 1,
    10), Pinocchio's order (see the module docstring for the parametrization).

    Every spread is the standard deviation of an unbounded normal draw, never a bound; each is
    one number, one per moving joint, or {joint name: spread}, and 0 keeps that part nominal:

    - ``mass``: relative, log-normal. m = m0 exp(sigma z), z ~ N(0, 1): sigma is the standard
      deviation of ln(m / m0); the median is m0, the mean m0 exp(sigma^2 / 2), and m > 0
      always (mass=0.1: about +-10 %, 68 % of samples within [0.905, 1.105] m0).
    - ``com``: absolute, in metres, normal. c = c0 + sigma z, z ~ N(0, 1_3) in the joint's
      axes: each axis independently, standard deviation sigma (com=0.01: 1 cm per axis).
    - ``inertia``: relative, log-normal, as ``mass``, on each of the three principal second
      moments s_k of the body's mass distribution about its com, independently, in the nominal
      principal axes (I_c = tr(S) 1 - S keeps the triangle inequality); they do not follow the
      sampled mass: a heavier sample of a body is not also larger.

    ``payload``: a ``Payload`` or a list of them, point masses with their own uncertain mass
    and centre, each added exactly to the body carrying its frame (drawn after the bodies, so
    a seed's body draws are the same with or without one).

    Bodies without mass are left as they are (a payload still adds to them); a nominal body
    that is not physically consistent (some URDFs ship one) has its negative second moments
    raised to zero, so its samples are. Reproducible for a given seed."""
    _checks.model_arg(model)
    n = _checks.integer(n, "n (the number of samples)", minimum=1)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(
        None if seed is None else _checks.integer(seed, "seed", minimum=0))
    nb = model.njoints - 1
    names = model.joint_names[1:]
    sm, sc, si = (_spread(x, k, nb, names) for x, k in ((mass, "mass"), (com, "com"),
                                                         (inertia, "inertia")))
    m0 = model.mass[1:]
    Ic0 = model.inertia[1:]
    S0 = 0.5 * np.einsum("bii->b", Ic0)[:, None, None] * np.eye(3) - Ic0  # second moments
    s0, R = np.linalg.eigh(S0)
    s0 = np.maximum(s0, 0.0)
    massive = m0 > 0.0
    m = np.where(massive, m0 * np.exp(sm * rng.standard_normal((n, nb))), m0)
    c = model.com[1:] + np.where(massive, sc, 0.0)[:, None] * rng.standard_normal((n, nb, 3))
    s = s0 * np.exp(np.where(massive, si, 0.0)[:, None] * rng.standard_normal((n, nb, 3)))
    # Entry (r, t) of I_o = I_c + m (|c|^2 1 - c c^T), I_c = tr(S) 1 - S, S = R diag(s) R^T,
    # on (n, nb) arrays: 3x3 intermediates for 10^5 bodies cost more than the whole sampler.
    trace = s.sum(axis=-1)  # tr S (R is orthonormal)
    c2 = np.einsum("nbi,nbi->nb", c, c)
    out = np.empty((n, nb, 10))
    out[..., 0] = m
    out[..., 1:4] = m[..., None] * c
    for k, (r, t) in enumerate(((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)), start=4):
        S_rt = np.einsum("nbk,bk->nb", s, R[:, r, :] * R[:, t, :])
        diag = float(r == t)
        out[..., k] = diag * trace - S_rt + m * (diag * c2 - c[..., r] * c[..., t])
    # payloads last, so that the bodies' draws for a seed do not depend on them
    for term in _payloads(payload):
        j, pi = term.sample(model, rng, n)
        out[:, j - 1] += pi
    return _checks.finite_result(out, ("mass", "com", "inertia"), (sm, sc, si))


def _payloads(payload) -> list[Payload]:
    terms = [] if payload is None else [payload] if isinstance(payload, Payload) \
        else list(payload)
    for t in terms:
        if not isinstance(t, Payload):
            raise TypeError(f"payload must be a fastdyn.Payload or a list of them, got "
                            f"{type(t).__name__}")
    return terms


def parameter_batch(model: Model, pi=None, gravity=None) -> np.ndarray:
    """A batch of robots for ``fastdyn.batch`` (``prm=``): (N, njoints, NP) float64, row s the
    model's parameter table with robot s's inertial parameters ``pi`` (N, njoints - 1, 10) as
    ``sample_parameters`` returns them, and/or gravity (N, 3).

    The batch is checked here once and returned read-only, so ``fastdyn.batch`` calls trust
    it without reading it all again. To edit anything else, edit a copy by name (checked at
    each use instead): ``P = np.array(batch); fastdyn.kernels.layout.named(P)[:, j]["damping"]
    [:, 0] = ...``."""
    _checks.model_arg(model)
    n = None
    if pi is not None:
        pi = _checks.real(pi, "pi", "inertial parameters (N, njoints - 1, 10)")
        if pi.ndim != 3 or pi.shape[1:] != (model.njoints - 1, 10):
            raise ValueError(f"parameter_batch: pi must have shape (N, {model.njoints - 1}, 10) "
                             f"(N robots, one row of 10 per moving joint of this "
                             f"{model.njoints - 1}-joint model), got shape {pi.shape}")
        n = pi.shape[0]
    if gravity is not None:
        gravity = _checks.real(gravity, "gravity", "(N, 3) gravity vectors")
        if gravity.ndim != 2 or gravity.shape[1] != 3 or (n is not None and
                                                          gravity.shape[0] != n):
            raise ValueError(f"gravity must have shape ({n if n is not None else 'N'}, 3), got "
                             f"{gravity.shape}")
        n = gravity.shape[0]
    if n is None:
        raise ValueError(f"parameter_batch needs pi= (N, {model.njoints - 1}, 10) inertial "
                         f"parameters and/or gravity= (N, 3), one row per robot; got pi=None "
                         f"and gravity=None")
    if n < 1:
        raise ValueError("parameter_batch: zero robots")
    out = np.empty((n,) + model.prm.shape)
    out[:] = model.prm
    if pi is not None:
        out[:, 1:, layout.P_PI:layout.P_PI + 10] = pi
    if gravity is not None:
        out[:, 0, layout.P_GRAVITY:layout.P_GRAVITY + 3] = gravity
    check_table(model.jnt, out, model.joint_names)
    return _seal(model, out)


# Batches parameter_batch made, checked and made read-only: id -> (weak reference, the
# topology's token). Checking a batch reads all of it (for a big robot, as long as an RNEA of
# every row), so a batch used many times is checked once, where it is made.
_CHECKED: dict[int, tuple] = {}


def _seal(model: Model, out: np.ndarray) -> np.ndarray:
    out.flags.writeable = False
    key = id(out)
    _CHECKED[key] = (weakref.ref(out, lambda _, k=key: _CHECKED.pop(k, None)), model.token)
    return out


def _sealed(model: Model, x: np.ndarray) -> bool:
    """Whether x (C-contiguous float64 (N, njoints, NP)) is a batch parameter_batch checked
    for this topology, or whole robots of one, and nobody can have written to it since: the
    batch is still read-only (so is every view of it)."""
    b = x
    while isinstance(b, np.ndarray):
        entry = _CHECKED.get(id(b))
        if entry is not None and entry[0]() is b:
            break
        b = b.base
    else:
        return False
    if entry[1] != model.token or b.flags.writeable or x.flags.writeable:
        return False
    return (x.ctypes.data - b.ctypes.data) % model.prm.nbytes == 0


def check_parameters(model: Model, prm) -> np.ndarray:
    """``prm`` as a batch (Np, njoints, NP) that the kernels may read for ``model``'s topology,
    or ValueError naming the robot, joint and field (the rules: ``check_table``). A
    (njoints, NP) table is one robot."""
    x = _checks.real(prm, "prm", f"parameters (N, {model.njoints}, {layout.NP})")
    if x.ndim == 2:
        x = x[None]
    if x.ndim != 3 or x.shape[1:] != model.prm.shape or x.shape[0] < 1:
        raise ValueError(f"prm must have shape (N, {model.njoints}, {layout.NP}) or "
                         f"({model.njoints}, {layout.NP}) for model {model.name!r}, got "
                         f"{np.shape(prm)}")
    x = np.ascontiguousarray(x, dtype=np.float64)
    if not _sealed(model, x):
        check_table(model.jnt, x, model.joint_names)
    x = x.view()  # read-only as the model's own table: one compiled type for both
    x.flags.writeable = False
    return x


def check_inertias(model: Model, pi) -> np.ndarray:
    """``pi`` as a batch over inertias (Np, njoints - 1, 10) the kernels may read for
    ``model``: body i of robot s in row [s, i - 1], Pinocchio's dynamic-parameter order, as
    ``sample_parameters`` returns it; (njoints - 1, 10) is one robot. Shape and type only: the
    batch kernels test each robot's numbers (finite, mass >= 0) as they read them and
    ``explain_inertias`` words a refusal. Read-only, as the model's own table."""
    want = (model.njoints - 1, 10)
    x = _checks.real(pi, "pi", f"inertial parameters (N, {want[0]}, 10)")
    if x.ndim == 2:
        x = x[None]
    if x.ndim != 3 or x.shape[1:] != want or x.shape[0] < 1:
        raise ValueError(f"pi must have shape (N, {want[0]}, 10) or {want}: the 10 inertial "
                         f"parameters of each moving body of model {model.name!r}, as "
                         f"fastdyn.sample_parameters returns them; got {np.shape(pi)}")
    x = np.ascontiguousarray(x, dtype=np.float64).view()
    x.flags.writeable = False
    return x


def explain_inertias(model: Model, PI: np.ndarray, rows: np.ndarray) -> None:
    """Raise ValueError for the first of ``rows`` whose inertias break a rule (finite, mass >=
    0: parameter_check.pi_violation), naming the row, robot, joint and rule; else return."""
    for r in rows:
        s = int(r) if PI.shape[0] > 1 else 0
        code = parameter_check.pi_violation(PI[s])
        if code >= 0:
            rule, joint = divmod(int(code), parameter_check.CODE)
            raise ValueError(f"row {int(r)}: pi: robot {s}, joint "
                             f"{model.joint_names[joint]!r}: {VIOLATIONS[rule]}")


def check_physical(model: Model, pi) -> None:
    """Raise ValueError "row r: pi: joint 'j': <rule>" for the first robot r of ``pi`` (N,
    njoints - 1, 10), float64, whose bodies are not rigid bodies (rules 6, 17 and 23 of
    kernels/entry/parameter_check.py: finite, mass >= 0, the pseudo-inertia positive
    semi-definite, i.e. the principal moments about the com meet the triangle inequality;
    a massless body may keep a rotational inertia, as the model's own). What a study checks
    its samples with, whatever it computes; else return."""
    r, code = parameter_check.first_unphysical(np.ascontiguousarray(pi, dtype=np.float64))
    if r >= 0:
        rule, joint = divmod(int(code), parameter_check.CODE)
        raise ValueError(f"row {int(r)}: pi: joint {model.joint_names[joint]!r}: "
                         f"{VIOLATIONS[rule]}")
