"""Old module paths of fastdyn 0.1, kept importable for one release with a DeprecationWarning.

The package moved into wings (fastdyn/sim, batch, study, io, cli, _internal) and the kernels'
algorithms into algorithms, contact, linalg and entry. ``import fastdyn.scene`` and
``from fastdyn.kernels.algorithms import pgs`` still work: a finder on ``sys.meta_path``
answers for exactly the names below, hands back the module that now holds the code (the same
module object, so its classes and functions are the same objects) and warns once per name.
Private modules (``fastdyn._checks`` ...) are not redirected. Remove after the next release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

# old path -> new path, both under "fastdyn."
MOVED = {
    "apidoc": "cli.apidoc",
    "batch_derivatives": "batch.derivatives",
    "batch_kinematics_derivatives": "batch.kinematics_derivatives",
    "demo": "cli.demo",
    "kernels.algorithms.aba_parameter_derivatives": "kernels.entry.aba_parameter_derivatives",
    "kernels.algorithms.active_set": "kernels.contact.active_set",
    "kernels.algorithms.admm": "kernels.contact.admm",
    "kernels.algorithms.all_terms": "kernels.entry.all_terms",
    "kernels.algorithms.batch": "kernels.entry.batch",
    "kernels.algorithms.batch_derivatives": "kernels.entry.batch_derivatives",
    "kernels.algorithms.batch_inertias": "kernels.entry.batch_inertias",
    "kernels.algorithms.batch_kinematics_derivatives": "kernels.entry.batch_kinematics_derivatives",
    "kernels.algorithms.cholesky": "kernels.linalg.cholesky",
    "kernels.algorithms.computed_torque": "kernels.entry.computed_torque",
    "kernels.algorithms.constraint_derivatives": "kernels.contact.constraint_derivatives",
    "kernels.algorithms.constraint_rows": "kernels.contact.constraint_rows",
    "kernels.algorithms.controllers": "kernels.contact.controllers",
    "kernels.algorithms.delassus": "kernels.contact.delassus",
    "kernels.algorithms.dense": "kernels.linalg.dense",
    "kernels.algorithms.forward_step": "kernels.entry.forward_step",
    "kernels.algorithms.gauss": "kernels.linalg.gauss",
    "kernels.algorithms.generated_step": "kernels.contact.generated_step",
    "kernels.algorithms.generated_step_derivatives": "kernels.contact.generated_step_derivatives",
    "kernels.algorithms.guard": "kernels.entry.guard",
    "kernels.algorithms.guard_api": "kernels.entry.guard_api",
    "kernels.algorithms.ik": "kernels.entry.ik",
    "kernels.algorithms.parameter_check": "kernels.entry.parameter_check",
    "kernels.algorithms.pgs": "kernels.contact.pgs",
    "kernels.algorithms.regressor_product": "kernels.entry.regressor_product",
    "kernels.algorithms.rollout": "kernels.entry.rollout",
    "kernels.algorithms.softness": "kernels.contact.softness",
    "kernels.algorithms.step_derivatives": "kernels.contact.step_derivatives",
    "kernels.algorithms.time_step": "kernels.contact.time_step",
    "montecarlo_demo": "cli.montecarlo_demo",
    "parsers": "io",
    "parsers._mjcf_build": "io._mjcf_build",
    "parsers._mjcf_doc": "io._mjcf_doc",
    "parsers._mjcf_math": "io._mjcf_math",
    "parsers._xml": "io._xml",
    "parsers.description": "io.description",
    "parsers.mjcf": "io.mjcf",
    "parsers.urdf": "io.urdf",
    "precompile": "cli.precompile",
    "scene": "sim.scene",
    "simulate_demo": "cli.simulate_demo",
    "simulation": "sim.simulation",
    "step_derivatives": "sim.step_derivatives",
    "study_dask": "study.cluster",
    "study_plot": "study.plot",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("fastdyn.") or fullname[8:] not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        new = "fastdyn." + MOVED[spec.name[8:]]
        warnings.warn(f"{spec.name} moved to {new}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module):
        # the import system has set __spec__ to the alias's: give the module its own back
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())  # before the path finder: a stale folder must not win
