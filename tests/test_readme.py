"""The README's examples run as written (so the front page stays true), and so do the guides'
that continue them (fastdyn/docs/getting-started.md, guide-studies.md)."""

import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "fastdyn" / "docs"


def _blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_readme_examples_run():
    code = _blocks(README)
    assert len(code) == 3, "README: the dynamics example, the simulator and a Monte Carlo study"
    scope: dict = {}
    exec(compile(code[0], str(README), "exec"), scope)  # noqa: S102 (our own README)
    assert np.abs(scope["ddq"] - scope["a"]).max() < 1e-9  # its comment: ddq == a
    assert scope["T_tool"].shape == (4, 4) and scope["TAU"].shape == (10_000, 6)
    expected = scope["fd"].rnea(scope["model"], scope["model"].create_data(), scope["q"],
                                scope["v"], scope["a"]).copy()
    scope["tau"][:] = np.nan
    (codegen,) = _blocks(DOCS / "getting-started.md")
    exec(compile(codegen, "getting-started.md", "exec"), scope)  # noqa: S102 (the codegen one)
    assert np.abs(scope["tau"] - expected).max() < 1e-10
    assert np.abs(scope["TAU"] - fd_batch(scope)).max() < 1e-10
    sim: dict = {}
    exec(compile(code[1], str(README), "exec"), sim)  # noqa: S102 (the simulator example)
    weight = sim["model"].mass.sum() * 9.81
    assert np.allclose(sim["out"].contact_forces[:, -1, :, 2].sum(axis=1), weight, rtol=5e-3)
    mc: dict = {}
    exec(compile(code[2], str(README), "exec"), mc)  # noqa: S102 (the Monte Carlo study)
    res = mc["res"]
    assert res["tau"].shape == (20_000, 100, 6) and res.quantiles["peak"].shape == (5, 6)
    try:
        import distributed  # noqa: F401 (the "distributed" extra, part of the test one)
    except ImportError:
        return
    (dask,) = _blocks(DOCS / "guide-studies.md")
    mc["__name__"] = "__main__"  # run as a script: its Dask call is under the __main__ guard
    exec(compile(dask, "guide-studies.md", "exec"), mc)  # noqa: S102 (the same on Dask)
    assert all(np.array_equal(mc["far"][k], res[k]) for k in res.outputs)


def test_the_readme_is_one_screen_and_links_every_guide():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 170
    for page in ("getting-started.md", "guide-rollouts.md", "guide-studies.md",
                 "guide-control.md", "loading-robots.md", "pinocchio.md", "mujoco.md",
                 "performance.md", "api.md"):
        assert page in text and (DOCS / page).exists(), page


def _table_under(text: str, heading: str) -> list[str]:
    """The table rows (lines starting with "|") of the section under ``heading``."""
    part = text.split(heading, 1)[1]
    rows = []
    for line in part.splitlines()[1:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append(line)
    return rows


def test_the_key_numbers_are_quoted_from_bench_results():
    """Every number of the README's table comes from bench/RESULTS.md's "Key numbers", which
    bench/report.py renders from the committed results: a re-run that changes a ratio leaves
    the README stale until it is quoted again, and this test says so."""
    quoted = _table_under(README.read_text(encoding="utf-8"), "## Key numbers")
    results = _table_under((ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8"),
                           "## Key numbers")
    assert len(quoted) >= 4 and quoted == results


def fd_batch(scope):
    fd, model, Q = scope["fd"], scope["model"], scope["Q"]
    return fd.batch.rnea(model, Q, np.zeros((len(Q), model.nv)), np.ones((len(Q), model.nv)))
