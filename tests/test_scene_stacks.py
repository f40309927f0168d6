"""Stacks of ten free boxes on the ground (issue 39's scenes; fastdyn/sim/scene_geoms.py):
standing still for 10 s, each interface carrying the weight of the boxes above it (the closed
form of a stack at rest: Newton on each box), with uniform masses and in Pinocchio's stiff
case, a mass ratio of 1e6 between neighbours.

Rigid contacts (the scene's default), dt = 1 ms, mu = 0.8. Tolerances quote the error
reached, at most ~100x above it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.errors import ConvergenceWarning

G = 9.81
DT = 1e-3
H = 0.1  # box half-size [m]
N = 10
UNIFORM = [1.5] * N
STIFF = [1e3 if i % 2 == 0 else 1e-3 for i in range(N)]  # 1e6 between neighbours


def stack(masses, solver: str) -> tuple[fd.Scene, np.ndarray]:
    """Boxes b0 (on the ground) .. b9 (on top), solid cubes of half-size H, each resting
    exactly on the one below; returns the scene and q0."""
    b = fd.ModelBuilder("stack", gravity=(0.0, 0.0, -G))
    for i, mass in enumerate(masses):
        b.add_joint(f"b{i}", "freeflyer")
        b.add_body(f"b{i}", mass, inertia=np.eye(3) * mass * (2 * H) ** 2 / 6)
    scene = fd.Scene(b.build(), dt=DT, solver=solver)
    for i in range(len(masses)):
        scene.add_geom(f"b{i}", "box", size=(H, H, H), friction=0.8)
    q0 = np.concatenate([[0.0, 0.0, (2 * i + 1) * H, 0.0, 0.0, 0.0, 1.0]
                         for i in range(len(masses))])
    return scene, q0


def interface_forces(scene, q, v, masses) -> np.ndarray:
    """The vertical force through each interface (ground-b0, b0-b1, ...) after a step from
    (q, v), over the weight of the boxes above it."""
    scene.step(q, v)
    c = scene.geom_contacts
    n = len(masses)
    out = np.zeros(n)
    for k in range(n):
        below = n if k == 0 else k - 1  # (the ground's plane comes after the boxes' geoms)
        on = np.array([sorted(p) == sorted([below, k]) for p in c.geom])
        out[k] = np.abs(c.force[on, 2]).sum() / (sum(masses[k:]) * G)
    return out


@pytest.mark.parametrize("masses, solver, drift, rel", [
    (UNIFORM, "pgs", 2e-9, 1e-8),  # reached 4.2e-11 m, 1.6e-10
    (STIFF, "admm", 1e-4, 1e-3),  # reached 9.6e-6 m, 3.8e-5
], ids=["uniform-pgs", "stiff-admm"])
def test_a_stack_of_ten_boxes_stands_still_for_ten_seconds(masses, solver, drift, rel):
    """10 s (10,000 steps): no box drifts (the stiff stack settles 1e-5 m into its
    compliance within the first second and stays there: the drift at 1 s and at 10 s agree
    to 1e-6 m), every step converges, and each interface carries the weight above it."""
    scene, q0 = stack(masses, solver)
    out = scene.rollout(q0, np.zeros(6 * N), 10_000, record=("q",))
    assert out.status == "ok"
    moved = np.abs(out.q - q0).max(axis=1)
    assert moved.max() < drift
    assert abs(moved[-1] - moved[1000]) < drift / 10
    assert np.abs(out.final_v).max() < drift
    carried = interface_forces(scene, out.final_q, out.final_v, masses)
    assert np.abs(carried - 1.0).max() < rel


def test_pgs_on_the_stiff_stack_says_it_failed_and_names_admm():
    """Gauss-Seidel with the active-set start does not hold the stiff stack: on the light
    boxes squeezed between heavy ones its sweeps stall (the exact solution on the active set
    fails its checking sweep by round-off amplified by the mass ratio, and the sweeps go on
    from their own iterate), about one step in six ends at the 200-sweep cap in the first
    2 s and the stack comes apart. The rollout says so: status "unconverged" and a warning
    that names solver='admm', which holds it (above)."""
    scene, q0 = stack(STIFF, "pgs")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = scene.rollout(q0, np.zeros(6 * N), 2000, record=("stats",))
    assert out.status == "unconverged"
    assert (out.stats[:, 2] > scene.opt[fd.kernels.layout.O_TOL]).sum() > 100
    assert any(issubclass(w.category, ConvergenceWarning) and "solver='admm'" in str(w.message)
               for w in caught)
