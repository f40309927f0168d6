"""``fastdyn.cli.precompile``: cold kernels compile on several processes into one disk cache, and
the parent loads the helpers' work instead of compiling it again; a warm cache starts no process."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from fastdyn.cli import main as cli
import fastdyn as fd
from fastdyn.cli import precompile


def test_shares_balance_the_compile_time_and_refuse_unknown_groups():
    parts = precompile.shares(list(precompile.TASKS), 2)
    assert sorted(n for p in parts for n in p) == sorted(precompile.TASKS)
    load = [sum(precompile.TASKS[n][0] for n in p) for p in parts]
    assert max(load) - min(load) <= max(t for t, _ in precompile.TASKS.values())
    assert precompile.shares(["rnea", "rnea"], 4) == [["rnea"]]  # no empty helper, no repeat
    with pytest.raises(ValueError, match="unknown kernel group 'rnae'.*known: batch.rnea"):
        precompile.shares(["rnae"], 2)


def test_a_warm_cache_starts_no_process(monkeypatch):
    precompile.warm(["configuration"], jobs=2)  # compiles or loads
    monkeypatch.setattr(precompile, "DETECT", 2.0)  # loads take ~10 ms; leave room for load
    started = []
    monkeypatch.setattr(precompile, "_helper", lambda names: started.append(names))
    seconds = precompile.warm(["configuration", "mechanical_energy"], jobs=2,
                              on_compile=started.append)
    assert set(seconds) == {"configuration", "mechanical_energy"}
    assert started == []


@pytest.fixture(scope="module")
def filled_cache(tmp_path_factory):
    """A fresh cache that ``warm`` filled: this process compiled "configuration" while a helper
    compiled "mechanical_energy" into the same directory, which this process then only loaded.
    Returns (directory, what the process printed with NUMBA_DEBUG_CACHE=1)."""
    cache = tmp_path_factory.mktemp("numba-cache")
    script = textwrap.dedent("""
        from fastdyn import precompile
        calls = []
        precompile.warm(["configuration", "mechanical_energy"], jobs=2, on_compile=calls.append)
        print("ON_COMPILE", calls)
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env=_env(NUMBA_CACHE_DIR=str(cache), NUMBA_DEBUG_CACHE="1"), timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return cache, r.stdout


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("FASTDYN_NO_CACHE", "FASTDYN_CACHE_READONLY")}
    return dict(env, **extra)


def _files(folder):
    return sorted((p.relative_to(folder), p.stat().st_mtime_ns)
                  for p in folder.rglob("*") if p.is_file())


def test_cold_kernels_compile_in_a_helper_whose_cache_the_parent_loads(filled_cache):
    _, out = filled_cache
    assert "ON_COMPILE [2]" in out
    lines = out.splitlines()
    saved_here = [ln for ln in lines if "data saved" in ln and "energy" in ln]
    loaded_here = [ln for ln in lines if "data loaded" in ln and "energy" in ln]
    assert loaded_here and not saved_here, out[-3000:]
    assert any("data saved" in ln and "integrate" in ln for ln in lines)  # ours, compiled here


READER = textwrap.dedent("""
    import warnings
    import numpy as np
    import fastdyn as fd
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        m = fd.models.load("quadruped")
        q, v = fd.neutral(m), np.linspace(-1, 1, m.nv)
        q2 = fd.integrate(m, q, v)          # in the cache
        d = m.create_data()
        e = fd.compute_mechanical_energy(m, d, q2, v)  # in the cache
        fd.crba(m, d, q2)                   # not in it: compiles in memory
    print("RESULT", repr(float(q2[0])), repr(e))
    print("WARNINGS", [str(w.message) for w in seen])
""")


def test_a_read_only_cache_is_loaded_and_never_written(filled_cache):
    # FASTDYN_CACHE_READONLY=1: worker processes sharing one cache only read it.
    cache, _ = filled_cache
    before = _files(cache)
    r = subprocess.run([sys.executable, "-c", READER], capture_output=True, text=True,
                       env=_env(NUMBA_CACHE_DIR=str(cache), NUMBA_DEBUG_CACHE="1",
                                FASTDYN_CACHE_READONLY="1"), timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert _files(cache) == before  # nothing written, nothing touched
    lines = r.stdout.splitlines()
    assert any("data loaded" in ln and "integrate" in ln for ln in lines)
    assert not any("saved" in ln for ln in lines)
    warned = [ln for ln in lines if ln.startswith("WARNINGS")][0]
    assert "read-only cache" in warned and "compile in memory" in warned
    # the same numbers as a process with a writable cache of its own
    own = subprocess.run([sys.executable, "-c", READER], capture_output=True, text=True,
                         env=_env(FASTDYN_NO_CACHE="1"), timeout=600)
    result = [ln for ln in lines if ln.startswith("RESULT")]
    assert result == [ln for ln in own.stdout.splitlines() if ln.startswith("RESULT")]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root can write to any directory: nothing is read-only to it")
def test_an_unwritable_filled_cache_is_loaded(filled_cache, tmp_path):
    # No setting: a directory numba cannot write to, but filled ahead, is still read.
    cache, _ = filled_cache
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    for p in sorted(copy.rglob("*"), reverse=True) + [copy]:
        p.chmod(p.stat().st_mode & ~0o222)
    try:
        r = subprocess.run([sys.executable, "-c", READER], capture_output=True, text=True,
                           env=_env(NUMBA_CACHE_DIR=str(copy), NUMBA_DEBUG_CACHE="1"),
                           timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
        assert any("data loaded" in ln and "integrate" in ln for ln in r.stdout.splitlines())
    finally:
        for p in [copy] + list(copy.rglob("*")):
            p.chmod(p.stat().st_mode | 0o200)


def test_cli_compile_names_an_unknown_group(capsys):
    assert cli.main(["compile", "rnae"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("fastdyn: error: compile: unknown kernel group 'rnae'")


def test_the_tick_group_runs_its_calls():
    """The group added with fd.computed_torque: its first calls run on a real robot (a group
    whose calls had gone stale would fail `fastdyn compile` only on a user's machine)."""
    model = fd.models.load("ur5")
    precompile._first_call("tick", model)
