"""``fastdyn demo``: load a bundled robot, run batches of inverse and forward dynamics, and say
what was computed and how fast, in terms a new user reads in ten seconds."""

from __future__ import annotations

import time

import numba
import numpy as np

from .. import batch
from . import precompile
from ..configuration import neutral, random_configuration
from ..dynamics import compute_mechanical_energy
from ..model import Model


def _load(name: str) -> Model:
    from .. import models

    return models.load(name)


def _best(f, repeat: int = 5) -> float:
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def run(model_name: str = "quadruped", n_states: int = 10_000, n_rollouts: int = 64,
        steps: int = 1000, dt: float = 1e-3, seed: int = 0, view: str | None = None) -> None:
    t0 = time.perf_counter()
    if view:
        from ..view.viewer import Viewer, meshcat_module
        meshcat_module()  # before the run: a missing extra fails at once
    model = _load(model_name)
    data = model.create_data()
    rng = np.random.default_rng(seed)
    print(f"fastdyn demo: {model.name!r} from models/ ({model.njoints - 1} joints, nq={model.nq}, "
          f"nv={model.nv}), {numba.get_num_threads()} threads")

    Q = np.array([random_configuration(model, rng) for _ in range(n_states)])
    V = rng.normal(size=(n_states, model.nv))
    A = rng.normal(size=(n_states, model.nv))
    compiled = []

    def compiling(jobs: int) -> None:
        compiled.append(jobs)
        print(f"  first run: compiling the kernels on {jobs} "
              f"process{'es' if jobs > 1 else ''} (about 20 s on 2 cores; cached on disk "
              f"after) ...", flush=True)

    precompile.warm(precompile.DEMO, model, on_compile=compiling)
    print(f"  ready in {time.perf_counter() - t0:.1f} s "
          f"({'compiled once: later runs load' if compiled else 'loaded'} machine code from "
          f"the cache)")

    t = _best(lambda: batch.rnea(model, Q, V, A), 3)
    TAU = batch.rnea(model, Q, V, A)
    print(f"  inverse dynamics (RNEA)  {n_states:>7,} random states  {t * 1e3:8.2f} ms  "
          f"= {t / n_states * 1e6:.2f} us per state")
    t = _best(lambda: batch.aba(model, Q, V, TAU), 3)
    err = np.abs(batch.aba(model, Q, V, TAU) - A).max()
    print(f"  forward dynamics (ABA)   {n_states:>7,} random states  {t * 1e3:8.2f} ms  "
          f"= {t / n_states * 1e6:.2f} us per state; ABA(RNEA(a)) = a to {err:.1e}")

    q0 = np.tile(neutral(model), (n_rollouts, 1))
    q0[:, 2] += 1.0 if model.jnt[1]["type"] == 15 else 0.0  # a floating base starts in the air
    v0 = rng.normal(scale=0.5, size=(n_rollouts, model.nv))
    torques = rng.normal(scale=1.0, size=(n_rollouts, steps, model.nv))
    t = time.perf_counter()
    QS, VS = batch.simulate(model, q0, v0, torques, dt)
    t = time.perf_counter() - t
    print(f"  rollouts (ABA + Lie-group semi-implicit Euler)  {n_rollouts} x {steps} steps of "
          f"{dt * 1e3:g} ms  {t * 1e3:8.1f} ms  = {t / (n_rollouts * steps) * 1e6:.2f} us per "
          f"step ({n_rollouts * steps * dt / t:,.0f}x real time)")

    g = model.gravity.copy()
    model.gravity = (0.0, 0.0, 0.0)
    try:
        qs, vs = batch.simulate(model, q0[:1], v0[:1], np.zeros((1, steps, model.nv)), dt)
        e0 = compute_mechanical_energy(model, data, qs[0, 0], vs[0, 0])
        e1 = compute_mechanical_energy(model, data, qs[0, -1], vs[0, -1])
    finally:
        model.gravity = g
    print(f"  torque-free, gravity-free rollout: energy {e0:.4f} J -> {e1:.4f} J after "
          f"{steps * dt:g} s (semi-implicit Euler drift {abs(e1 - e0) / max(e0, 1e-12):.1e})")
    if view:
        shown = QS[np.isfinite(QS).all(axis=(1, 2))][:4]  # the viewer refuses a NaN row
        viewer = Viewer(model)
        viewer.animate(shown, dt=dt)
        print(f"  wrote {viewer.save(view)}: {len(shown)} of the rollouts side by side "
              f"(open it in a browser; it needs no network)")
