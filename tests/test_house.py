"""The package's structure, read from its source: which module may import which, where the
exceptions live, and the old module paths that still work (issue 37's rules, kept by a test).

The graph is read with ``ast`` from the files themselves, the way an import-cycle bug would
show up: a module that imports, at its top level, a module that imports it back breaks
whichever of the two is imported first. Function-level imports are counted too; the few that
close a loop on purpose are listed below with the reason, and a new one fails here.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import warnings
from collections import defaultdict

import pytest

import fastdyn
import fastdyn.kernels

ROOTS = {os.path.dirname(fastdyn.__file__): "fastdyn",
         os.path.dirname(fastdyn.kernels.__file__): "fastdyn.kernels"}

# Function-level imports that point back up on purpose (module -> module it imports).
DOORS = {
    # Model.from_urdf / from_mjcf (deprecated for fd.load_urdf / load_mjcf, gone in the next
    # release, and with them this door) load through fastdyn.io, which builds Models.
    ("fastdyn.model", "fastdyn.io"),
}

# The kernels' floors: a package may import its own floor and those below, never above.
KERNEL_FLOORS = {
    "fastdyn.kernels._jit": 0, "fastdyn.kernels._typing_memo": 0, "fastdyn.kernels.layout": 0,
    "fastdyn.kernels._pointer_call": 0,
    "fastdyn.kernels.stack": 0,
    "fastdyn.kernels.spatial": 1, "fastdyn.kernels.linalg": 1, "fastdyn.kernels.joints": 1,
    "fastdyn.kernels.checks": 2, "fastdyn.kernels.configuration": 3,
    "fastdyn.kernels.algorithms": 4, "fastdyn.kernels.collision": 4,
    "fastdyn.kernels.contact": 5, "fastdyn.kernels.entry": 6,
    "fastdyn.kernels": 7,  # its __init__ hands the kernels on
}


def _modules() -> dict[str, tuple[str, bool]]:
    out = {}
    for root, pkg in ROOTS.items():
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if x not in ("__pycache__", "docs", "kernels")]
            for f in files:
                if f.endswith(".py"):
                    rel = os.path.relpath(os.path.join(d, f), root)[:-3].replace(os.sep, ".")
                    if rel == "__init__":
                        name = pkg
                    elif rel.endswith(".__init__"):
                        name = f"{pkg}.{rel[:-9]}"
                    else:
                        name = f"{pkg}.{rel}"
                    out[name] = (os.path.join(d, f), f == "__init__.py")
    return out


MODULES = _modules()


def _imports(name: str) -> list[tuple[str, str | None, bool, int]]:
    """(imported module, name taken from it or None, at module level?, line) of ``name``."""
    path, is_pkg = MODULES[name]
    tree = ast.parse(open(path, encoding="utf-8").read())
    top = set()
    for node in tree.body:  # module level, including under try/if at module level
        for sub in ast.walk(node):
            if not isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                top.add(id(sub))
            else:
                break
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inside = {id(s) for f in funcs for s in ast.walk(f)}
    out = []
    for node in ast.walk(tree):
        level = id(node) not in inside
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".") if is_pkg else name.split(".")[:-1]
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module]
                                                                        if node.module else []))
            else:
                base = node.module or ""
            if not base.startswith("fastdyn"):
                continue
            for a in node.names:
                full = f"{base}.{a.name}"
                if full in MODULES:
                    out.append((full, None, level, node.lineno))
                else:
                    out.append((base, a.name, level, node.lineno))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("fastdyn"):
                    out.append((a.name, None, level, node.lineno))
    return out


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _graph(module_level_only: bool) -> dict[str, set[str]]:
    edges = defaultdict(set)
    for name in MODULES:
        edges[name]
        for target, _, level, _ in _imports(name):
            if target in MODULES and target != name and (level or not module_level_only) \
                    and (name, target) not in DOORS:
                edges[name].add(target)
    return edges


def test_the_graph_is_read():
    """The reader finds the imports a bug would add (else the tests below could not fail)."""
    edges = _graph(module_level_only=False)
    assert "fastdyn.model" in edges["fastdyn.sim.scene"]
    assert "fastdyn.kernels.linalg.cholesky" in edges["fastdyn.kernels.algorithms.aba_derivatives"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert len(MODULES) > 150


def test_no_import_circle():
    """No module imports (at any depth) a module that imports it back, apart from the doors
    listed in DOORS, each a function-level import."""
    assert _cycles(_graph(module_level_only=False)) == []


def test_the_doors_are_function_level_and_still_needed():
    for a, b in DOORS:
        levels = [lvl for t, _, lvl, _ in _imports(a) if t == b or t.startswith(b + ".")]
        assert levels, f"{a} no longer imports {b}: remove it from DOORS"
        assert not any(levels), f"{a} imports {b} at module level: that is a circle"


def test_no_module_takes_another_modules_private_names():
    bad = [f"{MODULES[n][0]}:{line}: {what} from {t}" for n in MODULES
           for t, what, _, line in _imports(n)
           if what and what.startswith("_") and not what.startswith("__") and t != n]
    assert bad == []


def test_kernels_import_nothing_above_their_floor():
    bad = []
    for name in (n for n in MODULES if n.startswith("fastdyn.kernels")):
        for target, _, _, line in _imports(name):
            if not target.startswith("fastdyn.kernels"):
                bad.append(f"{name}:{line} imports {target} (outside the kernels)")
                continue
            here = max((k for k in KERNEL_FLOORS if name == k or name.startswith(k + ".")),
                       key=len)
            there = max((k for k in KERNEL_FLOORS if target == k or target.startswith(k + ".")),
                        key=len)
            if KERNEL_FLOORS[there] > KERNEL_FLOORS[here]:
                bad.append(f"{name}:{line} imports {target}, a floor above it")
    assert bad == []


def test_every_exception_and_warning_lives_in_errors():
    """Every exception or warning class defined anywhere in fastdyn is fastdyn.errors' (the
    cache's two are the kernels', handed on by fastdyn.errors)."""
    import fastdyn.errors as errors
    seen = set()
    for name in MODULES:
        if name.startswith(("fastdyn.cli", "fastdyn.study.plot", "fastdyn.study.cluster")):
            continue  # optional extras; scanned as source below
        mod = importlib.import_module(name)
        for value in vars(mod).values():
            if isinstance(value, type) and issubclass(value, (BaseException, Warning)) \
                    and value.__module__.startswith("fastdyn"):
                seen.add(value)
    home = {c.__module__ for c in seen}
    assert home <= {"fastdyn.errors", "fastdyn.kernels._jit"}, home
    assert {c.__name__ for c in seen} <= set(errors.__all__)
    for n in errors.__all__:
        assert issubclass(getattr(errors, n), (Exception, Warning, KeyboardInterrupt)), n
    for name, (path, _) in MODULES.items():  # the modules not imported above, as source
        tree = ast.parse(open(path, encoding="utf-8").read())
        classes = [c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                   and any(getattr(b, "id", getattr(b, "attr", "")).endswith(
                       ("Error", "Warning", "Exception", "Interrupt")) for b in c.bases)]
        if name not in ("fastdyn.errors", "fastdyn.kernels._jit"):
            assert classes == [] or classes == ["FunctionCache"], (name, classes)


@pytest.mark.parametrize("old", sorted(importlib.import_module("fastdyn._internal.moved").MOVED))
def test_old_module_paths_still_import_with_a_warning(old):
    moved = importlib.import_module("fastdyn._internal.moved")
    new = "fastdyn." + moved.MOVED[old]
    try:
        target = importlib.import_module(new)
    except ImportError as e:  # an optional extra (matplotlib, dask) missing here
        pytest.skip(f"{new}: {e}")
    sys.modules.pop("fastdyn." + old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        alias = importlib.import_module("fastdyn." + old)
    assert alias is target
    assert target.__spec__.name == new  # the module keeps its own spec
    assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message)
               for w in caught)


def test_private_old_paths_are_not_redirected():
    sys.modules.pop("fastdyn._checks", None)
    with pytest.raises(ImportError):
        importlib.import_module("fastdyn._checks")


def test_the_repository_top_level_is_the_agreed_one():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True,
                                text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    top = {p.split("/")[0] for p in listed if not p.startswith(".")}
    assert top <= {"pyproject.toml", "fastdyn", "kernels", "tests", "bench", "models",
                   "README.md", "LICENSE", "CHANGELOG.md"}, top


def test_fastdyn_top_level_holds_the_single_state_calls_only():
    """The wings hold the rest: batch/, sim/, study/, io/, cli/, codegen/, examples/ and
    _internal/."""
    root = os.path.dirname(fastdyn.__file__)
    flat = {f[:-3] for f in os.listdir(root) if f.endswith(".py")}
    assert flat == {
        "__init__", "__main__", "builder", "centroidal", "configuration", "constrained_dynamics",
        "constrained_dynamics_derivatives", "constraints", "coupling", "derivatives",
        "dynamics", "errors", "frames", "ik", "jacobians", "kinematics",
        "kinematics_derivatives", "mimic", "model", "models", "parameter_derivatives",
        "parameters", "regressors", "representations", "samples", "tick"}


def test_every_package_is_installed():
    """pyproject.toml lists every package of the source tree, so that a plain ``pip install``
    ships each wing (a wing left out installs a fastdyn whose import fails)."""
    tomllib = pytest.importorskip("tomllib")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    found = {name for name, (_, is_pkg) in MODULES.items() if is_pkg}
    assert "fastdyn.examples" in found
    assert found - listed == set()
