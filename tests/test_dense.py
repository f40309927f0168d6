"""The contact solvers' m x m Cholesky (kernels/linalg/dense.py): dense, and within an
envelope (a matrix whose rows are zero left of a first column, the Delassus matrix of a stack
of objects), against numpy's solve and against each other."""

import numpy as np
import pytest

from fastdyn.kernels.linalg.dense import (affine, factor_envelope, factor_shifted,
                                          solve_envelope, solve_factored)


def enveloped(rng, m, width):
    """A random symmetric positive-definite m x m matrix whose row i is zero left of
    first[i] (a random start at most ``width`` left of the diagonal), and first."""
    first = np.array([max(0, i - rng.integers(0, width + 1)) for i in range(m)])
    X = rng.normal(size=(m, m))
    A = X @ X.T
    for i in range(m):
        A[i, :first[i]] = 0.0
        A[:first[i], i] = 0.0
    A += np.eye(m) * (abs(np.linalg.eigvalsh(A).min()) + 1.0)
    return A, first.astype(float)


@pytest.mark.parametrize("width", [0, 3, 12, 40])
def test_the_envelope_factor_solves_as_numpy_and_is_the_dense_factor_to_the_bit(width):
    """The envelope factor skips only zero terms: its solution is numpy's (to 1e-12, reached
    3e-15 relative) and every entry, shifted or not, is factor_shifted's bit for bit (a wrong
    envelope bound, a product left out or taken twice, breaks both)."""
    rng = np.random.default_rng(width)
    m = 40
    for shift in (0.0, 0.37):
        A, first = enveloped(rng, m, width)
        F0, F1, reach = np.zeros((m, m)), np.full((m, m), np.nan), np.zeros(m)
        assert factor_shifted(A, m, shift, F0)
        assert factor_envelope(A, m, first, reach, F1, shift)
        inside = np.arange(m)[None, :] >= first[:, None]
        lower = np.tril(np.ones((m, m), bool)) & inside
        assert np.array_equal(F1[lower], F0[lower])
        assert np.array_equal(reach, [max(i for i in range(m) if first[i] <= j)
                                      for j in range(m)])
        b = rng.normal(size=m)
        x0, x1 = b.copy(), b.copy()
        solve_factored(F0, m, x0)
        solve_envelope(F1, m, first, reach, x1)
        assert np.array_equal(x0, x1)
        want = np.linalg.solve(A + shift * np.eye(m), b)
        assert np.abs(x1 - want).max() < 1e-12 * np.abs(want).max()


def test_the_envelope_factor_reads_only_the_lower_envelope_and_refuses_an_indefinite_matrix():
    """NaN outside A's lower envelope is never read (the factor is finite), and a matrix
    with a negative pivot is refused as factor_shifted refuses it."""
    rng = np.random.default_rng(1)
    m = 20
    A, first = enveloped(rng, m, 5)
    An = A.copy()
    An[np.triu_indices(m, 1)] = np.nan
    for i in range(m):
        An[i, :int(first[i])] = np.nan
    F, reach = np.zeros((m, m)), np.zeros(m)
    assert factor_envelope(An, m, first, reach, F)
    b = rng.normal(size=m)
    solve_envelope(F, m, first, reach, b)
    assert np.isfinite(b).all()
    A[7, 7] = -1.0
    assert not factor_envelope(A, m, first, reach, F)
    assert not factor_shifted(A, m, 0.0, np.zeros((m, m)))


def test_affine_on_spans_is_the_full_product():
    """y = A x + b over each row's span (its non-zero columns) equals the full product."""
    rng = np.random.default_rng(2)
    m = 15
    A, first = enveloped(rng, m, 4)
    last = np.array([max(j for j in range(m) if A[i, j] != 0.0) for i in range(m)], float)
    x, b = rng.normal(size=m), rng.normal(size=m)
    y0, y1 = np.zeros(m), np.zeros(m)
    affine(A, b, x, m, y0)
    affine(A, b, x, m, y1, np.r_[first, last])
    assert np.array_equal(y0, y1)
    assert np.abs(y0 - (A @ x + b)).max() < 1e-13
