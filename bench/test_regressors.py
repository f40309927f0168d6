"""Dynamic regressors against Pinocchio's, one call from Python each, and the parameter
sampler. (Not yet in report.py's tables: read the groups from pytest-benchmark's output,
``pytest bench/test_regressors.py``.)"""

import numpy as np
import pinocchio as pin

import fastdyn as fd
from bench.ladder import tag


def test_torque_regressor_fastdyn(benchmark, robot):
    r = robot
    fd.compute_joint_torque_regressor(r.model, r.data, r.q, r.v, r.a)
    tag(benchmark, "single", "torque-regressor", r, "fastdyn")
    benchmark(fd.compute_joint_torque_regressor, r.model, r.data, r.q, r.v, r.a)


def test_torque_regressor_pinocchio(benchmark, robot):
    r = robot
    pin.computeJointTorqueRegressor(r.pm, r.pd, r.q, r.v, r.a)
    tag(benchmark, "single", "torque-regressor", r, "pinocchio")
    benchmark(pin.computeJointTorqueRegressor, r.pm, r.pd, r.q, r.v, r.a)


def test_kinetic_regressor_fastdyn(benchmark, robot):
    r = robot
    fd.compute_kinetic_energy_regressor(r.model, r.data, r.q, r.v)
    tag(benchmark, "single", "kinetic-regressor", r, "fastdyn")
    benchmark(fd.compute_kinetic_energy_regressor, r.model, r.data, r.q, r.v)


def test_kinetic_regressor_pinocchio(benchmark, robot):
    r = robot
    pin.computeKineticEnergyRegressor(r.pm, r.pd, r.q, r.v)
    tag(benchmark, "single", "kinetic-regressor", r, "pinocchio")
    benchmark(pin.computeKineticEnergyRegressor, r.pm, r.pd, r.q, r.v)


def test_sample_parameters(benchmark, robot):
    """10,000 physically consistent inertia samples (the issue's target: <= 0.1 s)."""
    r = robot
    kw = dict(seed=0, mass=0.1, com=0.01, inertia=0.1)
    fd.sample_parameters(r.model, 10, **kw)
    tag(benchmark, "single", "sample-10000", r, "fastdyn")
    benchmark.pedantic(fd.sample_parameters, (r.model, 10_000), kw, rounds=5, warmup_rounds=1)


def test_sample_inertias_pinocchio_loop(benchmark, robot):
    """What a Pinocchio user writes for the same: 10,000 x the bodies' pin.Inertia from
    perturbed (m, c, I), in Python (no consistency guarantee)."""
    r = robot
    rng = np.random.default_rng(0)
    bodies = [r.pm.inertias[i] for i in range(1, r.pm.njoints)]

    def sample():
        out = []
        for _ in range(10_000):
            out.append([pin.Inertia(b.mass * np.exp(0.1 * rng.standard_normal()),
                                    b.lever + 0.01 * rng.standard_normal(3), b.inertia)
                        for b in bodies])
        return out

    tag(benchmark, "single", "sample-10000", r, "pinocchio")
    benchmark.pedantic(sample, rounds=2, warmup_rounds=0)
