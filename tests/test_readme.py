"""The README's example runs as written (so the front page stays true)."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs():
    code = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert code, "README has no python example"
    scope: dict = {}
    exec(compile(code[0], str(README), "exec"), scope)  # noqa: S102 (our own README)
    assert np.abs(scope["ddq"] - scope["a"]).max() < 1e-9  # its comment: ddq == a
    assert scope["T_tool"].shape == (4, 4) and scope["TAU"].shape == (10_000, 6)
