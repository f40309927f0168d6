"""Monte Carlo studies on a Dask cluster (fastdyn/study/cluster.py): a LocalCluster of two
single-threaded worker processes, shared by the tests of this file. Checked: the arrays equal
the local run's bit for bit; the study reaches each worker once (unpickled copies counted in
the workers) and its kernels come from the disk cache (numba's own hit and miss counters); a
worker killed mid-run loses no sample; an error on a worker reaches the caller and leaves no
study behind."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import fastdyn as fd
from fastdyn import study
from fastdyn.kernels import _jit

distributed = pytest.importorskip("distributed")  # the "distributed" extra (and the test one)

TIMEOUT = 240  # s: any run here that takes longer is hung, and fails instead of waiting
SPREAD = dict(mass=0.1, com=0.01, inertia=0.2)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, timeout=TIMEOUT)
    c = distributed.Client(cluster, timeout=TIMEOUT)
    try:
        c.wait_for_workers(2, timeout=TIMEOUT)
        here = fd.__file__
        there = set(c.run(lambda: __import__("fastdyn").__file__).values())
        assert there == {here}, f"the workers import another fastdyn ({there}) than {here}"
        yield c
    finally:
        c.close(timeout=60)
        cluster.close(timeout=60)


@pytest.fixture(scope="module")
def arm():
    return fd.models.load("ur5")


def trajectory(model, T):
    rng = np.random.default_rng(0)
    Q = np.stack([fd.random_configuration(model, k) for k in range(T)])
    return Q, rng.normal(size=(T, model.nv)), rng.normal(size=(T, model.nv))


def same(a, b) -> bool:
    return np.array_equal(a.params, b.params) and a.outputs.keys() == b.outputs.keys() and all(
        np.array_equal(a[k], b[k]) for k in a.outputs) and all(
        np.array_equal(a.quantiles[k], b.quantiles[k]) for k in a.quantiles)


def test_the_cluster_gives_the_local_arrays_and_gets_the_model_once(client, arm):
    what = study.InverseDynamics(*trajectory(arm, 200), every=7)
    sampler = study.ParameterSampler(arm, **SPREAD)
    n = 3 * study.BLOCK + 100
    local = study.run(arm, sampler, what, n=n, seed=4)
    before = client.run(lambda: dict(study._Job.received))
    far = study.run(arm, sampler, what, n=n, seed=4, client=client, chunk=500, timeout=TIMEOUT)
    assert far.workers == 2 and far.chunks == 7  # 7 tasks for 2 workers: several each
    assert same(far, local)
    after = client.run(lambda: dict(study._Job.received))
    for worker, counts in after.items():  # exactly one new study, received once by each
        new = {k: c for k, c in counts.items() if k not in before[worker]}
        assert list(new.values()) == [1], (worker, new)
    assert not any(client.run(lambda: bool(__import__("fastdyn.study.cluster").study.cluster._JOBS))
                   .values())  # unregistered when done
    if _jit.CACHE:  # the product kernel was loaded from disk, never compiled, on the workers
        from fastdyn.kernels.entry import regressor_product as P
        stats = client.run(lambda: (sum(P.regressor_product_chunk.stats.cache_hits.values()),
                                    sum(P.regressor_product_chunk.stats.cache_misses.values())))
        assert all(hits >= 1 and misses == 0 for hits, misses in stats.values()), stats


def test_states_match_too(client, arm):
    sampler = study.ParameterSampler(arm, **SPREAD)
    what = study.AtStates(np.stack([fd.neutral(arm), fd.neutral(arm) + 0.2]), quantity="crba")
    local = study.run(arm, sampler, what, n=9, seed=2)
    far = study.run(arm, sampler, what, n=9, seed=2, client=client, chunk=4, timeout=TIMEOUT)
    assert far.chunks == 3 and same(far, local)


def test_rollouts_match_too(client, arm):
    """Rollout studies on the cluster equal the local run (the README's Dask rollouts); 6 s
    here with the kernels cached, in the default run since issue 36."""
    sampler = study.ParameterSampler(arm, **SPREAD)
    q0 = np.stack([fd.neutral(arm), fd.neutral(arm) + 0.2])
    what = study.Rollouts(q0, np.zeros((2, 6)), 30, record=("q",), kp=20.0, kd=2.0)
    local = study.run(arm, sampler, what, n=9, seed=2)
    far = study.run(arm, sampler, what, n=9, seed=2, client=client, chunk=4, timeout=TIMEOUT)
    assert far.chunks == 3 and same(far, local)

    def loop_stats():  # on a worker: its rollout loop came from the disk cache, not a compile
        from fastdyn.kernels.entry.rollout import rollout_rows
        return (sum(rollout_rows.stats.cache_hits.values()),
                sum(rollout_rows.stats.cache_misses.values()))

    stats = client.run(loop_stats)
    assert any(hits >= 1 for hits, _ in stats.values()), stats  # a worker ran rollouts
    assert all(misses == 0 for _, misses in stats.values()), stats  # and none recompiled


def test_a_killed_worker_loses_no_sample(client, arm):
    what = study.InverseDynamics(*trajectory(arm, 1000))
    sampler = study.ParameterSampler(arm, **SPREAD)
    n, chunk = 40 * study.BLOCK, study.BLOCK  # 40 tasks of about 20-40 ms each
    local = study.run(arm, sampler, what, n=n, seed=8)
    pids = client.run(os.getpid)
    box = {}

    def far():
        try:
            box["result"] = study.run(arm, sampler, what, n=n, seed=8, client=client,
                                      chunk=chunk, timeout=TIMEOUT)
        except BaseException as e:  # noqa: BLE001 (reported below)
            box["error"] = e

    runner = threading.Thread(target=far)
    runner.start()
    victim, deadline = None, time.monotonic() + TIMEOUT
    while victim is None and runner.is_alive() and time.monotonic() < deadline:
        for worker, keys in client.processing().items():  # a worker busy with our study
            if worker in pids and any(str(k).startswith("fastdyn-study-") for k in keys):
                victim = worker
                break
        time.sleep(0.005)
    assert victim is not None, "the study finished before a worker could be killed"
    os.kill(pids[victim], signal.SIGKILL)
    killed_mid_run = runner.is_alive()
    runner.join(TIMEOUT)
    assert not runner.is_alive(), "the study hung after a worker was killed"
    assert "error" not in box, box.get("error")
    assert killed_mid_run
    assert same(box["result"], local)  # every sample there, each computed right
    client.wait_for_workers(2, timeout=TIMEOUT)  # the nanny's replacement is up
    assert pids[victim] not in client.run(os.getpid).values()


def test_an_error_on_a_worker_reaches_the_caller(client, arm):
    what = study.InverseDynamics(*trajectory(arm, 10))
    with pytest.raises(RuntimeError, match="this sampler fails on a worker"):
        study.run(arm, _FailsOnWorkers(arm, **SPREAD), what, n=2000, seed=0, client=client,
                  chunk=1000, timeout=TIMEOUT)
    assert not any(client.run(lambda: bool(__import__("fastdyn.study.cluster").study.cluster._JOBS))
                   .values())  # no study left on the workers


class _FailsOnWorkers(study.ParameterSampler):
    """Samples on the client, fails in any other process (a worker)."""

    def __init__(self, model, **spread):
        self.pid = os.getpid()
        super().__init__(model, **spread)

    def sample(self, rng, n):
        if os.getpid() != self.pid:
            raise RuntimeError("this sampler fails on a worker")
        return super().sample(rng, n)
