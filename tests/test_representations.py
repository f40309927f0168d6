"""Floating-base velocity representations: the same energy, forces and motion in all three."""

import numpy as np
import pytest

import fastdyn as fd
from conftest import close, get_pair, pin, random_state
from fastdyn.frames import LOCAL_WORLD_ALIGNED, WORLD
from fastdyn.jacobians import compute_frame_jacobian, get_frame_velocity
from fastdyn.representations import (BODY_FIXED, INERTIAL, MIXED, bias, convert_velocity,
                                     coriolis_matrix, forward_dynamics, jacobian, mass_matrix,
                                     transform)

REPS = (BODY_FIXED, MIXED, INERTIAL)


@pytest.fixture(params=["humanoid", "tree_free"], scope="module")
def floating(request):
    return get_pair(request.param)


def _tdot_v(m, d, q, v_rep, rep):
    """T' v_R by central differences of T along the motion q' = q (T v_R)."""
    h = 1e-6
    vb = transform(m, d, q, rep) @ v_rep
    pm = get_pair("humanoid")[1] if m.name == "humanoid" else get_pair("tree_free")[1]
    Tp = transform(m, d, pin.integrate(pm, q, h * vb), rep).copy()
    Tm = transform(m, d, pin.integrate(pm, q, -h * vb), rep)
    return (Tp - Tm) / (2 * h) @ v_rep


def test_velocity_meaning(floating):
    """MIXED base velocity = [world velocity of the base origin; world angular velocity],
    INERTIAL = the base twist in world coordinates at the world origin."""
    m, pm = floating
    d, pd = m.create_data(), pm.createData()
    q, v, _ = random_state(pm, np.random.default_rng(0))
    pin.forwardKinematics(pm, pd, q, v)
    ov = pd.oMi[1].act(pd.v[1])
    vm = convert_velocity(m, d, q, v, BODY_FIXED, MIXED)
    close(vm[:3], pd.oMi[1].rotation @ pd.v[1].linear)
    close(vm[3:6], ov.angular)
    close(vm[6:], v[6:])
    close(convert_velocity(m, d, q, v, BODY_FIXED, INERTIAL)[:6], ov.vector)
    close(convert_velocity(m, d, q, vm, MIXED, BODY_FIXED), v)
    close(transform(m, d, q, BODY_FIXED), np.eye(m.nv))


def test_energy_jacobians_and_mass_matrix(floating):
    m, pm = floating
    d = m.create_data()
    q, v, _ = random_state(pm, np.random.default_rng(1))
    T0 = v @ fd.crba(m, d, q) @ v
    fd.forward_kinematics(m, d, q, v)
    x = get_frame_velocity(m, d, m.nframes - 1, LOCAL_WORLD_ALIGNED)
    for rep in REPS:
        vr = convert_velocity(m, d, q, v, BODY_FIXED, rep)
        T = transform(m, d, q, rep).copy()
        Mr = mass_matrix(m, d, q, rep).copy()
        close(vr @ Mr @ vr, T0)
        close(Mr, T.T @ fd.crba(m, d, q) @ T)
        assert np.array_equal(Mr, Mr.T)
        J = jacobian(m, d, q, m.nframes - 1, LOCAL_WORLD_ALIGNED, rep)
        close(J @ vr, x)
    # the "doubly mixed" Jacobian of the base itself is the identity on the base block
    Jb = jacobian(m, d, q, m.joint_names[1], LOCAL_WORLD_ALIGNED, MIXED)
    close(Jb[:, :6], np.eye(6))
    close(jacobian(m, d, q, m.joint_names[1], WORLD, INERTIAL)[:, :6], np.eye(6))


def test_bias_and_coriolis(floating):
    """h_R = T^T (h + M T' v_R), C_R v_R = h_R - g_R, dM_R/dt - 2 C_R skew."""
    m, pm = floating
    d = m.create_data()
    q, v, _ = random_state(pm, np.random.default_rng(2))
    M = fd.crba(m, d, q).copy()
    h = fd.non_linear_effects(m, d, q, v).copy()
    for rep in REPS:
        vr = convert_velocity(m, d, q, v, BODY_FIXED, rep)
        T = transform(m, d, q, rep).copy()
        tdv = _tdot_v(m, d, q, vr, rep)
        hr = bias(m, d, q, vr, rep).copy()
        close(hr, T.T @ (h + M @ tdv), 1e-7)
        gr = bias(m, d, q, np.zeros(m.nv), rep).copy()
        Cr = coriolis_matrix(m, d, q, vr, rep).copy()
        close(Cr @ vr, hr - gr)
        eps = 1e-6
        vb = T @ vr
        Mp = mass_matrix(m, d, pin.integrate(pm, q, eps * vb), rep).copy()
        Mdot = (Mp - mass_matrix(m, d, pin.integrate(pm, q, -eps * vb), rep)) / (2 * eps)
        N = Mdot - 2 * Cr
        close(N + N.T, np.zeros_like(N), 1e-6)
    close(coriolis_matrix(m, d, q, v, BODY_FIXED), coriolis_matrix(m, d, q, v, "body_fixed"))


def _pinocchio_T(pm, q, rep):
    """T = diag(^B X_F, I) from Pinocchio's placement of the free-flyer, not fastdyn's."""
    pd = pm.createData()
    pin.forwardKinematics(pm, pd, q)
    oMb = pd.oMi[1]
    T = np.eye(pm.nv)
    if rep == MIXED:
        T[:3, :3] = T[3:6, 3:6] = oMb.rotation.T
    elif rep == INERTIAL:
        T[:6, :6] = oMb.inverse().action
    return T


def test_bias_takes_external_forces_as_pinocchio(floating):
    """h_R with LOCAL forces fext on every joint: the body-fixed one is Pinocchio's
    rnea(q, v, 0, fext), and in every representation h_R(fext) - h_R(0) = -T^T sum J^T fext
    = T^T (rnea(q, v, 0, fext) - rnea(q, v, 0)), T from Pinocchio's base placement."""
    m, pm = floating
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(7)
    q, v, _ = random_state(pm, rng)
    fext = rng.normal(size=(m.njoints, 6)) * 3
    forces = [pin.Force(f) for f in fext]
    zero = np.zeros(m.nv)
    h_f = pin.rnea(pm, pd, q, v, zero, forces).copy()
    h_0 = pin.rnea(pm, pd, q, v, zero).copy()
    close(bias(m, d, q, v, BODY_FIXED, fext), h_f)
    for rep in REPS:
        T = _pinocchio_T(pm, q, rep)
        vr = np.linalg.solve(T, v)
        change = bias(m, d, q, vr, rep, fext).copy() - bias(m, d, q, vr, rep).copy()
        close(change, T.T @ (h_f - h_0))


def test_equations_of_motion_agree(floating):
    """ABA's body-fixed acceleration equals T v_R' + T' v_R with v_R' from the EoM in R."""
    m, pm = floating
    d = m.create_data()
    rng = np.random.default_rng(3)
    q, v, _ = random_state(pm, rng)
    tau = rng.normal(size=m.nv)
    tau[:6] = 0.0
    ab = fd.aba(m, d, q, v, tau).copy()
    for rep in REPS:
        vr = convert_velocity(m, d, q, v, BODY_FIXED, rep)
        T = transform(m, d, q, rep).copy()
        ar = forward_dynamics(m, d, q, vr, T.T @ tau, rep).copy()
        close(T @ ar + _tdot_v(m, d, q, vr, rep), ab, 1e-7)


def _rk4(step, q, v, dt, n, pm):
    """Classical RK4 on (q, v) with q' = q v_body (Lie-group stages through pin.integrate)."""
    for _ in range(n):
        k1v, k1a = step(q, v)
        k2v, k2a = step(pin.integrate(pm, q, 0.5 * dt * k1v), v + 0.5 * dt * k1a)
        k3v, k3a = step(pin.integrate(pm, q, 0.5 * dt * k2v), v + 0.5 * dt * k2a)
        k4v, k4a = step(pin.integrate(pm, q, dt * k3v), v + dt * k3a)
        q = pin.integrate(pm, q, dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v))
        v = v + dt / 6 * (k1a + 2 * k2a + 2 * k3a + k4a)
    return q, v


def test_rollout_same_motion():
    """0.1 s of free fall with joint damping torques: ABA in body-fixed vs the mixed EoM."""
    m, pm = get_pair("humanoid")
    d = m.create_data()
    q0, v0, _ = random_state(pm, np.random.default_rng(4))

    def body(q, v):
        tau = np.r_[np.zeros(6), -0.5 * v[6:]]
        return v, fd.aba(m, d, q, v, tau).copy()

    def mixed(q, vr):
        tau = np.r_[np.zeros(6), -0.5 * vr[6:]]
        T = transform(m, d, q, MIXED).copy()
        return T @ vr, forward_dynamics(m, d, q, vr, tau, MIXED).copy()

    qb, vb = _rk4(body, q0, v0, 1e-3, 100, pm)
    qm, vm = _rk4(mixed, q0, convert_velocity(m, d, q0, v0, BODY_FIXED, MIXED), 1e-3, 100, pm)
    # two different discretizations of one ODE: they agree to the integrators' error (~1e-9)
    close(pin.difference(pm, qb, qm), np.zeros(m.nv), 1e-7)
    close(convert_velocity(m, d, qm, vm, MIXED, BODY_FIXED), vb, 1e-7)
    assert np.abs(pin.difference(pm, q0, qb)).max() > 1e-2  # it did move


def test_representation_errors(floating):
    m, pm = floating
    d = m.create_data()
    q = pin.neutral(pm)
    with pytest.raises(ValueError, match="representation must be"):
        mass_matrix(m, d, q, "world")
    arm = fd.samples.manipulator()
    with pytest.raises(ValueError, match="free-flyer"):
        transform(arm, arm.create_data(), np.zeros(arm.nq), MIXED)
    J = compute_frame_jacobian(m, d, q, 1, WORLD).copy()
    close(jacobian(m, d, q, 1, WORLD, BODY_FIXED), J)
