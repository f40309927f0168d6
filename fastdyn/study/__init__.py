"""Monte Carlo studies: many robots drawn from a distribution of parameters, one computation
each, the results beside the parameters, summarized over the samples.

    model = fd.models.load("ur5")
    sampler = fd.study.ParameterSampler(model, mass=0.1, com=0.01, inertia=0.2)
    res = fd.study.run(model, sampler, fd.study.InverseDynamics(Q, V, A), n=100_000, seed=1)
    res.params                  # (n, njoints - 1, 10): sample s's inertial parameters
    res["peak"], res["rms"]     # (n, nv): its peak and RMS torque of each joint
    res.mean["peak"], res.quantiles["peak"]   # over the samples; quantiles at res.levels

What to compute (one per study):

- ``InverseDynamics(Q, V, A, every=None)``: the torques along one trajectory. It goes by the
  regressor: Y(q_t, v_t, a_t) once per step, then tau_s(t) = Y pi_s + armature a_t per sample
  (kernels/entry/regressor_product.py), a few times faster than RNEA per sample and
  step; outputs peak and RMS torque per joint, and with ``every=k`` the torques at every k-th
  step ("tau", (n, ceil(T / k), nv)) for fan charts.
- ``Rollouts(q0, v0, steps, scene=None, record=(), **controls)``: forward rollouts of every
  sample from one or several initial states, by ``Scene.rollout`` (contacts, limits, a PD
  controller or your policy; ``controls`` are its keyword arguments, shared by every sample).
- ``AtStates(Q, V=None, X=None, quantity="rnea")``: inverse dynamics, forward dynamics or the
  mass matrix of every sample at each given state.

Samples: sample s is drawn from the random stream of its block of ``BLOCK`` samples,
``np.random.default_rng([seed, s // BLOCK])``, so the samples depend on (seed, s) alone, not on
n nor on how the study is sliced, chunked or distributed; ``sampler.draw(seed, lo, hi)``
redraws any of them. Every computation treats each sample on its own with a fixed order of
arithmetic, so a sample's result does not depend on where it ran either.

Where: ``run(...)`` runs on this machine's numba threads, in slices of ~50 ms, so Ctrl-C stops
it within one slice (``StudyInterrupted``, a KeyboardInterrupt) and leaves the process usable;
``progress=True`` shows a tqdm bar. With ``client=`` (a ``dask.distributed.Client``), chunks of
samples run on the cluster's workers instead (fastdyn/study/cluster.py); the arrays are
bit-identical to the local run's.
"""

from __future__ import annotations

import re
import time
import uuid
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numba
import numpy as np

from .._internal import checks as _checks, memory as _memory, slices as _slices
from .._internal.parallel import launch
from ..kernels.entry import batch_inertias
from ..kernels.entry import regressor_product as _product
from ..model import Model
from ..parameters import check_physical
from ..errors import StudyInterrupted  # noqa: F401
from .streams import BLOCK

__all__ = ["ParameterSampler", "InverseDynamics", "Rollouts", "AtStates", "StudyResult",
           "StudyInterrupted", "run", "BLOCK", "LEVELS", "prepare", "complete", "summarize"]

LEVELS = (0.05, 0.25, 0.5, 0.75, 0.95)  # the quantiles a study reports unless told


# --- sampling ------------------------------------------------------------------------------
class ParameterSampler:
    """A distribution of a model's inertial parameters: ``fastdyn.sample_parameters``'
    physically consistent log-normal masses and second moments and normal centres of mass
    around the model's own (``mass``, ``inertia``: relative spreads, the standard deviation of
    the log of the scale factor; ``com``: metres, the standard deviation per axis; each one
    number, one per moving joint, or {joint name: spread}; that docstring states the laws),
    and ``payload``: a ``fastdyn.Payload`` or a list of them, point masses of uncertain mass
    and centre on frames, e.g. ``Payload("tool0", mass=(1.0, 0.2), com=((0, 0, 0.05), 0.01))``.

    For another distribution, subclass and override ``sample(rng, n)``: it must return
    (n, njoints - 1, 10) real numbers in Pinocchio's order, drawn only from ``rng``, each body
    a rigid body's (finite, mass >= 0, principal moments about the com meeting the triangle
    inequality: ``fastdyn.parameters.is_physically_consistent``; a massless body may keep a
    rotational inertia, as the model's own). A study checks every sample it uses, whatever
    it computes, and refuses the first that is not a robot with a ValueError naming the
    sample and the joint whose body it is."""

    def __init__(self, model: Model, mass=0.0, com=0.0, inertia=0.0, payload=None):
        _checks.model_arg(model)
        self.model, self.mass, self.com, self.inertia = model, mass, com, inertia
        self.payload = payload
        self.sample(np.random.default_rng(0), 1)  # the spreads are checked here, not later

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """n samples (n, njoints - 1, 10) drawn from ``rng``."""
        from ..parameters import sample_parameters
        return sample_parameters(self.model, n, rng, mass=self.mass, com=self.com,
                                 inertia=self.inertia, payload=self.payload)

    def block(self, seed: int, b: int) -> np.ndarray:
        """Samples b BLOCK .. (b + 1) BLOCK - 1, (BLOCK, njoints - 1, 10), float64 (their
        numbers are checked where a study uses them: ``prepare``'s job checks each slice)."""
        shape = (BLOCK, self.model.njoints - 1, 10)
        what = f"{type(self).__name__}.sample(rng, {BLOCK})"
        pi = _checks.real(self.sample(np.random.default_rng([seed, b]), BLOCK),
                          f"the array {what} returned", f"an array of shape {shape}")
        if pi.shape != shape:
            raise ValueError(f"{what} returned shape {pi.shape}, not {shape}")
        return pi

    def draw(self, seed: int, lo: int, hi: int, cache: dict | None = None) -> np.ndarray:
        """Samples lo..hi-1 of the stream ``seed``, (hi - lo, njoints - 1, 10): exactly those
        a study with this seed uses. ``cache``: a dict that keeps the last blocks drawn."""
        out = np.empty((max(hi - lo, 0), self.model.njoints - 1, 10))
        for b in range(lo // BLOCK, (hi - 1) // BLOCK + 1):
            pi = None if cache is None else cache.get(b)
            if pi is None:
                pi = self.block(seed, b)
                if cache is not None:
                    cache.clear()  # a slice moves forward: the last block is all it revisits
                    cache[b] = pi
            a, z = max(lo, b * BLOCK), min(hi, (b + 1) * BLOCK)
            out[a - lo:z - lo] = pi[a - b * BLOCK:z - b * BLOCK]
        return out

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.model.name!r}, mass={self.mass!r}, "
                f"com={self.com!r}, inertia={self.inertia!r}"
                + (f", payload={self.payload!r})" if self.payload is not None else ")"))


# --- what to compute -----------------------------------------------------------------------
class _Bound:
    """A computation checked against a model, with what it precomputes: the part of a study
    a worker holds. ``shapes``: name -> (per-sample shape, dtype) of its outputs."""
    shapes: dict[str, tuple[tuple[int, ...], Any]]

    def compute(self, model: Model, pi: np.ndarray, threads: int,
                out: dict[str, np.ndarray]) -> None:
        raise NotImplementedError


@dataclass(eq=False)
class InverseDynamics:
    """Inverse dynamics of every sample along the trajectory Q (T, nq), V, A (T, nv).
    Outputs: "peak" (n, nv) max_t |tau_t|, "rms" (n, nv) sqrt(mean_t tau_t^2), and with
    ``every=k`` "tau" (n, ceil(T / k), nv), the torques at steps 0, k, 2k, ... (n T nv / k
    doubles: every=1 keeps them all)."""
    Q: Any
    V: Any
    A: Any
    every: int | None = None

    def _bind(self, model: Model) -> _Bound:
        return _InverseDynamics(model, self)


class _InverseDynamics(_Bound):
    def __init__(self, model: Model, spec: InverseDynamics):
        from .._internal import batching
        from ..regressors import batch_joint_torque_regressor
        Q = batching.configurations(model, spec.Q)
        V = batching.rows(model, spec.V, model.nv, "V", Q.shape[0])
        A = batching.rows(model, spec.A, model.nv, "A", Q.shape[0])
        T, nv = Q.shape[0], model.nv
        if T < 1:
            raise ValueError("InverseDynamics: the trajectory Q has no steps")
        self.every = 0 if spec.every is None else _checks.integer(spec.every, "every", 1)
        # tau = Y pi + armature a (fastdyn/regressors.py): Y once for the whole study
        YS = batch_joint_torque_regressor(model, Q, V, A)
        self.YV = np.ascontiguousarray(YS.transpose(1, 2, 0))  # (nv, P, T): t contiguous
        self.live = np.ascontiguousarray((self.YV != 0.0).any(axis=2))
        self.ARMA = np.ascontiguousarray((model.armature * A).T)
        self.shapes = {"peak": ((nv,), np.float64), "rms": ((nv,), np.float64)}
        if self.every:
            self.shapes["tau"] = ((-(-T // self.every), nv), np.float64)

    def compute(self, model, pi, threads, out):
        PI = np.ascontiguousarray(pi.reshape(pi.shape[0], -1))
        TAU = out.get("tau", np.empty((0, 0, model.nv)))
        CB = np.empty((threads, _product.SB, _product.TB))  # one block per thread
        args = (self.YV, self.live, self.ARMA, PI, max(self.every, 1), CB, TAU, out["peak"],
                out["rms"])
        if threads == 1:  # a Dask task, or one thread: no parallel region to enter
            _product.regressor_product_chunk(0, 1, *args)
        else:
            launch(_product.regressor_product_batch, _product.regressor_product_chunk, *args)
        if not (np.isfinite(out["peak"]).all() and np.isfinite(out["rms"]).all()):
            raise _checks.NumericalOverflowError(
                "InverseDynamics: a torque overflowed (the parameters or the trajectory are "
                "too large to give finite torques)")


ROLLOUT_RECORD = ("q", "v", "tau")


class Rollouts:
    """``steps`` steps of every sample from each initial state (q0 (nq,) or (S, nq), v0
    likewise), by ``scene.rollout`` (default: ``Scene(model, dt)`` without ground: limits
    only). ``controls``: Scene.rollout's torques, kp, kd, q_ref, v_ref, fext, policy,
    policy_args, shared by every sample. Outputs (with an S axis after the sample axis when
    q0 is (S, nq)): "final_q", "final_v", "ok" (False where the rollout stopped early: its
    outputs are NaN), and any of ``record`` ("q", "v": (steps + 1, ...), "tau")."""

    def __init__(self, q0, v0, steps: int, scene=None, dt: float = 1e-3,
                 record: Sequence[str] = (), **controls):
        self.q0, self.v0, self.steps, self.scene, self.dt = q0, v0, steps, scene, dt
        self.record, self.controls = tuple(record), controls

    def __repr__(self) -> str:
        return (f"Rollouts(q0 {np.shape(self.q0)}, steps={self.steps}, record={self.record}, "
                f"controls={sorted(self.controls)})")

    def _bind(self, model: Model) -> _Bound:
        return _Rollouts(model, self)


class _Rollouts(_Bound):
    def __init__(self, model: Model, spec: Rollouts):
        from .._internal import batching
        from ..sim.scene import Scene
        self.single = np.ndim(spec.q0) == 1
        self.Q0 = batching.configurations(model, np.atleast_2d(spec.q0), "q0")
        S = self.Q0.shape[0]
        self.V0 = _checks.matrix(np.atleast_2d(spec.v0), (S, model.nv), "v0")
        self.steps = _checks.integer(spec.steps, "steps", 1)
        bad = [r for r in spec.record if r not in ROLLOUT_RECORD]
        if bad:
            raise ValueError(f"Rollouts record: unknown {bad[0]!r}; choose from "
                             f"{ROLLOUT_RECORD}")
        self.record = tuple(spec.record)
        scene = spec.scene if spec.scene is not None else Scene(model, spec.dt, ground=False)
        if not isinstance(scene, Scene):
            raise TypeError(f"Rollouts scene must be a fastdyn.Scene, got "
                            f"{type(scene).__name__}")
        if scene.model.token != model.token:
            raise ValueError(f"Rollouts: the scene was made for model {scene.model.name!r}, "
                             f"not this study's {model.name!r}")
        self.scene, self.controls = scene, dict(spec.controls)
        for k in ("prm", "record", "progress"):
            if k in self.controls:
                raise ValueError(f"Rollouts: {k}= is the study's to set, not a control")
        lead = () if self.single else (S,)
        T = self.steps
        self.shapes = {"final_q": (lead + (model.nq,), np.float64),
                       "final_v": (lead + (model.nv,), np.float64), "ok": (lead, np.bool_)}
        sizes = {"q": (T + 1, model.nq), "v": (T + 1, model.nv), "tau": (T, model.nv)}
        for r in self.record:
            self.shapes[r] = (lead + sizes[r], np.float64)

    def compute(self, model, pi, threads, out):
        from ..parameters import parameter_batch
        from ..sim.scene import RolloutWarning
        n, S = pi.shape[0], self.Q0.shape[0]
        PRM = np.repeat(parameter_batch(model, pi=pi), S, axis=0)  # row r: sample r // S
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RolloutWarning)  # "ok" says which, run() how many
            ro = self.scene.rollout(np.tile(self.Q0, (n, 1)), np.tile(self.V0, (n, 1)),
                                    self.steps, prm=PRM, record=self.record, **self.controls)

        def put(name, x):
            out[name][...] = x.reshape(out[name].shape)
        ok = ro.status == "ok"
        ro.final_q[~ok] = np.nan  # the state where it stopped is no result
        ro.final_v[~ok] = np.nan
        put("final_q", ro.final_q)
        put("final_v", ro.final_v)
        put("ok", ok)
        for r in self.record:
            put(r, getattr(ro, r))


QUANTITIES = {"rnea": "tau", "aba": "ddq", "crba": "M"}


@dataclass(eq=False)
class AtStates:
    """A quantity of every sample at each state Q (S, nq): ``quantity`` "rnea" (output "tau",
    (n, S, nv): inverse dynamics at V, X = accelerations; zeros by default, the gravity
    torque), "aba" ("ddq": forward dynamics at V under X = torques) or "crba" ("M",
    (n, S, nv, nv): the mass matrix)."""
    Q: Any
    V: Any = None
    X: Any = None
    quantity: str = "rnea"

    def _bind(self, model: Model) -> _Bound:
        return _AtStates(model, self)


class _AtStates(_Bound):
    def __init__(self, model: Model, spec: AtStates):
        from .._internal import batching
        if spec.quantity not in QUANTITIES:
            raise ValueError(f"AtStates quantity must be one of {tuple(QUANTITIES)}, got "
                             f"{spec.quantity!r}")
        self.quantity = spec.quantity
        self.Q = batching.configurations(model, np.atleast_2d(spec.Q))
        S = self.Q.shape[0]
        zeros = np.zeros((S, model.nv))
        self.V = zeros if spec.V is None else batching.rows(model, np.atleast_2d(spec.V), model.nv,
                                                    "V", S)
        self.X = zeros if spec.X is None else batching.rows(model, np.atleast_2d(spec.X), model.nv,
                                                    "X", S)
        if self.quantity == "crba" and (spec.V is not None or spec.X is not None):
            raise ValueError("AtStates crba: the mass matrix depends on Q only (no V, X)")
        shape = (S, model.nv, model.nv) if self.quantity == "crba" else (S, model.nv)
        self.shapes = {QUANTITIES[self.quantity]: (shape, np.float64)}

    def compute(self, model, pi, threads, out):
        # One launch per state over the samples, each row reading its sample's inertias beside
        # the model's table (kernels/entry/batch_inertias.py: 10 numbers a body, not a
        # whole parameter row).
        from .. import dynamics
        from .._internal import batching
        from ..dynamics import NO_FORCES
        from ..kinematics import EMPTY
        from ..parameters import check_inertias
        PI = check_inertias(model, pi)
        n = PI.shape[0]
        res = out[QUANTITIES[self.quantity]]
        ws3 = batching.workspaces(model)
        bad = np.empty(n, dtype=np.int64)
        for s in range(self.Q.shape[0]):
            Q = np.ascontiguousarray(np.broadcast_to(self.Q[s], (n, model.nq)))
            V = np.ascontiguousarray(np.broadcast_to(self.V[s], (n, model.nv)))
            X = np.ascontiguousarray(np.broadcast_to(self.X[s], (n, model.nv)))
            OUT = np.empty((n,) + res.shape[2:])
            if self.quantity == "crba":
                args = (model.jnt, model.prm, PI, Q, ws3, OUT, EMPTY, bad)
                call, rows = dynamics.crba, (Q,)
            else:
                args = (model.jnt, model.prm, PI, Q, V, X, NO_FORCES, ws3, OUT, bad)
                call, rows = getattr(dynamics, self.quantity), (Q, V, X)
            kernel = getattr(batch_inertias, self.quantity + "_chunk")
            if threads == 1:
                kernel(0, 1, *args)
            else:
                launch(getattr(batch_inertias, self.quantity + "_batch"), kernel, *args)
            # names the sample that failed
            batching.explain_inertia_row(model, bad, call, PI, *rows)
            res[:, s] = OUT


# --- the study -----------------------------------------------------------------------------
class _Job:
    """Everything a process needs to compute samples lo..hi-1 of one study: the model, the
    sampler, the seed and the bound computation. A Dask cluster receives it once per worker
    (fastdyn/study/cluster.py); ``received`` counts how often this process unpickled one."""
    received: dict[str, int] = {}

    def __init__(self, model: Model, sampler: ParameterSampler, bound: _Bound, seed: int):
        self.key = f"fastdyn-study-{uuid.uuid4().hex}"
        self.model, self.sampler, self.bound, self.seed = model, sampler, bound, seed
        self._cache: dict = {}

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_cache"}

    def __setstate__(self, state):
        self.__dict__.update(state, _cache={})
        _Job.received[self.key] = _Job.received.get(self.key, 0) + 1

    def allocate(self, n: int, check: bool = False) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Arrays for n samples' parameters and outputs (``check``: refuse more than half of
        this machine's memory with a MemoryError that says what to keep instead)."""
        shapes = dict(self.bound.shapes, params=((self.model.njoints - 1, 10), np.float64))
        need = sum(n * int(np.prod(s)) * np.dtype(d).itemsize for s, d in shapes.values())
        if check:
            big = max(shapes, key=lambda k: int(np.prod(shapes[k][0])))
            _memory.check(need, "the study's results",
                          f"{big!r} {(n,) + tuple(shapes[big][0])} the most; fewer samples, or "
                          f"keep fewer steps (InverseDynamics(every=k), Rollouts(record=))")
        # NaN (False for flags) until computed: a sample that never arrives cannot pass for
        # one computed (complete() looks for such rows)
        pi = np.full((n, self.model.njoints - 1, 10), np.nan)
        return pi, {k: np.full((n,) + s, np.nan if np.dtype(d).kind == "f" else 0, d)
                    for k, (s, d) in self.bound.shapes.items()}

    def run(self, lo: int, hi: int, threads: int, out=None):
        """(pi, outputs) of samples lo..hi-1, into ``out`` (from ``allocate``, sliced) if
        given. ``threads``: numba's thread count in this thread (1: serial kernels)."""
        pi, res = out if out is not None else self.allocate(hi - lo)
        pi[...] = self.sampler.draw(self.seed, lo, hi, self._cache)
        try:
            # one check of the samples for every computation: real bodies only (an
            # InverseDynamics study by the regressor would compute torques of any numbers)
            check_physical(self.model, pi)
            self.bound.compute(self.model, pi, threads, res)
        except (ValueError, ArithmeticError) as e:  # "row r" of this slice is sample lo + r
            row = re.match(r"row (\d+)(.*?): (.*)", str(e), re.S)
            where = f"sample {lo + int(row[1])}{row[2]}" if row else f"samples {lo}..{hi - 1}"
            raise type(e)(f"study (seed {self.seed}) {where}: {row[3] if row else e}") \
                from None
        return pi, res


def complete(params: np.ndarray, outputs: dict[str, np.ndarray]) -> None:
    """Raise RuntimeError if some sample was never computed: its parameters, or every float
    output, still all NaN as ``allocate`` left them (a rollout that stopped early has NaN
    outputs too, but says so with ok False). A study's inputs are checked finite, so such a
    row is a sample lost on the way (a chunk that came back short), never a result."""
    lost = np.isnan(params.reshape(params.shape[0], -1)).all(axis=1)
    floats = [x.reshape(x.shape[0], -1) for x in outputs.values() if x.dtype.kind == "f"]
    if floats:
        blank = np.logical_and.reduce([np.isnan(x).all(axis=1) for x in floats])
        if "ok" in outputs:
            blank &= outputs["ok"].reshape(blank.shape[0], -1).any(axis=1)
        lost |= blank
    if lost.any():
        rows = np.flatnonzero(lost)
        raise RuntimeError(f"study: {rows.size} of {lost.size} samples were never computed "
                           f"(the first: sample {rows[0]}); their rows are NaN. This is a bug "
                           f"in fastdyn or in a custom sampler/quantity: please report it")


@dataclass
class StudyResult:
    """What ``run`` returns. ``params`` (n, njoints - 1, 10): each sample's inertial
    parameters (Pinocchio's order); ``outputs``: name -> (n, ...) per sample, also
    ``result[name]``; ``mean`` and ``quantiles`` (len(levels), ...) over the samples, per
    output (boolean outputs: the mean only, the fraction of True); samples whose float outputs
    are NaN (rollouts that stopped early) are left out of both. ``seconds``: the wall time of
    the samples' computation (not of a first compile, nor of the summaries), ``workers``: 0 for
    a local run, ``chunks``: the slices (local) or Dask tasks it ran in."""
    model_name: str
    computation: str
    seed: int
    params: np.ndarray
    outputs: dict[str, np.ndarray]
    levels: np.ndarray
    mean: dict[str, np.ndarray]
    quantiles: dict[str, np.ndarray]
    seconds: float
    workers: int
    chunks: int

    @property
    def n(self) -> int:
        return self.params.shape[0]

    @property
    def samples_per_second(self) -> float:
        return self.n / self.seconds if self.seconds > 0 else float("inf")

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.outputs[name]
        except KeyError:
            raise KeyError(f"no output {name!r}; this study has {tuple(self.outputs)}") \
                from None

    def quantile(self, name: str, level: float) -> np.ndarray:
        """The output's quantile at ``level``, one of ``levels``."""
        hit = np.flatnonzero(np.isclose(self.levels, level, rtol=0.0, atol=1e-12))
        if not hit.size:
            raise KeyError(f"level {level} was not computed; the study's levels are "
                           f"{self.levels.tolist()}")
        return self.quantiles[name][hit[0]]


def summarize(outputs: dict[str, np.ndarray], levels) -> tuple[dict, dict]:
    """Mean and quantiles (np.quantile, linear interpolation) over axis 0 of every output;
    NaN samples are left out (np.nanmean, np.nanquantile) where there are any."""
    mean, quantiles = {}, {}
    for k, x in outputs.items():
        if x.dtype == np.bool_:
            mean[k] = x.mean(axis=0)
            continue
        finite = not np.isnan(x).any()
        mean[k] = x.mean(axis=0) if finite else np.nanmean(x, axis=0)
        quantiles[k] = (np.quantile if finite else np.nanquantile)(x, levels, axis=0)
    return mean, quantiles


def _levels(levels) -> np.ndarray:
    q = _checks.real(levels, "levels", "quantile levels in [0, 1]").reshape(-1)
    if not q.size or not (np.isfinite(q).all() and (q >= 0).all() and (q <= 1).all()):
        raise ValueError(f"levels must be numbers in [0, 1], got {levels!r}")
    return q


def prepare(model: Model, sampler: ParameterSampler, what, seed: int) -> _Job:
    """The study checked and bound to the model, ready to run anywhere (``run`` calls it)."""
    _checks.model_arg(model)
    if not isinstance(sampler, ParameterSampler):
        raise TypeError(f"sampler must be a fastdyn.study.ParameterSampler, got "
                        f"{type(sampler).__name__}")
    sm = sampler.model
    if sm.token != model.token:
        raise ValueError(f"the sampler was made for model {sm.name!r} ({sm.njoints} joints), "
                         f"not for this study's model {model.name!r} ({model.njoints} joints): "
                         f"ParameterSampler(model, ...) with the study's model")
    if not np.array_equal(sm.params["pi"], model.params["pi"]):
        raise ValueError(f"the sampler draws around other inertial parameters than this "
                         f"study's model {model.name!r} has (it was made for a variant of "
                         f"it): ParameterSampler(model, ...) with the study's model")
    if not isinstance(what, (InverseDynamics, Rollouts, AtStates)):
        raise TypeError(f"what to compute must be fastdyn.study.InverseDynamics, Rollouts or "
                        f"AtStates, got {type(what).__name__}")
    return _Job(model, sampler, what._bind(model), seed)


def run(model: Model, sampler: ParameterSampler, what, n: int, seed: int | None = None, *,
        levels: Sequence[float] = LEVELS, progress: bool = False, client=None,
        chunk: int | None = None, timeout: float | None = None) -> StudyResult:
    """Run a study of ``n`` samples drawn by ``sampler`` (seed: an integer >= 0, or None for
    a fresh one, kept in the result) computing ``what`` (InverseDynamics, Rollouts, AtStates).

    Locally (``client=None``) on numba's threads, in ~50 ms slices: Ctrl-C raises
    StudyInterrupted within one slice. ``progress``: a progress bar (tqdm if installed).
    ``client``: a dask.distributed Client; the study then runs in chunks of ``chunk`` samples
    (default: about 0.25 s of one thread's work each, and at least 0.1 s) on its workers,
    with ``timeout`` seconds (None: no limit) for the whole run; see fastdyn/study/cluster.py."""
    n = _checks.integer(n, "n (the number of samples)", 1)
    if chunk is not None:
        chunk = _checks.integer(chunk, "chunk (samples per Dask task)", 1)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    seed = _checks.integer(seed, "seed", 0)
    lv = _levels(levels)
    job = prepare(model, sampler, what, seed)
    if client is None:
        params, outputs, chunks, seconds = _run_local(job, n, progress)
        workers = 0
    else:
        from .cluster import run_on_cluster
        params, outputs, workers, chunks, seconds = run_on_cluster(job, n, client, chunk,
                                                                   progress, timeout)
    complete(params, outputs)
    if "ok" in outputs and not outputs["ok"].all():
        bad = np.argwhere(~outputs["ok"])[0].tolist()
        warnings.warn(f"{int((~outputs['ok']).sum())} rollouts of the study stopped early or "
                      f"did not converge (status not 'ok' in Scene.rollout's terms: "
                      f"the first: sample {bad[0]}); their outputs are NaN and left out of "
                      f"the mean and quantiles", RuntimeWarning, stacklevel=2)
    mean, quantiles = summarize(outputs, lv)
    return StudyResult(model.name, type(what).__name__, seed, params, outputs, lv, mean,
                       quantiles, seconds, workers, chunks)


def _run_local(job: _Job, n: int, progress: bool):
    params, outputs = job.allocate(n, check=True)
    threads = numba.get_num_threads()
    bar = _slices.progress(n, "sample") if progress else None
    lo, span, slices = 0, 1, 0
    try:
        job.run(0, 1, threads)  # sample 0 once untimed: a first compile is not throughput
        start = time.perf_counter()
        while lo < n:
            hi = min(n, lo + span)
            t0 = time.perf_counter()
            job.run(lo, hi, threads, (params[lo:hi], {k: x[lo:hi] for k, x in outputs.items()}))
            span = _slices.next_span(span, time.perf_counter() - t0)
            slices += 1
            if bar is not None:
                bar(hi - lo)
            lo = hi
    except KeyboardInterrupt:
        raise StudyInterrupted(lo, n) from None
    finally:
        if bar is not None:
            bar(0, done=True)
    return params, outputs, slices, time.perf_counter() - start
