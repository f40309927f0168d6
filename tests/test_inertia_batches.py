"""Batches over inertias (``fd.batch.rnea/aba/crba(..., pi=PI)``): every row its own bodies'
inertias, the rest the model's; and the single-state kernels rnea_inertias / aba_inertias /
crba_inertias behind them, callable from a user's @njit loop.

Oracles: Pinocchio on a model whose inertias were set through ``pin.Inertia
.FromDynamicParameters``, robot by robot, on a random tree of every joint type with rotor
inertias (armature) and on a free-flyer humanoid; ABA inverting RNEA; the full parameter-table
route (``prm=``), which must give the same rows bit for bit since only where the inertias are
read from differs."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from fastdyn.kernels import aba_inertias, crba_inertias, rnea_inertias, workspace
from conftest import close, needs_pinocchio, pin


@pytest.fixture(scope="module")
def tree():
    return fd.samples.random_tree(10, seed=5, root="freeflyer")  # every joint type, armature


@pytest.fixture(scope="module")
def legged():
    return fd.samples.humanoid()


def _states(m, n, seed):
    rng = np.random.default_rng(seed)
    Q = np.stack([fd.random_configuration(m, rng) for _ in range(n)])
    return Q, rng.normal(size=(n, m.nv)), rng.normal(size=(n, m.nv))


@pytest.mark.parametrize("which", ["tree", "legged"])
def test_inertia_batch_matches_pinocchio_robot_by_robot(which, request):
    needs_pinocchio()
    from oracle import to_pinocchio
    m = request.getfixturevalue(which)
    n = 5
    PI = fd.sample_parameters(m, n, seed=1, mass=0.3, com=0.05, inertia=0.3)
    Q, V, A = _states(m, n, 2)
    TAU = fd.batch.rnea(m, Q, V, A, pi=PI)
    DDQ = fd.batch.aba(m, Q, V, TAU, pi=PI)
    MM = fd.batch.crba(m, Q, pi=PI)
    pm = to_pinocchio(m)
    pd = pm.createData()
    for s in range(n):
        for i in range(1, m.njoints):
            pm.inertias[i] = pin.Inertia.FromDynamicParameters(PI[s, i - 1].copy())
        close(TAU[s], pin.rnea(pm, pd, Q[s], V[s], A[s]))
        M = pin.crba(pm, pd, Q[s])
        close(MM[s], np.triu(M) + np.triu(M, 1).T)
        cond = np.linalg.cond(MM[s])
        close(DDQ[s], pin.aba(pm, pd, Q[s], V[s], TAU[s]), 1e-9 * cond)
        close(DDQ[s], A[s], 1e-12 * cond)  # and ABA inverts RNEA


def test_inertia_batch_equals_the_parameter_table_route_bitwise(tree):
    n = 7
    PI = fd.sample_parameters(tree, n, seed=3, mass=0.2, com=0.02, inertia=0.2)
    PRM = fd.parameter_batch(tree, pi=PI)
    Q, V, A = _states(tree, n, 4)
    for f, args in ((fd.batch.rnea, (Q, V, A)), (fd.batch.aba, (Q, V, A)),
                    (fd.batch.crba, (Q,))):
        assert np.array_equal(f(tree, *args, pi=PI), f(tree, *args, prm=PRM))
    # one set of inertias for every row, (njoints - 1, 10) or (1, njoints - 1, 10)
    one = fd.batch.rnea(tree, Q, V, A, pi=PI[2])
    assert np.array_equal(one, fd.batch.rnea(tree, Q, V, A, pi=PI[2:3]))
    assert np.array_equal(one, fd.batch.rnea(tree, Q, V, A, prm=PRM[2]))
    # the model's own inertias are the fixed-model batch
    own = np.array(tree.params["pi"][1:])
    assert np.array_equal(fd.batch.rnea(tree, Q, V, A, pi=own), fd.batch.rnea(tree, Q, V, A))


def test_one_thread_and_two_give_the_same_rows(tree):
    n = 9
    PI = fd.sample_parameters(tree, n, seed=6, mass=0.2)
    Q, V, A = _states(tree, n, 7)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = fd.batch.aba(tree, Q, V, A, pi=PI)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        assert np.array_equal(one, fd.batch.aba(tree, Q, V, A, pi=PI))
    finally:
        numba.set_num_threads(before)


@numba.njit
def _user_loop(jnt, prm, PI, Q, V, A, fext, ws, tau, ddq, M, empty, out):
    """A user's own Monte Carlo loop over the raw kernels: the largest |ABA(RNEA) - a|."""
    worst = 0.0
    for s in range(PI.shape[0]):
        rnea_inertias(jnt, prm, PI[s], Q[s], V[s], A[s], fext, ws, tau)
        aba_inertias(jnt, prm, PI[s], Q[s], V[s], tau, fext, ws, ddq)
        crba_inertias(jnt, prm, PI[s], Q[s], ws, M, empty)
        out[s] = M[0, 0]
        for k in range(ddq.shape[0]):
            worst = max(worst, abs(ddq[k] - A[s, k]))
    return worst


def test_the_inertia_kernels_run_in_a_users_njit_loop(tree):
    n = 4
    PI = fd.sample_parameters(tree, n, seed=8, mass=0.2)
    Q, V, A = _states(tree, n, 9)
    out = np.empty(n)
    worst = _user_loop(tree.jnt, tree.prm, PI, Q, V, A, np.zeros((0, 6)), workspace(tree.jnt),
                       np.empty(tree.nv), np.empty(tree.nv), np.empty((tree.nv, tree.nv)),
                       np.zeros(0), out)
    assert worst < 1e-9
    close(out, fd.batch.crba(tree, Q, pi=PI)[:, 0, 0], 0.0)


@pytest.mark.parametrize("edit, message", [
    (lambda P: P.__setitem__((3, 1, 0), -1.0), r"row 3: pi: robot 3, joint 'j.*negative mass"),
    (lambda P: P.__setitem__((2, 4, 7), np.nan), r"row 2: pi: robot 2, .*pi is not finite"),
    (lambda P: P.__setitem__((1, 0, 0), np.inf), r"row 1: pi: robot 1, .*pi is not finite"),
])
@pytest.mark.parametrize("algo", ["rnea", "aba", "crba"])
def test_bad_inertias_are_named_never_computed(tree, edit, message, algo):
    n = 5
    PI = fd.sample_parameters(tree, n, seed=10, mass=0.1)
    edit(PI)
    Q, V, A = _states(tree, n, 11)
    args = (Q,) if algo == "crba" else (Q, V, A)
    with pytest.raises(ValueError, match=message):
        getattr(fd.batch, algo)(tree, *args, pi=PI)


def test_bad_inertia_batches_are_refused(tree):
    n = 3
    PI = fd.sample_parameters(tree, n, seed=12)
    Q, V, A = _states(tree, n, 13)
    with pytest.raises(ValueError, match=r"pi must have shape \(N, 11, 10\)"):
        fd.batch.rnea(tree, Q, V, A, pi=PI[:, :4])
    with pytest.raises(ValueError, match="2 sets of inertias for 3 rows"):
        fd.batch.rnea(tree, Q, V, A, pi=PI[:2])
    with pytest.raises(ValueError, match="not both"):
        fd.batch.rnea(tree, Q, V, A, pi=PI, prm=tree.prm)
    with pytest.raises((TypeError, ValueError), match="pi"):
        fd.batch.rnea(tree, Q, V, A, pi=PI.astype(str))
    # a singular robot (a massless leaf on a moving joint) is named as the single call would
    m = fd.samples.manipulator()
    PI = fd.sample_parameters(m, 2, seed=1)
    PI[1, -1] = 0.0
    Q, V, A = _states(m, 2, 14)
    with pytest.raises(fd.SingularMassMatrixError, match="row 1: .*not positive definite"):
        fd.batch.aba(m, Q, V, A, pi=PI)
