"""Collision geoms on a Scene (fastdyn/sim/scene_geoms.py, kernels/contact/geom_rows.py):
boxes on the ground, on inclines, on other boxes, against closed forms and physical
identities (a body at rest carries its weight; Coulomb's stick/slide threshold and sliding
acceleration), and the input a scene refuses.

Tolerances quote the error reached, at most ~100x above it.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.errors import GeomError, TooManyContactsError

G = 9.81
DT = 1e-3
H = 0.1  # box half-size [m]
MASS = 1.5


def boxes(n: int, mass: float = MASS, h: float = H) -> fd.Model:
    """n free-flying boxes (joints b0..b{n-1}), each a solid cube of half-size h."""
    b = fd.ModelBuilder(f"boxes{n}", gravity=(0.0, 0.0, -G))
    inertia = np.eye(3) * mass * (2 * h) ** 2 / 6
    for i in range(n):
        b.add_joint(f"b{i}", "freeflyer")
        b.add_body(f"b{i}", mass, inertia=inertia)
    return b.build()


def pose(x=0.0, y=0.0, z=H, quat=(0.0, 0.0, 0.0, 1.0)):
    return np.array([x, y, z, *quat])


def box_scene(n: int = 1, **kw) -> fd.Scene:
    scene = fd.Scene(boxes(n), dt=DT, **kw)
    for i in range(n):
        scene.add_geom(f"b{i}", "box", size=(H, H, H), friction=kw.get("mu", 0.8))
    return scene


def run(scene, q, v, steps):
    for _ in range(steps):
        q, v = scene.step(q, v)
    return q, v


# --- a box at rest on the ground --------------------------------------------------------------

def test_a_box_on_the_ground_rests_on_its_four_corners_carrying_its_weight():
    """Four contacts at the bottom corners (the plane-box manifold), the normal forces summing
    to m g (the box at rest: Newton), equal by symmetry; the box stays where it was put."""
    scene = box_scene()
    q, v = run(scene, pose(), np.zeros(6), 200)
    c = scene.geom_contacts
    rows = np.flatnonzero(np.linalg.norm(c.force, axis=1) > 0)
    assert len(rows) == 4
    corners = np.sort(np.round(c.pos[rows, :2] / H).astype(int), axis=0)
    assert sorted(map(tuple, np.round(c.pos[rows, :2] / H).astype(int))) == \
        [(-1, -1), (-1, 1), (1, -1), (1, 1)], corners
    fz = c.force[rows, 2]
    assert abs(abs(fz.sum()) - MASS * G) < 2e-13  # reached: 1.8e-15 N
    # the split among four redundant rows is the regularization's, to PGS's tolerance
    assert np.ptp(np.abs(fz)) < 1e-6  # reached: 1.1e-8 N
    # at rest, 4.9e-13 m deep (erp's fixed point); the velocity 6e-15
    assert abs(q[2] - H) < 5e-11 and np.abs(q[:2]).max() < 5e-12 and np.abs(v).max() < 1e-12


def test_the_ground_force_points_up_on_the_box():
    """The force is on geom 1's body: the pair (box, plane) or (plane, box) as the table
    orders it; its normal points from geom 0 to geom 1: force . normal >= 0 always."""
    scene = box_scene()
    run(scene, pose(), np.zeros(6), 50)
    c = scene.geom_contacts
    assert np.all(np.einsum("ij,ij->i", c.force, c.normal) >= 0.0)
    assert np.all(np.abs(c.dist) < 1e-6)


# --- an incline: Coulomb's threshold and the sliding acceleration ---------------------------

def incline_scene(theta: float, mu: float) -> tuple[fd.Scene, np.ndarray]:
    """A box resting flat on the half-space with normal (sin th, 0, cos th) through 0."""
    n = np.array([np.sin(theta), 0.0, np.cos(theta)])
    scene = fd.Scene(boxes(1), dt=DT, ground=False)
    scene.add_halfspace(n, 0.0, mu=mu)
    scene.add_geom("b0", "box", size=(H, H, H), friction=mu)
    q = pose(*(H * n), quat=(0.0, np.sin(theta / 2), 0.0, np.cos(theta / 2)))
    return scene, q


@pytest.mark.parametrize("theta", [0.3, 0.45])
def test_a_box_on_an_incline_sticks_or_slides_as_coulomb_says(theta):
    """Below tan(th) = mu the box stays; above, it slides down with
    a = g (sin th - mu cos th) (closed form, a block on an incline)."""
    mu = 0.4  # atan(0.4) = 0.3805
    scene, q = incline_scene(theta, mu)
    down = np.array([np.cos(theta), 0.0, -np.sin(theta)])
    T = 300
    q1, v1 = run(scene, q, np.zeros(6), T)
    speed = (q1[:3] - q[:3]) @ down  # distance slid
    a = G * (np.sin(theta) - mu * np.cos(theta))
    if np.tan(theta) < mu:
        assert abs(speed) < 1e-9  # reached: 8.4e-12 m
    else:
        t = T * DT
        # semi-implicit Euler: s = a dt^2 T (T + 1) / 2 exactly for a constant a
        expected = a * DT * DT * T * (T + 1) / 2
        assert abs(speed - expected) < 5e-10 * expected, (speed, expected, t)  # 5e-12 reached


# --- body on body -------------------------------------------------------------------------------

def test_a_box_on_a_fixed_world_box_rests_there():
    """A world box (a table) under a free box: the body-world pair carries m g."""
    scene = box_scene()
    scene.add_geom(None, "box", size=(0.3, 0.3, 0.25), pos=(0.0, 0.0, 0.25))
    q0 = pose(z=0.5 + H)
    q, v = run(scene, q0, np.zeros(6), 300)
    c = scene.geom_contacts
    fz = np.abs(c.force[:, 2]).sum()
    assert c.geom.tolist() == [[0, 1]] * 4  # the free box on the table, not on the ground
    assert abs(fz - MASS * G) < 5e-13  # reached: 1.8e-15 N
    assert abs(q[2] - q0[2]) < 5e-11 and np.abs(v).max() < 1e-12  # 4.9e-13 m, 4.9e-15 m/s


def test_two_free_boxes_stacked_carry_one_and_two_weights():
    """Box 1 on box 0 on the ground: the box-box pair carries m g, the ground 2 m g (both
    bodies' Jacobians in the body-body rows)."""
    scene = box_scene(2)
    q0 = np.r_[pose(z=H), pose(z=3 * H)]
    q, v = run(scene, q0, np.zeros(12), 300)
    c = scene.geom_contacts
    body = np.array([sorted(p) == [0, 1] for p in c.geom])
    f_between = np.abs(c.force[body, 2]).sum()
    f_ground = np.abs(c.force[~body, 2]).sum()
    assert abs(f_between - MASS * G) < 1e-9  # reached: 7.4e-12 N
    assert abs(f_ground - 2 * MASS * G) < 5e-11  # reached: 4.5e-13 N
    assert np.abs(q - q0).max() < 2e-10 and np.abs(v).max() < 2e-11  # 1.5e-12, 2.3e-13


def test_a_stack_of_five_boxes_stands_still_for_two_seconds():
    """Five boxes stacked, 2 s: the stack has not drifted (bound 1e-9 m; reached 6.3e-12 m).
    ADMM: PGS stalls at its 200-sweep cap on 10 of the 2000 steps (redundant rows of light
    boxes on each other; it still holds the stack to 1.8e-8 m), as the Scene docstring says
    of stacks."""
    n = 5
    scene = box_scene(n, solver="admm")
    q0 = np.concatenate([pose(z=(2 * i + 1) * H) for i in range(n)])
    out = scene.rollout(q0, np.zeros(6 * n), 2000, record=("ncontacts",))
    assert out.status == "ok"
    assert np.abs(out.final_q - q0).max() < 1e-9
    assert np.abs(out.final_v).max() < 1e-9  # reached: 6.8e-12 m/s
    assert out.ncontacts.shape == (2000,) and out.ncontacts.min() >= 4 * n


# --- results and rollouts -------------------------------------------------------------------------

def test_a_rollout_is_the_steps_in_sequence():
    """Scene.rollout and repeated Scene.step are the same kernel on the same warm starts."""
    scene = box_scene(2)
    q0 = np.r_[pose(z=H + 0.01), pose(x=0.02, z=3 * H + 0.05,
                                         quat=(0.0, np.sin(0.1), 0.0, np.cos(0.1)))]
    out = scene.rollout(q0, np.zeros(12), 100, record=("q", "ncontacts"))
    scene.reset()
    q, v = q0, np.zeros(12)
    for k in range(100):
        q, v = scene.step(q, v)
    np.testing.assert_array_equal(q, out.final_q)
    assert out.ncontacts[-1] == len(scene.geom_contacts.dist)


# --- refusals -----------------------------------------------------------------------------------

def test_bad_geoms_are_refused_naming_the_geom_and_field():
    scene = box_scene()
    with pytest.raises(GeomError, match="geom 1: type: unknown geom type 'cube'"):
        scene.add_geom("b0", "cube", size=(H, H, H))
    with pytest.raises(GeomError, match="geom 1: size: sizes must be positive"):
        scene.add_geom("b0", "box", size=(H, 0.0, H))
    with pytest.raises(GeomError, match="geom 1: size: sizes must be positive"):
        scene.add_geom("b0", "sphere", size=(-1.0,))
    with pytest.raises((KeyError, ValueError), match="nowhere"):
        scene.add_geom("nowhere", "sphere", size=(0.1,))
    with pytest.raises(GeomError, match="geom 1: body: joint 7"):
        scene.add_geoms([dict(type="sphere", size=(0.1,), body=7)])
    assert len(scene.geom_names) == 1  # nothing half-added


def test_more_contacts_than_the_cap_are_never_dropped_silently():
    scene = box_scene(2, max_contacts=4)
    q0 = np.r_[pose(z=H), pose(z=3 * H)]
    with pytest.raises(TooManyContactsError, match=r"found 8 geom contacts.*max_contacts = 4"):
        scene.step(q0, np.zeros(12))
    with pytest.warns(fd.RolloutWarning, match="max_contacts >= 8"):
        out = scene.rollout(q0, np.zeros(12), 3)
    assert out.status == "too_many_contacts"


def test_step_derivatives_with_more_contacts_than_the_cap_say_so():
    """(Their values: tests/test_step_derivatives_geoms.py.)"""
    scene = box_scene(2, max_contacts=4)
    q0 = np.r_[pose(z=H), pose(z=3 * H)]
    with pytest.raises(TooManyContactsError, match=r"8 contacts.*max_contacts \(4\)"):
        scene.step_derivatives(q0, np.zeros(12))
    with pytest.raises(TooManyContactsError, match=r"row 0.*8 contacts"):
        fd.batch.step_derivatives(scene, q0[None], np.zeros((1, 12)))


@pytest.mark.parametrize("shape", ["sphere", "capsule"])
def test_a_ball_or_capsule_rolls_down_an_incline_as_the_closed_form(shape):
    """A solid ball (I = 2/5 m r^2) rolling without slipping (mu = 1 > 2/7 tan th): along the
    slope a = g sin th / (1 + I / (m r^2)) = 5/7 g sin th, the friction holding it
    (2/7) m g sin th; a capsule across the slope (its two end-sphere contacts) the same with
    its own inertia about its axis (here the ball's). Reached: 2.5e-11 relative."""
    r, m, th = 0.1, 1.0, 0.3
    b = fd.ModelBuilder("ball", gravity=(0.0, 0.0, -G))
    b.add_joint("b", "freeflyer")
    b.add_body("b", m, inertia=np.eye(3) * 0.4 * m * r * r)
    n = np.array([np.sin(th), 0.0, np.cos(th)])
    scene = fd.Scene(b.build(), dt=DT, ground=False)
    scene.add_halfspace(n, 0.0, mu=1.0)
    if shape == "sphere":
        scene.add_geom("b", "sphere", size=(r,), friction=1.0)
    else:  # its axis along y: across the slope
        scene.add_geom("b", "capsule", size=(r, 0.1), rot=[[1, 0, 0], [0, 0, -1], [0, 1, 0]],
                       friction=1.0)
    q0 = np.r_[r * n, 0.0, 0.0, 0.0, 1.0]
    T = 300
    q, _ = run(scene, q0, np.zeros(6), T)
    down = np.array([np.cos(th), 0.0, -np.sin(th)])
    a = 5.0 / 7.0 * G * np.sin(th)
    expected = a * DT * DT * T * (T + 1) / 2  # semi-implicit Euler under a constant a
    assert abs((q[:3] - q0[:3]) @ down - expected) < 2.5e-9 * expected
    f = -scene.geom_contacts.force.sum(axis=0)  # on the ball (geom 1 is the plane)
    assert len(scene.geom_contacts.dist) == (1 if shape == "sphere" else 2)
    assert abs(f @ n - m * G * np.cos(th)) < 5e-11  # reached: 6e-13 N
    assert abs(-(f @ down) - 2.0 / 7.0 * m * G * np.sin(th)) < 5e-10  # reached: 4.9e-12 N


def test_an_excluded_pair_passes_through_each_other():
    """exclude(b0, b1): the upper box falls through the lower one onto the ground, which it
    still meets (it lands on the ground's plane: its centre at h)."""
    scene = box_scene(2)
    scene.exclude("b0", "b1")
    q0 = np.r_[pose(z=H), pose(x=0.01, z=3 * H)]
    q, v = run(scene, q0, np.zeros(12), 600)
    assert abs(q[9] - H) < 1e-9 and abs(q[2] - H) < 1e-9  # both on the ground
    assert all(sorted(p) != [0, 1] for p in scene.geom_contacts.geom.tolist())


def test_warm_starts_follow_each_contact_by_its_pair_and_index():
    """Two boxes at rest, a heavy one (geom 0) and a light one (geom 1): when the heavy one
    is lifted away, the light one's contacts keep their warm-start slots (found by their
    keys, geom pair and manifold index: geom_rows.py) and their percussions; slots taken by
    contact order would hand them the heavy box's (twice as large)."""
    b = fd.ModelBuilder("two", gravity=(0.0, 0.0, -G))
    for name, m in (("heavy", 2 * MASS), ("light", MASS)):
        b.add_joint(name, "freeflyer")
        b.add_body(name, m, inertia=np.eye(3) * m * (2 * H) ** 2 / 6)
    scene = fd.Scene(b.build(), dt=DT)
    scene.add_geom("heavy", "box", size=(H, H, H))
    scene.add_geom("light", "box", size=(H, H, H))
    q, v = run(scene, np.r_[pose(x=-0.5), pose(x=0.5)], np.zeros(12), 50)
    before = scene._warm[0].copy()
    q[2] += 1.0  # the heavy box lifted off the ground
    scene.step(q, np.zeros(12))
    after = scene._warm[0]
    K = 32  # the default capacity of 2 geoms
    kept = np.flatnonzero(after[:3 * K])
    assert len(kept) >= 4 and sorted(p[0] for p in scene.geom_contacts.geom) == [1] * 4
    assert kept.min() == 12  # the light box's slots 4..7 (the heavy box had 0..3)
    # its normal percussions to 1e-9 relative (the heavy box's are twice them), the friction
    # ones (~1e-11 N s at rest) to 1e-14
    np.testing.assert_allclose(after[kept], before[kept], rtol=1e-6, atol=1e-13)


def test_parent_and_child_never_collide_other_bodies_do():
    """Two capsule links joined by a hinge overlap at the hinge: no contact (MuJoCo's
    parent-child filter); a third body's capsule over them does collide with both."""
    b = fd.ModelBuilder("arm", gravity=(0.0, 0.0, -G))
    b.add_joint("j1", "revolute", axis=(0, 1, 0))
    b.add_body("j1", 1.0, com=(0.0, 0.0, -0.25), inertia=np.eye(3) * 0.01)
    b.add_joint("j2", "revolute", 1, ((np.eye(3), (0.0, 0.0, -0.5))), axis=(0, 1, 0))
    b.add_body("j2", 1.0, com=(0.0, 0.0, -0.25), inertia=np.eye(3) * 0.01)
    b.add_joint("lid", "prismatic", axis=(1, 0, 0))
    b.add_body("lid", 1.0, inertia=np.eye(3) * 0.01)
    scene = fd.Scene(b.build(), ground=False)
    scene.add_geom("j1", "capsule", size=(0.05, 0.3), pos=(0.0, 0.0, -0.25))
    scene.add_geom("j2", "capsule", size=(0.05, 0.3), pos=(0.0, 0.0, -0.25))
    scene.add_geom("lid", "box", size=(0.1, 0.1, 0.1), pos=(0.0, 0.0, -0.5))
    scene.step(np.zeros(3), np.zeros(3))
    pairs = sorted({tuple(sorted(p)) for p in scene.geom_contacts.geom.tolist()})
    assert pairs == [(0, 2), (1, 2)]


def test_generated_rollouts_take_the_same_geom_rows():
    """rollout(generated=...): the generated free velocity, then the same geom rows (its
    placements and Jacobian columns to round-off). Two boxes settling on each other and the
    ground: the same contacts every step, the same states to round-off. (Where a manifold's point count flips by
    round-off, e.g. a tumbling box's edge landing on a face, the two part, as any two
    trajectories whose contact sets differ.)"""
    from fastdyn import codegen
    scene = box_scene(2)
    gen = codegen.generate(scene.model, algorithms=("free_velocity",))
    q0 = np.r_[pose(z=H + 0.002), pose(x=0.01, z=3 * H + 0.01)]
    a = scene.rollout(q0, np.zeros(12), 300, record=("q", "v", "ncontacts"))
    b = scene.rollout(q0, np.zeros(12), 300, record=("q", "v", "ncontacts"), generated=gen)
    assert a.status == b.status == "ok" and a.ncontacts.max() >= 8
    np.testing.assert_array_equal(a.ncontacts, b.ncontacts)
    np.testing.assert_allclose(b.q, a.q, rtol=0, atol=1e-12)  # reached: 1e-14 m
    # velocities: two converged solves of round-off-apart problems agree to the solver's
    # tolerance (1e-9 m/s); reached 6e-12
    np.testing.assert_allclose(b.v, a.v, rtol=0, atol=1e-9)


def test_sphere_contacts_are_unchanged_by_geoms_that_do_not_touch():
    """The quadruped standing on its foot spheres, with and without a world geom that never
    touches it: the same states and contact forces bit for bit (the geom rows come after the
    spheres' and their room changes none of the spheres' slots)."""
    from fastdyn.sim import standing_scene
    scene, q, kp, kd = standing_scene()
    a = scene.rollout(q, np.zeros(scene.model.nv), 200, kp=kp, kd=kd, record=("q", "contacts"))
    scene.add_geom(None, "box", size=(0.05, 0.05, 0.05), pos=(3.0, 0.0, 0.05))
    b = scene.rollout(q, np.zeros(scene.model.nv), 200, kp=kp, kd=kd,
                      record=("q", "contacts", "ncontacts"))
    assert np.abs(a.contact_forces).max() > 0 and b.ncontacts.max() == 0
    np.testing.assert_array_equal(a.q, b.q)
    np.testing.assert_array_equal(a.contact_forces, b.contact_forces)
