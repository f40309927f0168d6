"""Renamed public names, kept for one release: the old name still works and says what to use.

A module lists its old names in ``_RENAMED`` (old -> new, the new one a dotted path under
``fastdyn``) and answers them from its ``__getattr__`` (PEP 562), which Python calls only for
names the module does not have: the new names cost nothing, an old one a DeprecationWarning
each time it is looked up, then the very object the new name holds.
"""

from __future__ import annotations

import importlib
import warnings


def renamed(module: str, name: str, table: dict[str, str]):
    """The object ``table[name]`` names (under ``fastdyn``), with a DeprecationWarning; an
    AttributeError for any other name, as a module without ``__getattr__`` would raise."""
    new = table.get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    path, _, attr = f"fastdyn.{new}".rpartition(".")
    obj = getattr(importlib.import_module(path), attr)
    warnings.warn(f"{module}.{name} is now fastdyn.{new}; the old name goes in the next release",
                  DeprecationWarning, stacklevel=3)
    return obj
