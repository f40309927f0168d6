"""A new user's first use of each job, cold: a fresh interpreter with an empty numba cache
(``NUMBA_CACHE_DIR``) and an empty directory for generated modules (``FASTDYN_CODEGEN_DIR``),
so every kernel the job touches is compiled, as after ``pip install .`` on a new machine.

Each job is one whole process, timed from start to exit (wall time: what the user waits). In
the jobs run as scripts a numba event listener (numba.core.event, "numba:compile") also adds up
the time spent inside outermost compilations: the job's compile time, reported beside its wall
time (the rest is the interpreter, imports, and the work itself). ``fastdyn demo`` and ``fastdyn
montecarlo`` run as the user types them; the demo compiles on two processes at once, so its
compile time is not one process's and is not reported.

One round each (a job takes from seconds to minutes): read the rows with the load average of
the run (RESULTS.md's Provenance). Target (issue 35): <= 10 s for every job, <= 60 s for
Talos's generated module with its derivatives.
"""

import os
import subprocess
import sys
import tempfile

import pytest

from bench.ladder import tag

# Prepended to each script: the compile-time listener, reported on the last line of stdout.
PRELUDE = """\
import atexit, time, warnings
warnings.simplefilter("ignore")
from numba.core import event as _event
class _Compiles(_event.Listener):
    depth, start, total = 0, 0.0, 0.0
    def on_start(self, ev):
        if self.depth == 0:
            self.start = time.perf_counter()
        self.depth += 1
    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            self.total += time.perf_counter() - self.start
_c = _Compiles()
_event.register("numba:compile", _c)
atexit.register(lambda: print(f"COMPILE_SECONDS {_c.total:.3f}", flush=True))
import numpy as np
import fastdyn as fd
"""

STANDING = """\
from fastdyn.sim.standing import standing_scene
st = standing_scene()
scene, q, nv = st.scene, st.q, st.scene.model.nv
"""

# name: (script or None for a command, command arguments, what the row says)
JOBS = {
    "demo": (None, ["demo"], "`fastdyn demo` (the README's first command)"),
    "montecarlo": (None, ["montecarlo", "--samples", "200", "--steps", "200"],
                   "`fastdyn montecarlo --samples 200 --steps 200`: a study on the UR5"),
    "rnea": ("""\
model = fd.models.load("ur5")
data = model.create_data()
z = np.zeros(model.nv)
fd.rnea(model, data, fd.neutral(model), z, z)
""", [], "load the bundled UR5, first `rnea`"),
    "mjcf_rnea": ("""\
from fastdyn.examples.load_mjcf import PENDULUM
model = fd.load_mjcf(PENDULUM)
data = model.create_data()
z = np.zeros(model.nv)
fd.rnea(model, data, fd.neutral(model), z, z)
""", [], "`load_mjcf` (an inline pendulum), first `rnea`"),
    "derivatives": ("""\
model = fd.models.load("ur5")
data = model.create_data()
q, z = fd.neutral(model), np.zeros(model.nv)
fd.compute_rnea_derivatives(model, data, q, z, z)
fd.compute_aba_derivatives(model, data, q, z, z)
""", [], "UR5: `compute_rnea_derivatives`, `compute_aba_derivatives`"),
    "step": (STANDING + "scene.step(q, np.zeros(nv), np.zeros(nv))\n", [],
             "bundled quadruped standing on four foot spheres: first `scene.step`"),
    "step_derivatives": (STANDING + "scene.step_derivatives(q, np.zeros(nv), np.zeros(nv))\n",
                         [], "the same scene: first `scene.step_derivatives`"),
    "rollout": (STANDING + """\
Q = np.tile(q, (8, 1))
scene.rollout(Q, np.zeros((8, nv)), 100, kp=st.kp, kd=st.kd)
""", [], "the same scene: first `scene.rollout` of 8 x 100 steps with the built-in PD"),
    "mpc": ("""\
from fastdyn.sim.scene import Scene
model = fd.models.load("ur5")
scene = Scene(model, dt=0.01)
q, z = fd.neutral(model), np.zeros(model.nv)
scene.step(q, z, z)
scene.step_derivatives(q, z, z)
scene.horizon(q, z, np.zeros((50, model.nv)))
""", [], "UR5 without contact: first `step`, `step_derivatives` and `horizon` (an iLQR's "
             "calls)"),
    "talos_generated": ("""\
import fastdyn.codegen as cg
model = fd.models.load("talos", source="example-robot-data")
gen = cg.generate(model, algorithms=cg.ALGORITHMS + cg.DERIVATIVES)
data = model.create_data()
q, z = fd.neutral(model), np.zeros(model.nv)
gen.aba(data, q, z, z.copy())
gen.compute_aba_derivatives(data, q, z, z)
""", [], "Talos (example-robot-data): `codegen.generate` with every algorithm, its ABA and ABA "
             "derivatives"),
}


def _run(name: str, root: str) -> dict:
    script, args = JOBS[name][:2]
    cache = tempfile.mkdtemp(prefix=f"cold-{name}-", dir=root)
    env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(cache, "numba"),
               FASTDYN_CODEGEN_DIR=os.path.join(cache, "codegen"))
    env.pop("FASTDYN_NO_CACHE", None)
    cmd = ([sys.executable, "-c", PRELUDE + script] if script
           else [sys.executable, "-m", "fastdyn", *args])
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root)
    if p.returncode:
        raise RuntimeError(f"cold job {name} failed:\n{p.stdout[-1000:]}\n{p.stderr[-2000:]}")
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    return {"compile": float(last.split()[1])} if last.startswith("COMPILE_SECONDS") else {}


@pytest.fixture(scope="module")
def root():
    # byte-compiled sources, as pip installs them: compiling them is not what users pay
    import compileall
    import fastdyn
    import fastdyn.kernels
    for pkg in (fastdyn, fastdyn.kernels):
        compileall.compile_dir(os.path.dirname(pkg.__file__), quiet=1)
    with tempfile.TemporaryDirectory(prefix="fastdyn-cold-") as d:
        yield d


@pytest.mark.parametrize("name", list(JOBS))
def test_cold(benchmark, root, name):
    seen = {}

    def once():
        seen.update(_run(name, root))

    tag(benchmark, "cold", name, "-", "fastdyn", what=JOBS[name][2])
    benchmark.pedantic(once, rounds=1, iterations=1)
    if "compile" in seen:
        benchmark.extra_info["compile"] = seen["compile"]
