"""The API reference, built from the docstrings: ``python -m fastdyn.cli.apidoc [--check] [PATH]``.

It writes one Markdown page (default: fastdyn/docs/api.md beside this file) listing every public
name (each module's ``__all__``) with its signature and docstring, grouped by module, and the
public methods and properties of the public classes. ``--check`` writes nothing and exits 1 if
the page on disk differs from what the docstrings give now; the tests run that check, so the
committed reference cannot fall behind the code. Standard library only: a Sphinx or MkDocs
build would add a dependency and a configuration to keep, for what is here one page that reads
on any Markdown viewer (GitHub's included).
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "api.md"

# (module, what it is); each module's __all__ is its public surface.
MODULES = [
    ("fastdyn", "The object API: models, Data, every algorithm on one state."),
    ("fastdyn.configuration", "Configuration spaces: integrate, difference, random, neutral."),
    ("fastdyn.representations", "Dynamics in other velocity representations."),
    ("fastdyn.parameters", "Parameter tables: variants of a model, batches of robots."),
    ("fastdyn.mimic", "Models with mimic joints, reduced to their independent ones."),
    ("fastdyn.models", "Ready-made robots: bundled URDFs and example-robot-data."),
    ("fastdyn.samples", "Models built in code."),
    ("fastdyn.io", "Robots in and out of files: URDF, MJCF, npz."),
    ("fastdyn.errors", "Every exception and warning fastdyn raises."),
    ("fastdyn.batch", "Many states (and robots) in one call, on every core."),
    ("fastdyn.sim.collision", "Collision geoms and their contacts, without a Scene."),
    ("fastdyn.sim", "The simulator: scenes with contact, rollouts, a standing robot."),
    ("fastdyn.view", "A viewer of models, scenes and rollouts (meshcat: the optional extra view)."),
    ("fastdyn.study", "Monte Carlo studies over uncertain robot parameters."),
    ("fastdyn.study.plot", "Pictures of a study (the optional extra plot)."),
    ("fastdyn.codegen", "Per-model generated kernels."),
    ("fastdyn.kernels", "The raw @njit kernels, for your own @numba.njit code."),
]

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _signature(obj) -> str:
    target = getattr(obj, "py_func", obj)  # a numba dispatcher: its Python function's
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return ""
    params = []
    for p in sig.parameters.values():
        if p.default is not p.empty:
            text = repr(p.default)
            if "\n" in text or len(text) > 40 or _ADDRESS.search(text):
                text = "..."  # an array or an object: its repr is noise (and not stable)
            p = p.replace(default=_Raw(text))
        params.append(p)
    return str(sig.replace(parameters=params, return_annotation=sig.empty))


class _Raw:
    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _doc(obj) -> str:
    doc = inspect.getdoc(getattr(obj, "py_func", obj)) or ""
    return doc.strip()


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if inspect.ismodule(obj):
        return "module"
    if callable(obj):
        return "function"
    return "constant"


def _members(cls) -> list[tuple[str, object]]:
    out = []
    for name, member in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if name == "__init__":
            continue  # the class line carries the constructor's signature
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if callable(member) or isinstance(member, property):
            out.append((name, member))
    return out


def _entry(module: str, name: str, obj) -> list[str]:
    kind = _kind(obj)
    lines = [f"### `{module}.{name}`", ""]
    if kind == "module":
        lines += [f"Module `{obj.__name__}`: {(_doc(obj).splitlines() or [''])[0]}", ""]
        return lines
    if kind == "constant":
        lines += [f"Constant: `{_ADDRESS.sub('', repr(obj))[:80]}`", ""]
        return lines
    sig = _signature(obj)
    lines += ["```python", f"{'class ' if kind == 'class' else ''}{name}{sig}", "```", ""]
    doc = _doc(obj)
    lines += (["```text", doc, "```", ""] if doc else ["(no docstring)", ""])
    if kind == "class":
        for mname, member in _members(obj):
            if isinstance(member, property):
                mdoc = _doc(member.fget) if member.fget else ""
                lines += [f"- property `{mname}`" + (f": {mdoc.splitlines()[0]}" if mdoc
                                                       else ""), ""]
                continue
            mdoc = _doc(member)
            lines += [f"#### `{name}.{mname}{_signature(member)}`", ""]
            lines += (["```text", mdoc, "```", ""] if mdoc else ["(no docstring)", ""])
    return lines


def public(module: str) -> list[tuple[str, object]]:
    """(name, object) of ``module``'s ``__all__``, in its order."""
    mod = importlib.import_module(module)
    return [(n, getattr(mod, n)) for n in getattr(mod, "__all__", [])]


def build() -> str:
    lines = ["# fastdyn API reference", "",
             "Built from the docstrings by `python -m fastdyn.cli.apidoc` (fastdyn/cli/apidoc.py); "
             "do not edit by hand. The conventions (spatial vectors linear first, Pinocchio's "
             "q/v layout, LOCAL / WORLD / LOCAL_WORLD_ALIGNED) are the README's Conventions "
             "section; fastdyn/docs/pinocchio.md maps Pinocchio's names to fastdyn's and "
             "fastdyn/docs/mujoco.md MuJoCo's rollouts to fastdyn's.", ""]
    lines += ["## Contents", ""]
    for module, what in MODULES:
        anchor = module.replace(".", "")
        lines.append(f"- [`{module}`](#{anchor}): {what}")
    lines.append("")
    home = _homes()
    for module, what in MODULES:
        lines += [f"## {module}", "", what, ""]
        for name, obj in public(module):
            where = home.get(id(obj), module)
            if where == module:
                lines += _entry(module, name, obj)
            else:  # documented once, where it is defined: a pointer here
                anchor = (where + name).replace(".", "").lower()
                lines += [f"### `{module}.{name}`", "",
                          f"The same object as [`{where}.{name}`](#{anchor}).", ""]
    return "\n".join(lines).rstrip() + "\n"


def _homes() -> dict[int, str]:
    """For each function or class listed by several modules: the one section that documents
    it, the module that defines it (or the listing module nearest to it)."""
    listed: dict[int, list[str]] = {}
    objects = {}
    for module, _ in MODULES:
        for _, obj in public(module):
            if _kind(obj) in ("function", "class"):
                listed.setdefault(id(obj), []).append(module)
                objects[id(obj)] = obj
    home = {}
    for key, modules in listed.items():
        if len(modules) < 2:
            continue
        origin = getattr(getattr(objects[key], "py_func", objects[key]), "__module__", "") or ""
        near = [m for m in modules if origin == m or origin.startswith(m + ".")]
        home[key] = max(near, key=len) if near else modules[0]
    return home


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    path = Path(paths[0]) if paths else PAGE
    text = build()
    if check:
        have = path.read_text(encoding="utf-8") if path.exists() else ""
        if have != text:
            print(f"{path} is out of date with the docstrings: run python -m fastdyn.cli.apidoc",
                  file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
