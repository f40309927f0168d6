"""The exported page in a real browser: headless Chromium (Debian's package) draws the UR5
(its DAE meshes) where the empty scene has none, and its animation moves.

Chromium is installed by .ci/run on CI; there a missing Chromium fails this test (CI is set),
elsewhere it skips."""

from __future__ import annotations

import os

import numpy as np
import pytest

import fastdyn as fd

pytest.importorskip("meshcat")
pytest.importorskip("trimesh")
Image = pytest.importorskip("PIL.Image")  # Pillow: matplotlib's dependency (the test extra)
from fastdyn.view import Viewer  # noqa: E402
from fastdyn.view.browser import find_chromium, screenshot  # noqa: E402
from fastdyn.view.record import html_page  # noqa: E402

W, H = 480, 360


@pytest.fixture(scope="module")
def chromium():
    exe = find_chromium()
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("CI: chromium is not installed (.ci/run installs it with apt-get)")
        pytest.skip("no chromium (apt-get install chromium)")
    return exe


def _pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.int16)


def _changed(a, b) -> np.ndarray:
    return np.abs(a - b).max(axis=2) > 24


def test_the_robot_is_drawn_and_its_animation_moves(chromium, tmp_path):
    urdf = str(fd.models.example_robot_data_dir() / "ur_description/urdf/ur5_robot.urdf")
    model = fd.load_urdf(urdf)
    t = np.linspace(0, 2, 61)[:, None]
    Q = np.zeros((61, model.nq)) + [0, -1.2, 1.5, 0, 0, 0]
    Q[:, 0] = 1.5 * t[:, 0]  # the arm turns about its base, 1.5 rad in 2 s
    viewer = Viewer(model, urdf)
    viewer.animate(Q, dt=1 / 30)
    robot = viewer.save(tmp_path / "robot.html")
    empty = tmp_path / "empty.html"  # the same page (camera, lights) without the robot
    empty.write_text(html_page([c for c in viewer.recorder.commands()
                                if hasattr(c, "path") and "/robot0" not in c.path.lower()]))
    shots = {}
    for name, page in (("robot", robot), ("empty", empty)):
        for at in (0.5, 1.5):
            png = screenshot(page, tmp_path / f"{name}{at}.png", width=W, height=H, at=at,
                             chromium=chromium)
            shots[name, at] = _pixels(png)
    drawn = _changed(shots["robot", 0.5], shots["empty", 0.5])
    # the robot covers part of the picture (2.2 % achieved), around the centre, where the
    # camera looks (the world origin, the arm's base)
    assert 0.005 < drawn.mean() < 0.5, drawn.mean()
    rows, cols = np.nonzero(drawn)
    assert rows.min() < H / 2 < rows.max() and cols.min() < W / 2 < cols.max()
    # the empty scene draws the same at both times: a difference in the robot's page is its
    # animation, not the renderer
    assert _changed(shots["empty", 0.5], shots["empty", 1.5]).mean() < 1e-4
    moved = _changed(shots["robot", 0.5], shots["robot", 1.5])
    assert moved.mean() > 0.005, moved.mean()  # 3.8 % achieved
    assert (moved & ~(drawn | _changed(shots["robot", 1.5], shots["empty", 1.5]))).mean() \
        < 1e-3  # only where the robot is at one time or the other
