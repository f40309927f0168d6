"""kernels/spatial/sincos.py against sin and cos in long double (x87's 64-bit significand), an
independent reference: ulp bounds, special values and the library fallback."""

import math

import numba
import numpy as np
import pytest

from fastdyn.kernels.spatial.sincos import LIMIT, sincos


@numba.njit
def _pairs(x, S, C):
    for i in range(x.shape[0]):
        S[i], C[i] = sincos(x[i])


def _ulps(got, want):
    """|got - want| in ulps of want (double), want in long double."""
    return np.abs(got.astype(np.longdouble) - want) / np.spacing(np.abs(want.astype(float)))


@pytest.mark.parametrize("width, bound", [(np.pi / 4, 1.6), (4.0, 1.6), (100.0, 1.6),
                                          (LIMIT * 0.999, 2.5)])
def test_within_a_few_ulps_of_long_double(width, bound):
    if np.finfo(np.longdouble).nmant < 60:
        pytest.skip("long double is double here: no independent reference")
    rng = np.random.default_rng(3)
    x = rng.uniform(-width, width, 200_000)
    S, C = np.empty_like(x), np.empty_like(x)
    _pairs(x, S, C)
    xs = x.astype(np.longdouble)
    s, c = np.sin(xs), np.cos(xs)
    assert _ulps(S, s).max() <= bound and _ulps(C, c).max() <= bound
    eps = np.spacing(1.0)
    assert np.abs(S - s).max() <= eps and np.abs(C - c).max() <= eps


def test_quadrant_boundaries_and_zero():
    x = np.array([0.0, np.pi / 4, np.pi / 2, np.pi, 1.5 * np.pi, 2 * np.pi, -np.pi / 2,
                  -np.pi, 1e-300, -5e-324, 0.5 * np.pi * 7, np.nextafter(np.pi / 4, 4)])
    S, C = np.empty_like(x), np.empty_like(x)
    _pairs(x, S, C)
    assert np.allclose(S, np.sin(x), rtol=0, atol=2.3e-16)
    assert np.allclose(C, np.cos(x), rtol=0, atol=2.3e-16)
    assert S[0] == 0.0 and C[0] == 1.0 and S[8] == 1e-300


@pytest.mark.parametrize("x", [LIMIT, -LIMIT, 1e9, -3e15, 1e300])
def test_large_angles_take_the_library(x):
    assert sincos(x) == (math.sin(x), math.cos(x))


@pytest.mark.parametrize("x", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_give_nan(x):
    s, c = sincos(x)
    assert math.isnan(s) and math.isnan(c)
