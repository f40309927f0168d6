"""Where compile time goes: every numba compilation in a process, timed, one JSON line each.

numba announces each compilation as a ``"numba:compile"`` event (numba.core.event); a kernel
loaded from the disk cache announces nothing. Callees compile inside their caller's event, so
each line carries the event's total time and its exclusive time (total minus the nested
compilations): the exclusive times of a run add up to its whole compile time.

Record (any process; the test suite does it when the variable is set, tests/conftest.py):

    FASTDYN_COMPILE_LOG=/tmp/clog pytest
    FASTDYN_COMPILE_LOG=/tmp/clog python my_script.py   # with `import compile_profile` there

Report (per kernel and signature: how many processes compiled it, total exclusive seconds;
per test file; per test, with the kernels that took most of its compile time):

    python bench/compile_profile.py /tmp/clog [--top 40]
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import threading
import time

from numba.core import event


class _Recorder(event.Listener):
    def __init__(self, path: str):
        self._path = path
        self._local = threading.local()

    def on_start(self, ev):
        stack = self._local.__dict__.setdefault("stack", [])
        stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev):
        stack = self._local.stack
        start, nested = stack.pop()
        total = time.perf_counter() - start
        if stack:
            stack[-1][1] += total
        d = ev.data
        f = d["dispatcher"].py_func
        # set by pytest: "<file>::<test>[<params>] (call)"
        current = os.environ.get("PYTEST_CURRENT_TEST", "")
        line = {"pid": os.getpid(), "kernel": f"{f.__module__}.{f.__qualname__}",
                "test": current.split("::")[0], "test_id": current.rsplit(" (", 1)[0],
                "sig": str(d["args"]), "total": total, "exclusive": total - nested,
                "depth": len(stack)}
        with open(self._path, "a") as fh:
            fh.write(json.dumps(line) + "\n")


def install(directory: str) -> None:
    """Record this process's compilations in ``directory``/compiles-<pid>.jsonl."""
    os.makedirs(directory, exist_ok=True)
    event.register("numba:compile",
                   _Recorder(os.path.join(directory, f"compiles-{os.getpid()}.jsonl")))


def report(directory: str, top: int) -> str:
    rows = [json.loads(x) for p in glob.glob(os.path.join(directory, "*.jsonl"))
            for x in open(p)]
    by = collections.defaultdict(lambda: [set(), 0.0, 0])
    for r in rows:
        e = by[(r["kernel"], r["sig"])]
        e[0].add(r["pid"])
        e[1] += r["exclusive"]
        e[2] += 1
    total = sum(e[1] for e in by.values())
    dup = sum(e[1] * (1 - 1 / e[2]) for e in by.values() if e[2] > 1)
    per_kernel = collections.Counter()
    for (k, _), e in by.items():
        per_kernel[k] += e[1]
    out = [f"{len(rows)} compilations of {len(by)} (kernel, signature) pairs in "
           f"{len({r['pid'] for r in rows})} processes: {total:.0f} s exclusive in all; "
           f"compiled more than once: {dup:.0f} s beyond the first", "",
           "| kernel | signature | times | exclusive s |", "|---|---|---|---|"]
    for (k, s), e in sorted(by.items(), key=lambda kv: -kv[1][1])[:top]:
        out.append(f"| {k} | {s[:60]} | {e[2]} | {e[1]:.1f} |")
    out += ["", "| kernel (all signatures) | exclusive s |", "|---|---|"]
    out += [f"| {k} | {t:.1f} |" for k, t in per_kernel.most_common(top)]
    per_test = collections.Counter()
    for r in rows:
        per_test[r.get("test") or "(outside a test)"] += r["exclusive"]
    out += ["", "| test file | compile s |", "|---|---|"]
    out += [f"| {k} | {t:.1f} |" for k, t in per_test.most_common(top)]
    # per test, with the kernels that took most of it (logs of earlier runs have no test_id)
    per_id = collections.defaultdict(collections.Counter)
    for r in rows:
        if r.get("test_id"):
            per_id[r["test_id"]][r["kernel"]] += r["exclusive"]
    ranked = sorted(per_id.items(), key=lambda kv: -sum(kv[1].values()))[:top]
    out += ["", "| test | compile s | its three costliest kernels (s) |", "|---|---|---|"]
    out += [f"| {t} | {sum(c.values()):.1f} | "
            + ", ".join(f"{k} {x:.1f}" for k, x in c.most_common(3)) + " |" for t, c in ranked]
    return "\n".join(out)


def schedule(directory: str, junit: str, min_seconds: float = 5.0) -> str:
    """tests/scheduling.py's tables from a cold run: COST, each test file's seconds (the
    junit XML's test times, summed), and GROUPS, the files that compiled a kernel another
    file also compiled (at once, on the other worker; ``min_seconds`` or more of compilation
    in all), joined transitively."""
    import xml.etree.ElementTree as ET
    cost = collections.Counter()
    for case in ET.parse(junit).iter("testcase"):
        f = case.get("classname", "").split(".")[-1] + ".py"
        cost[f] += float(case.get("time", 0))
    rows = [json.loads(x) for p in glob.glob(os.path.join(directory, "*.jsonl")) for x in open(p)]
    files, spent = collections.defaultdict(set), collections.Counter()
    for r in rows:
        if r.get("test"):
            files[(r["kernel"], r["sig"])].add((r["pid"], os.path.basename(r["test"])))
            spent[(r["kernel"], r["sig"])] += r["exclusive"]
    parent: dict[str, str] = {}  # union-find over file names

    def root(f):
        while parent.setdefault(f, f) != f:
            f = parent[f]
        return f

    for key, owners in files.items():
        # compiled by two workers, worth joining files for (a few seconds or more)
        if len({pid for pid, _ in owners}) > 1 and spent[key] >= min_seconds:
            names = sorted({f for _, f in owners})
            for f in names[1:]:
                parent[root(f)] = root(names[0])
    members = collections.defaultdict(list)
    for f in parent:
        members[root(f)].append(f)
    groups = {f: min(fs).removesuffix(".py") for fs in members.values() if len(fs) > 1
              for f in sorted(fs)}
    return (f"GROUPS = {groups!r}\n\n" +
            "COST = {" + ", ".join(f"{f!r}: {t:.0f}" for f, t in cost.most_common()) + "}")


if os.environ.get("FASTDYN_COMPILE_LOG") and __name__ != "__main__":
    install(os.environ["FASTDYN_COMPILE_LOG"])

if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("directory")
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--schedule", metavar="JUNIT_XML",
                   help="print tests/scheduling.py's GROUPS and COST from this run instead")
    a = p.parse_args()
    print(schedule(a.directory, a.schedule) if a.schedule else report(a.directory, a.top))
