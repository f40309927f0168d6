"""Batch derivatives (fastdyn.batch.compute_rnea_derivatives, aba_derivatives, step_derivatives): every
row equals the single call bit for bit, with 1 and 2 threads, with external forces shared or
per row and with one robot per row; preallocated outputs; bad input."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from conftest import get_pair, random_state, set_threads as _threads
from fastdyn import batch

N = 7  # not a multiple of the thread count


@pytest.fixture(scope="module")
def states():
    m, pm = get_pair("tree_free")  # every joint type Pinocchio has, under a free flyer
    rng = np.random.default_rng(0)
    S = [random_state(pm, rng) for _ in range(N)]
    Q, V, X = (np.array([s[k] for s in S]) for k in range(3))
    F = rng.normal(size=(N, m.njoints, 6))
    pi = fd.sample_parameters(m, N, seed=1, mass=0.2, com=0.01, inertia=0.2)
    return m, Q, V, X, F, fd.parameter_batch(m, pi=pi)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("forces", ["none", "shared", "per_row"])
def test_rows_equal_single_calls_bitwise(states, threads, forces):
    m, Q, V, X, F, _ = states
    fext = {"none": None, "shared": F[0], "per_row": F}[forces]
    old = _threads(threads)
    try:
        R = batch.compute_rnea_derivatives(m, Q, V, X, fext=fext)
        B = batch.compute_aba_derivatives(m, Q, V, X, fext=fext)
    finally:
        numba.set_num_threads(old)
    d = m.create_data()
    for r in range(N):
        f = None if fext is None else (F[0] if forces == "shared" else F[r])
        for got, ref in zip(R, fd.compute_rnea_derivatives(m, d, Q[r], V[r], X[r], f)):
            assert np.array_equal(got[r], ref)
        for got, ref in zip(B, fd.compute_aba_derivatives(m, d, Q[r], V[r], X[r], f)):
            assert np.array_equal(got[r], ref)


@pytest.mark.parametrize("threads", [1, 2])
def test_one_robot_per_row(states, threads):
    m, Q, V, X, _, P = states
    old = _threads(threads)
    try:
        R = batch.compute_rnea_derivatives(m, Q, V, X, prm=P)
        B = batch.compute_aba_derivatives(m, Q, V, X, prm=P)
        one = batch.compute_aba_derivatives(m, Q, V, X, prm=P[2])  # one robot for every row
    finally:
        numba.set_num_threads(old)
    m2 = m.with_parameters(P[2])
    assert not np.array_equal(B[0][2], batch.compute_aba_derivatives(m, Q[2:3], V[2:3], X[2:3])[0][0])
    for r in range(N):
        mr = m.with_parameters(P[r])
        d = mr.create_data()
        for got, ref in zip(R, fd.compute_rnea_derivatives(mr, d, Q[r], V[r], X[r])):
            assert np.array_equal(got[r], ref)
        for got, ref in zip(B, fd.compute_aba_derivatives(mr, d, Q[r], V[r], X[r])):
            assert np.array_equal(got[r], ref)
        for got, ref in zip(one, fd.compute_aba_derivatives(m2, d, Q[r], V[r], X[r])):
            assert np.array_equal(got[r], ref)


def test_preallocated_outputs_are_filled(states):
    m, Q, V, X, _, _ = states
    out = tuple(np.full((N, m.nv, m.nv), np.nan) for _ in range(3))
    got = batch.compute_aba_derivatives(m, Q, V, X, out=out)
    assert all(g is o for g, o in zip(got, out))
    ref = batch.compute_aba_derivatives(m, Q, V, X)
    assert all(np.array_equal(g, r) for g, r in zip(got, ref))
    got = batch.compute_rnea_derivatives(m, Q, V, X, out=out)
    assert all(g is o for g, o in zip(got, out))
    assert all(np.array_equal(g, r) for g, r in zip(got, batch.compute_rnea_derivatives(m, Q, V, X)))


def test_bad_input_is_named(states):
    m, Q, V, X, F, P = states
    nv = m.nv
    with pytest.raises(ValueError, match=r"V must have shape \(%d, %d\)" % (N, nv)):
        batch.compute_rnea_derivatives(m, Q, V[:, :-1], X)
    with pytest.raises(ValueError, match="fext must have shape"):
        batch.compute_aba_derivatives(m, Q, V, X, fext=F[:, :, :3])
    with pytest.raises(ValueError, match="fext must have shape"):
        batch.compute_aba_derivatives(m, Q, V, X, fext=F[:3])
    Fb = F.copy()
    Fb[4, 2, 1] = np.nan
    with pytest.raises(ValueError, match="fext has a non-finite entry .row 4"):
        batch.compute_rnea_derivatives(m, Q, V, X, fext=Fb)
    with pytest.raises(ValueError, match="robots for 7 rows"):
        batch.compute_aba_derivatives(m, Q, V, X, prm=P[:3])
    with pytest.raises(TypeError, match="tuple of 3 arrays"):
        batch.compute_aba_derivatives(m, Q, V, X, out=np.zeros((N, nv, nv)))
    with pytest.raises(ValueError, match=r"out\[1\] must be of shape"):
        batch.compute_aba_derivatives(m, Q, V, X, out=(np.zeros((N, nv, nv)), np.zeros((N, nv, 1)),
                                               np.zeros((N, nv, nv))))
    with pytest.raises(TypeError, match=r"out\[0\] must be float64"):
        batch.compute_rnea_derivatives(m, Q, V, X, out=tuple(np.zeros((N, nv, nv), np.float32)
                                                     for _ in range(3)))
    same = np.zeros((N, nv, nv))
    with pytest.raises(ValueError, match="must not overlap"):
        batch.compute_rnea_derivatives(m, Q, V, X, out=(same, same, np.zeros((N, nv, nv))))
    Qb = Q.copy()
    Qb[3, 3:7] = [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="Q row 3: joint 'root' has a non-unit"):
        batch.compute_aba_derivatives(m, Qb, V, X)
    big = V.copy()
    big[5] = 1e200
    with pytest.raises(fd.NumericalOverflowError, match="row 5"):
        batch.compute_rnea_derivatives(m, Q, big, X)


def test_singular_row_is_named():
    b = fd.ModelBuilder("massless")
    j1 = b.add_joint("j1", "revolute_z")
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    b.add_joint("j2", "revolute_x", j1, (np.eye(3), (0.2, 0, 0)))  # carries nothing
    m = b.build()
    z = np.zeros((3, m.nv))
    with pytest.raises(fd.SingularMassMatrixError, match="row 0 .of 3 failed.*'j2'"):
        batch.compute_aba_derivatives(m, z, z, z)


# --- transition Jacobians of a step, over states -------------------------------------------

@pytest.mark.parametrize("threads", [1, 2])
def test_step_derivatives_rows_equal_single_calls_bitwise(threads):
    m, pm = get_pair("solo12")
    rng = np.random.default_rng(2)
    S = [random_state(pm, rng) for _ in range(N)]
    Q, V, TAU = (np.array([s[k] for s in S]) for k in range(3))
    damped = m.with_damping(2, 0.4).with_armature(3, 0.05)
    for model in (m, damped):
        scene = fd.Scene(model, dt=2e-3, ground=False)
        F = rng.normal(size=(N, m.njoints, 6))
        old = _threads(threads)
        try:
            AA, BB = batch.step_derivatives(scene, Q, V, TAU, fext=F)
            A0, B0 = batch.step_derivatives(scene, Q, V)
        finally:
            numba.set_num_threads(old)
        for r in range(N):
            A, B = scene.step_derivatives(Q[r], V[r], TAU[r], F[r])
            assert np.array_equal(AA[r], A) and np.array_equal(BB[r], B)
            A, B = scene.step_derivatives(Q[r], V[r])
            assert np.array_equal(A0[r], A) and np.array_equal(B0[r], B)


def test_step_derivatives_batch_robots_outputs_and_refusals():
    m, pm = get_pair("ur5")
    rng = np.random.default_rng(3)
    Q = np.array([random_state(pm, rng)[0] for _ in range(N)])
    V, TAU = rng.normal(size=(2, N, m.nv))
    P = fd.parameter_batch(m, pi=fd.sample_parameters(m, N, seed=4, mass=0.2, com=0.01,
                                                      inertia=0.2))
    scene = fd.Scene(m, dt=1e-3, ground=False)
    out = (np.empty((N, 12, 12)), np.empty((N, 12, 6)))
    AA, BB = batch.step_derivatives(scene, Q, V, TAU, prm=P, out=out)
    assert AA is out[0] and BB is out[1]
    for r in (0, N - 1):
        A, B = fd.Scene(m.with_parameters(P[r]), dt=1e-3, ground=False).step_derivatives(
            Q[r], V[r], TAU[r])
        assert np.array_equal(AA[r], A) and np.array_equal(BB[r], B)
    Qlim = Q.copy()
    Qlim[4, 2] = m.upper_position_limit[2] - 1e-4  # at the elbow's limit: a limit row enters
    AA, BB = batch.step_derivatives(scene, Qlim, V, TAU)
    A, B = scene.step_derivatives(Qlim[4], V[4], TAU[4])
    assert np.array_equal(AA[4], A) and np.array_equal(BB[4], B)
    Vbad = V.copy()
    Vbad[4] = 1e200
    with pytest.raises(fd.DivergenceError, match="row 4"):
        batch.step_derivatives(scene, Q, Vbad, TAU)
    with pytest.raises(TypeError, match="fastdyn.Scene"):
        batch.step_derivatives(m, Q, V, TAU)
    with pytest.raises(ValueError, match="TAU must have shape"):
        batch.step_derivatives(scene, Q, V, TAU[:, :2])
