"""Jacobians, their time variation and frame motion: Pinocchio, finite differences, identities."""

import numpy as np
import pytest

pytest.importorskip("pinocchio")  # compares with Pinocchio at import time

import fastdyn as fd
from conftest import close, pin, random_state
from fastdyn.frames import LOCAL, LOCAL_WORLD_ALIGNED, WORLD
from fastdyn.jacobians import (compute_joint_jacobians, compute_joint_jacobians_time_variation,
                               get_frame_acceleration, get_frame_classical_acceleration,
                               compute_frame_jacobian, frame_jacobian_time_variation, get_frame_velocity,
                               compute_joint_jacobian)
from fastdyn.kernels.joints import codes

REFS = [(LOCAL, pin.LOCAL), (WORLD, pin.WORLD), (LOCAL_WORLD_ALIGNED, pin.LOCAL_WORLD_ALIGNED)]


def constant_s_columns(m):
    """Dofs of joints whose S is constant in the joint frame: there Pinocchio's dJ (which
    omits dS/dt) is exact; spherical_zyx and universal columns are checked by differences."""
    keep = np.ones(m.nv, bool)
    for r in m.jnt[1:]:
        if int(r["type"]) in (codes.SPHERICAL_ZYX, codes.UNIVERSAL):
            keep[r["idx_v"]:r["idx_v"] + r["nv"]] = False
    return keep


def test_joint_jacobians_match_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(0)
    for _ in range(3):
        q, _, _ = random_state(pm, rng)
        close(compute_joint_jacobians(m, d, q), pin.computeJointJacobians(pm, pd, q))
        for j in range(m.njoints):
            for ref, pref in REFS:
                close(compute_joint_jacobian(m, d, q, j, ref), pin.getJointJacobian(pm, pd, j, pref))


def test_frame_jacobians_match_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, _, _ = random_state(pm, np.random.default_rng(1))
    pin.computeJointJacobians(pm, pd, q)
    pin.updateFramePlacements(pm, pd)
    for f in range(m.nframes):
        for ref, pref in REFS:
            close(compute_frame_jacobian(m, d, q, f, ref), pin.getFrameJacobian(pm, pd, f, pref))
        close(d.oMf[f, 9:], pd.oMf[f].translation)
    name = m.frame_names[-1]
    close(compute_frame_jacobian(m, d, q, name, WORLD),
          pin.getFrameJacobian(pm, pd, m.nframes - 1, pin.WORLD))


def test_frame_jacobian_is_derivative_of_placement(pair):
    """LOCAL column k = d/de log6(oMf(q)^-1 oMf(q (+) e e_k)) at e = 0 (central difference)."""
    m, pm = pair
    d = m.create_data()
    q, _, _ = random_state(pm, np.random.default_rng(2))
    f = m.nframes - 1
    J = compute_frame_jacobian(m, d, q, f, LOCAL).copy()
    M0 = pin.SE3(fd.frame_placement(m, d, f))
    h = 1e-6
    fdJ = np.zeros_like(J)
    for k in range(m.nv):
        e = np.zeros(m.nv)
        e[k] = h
        fd.forward_kinematics(m, d, pin.integrate(pm, q, e))
        Mp = pin.SE3(fd.frame_placement(m, d, f))
        fd.forward_kinematics(m, d, pin.integrate(pm, q, -e))
        Mm = pin.SE3(fd.frame_placement(m, d, f))
        fdJ[:, k] = (pin.log6(M0.actInv(Mp)).vector - pin.log6(M0.actInv(Mm)).vector) / (2 * h)
    close(J, fdJ, 1e-7)


def test_jacobian_time_variation(pair):
    """Pinocchio on constant-S columns; central differences of J along v on every column."""
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, v, _ = random_state(pm, np.random.default_rng(3))
    keep = constant_s_columns(m)
    dJ = compute_joint_jacobians_time_variation(m, d, q, v).copy()
    pin.computeJointJacobiansTimeVariation(pm, pd, q, v)
    pin.updateFramePlacements(pm, pd)
    close(d.J, pd.J)
    close(dJ[:, keep], pd.dJ[:, keep])
    h = 1e-6
    qp, qm = pin.integrate(pm, q, h * v), pin.integrate(pm, q, -h * v)
    Jp = compute_joint_jacobians(m, d, qp).copy()  # views into d: copy before the next call
    close(dJ, (Jp - compute_joint_jacobians(m, d, qm)) / (2 * h), 1e-7)
    for f in (1, m.nframes - 1):
        for ref, pref in REFS:
            dJf = frame_jacobian_time_variation(m, d, q, v, f, ref).copy()
            close(dJf[:, keep], pin.getFrameJacobianTimeVariation(pm, pd, f, pref)[:, keep])
            Jp = compute_frame_jacobian(m, d, qp, f, ref).copy()
            fdJ = (Jp - compute_frame_jacobian(m, d, qm, f, ref)) / (2 * h)
            close(dJf, fdJ, 1e-7)


def test_frame_motion_matches_pinocchio_and_jacobians(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, v, a = random_state(pm, np.random.default_rng(4))
    fd.forward_kinematics(m, d, q, v, a)
    pin.forwardKinematics(pm, pd, q, v, a)
    pin.updateFramePlacements(pm, pd)
    for f in range(m.nframes):
        for ref, pref in REFS:
            close(get_frame_velocity(m, d, f, ref), pin.getFrameVelocity(pm, pd, f, pref).vector)
            close(get_frame_acceleration(m, d, f, ref),
                  pin.getFrameAcceleration(pm, pd, f, pref).vector)
            close(get_frame_classical_acceleration(m, d, f, ref),
                  pin.getFrameClassicalAcceleration(pm, pd, f, pref).vector)
    # x = J v and d/dt x = J a + dJ v (spatial in LOCAL/WORLD, classical in LWA)
    f = m.nframes - 1
    x = {ref: (get_frame_velocity(m, d, f, ref), get_frame_acceleration(m, d, f, ref),
               get_frame_classical_acceleration(m, d, f, ref)) for ref, _ in REFS}
    for ref, _ in REFS:
        dJ = frame_jacobian_time_variation(m, d, q, v, f, ref).copy()
        J = compute_frame_jacobian(m, d, q, f, ref)
        close(J @ v, x[ref][0])
        close(J @ a + dJ @ v, x[ref][2] if ref == LOCAL_WORLD_ALIGNED else x[ref][1], 1e-9)


def test_frame_motion_needs_fresh_kinematics():
    m = fd.samples.manipulator()
    d = m.create_data()
    q = np.zeros(m.nq)
    with pytest.raises(RuntimeError, match="velocities"):
        get_frame_velocity(m, d, "tool0")
    fd.forward_kinematics(m, d, q, q)
    get_frame_velocity(m, d, "tool0")
    with pytest.raises(RuntimeError, match="accelerations"):
        get_frame_acceleration(m, d, "tool0")
    compute_joint_jacobians(m, d, q)  # new placements: the old velocities are stale
    with pytest.raises(RuntimeError, match="velocities"):
        get_frame_velocity(m, d, "tool0")


def test_bad_frames_joints_and_references():
    m = fd.samples.manipulator()
    d = m.create_data()
    q = np.zeros(m.nq)
    with pytest.raises(KeyError, match="no frame named 'nope'"):
        compute_frame_jacobian(m, d, q, "nope")
    with pytest.raises(IndexError, match="out of range"):
        compute_frame_jacobian(m, d, q, m.nframes)
    with pytest.raises(IndexError, match="out of range"):
        compute_frame_jacobian(m, d, q, -1)
    with pytest.raises(KeyError, match="no joint named"):
        compute_joint_jacobian(m, d, q, "elbow_of_nothing")
    with pytest.raises(IndexError):
        compute_joint_jacobian(m, d, q, m.njoints)
    for bad in (3, -1, "LOCAL", 1.0, None, True, pin.LOCAL):
        with pytest.raises(ValueError, match="reference must be"):
            compute_frame_jacobian(m, d, q, "tool0", bad)
    with pytest.raises(ValueError, match="Pinocchio"):
        compute_frame_jacobian(m, d, q, "tool0", pin.WORLD)
    assert compute_frame_jacobian(m, d, q, "tool0", np.int64(1)).shape == (6, m.nv)
    out = np.zeros((6, m.nv))
    assert compute_frame_jacobian(m, d, q, "tool0", out=out) is out
    with pytest.raises(ValueError, match="out must be"):
        compute_frame_jacobian(m, d, q, "tool0", out=np.zeros((6, m.nv + 1)))


def test_kernels_callable_from_user_njit():
    """The kernels are plain @njit functions: a user loop calls them with Data's arrays."""
    import numba

    from fastdyn.kernels.algorithms import jacobian

    @numba.njit
    def sweep(jnt, prm, frm, Q, f, ws, oMf, J, out, tip):
        for r in range(Q.shape[0]):
            jacobian.frame_jacobian(jnt, prm, frm, Q[r], f, LOCAL_WORLD_ALIGNED, ws, oMf, J)
            out[r] = J
            tip[r] = oMf[f, 9:]

    m = fd.samples.manipulator()
    d = m.create_data()
    f = m.frame_id("tool0")
    Q = np.random.default_rng(5).uniform(-1, 1, (4, m.nq))
    out, tip = np.zeros((4, 6, m.nv)), np.zeros((4, 3))
    sweep(m.jnt, m.prm, m.frm, Q, f, d.ws, d.oMf, np.zeros((6, m.nv)), out, tip)
    for r in range(4):
        close(out[r], compute_frame_jacobian(m, d, Q[r], f, LOCAL_WORLD_ALIGNED))
        close(tip[r], fd.frame_placement(m, d, f)[:3, 3])
