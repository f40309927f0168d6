"""``fastdyn.precompile``: cold kernels compile on several processes into one disk cache, and the
parent loads the helpers' work instead of compiling it again; a warm cache starts no process."""

import os
import subprocess
import sys
import textwrap

import pytest

from fastdyn import __main__ as cli
from fastdyn import precompile


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


def test_cold_kernels_compile_in_a_helper_whose_cache_the_parent_loads(tmp_path):
    # A fresh cache: this process compiles "configuration" while a helper compiles
    # "mechanical_energy" into the same directory, which this process then only loads.
    script = textwrap.dedent("""
        from fastdyn import precompile
        calls = []
        precompile.warm(["configuration", "mechanical_energy"], jobs=2, on_compile=calls.append)
        print("ON_COMPILE", calls)
    """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_DEBUG_CACHE="1")
    env.pop("FASTDYN_NO_CACHE", None)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ON_COMPILE [2]" in r.stdout
    lines = r.stdout.splitlines()
    saved_here = [ln for ln in lines if "data saved" in ln and "energy" in ln]
    loaded_here = [ln for ln in lines if "data loaded" in ln and "energy" in ln]
    assert loaded_here and not saved_here, r.stdout[-3000:]
    assert any("data saved" in ln and "integrate" in ln for ln in lines)  # ours, compiled here


def test_cli_compile_names_an_unknown_group(capsys):
    assert cli.main(["compile", "rnae"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("fastdyn: error: compile: unknown kernel group 'rnae'")
