"""The kernel groups ``fastdyn compile`` knows: what each compiles, and which public calls
then start warm.

A group is one first call (or a few) on a small input: numba compiles what the call needs, or
loads it from the disk cache. The compiled code is the same for every model (joint types are
dispatched at run time), so a group warmed on the bundled quadruped serves every robot.
``COVERS`` lists, for each group, the public functions whose first call it makes warm;
``tests/test_compile_groups.py`` fails when a public function of fastdyn (its top level,
``fastdyn.batch``, Scene's stepping calls, studies) is in no group and not in ``NO_KERNEL``.
Not covered by any group: a user's own policy (it is compiled with the rollout loop for its
own argument types) and a robot's generated kernels (``fastdyn.codegen.generate`` compiles
them per robot, into their own cache).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

# group -> (rough compile time on the 2-core machine [s], the public calls it makes warm);
# the times balance the processes' shares and need not be exact.
GROUPS: dict[str, tuple[float, tuple[str, ...]]] = {
    "batch.rnea": (5.0, ("batch.rnea",)),
    "batch.aba": (13.0, ("batch.aba",)),
    "batch.crba": (8.0, ("batch.crba",)),
    "batch.forward_kinematics": (4.0, ("batch.forward_kinematics",)),
    "batch.simulate": (18.0, ("batch.simulate",)),
    "batch.derivatives": (25.0, ("batch.compute_rnea_derivatives",
                                 "batch.compute_aba_derivatives")),
    "batch.kinematics_derivatives": (20.0, (
        "batch.get_joint_velocity_derivatives", "batch.get_joint_acceleration_derivatives",
        "batch.get_frame_velocity_derivatives", "batch.get_frame_acceleration_derivatives",
        "batch.compute_centroidal_dynamics_derivatives")),
    "batch.constrained": (15.0, ("batch.constraint_dynamics", "batch.impulse_dynamics")),
    "rnea": (3.5, ("rnea", "non_linear_effects", "compute_generalized_gravity",
                   "compute_static_torque")),
    "aba": (6.5, ("aba",)),
    "crba": (4.0, ("crba", "cholesky", "cholesky_solve", "compute_minverse")),
    "forward_kinematics": (2.0, ("forward_kinematics", "update_frame_placements",
                                 "frames_forward_kinematics", "frame_placement",
                                 "joint_placement", "center_of_mass")),
    "jacobians": (4.0, ("compute_joint_jacobians", "compute_joint_jacobian",
                        "compute_frame_jacobian", "compute_joint_jacobians_time_variation",
                        "frame_jacobian_time_variation", "get_frame_velocity",
                        "get_frame_acceleration", "get_frame_classical_acceleration")),
    "centroidal": (8.0, ("jacobian_center_of_mass", "jacobian_subtree_center_of_mass",
                         "compute_centroidal_map", "ccrba", "dccrba",
                         "compute_centroidal_momentum",
                         "compute_centroidal_momentum_time_variation")),
    "mechanical_energy": (1.7, ("compute_kinetic_energy", "compute_potential_energy",
                                "compute_mechanical_energy")),
    "configuration": (3.0, ("neutral", "integrate", "difference", "interpolate",
                            "random_configuration", "normalize", "is_normalized",
                            "d_integrate", "d_difference", "minimum_jerk",
                            "batch.random_configuration")),
    "simulate": (8.0, ("simulate",)),
    "derivatives": (15.0, ("compute_rnea_derivatives", "compute_aba_derivatives",
                           "compute_generalized_gravity_derivatives",
                           "compute_static_torque_derivatives")),
    "kinematics_derivatives": (15.0, (
        "compute_forward_kinematics_derivatives", "get_joint_velocity_derivatives",
        "get_joint_acceleration_derivatives", "get_frame_velocity_derivatives",
        "get_frame_acceleration_derivatives", "compute_centroidal_dynamics_derivatives")),
    "parameter_derivatives": (10.0, ("compute_aba_parameter_derivatives",)),
    "regressors": (8.0, ("dynamic_parameters", "compute_joint_torque_regressor",
                         "compute_kinetic_energy_regressor",
                         "compute_potential_energy_regressor", "compute_static_regressor",
                         "batch.compute_joint_torque_regressor", "sample_parameters",
                         "parameter_batch")),
    "ik": (10.0, ("inverse_kinematics", "batch.inverse_kinematics")),
    "tick": (20.0, ("compute_all_terms", "computed_torque", "forward_step")),
    "constrained": (17.0, ("constraint_table", "constraint_dynamics", "impulse_dynamics")),
    "constrained_derivatives": (25.0, ("compute_constraint_dynamics_derivatives",
                                       "compute_impulse_dynamics_derivatives")),
    "scene.step": (25.0, ("Scene.step",)),
    "scene.step_derivatives": (70.0, ("Scene.step_derivatives", "batch.step_derivatives",
                                      "Scene.horizon")),
    "scene.rollout": (60.0, ("Scene.rollout",)),
    "study": (15.0, ("study.run",)),
}

# Public calls that compile no kernel of their own (pure Python, or only the checks every
# Model runs, which the first load warms).
NO_KERNEL = frozenset({"load_urdf", "load_mjcf", "save_npz", "load_npz"})


def _inputs(model):
    from .. import configuration

    rng = np.random.default_rng(0)
    Q = np.array([configuration.random_configuration(model, rng) for _ in range(2)])
    V = rng.normal(size=(2, model.nv))
    return model.create_data(), Q, V


def _batch(name: str, model) -> None:
    from .. import batch

    _, Q, V = _inputs(model)
    frame = model.nframes - 1
    if name == "batch.rnea":
        batch.rnea(model, Q, V, V)
    elif name == "batch.aba":
        batch.aba(model, Q, V, V)
    elif name == "batch.crba":
        batch.crba(model, Q)
    elif name == "batch.forward_kinematics":
        batch.forward_kinematics(model, Q)
    elif name == "batch.simulate":
        batch.simulate(model, Q, V, np.zeros((2, 2, model.nv)), 1e-3)
    elif name == "batch.derivatives":
        batch.compute_rnea_derivatives(model, Q, V, V)
        batch.compute_aba_derivatives(model, Q, V, V)
    elif name == "batch.kinematics_derivatives":
        batch.get_joint_velocity_derivatives(model, Q, V, model.njoints - 1)
        batch.get_frame_acceleration_derivatives(model, Q, V, V, frame)
        batch.compute_centroidal_dynamics_derivatives(model, Q, V, V)
    elif name == "batch.constrained":
        cs = _feet(model)
        batch.constraint_dynamics(model, Q, V, V, cs, mu=1e-9)
        batch.impulse_dynamics(model, Q, V, cs, mu=1e-9)


def _feet(model):
    from ..constraints import RigidConstraint
    from ..sim.standing import QUADRUPED_FEET

    return [RigidConstraint(model, 3, f) for f in QUADRUPED_FEET]


def _single(name: str, model) -> None:
    from .. import (centroidal, configuration, constrained_dynamics,
                    constrained_dynamics_derivatives, derivatives, dynamics, ik, jacobians,
                    kinematics, kinematics_derivatives, parameter_derivatives, regressors,
                    tick)

    data, Q, V = _inputs(model)
    q, v = Q[0], V[0]
    frame = model.nframes - 1
    if name == "rnea":
        dynamics.rnea(model, data, q, v, v)
    elif name == "aba":
        dynamics.aba(model, data, q, v, v)
    elif name == "crba":
        dynamics.crba(model, data, q)
    elif name == "forward_kinematics":
        kinematics.forward_kinematics(model, data, q)
        kinematics.frame_placement(model, data, frame)
    elif name == "jacobians":
        jacobians.compute_joint_jacobians(model, data, q)
        jacobians.compute_frame_jacobian(model, data, q, frame)
    elif name == "centroidal":
        centroidal.ccrba(model, data, q, v)
        centroidal.dccrba(model, data, q, v)
    elif name == "mechanical_energy":
        dynamics.compute_mechanical_energy(model, data, q, v)
    elif name == "configuration":
        q2 = configuration.integrate(model, q, v)
        configuration.difference(model, q, q2)
        configuration.normalize(model, q2)
    elif name == "simulate":
        from .. import sim
        sim.simulate(model, q, v, np.zeros((2, model.nv)), 1e-3)
    elif name == "derivatives":
        derivatives.compute_rnea_derivatives(model, data, q, v, v)
        derivatives.compute_aba_derivatives(model, data, q, v, v)
    elif name == "kinematics_derivatives":
        kinematics_derivatives.compute_forward_kinematics_derivatives(model, data, q, v, v)
        kinematics_derivatives.get_frame_velocity_derivatives(model, data, frame)
    elif name == "parameter_derivatives":
        parameter_derivatives.compute_aba_parameter_derivatives(model, data, q, v, v)
    elif name == "regressors":
        regressors.compute_joint_torque_regressor(model, data, q, v, v)
    elif name == "ik":
        ik.inverse_kinematics(model, data, frame, np.eye(4), q)
    elif name == "tick":
        tick.compute_all_terms(model, data, q, v, frame)
        tau = tick.computed_torque(model, data, q, v, q, v, v, 1.0, 1.0, frame)
        tick.forward_step(model, data, q, v, tau, 1e-3)
    elif name == "constrained":
        constrained_dynamics.constraint_dynamics(model, data, q, v, v, _feet(model), mu=1e-9)
        constrained_dynamics.impulse_dynamics(model, data, q, v, _feet(model), mu=1e-9)
    elif name == "constrained_derivatives":
        cs = _feet(model)
        constrained_dynamics_derivatives.compute_constraint_dynamics_derivatives(
            model, data, q, v, v, cs)
        constrained_dynamics_derivatives.compute_impulse_dynamics_derivatives(
            model, data, q, v, cs)


def _simulator(name: str, model) -> None:
    from .. import study
    from ..sim.standing import standing_scene

    scene, q0, kp, kd = standing_scene()  # (the kernels are the same for every model)
    model = scene.model
    v0 = np.zeros(model.nv)
    if name == "scene.step":
        scene.step(q0, v0, np.zeros(model.nv))
    elif name == "scene.step_derivatives":
        scene.step_derivatives(q0, v0, np.zeros(model.nv))
        scene.horizon(q0, v0, np.zeros((2, model.nv)))  # (step_derivatives' code, looped)
    elif name == "scene.rollout":
        scene.rollout(q0, v0, 2, kp=kp, kd=kd, record=())  # the built-in PD controller
    elif name == "study":
        sampler = study.ParameterSampler(model, mass=0.1)
        Q = np.array([q0, q0])
        study.run(model, sampler, study.InverseDynamics(Q, np.zeros((2, model.nv)),
                                                        np.zeros((2, model.nv))), n=2, seed=0)


def first_call(name: str, model) -> None:
    """Make group ``name``'s first calls on ``model`` (what compiles or loads its kernels)."""
    if name not in GROUPS:
        raise ValueError(f"unknown kernel group {name!r}; known: {', '.join(GROUPS)}")
    run: Callable = (_batch if name.startswith("batch.") else
                     _simulator if name.startswith(("scene.", "study")) else _single)
    run(name, model)
