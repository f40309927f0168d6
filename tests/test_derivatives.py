"""Dynamics derivatives: against Pinocchio, against central finite differences through
``integrate`` (the independent check, and the only one on spherical_zyx and universal joints,
where Pinocchio 4.1 omits dS/dq), against the identities that tie them to crba, aba and
compute_minverse, and bad input."""

import pickle

import numba
import numpy as np
import pytest

import fastdyn as fd
from conftest import close, get_pair, needs_pinocchio, pin, random_state, to_pinocchio
from fastdyn.kernels import aba_derivatives, rnea_derivatives, workspace
from fastdyn.kernels.joints import codes

# Every joint type Pinocchio 4.1 differentiates correctly, hung below a free flyer: the types
# the robots lack (planar, spherical, helical, translation, unaligned axes, continuous).
PIN_TYPES = tuple(t for t in codes.NAMES[1:]
                  if t not in ("freeflyer", "spherical_zyx", "universal"))
FD_STEP = 1e-6
FD_TOL = 1e-6  # central differences at step 1e-6: truncation ~1e-12, rounding ~1e-10 relative
_mixed = []


@pytest.fixture(scope="module", params=["ur5", "solo12", "talos", "mixed_tree"])
def oracle_pair(request):
    """Models on which Pinocchio's derivatives are the reference (each built once)."""
    if request.param != "mixed_tree":
        return get_pair(request.param)
    needs_pinocchio()
    if not _mixed:
        m = fd.samples.random_tree(20, seed=7, types=PIN_TYPES, root="freeflyer")
        _mixed.append((m, to_pinocchio(m)))
    return _mixed[0]


def _fext(m, rng):
    return rng.normal(size=(m.njoints, 6))


def _pin_forces(fext):
    return [pin.Force(f) for f in fext]


def _sym(upper):
    """Both triangles from Pinocchio's upper one (its M and Minv)."""
    return np.triu(upper) + np.triu(upper, 1).T


def test_rnea_derivatives_match_pinocchio(oracle_pair):
    m, pm = oracle_pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(0)
    for k in range(3):
        q, v, a = random_state(pm, rng)
        fext = _fext(m, rng) if k else None
        dq, dv, M = fd.compute_rnea_derivatives(m, d, q, v, a, fext)
        args = (pm, pd, q, v, a) + ((_pin_forces(fext),) if k else ())
        pdq, pdv, pM = pin.computeRNEADerivatives(*args)
        close(dq, pdq)
        close(dv, pdv)
        close(M, _sym(pM))
        close(d.tau, pd.tau)


def test_aba_derivatives_match_pinocchio(oracle_pair):
    m, pm = oracle_pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(1)
    for k in range(3):
        q, v, tau = random_state(pm, rng)
        fext = _fext(m, rng) if k else None
        ddq_dq, ddq_dv, Minv = fd.compute_aba_derivatives(m, d, q, v, tau, fext)
        args = (pm, pd, q, v, tau) + ((_pin_forces(fext),) if k else ())
        pdq, pdv, pMinv = pin.computeABADerivatives(*args)
        close(ddq_dq, pdq)
        close(ddq_dv, pdv)
        close(Minv, _sym(pMinv))
        close(d.ddq, pd.ddq)


def test_gravity_and_static_torque_derivatives_match_pinocchio(oracle_pair):
    m, pm = oracle_pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(2)
    q, _, _ = random_state(pm, rng)
    close(fd.compute_generalized_gravity_derivatives(m, d, q),
          pin.computeGeneralizedGravityDerivatives(pm, pd, q))
    close(d.g, pin.computeGeneralizedGravity(pm, pd, q))
    fext = _fext(m, rng)
    close(fd.compute_static_torque_derivatives(m, d, q, fext),
          pin.computeStaticTorqueDerivatives(pm, pd, q, _pin_forces(fext)))
    close(d.tau, pin.computeStaticTorque(pm, pd, q, _pin_forces(fext)))


# --- central finite differences: every joint type, spherical_zyx and universal included ------

def _central(f, m, q, v, x, which):
    """Columns of d f / d(which) by central differences; q moves along tangents (integrate)."""
    cols = []
    for k in range(m.nv):
        e = np.zeros(m.nv)
        e[k] = FD_STEP
        if which == "q":
            hi, lo = f(fd.integrate(m, q, e), v, x), f(fd.integrate(m, q, -e), v, x)
        else:
            hi, lo = f(q, v + e, x), f(q, v - e, x)
        cols.append((hi - lo) / (2 * FD_STEP))
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("name", ["humanoid", "tree_free", "tree_planar"])
def test_derivatives_match_finite_differences(name):
    m, pm = get_pair(name)  # humanoid: spherical, ZYX, universal, helical, prismatic ...
    d, work = m.create_data(), m.create_data()
    assert {"spherical_zyx", "universal"} & {m.joint_type(i) for i in range(1, m.njoints)}
    rng = np.random.default_rng(3)
    q, v, a = random_state(pm, rng)
    fext = _fext(m, rng)

    def tau(q, v, a):
        return fd.rnea(m, work, q, v, a, fext).copy()

    def ddq(q, v, t):
        return fd.aba(m, work, q, v, t, fext).copy()

    dq, dv, M = (x.copy() for x in fd.compute_rnea_derivatives(m, d, q, v, a, fext))
    close(dq, _central(tau, m, q, v, a, "q"), FD_TOL)
    close(dv, _central(tau, m, q, v, a, "v"), FD_TOL)
    t = tau(q, v, a)
    ddq_dq, ddq_dv, _ = fd.compute_aba_derivatives(m, d, q, v, t, fext)
    close(ddq_dq, _central(ddq, m, q, v, t, "q"), FD_TOL)
    close(ddq_dv, _central(ddq, m, q, v, t, "v"), FD_TOL)
    g = _central(lambda q, v, x: fd.compute_generalized_gravity(m, work, q).copy(), m, q, v, a, "q")
    close(fd.compute_generalized_gravity_derivatives(m, d, q), g, FD_TOL)
    s = _central(lambda q, v, x: fd.compute_static_torque(m, work, q, fext).copy(), m, q, v, a, "q")
    close(fd.compute_static_torque_derivatives(m, d, q, fext), s, FD_TOL)


# --- identities ---------------------------------------------------------------------------

def test_identities_with_crba_aba_and_minverse():
    """dtau/da = crba; d(ddq)/dtau = compute_minverse; d(ddq)/dx = -M^-1 dtau/dx at a = ABA;
    the torques and accelerations they fill are rnea's and aba's."""
    m, pm = get_pair("humanoid")
    d, ref = m.create_data(), m.create_data()
    rng = np.random.default_rng(4)
    q, v, tau = random_state(pm, rng)
    fext = _fext(m, rng)
    ddq_dq, ddq_dv, Minv = (x.copy() for x in fd.compute_aba_derivatives(m, d, q, v, tau, fext))
    a = fd.aba(m, ref, q, v, tau, fext).copy()
    close(d.ddq, a, 1e-12)
    close(Minv, fd.compute_minverse(m, ref, q), 1e-12)
    assert np.array_equal(Minv, Minv.T)
    dq, dv, M = fd.compute_rnea_derivatives(m, d, q, v, a, fext)
    close(M, fd.crba(m, ref, q), 1e-13)
    assert np.array_equal(M, M.T)
    close(d.tau, tau, 1e-10)
    Mi = fd.compute_minverse(m, ref, q)
    close(ddq_dq, -Mi @ dq, 1e-10)
    close(ddq_dv, -Mi @ dv, 1e-10)


def test_results_are_views_into_data_and_calls_do_not_leak_state():
    """Repeated calls give the same bits (every output entry is rewritten, the branch-free
    zeros included), and what is returned is Data's own arrays."""
    m, pm = get_pair("tree_free")
    d = m.create_data()
    rng = np.random.default_rng(5)
    q, v, a = random_state(pm, rng)
    first = [x.copy() for x in fd.compute_rnea_derivatives(m, d, q, v, a)]
    fd.compute_aba_derivatives(m, d, *random_state(pm, rng))  # dirties U, M, ws
    again = fd.compute_rnea_derivatives(m, d, q, v, a)
    assert again[0] is d.dtau_dq and again[1] is d.dtau_dv and again[2] is d.M
    for x, y in zip(first, again):
        assert np.array_equal(x, y)
    out = fd.compute_aba_derivatives(m, d, q, v, a)
    assert out[0] is d.ddq_dq and out[1] is d.ddq_dv and out[2] is d.Minv


def test_pickled_data_keeps_working():
    m, pm = get_pair("solo12")
    d = m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(6))
    ref = [x.copy() for x in fd.compute_aba_derivatives(m, d, q, v, a)]
    m2, d2 = pickle.loads(pickle.dumps((m, d)))
    for x, y in zip(ref, fd.compute_aba_derivatives(m2, d2, q, v, a)):
        assert np.array_equal(x, y)


# --- the kernels from a user's own @njit code ---------------------------------------------

@numba.njit(cache=False)
def _derivatives_rollout(jnt, prm, dof, q, v, tau, fext, ws, ddq, A, B, M, U, D, Minv, dt,
                         steps):
    """Semi-implicit Euler of a fixed-base arm (q and v share indices), taking the ABA
    derivatives at every step as an iLQR forward pass would, and once more at the end."""
    for _ in range(steps):
        aba_derivatives(jnt, prm, dof, q, v, tau, fext, ws, ddq, A, B, M, U, D, Minv)
        for k in range(v.shape[0]):
            v[k] += dt * ddq[k]
            q[k] += dt * v[k]
    return aba_derivatives(jnt, prm, dof, q, v, tau, fext, ws, ddq, A, B, M, U, D, Minv)


def test_kernels_from_user_njit_code():
    m = fd.samples.manipulator()
    nv = m.nv
    ws = workspace(m.jnt)
    q, v, tau = np.full(nv, 0.3), np.zeros(nv), np.zeros(nv)
    no_forces = np.zeros((0, 6))
    ddq = np.zeros(nv)
    A, B, M, U, Minv = (np.zeros((nv, nv)) for _ in range(5))
    bad = _derivatives_rollout(m.jnt, m.prm, m.dof, q, v, tau, no_forces, ws, ddq, A, B, M, U,
                               np.zeros(nv), Minv, 1e-3, 50)
    assert bad == -1 and np.abs(v).max() > 1e-3  # it fell under gravity
    d = m.create_data()
    ref = fd.compute_aba_derivatives(m, d, q, v, tau)
    for x, y in zip((A, B, Minv), ref):
        assert np.array_equal(x, y)
    tau_out, dq, dv, M = np.zeros(nv), *(np.zeros((nv, nv)) for _ in range(3))
    rnea_derivatives(m.jnt, m.prm, q, v, ddq, no_forces, ws, tau_out, dq, dv, M)
    close(tau_out, tau, 1e-12)
    assert np.array_equal(dq, fd.compute_rnea_derivatives(m, d, q, v, ddq)[0])


# --- bad input -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hum():
    m, _ = get_pair("humanoid")
    return m, m.create_data(), fd.configuration.neutral(m)


CALLS = {
    "rnea": lambda m, d, q, v, x, f=None: fd.compute_rnea_derivatives(m, d, q, v, x, f),
    "aba": lambda m, d, q, v, x, f=None: fd.compute_aba_derivatives(m, d, q, v, x, f),
}


@pytest.mark.parametrize("which", ["rnea", "aba"])
def test_bad_shapes_and_values_are_named(hum, which):
    m, d, q = hum
    call = CALLS[which]
    x = "a" if which == "rnea" else "tau"
    z = np.zeros(m.nv)
    with pytest.raises(ValueError, match=r"q must have shape \(35,\)"):
        call(m, d, q[:-1], z, z)
    with pytest.raises(ValueError, match=r"v must have shape \(31,\), got \(30,\)"):
        call(m, d, q, z[:-1], z)
    with pytest.raises(ValueError, match=rf"{x} must have shape"):
        call(m, d, q, z, np.zeros((31, 1)))
    with pytest.raises(ValueError, match="fext .*must have shape"):
        call(m, d, q, z, z, np.zeros((m.njoints, 3)))
    bad = z.copy()
    bad[4] = np.nan
    with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[4\]"):
        call(m, d, q, bad, z)
    with pytest.raises(ValueError, match=rf"{x} has non-finite entries at indices \[4\]"):
        call(m, d, q, z, bad)
    f = np.zeros((m.njoints, 6))
    f[2, 1] = np.inf
    with pytest.raises(ValueError, match=r"fext \(one LOCAL .*\) has non-finite"):
        call(m, d, q, z, z, f)
    qb = q.copy()
    qb[3:7] = [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="quaternion of joint 'root_joint'.*normalize"):
        call(m, d, qb, z, z)
    with pytest.raises(ValueError, match="not created by"):
        call(m, fd.samples.humanoid().create_data(), q, z, z)
    with pytest.raises(TypeError, match="must be a real"):
        call(m, d, q, z.astype(complex), z)


def test_gravity_and_static_derivatives_check_their_inputs(hum):
    m, d, q = hum
    qb = q.copy()
    qb[0] = np.nan
    with pytest.raises(ValueError, match=r"q has non-finite entries at indices \[0\]"):
        fd.compute_generalized_gravity_derivatives(m, d, qb)
    with pytest.raises(ValueError, match="fext .*must have shape"):
        fd.compute_static_torque_derivatives(m, d, q, np.zeros(6))
    with pytest.raises(TypeError, match="fastdyn.Model"):
        fd.compute_generalized_gravity_derivatives(None, d, q)


def test_overflow_is_reported(hum):
    m, d, q = hum
    v = np.full(m.nv, 1e200)
    with pytest.raises(fd.NumericalOverflowError):
        fd.compute_rnea_derivatives(m, d, q, v, np.zeros(m.nv))


def test_massless_subtree_is_reported():
    b = fd.ModelBuilder("massless")
    j1 = b.add_joint("j1", "revolute_z")
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    b.add_joint("j2", "revolute_x", j1, (np.eye(3), (0.2, 0, 0)))  # carries nothing
    m = b.build()
    with pytest.raises(fd.SingularMassMatrixError, match="j2"):
        fd.compute_aba_derivatives(m, m.create_data(), np.zeros(2), np.zeros(2), np.zeros(2))


def test_far_from_the_origin():
    """A floating robot 10 km away has the same derivatives (the world-frame passes work at
    the first joint's origin, as ABA and CRBA, and keep their digits), and the placements they
    leave in Data are the world's."""
    m, pm = get_pair("solo12")
    d, ref = m.create_data(), m.create_data()
    rng = np.random.default_rng(7)
    q, v, a = random_state(pm, rng)
    far = q.copy()
    far[:3] += 1e4
    fd.forward_kinematics(m, ref, far)
    j = m.njoints - 1
    for f in (fd.compute_rnea_derivatives, fd.compute_aba_derivatives):
        near = [x.copy() for x in f(m, d, q, v, a)]
        for x, y in zip(f(m, d, far, v, a), near):
            close(x, y, 1e-10)
        close(fd.joint_placement(m, d, j), fd.joint_placement(m, ref, j), 1e-12)
