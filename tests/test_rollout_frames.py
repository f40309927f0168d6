"""Frame placements recorded by ``Scene.rollout(frames=...)``: each recorded state's
placements equal ``fd.frame_placement`` after ``fd.forward_kinematics`` on the recorded q (the
object API, computed apart from the loop); recording them changes no state; batch rows equal
single rollouts with 1 and 2 threads."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from fastdyn.sim import QUADRUPED_FEET as FEET, standing_scene

STEPS = 200


@pytest.fixture(scope="module")
def dropped():
    scene, q, kp, kd = standing_scene()
    Q0 = np.tile(q, (3, 1))
    Q0[:, 2] += np.array([0.0, 0.1, 0.3])
    Q0[1, 7:] += 0.1
    return scene, Q0, np.zeros((3, scene.model.nv)), dict(kp=kp, kd=kd)


def test_recorded_placements_are_those_of_the_recorded_states(dropped):
    scene, Q0, V0, gains = dropped
    model = scene.model
    frames = [*FEET, "base_link" if "base_link" in model.frame_names else 1, 0]
    out = scene.rollout(Q0, V0, STEPS, record=("q",), frames=frames, **gains)
    nf = len(frames)
    assert out.frame_positions.shape == (3, STEPS + 1, nf, 3)
    assert out.frame_rotations.shape == (3, STEPS + 1, nf, 3, 3)
    data = model.create_data()
    for r in range(3):
        for k in (0, 1, STEPS // 2, STEPS):
            fd.forward_kinematics(model, data, out.q[r, k])
            for j, f in enumerate(frames):
                T = fd.frame_placement(model, data, f)
                assert np.abs(out.frame_positions[r, k, j] - T[:3, 3]).max() < 1e-12
                assert np.abs(out.frame_rotations[r, k, j] - T[:3, :3]).max() < 1e-12
    # in free fall (dropped from 0.3 m, at rest, joints at the PD's reference) the robot falls
    # as one body: semi-implicit Euler's z_k = z_0 - g dt^2 k (k + 1) / 2 for every foot
    k, dt, g = 100, scene.dt, -model.gravity[2]
    drop = out.frame_positions[2, 0, :4, 2] - out.frame_positions[2, k, :4, 2]
    assert drop == pytest.approx(np.full(4, g * dt * dt * k * (k + 1) / 2), abs=1e-9)


def test_recording_frames_changes_no_state_and_rows_equal_single_rollouts(dropped):
    scene, Q0, V0, gains = dropped
    plain = scene.rollout(Q0, V0, STEPS, record=("q", "v"), **gains)
    threads = numba.get_num_threads()
    outs = []
    try:
        for nt in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(nt)
            outs.append(scene.rollout(Q0, V0, STEPS, record=("q", "v"), frames=FEET, **gains))
    finally:
        numba.set_num_threads(threads)
    for out in outs:
        assert np.array_equal(out.q, plain.q) and np.array_equal(out.v, plain.v)
        for r in range(3):
            single = scene.rollout(Q0[r], V0[r], STEPS, frames=FEET, **gains)
            assert single.frame_positions.shape == (STEPS + 1, 4, 3)
            assert np.array_equal(out.frame_positions[r], single.frame_positions)
            assert np.array_equal(out.frame_rotations[r], single.frame_rotations)


def test_zero_steps_record_the_initial_placements(dropped):
    scene, Q0, V0, _ = dropped
    model = scene.model
    out = scene.rollout(Q0, V0, 0, frames="FL_FOOT")
    assert out.frame_positions.shape == (3, 1, 1, 3)
    data = model.create_data()
    fd.forward_kinematics(model, data, Q0[2])
    assert np.abs(out.frame_positions[2, 0, 0] - fd.frame_placement(model, data, "FL_FOOT")
                  [:3, 3]).max() < 1e-12
    assert scene.rollout(Q0, V0, 5).frame_positions is None


def test_unknown_frames_are_refused(dropped):
    scene, Q0, V0, _ = dropped
    with pytest.raises(KeyError, match="no frame named 'FOOT'"):
        scene.rollout(Q0, V0, 5, frames=["FL_FOOT", "FOOT"])
    with pytest.raises(IndexError, match="out of range"):
        scene.rollout(Q0, V0, 5, frames=[10_000])
