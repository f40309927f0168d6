"""Mimic joints (fastdyn/mimic.py): one call from Python on a MimicModel (the full model's
algorithm at the expanded state, then reduced), beside the same robot loaded with every joint
independent and beside Pinocchio's mimic model (``buildModelFromUrdf(path, mimic=True)``;
its ABA refuses mimic joints, so ABA has no Pinocchio row)."""

import warnings

import numpy as np
import pinocchio as pin
import pytest

import fastdyn as fd
import fastdyn.models as fm
from bench.ladder import tag

ROBOTS = ("panda", "pr2")
_cache = {}


def _setup(name):
    if name not in _cache:
        path = str(fm.path(name, source="example-robot-data"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m, full = fd.load_urdf(path, mimic=True), fd.load_urdf(path)
        pm = pin.buildModelFromUrdf(path, mimic=True)
        rng = np.random.default_rng(0)
        q = pin.randomConfiguration(pm)
        v, a = rng.normal(size=m.nv), rng.normal(size=m.nv)
        tau = fd.rnea(m, m.create_data(), q, v, a).copy()
        full_state = (m.expand_configuration(q), m.expand_velocity(v), m.expand_velocity(a))
        _cache[name] = (m, full, pm, (q, v, a, tau), full_state)
    return _cache[name]


CALLS = {
    "rnea": (lambda m, d, s: fd.rnea(m, d, *s[:3]), lambda pm, pd, s: pin.rnea(pm, pd, *s[:3])),
    "crba": (lambda m, d, s: fd.crba(m, d, s[0]), lambda pm, pd, s: pin.crba(pm, pd, s[0])),
    "aba": (lambda m, d, s: fd.aba(m, d, s[0], s[1], s[3]), None),
    "frame_jacobian": (lambda m, d, s: fd.compute_frame_jacobian(m, d, s[0], 20),
                       lambda pm, pd, s: pin.computeFrameJacobian(pm, pd, s[0], 20)),
}


@pytest.mark.parametrize("algo", list(CALLS))
@pytest.mark.parametrize("name", ROBOTS)
@pytest.mark.parametrize("role", ["fastdyn", "fastdyn-full-model", "pinocchio"])
def test_single(benchmark, name, algo, role):
    m, full, pm, state, full_state = _setup(name)
    ours, theirs = CALLS[algo]
    if role == "pinocchio":
        if theirs is None:
            pytest.skip("Pinocchio's ABA does not support mimic joints")
        f, args = theirs, (pm, pm.createData(), state)
    elif role == "fastdyn":
        f, args = ours, (m, m.create_data(), state)
    else:  # the same robot, mimic joints independent, at the expanded state
        f, args = ours, (full, full.create_data(), full_state + (np.zeros(full.nv),))
    f(*args)
    tag(benchmark, "single", algo, f"{name}-mimic", role)
    benchmark(f, *args)
