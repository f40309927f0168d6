"""The documentation in fastdyn/docs/ cannot rot: the API reference is rebuilt from the
docstrings and must equal the committed page, every public name has a docstring, and every name
the Pinocchio and MuJoCo pages cite exists, on both sides of each table."""

import re
from pathlib import Path

import pytest

import fastdyn as fd
from fastdyn.cli import apidoc

# The checkout's pages (an installed package need not carry them).
DOCS = Path(__file__).resolve().parents[1] / "fastdyn" / "docs"
CITED = re.compile(r"`((?:pin|fd|mujoco|Model|Scene|data)\.[\w.]+)")


def test_the_committed_reference_is_what_the_docstrings_give():
    assert apidoc.main(["--check", str(DOCS / "api.md")]) == 0, "run: python -m fastdyn.cli.apidoc"


def test_every_public_name_has_a_docstring():
    missing = []
    for module, _ in apidoc.MODULES:
        for name, obj in apidoc.public(module):
            if apidoc._kind(obj) in ("function", "class") and not apidoc._doc(obj):
                missing.append(f"{module}.{name}")
            if apidoc._kind(obj) == "class":
                missing += [f"{module}.{name}.{m}" for m, member in apidoc._members(obj)
                            if not isinstance(member, property) and not apidoc._doc(member)]
    assert not missing, f"public names without a docstring: {missing}"


def _resolve(dotted: str, roots: dict) -> bool:
    head, *rest = dotted.split(".")
    obj = roots[head]
    for part in rest:
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


@pytest.mark.parametrize("page", ["pinocchio.md", "mujoco.md"])
def test_every_name_a_user_page_cites_exists(page):
    roots = {"fd": fd, "Model": fd.Model, "Scene": fd.Scene}
    if page == "pinocchio.md":
        roots["pin"] = pytest.importorskip("pinocchio")
        roots["data"] = roots["pin"].Data
    else:
        mujoco = pytest.importorskip("mujoco")
        import mujoco.rollout  # noqa: F401  (a submodule: not loaded by import mujoco)

        roots["mujoco"] = mujoco
    names = CITED.findall((DOCS / page).read_text(encoding="utf-8"))
    assert len(names) > 10
    missing = [n for n in names if not _resolve(n, roots)]
    assert not missing, f"{page} cites names that do not exist: {missing}"


def test_the_pinocchio_page_covers_the_top_level_algorithms():
    # A new algorithm with a Pinocchio counterpart should get its row.
    text = (DOCS / "pinocchio.md").read_text(encoding="utf-8")
    for name in ("rnea", "aba", "crba", "forward_kinematics", "compute_rnea_derivatives",
                 "compute_aba_derivatives", "frame_jacobian", "center_of_mass"):
        assert f"`fd.{name}`" in text
