"""fd.sim.place_on_ground and fd.sim.standing_scene (fastdyn/sim/standing.py): the feet land on
the plane, nothing but the base height moves, and the standing scene is the README's."""

import numpy as np
import pytest

import fastdyn as fd


def _heights(model, q, feet):
    data = model.create_data()
    fd.forward_kinematics(model, data, q)
    fd.update_frame_placements(model, data)
    return np.array([data.oMf_p[model.frame_id(f)][2] for f in feet])


def test_the_lowest_foot_touches_the_plane_and_only_the_base_height_moves():
    """From random poses (base tilted by its quaternion too), the lowest foot ends at height
    radius and the others above it; q changes in its z entry alone, so the feet's heights all
    shift by the same amount (a shift in the base's own axes would not do that)."""
    model = fd.models.load("quadruped")
    feet = fd.sim.QUADRUPED_FEET
    for seed in range(3):
        q = fd.random_configuration(model, seed)
        out = fd.sim.place_on_ground(model, q, feet, radius=0.016)
        assert np.flatnonzero(out != q).tolist() == [2]
        before, after = _heights(model, q, feet), _heights(model, out, feet)
        assert abs(after.min() - 0.016) < 1e-12
        np.testing.assert_allclose(after - before, out[2] - q[2], atol=1e-12)


def test_a_fixed_base_is_refused():
    with pytest.raises(ValueError, match="free-flyer"):
        fd.sim.place_on_ground(fd.models.load("ur5"), np.zeros(6), ["tool0"])


def test_the_standing_scene_holds_its_pose_with_the_feet_on_the_ground():
    scene, q, kp, kd = fd.sim.standing_scene()
    model = scene.model
    assert len(scene.spheres) == 4 and kp.shape == kd.shape == (model.nv,)
    assert not kp[:6].any() and (kp[6:] == 5.0).all()
    assert abs(_heights(model, q, fd.sim.QUADRUPED_FEET).min()
               - fd.sim.QUADRUPED_FOOT_RADIUS) < 1e-12
