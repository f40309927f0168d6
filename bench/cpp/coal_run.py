"""coal's narrow phase timed in C++: build bench/cpp/coal_timing.cpp against the installed coal
(the pinocchio wheel's cmeel.prefix, as bench/cpp/run.py builds Pinocchio's timer) and time
bench/test_collision.py's pair cases; write bench/results/coal_cpp.json.

    python bench/cpp/coal_run.py            # every pair type, 5 rounds of 2,000 calls

bench/test_collision.py times coal from Python, which adds its binding's overhead (~0.5 us a
call) to times of 50-7,000 ns; this is coal's own time, the issue's yardstick ("within 2x
coal's time called from C++"). Each case is checked: coal in C++, at its default tolerances,
finds the penetration depth that coal in Python found at tight ones (1e-6, the Python bench's
check of fastdyn against coal). Exits 0 with a message and no result where the compiler or
the headers are missing.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SOURCE = HERE / "coal_timing.cpp"
COAL_ARGS = {"sphere": lambda s: [s[0]], "capsule": lambda s: [s[0], 2 * s[1]],
             "cylinder": lambda s: [s[0], 2 * s[1]], "ellipsoid": lambda s: list(s),
             "box": lambda s: [2 * x for x in s]}


def build() -> tuple[Path | None, str]:
    sys.path.insert(0, str(ROOT))
    from bench.cpp.run import compiled, eigen_dir, prefix
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        return None, f"no C++ compiler ({cxx!r} not on PATH)"
    pre = prefix()
    if pre is None or not (pre / "include" / "coal" / "collision.h").exists():
        return None, "coal's headers (cmeel.prefix/include/coal) not found"
    eigen = eigen_dir(pre)
    if eigen is None:
        return None, "Eigen's headers not found: pip install cmeel-eigen"
    return compiled(cxx, SOURCE, "coal", pre, eigen, [], ["-lcoal"])


def _shape(desc) -> list:
    t = desc["type"]
    if t == "plane":
        return ["plane", 4, 0.0, 0.0, 1.0, 0.0]
    if t == "convex":
        v = [float(x) for x in desc["vertices"].ravel()]
        return ["convex", len(v), *v]
    a = COAL_ARGS[t](list(desc["size"]))
    return [t, len(a), *a]


def lines(calls: int, rounds: int) -> tuple[list[str], dict]:
    """One input line per pair type of bench/test_collision.py, and coal's (Python) depths."""
    import numpy as np
    sys.path.insert(0, str(ROOT / "tests"))
    import collision_cases as cc
    from bench.test_collision import case_shapes
    out, depth = [], {}
    for a, b in cc.PAIRS:
        _, d1, d2, R1, R2, p2, d = case_shapes(a, b)
        words = [f"{a}-{b}", calls, rounds, *_shape(d1), *np.ravel(R1), 0.0, 0.0, 0.0,
                 *_shape(d2), *np.ravel(R2), *p2]
        out.append(" ".join(repr(float(w)) if not isinstance(w, (str, int)) else str(w)
                            for w in words))
        depth[f"{a}-{b}"] = d
    return out, depth


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from bench.report import git_head, loadavg
    binary, why = build()
    if binary is None:
        print(f"bench/cpp/coal_run.py: skipped, {why}")
        return 0
    text, depth = lines(2000, 5)
    before = loadavg()
    p = subprocess.run([str(binary)], input="\n".join(text) + "\n", capture_output=True,
                       text=True, check=True)
    rows = [json.loads(x) for x in p.stdout.splitlines()]
    for r in rows:
        if abs(r["depth"] - depth[r["pair"]]) > 1e-6:
            raise SystemExit(f"{r['pair']}: coal in C++ found depth {r['depth']}, in Python "
                             f"{depth[r['pair']]}: not the same case")
        print(f"{r['pair']:22s} {r['seconds'] * 1e9:8.0f} ns")
    meta = {"git": git_head(), "load_before": before, "load_after": loadavg(),
            "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")}
    out = ROOT / "bench" / "results" / "coal_cpp.json"
    out.write_text(json.dumps({"meta": meta, "coal": rows}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
