"""Pictures of a viewer page from a headless Chromium (the system's package), no driver.

    from fastdyn.view.browser import find_chromium, screenshot
    screenshot("rollout.html", "rollout.png", at=1.5)    # the page 1.5 s after it loaded

Chromium's own flags do the work: ``--headless --screenshot`` draws the page once its
``--virtual-time-budget`` has run out; virtual time runs the page's clock (and meshcat's
animation) as fast as the machine allows, so a picture "at 1.5 s" is the animation at 1.5 s
whatever the load. WebGL falls back to Chromium's software renderer (SwiftShader) without a
GPU. Each call starts a fresh browser with an empty profile in a temporary folder and no
network services (no sync, updates or background fetches).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

__all__ = ["find_chromium", "screenshot"]

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--hide-scrollbars", "--mute-audio")


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable on PATH, or None."""
    for name in _NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(page: str | os.PathLike, png: str | os.PathLike, *, width: int = 640,
               height: int = 480, at: float = 1.0, chromium: str | None = None,
               timeout: float = 60.0) -> str:
    """Draw the HTML file ``page`` in a ``width`` x ``height`` window ``at`` seconds (of
    the page's virtual clock) after it loaded, into the PNG ``png``; returns its path.
    Raises FileNotFoundError without a Chromium, RuntimeError naming its output if it
    wrote no picture."""
    exe = chromium or find_chromium()
    if exe is None:
        raise FileNotFoundError("no Chromium found (apt-get install chromium)")
    page, png = os.path.abspath(os.fspath(page)), os.path.abspath(os.fspath(png))
    if os.path.exists(png):
        os.remove(png)
    with tempfile.TemporaryDirectory(prefix="fastdyn-chromium-") as profile:
        cmd = [exe, *_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
               f"--virtual-time-budget={int(round(1000 * at))}", f"--screenshot={png}",
               "file://" + page]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if not os.path.isfile(png):
        raise RuntimeError(f"{exe} wrote no screenshot (exit {run.returncode}): "
                           f"{(run.stderr or run.stdout)[-2000:]}")
    return png
