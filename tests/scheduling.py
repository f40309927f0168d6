"""How pytest-xdist hands the suite's files to its workers (tests/conftest.py installs it).

The suite's time is numba compiling (tests/durations.md): the first test of a file pays for the
kernels it meets, later tests load them. xdist's ``--dist loadfile`` keeps a file on one
worker, so a kernel compiles once per worker at most; two changes on top of it:

- ``GROUPS``: files that meet the same slow kernels run as one unit, one after the other on
  one worker. Run on two workers at once, each compiled those kernels itself (neither had
  cached them yet): the pairs here are the ones a compile log of the whole suite caught
  compiling the same kernel twice (bench/compile_profile.py, whose per-file table is where
  ``COST`` comes from).
- ``COST``: the units start slowest first (longest processing time first), so no worker
  picks up a minute-long file when the other has nothing left. xdist's own order is by the
  number of tests, which says little about compile time. A file not listed costs the median.
"""

from __future__ import annotations

import os
import statistics
from collections import OrderedDict

from xdist.scheduler import LoadFileScheduling

# Files that compile the same kernels: {file: unit}. From the compile log of a cold run of the
# suite (2026-11-29, `compile_profile.py --schedule`), plus test_batch_derivatives.py and
# test_step_derivatives_contacts.py, which an earlier log caught compiling the batch step
# derivatives (about a minute) at once.
GROUPS: dict[str, str] = {
    'test_admm.py': 'test_admm', 'test_urdf.py': 'test_admm',
    'test_fuzz_api.py': 'test_fuzz_api', 'test_jacobians.py': 'test_fuzz_api',
    'test_reliability.py': 'test_fuzz_api', 'test_study.py': 'test_study',
    'test_study_hostile.py': 'test_study',
    'test_batch_derivatives.py': 'test_batch_derivatives',
    'test_step_derivatives_contacts.py': 'test_batch_derivatives',
}

# Seconds each file took in that cold run (its tests' times summed; the machine was shared, so
# only their order matters).
COST: dict[str, float] = {
    'test_codegen.py': 869, 'test_fuzz_api.py': 735, 'test_codegen_derivatives.py': 572,
    'test_admm.py': 377, 'test_softness.py': 311, 'test_scene_closed_loops.py': 230,
    'test_generated_contact_step.py': 209, 'test_batch_derivatives.py': 189,
    'test_collision_geoms.py': 173, 'test_scene_geoms.py': 139, 'test_compile_groups.py': 126,
    'test_simulator.py': 120, 'test_study.py': 119, 'test_precompile.py': 113,
    'test_urdf.py': 110, 'test_step_derivatives.py': 105, 'test_reliability.py': 91,
    'test_rollout_generated.py': 88, 'test_compile_notice.py': 78, 'test_study_hostile.py': 74,
    'test_collision_broadphase.py': 71, 'test_jacobians.py': 55, 'test_cache_safety.py': 51,
    'test_jit_policy.py': 46, 'test_regressors.py': 43,
    'test_constraint_dynamics_derivatives.py': 42, 'test_centroidal.py': 41,
    'test_constraint_dynamics.py': 38, 'test_step_derivatives_contacts.py': 37,
    'test_rotations.py': 36, 'test_readme.py': 33, 'test_inertia_batches.py': 32,
    'test_memory.py': 31, 'test_sim_reliability.py': 23, 'test_study_dask.py': 22,
    'test_startup.py': 22, 'test_house.py': 20, 'test_all_terms.py': 18,
    'test_viewer_browser.py': 18, 'test_active_set.py': 18, 'test_derivatives.py': 17,
    'test_npz_hostile.py': 15, 'test_scene_stacks.py': 15, 'test_spatial.py': 14,
    'test_docs.py': 12, 'test_codegen_hostile.py': 11, 'test_delassus.py': 9,
    'test_kinematics_derivatives.py': 8, 'test_viewer.py': 8, 'test_mimic.py': 7,
    'test_examples.py': 7, 'test_fuzz_urdf.py': 7, 'test_integrator_physics.py': 7,
    'test_user_njit.py': 6, 'test_parameters.py': 6, 'test_mjcf_hostile.py': 5,
    'test_mjcf.py': 4, 'test_computed_torque.py': 4, 'test_collision_closed_forms.py': 4,
    'test_api_fast_paths.py': 4, 'test_source_tree.py': 4, 'test_demo.py': 3,
    'test_representations.py': 3, 'test_configuration.py': 3, 'test_numba_internals.py': 2,
    'test_payload.py': 2, 'test_joints.py': 2, 'test_mjcf_constraints.py': 1,
    'test_models.py': 1, 'test_collision_certificate.py': 1, 'test_sincos.py': 1,
    'test_mjcf_twin.py': 1, 'test_collision_coal.py': 1, 'test_srdf.py': 1,
    'test_contact_solver.py': 1, 'test_mjcf_mesh_inertia.py': 1, 'test_joint_coupling.py': 1,
    'test_aba.py': 1, 'test_batch_kinematics_derivatives.py': 1, 'test_crba.py': 0,
    'test_scene_grasp.py': 0, 'test_rnea.py': 0, 'test_scene_step.py': 0, 'test_ik.py': 0,
    'test_constraint_batches.py': 0, 'test_energy.py': 0, 'test_cholesky.py': 0,
    'test_parameter_batches.py': 0, 'test_simulator_mujoco.py': 0, 'test_threads.py': 0,
    'test_scene_geoms_mujoco.py': 0, 'test_rollout_frames.py': 0, 'test_dense.py': 0,
    'test_builder.py': 0, 'test_apidoc.py': 0, 'test_mjcf_includes_fromto.py': 0,
    'test_batch.py': 0, 'test_simulate.py': 0, 'test_standing.py': 0, 'test_coriolis.py': 0,
    'test_horizon.py': 0, 'test_names.py': 0, 'test_collision_bad_input.py': 0,
    'test_joint_inputs_oracle.py': 0, 'test_bad_input.py': 0, 'test_simulate_oracle.py': 0,
}


class FileGroups(LoadFileScheduling):
    """``loadfile`` with GROUPS' files joined into one unit and the units in COST's order."""

    def __init__(self, config, log=None):
        super().__init__(config, log)
        self._ordered = False

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return GROUPS.get(os.path.basename(path), path)

    def _assign_work_unit(self, node) -> None:
        if not self._ordered:  # the queue is complete when the first unit is handed out
            self._ordered = True
            default = statistics.median(COST.values()) if COST else 0.0

            def cost(ids) -> float:  # a unit's files' costs, summed
                files = {os.path.basename(n.split("::", 1)[0]) for n in ids}
                return sum(COST.get(f, default) for f in files)

            self.workqueue = OrderedDict(sorted(self.workqueue.items(),
                                                key=lambda kv: -cost(kv[1])))
        super()._assign_work_unit(node)
