"""fd.batch.constraint_dynamics and fd.batch.impulse_dynamics: every row against Pinocchio's
constraintDynamics / impulseDynamics on that row's own robot (Solo12 on four point contacts,
robots with sampled inertias, one per row), rows bit for bit the single call whichever thread
runs them, and failures named by row.

Tolerance as tests/test_constraint_dynamics.py's (errors of 2e-14 relative measured there).
"""

import warnings

import numba
import numpy as np
import pytest

import fastdyn as fd
from conftest import close, get_pair, pin, random_state
from fastdyn.errors import ConvergenceWarning, SingularConstraintError
from test_constraint_dynamics import (SOLO_FEET, TOL, _contacts, _pin_dynamics, _pin_impulse,
                                      _redundant)

N = 12


def _states(pm, n, seed):
    rng = np.random.default_rng(seed)
    Q, V = np.empty((n, pm.nq)), np.empty((n, pm.nv))
    for r in range(n):
        Q[r], V[r], _ = random_state(pm, rng)
    return Q, V, rng.normal(size=(n, pm.nv)) * 5.0


def _pin_robot(pm, pi):
    """Pinocchio's model with the bodies' inertias pi (njoints - 1, 10), Pinocchio's
    dynamic-parameter order, set through its own Inertia type."""
    out = pin.Model(pm)
    for j in range(1, pm.njoints):
        out.inertias[j] = pin.Inertia.FromDynamicParameters(pi[j - 1])
    return out


@pytest.mark.parametrize("threads", (1, 2))
def test_rows_match_pinocchio_on_each_rows_robot(threads):
    model, pm = get_pair("solo12")
    cs = _contacts(model, SOLO_FEET, (3, 3, 3, 3), fd.LOCAL_WORLD_ALIGNED, (30.0, 4.0))
    Q, V, TAU = _states(pm, N, 0)
    pi = fd.sample_parameters(model, N, seed=1, mass=0.2, com=0.02, inertia=0.2)
    PRM = fd.parameter_batch(model, pi=pi)
    numba.set_num_threads(threads)
    try:
        DDQ, LAM = fd.batch.constraint_dynamics(model, Q, V, TAU, cs, prm=PRM)
        VA, IMP = fd.batch.impulse_dynamics(model, Q, V, cs, restitution=0.3, prm=PRM)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert DDQ.shape == (N, model.nv) and LAM.shape == (N, 12)
    for r in range(N):
        pr = _pin_robot(pm, pi[r])
        ddq, lam = _pin_dynamics(pr, model, cs, Q[r], V[r], TAU[r])
        close(DDQ[r], ddq, TOL)
        close(LAM[r], lam, TOL)
        va, imp = _pin_impulse(pr, model, cs, Q[r], V[r], 0.3)
        close(VA[r], va, TOL)
        close(IMP[r], imp, TOL)
    # the sampled robots differ: a batch that used one robot for every row fails the above
    assert np.abs(pi[0] - pi[1]).max() > 1e-3


def test_rows_are_the_single_call_bit_for_bit_on_two_threads():
    model, pm = get_pair("solo12")
    cs = _contacts(model, SOLO_FEET, (3, 3, 3, 3), fd.LOCAL, (0.0, 0.0))
    Q, V, TAU = _states(pm, 40, 2)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        DDQ, LAM = fd.batch.constraint_dynamics(model, Q, V, TAU, cs)
        VA, IMP = fd.batch.impulse_dynamics(model, Q, V, cs, restitution=1.0)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    data = model.create_data()
    for r in range(Q.shape[0]):
        ddq, lam = fd.constraint_dynamics(model, data, Q[r], V[r], TAU[r], cs)
        assert np.array_equal(DDQ[r], ddq) and np.array_equal(LAM[r], lam)
        va, imp = fd.impulse_dynamics(model, data, Q[r], V[r], cs, restitution=1.0)
        assert np.array_equal(VA[r], va) and np.array_equal(IMP[r], imp)


def test_a_failed_row_is_named_with_the_single_calls_error():
    model, pm = get_pair("solo12")
    cs = _contacts(model, SOLO_FEET, (3, 3, 3, 3), fd.LOCAL, (0.0, 0.0))
    Q, V, TAU = _states(pm, 6, 3)
    V[4, 2] = np.nan
    with pytest.raises(ValueError, match=r"^V has non-finite .* nan at index \[4, 2\] \(row 4\)"):
        fd.batch.constraint_dynamics(model, Q, V, TAU, cs)
    with pytest.raises(ValueError, match=r"^V_before has non-finite .*\(row 4\)"):
        fd.batch.impulse_dynamics(model, Q, V, cs)
    V[4, 2] = 1e300  # finite inputs whose result overflows: the single call's words on row 4
    with pytest.raises(ArithmeticError, match=r"^row 4: "):
        fd.batch.constraint_dynamics(model, Q, V, TAU, cs)
    with pytest.raises(ValueError, match="TAU"):
        fd.batch.constraint_dynamics(model, Q, V, TAU[:5], cs)
    with pytest.raises(ValueError, match="restitution"):
        fd.batch.impulse_dynamics(model, Q, V, cs, restitution=1.5)


def test_a_dependent_set_names_the_row_and_the_constraint_and_mu_solves_it():
    model, pm = get_pair("talos")
    cs = _redundant(model)
    Q, _, TAU = _states(pm, 3, 4)
    V = np.zeros_like(Q[:, :model.nv])  # (the set is consistent at rest only)
    with pytest.raises(SingularConstraintError, match=r"'left again': row 0 \(of 3 failed\)"):
        fd.batch.constraint_dynamics(model, Q, V, TAU, cs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DDQ, LAM = fd.batch.constraint_dynamics(model, Q, V, TAU, cs, mu=1e-6,
                                                max_iterations=200)
    data = model.create_data()
    ddq, lam = fd.constraint_dynamics(model, data, Q[2], V[2], TAU[2], cs, mu=1e-6,
                                      max_iterations=200)
    assert np.array_equal(DDQ[2], ddq) and np.array_equal(LAM[2], lam)
    with pytest.warns(ConvergenceWarning, match=r"on 3 row\(s\), the first row 0"):
        fd.batch.constraint_dynamics(model, Q, V, TAU, cs, mu=1e-2, max_iterations=2)
