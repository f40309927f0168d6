"""Shared fixtures: models are built once per session and paired with their Pinocchio twin."""

import os
import signal
import zlib

import numpy as np
import pytest

from fastdyn import samples

try:  # the oracle: tests that compare with it skip without it, the identity tests still run
    import pinocchio as pin
    from oracle import to_pinocchio
except ImportError:
    pin = to_pinocchio = None


def needs_pinocchio() -> None:
    if pin is None:
        pytest.skip("needs Pinocchio (the test extra: pip install '.[test]')")


if os.environ.get("FASTDYN_COMPILE_LOG"):  # where the suite's compile time goes
    import importlib.util
    _spec = importlib.util.spec_from_file_location("compile_profile", os.path.join(
        os.path.dirname(__file__), "..", "bench", "compile_profile.py"))
    _spec.loader.exec_module(importlib.util.module_from_spec(_spec))


@pytest.hookimpl(optionalhook=True)  # (a hook of pytest-xdist's: absent without it)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with the files that compile the same kernels joined and the slowest
    first (tests/scheduling.py)."""
    if config.getoption("dist") == "loadfile":
        from scheduling import FileGroups
        return FileGroups(config, log)
    return None


TOL = 1e-10  # agreement with Pinocchio, relative to the quantity's scale


@pytest.fixture(autouse=True)
def _random_streams_of_the_test_alone(request):
    """Seed Pinocchio's and NumPy's global generators from the test's own id before it runs.

    pin.randomConfiguration and np.random.* draw from process-wide streams, so without this a
    test's states depended on which tests ran before it (a tolerance passed in one order and
    failed in another). With it, a test draws the same numbers alone, in the suite, or in any
    order."""
    seed = zlib.crc32(request.node.nodeid.encode())
    np.random.seed(seed)
    if pin is not None:
        pin.seed(seed)


def _pair(model):
    return model, to_pinocchio(model)


def _robot(name):
    """A real robot from example-robot-data: fastdyn's parse, and Pinocchio's own parse of the
    same file as the oracle (so the algorithms are checked on an independent model)."""
    import warnings

    import fastdyn.models as fm
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. Talos's mimic tags on fixed joints
        model = fm.load(name, source="example-robot-data")
    path = str(fm.path(name, source="example-robot-data"))
    free = model.nq > 0 and model.joint_type(1) == "freeflyer"
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if free else \
        pin.buildModelFromUrdf(path)
    assert (pm.nq, pm.nv, list(pm.names)) == (model.nq, model.nv, list(model.joint_names))
    return model, pm


MODELS = {
    "manipulator": lambda: samples.manipulator(),
    "humanoid": lambda: samples.humanoid(),
    "double_pendulum": lambda: samples.double_pendulum(),
    "tree_fixed": lambda: samples.random_tree(25, seed=1),
    "tree_free": lambda: samples.random_tree(25, seed=2, root="freeflyer"),
    "tree_planar": lambda: samples.random_tree(15, seed=3, root="planar"),
    "ur5": lambda: _robot("ur5"),
    "panda": lambda: _robot("panda"),
    "solo12": lambda: _robot("solo12"),
    "talos": lambda: _robot("talos"),
}

_cache = {}


def get_pair(name):
    needs_pinocchio()
    if name not in _cache:
        made = MODELS[name]()
        _cache[name] = made if isinstance(made, tuple) else _pair(made)
    return _cache[name]


@pytest.fixture(params=list(MODELS), scope="session")
def pair(request):
    """(fastdyn Model, pinocchio Model) for every sample model, random tree and real robot."""
    return get_pair(request.param)


# Joints whose configuration holds angles as numbers (q = t), and how many: their angles are
# drawn over several turns, as a wrapped-up cable or a UR5 (limits +-2 pi) reaches them.
_ANGLES = {"JointModelRX": 1, "JointModelRY": 1, "JointModelRZ": 1,
           "JointModelRevoluteUnaligned": 1, "JointModelHX": 1, "JointModelHY": 1,
           "JointModelHZ": 1, "JointModelHelicalUnaligned": 1, "JointModelUniversal": 2,
           "JointModelSphericalZYX": 3}
_CONTINUOUS = ("JointModelRUBX", "JointModelRUBY", "JointModelRUBZ",
               "JointModelRevoluteUnboundedUnaligned")
TURNS = 3.0 * np.pi  # angles in [-3 pi, 3 pi]
SPEED = 4.0  # v ~ N(0, SPEED^2): joint rates of several rad/s, as a moving arm or leg has


def random_state(pm, rng):
    """A random (q, v, a) over the ranges users reach, all drawn from ``rng`` except the
    quaternions and translations (Pinocchio's sampler, seeded per test): angle coordinates
    beyond +-pi (over +-3 pi, or the joint's limits where they are narrower: a UR5's +-2 pi, a
    Panda's own), continuous joints' (cos t, sin t) over the whole circle,
    translations in [-1, 1], velocities of a few rad/s (normal, scale SPEED), unit-scale
    accelerations."""
    needs_pinocchio()
    q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
    for jm in pm.joints[1:]:
        kind = jm.shortname()
        if kind in _ANGLES:
            i, k = jm.idx_q, _ANGLES[kind]  # within the joint's limits where it has them
            lo = np.maximum(pm.lowerPositionLimit[i:i + k], -TURNS)
            hi = np.minimum(pm.upperPositionLimit[i:i + k], TURNS)
            q[i:i + k] = np.where(lo < hi, rng.uniform(lo, np.maximum(hi, lo)), lo)
        elif kind in _CONTINUOUS:
            t = rng.uniform(-np.pi, np.pi)
            q[jm.idx_q:jm.idx_q + 2] = np.cos(t), np.sin(t)
    return q, SPEED * rng.normal(size=pm.nv), rng.normal(size=pm.nv)


def close(x, ref, tol=TOL):
    """|x - ref| <= tol * max(1, |ref|_inf), elementwise over the whole array."""
    x, ref = np.asarray(x), np.asarray(ref)
    scale = max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
    err = float(np.abs(x - ref).max()) if ref.size else 0.0
    assert err <= tol * scale, f"max error {err:.3e} > {tol:.0e} x scale {scale:.3e}"


def set_threads(n: int) -> int:
    """numba's thread count set to n for a test (skipped where the machine has fewer);
    returns the old count, to restore."""
    import numba
    if n > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("machine has fewer threads")
    old = numba.get_num_threads()
    numba.set_num_threads(n)
    return old


def semi_implicit_euler(pm, q, v, a, dt):
    """Semi-implicit Euler by Pinocchio's own maps: v+ = v + dt a, q+ = integrate(q, dt v+),
    except for free-flyer and planar joints, whose linear velocity is advanced in the step's
    start axes, u = v + dt (a + w x v), and turned into the new ones (kernels/configuration/
    frozen.py): v+ = (exp(-dt w+) u, w+), p+ = p + dt R u, R+ = R exp(dt w+)."""
    v_next = v + dt * a
    q_next = pin.integrate(pm, q, v_next * dt)
    for jm in pm.joints[1:]:
        iq, iv = jm.idx_q, jm.idx_v
        if jm.shortname() == "JointModelFreeFlyer":
            w = v_next[iv + 3:iv + 6]
            u = v[iv:iv + 3] + dt * (a[iv:iv + 3] + np.cross(v[iv + 3:iv + 6], v[iv:iv + 3]))
            E = pin.exp3(dt * w)
            v_next[iv:iv + 3] = E.T @ u
            x = pin.SE3ToXYZQUAT(pin.XYZQUATToSE3(q[iq:iq + 7]) * pin.SE3(E, dt * u))
            q_next[iq:iq + 7] = x if x[3:] @ q[iq + 3:iq + 7] >= 0 else np.r_[x[:3], -x[3:]]
        elif jm.shortname() == "JointModelPlanar":
            w = v_next[iv + 2]
            vx, vy = v[iv], v[iv + 1]
            u = np.array([vx + dt * (a[iv] - v[iv + 2] * vy),
                          vy + dt * (a[iv + 1] + v[iv + 2] * vx)])
            c, s = np.cos(dt * w), np.sin(dt * w)
            v_next[iv:iv + 2] = [c * u[0] + s * u[1], c * u[1] - s * u[0]]
            c0, s0 = q[iq + 2], q[iq + 3]
            q_next[iq:iq + 4] = [q[iq] + dt * (c0 * u[0] - s0 * u[1]),
                                 q[iq + 1] + dt * (s0 * u[0] + c0 * u[1]),
                                 c0 * c - s0 * s, s0 * c + c0 * s]
    return q_next, v_next


def step_jacobians_by_differences(model, step, q, v, tau, eps):
    """(A, B) of a step (q, v, tau) -> (q+, v+) by central differences of ``step``: q
    perturbed along tangents (integrate), q+ measured in the tangent space at the nominal q+
    (difference), v and tau perturbed directly; step sizes ``eps``."""
    import fastdyn as fd
    nv = model.nv
    q1, _ = step(q, v, tau)

    def delta(x):
        qn, vn = step(*x)
        return np.concatenate([fd.difference(model, q1, qn), vn])

    cols_a, cols_b = [], []
    for k in range(2 * nv):
        e = np.zeros(nv)
        e[k % nv] = eps
        if k < nv:
            hi, lo = (fd.integrate(model, q, e), v, tau), (fd.integrate(model, q, -e), v, tau)
        else:
            hi, lo = (q, v + e, tau), (q, v - e, tau)
        cols_a.append((delta(hi) - delta(lo)) / (2 * eps))
    for k in range(nv):
        e = np.zeros(nv)
        e[k] = eps
        cols_b.append((delta((q, v, tau + e)) - delta((q, v, tau - e))) / (2 * eps))
    return np.stack(cols_a, axis=1), np.stack(cols_b, axis=1)


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler (Ctrl-C -> KeyboardInterrupt) for the test, as a user at a
    terminal has it: a process started in the background inherits SIGINT ignored (POSIX), and
    Python then installs no handler, so a test of Ctrl-C would see nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def pytest_addoption(parser):
    parser.addoption("--order", default="file",
                     help="run the collected tests in file order (default), 'reverse', or "
                          "'shuffle:SEED': each test's random draws are its own (see "
                          "_random_streams_of_the_test_alone), so every order must pass")


def pytest_collection_modifyitems(config, items):
    order = config.getoption("--order")
    if order == "reverse":
        items.reverse()
    elif order.startswith("shuffle:"):
        np.random.default_rng(int(order.split(":", 1)[1])).shuffle(items)
    elif order != "file":
        raise pytest.UsageError(f"--order: 'file', 'reverse' or 'shuffle:SEED', not {order!r}")
