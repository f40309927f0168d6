"""fastdyn.compute_constraint_dynamics_derivatives and compute_impulse_dynamics_derivatives:
against central finite differences of fastdyn.constraint_dynamics and impulse_dynamics
(Solo12's point contacts, Talos's frame contacts, a random tree of every joint type with both
kinds), against Pinocchio 4.1's computeConstraintDynamicsDerivatives and
computeImpulseDynamicsDerivatives where its are the derivatives, and against ABA's
derivatives without constraints.

Tolerances: finite differences (step 1e-6) agree to 5e-7 relative to the largest entry, their
own round-off (the dynamics' ~1e-13 over the step); FD_TOL allows 20x. Pinocchio agrees to
5e-13 (the random tree; 3e-14 on Solo12 and Talos); PIN_TOL allows 20x.
"""

import numpy as np
import pytest

import fastdyn as fd
from conftest import _pair, close, get_pair, pin, random_state
from fastdyn.errors import ConstraintError
from fastdyn.kernels.joints import codes
from test_constraint_dynamics import CASES, GAINS, REFS, _contacts, _pinocchio, _state

FD_TOL = 1e-5
PIN_TOL = 1e-11
NAMES = ("ddq_dq", "ddq_dv", "ddq_dtau", "dlambda_dq", "dlambda_dv", "dlambda_dtau")


def _finite_differences(model, cs, q, v, tau, eps=1e-6):
    """Central differences of (ddq, lambda) along q (tangent), v and tau."""
    data = model.create_data()

    def solve(q, v, tau):
        ddq, lam = fd.constraint_dynamics(model, data, q, v, tau, cs)
        return ddq.copy(), lam.copy()

    out = [np.zeros((model.nv, model.nv)) for _ in range(3)]
    out += [np.zeros((len(solve(q, v, tau)[1]), model.nv)) for _ in range(3)]
    for k in range(model.nv):
        e = np.zeros(model.nv)
        e[k] = eps
        for w, (plus, minus) in enumerate((
                ((fd.integrate(model, q, e), v, tau), (fd.integrate(model, q, -e), v, tau)),
                ((q, v + e, tau), (q, v - e, tau)),
                ((q, v, tau + e), (q, v, tau - e)))):
            (a1, l1), (a0, l0) = solve(*plus), solve(*minus)
            out[w][:, k] = (a1 - a0) / (2 * eps)
            out[3 + w][:, k] = (l1 - l0) / (2 * eps)
    return out


@pytest.mark.parametrize("gains", GAINS, ids=("no_gains", "baumgarte"))
@pytest.mark.parametrize("ref", REFS, ids=("local", "lwa"))
@pytest.mark.parametrize("robot", list(CASES))
def test_derivatives_match_finite_differences(robot, ref, gains):
    model, pm = get_pair(robot)
    frames, kinds = CASES[robot]
    cs = _contacts(model, frames, kinds, ref, gains)
    data = model.create_data()
    q, v, tau = _state(pm, 11)
    got = [x.copy() for x in
           fd.compute_constraint_dynamics_derivatives(model, data, q, v, tau, cs)]
    ddq, lam = (x.copy() for x in fd.constraint_dynamics(model, model.create_data(), q, v, tau,
                                                          cs))
    np.testing.assert_array_equal(data.ddq, ddq)  # the dynamics are left in data too
    np.testing.assert_array_equal(data.lambda_c, lam)
    for name, x, ref_x in zip(NAMES, got, _finite_differences(model, cs, q, v, tau)):
        assert np.abs(ref_x).max() > 1e-3, name  # (not a vacuous comparison)
        close(x, ref_x, FD_TOL)


def _pin_derivatives(pm, model, cs, q, v, tau):
    pd, cms, cds, prox = _pinocchio(pm, model, cs)
    pin.constraintDynamics(pm, pd, q, v, tau, cms, cds, prox)
    pin.computeConstraintDynamicsDerivatives(pm, pd, cms, cds, prox)
    return (pd.ddq_dq, pd.ddq_dv, pd.ddq_dtau, pd.dlambda_dq, pd.dlambda_dv, pd.dlambda_dtau)


def _smooth_tree():
    """A random tree of every joint type whose motion subspace is constant (Pinocchio 4.1's
    derivatives omit dS/dq: fastdyn/derivatives.py), with Pinocchio's twin."""
    types = tuple(t for k, t in enumerate(codes.NAMES) if k > 0 and not codes.S_MOVES[k]
                  and t != "freeflyer")
    model, pm = _pair(fd.samples.random_tree(16, seed=4, root="freeflyer", types=types))
    leaves = [i for i in range(2, model.njoints) if i not in set(model.jnt["parent"])]
    return model, pm, [model.joint_names[i] for i in leaves[-4:]]


PIN_CASES = [  # (robot, reference, gains, contact types): where Pinocchio's are the derivatives
    ("solo12", fd.LOCAL, GAINS[1], None), ("solo12", fd.LOCAL_WORLD_ALIGNED, GAINS[1], None),
    ("talos", fd.LOCAL, GAINS[1], None), ("talos", fd.LOCAL_WORLD_ALIGNED, GAINS[0], None),
    ("smooth_tree", fd.LOCAL, GAINS[1], (6, 3, 3, 6)),
    ("smooth_tree", fd.LOCAL_WORLD_ALIGNED, GAINS[1], (3, 3, 3, 3))]
# Not compared: LOCAL_WORLD_ALIGNED frame contacts with kp > 0 (Talos: Pinocchio's dq off by
# 0.3 of the scale), and on the smooth tree even without gains (off by 5e-2 where finite
# differences agree with fastdyn's to 1e-8): test_derivatives_match_finite_differences
# covers them.


@pytest.mark.parametrize("robot, ref, gains, kinds", PIN_CASES)
def test_derivatives_match_pinocchio(robot, ref, gains, kinds):
    if robot == "smooth_tree":
        get_pair("solo12")  # (skips without Pinocchio)
        model, pm, frames = _smooth_tree()
    else:
        model, pm = get_pair(robot)
        frames, kinds = CASES[robot]
    cs = _contacts(model, frames, kinds, ref, gains)
    data = model.create_data()
    for seed in (12, 13):
        q, v, tau = _state(pm, seed)
        got = fd.compute_constraint_dynamics_derivatives(model, data, q, v, tau, cs)
        for x, ref_x in zip(got, _pin_derivatives(pm, model, cs, q, v, tau)):
            close(x, ref_x, PIN_TOL)


def test_without_constraints_they_are_aba_derivatives():
    model, pm = get_pair("tree_free")
    q, v, tau = _state(pm, 14)
    got = fd.compute_constraint_dynamics_derivatives(model, model.create_data(), q, v, tau, [])
    want = fd.compute_aba_derivatives(model, model.create_data(), q, v, tau)
    for x, w in zip(got[:3], want):
        close(x, w, 1e-12)
    assert all(x.shape == (0, model.nv) for x in got[3:])


def test_loop_closures_and_dependent_sets_are_refused():
    model, pm = get_pair("tree_free")
    q, v, tau = _state(pm, 15)
    loop = fd.RigidConstraint(model, fd.CONTACT_3D, "j9_prismatic_x", frame2="j23_revolute_y",
                              name="closure")
    with pytest.raises(ConstraintError, match="'closure': the derivatives of loop closures"):
        fd.compute_constraint_dynamics_derivatives(model, model.create_data(), q, v, tau,
                                                   [loop])
    twice = [fd.RigidConstraint(model, fd.CONTACT_6D, "j16_planar", name=f"c{k}")
             for k in range(2)]
    with pytest.raises(fd.SingularConstraintError, match="'c1'"):
        fd.compute_constraint_dynamics_derivatives(model, model.create_data(), q, v, tau,
                                                   twice)
    with pytest.raises(ValueError, match="tau has non-finite"):
        fd.compute_constraint_dynamics_derivatives(model, model.create_data(), q, v,
                                                   np.full(model.nv, np.inf), twice[:1])


def test_the_raw_kernel_gives_the_object_apis_numbers():
    from fastdyn.kernels import constraint_derivatives_work_size, constraint_dynamics_derivatives
    model, pm = get_pair("talos")
    cs = _contacts(model, CASES["talos"][0], (6, 6), fd.LOCAL, GAINS[1])
    q, v, tau = _state(pm, 16)
    table = fd.constraint_table(model, cs)
    nv, m = model.nv, 12
    work = np.empty(constraint_derivatives_work_size(nv, m, model.njoints))
    prox = np.array([0.0, 1.0, 1e-12, 1e-12, 0.0, 0.0, 0.0])
    ddq, lam = np.empty(nv), np.empty(m)
    ddq_d, lam_d = np.empty((3, nv, nv)), np.empty((3, m, nv))
    status = constraint_dynamics_derivatives(model.jnt, model.prm, model.dof, table, q, v, tau,
                                             prox, model.create_data().ws, work, ddq, lam,
                                             ddq_d, lam_d)
    assert status == (0, 0)
    got = fd.compute_constraint_dynamics_derivatives(model, model.create_data(), q, v, tau, cs)
    for x, y in zip(got, (*ddq_d, *lam_d)):
        np.testing.assert_array_equal(x, y)


# --- impulse dynamics ------------------------------------------------------------------------

IMPULSE_NAMES = ("dv_after_dq", "dv_after_dv", "dimpulse_dq", "dimpulse_dv")


def _impulse_differences(model, cs, q, v, e, eps=1e-6):
    """Central differences of (v+, impulses) along q (tangent) and v-."""
    data = model.create_data()

    def solve(q, v):
        vp, imp = fd.impulse_dynamics(model, data, q, v, cs, restitution=e)
        return vp.copy(), imp.copy()

    m = len(solve(q, v)[1])
    out = [np.zeros((model.nv, model.nv)), np.zeros((model.nv, model.nv)),
           np.zeros((m, model.nv)), np.zeros((m, model.nv))]
    for k in range(model.nv):
        d = np.zeros(model.nv)
        d[k] = eps
        for w, (plus, minus) in enumerate((
                ((fd.integrate(model, q, d), v), (fd.integrate(model, q, -d), v)),
                ((q, v + d), (q, v - d)))):
            (a1, l1), (a0, l0) = solve(*plus), solve(*minus)
            out[w][:, k] = (a1 - a0) / (2 * eps)
            out[2 + w][:, k] = (l1 - l0) / (2 * eps)
    return out


@pytest.mark.parametrize("ref", REFS, ids=("local", "lwa"))
@pytest.mark.parametrize("robot", list(CASES))
def test_impulse_derivatives_match_finite_differences(robot, ref):
    model, pm = get_pair(robot)
    frames, kinds = CASES[robot]
    cs = _contacts(model, frames, kinds, ref, GAINS[0])
    data = model.create_data()
    q, v, _ = _state(pm, 17)
    got = [x.copy() for x in
           fd.compute_impulse_dynamics_derivatives(model, data, q, v, cs, restitution=0.4)]
    vp, imp = fd.impulse_dynamics(model, model.create_data(), q, v, cs, restitution=0.4)
    np.testing.assert_array_equal(data.dq_after, vp)
    np.testing.assert_array_equal(data.impulse_c, imp)
    for name, x, ref_x in zip(IMPULSE_NAMES, got, _impulse_differences(model, cs, q, v, 0.4)):
        assert np.abs(ref_x).max() > 1e-3, name
        close(x, ref_x, FD_TOL)


@pytest.mark.parametrize("robot, ref", [("solo12", fd.LOCAL), ("talos", fd.LOCAL_WORLD_ALIGNED),
                                        ("smooth_tree", fd.LOCAL)])
def test_impulse_derivatives_match_pinocchio(robot, ref):
    """Pinocchio's data.ddq_dv is d(v+ - v-)/dv-, the jump's: fastdyn's dv_after_dv less I."""
    if robot == "smooth_tree":
        get_pair("solo12")  # (skips without Pinocchio)
        model, pm, frames = _smooth_tree()
        kinds = (6, 3, 3, 6)
    else:
        model, pm = get_pair(robot)
        frames, kinds = CASES[robot]
    cs = _contacts(model, frames, kinds, ref, GAINS[0])
    q, v, _ = _state(pm, 18)
    got = fd.compute_impulse_dynamics_derivatives(model, model.create_data(), q, v, cs, 0.7)
    pd, cms, cds, prox = _pinocchio(pm, model, cs)
    pin.impulseDynamics(pm, pd, q, v, cms, cds, 0.7, prox)
    pin.computeImpulseDynamicsDerivatives(pm, pd, cms, cds, 0.7, prox)
    want = (pd.ddq_dq, pd.ddq_dv + np.eye(model.nv), pd.dlambda_dq, pd.dlambda_dv)
    for x, w in zip(got, want):
        close(x, w, PIN_TOL)


def test_impulse_derivatives_refuse_loops_and_bad_restitution():
    model, pm = get_pair("tree_free")
    q, v, _ = _state(pm, 19)
    loop = fd.RigidConstraint(model, fd.CONTACT_6D, "j18_helical", frame2="j14_prismatic_z",
                              name="weld")
    with pytest.raises(ConstraintError, match="'weld': the derivatives of loop closures"):
        fd.compute_impulse_dynamics_derivatives(model, model.create_data(), q, v, [loop])
    c = fd.RigidConstraint(model, fd.CONTACT_3D, "j16_planar")
    with pytest.raises(ValueError, match=r"restitution must be in \[0, 1\]"):
        fd.compute_impulse_dynamics_derivatives(model, model.create_data(), q, v, [c], -0.1)
    with pytest.raises(ValueError, match="v_before has non-finite"):
        fd.compute_impulse_dynamics_derivatives(model, model.create_data(), q,
                                                np.full(model.nv, np.nan), [c])
