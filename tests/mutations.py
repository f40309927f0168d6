"""Mutation check: plant one plausible bug at a time in a scratch copy and see whether the tests
that guard that code catch it.

    python tests/mutations.py --list          # the mutations
    python tests/mutations.py                 # all of them (minutes each: every copy compiles)
    python tests/mutations.py NAME [NAME...]  # some
    python tests/mutations.py --baseline NAME # the same selections on the unmutated copy: they
                                              # must pass, or "caught" means nothing

Each mutation is an exact snippet of one file, replaced by a wrong one a person could write, and
the narrow test selection that should fail on it. For each, the working tree's fastdyn/,
kernels/, tests/, models/ and pyproject.toml are copied once into a temporary directory; the
mutation is applied there (never in the checkout), ``python -m pytest`` runs from that copy's
root (which imports the copy: fastdyn/_internal/source_tree.py) with its own NUMBA_CACHE_DIR, and
the snippet is restored. Verdicts: caught (the selection failed), SURVIVED (it passed: a gap in the
tests), STALE (the snippet is no longer in the file: mend the entry), TIMEOUT. The exit code is
non-zero when any mutation survived or is stale. Not run in CI (each mutation recompiles what its
tests use); run it after changing a kernel family or the tests that guard it. The last
runs' verdicts: tests/mutation_results.md.
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
             "data.qv, _arrays.optional_forces(model, fext))",
             "data.qv, _arrays.optional_forces(model, None))",
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
    # --- one per kernel family and API layer (issue 36, part 6) ---
    Mutation("spatial-cross-force", "kernels/spatial/motion.py",
             "            wz * tx - wx * tz + vz * fx - vx * fz,",
             "            wz * tx - wx * tz + vx * fz - vz * fx,",
             ("tests/test_spatial.py",), "one term of the motion-force cross product turned round"),
    Mutation("joint-universal-bias", "kernels/joints/universal.py",
             "        k12 = -d1 * d2", "        k12 = d1 * d2",
             ("tests/test_joints.py",), "the universal joint's c_J of the wrong sign"),
    Mutation("so3-integrate-side", "kernels/configuration/so3.py",
             "rx, ry, rz, rw = quat_mul(x, y, z, w, ex, ey, ez, ew)",
             "rx, ry, rz, rw = quat_mul(ex, ey, ez, ew, x, y, z, w)",
             ("tests/test_configuration.py",),
             "the quaternion increment applied in the world frame, not the body's"),
    Mutation("so3-difference-order", "kernels/configuration/so3.py",
             "    return quat_mul(-q0[iq], -q0[iq + 1], -q0[iq + 2], q0[iq + 3],\n"
             "                    q1[iq], q1[iq + 1], q1[iq + 2], q1[iq + 3])",
             "    return quat_mul(q1[iq], q1[iq + 1], q1[iq + 2], q1[iq + 3],\n"
             "                    -q0[iq], -q0[iq + 1], -q0[iq + 2], q0[iq + 3])",
             ("tests/test_configuration.py",), "difference as q1 q0^* instead of q0^* q1"),
    Mutation("fk-compose-order", "kernels/algorithms/forward_kinematics.py",
             "se3.compose(ws[par], OM, w, LI, w, OM)", "se3.compose(w, LI, ws[par], OM, w, OM)",
             ("tests/test_energy.py", "-k", "frames_match_pinocchio"),
             "oMi = liMi oMparent instead of oMparent liMi"),
    Mutation("jacobian-lwa-origin", "kernels/algorithms/jacobian.py",
             "        return (vx, vy, vz, c3, c4, c5)", "        return (c0, c1, c2, c3, c4, c5)",
             ("tests/test_jacobians.py",),
             "LOCAL_WORLD_ALIGNED taken as WORLD (linear part not moved to the frame origin)"),
    Mutation("aba-articulated-inertia", "kernels/algorithms/aba.py",
             "_give_symmetric(w, wp, r, c, w[IA + 6 * r + c] - ur * u[c])",
             "_give_symmetric(w, wp, r, c, w[IA + 6 * r + c] - u[r] * u[c])",
             ("tests/test_aba.py",), "Ia = IA - U U^T, the division by D forgotten"),
    Mutation("rnea-derivative-dadv", "kernels/algorithms/rnea_derivatives.py",
             "            w[DADV + 6 * d + k] = vj[k] + dv[k]",
             "            w[DADV + 6 * d + k] = vj[k]",
             ("tests/test_derivatives.py",), "dA/dv missing its v_parent x S term"),
    Mutation("aba-derivative-sign", "kernels/algorithms/aba_derivatives.py",
             "            ddq_dv[r, c] = -ddq_dv[r, c]", "            ddq_dv[r, c] = ddq_dv[r, c]",
             ("tests/test_derivatives.py", "-k", "aba"), "ddq/dv = +M^-1 dtau/dv"),
    Mutation("centroidal-shift", "kernels/algorithms/centroidal.py",
             "    return (f[0], f[1], f[2], f[3] - t[0], f[4] - t[1], f[5] - t[2])",
             "    return (f[0], f[1], f[2], f[3] + t[0], f[4] + t[1], f[5] + t[2])",
             ("tests/test_centroidal.py",), "the momentum moved to the com with c x f of the "
                                            "wrong sign"),
    Mutation("regressor-inertia-order", "kernels/algorithms/regressor.py",
             "    r = (0, 0, 1, 0, 1, 2)[k]\n    s = (0, 1, 1, 2, 2, 2)[k]",
             "    r = (0, 0, 0, 1, 1, 2)[k]\n    s = (0, 1, 2, 1, 2, 2)[k]",
             ("tests/test_regressors.py",),
             "inertia columns in row-major order (Ixx Ixy Ixz Iyy ...), not Pinocchio's"),
    Mutation("kinematics-derivatives-bias", "kernels/algorithms/kinematics_derivatives.py",
             "            acc = ap[k] + w[CJ + k] + vxvj[k]", "            acc = ap[k] + w[CJ + k]",
             ("tests/test_kinematics_derivatives.py",), "the v x v_J term left out"),
    Mutation("codegen-cross-force", "fastdyn/codegen/spatial.py",
             "T.add(T.cross(a[3:], f[3:]), T.cross(a[:3], f[:3]))",
             "T.add(T.cross(a[3:], f[3:]), T.cross(f[:3], a[:3]))",
             ("tests/test_codegen.py", "-k", "generated_kernels_match_pinocchio"),
             "the generated kernels' motion-force cross product with one term turned round"),
    Mutation("mjcf-default-inheritance", "fastdyn/io/_mjcf_doc.py",
             "self.classes[sub] = {k: dict(v) for k, v in own.items()}",
             "self.classes[sub] = {}", ("tests/test_mjcf.py",),
             "a nested default class not inheriting its parent's attributes"),
    Mutation("mjcf-quaternion-order", "fastdyn/io/_mjcf_math.py",
             '    w, x, y, z = unit(q, "the quaternion is zero")',
             '    x, y, z, w = unit(q, "the quaternion is zero")', ("tests/test_mjcf.py",),
             "MJCF quat read as (x, y, z, w), Pinocchio's order, instead of MuJoCo's (w, x, y, z)"),
    Mutation("npz-mimic-coefficients", "fastdyn/io/npz.py",
             "(str(m), float(c[0]), float(c[1]))", "(str(m), float(c[1]), float(c[0]))",
             ("tests/test_models.py", "-k", "npz"), "a mimic's multiplier and offset swapped"),
    Mutation("builder-universal-axes", "fastdyn/builder.py",
             '            pr["axis2"] = _unit(axis2, what, "axis2")',
             '            pr["axis"], pr["axis2"] = _unit(axis2, what, "axis2"), pr["axis"]',
             ("tests/test_joint_inputs_oracle.py",), "a universal joint's axes swapped"),
    Mutation("batch-chunk-size", "kernels/entry/batch.py",
             "    size = (n + nthreads - 1) // nthreads", "    size = n // nthreads",
             ("tests/test_batch.py",), "chunks rounded down: the last rows never computed"),
    Mutation("pgs-friction-sign", "kernels/contact/pgs.py",
             "t2 = o2 - _velocity(G, c, lam, n + 2, a2, b2) / gt",
             "t2 = o2 + _velocity(G, c, lam, n + 2, a2, b2) / gt",
             ("tests/test_contact_solver.py",), "one tangent's friction update of the wrong sign"),
    Mutation("delassus-block-mirror", "kernels/contact/delassus.py",
             "        for j in range(max(s, i + 1), se):",
             "        for j in range(j0 + 1, se):",
             ("tests/test_delassus.py",), "a block's first column left out of the mirror"),
    Mutation("delassus-chain-tile-skip", "kernels/contact/delassus.py",
             "            if y == 0.0 and z == 0.0:", "            if y == 0.0 or z == 0.0:",
             ("tests/test_delassus.py",), "a tile of two rows skips the dofs either row is off"),
    Mutation("envelope-diagonal-update", "kernels/linalg/dense.py",
             "                for k in range(j + 1, i + 1):",
             "                for k in range(j + 1, i):",
             ("tests/test_dense.py",), "the envelope factor's update short of the diagonal"),
    Mutation("soft-reference-acceleration", "kernels/contact/softness.py",
             "un0 - dt * (B * un0 + K * d * phi)", "un0 - dt * (B * un0 - K * d * phi)",
             ("tests/test_softness.py",), "the soft contact's spring pulling into the ground"),
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


def run(m: Mutation, copy: Path, timeout: float, baseline: bool = False) -> tuple[str, float]:
    target = copy / m.path
    text = target.read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        return f"STALE ({text.count(m.old)} matches in {m.path})", 0.0
    env = dict(os.environ, NUMBA_CACHE_DIR=str(copy / ".numba-cache"))
    env.pop("FASTDYN_NO_CACHE", None)
    if not baseline:
        target.write_text(text.replace(m.old, m.new), encoding="utf-8")
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                              "-o", "addopts=", *m.tests], cwd=copy, env=env,
                             capture_output=True, text=True, timeout=timeout)
        verdict = "caught" if out.returncode == 1 else (
            "SURVIVED" if out.returncode == 0 else f"ERROR (pytest exit {out.returncode})")
        if baseline:  # nothing planted: the selection must pass
            verdict = {"SURVIVED": "passes", "caught": "FAILS UNMUTATED"}.get(verdict, verdict)
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
    ap.add_argument("--baseline", action="store_true", help="run the selections without "
                    "planting anything (each must pass)")
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
            verdict, seconds = run(m, copy, args.timeout, args.baseline)
            rows.append((m.name, verdict, seconds))
            print(f"{m.name:28s} {verdict:10s} {seconds:7.1f} s", flush=True)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    good = "passes" if args.baseline else "caught"
    bad = [r for r in rows if r[1] != good]
    print(f"{len(rows) - len(bad)} {good}, {len(bad)} not")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
