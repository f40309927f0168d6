"""fastdyn/_internal/threads.py: rows handed to threads as they free up (the rollouts'
launcher). A plain-Python kernel stands in for the compiled one: what is checked is the
hand-out, which is the same for both."""

import threading
import time

import numpy as np
import pytest

from fastdyn._internal.threads import run_rows


def _recorder():
    seen, lock = [], threading.Lock()

    def kernel(t, lo, hi, out):
        with lock:
            seen.append((t, lo, hi))
        out[lo:hi] += 1
    return kernel, seen


@pytest.mark.parametrize("n, nt, block", [(1, 2, None), (7, 2, None), (100, 2, None),
                                          (100, 3, 7), (5, 4, 1), (0, 2, None)])
def test_every_row_once_on_a_valid_thread(n, nt, block):
    kernel, seen = _recorder()
    out = np.zeros(n, dtype=np.int64)
    run_rows(kernel, n, nt, out, block=block)
    assert (out == 1).all()  # each row exactly once: none skipped, none twice
    assert all(0 <= t < nt and 0 <= lo < hi <= n for t, lo, hi in seen) or n == 0


def test_a_slow_thread_takes_fewer_blocks():
    """Dynamic hand-out: a thread held up (as by another job on its core) does not hold the
    rows of a fixed share; the other thread takes them."""
    counts = [0, 0]

    def kernel(t, lo, hi):
        counts[t] += 1
        time.sleep(0.02 if t == 1 else 0.001)
    run_rows(kernel, 64, 2, block=1)
    assert sum(counts) == 64
    assert counts[0] > 3 * counts[1], counts  # a fixed split would give 32 each


def test_an_exception_is_raised_after_the_other_threads_stopped():
    active = []

    def kernel(t, lo, hi):
        active.append(+1)
        try:
            if lo == 10:
                raise ZeroDivisionError("row 10")
            time.sleep(0.002)
        finally:
            active.append(-1)
    with pytest.raises(ZeroDivisionError, match="row 10"):
        run_rows(kernel, 200, 2, block=1)
    assert sum(active) == 0  # nothing still running once the call returned
    assert len(active) < 2 * 200  # and no new block was started after the failure


def test_the_compiled_rollout_rows_equal_the_serial_ones():
    """Rollouts on 2 threads with blocks of 1 equal one thread's bit for bit (each row has
    its own state; a thread's buffers carry nothing from one row to the next)."""
    import numba

    from fastdyn.cli.simulate_demo import standing_scene
    scene, q, kp, kd = standing_scene()
    rng = np.random.default_rng(3)
    Q = np.tile(q, (6, 1))
    Q[:, 2] += rng.uniform(0.0, 0.05, 6)  # dropped from different heights: contacts differ
    V = 0.1 * rng.standard_normal((6, scene.model.nv))
    numba.set_num_threads(1)
    try:
        one = scene.rollout(Q, V, 60, kp=kp, kd=kd, record=("q", "v", "contacts"))
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    if numba.get_num_threads() < 2:
        pytest.skip("one thread here")
    import fastdyn._internal.threads as th
    old = th.BLOCKS_PER_THREAD
    th.BLOCKS_PER_THREAD = 100  # blocks of one row: the most interleaving
    try:
        two = scene.rollout(Q, V, 60, kp=kp, kd=kd, record=("q", "v", "contacts"))
    finally:
        th.BLOCKS_PER_THREAD = old
    assert np.abs(one.contact_forces).max() > 0  # the rows did touch the ground
    assert np.array_equal(one.q, two.q) and np.array_equal(one.v, two.v)
    assert np.array_equal(one.contact_forces, two.contact_forces)
