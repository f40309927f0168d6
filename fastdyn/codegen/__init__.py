"""Per-model generated kernels: one robot's algorithms as straight-line code, constants baked in.

    gen = fastdyn.codegen.generate(model)   # writes, imports and caches the module
    tau = gen.rnea(data, q, v, a)           # checked single call, like fastdyn.rnea
    gen.kernels.rnea(model.gravity, q, v, a, tau)   # raw njit kernel, for your @njit loops

The generic kernels loop over joint rows and branch on joint types; a generated kernel is that
loop unrolled for one model with its placements, axes and inertias written into the source as
literals, so the zeros and ones of axis-aligned joints and identity placements cost nothing
(fastdyn/codegen/tracer.py says how). It is for long runs on one robot: generating and compiling
takes seconds to a minute (more for big trees), once. Each algorithm is a module of its own,
written to a cache directory and named after a hash of its source, and numba caches its machine
code beside it, so a second process neither regenerates nor recompiles, and ``generate`` calls
asking for different sets of algorithms share the modules they have in common (``("aba",)``
then the default set compile ``aba`` once). Each kernel compiles on its first use.

Raw kernels, ``gen.kernels.<name>`` (no input checks: shapes, dtypes and finiteness are the
caller's job):
- ``forward_kinematics(q, ws)``: liMi and oMi into a Data workspace (``data.ws``), as
  ``fastdyn.kernels.forward_kinematics`` leaves them;
- ``joint_jacobians(q, ws, J)``: the same placements and the world Jacobian J (6, nv);
- ``rnea(gravity, q, v, a, tau)``: inverse dynamics, no external forces; ``rnea_fext(gravity,
  q, v, a, fext, tau)`` with LOCAL forces fext (njoints, 6), as ``fastdyn.rnea`` takes them;
- ``crba(q, M)``: M(q), both triangles, armature included;
- ``aba(gravity, q, v, tau, ddq)``: forward dynamics; ``aba_fext(gravity, q, v, tau, fext,
  ddq)`` likewise;
- ``rnea_batch(gravity, Q, V, A, TAU)``, ``aba_batch(gravity, Q, V, TAU, DDQ)``: every row, in
  parallel (``fastdyn.batch.rnea(model, Q, V, A, generated=gen)`` checks the inputs first);
- ``free_velocity_own(prm, q, v, tau, dt, ws, U, D, vf)``, ``free_velocity_prm`` (the same with
  every dynamic parameter from prm): the start of the simulator's step with constraint rows,
  M + dt diag(damping) = U D U^T, vf = v + dt (M + dt diag(damping))^-1 (tau - h - damping v)
  and the placements and world Jacobian columns the rows read (codegen/free_velocity.py;
  ``Scene.rollout(..., generated=gen)`` calls it).

Derivatives, opt-in (``generate(model, algorithms=ALGORITHMS + DERIVATIVES)``, or only the
ones you need: their code is long and compiles in seconds for UR5 to about a minute for
Solo12 and about 4 minutes for Talos), no external forces, q perturbed along tangent vectors
as Pinocchio's. Against the generic kernels (bench/RESULTS.md, UR5 / Panda / Solo12 / Talos):
RNEA's 3.3x / 1.6x / 1.5x / 1.2x as fast, ABA's 2.8x / 2.1x / 2.5x / 1.8x. Models with many
dof-ancestor pairs (Panda, Talos) write those pairs as loops over a table in the kernel's stack
frame (codegen/rnea_derivatives.py, LOOP_PAIRS):
- ``rnea_derivatives(gravity, q, v, a, tau, dtau_dq, dtau_dv, M)``: tau = RNEA(q, v, a) and
  the three (nv, nv) matrices, both triangles (codegen/rnea_derivatives.py);
- ``aba_derivatives(gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv)``: ddq = ABA(q, v, tau),
  ddq/dq, ddq/dv and M^-1 (codegen/aba_derivatives.py; the three matrices C-contiguous, as
  numba's reshape of them requires: another layout does not compile); checked as
  ``gen.compute_rnea_derivatives(data, q, v, a)``, ``gen.compute_aba_derivatives(data, q, v,
  tau)``;
- ``rnea_derivatives_batch(gravity, Q, V, A, TAU, DQ, DV, MM)``, ``aba_derivatives_batch(gravity,
  Q, V, TAU, DDQ, DQ, DV, MINV)``: every row in parallel (``fastdyn.batch.compute_rnea_derivatives(
  model, Q, V, A, generated=gen)`` checks the inputs first).

The parameter-table variants keep the topology and the kinematic parameters (placements, axes)
baked in and read the dynamic ones (inertias ``pi``, rotor inertias, gravity) from ``prm``,
the model's table or one robot of a batch (fastdyn.parameter_batch), so one compiled kernel
serves a whole Monte Carlo study (fastdyn/codegen/parameters.py):
- ``rnea_prm(prm, q, v, a, tau)``, ``aba_prm(prm, q, v, tau, ddq)``, ``crba_prm(prm, q, M)``;
- ``aba_own(prm, q, v, tau, ddq)``: ``aba`` (this model's inertias as literals, about 10 %
  faster than ``aba_prm``) with ``aba_prm``'s arguments, gravity read from prm's universe
  row: the simulator's rollouts of the model itself take it;
- ``same_kinematics(prm)``: whether prm's placements, axes and pitches are the ones baked in
  (the kernels above do not look; a robot with other ones needs the generic kernels);
- ``rnea_prm_batch(PRM, Q, V, A, TAU)``, ``aba_prm_batch(PRM, Q, V, TAU, DDQ)``: row r with
  robot r of PRM (N, njoints, NP), or its only robot; a row whose robot fails
  ``same_kinematics`` is left NaN (``fastdyn.batch.rnea(model, Q, V, A, prm=PRM,
  generated=gen)`` checks the inputs first and names such a row).
The inertia variants hold everything but the bodies' inertias as the default kernels do and
read those from ``pi`` (njoints - 1, 10), body i in row i - 1, one sample of
``fastdyn.sample_parameters``: the fast form of a Monte Carlo study over masses and inertias:
- ``rnea_pi(gravity, pi, q, v, a, tau)``, ``aba_pi(gravity, pi, q, v, tau, ddq)``,
  ``crba_pi(pi, q, M)``;
- ``rnea_pi_batch(gravity, PI, Q, V, A, TAU)``, ``aba_pi_batch(gravity, PI, Q, V, TAU, DDQ)``:
  row r with PI[r] (N, njoints - 1, 10) or PI[0]; a row whose set breaks the inertia rules
  (finite, mass >= 0: ``pi_violation``, the generic kernels' check) is left NaN
  (``fastdyn.batch.rnea(model, Q, V, A, pi=PI, generated=gen)`` names it).
Checked methods on ``gen`` (see ``Generated``) call them from Python with the object API's
checks. Joint types: revolute, continuous, prismatic, spherical, planar, translation and
free-flyer (all a URDF can declare); helical, universal and spherical-ZYX are refused by name.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import warnings
from types import ModuleType

from .._internal.atomic import replace_file
from ..kernels._jit import (CacheWarning, UnsafeCacheDirError, private_dir, trusted_dir,
                            user_temp_dir)
from ..kernels.layout import P_GRAVITY
from .._internal import checks as _checks
from ..model import Model, joint_records
from . import (aba, aba_derivatives, checked, crba, free_velocity, joints, kinematics, rnea,
               rnea_derivatives)
from .parameters import INERTIAS, LITERALS, OWN, TABLE, kinematics_check
from .generated import ALGORITHMS, DERIVATIVES, Generated

__all__ = ["generate", "Generated", "ALGORITHMS", "DERIVATIVES", "source", "default_directory",
           "clear_cache"]

VERSION = 7  # bump when the generator's output changes meaning


# No string from the model (its name, joint or frame names, its file's path) enters the source:
# they come from files that may be hostile, and the source is imported as Python. Only numbers
# (ints and float reprs) and the generator's own text do, so models that differ only in their
# names share one module.
_HEADER = '''"""Generated by fastdyn.codegen (version {version}): nq={nq}, nv={nv},
{njoints} joints. Do not edit; delete the file to regenerate."""

from math import cos, sin, sqrt

import numpy as np
from numba import prange

from fastdyn.kernels._jit import jit
from fastdyn.kernels.spatial.sincos import sincos
from fastdyn.kernels.stack import stack_matrix

'''


_BATCH = {
    "rnea": '''@jit(parallel=True)
def rnea_batch(gravity, Q, V, A, TAU):
    """rnea on every row, rows split across numba's threads."""
    for r in prange(Q.shape[0]):
        rnea(gravity, Q[r], V[r], A[r], TAU[r])

''',
    "aba": '''@jit(parallel=True)
def aba_batch(gravity, Q, V, TAU, DDQ):
    """aba on every row, rows split across numba's threads."""
    for r in prange(Q.shape[0]):
        aba(gravity, Q[r], V[r], TAU[r], DDQ[r])

''',
    "rnea_derivatives": '''@jit(parallel=True)
def rnea_derivatives_batch(gravity, Q, V, A, TAU, DQ, DV, MM):
    """rnea_derivatives on every row (tau into TAU), rows split across numba's threads."""
    for r in prange(Q.shape[0]):
        rnea_derivatives(gravity, Q[r], V[r], A[r], TAU[r], DQ[r], DV[r], MM[r])

''',
    "aba_derivatives": '''@jit(parallel=True)
def aba_derivatives_batch(gravity, Q, V, TAU, DDQ, DQ, DV, MINV):
    """aba_derivatives on every row (ddq into DDQ), rows split across numba's threads."""
    for r in prange(Q.shape[0]):
        aba_derivatives(gravity, Q[r], V[r], TAU[r], DDQ[r], DQ[r], DV[r], MINV[r])

''',
}

# aba_prm's signature on the literal kernel: the simulator's rollouts of the model itself
# (fastdyn/sim/generated_rollout.py) take one callback type for both.
_OWN = '''@jit
def aba_own(prm, q, v, tau, ddq):
    """aba with this model's own inertias and rotor inertias (the literals), gravity from
    prm's universe row; prm's other rows are not read."""
    aba(prm[0, {g0}:{g1}], q, v, tau, ddq)

'''


# Row r's robot is PRM[r], or PRM[0] for a batch of one robot; a robot whose kinematic
# parameters are not the baked-in ones leaves its row NaN for the caller to name.
_BATCH_PRM = '''@jit(parallel=True)
def {name}_prm_batch(PRM, Q, V, X, OUT):
    """{name}_prm on every row, row r with robot r of PRM (or its only robot)."""
    many = PRM.shape[0] > 1
    for r in prange(Q.shape[0]):
        prm = PRM[r] if many else PRM[0]
        if same_kinematics(prm):
            {name}_prm(prm, Q[r], V[r], X[r], OUT[r])
        else:
            OUT[r, 0] = np.nan

'''


# A batch over inertias (PI (Np, njoints - 1, 10)): row r with PI[r], or PI[0] for one set; a
# set that breaks the inertia rules (fastdyn.kernels.entry.parameter_check.pi_violation,
# the generic batches' own check) leaves its row NaN for the caller to name.
_PI_RULES = "from fastdyn.kernels.entry.parameter_check import pi_violation\n\n"

_BATCH_PI = '''@jit(parallel=True)
def {name}_pi_batch(gravity, PI, Q, V, X, OUT):
    """{name}_pi on every row, row r with the inertias PI[r] (or PI[0] for every row)."""
    many = PI.shape[0] > 1
    for r in prange(Q.shape[0]):
        pi = PI[r] if many else PI[0]
        if pi_violation(pi) < 0:
            {name}_pi(gravity, pi, Q[r], V[r], X[r], OUT[r])
        else:
            OUT[r, 0] = np.nan

'''


def _supported(model: Model, algorithms):
    """The model's joint records, after refusing joints and algorithm names codegen lacks."""
    jnt = joint_records(model)  # topology, parameters and the derived inertia, by name
    for i in range(1, model.njoints):
        try:
            joints.family(int(jnt[i]["type"]))
        except NotImplementedError as e:
            raise NotImplementedError(
                f"fastdyn.codegen: joint {model.joint_names[i]!r} is of type {e.args[0]!r}, "
                f"whose motion subspace depends on q; generated kernels support the joints "
                f"with a constant one: revolute, continuous, prismatic, spherical, planar, "
                f"translation, free-flyer (use the generic kernels for this model)") from None
    unknown = set(algorithms) - set(ALGORITHMS + DERIVATIVES)
    if unknown:
        raise ValueError(f"unknown algorithms {sorted(unknown)}; choose from "
                         f"{ALGORITHMS + DERIVATIVES}")
    return jnt


def source(model: Model, algorithms=ALGORITHMS) -> str:
    """The text of a generated module with ``algorithms`` (also what names its file);
    ``generate`` writes one such module per algorithm."""
    jnt = _supported(model, algorithms)
    nq, nv = model.nq, model.nv
    makers = {
        "forward_kinematics": lambda: kinematics.forward_kinematics(jnt, nq),
        "joint_jacobians": lambda: kinematics.joint_jacobians(jnt, nq, nv),
        "rnea": lambda: "\n\n".join((rnea.rnea(jnt, nq, nv), rnea.rnea(jnt, nq, nv, fext=True),
                                      rnea.rnea(jnt, nq, nv, params=TABLE),
                                      rnea.rnea(jnt, nq, nv, params=INERTIAS))),
        "crba": lambda: "\n\n".join(crba.crba(jnt, nq, nv, params=p)
                                      for p in (LITERALS, TABLE, INERTIAS)),
        "aba": lambda: "\n\n".join((aba.aba(jnt, nq, nv), aba.aba(jnt, nq, nv, fext=True),
                                    aba.aba(jnt, nq, nv, params=TABLE),
                                    aba.aba(jnt, nq, nv, params=INERTIAS))),
        "rnea_derivatives": lambda: rnea_derivatives.rnea_derivatives(jnt, nq, nv),
        "aba_derivatives": lambda: aba_derivatives.aba_derivatives(jnt, nq, nv),
        "free_velocity": lambda: "\n\n".join(
            free_velocity.free_velocity(jnt, model.dof["parent"], nq, nv, params=p)
            for p in (OWN, TABLE)),
    }
    parts = [_HEADER.format(version=VERSION, nq=nq, nv=nv, njoints=model.njoints)]
    parts += [makers[a]() + "\n" for a in ALGORITHMS + DERIVATIVES if a in algorithms]
    parts += [_BATCH[a] for a in ("rnea", "aba") + DERIVATIVES if a in algorithms]
    if "aba" in algorithms:
        parts.append(_OWN.format(g0=P_GRAVITY, g1=P_GRAVITY + 3))
    if {"rnea", "aba", "crba", "free_velocity"} & set(algorithms):  # the prm kernels' guard
        parts.append(kinematics_check(model.prm) + "\n")
    parts += [_BATCH_PRM.format(name=a) for a in ("rnea", "aba") if a in algorithms]
    if {"rnea", "aba"} & set(algorithms):
        parts.insert(1, _PI_RULES)
    parts += [_BATCH_PI.format(name=a) for a in ("rnea", "aba") if a in algorithms]
    parts.append(checked.checks(jnt, nq, nv, [a for a in ALGORITHMS + DERIVATIVES
                                              if a in algorithms and a in checked.CHECKED]))
    return "\n".join(parts)


def default_directory() -> str:
    """``FASTDYN_CODEGEN_DIR``, else ``$XDG_CACHE_HOME/fastdyn/generated`` (~/.cache/...)."""
    d = os.environ.get("FASTDYN_CODEGEN_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fastdyn", "generated")


_PREFIX = "fastdyn_generated_"


def clear_cache(directory: str | None = None) -> int:
    """Delete the generated modules in ``directory`` (default: ``default_directory()``) and the
    machine code numba cached beside them; returns how many modules went. Nothing prunes the
    cache on its own: each model, and each fastdyn version whose generator output differs,
    leaves a module behind. Only files named ``fastdyn_generated_*`` are touched, so a
    ``FASTDYN_CODEGEN_DIR`` shared with other files is safe. Models generated in a running
    process keep working (their code is loaded); the next ``generate`` writes them again."""
    directory = directory or default_directory()
    removed = 0
    for folder in (directory, os.path.join(directory, "__pycache__")):
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue
        for name in names:
            # (".fastdyn_generated_...tmp": a write a crash cut short, fastdyn/_internal/atomic.py)
            if name.startswith((_PREFIX, "." + _PREFIX)):
                try:
                    os.remove(os.path.join(folder, name))
                except FileNotFoundError:  # another process cleared it first
                    continue
                if folder == directory and name.endswith(".py"):
                    removed += 1
    return removed


def _write(directory: str, filename: str, text: str) -> str:
    path = os.path.join(directory, filename)
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return path
    except (FileNotFoundError, UnicodeDecodeError):  # (garbled: written again)
        pass
    # Whole or not at all (fastdyn/_internal/atomic.py): a concurrent process sees the old file or
    # the new one; 0644, as a module others sharing the directory may read.
    return replace_file(path, lambda fh: fh.write(text.encode("utf-8")), mode=0o644,
                        follow_symlinks=False)


def _place(directory: str | None, filename: str, text: str) -> str:
    """Write the module into the cache directory, checked first: whoever can write there runs
    code in this process (the module, its ``.pyc``, numba's index pickles beside it)."""
    if directory is not None:  # the caller's choice: no fallback
        os.makedirs(directory, mode=0o755, exist_ok=True)
        return _write(trusted_dir(directory, "generate(directory=...)"), filename, text)
    target = default_directory()
    try:
        os.makedirs(target, mode=0o755, exist_ok=True)
        trusted_dir(target, "FASTDYN_CODEGEN_DIR")  # unsafe: raised, never silently replaced
        return _write(target, filename, text)
    except UnsafeCacheDirError:
        raise
    except OSError:  # unusable (read-only, under a file): the private temp directory instead
        # Raises UnsafeCacheDirError (a PermissionError) if someone else could write there.
        fallback = private_dir(user_temp_dir("fastdyn-generated"), "FASTDYN_CODEGEN_DIR")
        return _write(fallback, filename, text)


def _import(modname: str, path: str) -> ModuleType:
    """Import the module at ``path``. A ``.pyc`` that cannot be loaded (truncated by a full disk
    or a killed process: ``EOFError: marshal data too short``) is discarded with one
    ``CacheWarning`` naming it, and the module is compiled again from its source; any other
    failure names the module's file."""
    for retry in (False, True):
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        try:
            spec.loader.exec_module(module)
            return module
        except BaseException as e:
            del sys.modules[modname]
            pyc = importlib.util.cache_from_source(path)
            if retry or not isinstance(e, Exception) or not os.path.exists(pyc):
                if isinstance(e, Exception):
                    raise ImportError(f"fastdyn.codegen: the generated module {path} could not "
                                      f"be imported ({type(e).__name__}: {e}); delete it (and "
                                      f"its __pycache__) to regenerate it") from e
                raise
            try:
                os.remove(pyc)
            except FileNotFoundError:
                pass  # another process discarded it first
            warnings.warn(f"discarded the unreadable compiled module {pyc} "
                          f"({type(e).__name__}: {e}); it is compiled again from {path}",
                          CacheWarning, stacklevel=3)
    raise AssertionError("unreachable")


def generate(model: Model, algorithms=ALGORITHMS, directory: str | None = None) -> Generated:
    """Generate (or reuse) the kernels of ``model`` and import them; see the module docstring.

    The cache directory (``directory``, else ``default_directory()``) must be writable by you
    alone (owned by you or root, not by group or others, its ``__pycache__`` too): its files run
    as code in this process. One that is not raises ``UnsafeCacheDirError`` naming it."""
    if not isinstance(model, Model):
        _checks.refuse_mimic(model)  # a MimicModel: say so
        raise TypeError(f"model must be a fastdyn.Model, not {type(model).__name__}")
    _supported(model, algorithms)  # the whole request's refusals first
    chosen = tuple(a for a in ALGORITHMS + DERIVATIVES if a in algorithms)
    # One module per algorithm (each is self-contained: source() of one algorithm), so two
    # requests sharing an algorithm share its module, its file and its machine code.
    modules, paths = [], []
    for part in [(a,) for a in chosen] or [()]:
        text = source(model, part)
        digest = hashlib.sha256(text.encode()).hexdigest()[:20]
        modname = f"{_PREFIX}{digest}"
        path = _place(directory, f"{modname}.py", text)
        modules.append(sys.modules.get(modname) or _import(modname, path))
        paths.append(path)
    return Generated(model, _union(modules), tuple(paths), chosen, directory, recipe=generate)


_UNIONS: dict[tuple[str, ...], ModuleType] = {}


def _union(modules: list[ModuleType]) -> ModuleType:
    """One namespace for ``gen.kernels``: the module itself for one algorithm, else a module
    object holding every module's names (the first one's where two define the same helper),
    made once per set of modules, so ``gen.kernels`` is the same object for the same request
    (numba resolves its attributes at compile time as it does a module's)."""
    if len(modules) == 1:
        return modules[0]
    key = tuple(m.__name__ for m in modules)
    if key not in _UNIONS:
        union = ModuleType("+".join(key), "generated kernels of " + ", ".join(key))
        for m in reversed(modules):
            union.__dict__.update({k: v for k, v in vars(m).items() if not k.startswith("__")})
        _UNIONS[key] = union
    return _UNIONS[key]
