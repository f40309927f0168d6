"""Start-up, as whole-process wall time of a fresh interpreter: ``import fastdyn``, load a robot
from example-robot-data, create its Data, first RNEA. "warm": numba's on-disk cache already
holds the kernels (filled by an untimed run first); "cold": an empty NUMBA_CACHE_DIR, so every
kernel the script touches compiles. Both use private cache directories: the package's own
cache is never read or written. Sources are byte-compiled first, as pip does. Pinocchio's warm line does the same with its own parser."""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from bench.ladder import FREE_FLYER, tag

FASTDYN = """\
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import fastdyn, fastdyn.models
model = fastdyn.models.load(sys.argv[1], source="example-robot-data")
data = model.create_data()
zero = np.zeros(model.nv)
fastdyn.rnea(model, data, fastdyn.neutral(model), zero, zero)
"""

PINOCCHIO = """\
import sys
import numpy as np
import pinocchio as pin
model = (pin.buildModelFromUrdf(sys.argv[1], pin.JointModelFreeFlyer()) if sys.argv[2] == "1"
         else pin.buildModelFromUrdf(sys.argv[1]))
data = model.createData()
zero = np.zeros(model.nv)
pin.rnea(model, data, pin.neutral(model), zero, zero)
"""

MODELS = ("ur5", "talos")


@pytest.fixture(scope="module")
def cache_root():
    # pip writes .pyc files at install; an editable checkout (or PYTHONDONTWRITEBYTECODE) may
    # not have them, and compiling our sources in every timed run is not what users pay.
    import compileall
    import fastdyn
    import fastdyn.kernels
    for pkg in (fastdyn, fastdyn.kernels):
        compileall.compile_dir(os.path.dirname(pkg.__file__), quiet=1)
    root = tempfile.mkdtemp(prefix="fastdyn-bench-cache-")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _run(script: str, args: list[str], cache_dir: str) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env.pop("FASTDYN_NO_CACHE", None)
    p = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True,
                       text=True)
    if p.returncode:
        raise RuntimeError(f"start-up script failed:\n{p.stderr[-2000:]}")


@pytest.mark.parametrize("name", MODELS)
def test_warm_fastdyn(benchmark, cache_root, name):
    cache = os.path.join(cache_root, "warm")
    _run(FASTDYN, [name], cache)  # fills the cache (untimed)
    tag(benchmark, "startup-warm", "rnea", name, "fastdyn")
    benchmark.pedantic(_run, args=(FASTDYN, [name], cache), rounds=5, iterations=1)


@pytest.mark.parametrize("name", MODELS)
def test_warm_pinocchio(benchmark, cache_root, name):
    import fastdyn.models as fm
    args = [str(fm.path(name, source="example-robot-data")), "1" if FREE_FLYER[name] else "0"]
    _run(PINOCCHIO, args, os.path.join(cache_root, "unused"))
    tag(benchmark, "startup-warm", "rnea", name, "pinocchio")
    benchmark.pedantic(_run, args=(PINOCCHIO, args, os.path.join(cache_root, "unused")),
                       rounds=5, iterations=1)


def test_cold_fastdyn(benchmark, cache_root):
    def fresh():
        return (FASTDYN, ["ur5"], tempfile.mkdtemp(prefix="cold-", dir=cache_root)), {}

    tag(benchmark, "startup-cold", "rnea", "ur5", "fastdyn")
    benchmark.pedantic(_run, setup=fresh, rounds=3, iterations=1)


GENERATED = """\
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import fastdyn, fastdyn.models, fastdyn.codegen
model = fastdyn.models.load(sys.argv[1], source="example-robot-data")
data = model.create_data()
gen = fastdyn.codegen.generate(model, directory=sys.argv[2])
q, z = fastdyn.neutral(model), np.zeros(model.nv)
gen.forward_kinematics(data, q)
gen.compute_joint_jacobians(data, q)
gen.rnea(data, q, z, z)
gen.crba(data, q)
gen.aba(data, q, z, data.tau.copy())
"""


@pytest.mark.parametrize("name", ("ur5", "solo12"))
def test_cold_generated(benchmark, cache_root, name):
    """What fastdyn.codegen costs the first time: a fresh process with the core kernels warm
    (the cache of the warm runs) generates the model's module into an empty directory and
    compiles its five checked kernels. Talos (about a minute) is left out to keep the suite
    short."""
    warm = os.path.join(cache_root, "warm")
    _run(FASTDYN, [name], warm)  # the core kernels are cached (untimed)

    def fresh():
        return (GENERATED, [name, tempfile.mkdtemp(prefix="gen-", dir=cache_root)], warm), {}

    tag(benchmark, "startup-generated", "all", name, "fastdyn")
    benchmark.pedantic(_run, setup=fresh, rounds=2, iterations=1)
