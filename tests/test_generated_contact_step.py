"""The generated free velocity of a constrained step (fastdyn/codegen/free_velocity.py) and
the rollouts that take it (Scene.rollout(..., generated=gen) on a scene with contacts).

The kernel is checked against the generic step's own sequence (time_step.free_velocity: CRBA,
RNEA, tree-sparse factorization, solve), whose pieces are checked against Pinocchio elsewhere
(test_crba, test_cholesky, test_simulator): U at its ancestor entries, D, v_free, and the
placements and world Jacobian columns the rows read, at random states with random damping
and rotor inertias, on a floating base (joint 1's frame), a fixed base and a tree with two
roots (the world's axes); a pivot that is not positive is named at the same dof. The
rollouts are checked against the generic rollouts of the same scene (they differ by
round-off), for the model itself and for a batch of robots."""

import numpy as np
import pytest

import fastdyn as fd
from fastdyn import codegen
from fastdyn.kernels import layout as L
from fastdyn.kernels.contact import time_step as ts
from fastdyn.sim import standing_scene
from conftest import close, get_pair

_made = {}


def two_roots():
    """A tree whose joint 1 is not the universe's only child (world axes at joint 1)."""
    b = fd.ModelBuilder("two_roots")
    for name, axis, at in (("a", "revolute_x", (0.1, 0.2, 0.3)),
                           ("b", "revolute_y", (0.5, -0.2, 0.1))):
        j = b.add_joint(name, axis, 0, (np.eye(3), np.array(at)))
        b.add_body(j, 1.3, (0.1, 0.05, -0.02), np.diag([0.02, 0.03, 0.04]))
        k = b.add_joint(name + "2", "revolute_z", j, (np.eye(3), np.array([0.0, 0.3, 0.0])))
        b.add_body(k, 0.7, (0.0, 0.1, 0.0), np.diag([0.01, 0.01, 0.02]))
    return b.build()


def made(name):
    """(model, its generated free velocity): the demo quadruped (the rollouts' scene, so one
    module serves both), UR5 with random rotor inertias, the two-root tree."""
    if name not in _made:
        if name == "quadruped":
            _made["scene"] = standing_scene()
            m = _made["scene"][0].model
        else:
            m = two_roots() if name == "two_roots" else get_pair(name)[0]
            prm = np.array(m.prm)
            prm[1:, L.P_ARMATURE:L.P_ARMATURE + 6] = \
                np.random.default_rng(7).uniform(0.0, 0.1, (m.njoints - 1, 6))
            m = m.with_parameters(prm)
        _made[name] = m, codegen.generate(m, algorithms=("free_velocity",))
    return _made[name]


def generic(m, prm, q, v, tau, dt):
    """The generic step's (code, U, D, vf, ws)."""
    nv = m.nv
    ws = L.workspace(m.jnt)
    M, U, D, h, zero, rhs, vf = (np.zeros((nv, nv)), np.zeros((nv, nv)), *np.zeros((5, nv)))
    code = ts.free_velocity(m.jnt, prm, m.dof, q, v, tau.copy(), np.zeros((0, 6)), dt, ws, M, U,
                            D, h, zero, rhs, vf)
    return code, U, D, vf, ws


def generated(kernel, m, prm, q, v, tau, dt):
    ws = L.workspace(m.jnt)
    U, D, vf = np.full((m.nv, m.nv), np.nan), np.zeros(m.nv), np.zeros(m.nv)
    code = kernel(prm, q, v, tau.copy(), dt, ws, U, D, vf)
    return code, U, D, vf, ws


def ancestors(m):
    """(row, col) of U's ancestor entries: row an ancestor dof of col."""
    out = []
    for k in range(m.nv):
        j = int(m.dof[k]["parent"])
        while j >= 0:
            out.append((j, k))
            j = int(m.dof[j]["parent"])
    return tuple(np.array(out, dtype=np.int64).reshape(-1, 2).T)


@pytest.mark.parametrize("name, variant", [("quadruped", "own"), ("quadruped", "prm"),
                                           ("ur5", "own"), ("two_roots", "prm")])
def test_the_generated_free_velocity_is_the_generic_one(name, variant):
    m, gen = made(name)
    kernel = getattr(gen.kernels, "free_velocity_" + variant)
    prm = np.array(m.prm)
    prm[1:, L.P_DAMPING:L.P_DAMPING + 6] = \
        np.random.default_rng(5).uniform(0.0, 2.0, (m.njoints - 1, 6))  # read at run time
    if variant == "prm":  # another robot: every dynamic parameter is read from the table
        prm[1:, L.P_PI:L.P_PI + 10] = fd.parameter_batch(
            m, pi=fd.sample_parameters(m, 1, seed=3, mass=0.3))[0][1:, L.P_PI:L.P_PI + 10]
        prm[1:, L.P_ARMATURE:L.P_ARMATURE + 6] += 0.05
        prm[0, L.P_GRAVITY:L.P_GRAVITY + 3] = [0.3, -1.0, -9.0]
    rng = np.random.default_rng(11)
    anc = ancestors(m)
    for _ in range(5):
        q = fd.random_configuration(m, rng)
        v, tau = rng.normal(size=(2, m.nv))
        dt = rng.uniform(1e-4, 1e-2)
        c0, U0, D0, vf0, ws0 = generic(m, prm, q, v, tau, dt)
        c1, U1, D1, vf1, ws1 = generated(kernel, m, prm, q, v, tau, dt)
        assert c0 == c1 == -1
        close(U1[anc], U0[anc], 1e-11)
        close(D1, D0, 1e-11)
        close(vf1, vf0, 1e-11)
        close(ws1[1:, L.OM:L.OM + 12], ws0[1:, L.OM:L.OM + 12], 1e-12)
        for i in range(1, m.njoints):
            n = 6 * m.jnt[i]["nv"]
            close(ws1[i, L.OJ:L.OJ + n], ws0[i, L.OJ:L.OJ + n], 1e-12)
    assert np.abs(vf1 - v).max() > 1e-3  # the step moved


def test_a_pivot_that_is_not_positive_is_named_at_the_generic_dof():
    """Damping negative enough makes M + dt diag(damping) indefinite: both name the same dof
    (the largest whose pivot is not positive)."""
    m, gen = made("quadruped")
    prm = np.array(m.prm)
    prm[4, L.P_DAMPING + 0] = -1e6  # a front leg's knee or hip, not the last dof
    q = fd.neutral(m)
    v, tau = np.zeros(m.nv), np.zeros(m.nv)
    c0 = generic(m, prm, q, v, tau, 1e-3)[0]
    c1 = generated(gen.kernels.free_velocity_own, m, prm, q, v, tau, 1e-3)[0]
    assert c0 == c1 == int(m.jnt[4]["idx_v"])


@pytest.fixture(scope="module")
def quadruped():
    gen = made("quadruped")[1]
    scene, q, kp, kd = _made["scene"]
    return scene, q, kp, kd, gen


def test_a_contact_rollout_on_the_generated_kernel_is_the_generic_one(quadruped):
    """Dropped from 5 cm under PD: it lands and stands; every state, torque and contact force
    as the generic rollout's, to round-off."""
    scene, q, kp, kd, gen = quadruped
    Q0 = np.tile(q, (2, 1))
    Q0[:, 2] += [0.05, 0.02]
    V0 = np.zeros((2, scene.model.nv))
    kw = dict(kp=kp, kd=kd, record=("q", "v", "tau", "contacts"))
    a = scene.rollout(Q0, V0, 300, **kw)
    b = scene.rollout(Q0, V0, 300, generated=gen, **kw)
    assert list(a.status) == list(b.status) == ["ok", "ok"]
    assert np.abs(a.contact_forces[:, -1, :, 2]).sum() > 0  # on its feet
    close(b.q, a.q, 1e-9)
    close(b.v, a.v, 1e-7)
    close(b.tau, a.tau, 1e-7)
    close(b.contact_forces, a.contact_forces, 1e-7)
    assert not np.array_equal(a.v, b.v)  # another kernel ran


def test_a_batch_of_robots_takes_the_table_kernel(quadruped):
    scene, q, kp, kd, gen = quadruped
    m = scene.model
    PRM = fd.parameter_batch(m, pi=fd.sample_parameters(m, 2, seed=5, mass=0.2))
    Q0 = np.tile(q, (2, 1))
    V0 = np.zeros((2, m.nv))
    a = scene.rollout(Q0, V0, 200, prm=PRM, kp=kp, kd=kd, record=("q", "v"))
    b = scene.rollout(Q0, V0, 200, prm=PRM, kp=kp, kd=kd, record=("q", "v"), generated=gen)
    close(b.q, a.q, 1e-9)
    close(b.v, a.v, 1e-7)
    assert np.abs(a.q[0, -1] - a.q[1, -1]).max() > 1e-6  # the robots differ


def test_a_robot_with_other_placements_is_refused(quadruped):
    """Kernels generated with free_velocity alone still hold the placements as literals: a
    prm robot with another one is refused by name, never stepped with the baked-in ones."""
    scene, q, kp, kd, gen = quadruped
    m = scene.model
    PRM = np.array(fd.parameter_batch(m, gravity=np.array([[0.0, 0.0, -9.81]])))
    L.named(PRM)["p"][0, 3, 2] += 0.05
    with pytest.raises(ValueError, match=f"robot 0 has another 'p' for joint "
                                         f"'{m.joint_names[3]}'.*generated=None"):
        scene.rollout(q, np.zeros(m.nv), 5, prm=PRM, kp=kp, kd=kd, generated=gen)
