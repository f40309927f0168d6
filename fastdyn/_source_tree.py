"""``import fastdyn`` from a source checkout: give the package its kernels.

Installed, ``kernels/`` is the subpackage ``fastdyn.kernels`` (pyproject's package-dir maps
it). In a checkout that is imported directly (``python -m pytest`` from the repository root
puts the checkout first on sys.path), ``kernels/`` sits beside ``fastdyn/`` instead, and
``fastdyn.kernels`` would not import. This registers it under that name, once, before anything
imports it; installed and editable packages find it on their own and are left alone.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def link_kernels() -> None:
    name = "fastdyn.kernels"
    if name in sys.modules or importlib.util.find_spec(name) is not None:
        return
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels")
    init = os.path.join(root, "__init__.py")
    if not os.path.isfile(init):  # neither installed nor a checkout: let the import fail
        return
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[root])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
