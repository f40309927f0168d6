"""``import fastdyn`` pauses the collector while it loads and restores its state as it found it;
it freezes nothing of the host's while the program runs, and at exit collects before it freezes
(fastdyn/_internal/startup.py). Checked in fresh interpreters."""

import json
import os
import subprocess
import sys

import pytest

PROBE = """\
import atexit, gc, json, sys
if sys.argv[1] == "off":
    gc.disable()
# registered before the import, so it runs after fastdyn's exit hook (atexit is LIFO)
atexit.register(lambda: print(json.dumps({"frozen_at_exit": gc.get_freeze_count()})))
import fastdyn
print(json.dumps({"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def _probe(state: str, tmp_path, **env) -> dict:
    # cwd: not the checkout, whose fastdyn/ (without kernels/) would shadow the installed one
    base = {k: v for k, v in os.environ.items() if k != "FASTDYN_NO_GC_FREEZE"}
    out = subprocess.run([sys.executable, "-c", PROBE, state], capture_output=True, text=True,
                         env=dict(base, **env), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    seen = {}
    for line in out.stdout.splitlines():
        seen.update(json.loads(line))
    return seen


@pytest.mark.parametrize("state", ["on", "off"])
def test_import_restores_the_collector_state(state, tmp_path):
    seen = _probe(state, tmp_path)
    assert seen["enabled"] is (state == "on")
    assert seen["frozen"] == 0  # nothing of the host's is frozen while it runs
    assert seen["frozen_at_exit"] > 10_000  # numba's registries, frozen only at exit


def test_freeze_opt_out(tmp_path):
    seen = _probe("on", tmp_path, FASTDYN_NO_GC_FREEZE="1")
    assert seen == {"enabled": True, "frozen": 0, "frozen_at_exit": 0}


def test_the_host_objects_from_before_the_import_are_still_collected(tmp_path):
    # What the import-time gc.freeze() of earlier versions broke: a cycle the host built
    # before importing fastdyn, dropped afterwards, was never collected nor finalized.
    script = """\
import gc, weakref
class Node:
    def __del__(self):
        print("finalized", self.name, flush=True)
a = Node(); a.name = "before"; a.self = a
gone = weakref.ref(a)
import fastdyn
del a
gc.collect()
assert gone() is None, "a cycle created before the import was not collected"
b = Node(); b.name = "at-exit"; b.self = b
del b  # garbage when the interpreter exits: still finalized there
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["finalized", "before", "finalized", "at-exit"]


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
