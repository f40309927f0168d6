"""fastdyn: rigid-body dynamics for Python, Numba kernels over flat NumPy model arrays.

    import fastdyn as fd
    model = fd.samples.manipulator()        # or fd.load_urdf("robot.urdf"), fd.load_mjcf("robot.xml")
    data = model.create_data()              # one per thread
    tau = fd.rnea(model, data, q, v, a)     # a view into data: copy to keep

Conventions (stated in the README's Conventions section): spatial vectors linear first,
Pinocchio's q/v layout, LOCAL / WORLD / LOCAL_WORLD_ALIGNED frames (``fastdyn.LOCAL`` ...). The
kernels themselves live in ``fastdyn.kernels`` and can be called from your own ``@numba.njit``
code.
"""

import gc as _gc

from ._internal import (compile_notice as _compile_notice, deprecated as _deprecated,
                        moved as _moved, source_tree as _source_tree,  # noqa: F401
                        startup as _startup)  # (compile_notice listens)

_source_tree.link_kernels()  # a source checkout's kernels/ (an installed one has its own)
_moved.install()  # fastdyn 0.1's module paths, deprecated (fastdyn/_internal/moved.py)

_gc_was_enabled = _gc.isenabled()
_gc.disable()  # why: see fastdyn/_internal/startup.py
try:
    from . import (batch, configuration, errors, models, parameters, representations,
                   samples, study)
    from .centroidal import (ccrba, compute_centroidal_map, compute_centroidal_momentum,
                             compute_centroidal_momentum_time_variation, dccrba,
                             jacobian_center_of_mass, jacobian_subtree_center_of_mass)
    from .builder import ModelBuilder
    from .derivatives import (compute_aba_derivatives, compute_generalized_gravity_derivatives,
                              compute_rnea_derivatives, compute_static_torque_derivatives)
    from .constrained_dynamics import constraint_dynamics, impulse_dynamics
    from .constrained_dynamics_derivatives import (compute_constraint_dynamics_derivatives,
                                                   compute_impulse_dynamics_derivatives)
    from .constraints import CONTACT_3D, CONTACT_6D, RigidConstraint, constraint_table
    from .coupling import JointCoupling
    from .configuration import (d_difference, d_integrate, difference, integrate, interpolate,
                                is_normalized, minimum_jerk, neutral, normalize,
                                random_configuration)
    from .dynamics import (aba, cholesky, cholesky_solve, compute_generalized_gravity,
                           compute_kinetic_energy, compute_mechanical_energy, compute_minverse,
                           compute_potential_energy, compute_static_torque, crba,
                           non_linear_effects, rnea)
    from .kernels.joints.codes import NAMES as JOINT_TYPES
    from .kernels.layout import BODY_FRAME, FIXED_JOINT_FRAME, JOINT_FRAME, OP_FRAME, SENSOR_FRAME
    from .kinematics_derivatives import (compute_centroidal_dynamics_derivatives,
                                         compute_forward_kinematics_derivatives,
                                         get_frame_acceleration_derivatives,
                                         get_frame_velocity_derivatives,
                                         get_joint_acceleration_derivatives,
                                         get_joint_velocity_derivatives)
    from .kinematics import (center_of_mass, forward_kinematics, frame_placement,
                             frames_forward_kinematics, joint_placement, update_frame_placements)
    from .frames import LOCAL, LOCAL_WORLD_ALIGNED, WORLD
    from .ik import IKBatchResult, IKResult, inverse_kinematics
    from .io.npz import load_npz, save_npz
    from .jacobians import (compute_frame_jacobian, compute_joint_jacobian,
                            compute_joint_jacobians, compute_joint_jacobians_time_variation,
                            frame_jacobian_time_variation, get_frame_acceleration,
                            get_frame_classical_acceleration, get_frame_velocity)
    from .model import Data, Model
    from .parameter_derivatives import compute_aba_parameter_derivatives
    from .parameters import Payload, parameter_batch, sample_parameters
    from .errors import (CacheWarning, ConstraintError, ConvergenceWarning, DivergenceError,
                         MJCFError, MJCFWarning, MimicNotSupportedError, NumericalOverflowError,
                         RolloutWarning, SingularConstraintError, SingularMassMatrixError,
                         URDFError, URDFWarning)
    from .io import load_mjcf, load_urdf
    from .regressors import (compute_joint_torque_regressor,
                             compute_kinetic_energy_regressor,
                             compute_potential_energy_regressor, compute_static_regressor,
                             dynamic_parameters)
    from .sim.scene import Rollout, Scene
    from .sim.simulation import simulate
    from .tick import compute_all_terms, computed_torque, forward_step
    from . import view
    from .view import Viewer
    _startup.warm_numba()
finally:
    _startup.settle(_gc_was_enabled)

__version__ = "0.1.0"

__all__ = [
    "Model", "Data", "ModelBuilder", "samples", "parameters", "study", "JOINT_TYPES",
    "OP_FRAME", "JOINT_FRAME", "FIXED_JOINT_FRAME", "BODY_FRAME", "SENSOR_FRAME",
    "forward_kinematics", "update_frame_placements", "frames_forward_kinematics",
    "frame_placement", "joint_placement", "center_of_mass",
    "rnea", "non_linear_effects", "compute_generalized_gravity", "compute_static_torque", "crba",
    "cholesky", "cholesky_solve", "compute_minverse", "aba", "compute_kinetic_energy",
    "compute_potential_energy", "compute_mechanical_energy", "SingularMassMatrixError",
    "NumericalOverflowError", "simulate",
    "Scene", "Rollout", "Viewer", "view", "RolloutWarning", "ConvergenceWarning",
    "DivergenceError", "batch",
    "configuration",
    "neutral", "integrate", "difference", "interpolate", "random_configuration", "normalize",
    "is_normalized", "d_integrate", "d_difference", "minimum_jerk", "models", "load_urdf",
    "URDFError", "load_mjcf", "MJCFError",
    "save_npz", "load_npz", "LOCAL", "WORLD", "LOCAL_WORLD_ALIGNED", "representations",
    "compute_joint_jacobians", "compute_joint_jacobian", "compute_frame_jacobian",
    "compute_joint_jacobians_time_variation", "frame_jacobian_time_variation",
    "get_frame_velocity", "get_frame_acceleration", "get_frame_classical_acceleration",
    "jacobian_center_of_mass",
    "jacobian_subtree_center_of_mass", "compute_centroidal_map", "ccrba", "dccrba",
    "compute_centroidal_momentum", "compute_centroidal_momentum_time_variation",
    "inverse_kinematics", "IKResult", "IKBatchResult",
    "dynamic_parameters", "compute_joint_torque_regressor", "compute_kinetic_energy_regressor",
    "compute_potential_energy_regressor", "compute_static_regressor",
    "sample_parameters", "Payload", "parameter_batch",
    "compute_rnea_derivatives", "compute_aba_derivatives",
    "compute_generalized_gravity_derivatives", "compute_static_torque_derivatives",
    "compute_aba_parameter_derivatives",
    "compute_forward_kinematics_derivatives", "get_joint_velocity_derivatives",
    "get_joint_acceleration_derivatives", "get_frame_velocity_derivatives",
    "get_frame_acceleration_derivatives", "compute_centroidal_dynamics_derivatives",
    "compute_all_terms", "computed_torque", "forward_step", "errors", "URDFWarning",
    "MJCFWarning", "MimicNotSupportedError", "CacheWarning", "RigidConstraint", "CONTACT_3D",
    "CONTACT_6D", "JointCoupling", "constraint_table", "constraint_dynamics", "impulse_dynamics",
    "compute_constraint_dynamics_derivatives", "compute_impulse_dynamics_derivatives",
    "ConstraintError", "SingularConstraintError",
]

# Names of fastdyn 0.1, kept for one release (fastdyn/docs/names.md: the naming rule).
_RENAMED = {
    "nonlinear_effects": "non_linear_effects",
    "generalized_gravity": "compute_generalized_gravity",
    "static_torque": "compute_static_torque",
    "kinetic_energy": "compute_kinetic_energy",
    "potential_energy": "compute_potential_energy",
    "mechanical_energy": "compute_mechanical_energy",
    "joint_jacobian": "compute_joint_jacobian",
    "frame_jacobian": "compute_frame_jacobian",
    "frame_velocity": "get_frame_velocity",
    "frame_acceleration": "get_frame_acceleration",
    "frame_classical_acceleration": "get_frame_classical_acceleration",
    "batch_joint_torque_regressor": "batch.compute_joint_torque_regressor",
    "inverse_kinematics_batch": "batch.inverse_kinematics",
    "frame_pose": "kinematics.frame_pose",  # dropped: frame_placement(...)[:3, :3], [:3, 3]
    "joint_pose": "kinematics.joint_pose",  # dropped: joint_placement(...)[:3, :3], [:3, 3]
}


def __getattr__(name: str):
    return _deprecated.renamed(__name__, name, _RENAMED)
