"""The model ladder (2 to 140 dofs) with its Pinocchio twins and seeded states, and the one
helper every benchmark uses to label itself for bench/report.py.

Real robots come from example-robot-data through both libraries' own URDF parsers; the twins
are checked to agree with fastdyn (same nq, nv and RNEA to 1e-9) before anything is timed.
"""

from __future__ import annotations

import sys
import warnings
from functools import cached_property
from pathlib import Path

import numpy as np
import pinocchio as pin

import fastdyn as fd
import fastdyn.models as fm

LADDER = ("double_pendulum", "ur5", "panda", "solo12", "talos", "random_tree_100")
ROBOTS = ("ur5", "panda", "solo12", "talos")  # the targets are judged on these
FREE_FLYER = {"ur5": False, "panda": False, "solo12": True, "talos": True}
NSTATES = 1000  # states per kernel-time measurement
SEED = 0


def tag(benchmark, measure: str, algo: str, model, role: str, evals: int = 1,
        variant: str = "", **extra) -> None:
    """One pytest-benchmark group per measure + algorithm + model, so fastdyn and Pinocchio land
    side by side; extra_info carries the same labels for report.py. ``evals`` = evaluations per
    timed call (per-evaluation time = time / evals). ``role`` is "fastdyn", "pinocchio" or a
    decomposition of one of them (e.g. "fastdyn-kernel", "pinocchio-cpp"). ``model`` is a
    Robot (its sizes are recorded too) or a model name."""
    if isinstance(model, Robot):
        extra.update(nq=model.nq, nv=model.nv, njoints=model.model.njoints)
        model = model.name
    benchmark.group = "/".join(s for s in (measure, algo, variant, model) if s)
    benchmark.extra_info.update(measure=measure, algo=algo, model=model, role=role,
                                evals=evals, variant=variant, **extra)


def _twin_by_oracle(model: fd.Model) -> pin.Model:
    tests = str(Path(__file__).resolve().parents[1] / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from oracle import to_pinocchio  # tests/oracle.py: the joint-by-joint Pinocchio twin
    return to_pinocchio(model)


def _load(name: str) -> tuple[fd.Model, pin.Model, str]:
    """(fastdyn model, Pinocchio model, how the twin was built)."""
    if name == "double_pendulum":
        m = fd.samples.double_pendulum()
        return m, _twin_by_oracle(m), "tests/oracle.to_pinocchio"
    if name == "random_tree_100":
        m = fd.samples.random_tree(100, seed=0)
        return m, _twin_by_oracle(m), "tests/oracle.to_pinocchio"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # talos: mimic tags ignored, as Pinocchio does
        m = fm.load(name, source="example-robot-data")
    path = str(fm.path(name, source="example-robot-data"))
    pm = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if FREE_FLYER[name]
          else pin.buildModelFromUrdf(path))
    return m, pm, "pin.buildModelFromUrdf" + (" + JointModelFreeFlyer" if FREE_FLYER[name] else "")


class Robot:
    """One rung: fastdyn model and Data, Pinocchio model and Data, one seeded state (q, v, a,
    tau = rnea(q, v, a)) and NSTATES more as rows (Q, V, A, TAU) and as Pinocchio's column
    batches (Qt, Vt, At, TAUt: (n, N) column-major views of the same memory)."""

    def __init__(self, name: str):
        self.name = name
        self.model, self.pm, self.twin = _load(name)
        self.data, self.pd = self.model.create_data(), self.pm.createData()
        self.nq, self.nv = self.model.nq, self.model.nv
        self.Q, self.V, self.A, self.TAU = self.states(NSTATES)
        self.q, self.v, self.a, self.tau = self.Q[0], self.V[0], self.A[0], self.TAU[0]
        self._check_twin()

    def _check_twin(self) -> None:
        if (self.pm.nq, self.pm.nv) != (self.nq, self.nv):
            raise RuntimeError(f"{self.name}: Pinocchio twin has nq, nv = {self.pm.nq}, "
                               f"{self.pm.nv}, fastdyn {self.nq}, {self.nv}")
        err = np.abs(pin.rnea(self.pm, self.pd, self.q, self.v, self.a) - self.tau).max()
        if not err < 1e-9 * max(1.0, np.abs(self.tau).max()):
            raise RuntimeError(f"{self.name}: Pinocchio twin disagrees on RNEA by {err:.3g}")

    def states(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """n seeded states (Q (n, nq), V, A, TAU (n, nv)), TAU = RNEA of each row; the first
        NSTATES rows are the same for every n."""
        cache = self.__dict__.setdefault("_states", {})
        if n not in cache:
            rng = np.random.default_rng(SEED)
            Q = np.stack([fd.random_configuration(self.model, rng) for _ in range(n)])
            V = rng.uniform(-1.0, 1.0, (n, self.nv))
            A = rng.uniform(-1.0, 1.0, (n, self.nv))
            if n > NSTATES:  # keep the first NSTATES rows identical across sizes
                Q[:NSTATES], V[:NSTATES], A[:NSTATES] = self.states(NSTATES)[:3]
            cache[n] = Q, V, A, fd.batch.rnea(self.model, Q, V, A)
        return cache[n]

    @cached_property
    def generated(self):
        """This model's generated kernels (``fastdyn.codegen.generate``: per-model straight-line
        code, cached on disk), or None when codegen refuses one of its joint types."""
        from fastdyn import codegen  # imported here: the other suites do not need it
        try:
            return codegen.generate(self.model)
        except NotImplementedError:
            return None

    @cached_property
    def pool(self) -> pin.ModelPool:
        """Pinocchio's model/data pool for its *InParallel algorithms, 2 threads max."""
        return pin.ModelPool(self.pm, 2)

    @cached_property
    def empty(self) -> tuple[pin.Model, pin.Data]:
        """A Pinocchio model with no joint: calling an algorithm on it from Python costs the
        binding overhead and next to no computation."""
        em = pin.Model()
        return em, em.createData()


_CACHE: dict[str, Robot] = {}


def robot(name: str) -> Robot:
    if name not in _CACHE:
        _CACHE[name] = Robot(name)
    return _CACHE[name]


def pin_loop(f, pm, pd, rows) -> None:
    """f(pm, pd, *row) for each pre-sliced row: Pinocchio called from Python, state by state."""
    for row in rows:
        f(pm, pd, *row)
