"""Batches equal single calls bit for bit, with 1 and 2 threads."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from fastdyn import batch
from conftest import get_pair, random_state


@pytest.fixture(scope="module")
def states():
    m, pm = get_pair("tree_free")
    rng = np.random.default_rng(0)
    S = [random_state(pm, rng) for _ in range(37)]  # not a multiple of the thread count
    Q, V, A = (np.array([s[k] for s in S]) for k in range(3))
    return m, Q, V, A


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_equals_single_calls_bitwise(states, threads):
    m, Q, V, A = states
    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("machine has fewer threads")
    d = m.create_data()
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        TAU = batch.rnea(m, Q, V, A)
        DDQ = batch.aba(m, Q, V, TAU)
        MM = batch.crba(m, Q)
        R, p = batch.forward_kinematics(m, Q)
    finally:
        numba.set_num_threads(old)
    for r in range(Q.shape[0]):
        assert np.array_equal(TAU[r], fd.rnea(m, d, Q[r], V[r], A[r]))
        assert np.array_equal(DDQ[r], fd.aba(m, d, Q[r], V[r], TAU[r]))
        assert np.array_equal(MM[r], fd.crba(m, d, Q[r]))
        fd.forward_kinematics(m, d, Q[r])
        assert np.array_equal(R[r], d.oMi_R) and np.array_equal(p[r], d.oMi_p)


def test_batch_rollouts_equal_single_rollouts(states):
    m, Q, V, _ = states
    rng = np.random.default_rng(1)
    torques = rng.normal(size=(3, 20, m.nv))
    QS, VS = batch.simulate(m, Q[:3], V[:3], torques, 1e-3)
    for r in range(3):
        qs, vs = fd.simulate(m, Q[r], V[r], torques[r], 1e-3)
        assert np.array_equal(qs, QS[r]) and np.array_equal(vs, VS[r])


def test_batch_rejects_bad_shapes(states):
    m, Q, V, A = states
    with pytest.raises(ValueError, match=r"V must have shape \(37, %d\)" % m.nv):
        batch.rnea(m, Q, V[:, :-1], A)
    with pytest.raises(ValueError, match="V must have shape"):
        batch.rnea(m, Q, V[:-1], A)
    Qbad = Q.copy()
    Qbad[3, 3:7] *= 2.0
    with pytest.raises(ValueError, match="row 3.*non-unit quaternion"):
        batch.aba(m, Qbad, V, A)
