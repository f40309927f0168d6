"""``import fastdyn`` from a source checkout: give the package its kernels.

Installed, ``kernels/`` is the subpackage ``fastdyn.kernels`` (pyproject's package-dir maps
it). In a checkout that is imported directly (``python -m pytest`` from the repository root
puts the checkout first on sys.path), ``kernels/`` sits beside ``fastdyn/`` instead, and
``fastdyn.kernels`` would not import. This registers it under that name, once, before anything
imports it; installed packages and an editable install of this same checkout find it on their
own and are left alone. An editable install of *another* checkout (a second git worktree
beside the one installed) would otherwise hand this checkout's ``fastdyn`` that checkout's
kernels: the checkout's own ``kernels/`` wins.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def link_kernels() -> None:
    name = "fastdyn.kernels"
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # fastdyn/
    if name in sys.modules or os.path.isfile(os.path.join(here, "kernels", "__init__.py")):
        return  # imported already, or installed (a subpackage of fastdyn/)
    root = os.path.join(os.path.dirname(here), "kernels")
    init = os.path.join(root, "__init__.py")
    if not os.path.isfile(init):  # neither installed nor a checkout: let the import fail
        return
    found = importlib.util.find_spec(name)
    if found is not None and found.origin and os.path.isfile(found.origin) \
            and os.path.samefile(found.origin, init):
        return  # an editable install of this checkout
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[root])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    setattr(sys.modules["fastdyn"], "kernels", module)  # as the import system would
    spec.loader.exec_module(module)
