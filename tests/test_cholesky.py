"""The tree-sparse U D U^T factorization: Pinocchio's, reconstruction, solves, M^-1."""

import numpy as np

import fastdyn as fd
from conftest import close, pin, random_state


def test_factorization_matches_pinocchio_and_reconstructs(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, _, _ = random_state(pm, np.random.default_rng(0))
    M = fd.crba(m, d, q).copy()
    U, D = fd.cholesky(m, d)
    pin.crba(pm, pd, q)
    pin.cholesky.decompose(pm, pd)
    close(U, pd.U)
    close(D, pd.D)
    close(U @ np.diag(D) @ U.T, M)
    assert np.allclose(np.tril(U, -1), 0) and np.allclose(np.diag(U), 1)


def test_solve_and_minverse(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(1)
    q, _, _ = random_state(pm, rng)
    M = fd.crba(m, d, q).copy()
    fd.cholesky(m, d)
    b = rng.normal(size=m.nv)
    close(M @ fd.cholesky_solve(m, d, b), b)
    Minv = fd.compute_minverse(m, d, q)
    Mp = pin.computeMinverse(pm, pd, q)
    close(Minv, np.triu(Mp) + np.triu(Mp, 1).T)
    close(Minv @ M, np.eye(m.nv))


def test_many_right_hand_sides_and_the_sparse_inverse(pair):
    """solve_pair and inverse_sparse (the ABA derivatives' linear algebra) are M^-1 applied to
    whole matrices; the inverse is symmetric to the bit."""
    from fastdyn.kernels.linalg.cholesky import inverse_sparse, solve_pair
    m, pm = pair
    d = m.create_data()
    rng = np.random.default_rng(2)
    q, _, _ = random_state(pm, rng)
    M = fd.crba(m, d, q).copy()
    fd.cholesky(m, d)
    X, Y = rng.normal(size=(2, m.nv, m.nv))  # (the same shape: the kernel trusts it)
    x, y = X.copy(), Y.copy()
    solve_pair(m.dof, d.U, d.D, x, y)
    close(M @ x, X)
    close(M @ y, Y)
    Minv = np.empty((m.nv, m.nv))
    inverse_sparse(m.dof, d.U, d.D, Minv)
    assert np.array_equal(Minv, Minv.T)
    close(Minv, fd.compute_minverse(m, d, q))
