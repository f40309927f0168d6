"""Run the benchmark suites and write bench/RESULTS.md: fastdyn beside Pinocchio, with the
issue's targets.

    python bench/report.py                      # every suite, then bench/cpp, then RESULTS.md
    python bench/report.py bench/test_aba.py    # re-run one suite, then RESULTS.md
    python bench/report.py --render             # RESULTS.md from the committed results only
    python -m bench.report bench/test_rnea.py -k "ur5 or talos"   # extra arguments go to pytest
    python bench/report.py --from-json old.json # one json of an older layout

Each suite (a bench/test_*.py file) is run by its own pytest and its results are committed as
bench/results/test_NAME.json, with the commit (and whether the tree had uncommitted changes),
the date and the machine's load average before and after it ran; Pinocchio's C++ times from
bench/cpp/run.py are bench/results/cpp.json. RESULTS.md is rendered from these files alone, and
says where each suite's rows come from, so a row can always be traced to a run and re-made.

Ratios are fastdyn time / Pinocchio time (below 1: fastdyn is faster) from pytest-benchmark's
min, the statistic least disturbed by other processes; the median's ratio is shown beside it.
Raw numbers stay in bench/results/.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from cold_section import cold_section  # bench/ is sys.path[0]: this file runs as a script

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
ALGOS = ("fk", "rnea", "crba", "aba", "jacobians")
ALGO_NAMES = {"fk": "FK", "rnea": "RNEA", "crba": "CRBA", "aba": "ABA", "jacobians": "Jacobians"}
MODELS = ("double_pendulum", "ur5", "panda", "solo12", "talos", "random_tree_100")
ROBOTS = ("ur5", "panda", "solo12", "talos")  # where the targets are judged
ROBOT_NAMES = {"ur5": "UR5", "panda": "Panda", "solo12": "Solo12", "talos": "Talos"}

# The targets: (ratio bound, direction) for ratios, seconds for start-up.
KERNEL_TARGET = 0.5  # kernel in @njit / Pinocchio C++, per evaluation (generic and generated)
SINGLE_TARGET = 0.5  # single call from Python / pin from Python
BATCH_TARGET = 0.5  # time ratio at N = 10,000 with 2 threads (= 2x Pinocchio's throughput)
WARM_TARGET = 0.5  # s, fresh process: import + load + first rnea, warm cache
COLD_TARGET = 20.0  # s, same with an empty cache


# Each timed round lasts at least this long (s). pytest-benchmark's default, 5 us, let a slow first
# calibration call settle a ~500 ns single call on 1 iteration per round, so one row's rounds
# carried two timer reads each and its neighbour's 20 calls shared them (seen in the json:
# "iterations" 1 vs 20 within one group). 200 us gives every single-call row hundreds.
MIN_ROUND_TIME = 0.0002


def run_suites(json_path: Path, extra: list[str]) -> int:
    paths = [] if any(a.startswith(("bench", str(BENCH))) for a in extra) else [str(BENCH)]
    cmd = [sys.executable, "-m", "pytest", *paths, "--benchmark-enable",
           f"--benchmark-json={json_path}", "--benchmark-group-by=group",
           "--benchmark-sort=name", "--benchmark-columns=min,median,iqr,rounds,iterations",
           "--benchmark-min-rounds=10", f"--benchmark-min-time={MIN_ROUND_TIME}",
           "-p", "no:cacheprovider", "-q",
           "-n", "0",  # one process: pyproject's -n auto (tests on every core) would time two
           *extra]     # benchmarks at once, and pytest-benchmark disables itself under xdist
    print("+", " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=ROOT)


# --- machine and versions --------------------------------------------------------------------

def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def versions() -> dict[str, str]:
    code = ("import sys, numpy, numba, pinocchio, fastdyn, pytest_benchmark; "
            "print(sys.version.split()[0], numpy.__version__, numba.__version__, "
            "pinocchio.__version__, fastdyn.__version__, pytest_benchmark.__version__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT).stdout.split()
    names = ("python", "numpy", "numba", "pinocchio", "fastdyn", "pytest-benchmark")
    return dict(zip(names, out)) if len(out) == len(names) else {"error": "versions unknown"}


def git_head() -> str:
    p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                       cwd=ROOT)
    # the results files themselves are not the measured code: a re-run rewrites them
    dirty = subprocess.run(["git", "status", "--porcelain", "--", ".", ":!bench/results"],
                           capture_output=True, text=True, cwd=ROOT).stdout.strip()
    return p.stdout.strip() + (" + uncommitted changes" if dirty else "")


# --- reading the json ------------------------------------------------------------------------

class Results:
    """Per-evaluation min and median (seconds) keyed by (measure, algo, variant, model, role)."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.t: dict[tuple, tuple[float, float]] = {}
        self.info: dict[str, dict] = {}
        for b in doc["benchmarks"]:
            x = b.get("extra_info", {})
            if "measure" not in x:
                continue
            n = x.get("evals", 1)
            key = (x["measure"], x["algo"], x.get("variant", ""), x["model"], x["role"])
            self.t[key] = (b["stats"]["min"] / n, b["stats"]["median"] / n)
            if "nv" in x:
                self.info[x["model"]] = x
        self.native = {(r["algo"], r["model"]): (r["min"], r["median"])
                       for r in doc.get("cpp", [])}  # bench/cpp/run.py

    def get(self, measure, algo, model, role, variant=""):
        return self.t.get((measure, algo, variant, model, role))

    def has(self, measure, role) -> bool:
        """Any row of this measure and role (an older json may have none)."""
        return any(k[0] == measure and k[4] == role for k in self.t)

    def cpp(self, algo, model):
        """(min, median, source) of Pinocchio's C++ time per evaluation."""
        t = self.get("kernel", algo, model, "pinocchio-cpp")
        if t:
            return t[0], t[1], "InParallel"
        t = self.native.get((algo, model))
        if t:
            return t[0], t[1], "C++ program"
        est = self.estimate(algo, model)
        return (est[0], est[1], "estimate") if est else None

    def estimate(self, algo, model):
        loop = self.get("kernel", algo, model, "pinocchio-pyloop")
        empty = self.get("kernel", algo, model, "pinocchio-empty-pyloop")
        if not (loop and empty):
            return None
        return loop[0] - empty[0], loop[1] - empty[1]


# --- formatting --------------------------------------------------------------------------------

def fmt_t(s: float | None) -> str:
    if s is None:
        return "n/a"
    for unit, k in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(s) >= k:
            return f"{s / k:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_r(r: float | None) -> str:
    return "n/a" if r is None else f"{r:.2f}"


def mark(value: float | None, bound: float, below: bool = True) -> str:
    if value is None:
        return "n/a"
    return "met" if (value <= bound if below else value >= bound) else "**missed**"


def ratio(a, b, i=0):
    return a[i] / b[i] if a and b and b[i] > 0 else None


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


class Tally:
    """Met / missed per target, for the summary at the top."""

    def __init__(self):
        self.rows: dict[str, list] = {}

    def add(self, target: str, where: str, value, verdict: str):
        self.rows.setdefault(target, []).append((where, value, verdict))

    def judge(self, target: str, where: str, value, bound: float, judged: bool = True) -> str:
        """``value``'s verdict against ``bound``, counted under ``target``; "-" (and not
        counted) where the row is not judged."""
        if not judged:
            return "-"
        verdict = mark(value, bound)
        self.add(target, where, value, verdict)
        return verdict


def model_label(res: Results, m: str) -> str:
    x = res.info.get(m)
    return f"{m} (nv {x['nv']})" if x else m


def kernel_section(res: Results, tally: Tally) -> list[str]:
    out = ["## Kernel time per evaluation: @njit loop over 1,000 states vs Pinocchio C++", "",
           "fastdyn: the kernel called from an `@numba.njit` loop over 1,000 pre-generated "
           "states (total / 1,000). Pinocchio: `rneaInParallel` / `abaInParallel` with one "
           "thread over the same states; Pinocchio 4.1 has no parallel CRBA, FK or Jacobians: "
           "\"(C++)\" marks their time measured by bench/cpp/timing.cpp (a C++ loop over 1,000 "
           "states built against the installed wheel, bench/results/cpp.json); where that "
           "program could not be built, their C++ time is *estimated* as (pin.X called from "
           "Python over the "
           "states) - (the same loop on a joint-less model), i.e. with the fixed binding "
           "overhead removed. Part of the binding cost grows with nv, so the estimate is an upper "
           "bound on the C++ time and the ratio a lower bound (flattering fastdyn); see the "
           "check at the end. Target: ratio <= 0.5 on UR5, Panda, Solo12, Talos.", "",
           "\"generated\": the same loop around the model's generated kernel "
           "(`fastdyn.codegen.generate(model)`), per-model straight-line code with the model's "
           "placements, axes and inertias written in as literals, meant for long runs on one "
           "robot; its generation and compile cost (seconds to a minute) is paid once and cached "
           "on disk, and is not in these times. Its ratio is to the same Pinocchio C++ time, and "
           "\"speed-up\" is generic / generated (min). The generic kernel's columns are "
           "unchanged; \"-\": no generated kernel (codegen refuses the model's joint types, "
           "e.g. random_tree_100) or no such row in the results.", ""]
    has_gen = res.has("kernel", "fastdyn-generated")
    rows = []
    for algo in ALGOS:
        for m in MODELS:
            f = res.get("kernel", algo, m, "fastdyn")
            g = res.get("kernel", algo, m, "fastdyn-generated")
            c = res.cpp(algo, m)
            if not f and not c and not g:
                continue
            r, rm = ratio(f, c), ratio(f, c, 1)
            judged = m in ROBOTS
            where = f"{ALGO_NAMES[algo]} {m}"
            verdict = tally.judge("kernel <= 0.5x C++", where, r, KERNEL_TARGET, judged)
            rg = ratio(g, c)
            # no generated rows at all (an older json): no target line
            gverdict = tally.judge("generated kernel <= 0.5x C++", where, rg, KERNEL_TARGET,
                                   judged and has_gen)
            speedup = ratio(f, g)
            nj = res.info.get(m, {}).get("njoints")
            per_joint = fmt_t(f[0] / (nj - 1)) if f and nj else "n/a"
            rows.append([ALGO_NAMES[algo], model_label(res, m),
                         f"{fmt_t(f[0])} / {fmt_t(f[1])}" if f else "n/a",
                         f"{fmt_t(c[0])} / {fmt_t(c[1])}" + {"estimate": " (est.)",
                                                              "C++ program": " (C++)"}.get(
                             c[2], "") if c else "n/a",
                         fmt_r(r), fmt_r(rm), per_joint,
                         "<= 0.5" if judged else "-", verdict,
                         f"{fmt_t(g[0])} / {fmt_t(g[1])}" if g else "-",
                         fmt_r(rg) if rg is not None else "-",
                         f"{speedup:.2f}x" if speedup else "-", gverdict])
    return out + table(["algorithm", "model", "fastdyn min / median", "Pinocchio C++ min / "
                        "median", "ratio (min)", "ratio (median)", "fastdyn per joint",
                        "target", "", "generated min / median", "generated ratio (min)",
                        "speed-up", "generated vs target"], rows)


def single_section(res: Results, tally: Tally) -> list[str]:
    out = ["## Single call from Python, preallocated Data", "",
           "fastdyn: the public function (`fd.rnea(model, data, q, v, a)` etc., input checks "
           "included). \"kernel direct\": the same kernel's numba dispatcher called from Python "
           "with no checks; the difference is the Python wrapper's cost. Pinocchio: `pin.rnea("
           "model, data, q, v, a)` etc. Target: ratio <= 0.5 (judged on the four robots).", "",
           "\"generated\": `gen.rnea(data, q, v, a)` etc. from `gen = fastdyn.codegen.generate("
           "model)`, with the same input checks as the public functions, its ratio (min) taken "
           "to the same Pinocchio time; \"-\": no generated code (e.g. random_tree_100) or no "
           "such row in the results.", ""]
    has_gen = res.has("single", "fastdyn-generated")
    rows = []
    for algo in ALGOS:
        for m in MODELS:
            f = res.get("single", algo, m, "fastdyn")
            k = res.get("single", algo, m, "fastdyn-kernel")
            g = res.get("single", algo, m, "fastdyn-generated")
            p = res.get("single", algo, m, "pinocchio")
            if not (f or p or g):
                continue
            r = ratio(f, p)
            judged = m in ROBOTS
            where = f"{ALGO_NAMES[algo]} {m}"
            verdict = tally.judge("single call <= 0.5x pin", where, r, SINGLE_TARGET, judged)
            rg = ratio(g, p)
            tally.judge("generated single call <= 0.5x pin", where, rg, SINGLE_TARGET,
                        judged and has_gen)  # an older json without generated rows: no line
            rows.append([ALGO_NAMES[algo], model_label(res, m), fmt_t(f[0]) if f else "n/a",
                         fmt_t(k[0]) if k else "n/a",
                         fmt_t(f[0] - k[0]) if f and k else "n/a", fmt_t(p[0]) if p else "n/a",
                         fmt_r(r), fmt_r(ratio(f, p, 1)), "<= 0.5" if judged else "-", verdict,
                         fmt_t(g[0]) if g else "-", fmt_r(rg) if rg is not None else "-"])
    return out + table(["algorithm", "model", "fastdyn", "kernel direct", "wrapper",
                        "Pinocchio", "ratio (min)", "ratio (median)", "target", "", "generated",
                        "generated ratio (min)"], rows)


def batch_section(res: Results, tally: Tally) -> list[str]:
    out = ["## Batch throughput: fastdyn.batch vs Pinocchio's *InParallel, same threads", "",
           "Time per state (min over rounds); both sides allocate their output, fastdyn's "
           "includes its input checks. Throughput ratio = Pinocchio time / fastdyn time. "
           "Target: >= 2x Pinocchio's throughput with 2 threads at N = 10,000 (ratio of times "
           "<= 0.5), judged on the four robots. \"median/min\" shows how disturbed the "
           "rounds were: with 2 threads on a loaded 2-core machine a round waits whenever "
           "another process holds a core, so a spread well above 1 means the row measures "
           "the machine's load more than the library.", "",
           "\"generated\": the same `fastdyn.batch` call with `generated=fastdyn.codegen."
           "generate(model)` (the model's generated kernels, generated and compiled before "
           "timing), its ratio taken to the same Pinocchio time; \"-\": no generated kernel "
           "(e.g. random_tree_100) or no such row in the results.", ""]
    has_gen = res.has("batch", "fastdyn-generated")
    rows = []
    for algo in ("rnea", "aba"):
        for m in MODELS:
            for n in (1000, 10000):
                for t in (1, 2):
                    v = f"N{n}-{t}t"
                    f = res.get("batch", algo, m, "fastdyn", v)
                    g = res.get("batch", algo, m, "fastdyn-generated", v)
                    p = res.get("batch", algo, m, "pinocchio", v)
                    if not (f or p or g):
                        continue
                    r = ratio(f, p)
                    judged = m in ROBOTS and n == 10000 and t == 2
                    where = f"{ALGO_NAMES[algo]} {m}"
                    verdict = tally.judge("batch N=10k 2 threads >= 2x", where, r,
                                          BATCH_TARGET, judged)
                    rg = ratio(g, p)
                    # an older json without generated rows: no target line
                    gverdict = tally.judge("generated batch N=10k 2 threads >= 2x", where, rg,
                                           BATCH_TARGET, judged and has_gen)
                    spread = "/".join(f"{x[1] / x[0]:.1f}" if x else "n/a" for x in (f, p))
                    rows.append([ALGO_NAMES[algo], model_label(res, m), f"{n:,}", str(t),
                                 fmt_t(f[0]) if f else "n/a", fmt_t(p[0]) if p else "n/a",
                                 fmt_r(r), f"{1 / r:.2f}x" if r else "n/a", spread,
                                 "<= 0.5 (>= 2x)" if judged else "-", verdict,
                                 fmt_t(g[0]) if g else "-",
                                 fmt_r(rg) if rg is not None else "-",
                                 f"{1 / rg:.2f}x" if rg else "-",
                                 f"{g[1] / g[0]:.1f}" if g else "-", gverdict])
    return out + table(["algorithm", "model", "N", "threads", "fastdyn / state",
                        "Pinocchio / state", "ratio (min)", "throughput vs pin",
                        "median/min fd/pin", "target", "", "generated / state",
                        "generated ratio (min)", "generated throughput vs pin",
                        "generated median/min", "generated vs target"], rows)


def startup_section(res: Results, tally: Tally) -> list[str]:
    out = ["## Start-up: fresh process, `import` + load URDF + first RNEA (wall time)", "",
           "Warm: numba's on-disk cache filled by an earlier process. Cold: empty "
           "`NUMBA_CACHE_DIR`, every kernel the script touches is compiled. Private cache "
           "directories; example-robot-data's URDFs through each library's own parser.", ""]
    rows = []
    for m in ("ur5", "talos"):
        f = res.get("startup-warm", "rnea", m, "fastdyn")
        p = res.get("startup-warm", "rnea", m, "pinocchio")
        if f or p:
            v = tally.judge("warm start-up <= 0.5 s", m, f[0] if f else None, WARM_TARGET)
            rows.append(["warm", m, f"{fmt_t(f[0])} / {fmt_t(f[1])}" if f else "n/a",
                         f"{fmt_t(p[0])} / {fmt_t(p[1])}" if p else "n/a", "<= 0.5 s", v])
    f = res.get("startup-cold", "rnea", "ur5", "fastdyn")
    if f:
        v = tally.judge("cold compile <= 20 s", "ur5", f[0], COLD_TARGET)
        rows.append(["cold", "ur5", f"{fmt_t(f[0])} / {fmt_t(f[1])}", "-", "<= 20 s", v])
    for m in ("ur5", "solo12"):  # no target: the one-off price of fastdyn.codegen
        g = res.get("startup-generated", "all", m, "fastdyn")
        if g:
            rows.append(["generated, first time", m, f"{fmt_t(g[0])} / {fmt_t(g[1])}", "-",
                         "-", "-"])
    out += ["\"generated, first time\": a fresh process with the core kernels cached generates "
            "the model's `fastdyn.codegen` module into an empty directory and compiles its five "
            "checked kernels (FK, Jacobians, RNEA, CRBA, ABA): the one-off price of the "
            "generated kernels, paid again only for a new model or fastdyn version.", ""]
    return out + table(["cache", "model", "fastdyn min / median", "Pinocchio min / median",
                        "target", ""], rows)


SIM_TARGET = 0.5  # simulator: time per step vs mujoco.rollout's, 2 threads (>= 2x throughput)
SIM_SCENES = ("contact-free", "quadruped-standing", "quadruped-dropped")
SIM_MODELS = ("ur5", "quadruped", "panda", "solo12", "talos")


def simulator_section(res: Results, tally: Tally) -> list[str]:
    # (bench/test_single_step.py's "single-step" rows are one call from Python, not a
    # rollout: mpc_section reports and judges them)
    keys = sorted({(k[1], k[2], k[3]) for k in res.t
                   if k[0] == "simulator" and k[1] != "single-step"},
                  key=lambda k: (SIM_SCENES.index(k[0]) if k[0] in SIM_SCENES else 99,
                                 SIM_MODELS.index(k[2]) if k[2] in SIM_MODELS else 99, k[1]))
    if not keys:
        return []
    info = [b["extra_info"] for b in res.doc["benchmarks"]
            if b.get("extra_info", {}).get("measure") == "simulator"]
    mj = next((x["mujoco"] for x in info if "mujoco" in x), None)
    dofs = {x["model"]: x["dofs"] for x in info if "dofs" in x}
    out = ["## Simulator rollouts: fastdyn.Scene.rollout vs mujoco.rollout, same robots", "",
           f"bench/test_simulator.py (MuJoCo {mj or 'n/a'}): steps per second = rollouts x "
           "steps / min time of the whole batch, both with 2 threads (numba's, MuJoCo's "
           "persistent `Rollout` pool), dt = 1 ms. Contact-free: 100 x 1,000 steps at zero "
           "torque from random configurations, the same URDF on both sides with contacts, "
           "limits, damping and friction off. Quadruped: 256 x 2,000 steps standing or "
           "dropped from 0.3 m, feet as spheres on a plane, mu = 0.8, PD kp = 5, kd = 0.2 "
           "(fastdyn's built-in PD; MuJoCo position actuators), MuJoCo with its default "
           "solver (Newton), elliptic cones, default soft contacts. fastdyn keeps the final "
           "state only, mujoco.rollout writes every step's state. Throughput ratio = fastdyn "
           "steps/s / MuJoCo steps/s. Target: >= 2x (time ratio <= 0.5) on UR5, Panda, "
           "Solo12, Talos contact-free and on both quadruped scenes. \"ADMM\": the standing "
           "scene with `Scene(solver=\"admm\")` (not judged; PGS is the default). "
           "\"generated\": the same rollouts with `rollout(..., generated=gen)`: the "
           "model's generated ABA in every contact-free step, its generated CRBA + RNEA + "
           "factorization (codegen/free_velocity.py) in every step of the quadruped scenes "
           "(opt-in; judged against the same target on its own line of the summary). "
           "\"soft\" (bench/test_softness.py): the quadruped "
           "scenes with MuJoCo's soft contact model, `Scene(solref=(0.02, 1))` and its default "
           "solimp, the contact model of the MuJoCo side (opt-in; its own summary line); \"soft "
           "generated\": those soft rollouts with `generated=` (its own summary line).", ""]
    rows = []
    for scene, variant, m in keys:
        f = res.get("simulator", scene, m, "fastdyn", variant)
        j = res.get("simulator", scene, m, "mujoco", variant)
        r = ratio(f, j)
        judged = scene != "contact-free" or m in ROBOTS
        verdict = tally.judge("simulator >= 2x mujoco.rollout", f"{scene} {m}", r, SIM_TARGET,
                              judged)
        a = res.get("simulator", scene, m, "fastdyn-admm", variant)
        g = res.get("simulator", scene, m, "fastdyn-generated", variant)
        rg = ratio(g, j)
        gv = tally.judge("simulator, generated kernels, >= 2x mujoco.rollout", f"{scene} {m}",
                         rg, SIM_TARGET, judged and g is not None)
        sf = res.get("simulator", scene, m, "fastdyn-soft", variant)
        rs = ratio(sf, j)
        sv = tally.judge("simulator, soft contacts, >= 2x mujoco.rollout", f"{scene} {m}",
                         rs, SIM_TARGET, judged and sf is not None)
        sg = res.get("simulator", scene, m, "fastdyn-soft-generated", variant)
        rsg = ratio(sg, j)
        sgv = tally.judge("simulator, soft contacts, generated kernels, >= 2x mujoco.rollout",
                          f"{scene} {m}", rsg, SIM_TARGET, judged and sg is not None)
        rows.append([scene, f"{m} (nv {dofs[m]})" if m in dofs else m, variant,
                     f"{1 / f[0]:,.0f}" if f else "n/a", f"{1 / j[0]:,.0f}" if j else "n/a",
                     f"{1 / r:.2f}x" if r else "n/a",
                     f"{j[1] / f[1]:.2f}x" if f and j else "n/a",
                     fmt_t(f[0]) if f else "n/a", fmt_t(j[0]) if j else "n/a",
                     ">= 2x" if judged else "-", verdict,
                     f"{1 / a[0]:,.0f} ({j[0] / a[0]:.2f}x)" if a and j else "-",
                     f"{1 / g[0]:,.0f} ({1 / rg:.2f}x)" if g and rg else "-", gv,
                     f"{1 / sf[0]:,.0f} ({1 / rs:.2f}x)" if sf and rs else "-", sv,
                     f"{1 / sg[0]:,.0f} ({1 / rsg:.2f}x)" if sg and rsg else "-", sgv])
    return out + table(["scene", "model", "batch", "fastdyn steps/s", "MuJoCo steps/s",
                        "throughput vs MuJoCo (min)", "(median)", "fastdyn / step",
                        "MuJoCo / step", "target", "", "ADMM steps/s (vs MuJoCo)",
                        "generated steps/s (vs MuJoCo)", "", "soft steps/s (vs MuJoCo)", "",
                        "soft generated steps/s (vs MuJoCo)", ""],
                       rows) + step_split_rows(res)


SPLIT_PHASES = ("loop", "dynamics", "rows", "delassus", "solve", "step")


def step_split_rows(res: Results) -> list[str]:
    """bench/test_step_split.py: a contact step's time per phase (differences of the
    cumulative prefixes' min times per step), one thread."""
    rows = []
    for scene in SIM_SCENES[1:]:
        t = [res.get("step-split", scene, "quadruped", p, "1t") for p in SPLIT_PHASES]
        if not all(t):
            continue
        d = [t[i][0] - t[i - 1][0] for i in range(1, len(t))]
        sweeps = next((b["extra_info"]["sweeps"] for b in res.doc["benchmarks"]
                       if b.get("extra_info", {}).get("measure") == "step-split"
                       and b["extra_info"]["algo"] == scene
                       and b["extra_info"]["role"] == "solve"), float("nan"))
        rows.append([scene, *(fmt_t(x) for x in d[:3]), f"{fmt_t(d[3])} ({sweeps:.1f})",
                     fmt_t(d[4]), fmt_t(t[-1][0] - t[0][0])])
    if not rows:
        return []
    return ["Where a contact step's time goes (bench/test_step_split.py, one thread, time per "
            "step averaged over 4 of the scene's rollouts x 2,000 steps, each phase the "
            "difference of cumulative prefixes of time_step): dynamics = CRBA + RNEA + "
            "factorization -> v_free; rows = contact and joint rows; Delassus = J M^-1 J^T + R; "
            "solve = PGS from the warm start (its sweeps per step); rest = scatter, "
            "v+ = v_free + M^-1 J^T P, contact forces, integration.", ""] + table(
        ["scene", "dynamics", "rows", "Delassus", "solve (sweeps)", "rest", "step"], rows)


GEOM_PHASES = ("loop", "dynamics", "detect", "rows", "delassus", "solve", "step")


def geom_section(res: Results, tally: Tally) -> list[str]:
    """bench/test_scene_geoms.py (scenes with collision geoms beside mujoco.rollout) and
    bench/test_geom_step_split.py (where the 10-box stack's step goes)."""
    info = [b["extra_info"] for b in res.doc["benchmarks"]
            if b.get("extra_info", {}).get("measure") == "rollout"
            and "mujoco_step_s" in b.get("extra_info", {})]
    rows = []
    for x in sorted(info, key=lambda x: x["algo"]):
        f = res.get("rollout", x["algo"], x["model"], x["role"], x.get("variant", ""))
        if "fastdyn_step_s" in x:  # (timed in rounds alternating with MuJoCo's)
            f = (x["fastdyn_step_s"],)
        mj = x["mujoco_step_s"]
        r = f[0] / mj if f else None
        closed = x["algo"] == "equality"  # bench/test_scene_equalities.py: closed mechanisms
        verdict = tally.judge("closed-loop scenes >= 2x mujoco.rollout" if closed else
                              "geom scenes >= 2x mujoco.rollout",
                              x["model"] if closed else x["algo"], r, SIM_TARGET)
        rows.append([f"{x['algo']} ({x['model']})" if closed else x["algo"],
                     x.get("variant", ""), fmt_t(f[0]) if f else "n/a", fmt_t(mj),
                     f"{1 / r:.2f}x" if r else "n/a", ">= 2x", verdict])
    t = [res.get("step-split", "box-stack", "boxes10", p, "1t") for p in GEOM_PHASES]
    split = []
    if all(t):
        d = [t[i][0] - t[i - 1][0] for i in range(1, len(t))]
        split = ["", "Where the 10-box stack's step goes (bench/test_geom_step_split.py, one "
                 "thread, each phase the difference of cumulative prefixes):", ""] + table(
            ["dynamics", "detect", "rows", "Delassus", "solve", "rest", "step"],
            [[*(fmt_t(x) for x in d), fmt_t(t[-1][0] - t[0][0])]])
    if not rows and not split:
        return []
    return ["## Scenes with collision geoms or closed loops: fastdyn.Scene.rollout vs "
            "mujoco.rollout", "",
            "bench/test_scene_geoms.py: 8 rollouts of the same MJCF on both sides, 2 threads, "
            "dt = 1 ms, time per rollout step, the best of 7 rounds alternating fastdyn and "
            "MuJoCo (bench/alternate.py); the stacks' and the gripper's solvers and contact "
            "models are in the suite's docstring. bench/test_scene_equalities.py "
            "(\"equality\" rows): a four-bar "
            "(a connect) and two welded arms (a weld), the MJCF's `<equality>` on both sides "
            "(Scene.add_mjcf_equalities), contacts off. bench/test_scene_push.py "
            "(\"panda_push\"): example-robot-data's Panda, its meshes' hulls, pushing a cube "
            "across a table, 8 x 1,500 steps, the MuJoCo twin from Scene.to_mjcf (PGS at its "
            "default tolerance is slow on the sliding cube: the file's docstring). "
            "Throughput ratio = MuJoCo time / "
            "fastdyn time; target >= 2x (issues 38 and 39).", ""] + table(
        ["scene", "solver", "fastdyn / step", "MuJoCo / step", "throughput vs MuJoCo",
         "target", ""], rows) + split


CLOSED_LOOP_TARGET = 1.1  # time under a user's njit policy vs the open-loop replay


def closed_loop_section(res: Results, tally: Tally) -> list[str]:
    variant = next((k[2] for k in res.t if k[0] == "closed-loop"), None)
    if variant is None:
        return []
    get = lambda role: res.get("closed-loop", "quadruped-standing", "quadruped", role,  # noqa
                               variant)
    opn = get("fastdyn-open-loop")
    rows = []
    for role, label in (("fastdyn-policy", "user @njit policy"),
                        ("fastdyn-builtin", "built-in PD"), ("fastdyn-open-loop", "open loop")):
        t = get(role)
        r = ratio(t, opn)
        verdict = tally.judge("closed-loop rollouts <= 1.1x open-loop", label, r,
                              CLOSED_LOOP_TARGET, role == "fastdyn-policy")
        rows.append([label, variant, fmt_t(t[0]) if t else "n/a",
                     f"{r:.2f}" if r else "n/a", f"{t[1] / opn[1]:.2f}" if t and opn else "n/a",
                     "<= 1.1" if role == "fastdyn-policy" else "-", verdict])
    return ["## Closed-loop rollouts: a controller in the loop", "",
            "bench/test_closed_loop.py: the standing quadruped (bench/test_simulator.py's "
            "scene), 64 rollouts x 1,000 steps, 2 threads; time per step (min over rounds) "
            "under a user's `@numba.njit` PD policy, the built-in PD and the open-loop replay "
            "of the torques the policy applied (the same trajectories). Target: the policy's "
            "time <= 1.1x the open loop's.", ""] + table(
        ["controller", "batch", "time / step", "vs open loop (min)", "(median)", "target",
         ""], rows)


MC_LOOP_TARGET = 1 / 20  # time vs Pinocchio's inertia-editing loop (>= 20x its throughput)
MC_REGRESSOR_TARGET = 1 / 3  # time vs Pinocchio's regressor route, RNEA (>= 3x)
MC_FIXED_TARGET = 1.2  # time vs fastdyn's own fixed-model batch


def montecarlo_section(res: Results, tally: Tally) -> list[str]:
    if not res.has("montecarlo", "fastdyn"):
        return []
    out = ["## Monte Carlo: 10,000 (sample, state) pairs, each row its own robot", "",
           "bench/test_montecarlo.py. fastdyn, 2 threads, one `fastdyn.batch.rnea`/`aba` "
           "call: \"pi\" with `pi=` the 10,000 sampled inertias (every body's mass, com and "
           "inertia perturbed, `fastdyn.sample_parameters`), with the generic kernels and with "
           "the model's generated ones; \"prm\" with the same robots as full parameter tables "
           "(`prm=fastdyn.parameter_batch(...)`, the route when placements, armature or "
           "gravity vary too). Pinocchio (one thread: neither route has a parallel form): "
           "\"loop\" assigns `model.inertias[j]` of every body then calls "
           "`pin.rnea`/`pin.aba`, per sample, from Python (the `pin.Inertia` objects are made "
           "before timing); \"regressor\" computes `computeJointTorqueRegressor` at each state "
           "and multiplies it by that sample's parameters. \"vs loop\", \"vs regressor\": "
           "throughput ratios of fastdyn's fastest pi route (generated where the model has "
           "generated kernels) over Pinocchio's; \"vs fixed\": time of the pi route over the "
           "same kernels' fixed-model batch (generic / generated), the price of a robot per "
           "row. Targets: >= 20x the loop, >= 3x the regressor route (RNEA), <= 1.2x the "
           "fixed-model time.", ""]
    rows = []
    x = lambda r: f"{1 / r:.1f}x" if r else "-"  # noqa: E731
    for algo in ("rnea", "aba"):
        for m in MODELS:
            f = res.get("montecarlo", algo, m, "fastdyn", "2t")
            if not f:
                continue
            g = res.get("montecarlo", algo, m, "fastdyn-generated", "2t")
            prm = res.get("montecarlo", algo, m, "fastdyn-prm", "2t")
            fixed = res.get("montecarlo", algo, m, "fastdyn-fixed", "2t")
            gfixed = res.get("montecarlo", algo, m, "fastdyn-fixed-generated", "2t")
            loop = res.get("montecarlo", algo, m, "pinocchio-loop", "1t")
            reg = res.get("montecarlo", algo, m, "pinocchio-regressor", "1t")
            best = g if g and g[0] < f[0] else f
            where = f"{ALGO_NAMES[algo]} {m}"
            r_loop, r_reg = ratio(best, loop), ratio(best, reg)
            r_fix, r_gfix = ratio(f, fixed), ratio(g, gfixed)
            v_loop = tally.judge("Monte Carlo >= 20x Pinocchio's loop", where, r_loop,
                                 MC_LOOP_TARGET)
            v_reg = tally.judge("Monte Carlo RNEA >= 3x Pinocchio's regressor route", where,
                                r_reg, MC_REGRESSOR_TARGET, reg is not None)
            v_fix = tally.judge("Monte Carlo <= 1.2x fastdyn's fixed-model batch", where,
                                r_fix, MC_FIXED_TARGET)
            v_gfix = tally.judge("Monte Carlo <= 1.2x fastdyn's fixed-model batch",
                                 where + " (generated)", r_gfix, MC_FIXED_TARGET,
                                 r_gfix is not None)
            rows.append([ALGO_NAMES[algo], model_label(res, m), fmt_t(f[0]),
                         fmt_t(g[0]) if g else "-", fmt_t(prm[0]) if prm else "-",
                         fmt_t(loop[0]) if loop else "n/a", fmt_t(reg[0]) if reg else "-",
                         x(r_loop), v_loop, x(r_reg), v_reg, fmt_r(r_fix), v_fix,
                         fmt_r(r_gfix), v_gfix])
    return out + table(["algorithm", "model", "pi / pair", "pi generated / pair",
                        "prm / pair", "pin loop / pair", "pin regressor / pair", "vs loop",
                        "", "vs regressor", "", "vs fixed", "", "generated vs fixed", ""],
                       rows)


DERIV_NAMES = {"rnea_derivatives": "RNEA derivatives", "aba_derivatives": "ABA derivatives",
               "kinematics_derivatives": "kinematics derivatives",
               "frame_derivatives": "frame velocity + acceleration derivatives",
               "centroidal_derivatives": "centroidal dynamics derivatives"}
DERIV_TARGET = 0.5  # kernel and single call, RNEA and ABA derivatives
STEP_TARGET = 0.1  # step Jacobians: >= 10x mjd_transitionFD


def derivatives_section(res: Results, tally: Tally) -> list[str]:
    if not res.has("kernel", "fastdyn") or not any(
            k[1] in DERIV_NAMES for k in res.t):
        return []
    out = ["## Derivatives: kernel, single call, batch; one step's Jacobians vs MuJoCo", "",
           "bench/test_derivatives.py, bench/test_kinematics_derivatives.py, "
           "bench/test_step_derivatives.py. Kernel: the kernel in an `@numba.njit` loop over "
           "1,000 states, against Pinocchio's C++ time *estimated* as (its Python binding "
           "called over the states) - (the same loop on a joint-less model), as in the kernel "
           "table above (Pinocchio has no InParallel form of its derivatives). Single call: "
           "`fd.compute_rnea_derivatives(model, data, q, v, a)` etc. against "
           "`pin.computeRNEADerivatives` etc. from Python. Targets (RNEA and ABA derivatives, "
           "the four robots): kernel and single call <= 0.5x Pinocchio's time; the kinematics "
           "rows are not judged. \"generated\": the model's generated derivative kernels "
           "(`fastdyn.codegen.generate(model, algorithms=codegen.DERIVATIVES)`), in the same "
           "loop and as `gen.compute_*_derivatives(data, ...)`, their ratios to the same "
           "Pinocchio times (judged where present; \"-\": no generated row). Talos's generated "
           "derivatives compile for about 4 minutes the first time (disk-cached after).", ""]
    rows = []
    has_gen = any(k[1] in DERIV_NAMES and k[4] == "fastdyn-generated" for k in res.t)
    for algo, name in DERIV_NAMES.items():
        judged_algo = algo in ("rnea_derivatives", "aba_derivatives")
        for m in MODELS:
            f = res.get("kernel", algo, m, "fastdyn")
            c = res.cpp(algo, m)
            s = res.get("single", algo, m, "fastdyn")
            p = res.get("single", algo, m, "pinocchio")
            if not (f or s):
                continue
            judged = judged_algo and m in ROBOTS
            where = f"{name} {m}"
            rk, rs = ratio(f, c), ratio(s, p)
            vk = tally.judge("derivatives kernel <= 0.5x C++", where, rk, DERIV_TARGET, judged)
            vs = tally.judge("derivatives single call <= 0.5x pin", where, rs, DERIV_TARGET,
                             judged)
            row = [name, model_label(res, m), fmt_t(f[0]) if f else "n/a",
                   fmt_t(c[0]) + (" (est.)" if c and c[2] == "estimate" else "")
                   if c else "n/a", fmt_r(rk), vk, fmt_t(s[0]) if s else "n/a",
                   fmt_t(p[0]) if p else "n/a", fmt_r(rs), vs]
            if has_gen:
                gk = res.get("kernel", algo, m, "fastdyn-generated")
                gs = res.get("single", algo, m, "fastdyn-generated")
                rgk, rgs = ratio(gk, c), ratio(gs, p)
                row += [fmt_t(gk[0]) if gk else "-", fmt_r(rgk) if rgk is not None else "-",
                        tally.judge("generated derivatives kernel <= 0.5x C++", where, rgk,
                                    DERIV_TARGET, judged and gk is not None),
                        fmt_t(gs[0]) if gs else "-", fmt_r(rgs) if rgs is not None else "-",
                        tally.judge("generated derivatives single call <= 0.5x pin", where,
                                    rgs, DERIV_TARGET, judged and gs is not None)]
            rows.append(row)
    out += table(["derivatives", "model", "kernel", "Pinocchio C++", "ratio", "",
                  "single call", "pin single call", "ratio", ""]
                 + (["generated kernel", "ratio", "", "generated single call", "ratio", ""]
                    if has_gen else []), rows)
    out += ["Batch: `fd.batch.compute_rnea_derivatives` / `compute_aba_derivatives` over N = 10,000 states, "
            "allocating their outputs (\"alloc\") or filling preallocated ones (`out=`), per "
            "state; Pinocchio: a Python loop of its call over the same states on one thread, "
            "its matrices left in its Data (a lower bound on its time for the same result). "
            "Target: >= 2x Pinocchio's throughput with 2 threads.", ""]
    rows = []
    for algo in ("rnea_derivatives", "aba_derivatives"):
        for m in MODELS:
            p = res.get("batch", algo, m, "pinocchio-pyloop", "N10000-1t")
            cells = [res.get("batch", algo, m, role, f"N10000-{t}t")
                     for role in ("fastdyn", "fastdyn-out") for t in (1, 2)]
            if not (p or any(cells)):
                continue
            best2 = min((c for c in (cells[1], cells[3]) if c), key=lambda c: c[0],
                        default=None)
            r = ratio(best2, p)
            v = tally.judge("derivatives batch 2 threads >= 2x", f"{DERIV_NAMES[algo]} {m}", r,
                            BATCH_TARGET, m in ROBOTS)
            rows.append([DERIV_NAMES[algo], model_label(res, m)]
                        + [fmt_t(c[0]) if c else "-" for c in cells]
                        + [fmt_t(p[0]) if p else "n/a", f"{1 / r:.2f}x" if r else "n/a", v])
    out += table(["derivatives", "model", "alloc 1t", "alloc 2t", "out= 1t", "out= 2t",
                  "pin loop 1t", "throughput vs pin (2t)", ""], rows)
    out += ["Step Jacobians (A, B) of one contact-free step: `Scene.step_derivatives` from "
            "Python, its kernel in an `@njit` loop, and the batch over 1,000 states, against "
            "`mujoco.mjd_transitionFD` (forward and centred differences) on MuJoCo's twin of "
            "the same robot. Target: >= 10x MuJoCo (judged against the forward differences, "
            "its default). \"quadruped-standing\": the bundled quadruped standing on its four "
            "feet (12 contact rows, the active set held fixed) against `mjd_transitionFD` on "
            "MuJoCo's twin of the scene; not judged: MuJoCo's contact is soft, its A includes "
            "the PD actuators and its B has 12 actuator columns, so it is not the same "
            "derivative. \"generated single call\": `Scene.step_derivatives(q, v, tau, "
            "generated=gen)` with the model's generated ABA derivatives (`fastdyn.codegen`), "
            "judged against the same target where present.", ""]
    rows = []
    found = {k[3] for k in res.t if k[1] == "step_derivatives"}
    for m in [m for m in MODELS if m in found] + sorted(found - set(MODELS)):
        s = res.get("single", "step_derivatives", m, "fastdyn")
        if not s:
            continue
        k = res.get("kernel", "step_derivatives", m, "fastdyn")
        b1 = res.get("batch", "step_derivatives", m, "fastdyn", "N1000-1t")
        b2 = res.get("batch", "step_derivatives", m, "fastdyn", "N1000-2t")
        fw = res.get("single", "step_derivatives", m, "mujoco-forward")
        ce = res.get("single", "step_derivatives", m, "mujoco-centred")
        r = ratio(s, fw)
        v = tally.judge("step Jacobians >= 10x mjd_transitionFD", m, r, STEP_TARGET,
                        m in ROBOTS)
        g = res.get("single", "step_derivatives", m, "fastdyn-generated")
        rg = ratio(g, fw)
        gv = tally.judge("step Jacobians, generated, >= 10x mjd_transitionFD", m, rg,
                         STEP_TARGET, m in ROBOTS and g is not None)
        rows.append([model_label(res, m), fmt_t(s[0]), fmt_t(k[0]) if k else "-",
                     fmt_t(b1[0]) if b1 else "-", fmt_t(b2[0]) if b2 else "-",
                     fmt_t(fw[0]) if fw else "n/a", fmt_t(ce[0]) if ce else "n/a",
                     f"{1 / r:.1f}x" if r else "n/a",
                     f"{ce[0] / s[0]:.1f}x" if ce else "n/a", v,
                     fmt_t(g[0]) if g else "-", f"{1 / rg:.1f}x" if rg else "-", gv])
    return out + table(["model", "single call", "kernel", "batch / state 1t",
                        "batch / state 2t", "MuJoCo forward", "MuJoCo centred",
                        "speed-up (forward)", "speed-up (centred)", "",
                        "generated single call", "speed-up (forward)", ""], rows) \
        + kinematics_batch_rows(res)


KIN_BATCH = {"frame_velocity_derivatives": "frame velocity derivatives",
             "frame_acceleration_derivatives": "frame acceleration derivatives",
             "centroidal_derivatives": "centroidal dynamics derivatives"}


def kinematics_batch_rows(res: Results) -> list[str]:
    """bench/test_kinematics_derivatives.py's batch rows (not judged): time per state."""
    rows = []
    for algo, name in KIN_BATCH.items():
        for m in MODELS:
            p = res.get("batch", algo, m, "pinocchio-pyloop", "N1000-1t")
            b = [res.get("batch", algo, m, "fastdyn", f"N1000-{t}t") for t in (1, 2)]
            if not (p or any(b)):
                continue
            best = min((c for c in b if c), key=lambda c: c[0], default=None)
            r = ratio(best, p)
            rows.append([name, model_label(res, m)] + [fmt_t(c[0]) if c else "-" for c in b]
                        + [fmt_t(p[0]) if p else "n/a", f"{1 / r:.2f}x" if r else "n/a"])
    if not rows:
        return []
    return ["Batch kinematics and centroidal derivatives: `fd.batch.get_frame_velocity_derivatives`"
            " / `get_frame_acceleration_derivatives` (LOCAL, the frame on the deepest joint) / "
            "`centroidal_dynamics_derivatives` over 1,000 states, per state, against a Python "
            "loop of Pinocchio's computeForwardKinematicsDerivatives + getFrame*Derivatives (or "
            "computeCentroidalDynamicsDerivatives) over the same states on one thread. Not "
            "judged.", ""] + table(["derivatives", "model", "batch 1t", "batch 2t",
                                    "pin loop 1t", "throughput vs pin (best)"], rows)


API_TARGET = 1.0  # every other public call from Python / its pin counterpart from Python
API_MODELS = ("ur5", "panda", "solo12", "talos")


def api_section(res: Results, tally: Tally) -> list[str]:
    """bench/test_api.py: one row per public call and model, fastdyn beside Pinocchio."""
    calls = list(dict.fromkeys(k[1] for k in res.t if k[0] == "api"))
    if not calls:
        return []
    out = ["## The everyday API: one public call from Python vs its Pinocchio counterpart", "",
           "bench/test_api.py: each public call as a script makes it (input checks included, "
           "Data preallocated), beside the Pinocchio call doing the same work, named in the "
           "file's CALLS (the two results are compared before timing). ik_step: one damped "
           "least-squares step, `inverse_kinematics(max_iter=1)` against the step of "
           "Pinocchio's inverse-kinematics example written with pin calls; "
           "batch_random_configuration: time per configuration, against "
           "`pin.randomConfiguration` in a Python loop. Target: ratio <= 1.", ""]
    rows = []
    for call in calls:
        for m in API_MODELS:
            f = res.get("api", call, m, "fastdyn")
            p = res.get("api", call, m, "pinocchio")
            if not (f or p):
                continue
            r = ratio(f, p)
            verdict = tally.judge("API call <= 1x pin", f"{call} {m}", r, API_TARGET)
            rows.append([call, model_label(res, m), fmt_t(f[0]) if f else "n/a",
                         fmt_t(p[0]) if p else "n/a", fmt_r(r), fmt_r(ratio(f, p, 1)),
                         "<= 1", verdict])
    return out + table(["call", "model", "fastdyn", "Pinocchio", "ratio (min)",
                        "ratio (median)", "target", ""], rows)


TICK_TARGET = 0.7  # a control loop's tick from Python, fused calls / Pinocchio's calls


def tick_section(res: Results, tally: Tally) -> list[str]:
    """The 1 kHz computed-torque loop of bench/test_tick.py: time per tick, four ways."""
    models = [m for m in ("ur5", "solo12") if res.get("tick", "tick", m, "pinocchio")]
    if not models:
        return []
    out = ["## A control loop's tick from Python: compiled law, fused calls, single calls vs "
           "Pinocchio", "",
           "bench/test_tick.py: each tick of a computed-torque loop (M, h = rnea(q, v, 0), "
           "difference, the tool frame's placement, tau = M (a_ref + Kp e + Kd edot) + h, "
           "then aba + semi-implicit Euler), 100 ticks per timed call, time per tick. "
           "Pinocchio, \"single\" (fastdyn's single calls in the place of Pinocchio's) and "
           "\"fused\" (`fd.compute_all_terms`: M, h, the tool's placement and Jacobian; "
           "`fd.difference`; `fd.forward_step`: the step, its ddq solved with the M and h just "
           "computed instead of aba) compute the law in NumPy, the same expression; "
           "\"compiled\": `fd.computed_torque` (all of compute_all_terms' work, e and the law "
           "in one compiled call) + `fd.forward_step`, two calls a tick. Target: <= 0.7x "
           "Pinocchio's time per tick, judged on the compiled tick (the issue's \"one "
           "crossing into compiled code\"); Pinocchio has no compiled law to call.", ""]
    rows = []
    for m in models:
        p = res.get("tick", "tick", m, "pinocchio")
        f = res.get("tick", "tick", m, "fastdyn")
        u = res.get("tick", "tick", m, "fastdyn-fused")
        c = res.get("tick", "tick", m, "fastdyn-compiled")
        r = ratio(c, p)
        verdict = tally.judge("control tick <= 0.7x pin", m, r, TICK_TARGET)
        rows.append([model_label(res, m), fmt_t(p[0]), fmt_t(f[0]) if f else "n/a",
                     fmt_r(ratio(f, p)), fmt_t(u[0]) if u else "n/a", fmt_r(ratio(u, p)),
                     fmt_t(c[0]) if c else "n/a", fmt_r(r), fmt_r(ratio(c, p, 1)),
                     f"{1e-3 / c[0]:.0f}x" if c else "n/a", f"{1e-3 / p[0]:.0f}x", "<= 0.7",
                     verdict])
    return out + table(["model", "Pinocchio / tick", "single / tick", "single ratio",
                        "fused / tick", "fused ratio", "compiled / tick",
                        "compiled ratio (min)", "compiled ratio (median)",
                        "compiled real time at 1 kHz", "Pinocchio real time", "target", ""],
                       rows)


def mpc_section(res: Results, tally: Tally) -> list[str]:
    """MPC from Python (bench/test_single_step.py, bench/test_ilqr.py): one ``Scene.step``,
    a horizon of steps with their Jacobians, and a whole iLQR, each beside Pinocchio."""
    rows = []
    for m in ("ur5", "quadruped"):
        f = res.get("simulator", "single-step", m, "fastdyn")
        p = res.get("simulator", "single-step", m, "pinocchio")
        j = res.get("simulator", "single-step", m, "mujoco")
        if f:
            r = ratio(f, p) if p else None
            verdict = tally.judge("scene.step <= 1.0x pin aba + integrate", m, r, 1.0,
                                  judged=p is not None)
            rows.append([f"`scene.step`, one step", model_label(res, m), fmt_t(f[0]),
                         fmt_t(p[0]) if p else "-", fmt_r(r), fmt_r(ratio(f, p, 1)) if p
                         else "-", fmt_t(j[0]) if j else "-", "<= 1.0" if p else "-",
                         verdict])
    for m in ("quadruped", "anymal"):  # a step from Python against its compiled entry point
        f = res.get("simulator", "single-step", m, "fastdyn")
        k = res.get("simulator", "single-step", m, "fastdyn-kernel")
        if f and k:
            r = ratio(f, k)
            verdict = tally.judge("scene.step <= 1.5x its kernel, standing", m, r, 1.5)
            rows.append(["`scene.step` vs its kernel from `@njit`, standing on 4 feet", m,
                         fmt_t(f[0]), f"kernel {fmt_t(k[0])}", fmt_r(r), fmt_r(ratio(f, k, 1)),
                         "-", "<= 1.5", verdict])
    for algo, what, target in (("horizon", "`scene.horizon`, 50 steps + (A, B), per step",
                                None),
                               ("ilqr", "iLQR, 50 steps x 10 iterations, whole", 0.5)):
        p = res.get("mpc", algo, "ur5", "pinocchio")
        for role, how in (("fastdyn", what), ("fastdyn-steps", "the same with `scene.step` "
                                                               "+ `step_derivatives`")):
            f = res.get("mpc", algo, "ur5", role)
            if not (f and p):
                continue
            r = ratio(f, p)
            judged = target is not None and role == "fastdyn"
            verdict = tally.judge("iLQR <= 0.5x the same iLQR on pin", "ur5", r,
                                  target or 0.0, judged=judged)
            rows.append([how, model_label(res, "ur5"), fmt_t(f[0]), fmt_t(p[0]), fmt_r(r),
                         fmt_r(ratio(f, p, 1)), "-", f"<= {target}" if judged else "-",
                         verdict])
    if not rows:
        return []
    return ["## MPC from Python: one step, a horizon, an iLQR vs Pinocchio", "",
            "bench/test_single_step.py: `scene.step(q, v, tau)` from Python, contact-free UR5 "
            "(Pinocchio: `aba` + `integrate`, the same semi-implicit Euler step; MuJoCo: "
            "`mj_step` on its twin) and the quadruped standing on four feet (MuJoCo only). "
            "bench/test_ilqr.py: fastdyn.examples.mpc's iLQR (UR5, dt = 10 ms, Python and "
            "NumPy, the same code on every side) with its forward passes and Jacobians from "
            "`scene.horizon` (one call a pass), from `scene.step` + `scene.step_derivatives` "
            "step by step, or from Pinocchio's `aba`, `integrate`, `computeABADerivatives` and "
            "`dIntegrate` assembled in NumPy; the horizon rows time one such forward pass "
            "alone. \"vs its kernel\": the same scene's step from Python against its compiled "
            "entry point called from an `@njit` loop (the free step and the contact solve, "
            "no Python), on the bundled quadruped and ANYmal (example-robot-data). Targets: "
            "<= 1.0x Pinocchio for the contact-free step, <= 1.5x its kernel for a standing "
            "robot's, <= 0.5x Pinocchio for the iLQR.", ""] + table(
        ["call", "model", "fastdyn", "Pinocchio", "ratio (min)", "ratio (median)", "MuJoCo",
         "target", ""], rows)


def collision_section(res: Results, tally: Tally) -> list[str]:
    """Narrow phase per pair of geom types (bench/test_collision.py) beside coal, from Python
    and, where bench/cpp/coal_run.py measured it, from C++."""
    cpp = {r["pair"]: r["seconds"] * 1e9 for r in res.doc.get("coal", [])}
    rows = []
    for b in res.doc["benchmarks"]:
        x = b.get("extra_info", {})
        if x.get("measure") != "collision":
            continue
        ns, pair = x["ns_per_call"], x["algo"]
        c = cpp.get(pair)
        r = ns["fastdyn-kernel"] / c if c else None
        verdict = tally.judge("narrow phase <= 2x coal's C++", pair, r, 2.0, judged=c is not None)
        rows.append([pair, f"{ns['fastdyn-kernel']:.0f} ns", f"{ns['fastdyn-python']:.0f} ns",
                     f"{ns['coal']:.0f} ns", f"{c:.0f} ns" if c else "-", fmt_r(r), "<= 2",
                     verdict])
    if not rows:
        return []
    return ["## Narrow phase: one pair of geoms, fastdyn vs coal", "",
            "bench/test_collision.py: each pair type on one seeded case penetrating by 1 cm "
            "(tests/collision_cases.py), the best of 5 interleaved rounds of 2,000 calls: "
            "fastdyn's `collide_geoms` from an `@njit` loop (what a Scene step pays) and from "
            "Python, coal's `coal.collide` (contacts on) from Python (its binding's overhead, "
            "~0.4 us, included). bench/cpp/coal_run.py: the same cases timed by "
            "bench/cpp/coal_timing.cpp, `coal::collide` in a C++ loop (built against the "
            "installed coal; checked to find coal's depth). Target: fastdyn's kernel <= 2x "
            "coal's C++ time.", ""] + table(
        ["pair", "fastdyn kernel", "fastdyn from Python", "coal from Python", "coal C++",
         "kernel / coal C++", "target", ""], rows)


CONSTRAINED_ALGOS = ("constraint_dynamics", "impulse_dynamics",
                     "constraint_dynamics_derivatives", "impulse_dynamics_derivatives",
                     "constraint_dynamics_batch", "impulse_dynamics_batch")


def constrained_section(res: Results, tally: Tally) -> list[str]:
    """bench/test_constrained.py: constrained and impulse dynamics, their derivatives and
    batches, fastdyn's calls beside Pinocchio's from Python, and the kernels beside Pinocchio's
    C++ (bench/cpp/timing.cpp)."""
    models = [m for m in ("solo12", "talos")
              if res.get("constrained", "constraint_dynamics", m, "pinocchio")]
    if not models:
        return []
    out = ["## Constrained dynamics: fd.constraint_dynamics, impulse_dynamics, derivatives, "
           "batches vs Pinocchio", "",
           "bench/test_constrained.py: Solo12 on four point contacts (CONTACT_3D, "
           "LOCAL_WORLD_ALIGNED), Talos on two frame contacts (CONTACT_6D, LOCAL), the same "
           "seeded states and constraints on both sides; one call from Python per state "
           "(Pinocchio's constraintDynamics / impulseDynamics, and for the derivative rows its "
           "forward call then computeConstraintDynamicsDerivatives / "
           "computeImpulseDynamicsDerivatives; fastdyn's derivative call computes both). "
           "Batch rows: `fd.batch.*` over 1,000 states on 2 threads against a Pinocchio loop "
           "of single calls. Targets: single calls <= 1.0x Pinocchio's time, batches >= 2x a "
           "Pinocchio loop's throughput (time ratio <= 0.5).", "",
           "Kernel columns: the raw kernel (kernels/contact/, no argument checks) in an "
           "`@numba.njit` loop, 50 states a round over 1,000 seeded states, checked against "
           "Pinocchio first; Pinocchio C++: the same calls with the same contacts in "
           "bench/cpp/timing.cpp (1,000 random states, blocks of 50, min and median over "
           "blocks; bench/results/cpp.json). Target: kernel <= 0.5x Pinocchio's C++ time.", ""]
    rows = []
    for m in models:
        for a in CONSTRAINED_ALGOS:
            f = res.get("constrained", a, m, "fastdyn")
            p = res.get("constrained", a, m, "pinocchio")
            if not (f and p):
                continue
            bound = 0.5 if a.endswith("batch") else 1.0
            r = ratio(f, p)
            verdict = tally.judge("constrained dynamics: single <= 1.0x, batch >= 2x pin",
                                  f"{a} {m}", r, bound)
            k, c = res.get("kernel", a, m, "fastdyn"), res.native.get((a, m))
            kr = ratio(k, c)
            kverdict = tally.judge("constrained kernel <= 0.5x C++", f"{a} {m}", kr,
                                   KERNEL_TARGET, bool(k and c))
            rows.append([model_label(res, m), a, fmt_t(f[0]), fmt_t(p[0]), fmt_r(r),
                         fmt_r(ratio(f, p, 1)), f"<= {bound}", verdict,
                         f"{fmt_t(k[0])} / {fmt_t(k[1])}" if k else "-",
                         f"{fmt_t(c[0])} / {fmt_t(c[1])}" if c else "-",
                         fmt_r(kr) if kr is not None else "-",
                         fmt_r(ratio(k, c, 1)) if k and c else "-",
                         "<= 0.5" if k and c else "-", kverdict])
    return out + table(["model", "call", "fastdyn / state", "Pinocchio / state",
                        "ratio (min)", "(median)", "target", "", "kernel min / median",
                        "Pinocchio C++ min / median", "kernel ratio (min)", "(median)",
                        "target", ""], rows)


def aba_world_section(res: Results) -> list[str]:
    """ABA against Pinocchio's WORLD convention (fastdyn's own) beside its default LOCAL."""
    rows = []
    for m in MODELS:
        loc, wor = res.native.get(("aba", m)), res.native.get(("aba-world", m))
        f = res.get("kernel", "aba", m, "fastdyn")
        g = res.get("kernel", "aba", m, "fastdyn-generated")
        c = res.cpp("aba", m)
        s1, sp, sw = (res.get("single", "aba", m, r)
                      for r in ("fastdyn", "pinocchio", "pinocchio-world"))
        if not (loc and wor) and not sw:
            continue
        share = wor[0] / loc[0] if loc and wor else None  # WORLD / LOCAL, same C++ run
        cw = (c[0] * share,) if c and share else None  # WORLD on the kernel table's scale
        rows.append([model_label(res, m), fmt_t(loc[0]) if loc else "n/a",
                     fmt_t(wor[0]) if wor else "n/a", fmt_r(share), fmt_r(ratio(f, c)),
                     fmt_r(ratio(f, cw)), fmt_r(ratio(g, cw)) if g else "-",
                     fmt_t(sp[0]) if sp else "n/a", fmt_t(sw[0]) if sw else "n/a",
                     fmt_r(ratio(s1, sw))])
    if not rows:
        return []
    return (["## ABA against Pinocchio's WORLD convention", "",
             "Pinocchio's `aba` takes a `Convention`: LOCAL (its default, used in the tables "
             "above) or WORLD, which works in the world frame as fastdyn's ABA does and is "
             "faster. C++ LOCAL / WORLD: bench/cpp/timing.cpp, interleaved rounds, min; \"WORLD / "
             "LOCAL\" their ratio in that run. The kernel ratios take the kernel table's "
             "Pinocchio time (InParallel, LOCAL) times WORLD / LOCAL, so both sides come from "
             "the runs of the table above. Single call: `pin.aba(..., pin.Convention.WORLD)` "
             "from Python.", ""]
            + table(["model", "C++ LOCAL", "C++ WORLD", "WORLD / LOCAL", "kernel ratio vs LOCAL",
                     "kernel ratio vs WORLD", "generated vs WORLD", "pin single LOCAL",
                     "pin single WORLD", "single ratio vs WORLD"], rows) + [""])


def estimate_check(res: Results) -> list[str]:
    rows = []
    for algo in ALGOS:
        for m in MODELS:
            c = res.get("kernel", algo, m, "pinocchio-cpp") or res.native.get((algo, m))
            e = res.estimate(algo, m)
            if c and e:
                rows.append([ALGO_NAMES[algo], m, fmt_t(c[0]), fmt_t(e[0]), fmt_r(e[0] / c[0])])
    if not rows:
        return []
    return (["## Check of the C++ estimate (where the true C++ time is known)", "",
             "estimate = (pin.X from Python, state by state) - (same on a joint-less model). "
             "A ratio above 1 means the estimate over-states C++ time, so the estimated "
             "kernel ratios for CRBA, FK and Jacobians are optimistic for fastdyn by about "
             "that factor.", ""]
            + table(["algorithm", "model", "C++ (InParallel or bench/cpp, 1 thread)", "estimate",
                     "estimate / C++"], rows))


def summary(tally: Tally) -> list[str]:
    rows = []
    for target, items in tally.rows.items():
        vals = [x for x in items if x[1] is not None]
        met = sum(1 for x in items if x[2] == "met")
        show = fmt_t if target.endswith(" s") else fmt_r  # start-up targets are seconds
        missed = [f"{w} ({show(v)})" for w, v, verdict in items if verdict != "met"]
        worst = max(vals, key=lambda x: x[1]) if vals else None
        rows.append([target, f"{met} / {len(items)}",
                     f"{worst[0]}: {show(worst[1])}" if worst else "n/a",
                     ", ".join(missed) or "-"])
    return ["## Targets at a glance", ""] + table(
        ["target", "met", "worst", "missed (value)"], rows)


# The README's "Key numbers" table, quoted from here (tests/test_readme.py checks it is the
# same): (row label, the tally target the values come from, its entry per robot, shown as a
# time ratio or as the speed-up 1 / ratio).
KEY_ROWS = (
    ("RNEA kernel in `@njit`, generated, vs Pinocchio C++", "generated kernel <= 0.5x C++",
     "RNEA {}", "ratio"),
    ("ABA kernel, generated, vs Pinocchio C++", "generated kernel <= 0.5x C++", "ABA {}",
     "ratio"),
    ("batch RNEA, N=10,000, 2 threads, generated, vs `rneaInParallel`",
     "generated batch N=10k 2 threads >= 2x", "RNEA {}", "ratio"),
    ("contact-free rollouts, generated, vs `mujoco.rollout` (throughput)",
     "simulator, generated kernels, >= 2x mujoco.rollout", "contact-free {}", "speed-up"),
    ("step Jacobians, generated, vs `mujoco.mjd_transitionFD` (speed)",
     "step Jacobians, generated, >= 10x mjd_transitionFD", "{}", "speed-up"),
)


def key_numbers(tally: Tally) -> list[str]:
    """The README's table of key numbers, from the values the sections judged."""
    rows = []
    for label, target, entry, shown in KEY_ROWS:
        values = {w: v for w, v, _ in tally.rows.get(target, [])}
        cells = []
        for robot in ROBOTS:
            v = values.get(entry.format(robot))
            if v is None or not v > 0:
                cells.append("-")
            else:
                cells.append(fmt_r(v) if shown == "ratio" else f"{1 / v:.1f}x")
        rows.append([label, " / ".join(cells)])
    return (["## Key numbers", "", "The README quotes this table (lower ratios and higher "
             "speed-ups are better; \"-\": not measured).", ""]
            + table(["", " / ".join(ROBOT_NAMES[r] for r in ROBOTS)], rows))


def write_report(doc: dict, meta: dict, out: Path) -> None:
    res = Results(doc)
    tally = Tally()
    body = (kernel_section(res, tally) + single_section(res, tally) + batch_section(res, tally)
            + startup_section(res, tally) + cold_section(res, tally, fmt_t, table)
            + simulator_section(res, tally)
            + geom_section(res, tally) + closed_loop_section(res, tally)
            + montecarlo_section(res, tally) + derivatives_section(res, tally)
            + api_section(res, tally) + tick_section(res, tally) + mpc_section(res, tally)
            + collision_section(res, tally)
            + constrained_section(res, tally) + aba_world_section(res) + estimate_check(res)
            + provenance(meta))
    v = meta["versions"]
    lines = ["# fastdyn benchmarks vs Pinocchio", "",
             "Generated by `python bench/report.py` from the committed results in bench/results/ "
             "(`--render` re-makes this file from them alone; where each suite's rows come from: "
             "\"Provenance\" at the end). Ratios are "
             "fastdyn time / Pinocchio time from pytest-benchmark's **min** (least disturbed by "
             "other load); the median's ratio is shown beside it. Below 1: fastdyn is faster.", "",
             f"- Date: {meta['date']}",
             f"- Machine: {meta['cpu']}, {meta['cores']} cores ({meta['platform']})",
             f"- Load average (1, 5, 15 min) before / after the run: {meta['load_before']} / "
             f"{meta['load_after']}",
             "- Versions: " + ", ".join(f"{k} {x}" for k, x in v.items()),
             f"- Source: git {meta['git']}", ""]
    if meta.get("note"):
        lines += [f"> {meta['note']}", ""]
    lines += summary(tally) + key_numbers(tally) + body
    out.write_text("\n".join(lines).rstrip() + "\n")


def provenance(meta: dict) -> list[str]:
    runs = meta.get("runs") or []
    if not runs:
        return []
    rows = [[r["suite"], r.get("date", "n/a"), r.get("git", "n/a"), r.get("load_before", "n/a"),
             r.get("load_after", "n/a"), r.get("args") or "-"] for r in runs]
    return (["## Provenance", "", "One row per results file in bench/results/: the commit it "
             "was measured on, and the 1/5/15-minute load average before and after (a shared "
             "machine's load is noise in every row of that suite).", ""]
            + table(["results file", "date", "commit", "load before", "load after",
                     "pytest arguments"], rows))


def run_suite(suite: Path, extra: list[str]) -> int:
    """Run one suite; write bench/results/<suite>.json with its meta (merged into the old
    file's rows when only some of its benchmarks ran)."""
    out = RESULTS / f"{suite.stem}.json"
    RESULTS.mkdir(exist_ok=True)
    tmp = RESULTS / f".{suite.stem}.raw.json"
    meta = {"suite": out.name, "load_before": loadavg(), "git": git_head(), "args": " ".join(
        extra), "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")}
    code = run_suites(tmp, [str(suite), *extra])
    meta["load_after"] = loadavg()
    meta["pytest_exit"] = code
    meta["versions"] = versions()
    if not tmp.exists():
        return code or 1
    doc = json.loads(tmp.read_text())
    tmp.unlink()
    for b in doc["benchmarks"]:  # every round's raw time: hundreds of MB, not needed
        b["stats"].pop("data", None)
    if extra and out.exists():
        doc = merge(json.loads(out.read_text()), doc)
    doc["fastdyn_meta"] = meta
    out.write_text(json.dumps(doc, indent=1) + "\n")
    return code


def collect() -> tuple[dict, dict]:
    """Every results file in bench/results/ as one document, and the combined meta."""
    doc = {"benchmarks": [], "cpp": [], "coal": []}
    runs = []
    for f in sorted(RESULTS.glob("*.json")):
        d = json.loads(f.read_text())
        m = d.get("fastdyn_meta") or d.get("meta") or {}
        m.setdefault("suite", f.name)
        runs.append(m)
        doc["benchmarks"] += d.get("benchmarks", [])
        doc["cpp"] += d.get("cpp", [])
        doc["coal"] += d.get("coal", [])  # bench/cpp/coal_run.py
    dates = sorted(r["date"] for r in runs if r.get("date"))
    meta = {"runs": runs, "date": f"{dates[0]} to {dates[-1]}" if dates else "n/a",
            "git": ", ".join(sorted({r.get("git", "n/a") for r in runs})) or "n/a",
            "load_before": "per suite (Provenance)", "load_after": "per suite (Provenance)",
            "cpu": cpu_model(), "cores": len(os.sched_getaffinity(0)) if hasattr(
                os, "sched_getaffinity") else os.cpu_count(), "platform": platform.platform(),
            "versions": next((r["versions"] for r in runs if r.get("versions")), None)
            or versions()}
    return doc, meta


def merge(old: dict, new: dict) -> dict:
    """new's benchmarks plus those of old that new did not re-run."""
    seen = {b["fullname"] for b in new["benchmarks"]}
    new["benchmarks"] += [b for b in old["benchmarks"] if b["fullname"] not in seen]
    return new


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--render", action="store_true", help="run nothing: RESULTS.md from the "
                    "committed results in bench/results/")
    ap.add_argument("--from-json", type=Path, help="run nothing: RESULTS.md from one json of "
                    "the older single-file layout (its .meta.json beside it)")
    ap.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    ap.add_argument("--note", default=None, help="a line quoted under the header")
    ap.add_argument("--no-cpp", action="store_true", help="do not run bench/cpp/run.py")
    args, extra = ap.parse_known_args(argv)
    if args.from_json:
        doc = json.loads(args.from_json.read_text())
        meta_path = args.from_json.with_suffix(".meta.json")
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    else:
        if not args.render:
            suites = [Path(a).resolve() for a in extra if a.endswith(".py")]
            rest = [a for a in extra if not a.endswith(".py")]
            code = 0
            for suite in suites or sorted(BENCH.glob("test_*.py")):
                code = run_suite(suite, rest) or code
            if not suites and not args.no_cpp:
                subprocess.call([sys.executable, str(BENCH / "cpp" / "run.py")], cwd=ROOT)
            if code:
                print(f"a suite's pytest exited {code}: see above", file=sys.stderr)
        doc, meta = collect()
    meta["note"] = args.note or meta.get("note")
    meta.setdefault("versions", {})
    for k in ("date", "cpu", "cores", "platform", "load_before", "load_after", "git"):
        meta.setdefault(k, "n/a")
    write_report(doc, meta, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
