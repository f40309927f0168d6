"""Pinocchio's C++ times, measured: build bench/cpp/timing.cpp against the installed pinocchio
wheel and run it on the benchmark ladder's models; write bench/results/cpp.json.

    python bench/cpp/run.py                 # every ladder model, 1,000 states, 30 rounds
    python bench/cpp/run.py ur5 talos --rounds 10    # re-times these; keeps the others' rows

Pinocchio 4.1 has no parallel CRBA, FK or Jacobians, so from Python their C++ time could only be
estimated (a Python loop minus a joint-less model's loop); this program times them in C++,
with RNEA and ABA (both of Pinocchio's conventions, LOCAL and WORLD) beside them, and on the
models of bench/test_constrained.py its constraintDynamics and constraintDynamics followed by
computeConstraintDynamicsDerivatives, with that file's contacts (CASES: frames, type,
reference; zero gains; one direct solve, mu = 0). Each round
times every algorithm once over the same states (interleaved: a burst of other load spreads
over all of them), in blocks of 50 states; min and median per evaluation over all blocks of
all rounds are kept (a short block is likely to run undisturbed on a shared machine).

Needs a C++17 compiler (``CXX``, default g++), the wheel's headers and libraries (cmeel.prefix)
and Eigen's headers, which the wheel does not ship: ``pip install cmeel-eigen`` puts them in
cmeel.prefix/include/eigen3, else /usr/include/eigen3 (Debian's libeigen3-dev) is used. Where
any of them is missing this prints what is and exits 0 with no result: the report then keeps
the estimates, marked as such. The wheel has no urdfdom headers, so the models are parsed by
Pinocchio's Python bindings and handed over with ``Model.saveToText``. Building takes minutes
(Pinocchio's templates); the binary is kept in bench/cpp/build/ and rebuilt when timing.cpp
changes.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SOURCE = HERE / "timing.cpp"
BUILD = HERE / "build"
# what Pinocchio's CMake config asks of its users (lib/cmake/pinocchio, INTERFACE_COMPILE_...)
DEFINES = ("BOOST_MPL_LIMIT_LIST_SIZE=30", "BOOST_MPL_LIMIT_VECTOR_SIZE=30",
           "BOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "BOOST_FUSION_INVOKE_MAX_ARITY=12",
           "PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION")


def prefix() -> Path | None:
    """The pinocchio wheel's cmeel.prefix (headers and shared libraries)."""
    try:
        import pinocchio
    except ImportError:
        return None
    p = Path(pinocchio.__file__).resolve()
    for parent in p.parents:
        if parent.name == "cmeel.prefix":
            return parent
    return None


def eigen_dir(pre: Path) -> Path | None:
    for d in (pre / "include" / "eigen3", Path("/usr/include/eigen3")):
        if (d / "Eigen" / "Core").exists():
            return d
    return None


def build() -> tuple[Path | None, str]:
    """(binary, '') or (None, why not)."""
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        return None, f"no C++ compiler ({cxx!r} not on PATH)"
    pre = prefix()
    if pre is None or not (pre / "include" / "pinocchio" / "algorithm" / "aba.hpp").exists():
        return None, "the pinocchio wheel's headers (cmeel.prefix/include/pinocchio) not found"
    eigen = eigen_dir(pre)
    if eigen is None:
        return None, ("Eigen's headers not found: pip install cmeel-eigen, or apt-get install "
                      "libeigen3-dev")
    return compiled(cxx, SOURCE, "timing", pre, eigen, [f"-D{d}" for d in DEFINES],
                    ["-lpinocchio_default", "-lboost_serialization"])


def compiled(cxx: str, source: Path, stem: str, pre: Path, eigen: Path, flags: list[str],
             libs: list[str]) -> tuple[Path | None, str]:
    """(binary, '') or (None, why not): ``source`` built against the wheel's cmeel.prefix
    and Eigen, kept in BUILD as ``stem``-<hash of the source and the command> (rebuilt only
    when either changes)."""
    cmd = [cxx, "-std=c++17", "-O3", "-DNDEBUG", *flags, f"-I{pre / 'include'}", f"-I{eigen}",
           str(source), "-o", "{out}", f"-L{pre / 'lib'}", f"-Wl,-rpath,{pre / 'lib'}", *libs]
    stamp = hashlib.sha256((source.read_text() + " ".join(cmd)).encode()).hexdigest()[:16]
    out = BUILD / f"{stem}-{stamp}"
    if out.exists():
        return out, ""
    BUILD.mkdir(exist_ok=True)
    cmd[cmd.index("{out}")] = str(out)
    print("+", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, "the build failed:\n" + p.stderr[-3000:]
    return out, ""


def contacts(name: str) -> list[str]:
    """The contact arguments of timing.cpp for bench/test_constrained.py's set on ``name``
    (SIZE REFERENCE FRAME...), or none."""
    import fastdyn as fd
    from bench.test_constrained import CASES
    if name not in CASES:
        return []
    frames, size, ref = CASES[name]
    return [str(size), "LOCAL" if ref == fd.LOCAL else "LOCAL_WORLD_ALIGNED", *frames]


def run(binary: Path, names: list[str], states: int, rounds: int) -> list[dict]:
    sys.path.insert(0, str(ROOT))
    from bench.ladder import _load
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            _, pm, how = _load(name)
            path = Path(tmp) / f"{name}.txt"
            pm.saveToText(str(path))
            p = subprocess.run([str(binary), name, str(path), str(states), str(rounds),
                                *contacts(name)], capture_output=True, text=True, check=True)
            for line in p.stdout.splitlines():
                row = json.loads(line)
                row["twin"] = how
                rows.append(row)
                print(f"{name:16s} {row['algo']:31s} min {row['min'] * 1e9:9.0f} ns  median "
                      f"{row['median'] * 1e9:9.0f} ns", flush=True)
    return rows


def kept_rows(old: dict, models: list[str]) -> list[dict]:
    """The rows of an earlier cpp.json for the models not in ``models``, each with its run's
    date and git (rows written before rows carried them: the file's meta)."""
    meta = old.get("meta", {})
    rows = [r for r in old.get("cpp", []) if r["model"] not in models]
    for r in rows:
        r.setdefault("date", meta.get("date", "n/a"))
        r.setdefault("git", meta.get("git", "n/a"))
    return rows


def main(argv=None) -> int:
    sys.path.insert(0, str(ROOT))
    from bench.report import MODELS, git_head, loadavg
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", default=list(MODELS))
    ap.add_argument("--states", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "cpp.json")
    args = ap.parse_args(argv)
    binary, why = build()
    if binary is None:
        print(f"bench/cpp: skipped, {why}")
        return 0
    before, head = loadavg(), git_head()
    rows = run(binary, args.models, args.states, args.rounds)
    meta = {"git": head, "load_before": before, "load_after": loadavg(),
            "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
            "states": args.states, "rounds": args.rounds}
    args.out.parent.mkdir(exist_ok=True)
    for row in rows:
        row.update(date=meta["date"], git=head)
    if args.out.exists():  # the models not re-timed keep their rows (each row: its run's date)
        old = kept_rows(json.loads(args.out.read_text()), args.models)
        rows += old
        if old:
            kept = sorted({(r["date"], r["git"], r["model"]) for r in old})
            meta["args"] = " ".join(args.models) + "; kept: " + ", ".join(
                f"{m} ({d}, {g})" for d, g, m in kept)
        order = list(MODELS)  # the ladder's order, whichever run a row comes from
        rows.sort(key=lambda r: order.index(r["model"]) if r["model"] in order else 99)
    args.out.write_text(json.dumps({"meta": meta, "cpp": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
