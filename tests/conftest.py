"""Shared fixtures: models are built once per session and paired with their Pinocchio twin."""

import numpy as np
import pytest

from fastdyn import samples

pin = pytest.importorskip("pinocchio")
from oracle import to_pinocchio  # noqa: E402  (needs pinocchio)

TOL = 1e-10  # agreement with Pinocchio, relative to the quantity's scale


def _pair(model):
    return model, to_pinocchio(model)


MODELS = {
    "manipulator": lambda: samples.manipulator(),
    "humanoid": lambda: samples.humanoid(),
    "double_pendulum": lambda: samples.double_pendulum(),
    "tree_fixed": lambda: samples.random_tree(25, seed=1),
    "tree_free": lambda: samples.random_tree(25, seed=2, root="freeflyer"),
    "tree_planar": lambda: samples.random_tree(15, seed=3, root="planar"),
}

_cache = {}


def get_pair(name):
    if name not in _cache:
        _cache[name] = _pair(MODELS[name]())
    return _cache[name]


@pytest.fixture(params=list(MODELS), scope="session")
def pair(request):
    """(fastdyn Model, pinocchio Model) for every sample model and random tree."""
    return get_pair(request.param)


def random_state(pm, rng):
    """A random (q, v, a) drawn with Pinocchio's own sampler (finite bounds for free joints)."""
    q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
    return q, rng.normal(size=pm.nv), rng.normal(size=pm.nv)


def close(x, ref, tol=TOL):
    """|x - ref| <= tol * max(1, |ref|_inf), elementwise over the whole array."""
    x, ref = np.asarray(x), np.asarray(ref)
    scale = max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
    err = float(np.abs(x - ref).max()) if ref.size else 0.0
    assert err <= tol * scale, f"max error {err:.3e} > {tol:.0e} x scale {scale:.3e}"
