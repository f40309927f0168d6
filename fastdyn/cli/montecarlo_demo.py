"""``fastdyn montecarlo``: a Monte Carlo study on the bundled UR5. Its links' inertial
parameters and the payload it carries are uncertain; how much torque does a fast pick move
need, and how likely is a joint to exceed its rated torque? Prints the spread of each joint's
peak and RMS torque and, with ``--plot``, writes a fan chart of the torques and histograms of
the peaks (matplotlib, an optional extra).

The move: a minimum-jerk (quintic) joint-space path between two poses in ``DURATION`` seconds
(``fastdyn.minimum_jerk``), in ``--steps`` steps (default 1000). The payload: ``--payload`` kg
(default 5: the UR5's rated payload) as a point mass 5 cm beyond the tool flange, a
``fastdyn.Payload`` on frame "tool0" with a 30 % (log-normal) spread on its mass and 2 cm per
axis on its centre, added to the last link's inertial parameters in every sample.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from .. import study
from ..configuration import minimum_jerk
from ..parameters import Payload

Q_START = np.array([0.0, -1.0, 1.2, -1.8, -1.57, 0.0])  # [rad]
Q_END = np.array([2.0, -2.2, 0.4, -0.6, -1.0, 1.0])
DURATION = 1.2  # [s]: the fastest joint peaks at 3.12 rad/s, under the UR5's 3.15 rad/s
PAYLOAD_COM = (0.0, 0.0, 0.05)  # [m] in tool0's frame: 5 cm past the flange


def run(samples: int = 10_000, steps: int = 1000, seed: int = 0, payload: float = 5.0,
        plot: str | None = None, workers: int = 0, scheduler: str | None = None,
        progress: bool = False) -> bool:
    from .. import models
    t_start = time.perf_counter()
    model = models.load("ur5")
    t, Q, V, A = minimum_jerk(model, Q_START, Q_END, DURATION, steps)
    # links: +-10 % mass and second moments, 1 cm com; the payload: +-30 % mass, 2 cm com
    load = Payload("tool0", mass=(payload, 0.3), com=(PAYLOAD_COM, 0.02)) if payload > 0 \
        else None
    sampler = study.ParameterSampler(model, mass=0.1, com=0.01, inertia=0.1, payload=load)
    every = max(1, steps // 100)  # a hundred points of each torque for the fan chart
    what = study.InverseDynamics(Q, V, A, every=every)
    where = "this machine" if not (workers or scheduler) else \
        (f"a Dask scheduler at {scheduler}" if scheduler else f"a Dask LocalCluster of "
                                                               f"{workers} workers")
    print(f"fastdyn montecarlo: {model.name} carrying {payload:g} kg, a {DURATION:g} s "
          f"minimum-jerk move in {steps} steps; {samples:,} samples of its inertial "
          f"parameters (seed {seed}) on {where} ({numba.get_num_threads()} threads here)")
    if workers or scheduler:
        res = _on_dask(model, sampler, what, samples, seed, workers, scheduler, progress)
    else:
        res = study.run(model, sampler, what, samples, seed, progress=progress)
    print(f"  {res.n:,} samples x {steps} steps in {res.seconds:.2f} s "
          f"({res.samples_per_second:,.0f} samples/s, {res.n * steps / res.seconds / 1e6:.1f} M "
          f"torque evaluations/s); {time.perf_counter() - t_start:.1f} s in all (a first run "
          f"also compiles the kernels, about 10 s)")
    limit = model.params["effort_max"][1:, 0]
    over = (res["peak"] > limit).mean(axis=0)
    names = model.joint_names[1:]
    print(f"  {'joint':<20} {'peak |tau| [N m]: 5 %':>22} {'50 %':>8} {'95 %':>8} {'rated':>7}"
          f" {'P(peak > rated)':>16} {'RMS 50 %':>9}")
    for k, name in enumerate(names):
        q5, q50, q95 = (res.quantile("peak", x)[k] for x in (0.05, 0.5, 0.95))
        print(f"  {name:<20} {q5:22.2f} {q50:8.2f} {q95:8.2f} {limit[k]:7.0f} {over[k]:16.2%}"
              f" {res.quantile('rms', 0.5)[k]:9.2f}")
    if plot:
        try:
            from ..study.plot import plot as draw
            draw(res, plot, fan="tau", hist="peak", time=t[::every], limits=limit, names=names)
            print(f"  wrote {plot}")
        except ImportError as e:
            print(f"  no plot: {e}")
    return True


def _on_dask(model, sampler, what, samples, seed, workers, scheduler, progress):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ImportError('--workers and --scheduler need dask.distributed: pip install '
                          '"fastdyn[distributed]"') from None
    if scheduler:
        with Client(scheduler) as client:
            return study.run(model, sampler, what, samples, seed, client=client,
                             progress=progress)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        return study.run(model, sampler, what, samples, seed, client=client, progress=progress)
