"""A first call that compiles for long says so, once, on stderr
(fastdyn/_internal/compile_notice.py).

Each probe is a fresh interpreter with its own empty numba cache, so what it compiles is known.
The threshold is lowered (AFTER) so that a kernel of a few seconds counts as long: what is
tested is that the message appears, once, naming the call and the kernel, not how long a
compilation takes."""

import os
import subprocess
import sys

PROBE = """\
import logging, sys
import numba, numpy as np
import fastdyn as fd
from fastdyn._internal import compile_notice as cn
from fastdyn.kernels.spatial.sincos import sincos
cn.AFTER = 600.0
m = fd.samples.double_pendulum(); d = m.create_data()   # its checks compile: not announced
cn.AFTER = {after}
if {silence}:
    logging.getLogger("fastdyn.compile").setLevel(logging.ERROR)

@numba.njit
def users_own(x):        # a user's kernel: theirs to time, never announced
    return np.sqrt(np.sum(x * x)) + sincos(x[0])[0]

users_own(np.ones(3))
print("---", file=sys.stderr)
fd.integrate(m, np.zeros(2), np.ones(2))
fd.difference(m, np.zeros(2), np.ones(2))
print("announced", cn.NOTICE.announced)
"""


def _probe(tmp_path, after=0.0, silence=False):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("FASTDYN_NO_CACHE", None)
    out = subprocess.run([sys.executable, "-c", PROBE.format(after=after, silence=silence)],
                         capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    before, after_marker = out.stderr.split("---\n")
    return before, after_marker, out.stdout


def test_a_long_first_compile_is_announced_once_naming_the_call(tmp_path):
    """integrate then difference, each compiling its kernels: one WARNING line for each call,
    naming the user's call and a kernel; the user's own @njit function before them is not
    announced."""
    before, after, stdout = _probe(tmp_path)
    assert "fastdyn:" not in before, before
    lines = [s for s in after.splitlines() if s.startswith("fastdyn:")]
    assert len(lines) == 2, after
    assert "the first call of fastdyn.configuration.integrate compiles its kernels, from " \
        "fastdyn.kernels." in lines[0]
    assert "the first call of fastdyn.configuration.difference compiles its kernels, from " \
        "fastdyn.kernels." in lines[1]
    assert "cached on disk" in lines[0] and "fastdyn compile" in lines[0]
    assert "users_own" not in stdout and "fastdyn.kernels." in stdout
    # A second process loads the machine code from the cache: nothing compiles, nothing said.
    before, after, stdout = _probe(tmp_path)
    assert "fastdyn:" not in after and "announced []" in stdout, after


def test_the_notice_is_silenced_through_logging_and_waits_its_threshold(tmp_path):
    before, after, stdout = _probe(tmp_path, silence=True)
    assert "fastdyn:" not in after, after
    assert "fastdyn.kernels." in stdout  # it still happened, only unsaid
    (tmp_path / "cache").rename(tmp_path / "old")  # compile again, under a threshold never met
    before, after, stdout = _probe(tmp_path, after=600.0)
    assert "fastdyn:" not in after and "announced []" in stdout, after


THREADED = """\
import sys
import numpy as np
import fastdyn as fd
from fastdyn._internal import compile_notice as cn
m = fd.samples.double_pendulum()
cn.AFTER = 0.0
print("---", file=sys.stderr)
fd.batch.simulate(m, np.zeros((4, 2)), np.zeros((4, 2)), np.zeros((4, 3, 2)), 1e-3)
"""


def test_a_batch_on_threads_names_the_users_call_not_a_pool_thread(tmp_path):
    """fd.batch.simulate runs its rows on Python threads (fastdyn/_internal/threads.py): its
    kernel compiles on the calling thread, so the notice names fd.batch.simulate, not the
    pool thread's worker function."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), NUMBA_NUM_THREADS="2")
    env.pop("FASTDYN_NO_CACHE", None)
    out = subprocess.run([sys.executable, "-c", THREADED], capture_output=True, text=True,
                         env=env, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = [s for s in out.stderr.split("---\n")[1].splitlines() if s.startswith("fastdyn:")]
    assert lines and all("the first call of fastdyn.batch.simulate compiles" in s
                         for s in lines), lines
    assert any("simulate_rows" in s for s in lines), lines


def test_the_quoted_estimates_are_of_calls_that_exist():
    """EXPECTED quotes a time by the user's call, as _entry names it (module.qualname): a
    renamed or moved call would silently lose its estimate."""
    import importlib

    from fastdyn._internal import compile_notice as cn
    assert cn.EXPECTED
    for entry, seconds in cn.EXPECTED.items():
        parts = entry.split(".")
        cut = max(i for i in range(1, len(parts)) if _is_module(".".join(parts[:i])))
        found = importlib.import_module(".".join(parts[:cut]))
        for name in parts[cut:]:
            found = getattr(found, name)
        assert callable(found) and found.__qualname__ == ".".join(parts[cut:]), entry
        assert f"about {seconds:.0f} s" in cn._estimate(entry)
    assert "depending on the call" in cn._estimate("fastdyn.rnea")


def _is_module(name):
    import importlib.util
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False
