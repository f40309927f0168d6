"""A two-finger gripper (built with fd.ModelBuilder: a palm on a vertical prismatic lift, two
fingers on prismatic joints closing along y) closing on a free box on the ground and lifting
it by friction (issue 39's grasp scene; the robot and the object are one model, the fingers
and the box collision geoms of the scene). Closed forms: the box lifted with the gripper
(Coulomb: held while 2 mu F >= m (g + a)), the lift's height after n semi-implicit Euler
steps of constant acceleration a (x_n = a dt^2 n (n + 1) / 2), the friction on the box
carrying its weight and inertia; and a squeeze too weak to hold it: the box stays on the
ground, the fingers sliding along it with the force 2 mu F.

Rigid contacts, dt = 1 ms, mu = 0.8. Tolerances quote the error reached, at most ~100x above
it."""

from __future__ import annotations

import numpy as np
import pytest

import fastdyn as fd

G, DT, MU = 9.81, 1e-3, 0.8
MP, MF, MB = 1.0, 0.1, 0.2  # palm, finger, box masses [kg]
HB = 0.03  # the box's half-size [m]
FINGER = (0.01, 0.02, 0.02)  # half-sizes, thin along y
GAP = 0.005  # [m] between each finger and the box at the start
Z0 = 0.1  # the palm above the box's center
GRASP, T = 300, 1500  # the lift starts at step GRASP
EXTRA = 1.0  # [N] the lift's force above the whole weight: a = EXTRA / (MP + 2 MF + MB)


def gripper_scene(solver: str) -> tuple[fd.Scene, np.ndarray]:
    b = fd.ModelBuilder("gripper", gravity=(0.0, 0.0, -G))
    b.add_joint("lift", "prismatic", 0, (np.eye(3), np.array([0.0, 0.0, HB + Z0])),
                axis=(0.0, 0.0, 1.0))
    b.add_body("lift", MP, inertia=np.eye(3) * 1e-3)
    for side, s in (("left", 1.0), ("right", -1.0)):  # q > 0 closes
        b.add_joint(side, "prismatic", "lift",
                    (np.eye(3), np.array([0.0, s * (HB + FINGER[1] + GAP), -Z0])),
                    axis=(0.0, -s, 0.0))
        b.add_body(side, MF, inertia=np.eye(3) * 1e-5)
    b.add_joint("box", "freeflyer")
    b.add_body("box", MB, inertia=np.eye(3) * MB * (2 * HB) ** 2 / 6)
    scene = fd.Scene(b.build(), dt=DT, mu=MU, solver=solver)
    scene.add_geom("left", "box", size=FINGER, friction=MU)
    scene.add_geom("right", "box", size=FINGER, friction=MU)
    scene.add_geom("box", "box", size=(HB, HB, HB), friction=MU)
    q0 = np.r_[0.0, 0.0, 0.0, 0.0, 0.0, HB, 0.0, 0.0, 0.0, 1.0]
    return scene, q0


def torques(squeeze: float) -> np.ndarray:
    """The fingers pressed together with ``squeeze`` [N] each; the lift holding the gripper's
    weight, then from step GRASP the whole weight plus EXTRA."""
    tau = np.zeros((T, 9))
    tau[:, 1] = tau[:, 2] = squeeze
    tau[:, 0] = (MP + 2 * MF) * G
    tau[GRASP:, 0] = (MP + 2 * MF + MB) * G + EXTRA
    return tau


@pytest.mark.parametrize("solver", ["pgs", "admm"])
def test_the_gripper_lifts_the_box_and_holds_it(solver):
    """Squeeze 5 N: 2 mu F = 8 N >= m (g + a) = 2.25 N, so the box rises with the palm: the
    box does not slip on the fingers (reached 5e-11 m over 0.5 m of lift), the lift follows
    the discrete closed form (reached 7e-11 m), the box neither slides sideways nor turns
    (1e-11), and the fingers' friction on the box is m (g + a) (reached 2.5e-11 N)."""
    scene, q0 = gripper_scene(solver)
    out = scene.rollout(q0, np.zeros(9), T, torques=torques(5.0), record=("q", "ncontacts"))
    assert out.status == "ok"
    q = out.q
    assert np.abs(q[GRASP:, 1:3] - GAP).max() < 5e-10  # closed on the box (reached 4e-12 m)
    slip = (q[:, 5] - q[:, 0]) - (q[GRASP, 5] - q[GRASP, 0])
    assert np.abs(slip[GRASP:]).max() < 5e-9
    a = EXTRA / (MP + 2 * MF + MB)
    n = T - GRASP
    assert abs(q[-1, 0] - q[GRASP, 0] - a * DT ** 2 * n * (n + 1) / 2) < 1e-9
    assert q[-1, 5] > HB + 0.5  # lifted half a metre
    assert np.abs(q[:, 3:5]).max() < 1e-9 and np.abs(q[:, 6:9]).max() < 1e-9
    assert out.ncontacts[GRASP - 1] == 12 and out.ncontacts[-1] == 8  # 4 per finger, 4 ground
    scene.step(out.final_q, out.final_v, torques(5.0)[-1])
    c = scene.geom_contacts
    lift_force = c.force[:, 2].sum()  # (geom 1 of each pair is the box: on the box)
    assert (c.geom[:, 1] == 2).all()
    assert abs(lift_force - MB * (G + a)) < 1e-9


def test_a_weak_squeeze_leaves_the_box_on_the_ground():
    """Squeeze 1 N: 2 mu F = 1.6 N < m g = 1.96 N, so the box never leaves the ground
    (reached 2e-12 m) and the fingers slide up along it: the palm rises with
    a = (m g + EXTRA - 2 mu F) / (MP + 2 MF) (reached 4e-11 m), the fingers' sliding friction
    on the box is 2 mu F and the ground carries m g - 2 mu F (a cold step from the sliding
    state; reached 2e-7 N). ADMM: PGS stalls at its cap on 12 steps from the onset of sliding
    (a sliding contact is no linear system for the active set) and the box hops 0.4 mm."""
    scene, q0 = gripper_scene("admm")
    out = scene.rollout(q0, np.zeros(9), T, torques=torques(1.0), record=("q", "v"))
    assert out.status == "ok"
    q = out.q
    assert np.abs(q[:, 5] - HB).max() < 1e-10
    k = GRASP + 100
    a = (MB * G + EXTRA - 2 * MU * 1.0) / (MP + 2 * MF)
    assert abs(q[k, 0] - q[GRASP, 0] - a * DT ** 2 * 100 * 101 / 2) < 1e-9
    scene.step(out.q[k], out.v[k], torques(1.0)[k])
    c = scene.geom_contacts
    ground = c.geom[:, 1] == 3  # (the ground's plane comes after the three geoms)
    fingers = c.geom[:, 1] == 2
    assert ground.sum() == 4 and fingers.sum() == 8
    assert abs(-c.force[ground, 2].sum() - (MB * G - 2 * MU * 1.0)) < 1e-5
    assert abs(c.force[fingers, 2].sum() - 2 * MU * 1.0) < 1e-5
