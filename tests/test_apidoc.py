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
                 "compute_aba_derivatives", "compute_frame_jacobian", "center_of_mass"):
        assert f"`fd.{name}`" in text


def _public_modules() -> set[str]:
    """fastdyn's public modules: those its ``__all__`` hands on (fd.batch, fd.models, ...),
    the wings' faces and the kernels, each with an ``__all__``."""
    import importlib
    names = {"fastdyn"} | {f"fastdyn.{n}" for n in fd.__all__
                           if type(getattr(fd, n)).__name__ == "module"}
    names |= {"fastdyn.kernels", "fastdyn.sim", "fastdyn.io", "fastdyn.errors"}
    return {n for n in names if hasattr(importlib.import_module(n), "__all__")}


def test_every_public_module_is_in_the_reference():
    listed = {m for m, _ in apidoc.MODULES}
    assert _public_modules() - listed == set()
    assert {"fastdyn.models", "fastdyn.samples", "fastdyn.representations",
            "fastdyn.parameters", "fastdyn.mimic", "fastdyn.io"} <= listed  # issue 37's list


def test_every_public_function_of_a_listed_module_is_in_its_all_and_on_the_page():
    """A function or class defined in a listed module without a leading underscore is public:
    it must be in that module's __all__, hence on the page (a heading of its own)."""
    import importlib
    import inspect
    page = (DOCS / "api.md").read_text(encoding="utf-8")
    missing = []
    for module, _ in apidoc.MODULES:
        mod = importlib.import_module(module)
        exported = set(getattr(mod, "__all__", []))
        for name, obj in vars(mod).items():
            target = getattr(obj, "py_func", obj)
            if name.startswith("_") or not (inspect.isfunction(target) or inspect.isclass(obj)):
                continue
            if getattr(target, "__module__", None) == module and name not in exported:
                missing.append(f"{module}.{name} (not in __all__)")
        missing += [f"{module}.{n} (not on the page)" for n in exported
                    if f"### `{module}.{n}`" not in page]
    assert not missing, missing
