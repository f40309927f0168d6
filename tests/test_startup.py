"""``import fastdyn`` pauses the collector, freezes what the import built, and restores the
collector's state as it found it (fastdyn/_startup.py). Checked in fresh interpreters."""

import json
import os
import subprocess
import sys

import pytest

PROBE = """\
import gc, json, sys
if sys.argv[1] == "off":
    gc.disable()
import fastdyn
print(json.dumps({"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def _probe(state: str, tmp_path, **env) -> dict:
    # cwd: not the checkout, whose fastdyn/ (without kernels/) would shadow the installed one
    base = {k: v for k, v in os.environ.items() if k != "FASTDYN_NO_GC_FREEZE"}
    out = subprocess.run([sys.executable, "-c", PROBE, state], capture_output=True, text=True,
                         env=dict(base, **env), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("state", ["on", "off"])
def test_import_restores_the_collector_state(state, tmp_path):
    seen = _probe(state, tmp_path)
    assert seen["enabled"] is (state == "on")
    assert seen["frozen"] > 10_000  # numba's registries, not just our few modules


def test_freeze_opt_out(tmp_path):
    seen = _probe("on", tmp_path, FASTDYN_NO_GC_FREEZE="1")
    assert seen == {"enabled": True, "frozen": 0}


def test_collector_still_collects_what_comes_after_the_import(tmp_path):
    script = """\
import gc, weakref
import fastdyn
class Node: pass
a = Node(); a.self = a
gone = weakref.ref(a)
del a
gc.collect()
assert gone() is None, "a cycle created after the import was not collected"
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
