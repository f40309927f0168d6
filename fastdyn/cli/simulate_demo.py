"""``fastdyn simulate``: drop the bundled quadruped on the ground under PD control, say whether
it stands, how its contact forces compare with its weight and how fast the simulator ran;
optionally plot the base height and contact forces (matplotlib, an optional extra) and write
the drop to a page that replays it (``--view``: fastdyn.view, the optional extra view)."""

from __future__ import annotations

import time

import numba
import numpy as np

from ..sim.scene import Scene
from ..sim.standing import QUADRUPED_FEET as FEET, standing_scene  # noqa: F401 (public: fd.sim)


def run(drop: float = 0.3, seconds: float = 3.0, rollouts: int = 256,
        plot: str | None = None, view: str | None = None) -> bool:
    t0 = time.perf_counter()
    if view:
        from ..view.viewer import Viewer, meshcat_module
        meshcat_module()  # before the run: a missing extra fails at once
    scene, q, kp, kd = standing_scene()
    model = scene.model
    q0 = q.copy()
    q0[2] += drop
    steps = int(round(seconds / scene.dt))
    print(f"fastdyn simulate: {model.name!r} dropped from {drop} m onto the ground, PD on its "
          f"{model.nv - 6} leg joints, {steps} steps of {scene.dt * 1e3:g} ms, "
          f"{numba.get_num_threads()} threads")
    out = scene.rollout(q0, np.zeros(model.nv), steps, kp=kp, kd=kd,
                        record=("q", "contacts", "stats"))
    print(f"  ready in {time.perf_counter() - t0:.1f} s (the first run compiles the simulator)")
    weight = model.mass.sum() * -model.gravity[2]
    F = out.contact_forces[-1]
    stands = bool(abs(F[:, 2].sum() / weight - 1) < 5e-3 and np.abs(out.final_v).max() < 1e-2
                  and out.final_q[2] > 0.5 * q[2])
    print(f"  {'stands' if stands else 'does NOT stand'}: base at {out.final_q[2]:.4f} m "
          f"after {seconds:g} s (started at {q0[2]:.3f} m)")
    print(f"  normal forces {', '.join(f'{f:.3f}' for f in F[:, 2])} N sum to "
          f"{F[:, 2].sum():.4f} N; weight m g = {weight:.4f} N "
          f"({100 * (F[:, 2].sum() / weight - 1):+.2e} %)")
    print(f"  contact solver: at most {int(out.stats[:, 1].max())} sweeps a step, residual "
          f"<= {out.stats[:, 2].max():.1e} m/s")
    Q0 = np.tile(q0, (rollouts, 1))
    scene.rollout(Q0[:2], np.zeros((2, model.nv)), 2, kp=kp, kd=kd, record=())  # compile
    batch = scene.rollout(Q0, np.zeros((rollouts, model.nv)), steps, kp=kp, kd=kd, record=())
    print(f"  {rollouts} rollouts x {steps} steps: {batch.steps_per_second:,.0f} steps/s")
    if plot:
        _plot(out, scene, plot)
    if view:
        viewer = Viewer(scene)
        viewer.animate(out, dt=scene.dt, forces=True)
        print(f"  wrote {viewer.save(view)} (open it in a browser; it needs no network)")
    return stands


def _plot(out, scene: Scene, path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  no plot: matplotlib is not installed (pip install matplotlib)")
        return
    t = np.arange(out.q.shape[0]) * scene.dt
    fig, (a, b) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    a.plot(t, out.q[:, 2])
    a.set_ylabel("base height [m]")
    for k, name in enumerate(FEET):
        b.plot(t[1:], out.contact_forces[:, k, 2], label=name)
    b.axhline(scene.model.mass.sum() * -scene.model.gravity[2] / 4, color="k", ls=":",
              label="weight / 4")
    b.set_ylabel("normal force [N]")
    b.set_xlabel("time [s]")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"  wrote {path}")
