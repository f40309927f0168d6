"""Mutation check: plant one plausible bug at a time in a scratch copy and see whether the tests
that guard that code catch it.

    python tests/mutations.py --list          # the mutations
    python tests/mutations.py                 # all of them (minutes each: every copy compiles)
    python tests/mutations.py NAME [NAME...]  # some

Each mutation is an exact snippet of one file, replaced by a wrong one a person could write, and
the narrow test selection that should fail on it. For each, the working tree's fastdyn/,
kernels/, tests/, models/ and pyproject.toml are copied once into a temporary directory; the
mutation is applied there (never in the checkout), ``python -m pytest`` runs from that copy's
root (which imports the copy: fastdyn/_internal/source_tree.py) with its own NUMBA_CACHE_DIR, and
the snippet is restored. Verdicts: caught (the selection failed), SURVIVED (it passed: a gap in the
tests), STALE (the snippet is no longer in the file: mend the entry), TIMEOUT. The exit code is
non-zero when any mutation survived or is stale. Not run in CI (each mutation recompiles what its
tests use); run it after changing a kernel family or the tests that guard it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("fastdyn", "kernels", "tests", "models", "pyproject.toml")


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str  # relative to the repository root
    old: str  # must occur exactly once
    new: str
    tests: tuple[str, ...]  # pytest arguments: files, -k expressions
    imitates: str


MUTATIONS = [
    Mutation("rnea-gravity-sign", "kernels/algorithms/rnea.py",
             "(-g[P_GRAVITY], -g[P_GRAVITY + 1], -g[P_GRAVITY + 2], 0.0, 0.0, 0.0)",
             "(g[P_GRAVITY], g[P_GRAVITY + 1], g[P_GRAVITY + 2], 0.0, 0.0, 0.0)",
             ("tests/test_rnea.py",), "gravity entered as a body acceleration of the wrong sign"),
    Mutation("crba-mirror", "kernels/algorithms/crba.py",
             "                M[jv, iv] = acc\n                M[iv, jv] = acc",
             "                M[jv, iv] = acc\n                M[iv, jv] = 0.0",
             ("tests/test_crba.py",), "the ancestor block written in one triangle only"),
    Mutation("crba-armature", "kernels/algorithms/crba.py",
             "M[iv + r, iv + r] += prm[i, P_ARMATURE + r]",
             "M[iv + r, iv + r] += 0.0 * prm[i, P_ARMATURE + r]",
             ("tests/test_crba.py",), "rotor inertia (armature) left off M's diagonal"),
    Mutation("urdf-rpy-order", "fastdyn/io/urdf.py",
             "    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],",
             "    return np.array([[cy * cp, cy * sp * sr + sy * cr, cy * sp * cr + sy * sr],",
             ("tests/test_urdf.py",), "one sign of the RPY matrix wrong"),
    Mutation("builder-helical-pitch", "fastdyn/builder.py",
             '        pr["pitch"] = pitch', '        pr["pitch"] = -pitch',
             ("tests/test_joint_inputs_oracle.py",), "a helical joint's pitch stored negated"),
    Mutation("representations-bias-fext", "fastdyn/representations.py",
             "data.qv, _fext(model, fext))", "data.qv, NO_FORCES)",
             ("tests/test_representations.py",), "bias() ignoring the external forces"),
    Mutation("simulate-torque-row", "kernels/algorithms/simulate.py",
             "euler_step(jnt, prm, qs[k], vs[k], torques[k], dt",
             "euler_step(jnt, prm, qs[k], vs[k], torques[max(k - 1, 0)], dt",
             ("tests/test_simulate_oracle.py",), "the torque table read one row late"),
    Mutation("restitution-velocity", "kernels/contact/constraint_rows.py",
             "b = max(b, -rest * un0)", "b = max(b, -rest * un)",
             ("tests/test_simulator.py", "-k", "bounce or restitution"),
             "restitution computed on the predicted velocity, not the one before the impact"),
    Mutation("codegen-batch-row", "fastdyn/codegen/__init__.py",
             "        rnea(gravity, Q[r], V[r], A[r], TAU[r])",
             "        rnea(gravity, Q[r], V[r], V[r], TAU[r])",
             ("tests/test_codegen.py", "-k", "batch"), "a generated batch passing the wrong row"),
    Mutation("study-dask-chunk", "fastdyn/study/cluster.py",
             "pi, outputs = job.run(lo, hi, 1)", "pi, outputs = job.run(lo, hi - 1, 1)",
             ("tests/test_study_dask.py", "-k", "local_arrays"),
             "a Dask chunk that drops its last sample"),
    Mutation("study-sample-draw", "fastdyn/study/__init__.py",
             "pi[...] = self.sampler.draw(self.seed, lo, hi, self._cache)",
             "pi[...] = self.sampler.draw(self.seed, 0, hi - lo, self._cache)",
             ("tests/test_study.py", "-k", "seed_and_index"),
             "every slice drawing the study's first samples again"),
]
BY_NAME = {m.name: m for m in MUTATIONS}


def _scratch() -> Path:
    d = Path(tempfile.mkdtemp(prefix="fastdyn-mutations-"))
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, d / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, d / name)
    return d


def run(m: Mutation, copy: Path, timeout: float) -> tuple[str, float]:
    target = copy / m.path
    text = target.read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        return f"STALE ({text.count(m.old)} matches in {m.path})", 0.0
    env = dict(os.environ, NUMBA_CACHE_DIR=str(copy / ".numba-cache"))
    env.pop("FASTDYN_NO_CACHE", None)
    target.write_text(text.replace(m.old, m.new), encoding="utf-8")
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                              "-o", "addopts=", *m.tests], cwd=copy, env=env,
                             capture_output=True, text=True, timeout=timeout)
        verdict = "caught" if out.returncode == 1 else (
            "SURVIVED" if out.returncode == 0 else f"ERROR (pytest exit {out.returncode})")
    except subprocess.TimeoutExpired:
        verdict = "TIMEOUT"
    finally:
        target.write_text(text, encoding="utf-8")
    return verdict, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="mutations to run (default: all)")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per mutation")
    args = ap.parse_args(argv)
    if args.list:
        for m in MUTATIONS:
            print(f"{m.name:28s} {m.path}: {m.imitates}")
        return 0
    unknown = [n for n in args.names if n not in BY_NAME]
    if unknown:
        ap.error(f"unknown mutation(s) {unknown}; see --list")
    chosen = [BY_NAME[n] for n in args.names] or MUTATIONS
    copy = _scratch()
    rows = []
    try:
        for m in chosen:
            verdict, seconds = run(m, copy, args.timeout)
            rows.append((m.name, verdict, seconds))
            print(f"{m.name:28s} {verdict:10s} {seconds:7.1f} s", flush=True)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    bad = [r for r in rows if r[1] not in ("caught",)]
    print(f"{len(rows) - len(bad)} caught, {len(bad)} not caught")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
