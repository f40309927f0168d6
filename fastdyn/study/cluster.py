"""Monte Carlo studies on a Dask cluster: ``fastdyn.study.run(..., client=client)``.

Needs ``dask.distributed`` (``pip install "fastdyn[distributed]"``). How the work travels, and
why:

- **The study goes to each worker once**, as a worker plugin (``Client.register_plugin``,
  Dask's documented way to give every worker an object, including workers that join later:
  a nanny's replacement of a dead worker receives it as it starts). It carries the model, the
  sampler, the seed and what the computation precomputed (for inverse dynamics, the
  trajectory's regressor). A task carries three small values: the study's key and its sample
  range; ``_Job.received`` counts the copies each process unpickled.
- **Tasks are chunks of samples**, at least ``MIN_CHUNK_SECONDS`` of one thread's work (about
  ``CHUNK_SECONDS`` by default, measured on the client before dispatch), never one sample:
  Dask's documentation puts its per-task overhead near 1 ms. There are at least
  ``CHUNKS_PER_SLOT`` chunks per worker thread when that leaves each long enough, so that a
  slow or lost worker delays the end by little.
- **Kernels come from the disk cache.** The client's calibration runs a few samples first,
  which compiles what the study needs into numba's on-disk cache (kernels/_jit.py);
  workers that share the file system load it, others compile once per process and cache it.
  Scene.rollout's loop, behind ``Rollouts``, too: it takes the controller as a function
  pointer of a fixed signature (fastdyn/sim/policy.py), which the cache matches across processes.
- **One thread per task**: a chunk runs on one numba thread, since Dask's parallelism is across
  tasks; start one single-threaded worker process per core (``LocalCluster(n_workers=cores,
  threads_per_worker=1)``).
- **A worker that dies loses no sample**: the scheduler reruns the tasks it held, and each
  result is taken off the cluster as it completes (so results never live only on a worker
  for long).
- **Identical to the local run**: a sample's parameters depend on (seed, index) alone and its
  computation on nothing else (fastdyn/study/__init__.py), and the summaries are computed here, on
  the gathered arrays.
"""

from __future__ import annotations

import math
import time

import numba

from .._internal import slices as _slices
from ..errors import StudyInterrupted
from .streams import BLOCK

try:
    from distributed import as_completed
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # the optional extra is missing: run_on_cluster says how to install it
    as_completed = None
    WorkerPlugin = object

MIN_CHUNK_SECONDS = 0.1  # a task shorter than this spends too much of itself on Dask
CHUNK_SECONDS = 0.25  # the default chunk's work on one thread
CHUNKS_PER_SLOT = 4  # chunks per worker thread, for balance, when they stay long enough
CALIBRATION_SECONDS = 0.02  # how long the client times the study for, on one thread

_JOBS: dict = {}  # key -> _Job, in each worker process (the plugin's setup puts it here)


class StudyPlugin(WorkerPlugin):
    """Gives a worker the study (a fastdyn.study._Job) under its key."""

    def __init__(self, job):
        self.job = job

    def setup(self, worker=None) -> None:
        _JOBS[self.job.key] = self.job

    def teardown(self, worker=None) -> None:
        _JOBS.pop(self.job.key, None)


def _chunk(key: str, lo: int, hi: int):
    """The task: samples lo..hi-1 of the study ``key`` on one thread, (lo, pi, outputs)."""
    job = _JOBS.get(key)
    if job is None:
        raise RuntimeError(f"this worker has no study {key}: its plugin was not registered "
                           f"here (was the study cancelled?)")
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # this worker thread's own setting (numba keeps one per thread)
    try:
        pi, outputs = job.run(lo, hi, 1)
    finally:
        numba.set_num_threads(threads)
    return lo, pi, outputs


def _put(params, outputs, lo: int, hi: int, result) -> None:
    """Write a chunk's (lo, pi, outputs) into the study's arrays, after checking that it is
    the chunk asked for, whole: samples lo..hi-1, every output, one row each. A short or
    misplaced chunk would otherwise leave rows of the result unwritten, silently (the study
    also checks, at the end, that no sample is missing: fastdyn.study.complete)."""
    got_lo, pi, res = result
    rows = {"params": pi.shape[0], **{k: x.shape[0] for k, x in res.items()}}
    if got_lo != lo or set(res) != set(outputs) or set(rows.values()) != {hi - lo}:
        raise RuntimeError(f"study: the chunk of samples {lo}..{hi - 1} came back as samples "
                           f"from {got_lo} with rows {rows} and outputs {sorted(res)}, not "
                           f"{hi - lo} rows of {sorted(outputs)}: refused (a bug, please "
                           f"report it)")
    params[lo:hi] = pi
    for k, x in res.items():
        outputs[k][lo:hi] = x


def seconds_per_sample(job, n: int) -> float:
    """One thread's time per sample, measured here (which also compiles the kernels)."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        job.run(0, 1, 1)  # the compile (or the cache load), not timed
        k = 1
        while True:
            t0 = time.perf_counter()
            job.run(0, k, 1)
            elapsed = time.perf_counter() - t0
            if elapsed >= CALIBRATION_SECONDS or k >= n:
                return max(elapsed, 1e-9) / k
            k = min(n, 4 * k)
    finally:
        numba.set_num_threads(threads)


def default_chunk(n: int, per_sample: float, slots: int) -> int:
    """Samples per task: about CHUNK_SECONDS of work, fewer (down to MIN_CHUNK_SECONDS) to
    give every worker thread CHUNKS_PER_SLOT tasks, whole random-stream blocks when larger than
    one (so no task draws samples it does not use)."""
    shortest = math.ceil(MIN_CHUNK_SECONDS / per_sample)
    chunk = max(shortest, min(math.ceil(CHUNK_SECONDS / per_sample),
                              math.ceil(n / (CHUNKS_PER_SLOT * max(slots, 1)))))
    if chunk > BLOCK:
        chunk = BLOCK * math.ceil(chunk / BLOCK)
    return max(1, min(chunk, n))


def run_on_cluster(job, n: int, client, chunk: int | None, progress: bool,
                   timeout: float | None):
    """(params, outputs, workers, chunks, seconds) of the study ``job`` run on ``client``'s
    cluster; ``seconds`` from the plugin's registration to the last result."""
    if as_completed is None:
        raise ImportError('fastdyn.study.run(client=...) needs dask.distributed: pip install '
                          '"fastdyn[distributed]"')
    if not all(hasattr(client, k) for k in ("submit", "nthreads", "register_plugin")):
        raise TypeError(f"client must be a dask.distributed Client, got {type(client).__name__}")
    slots = sum(client.nthreads().values())
    if slots == 0:
        raise RuntimeError("the Dask cluster has no workers")
    per_sample = seconds_per_sample(job, n)
    if chunk is None:
        chunk = default_chunk(n, per_sample, slots)
    params, outputs = job.allocate(n, check=True)
    t0 = time.perf_counter()
    client.register_plugin(StudyPlugin(job), name=job.key)
    pending, spans = {}, {}
    bar = _slices.progress(n, "sample") if progress else None
    done = 0
    try:
        for i, lo in enumerate(range(0, n, chunk)):
            f = client.submit(_chunk, job.key, lo, min(n, lo + chunk), key=f"{job.key}-{i}",
                              pure=False)
            pending[f.key], spans[f.key] = f, (lo, min(n, lo + chunk))
        chunks = len(pending)
        for f, result in as_completed(list(pending.values()), with_results=True,
                                      timeout=timeout):
            lo, hi = spans[f.key]
            _put(params, outputs, lo, hi, result)
            del pending[f.key]  # released: the worker frees the result
            done += hi - lo
            if bar is not None:
                bar(hi - lo)
    except KeyboardInterrupt:
        raise StudyInterrupted(done, n) from None
    finally:
        if bar is not None:
            bar(0, done=True)
        if pending:
            client.cancel(list(pending.values()))
        client.unregister_worker_plugin(job.key)
    return params, outputs, len(client.nthreads()), chunks, time.perf_counter() - t0
