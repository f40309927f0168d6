"""Monte Carlo study throughput (fastdyn.study): inverse dynamics of N UR5 variants
(example-robot-data's UR5, link masses, centres of mass and inertias sampled) along one
1000-step trajectory; N = 100,000 (the issue's size; FASTDYN_BENCH_STUDY_N sets another).
Samples per second = N / time, from pytest-benchmark's min over a few rounds.

- ``bare``: the kernel the study runs (kernels/entry/regressor_product.py) on all N
  samples in one launch on 2 threads, their parameters drawn beforehand: the parameter batch
  with nothing around it. Target: ``study-local`` within 1.2x of its time.
- ``bare-with-sampling``: the same plus drawing the N samples (fd.sample_parameters).
- ``study-local``: fastdyn.study.run on this machine's 2 threads (sampling, slices, summaries).
- ``numpy``: the regressor route written in NumPy (PI @ Y^T by BLAS, then peak and RMS),
  ``batch-rnea``: fd.batch.rnea with one robot per row (prm=), rows = samples x steps; both on
  N / 100 samples (memory), scaled per sample: what the regressor product buys.
- ``dask-1w``, ``dask-2w``: fastdyn.study.run(client=) on a LocalCluster of 1 and 2
  single-threaded worker processes, the cluster started beforehand (each round pays the
  calibration, the plugin's transfer and the gathering). Target: 2 workers >= 1.6x one
  worker's throughput.

The module prints the ratios at the end. On a 2-core machine the client, the scheduler and
the workers share the two cores, and any other load takes from them: the load average is
printed too. No benchmark asserts on time.
"""

import os

import numba
import numpy as np
import pytest

import fastdyn as fd
from bench.ladder import tag
from fastdyn import study
from fastdyn._internal.parallel import launch
from fastdyn.kernels.entry import regressor_product as P

N = int(os.environ.get("FASTDYN_BENCH_STUDY_N", "100000"))
T = 1000
SPREAD = dict(mass=0.1, com=0.01, inertia=0.1)
ROUNDS = 5  # the min of a few: other processes on a 2-core machine take whole rounds
_times: dict[str, float] = {}  # role -> min seconds for N samples


@pytest.fixture(scope="module")
def setup():
    model = fd.models.load("ur5", source="example-robot-data")
    q0 = fd.neutral(model)
    _, Q, V, A = fd.minimum_jerk(model, q0 - 0.8, q0 + 0.8, 1.5, T)
    sampler = study.ParameterSampler(model, **SPREAD)
    what = study.InverseDynamics(Q, V, A)
    study.run(model, sampler, what, n=2000, seed=0)  # compiled
    yield model, sampler, what, (Q, V, A)
    _report()


def _record(benchmark, role, n=N):
    _times[role] = benchmark.stats.stats.min * N / n


def _report():
    t = _times
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else "?"
    lines = [f"study benchmark, N = {N:,} samples x {T} steps (load average {' '.join(load)}):"]
    lines += [f"  {k:<20} {N / v:>12,.0f} samples/s  ({v:.3f} s)" for k, v in t.items()]
    if "study-local" in t and "bare" in t:
        lines.append(f"  study-local / bare time: {t['study-local'] / t['bare']:.2f} "
                     f"(target <= 1.2); / bare-with-sampling: "
                     f"{t['study-local'] / t.get('bare-with-sampling', np.nan):.2f}")
    if "dask-1w" in t and "dask-2w" in t:
        lines.append(f"  dask 2 workers / 1 worker throughput: {t['dask-1w'] / t['dask-2w']:.2f}x "
                     f"(target >= 1.6)")
    print("\n" + "\n".join(lines))


def _bare(job, PI):
    n = PI.shape[0]
    b = job.bound
    out = np.empty((n, 6)), np.empty((n, 6))
    CB = np.empty((numba.get_num_threads(), P.SB, P.TB))
    launch(P.regressor_product_batch, P.regressor_product_chunk, b.YV, b.live, b.ARMA, PI, 1,
           CB, np.empty((0, 0, 6)), *out)
    return out


def test_bare(benchmark, setup):
    model, sampler, what, _ = setup
    job = study.prepare(model, sampler, what, 0)
    PI = np.ascontiguousarray(fd.sample_parameters(model, N, 0, **SPREAD).reshape(N, -1))
    tag(benchmark, "study", "inverse_dynamics", "ur5", "bare", evals=N)
    benchmark.pedantic(_bare, (job, PI), rounds=ROUNDS, iterations=1)
    _record(benchmark, "bare")


def test_bare_with_sampling(benchmark, setup):
    model, sampler, what, _ = setup
    job = study.prepare(model, sampler, what, 0)

    def run():
        pi = fd.sample_parameters(model, N, 0, **SPREAD)
        return _bare(job, np.ascontiguousarray(pi.reshape(N, -1)))
    tag(benchmark, "study", "inverse_dynamics", "ur5", "bare-with-sampling", evals=N)
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1)
    _record(benchmark, "bare-with-sampling")


def test_study_local(benchmark, setup):
    model, sampler, what, _ = setup
    tag(benchmark, "study", "inverse_dynamics", "ur5", "study-local", evals=N)
    benchmark.pedantic(study.run, (model, sampler, what, N, 0), rounds=ROUNDS, iterations=1)
    _record(benchmark, "study-local")


def test_numpy_route(benchmark, setup):
    model, _, _, (Q, V, A) = setup
    n = max(N // 100, 1)
    Y = fd.batch.compute_joint_torque_regressor(model, Q, V, A).reshape(T * model.nv, -1)
    PI = fd.sample_parameters(model, n, 0, **SPREAD).reshape(n, -1)
    arma = (model.armature * A).reshape(-1)

    def run():
        tau = (PI @ Y.T + arma).reshape(n, T, model.nv)
        return np.abs(tau).max(axis=1), np.sqrt((tau ** 2).mean(axis=1))
    tag(benchmark, "study", "inverse_dynamics", "ur5", "numpy", evals=n)
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1)
    _record(benchmark, "numpy", n)


def test_batch_rnea_route(benchmark, setup):
    model, _, _, (Q, V, A) = setup
    n = max(N // 1000, 1)
    PRM = np.repeat(fd.parameter_batch(model, pi=fd.sample_parameters(model, n, 0, **SPREAD)),
                    T, axis=0)
    Qs, Vs, As = (np.tile(x, (n, 1)) for x in (Q, V, A))

    def run():
        tau = fd.batch.rnea(model, Qs, Vs, As, prm=PRM).reshape(n, T, model.nv)
        return np.abs(tau).max(axis=1), np.sqrt((tau ** 2).mean(axis=1))
    run()
    tag(benchmark, "study", "inverse_dynamics", "ur5", "batch-rnea", evals=n)
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1)
    _record(benchmark, "batch-rnea", n)


@pytest.mark.parametrize("workers", [1, 2], ids=lambda w: f"{w}w")
def test_dask(benchmark, setup, workers):
    distributed = pytest.importorskip("distributed")
    model, sampler, what, _ = setup
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        study.run(model, sampler, what, 4000, 0, client=client, timeout=600)  # workers warm
        tag(benchmark, "study", "inverse_dynamics", "ur5", f"dask-{workers}w", evals=N,
            workers=workers)
        benchmark.pedantic(study.run, (model, sampler, what, N, 0),
                           {"client": client, "timeout": 600}, rounds=ROUNDS, iterations=1)
    _record(benchmark, f"dask-{workers}w")
