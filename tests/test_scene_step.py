"""Scene.step's prepared path (fastdyn/sim/one_step.py) follows the scene it belongs to: an
option edited between steps, a geometry added, another scene of another kind in the same
process. The oracle of each step is a fresh scene's one-step rollout, the rollout machinery
that is tested against Pinocchio and MuJoCo elsewhere (tests/test_simulator.py)."""

import numpy as np
import pytest

import fastdyn as fd
import fastdyn.models as fm


@pytest.fixture(scope="module")
def arm():
    model = fm.load("ur5")
    q = fd.random_configuration(model, 3)
    v = np.random.default_rng(3).normal(size=model.nv)
    return model, q, v


def _rollout_step(scene, q, v, tau):
    out = scene.rollout(q[None], v[None], 1, torques=tau[None, None], record=())
    return out.final_q[0], out.final_v[0]


def _free_body(name: str, inertia: float):
    """A 1 kg free body (joint ``name``) with an inertia of ``inertia`` about each axis."""
    b = fd.ModelBuilder(name)
    b.add_joint(name, "freeflyer")
    b.add_body(name, 1.0, inertia=np.eye(3) * inertia)
    return b.build()


def test_an_option_edited_between_steps_is_the_next_steps(arm):
    """scene.dt changed after a step: the next step takes the new dt (the prepared options
    are compared with the scene's in the kernel), equal to a rollout with it bit for bit."""
    model, q, v = arm
    scene = fd.Scene(model, dt=1e-3, ground=False)
    tau = np.linspace(-1.0, 1.0, model.nv)
    scene.step(q, v, tau)
    scene.dt = 4e-3
    qa, va = scene.step(q, v, tau)
    qb, vb = _rollout_step(fd.Scene(model, dt=4e-3, ground=False), q, v, tau)
    assert np.array_equal(qa, qb) and np.array_equal(va, vb)


def test_a_geom_scene_after_a_scene_without_geoms_collides(arm):
    """The two kinds of scene compile two entry points: a box dropped on the ground in the
    same process as a contact-free arm's steps is caught by the ground (it would fall through
    if the geom scene ran the geom-less entry point)."""
    model, q, v = arm
    fd.Scene(model, ground=False).step(q, v)
    box = _free_body("free", 1e-3)
    scene = fd.Scene(box, dt=1e-3)
    scene.add_geom("free", "box", size=(0.05, 0.05, 0.05))
    qb = fd.neutral(box)
    qb[2] = 0.05 - 1e-4  # 0.1 mm into the ground
    vb = np.zeros(box.nv)
    for _ in range(50):
        qb, vb = scene.step(qb, vb)
    assert abs(qb[2] - 0.05) < 2e-3 and len(scene.geom_contacts.dist) == 4


def test_a_sphere_added_between_steps_enters_the_next_step():
    """add_sphere replaces the scene's sphere table: the next step is prepared again and
    carries the new contact (the ball rests on the ground instead of falling)."""
    ball = _free_body("free", 4e-4)
    scene = fd.Scene(ball, dt=1e-3)
    q, v = fd.neutral(ball), np.zeros(ball.nv)
    q[2] = 0.1
    scene.step(q, v)
    assert scene.contact_forces.shape == (0, 3)
    scene.add_sphere("free", 0.1)
    q1, v1 = scene.step(q, v)
    # the ball touches: the ground holds its weight, m g dt = 9.81e-3 N s
    assert scene.contact_forces.shape == (1, 3)
    assert abs(scene.contact_forces[0, 2] - 9.81) < 1e-6 and abs(v1[2]) < 1e-9


def test_the_step_returns_its_own_arrays_and_names_bad_inputs(arm):
    """The returned (q, v) are the caller's to keep (the next step does not overwrite them);
    a quaternion off the unit sphere is named with its joint; a wrong size names the shape."""
    model, q, v = arm
    scene = fd.Scene(model, ground=False)
    assert scene.contact_forces is None and scene.stats is None  # no step yet
    q1, v1 = scene.step(q, v)
    keep = q1.copy()
    scene.step(q1, v1)
    assert np.array_equal(q1, keep)
    with pytest.raises(ValueError, match=r"shape \(6,\)"):
        scene.step(q, v[:5])
    free = _free_body("base", 1.0)
    qf = fd.neutral(free)
    qf[3:7] = (0.5, 0.5, 0.5, 0.6)
    with pytest.raises(ValueError, match=r"quaternion of joint 'base'"):
        fd.Scene(free).step(qf, np.zeros(6))
