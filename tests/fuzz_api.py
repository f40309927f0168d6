"""Argument fuzzing of fastdyn's public API: the machinery behind tests/test_fuzz_api.py.

For every public call (``CALLS``) a case is built from a seed: valid arguments on one of a few
small models, the clean call's answer (copied: results are views into Data), then ONE argument
replaced by a mutant (``CATALOG``: wrong shape, dtype, NaN, a float index, another model's
Data, ...). The oracle (``judge``) accepts only
  - a "clear error": ValueError, TypeError, KeyError, IndexError or RuntimeError (not
    AttributeError, not a numba typing error, not ZeroDivisionError), with a message that names
    the argument or the offending value; or
  - the clean answer (to 1e-12 relative), for mutants that carry the same values (a list, a
    strided view) or, for float32 / int arrays, the answer of the float64 of the same values.
Each mutation says which of the two it must be (``SAME``, ``CONVERT``, ``REFUSE``, ``EITHER``...):
the table is ``CATALOG``, one list per kind of argument. A huge finite entry (1e200) may give a
finite answer, or a ValueError / ArithmeticError naming the argument or the overflow. For path
arguments FileNotFoundError and its siblings count as clear. A non-finite answer without an
error is always a failure, and so is any answer to a NaN input. After every mutant the clean call is made again on
the same Data and must still give the clean answer (a refused call must not leave it broken).

Cases whose mutant reaches a kernel that does not check its arguments (``Call.risky``) run in a
child process, so that a crash is reported as a failure instead of killing pytest.

Reproduce one case:  python tests/fuzz_api.py CALL MODEL ARG MUTATION SEED
(the failure messages print that line). ``python tests/fuzz_api.py --list`` lists the calls.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import traceback
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

import fastdyn as fd
from fastdyn import batch as fdb
from fastdyn import representations as fdr
from fastdyn.kernels.layout import P_Q_LOWER
from fastdyn.kernels.joints import codes

TESTS_DIR = Path(__file__).resolve().parent
RTOL = 1e-12  # "the clean answer": same values to this, relative to the answer's scale
HUGE = 1e200  # finite, but its square overflows

# --- models: small ones, built once per process ---------------------------------------------

MODEL_MAKERS = {
    "manipulator": fd.samples.manipulator,
    "humanoid": fd.samples.humanoid,  # free-flyer, spherical, continuous, universal, helical
    # seed 3: free-flyer, spherical, planar and continuous joints (quaternions and (cos, sin))
    "tree_free": lambda: fd.samples.random_tree(8, seed=3, root="freeflyer"),
    "double_pendulum": fd.samples.double_pendulum,
}
MODEL_NAMES = tuple(MODEL_MAKERS)
# "a model of another robot": always of another size, so no call can accept it by accident
OTHER = {"manipulator": "humanoid", "humanoid": "manipulator", "tree_free": "double_pendulum",
         "double_pendulum": "tree_free"}
_models: dict[str, Any] = {}
_pin_models: dict[str, Any] = {}


def get_model(name: str):
    if name not in _models:
        _models[name] = MODEL_MAKERS[name]()
    return _models[name]


def pin_model(name: str):
    """The Pinocchio twin (tests/oracle.py): what a user mixing the two libraries would pass."""
    if name not in _pin_models:
        sys.path.insert(0, str(TESTS_DIR))
        from oracle import to_pinocchio
        _pin_models[name] = to_pinocchio(get_model(name))
    return _pin_models[name]


def is_free(model) -> bool:
    return model.njoints > 1 and int(model.jnt[1]["type"]) == codes.FREEFLYER


def unit_parts(model) -> list[tuple[int, int]]:
    """(offset in q, length) of every quaternion and (cos, sin) pair, from the raw joint table
    (not from fastdyn's own checks, which are under test)."""
    out = []
    for r in model.jnt[1:]:
        t, iq = int(r["type"]), int(r["idx_q"])
        if t == codes.FREEFLYER:
            out.append((iq + 3, 4))
        elif t == codes.SPHERICAL:
            out.append((iq, 4))
        elif t == codes.PLANAR:
            out.append((iq + 2, 2))
        elif t in codes.LIE_TYPES:  # continuous joints: (cos, sin)
            out.append((iq, 2))
    return out


# --- case context ---------------------------------------------------------------------------

@dataclass
class Ctx:
    model_name: str
    model: Any
    rng: np.random.Generator  # draws the clean values
    mrng: np.random.Generator  # draws inside a mutation (which entry gets the NaN, ...)
    tmp: Path | None = None

    @property
    def other_name(self) -> str:
        return OTHER[self.model_name]

    def tmpdir(self) -> Path:
        if self.tmp is None:
            self.tmp = Path(tempfile.mkdtemp(prefix="fastdyn-fuzz-"))
        return self.tmp


def _crc(s: str) -> int:
    return zlib.crc32(s.encode())


# --- arguments --------------------------------------------------------------------------------

@dataclass
class Arg:
    """One parameter: its name, kind (selects the mutations in CATALOG) and a maker of the
    clean value, make(ctx, values so far). ``hidden`` values are used by ``prepare`` only.
    ``optional``: None is a valid value with another meaning, so it is not a mutation here.
    ``words``: other words an error message may use to name this argument."""
    name: str
    kind: str
    make: Callable
    hidden: bool = False
    optional: bool = False
    words: tuple[str, ...] = ()
    opts: dict = field(default_factory=dict)


def _q(ctx, _):
    return fd.random_configuration(ctx.model, ctx.rng)


def _q_unnormalized(ctx, _):
    q = _q(ctx, _)
    for o, k in unit_parts(ctx.model):
        q[o:o + k] *= ctx.rng.uniform(0.5, 2.0)
    return q


def _v(ctx, _):
    return ctx.rng.normal(size=ctx.model.nv)


def _fext(ctx, _):
    return ctx.rng.normal(size=(ctx.model.njoints, 6))


def _joint(ctx, _):
    return int(ctx.rng.integers(1, ctx.model.njoints))


def _frame(ctx, _):
    return int(ctx.rng.integers(1, ctx.model.nframes))


def _reference(ctx, _):
    return int(ctx.rng.choice([fd.LOCAL, fd.WORLD, fd.LOCAL_WORLD_ALIGNED]))


def _representation(ctx, _):
    return str(ctx.rng.choice([fdr.BODY_FIXED, fdr.MIXED, fdr.INERTIAL])) if is_free(ctx.model) \
        else fdr.BODY_FIXED


NROWS, NSTEPS = 2, 3


def _Q(ctx, _):
    return np.stack([_q(ctx, _) for _ in range(NROWS)])


def _V(ctx, _):
    return ctx.rng.normal(size=(NROWS, ctx.model.nv))


def _target(ctx, values):
    """A reachable pose of the frame: its placement at a random configuration."""
    m = ctx.model
    d = m.create_data()
    fd.forward_kinematics(m, d, _q(ctx, values))
    return np.array(fd.frame_placement(m, d, values["frame"]))


def _last_frame(model) -> int:
    """A frame of the model's last joint (its support has every dof of that branch)."""
    return int(np.flatnonzero(model.frm["parent_joint"] == model.njoints - 1)[0])


def _constraints(ctx, _):
    """A point contact at the last joint's frame: well posed on the models with 6 dofs or more
    on that branch (the Call's ``needs``)."""
    return [fd.RigidConstraint(ctx.model, fd.CONTACT_3D, _last_frame(ctx.model), kd=1.0)]


def _targets(ctx, values):
    return np.stack([_target(ctx, values) for _ in range(NROWS)])


def A(name, kind, make, **kw):
    return Arg(name, kind, make, **kw)


def MODEL():
    return A("model", "model", lambda ctx, _: ctx.model)


def DATA():
    return A("data", "data", lambda ctx, _: ctx.model.create_data())


def Q(name="q", **kw):
    return A(name, "q", _q, **kw)


def V(name="v", **kw):
    return A(name, "v", _v, **kw)


def FEXT(optional=True):
    return A("fext", "fext", _fext, optional=optional)


def OUT(shape):
    return A("out", "out", lambda ctx, _: None, opts={"shape": shape})


def JOINT(name="joint", low=1):
    return A(name, "joint", lambda ctx, _: int(ctx.rng.integers(low, ctx.model.njoints)))


def FRAME(name="frame"):
    return A(name, "frame", _frame)


def REFERENCE():
    return A("reference", "reference", _reference)


def CONSTRAINTS():
    return A("constraints", "constraints", _constraints, words=("constraint",))


def _six_dofs(model) -> bool:
    return int(model.frm["parent_joint"].max()) > 0 and model.nv >= 6


def REPRESENTATION(name="representation"):
    return A(name, "choice", _representation,
             opts={"valid": (fdr.BODY_FIXED, fdr.MIXED, fdr.INERTIAL)}, words=("representation",))


# --- calls ------------------------------------------------------------------------------------

@dataclass
class Call:
    name: str
    fn: Callable  # fn(**{arg.name: value for the non-hidden args})
    args: list[Arg]
    needs: Callable = lambda m: True  # which models the call applies to
    prepare: Callable | None = None  # prepare(values): what the call reads from data
    observe: Callable | None = None  # observe(result, values) -> the answer to compare
    model_only: bool = False  # the model is its only model-sized input: another one is valid
    risky: tuple[str, ...] = ()  # mutants of these arguments run in a child process
    models: tuple[str, ...] = MODEL_NAMES

    def arg(self, name: str) -> Arg:
        return next(a for a in self.args if a.name == name)

    def invoke(self, values: dict):
        return self.fn(**{a.name: values[a.name] for a in self.args if not a.hidden})


def _fk_prepare(level):
    def prepare(values):
        m, d = values["model"], values["data"]
        fd.forward_kinematics(m, d, values["q_fk"], *( [values["v_fk"]] if level >= 2 else []),
                              *([values["a_fk"]] if level >= 3 else []))
    return prepare


def _kd_prepare(values):
    fd.compute_forward_kinematics_derivatives(values["model"], values["data"], values["q_fk"],
                                              values["v_fk"], values["a_fk"])


def _fk_hidden(level):
    out = [A("q_fk", "q", _q, hidden=True)]
    if level >= 2:
        out.append(A("v_fk", "v", _v, hidden=True))
    if level >= 3:
        out.append(A("a_fk", "v", _v, hidden=True))
    return out


def _observe_fk(result, values):
    d = values["data"]
    return (d.oMi_R, d.oMi_p, d.v, d.a)


def _fingerprint(m):
    """A Model as numbers: sizes, names and every field of its joint and frame tables."""
    parts = [np.array([m.nq, m.nv, m.njoints, m.nframes], dtype=float), m.prm.ravel()]
    for table in (m.jnt, m.frm):
        for f in table.dtype.names:
            parts.append(np.asarray(table[f], dtype=float).ravel())
    x = np.concatenate(parts)
    x[np.isinf(x)] = np.sign(x[np.isinf(x)]) * 1e300  # unlimited joints: a fingerprint, finite
    def names(ns):  # a name that is not a str shows as its repr ("None", "5")
        return "|".join(n if isinstance(n, str) else repr(n) for n in ns)
    return (x, names(m.joint_names), names(m.frame_names))


def _observe_all_terms(result, values):
    d = values["data"]
    return (d.M, d.nle, d.J, d.oMf, d.J_frame, d.com, d.vcom, d.Jcom, d.oMi_p, d.v)


def _observe_data(result, values):
    return tuple(np.array(x.shape) for x in vars(result).values() if isinstance(x, np.ndarray))


def _cholesky_prepare(values):
    fd.crba(values["model"], values["data"], values["q_fk"])
    fd.cholesky(values["model"], values["data"])


def _urdf_path(ctx, _):
    return str(fd.models.path("double_pendulum"))


_MJCF = """<mujoco model="cartpole"><worldbody>
  <body name="cart"><joint name="slider" type="slide" axis="1 0 0" range="-1 1"/>
    <geom type="box" size=".2 .1 .05"/>
    <body name="pole"><joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 .6" size=".045"/><site name="tip" pos="0 0 .6"/>
    </body>
  </body>
</worldbody></mujoco>
"""


def _mjcf_path(ctx, _):
    p = ctx.tmpdir() / "cartpole.xml"
    p.write_text(_MJCF)
    return str(p)


def _npz_path(ctx, _):
    p = ctx.tmpdir() / "model.npz"
    fd.save_npz(ctx.model, p)
    return str(p)


def _save_and_load(model, path):
    """The model read back from where save_npz wrote it; a save that wrote somewhere else than
    ``path`` (or ``path`` + ".npz") answers "lost", which no clean call answers."""
    fd.save_npz(model, path)
    for p in (Path(os.fspath(path)), Path(os.fspath(path) + ".npz")):
        if str(path) and p.is_file():
            return _fingerprint(fd.load_npz(p))
    return ("lost: written elsewhere",)


def _builder_add_joint(name, type, parent, placement, lower, upper):
    """A two-joint model whose second joint comes from the fuzzed add_joint call."""
    b = fd.ModelBuilder("fuzz")
    j1 = b.add_joint("base", "revolute_z", 0, None)
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    j2 = b.add_joint(name, type, parent, placement, lower=lower, upper=upper)
    b.add_body(j2, 1.0, (0, 0.1, 0), np.eye(3) * 0.01)
    return _fingerprint(b.build())


def _rotation(ctx, _):
    x = ctx.rng.normal(size=4)
    x /= np.linalg.norm(x)
    a, b, c, d = x
    return np.array([[a*a + b*b - c*c - d*d, 2*(b*c - a*d), 2*(b*d + a*c)],
                     [2*(b*c + a*d), a*a - b*b + c*c - d*d, 2*(c*d - a*b)],
                     [2*(b*d - a*c), 2*(c*d + a*b), a*a - b*b - c*c + d*d]])


def _ik(model, data, frame, target, q0, task, tol, max_iter, seed):
    return fd.inverse_kinematics(model, data, frame, target, q0, task=task, tol=tol,
                                 max_iter=max_iter, seed=seed)


def _ik_batch(model, frame, targets, q0, task, tol, max_iter, seed):
    return fdb.inverse_kinematics(model, frame, targets, q0, task=task, tol=tol,
                                  max_iter=max_iter, seed=seed)


def _ik_args():
    return [A("task", "choice", lambda c, _: "pose", opts={"valid": ("position", "orientation",
                                                                      "pose")}),
            A("tol", "positive", lambda c, _: 1e-10),
            A("max_iter", "count", lambda c, _: 20),
            A("seed", "count", lambda c, _: int(c.rng.integers(0, 100)), opts={"seed": True})]


FREE = is_free
ONE = ("manipulator",)  # calls that do not depend on the sample models run once

CALLS: list[Call] = [
    # kinematics
    Call("forward_kinematics", fd.forward_kinematics,
         [MODEL(), DATA(), Q(), V(optional=True), V("a", optional=True)], observe=_observe_fk),
    Call("update_frame_placements", fd.update_frame_placements, [MODEL(), DATA()] + _fk_hidden(1),
         prepare=_fk_prepare(1)),
    Call("frames_forward_kinematics", fd.frames_forward_kinematics, [MODEL(), DATA(), Q()]),
    Call("frame_placement", fd.frame_placement, [MODEL(), DATA(), FRAME()] + _fk_hidden(1),
         prepare=_fk_prepare(1)),
    Call("joint_placement", fd.joint_placement, [MODEL(), DATA(), JOINT()] + _fk_hidden(1),
         prepare=_fk_prepare(1)),
    Call("center_of_mass", fd.center_of_mass, [MODEL(), DATA(), Q(), V(optional=True),
                                               V("a", optional=True)]),
    # dynamics
    Call("rnea", fd.rnea, [MODEL(), DATA(), Q(), V(), V("a"), FEXT()]),
    Call("non_linear_effects", fd.non_linear_effects, [MODEL(), DATA(), Q(), V()]),
    Call("compute_generalized_gravity", fd.compute_generalized_gravity, [MODEL(), DATA(), Q()]),
    # fext=None is "no external forces" across the API, static_torque included
    Call("compute_static_torque", fd.compute_static_torque, [MODEL(), DATA(), Q(), FEXT()]),
    Call("crba", fd.crba, [MODEL(), DATA(), Q()]),
    Call("cholesky", fd.cholesky, [MODEL(), DATA(), Q("q_fk", hidden=True)],
         prepare=lambda vals: fd.crba(vals["model"], vals["data"], vals["q_fk"])),
    Call("cholesky_solve", fd.cholesky_solve,
         [MODEL(), DATA(), V("b"), OUT(lambda m: (m.nv,)), Q("q_fk", hidden=True)],
         prepare=_cholesky_prepare, risky=("out",)),
    Call("compute_minverse", fd.compute_minverse, [MODEL(), DATA(), Q()]),
    Call("aba", fd.aba, [MODEL(), DATA(), Q(), V(), V("tau"), FEXT()]),
    # rigid constraints (fastdyn/constraints.py, fastdyn/constrained_dynamics.py)
    Call("constraint_dynamics", fd.constraint_dynamics,
         [MODEL(), DATA(), Q(), V(), V("tau"), CONSTRAINTS()], needs=_six_dofs),
    Call("impulse_dynamics", fd.impulse_dynamics,
         [MODEL(), DATA(), Q(), V("v_before"), CONSTRAINTS()], needs=_six_dofs),
    Call("compute_constraint_dynamics_derivatives", fd.compute_constraint_dynamics_derivatives,
         [MODEL(), DATA(), Q(), V(), V("tau"), CONSTRAINTS()], needs=_six_dofs),
    Call("compute_impulse_dynamics_derivatives", fd.compute_impulse_dynamics_derivatives,
         [MODEL(), DATA(), Q(), V("v_before"), CONSTRAINTS()], needs=_six_dofs),
    Call("constraint_table", fd.constraint_table, [MODEL(), CONSTRAINTS()], needs=_six_dofs,
         observe=lambda out, _: out["row"]),
    # a control loop's tick (fastdyn/tick.py)
    Call("compute_all_terms", fd.compute_all_terms,
         [MODEL(), DATA(), Q(), V(), A("frame", "frame", _frame, optional=True), REFERENCE()],
         observe=_observe_all_terms),
    Call("computed_torque", fd.computed_torque,
         [MODEL(), DATA(), Q(), V(), Q("q_ref"), V("v_ref"), V("a_ref"),
          A("kp", "real", lambda c, _: 25.0), A("kd", "gain", _v),
          A("frame", "frame", _frame, optional=True), REFERENCE()]),
    Call("forward_step", fd.forward_step,
         [MODEL(), DATA(), Q(), V(), V("tau"), A("dt", "positive", lambda c, _: 0.01), FEXT()]),
    Call("compute_kinetic_energy", fd.compute_kinetic_energy, [MODEL(), DATA(), Q(), V()]),
    # dynamics derivatives
    Call("compute_rnea_derivatives", fd.compute_rnea_derivatives,
         [MODEL(), DATA(), Q(), V(), V("a"), FEXT()]),
    Call("compute_aba_derivatives", fd.compute_aba_derivatives,
         [MODEL(), DATA(), Q(), V(), V("tau"), FEXT()]),
    Call("compute_generalized_gravity_derivatives", fd.compute_generalized_gravity_derivatives,
         [MODEL(), DATA(), Q()]),
    Call("compute_static_torque_derivatives", fd.compute_static_torque_derivatives,
         [MODEL(), DATA(), Q(), FEXT()]),
    Call("compute_aba_parameter_derivatives", fd.compute_aba_parameter_derivatives,
         [MODEL(), DATA(), Q(), V(), V("tau"), FEXT()]),
    # kinematics and centroidal derivatives
    Call("compute_forward_kinematics_derivatives", fd.compute_forward_kinematics_derivatives,
         [MODEL(), DATA(), Q(), V(), V("a")], observe=_observe_fk),
    *[Call(f"get_{kind}_{what}_derivatives", getattr(fd, f"get_{kind}_{what}_derivatives"),
           [MODEL(), DATA(), JOINT() if kind == "joint" else FRAME(), REFERENCE()]
           + _fk_hidden(3), prepare=_kd_prepare)
      for kind in ("joint", "frame") for what in ("velocity", "acceleration")],
    Call("compute_centroidal_dynamics_derivatives", fd.compute_centroidal_dynamics_derivatives,
         [MODEL(), DATA(), Q(), V(), V("a")]),
    # regressors
    Call("dynamic_parameters", fd.dynamic_parameters, [MODEL()], model_only=True),
    Call("sample_parameters", fd.sample_parameters,
         [MODEL(), A("n", "count", lambda c, _: 3),
          A("seed", "seed", lambda c, _: int(c.rng.integers(0, 1000))),
          A("mass", "nonnegative", lambda c, _: 0.1), A("com", "nonnegative", lambda c, _: 0.01),
          A("inertia", "nonnegative", lambda c, _: 0.1)], model_only=True),
    Call("parameter_batch", fd.parameter_batch,
         # pi's leading axis is the number of robots: any N >= 1 is a valid batch
         [MODEL(), A("pi", "V3", lambda c, _: fd.sample_parameters(c.model, 3, seed=0),
                     opts={"rows_free": True, "middle_fixed": True})],
         observe=lambda out, _: out[..., :P_Q_LOWER],  # limits may be +-inf: not compared
         model_only=True),
    Call("compute_joint_torque_regressor", fd.compute_joint_torque_regressor,
         [MODEL(), DATA(), Q(), V(), V("a")]),
    Call("compute_kinetic_energy_regressor", fd.compute_kinetic_energy_regressor,
         [MODEL(), DATA(), Q(), V()]),
    Call("compute_potential_energy_regressor", fd.compute_potential_energy_regressor,
         [MODEL(), DATA(), Q()]),
    Call("compute_static_regressor", fd.compute_static_regressor, [MODEL(), DATA(), Q()]),
    Call("compute_potential_energy", fd.compute_potential_energy, [MODEL(), DATA(), Q()]),
    Call("compute_mechanical_energy", fd.compute_mechanical_energy, [MODEL(), DATA(), Q(), V()]),
    Call("simulate", fd.simulate,
         [MODEL(), Q("q0"), V("v0"),
          A("torques", "torques", lambda c, _: c.rng.normal(size=(NSTEPS, c.model.nv))),
          A("dt", "positive", lambda c, _: 0.01)]),
    # configuration spaces
    Call("neutral", fd.neutral, [MODEL()], model_only=True),
    Call("integrate", fd.integrate, [MODEL(), Q(), V(), A("dt", "real", lambda c, _: 0.5)]),
    Call("difference", fd.difference, [MODEL(), Q("q0"), Q("q1")]),
    Call("interpolate", fd.interpolate,
         [MODEL(), Q("q0"), Q("q1"), A("u", "real", lambda c, _: float(c.rng.uniform(0, 1)))]),
    Call("minimum_jerk", fd.minimum_jerk,
         [MODEL(), Q("q0"), Q("q1"), A("duration", "positive", lambda c, _: 0.5),
          A("steps", "count", lambda c, _: 5)]),
    Call("random_configuration", fd.random_configuration,
         [MODEL(), A("rng_or_seed", "seed", lambda c, _: int(c.rng.integers(0, 1000))),
          A("lower", "bounds", lambda c, _: -1.0 - c.rng.random(c.model.nq), optional=True),
          A("upper", "bounds", lambda c, _: 1.0 + c.rng.random(c.model.nq), optional=True)]),
    Call("normalize", fd.normalize, [MODEL(), A("q", "qany", _q_unnormalized)]),
    Call("is_normalized", fd.is_normalized,
         [MODEL(), A("q", "qany", _q), A("tol", "nonnegative", lambda c, _: 1e-9)]),
    Call("d_integrate", fd.d_integrate,
         [MODEL(), Q(), V(), A("arg", "choice", lambda c, _: str(c.rng.choice(["q", "v"])),
                               opts={"valid": ("q", "v")})]),
    Call("d_difference", fd.d_difference,
         [MODEL(), Q("q0"), Q("q1"),
          A("arg", "choice", lambda c, _: str(c.rng.choice(["q0", "q1"])),
            opts={"valid": ("q0", "q1")})]),
    # Jacobians and frame motion
    Call("compute_joint_jacobians", fd.compute_joint_jacobians, [MODEL(), DATA(), Q()]),
    Call("compute_joint_jacobian", fd.compute_joint_jacobian,
         [MODEL(), DATA(), Q(), JOINT(), REFERENCE(), OUT(lambda m: (6, m.nv))], risky=("out",)),
    Call("compute_frame_jacobian", fd.compute_frame_jacobian,
         [MODEL(), DATA(), Q(), FRAME(), REFERENCE(), OUT(lambda m: (6, m.nv))], risky=("out",)),
    Call("compute_joint_jacobians_time_variation", fd.compute_joint_jacobians_time_variation,
         [MODEL(), DATA(), Q(), V()]),
    Call("frame_jacobian_time_variation", fd.frame_jacobian_time_variation,
         [MODEL(), DATA(), Q(), V(), FRAME(), REFERENCE(), OUT(lambda m: (6, m.nv))],
         risky=("out",)),
    Call("get_frame_velocity", fd.get_frame_velocity, [MODEL(), DATA(), FRAME(), REFERENCE()]
         + _fk_hidden(2), prepare=_fk_prepare(2)),
    Call("get_frame_acceleration", fd.get_frame_acceleration, [MODEL(), DATA(), FRAME(), REFERENCE()]
         + _fk_hidden(3), prepare=_fk_prepare(3)),
    Call("get_frame_classical_acceleration", fd.get_frame_classical_acceleration,
         [MODEL(), DATA(), FRAME(), REFERENCE()] + _fk_hidden(3), prepare=_fk_prepare(3)),
    # centre of mass and centroidal dynamics
    Call("jacobian_center_of_mass", fd.jacobian_center_of_mass, [MODEL(), DATA(), Q()]),
    Call("jacobian_subtree_center_of_mass", fd.jacobian_subtree_center_of_mass,
         [MODEL(), DATA(), Q(), JOINT()]),
    Call("compute_centroidal_map", fd.compute_centroidal_map, [MODEL(), DATA(), Q()]),
    Call("ccrba", fd.ccrba, [MODEL(), DATA(), Q(), V()]),
    Call("dccrba", fd.dccrba, [MODEL(), DATA(), Q(), V()]),
    Call("compute_centroidal_momentum", fd.compute_centroidal_momentum,
         [MODEL(), DATA(), Q(), V()]),
    Call("compute_centroidal_momentum_time_variation",
         fd.compute_centroidal_momentum_time_variation, [MODEL(), DATA(), Q(), V(), V("a")]),
    # inverse kinematics
    Call("inverse_kinematics", _ik,
         [MODEL(), DATA(), FRAME(), A("target", "pose", _target), Q("q0", optional=True)]
         + _ik_args()),
    Call("batch.inverse_kinematics", _ik_batch,
         [MODEL(), FRAME(), A("targets", "poses", _targets, words=("target",)),
          Q("q0", optional=True)]
         + _ik_args()),
    # batch
    Call("batch.rnea", fdb.rnea, [MODEL(), A("Q", "Q", _Q), A("V", "V", _V), A("A", "V", _V)]),
    Call("batch.compute_joint_torque_regressor", fdb.compute_joint_torque_regressor,
         [MODEL(), A("Q", "Q", _Q), A("V", "V", _V), A("A", "V", _V)]),
    Call("batch.aba", fdb.aba, [MODEL(), A("Q", "Q", _Q), A("V", "V", _V), A("TAU", "V", _V)]),
    Call("batch.crba", fdb.crba, [MODEL(), A("Q", "Q", _Q, opts={"rows_free": True})]),
    Call("batch.forward_kinematics", fdb.forward_kinematics,
         [MODEL(), A("Q", "Q", _Q, opts={"rows_free": True})]),
    Call("batch.simulate", fdb.simulate,
         [MODEL(), A("Q0", "Q", _Q), A("V0", "V", _V),
          A("TORQUES", "V3", lambda c, _: c.rng.normal(size=(NROWS, NSTEPS, c.model.nv))),
          A("dt", "positive", lambda c, _: 0.01)]),
    # velocity representations and the Coriolis matrix
    Call("representations.coriolis_matrix", fdr.coriolis_matrix,
         [MODEL(), DATA(), Q(), V(), REPRESENTATION()]),
    Call("representations.transform", fdr.transform, [MODEL(), DATA(), Q(), REPRESENTATION()],
         needs=FREE),
    Call("representations.convert_velocity", fdr.convert_velocity,
         [MODEL(), DATA(), Q(), V(), REPRESENTATION("source"), REPRESENTATION("target")],
         needs=FREE),
    Call("representations.mass_matrix", fdr.mass_matrix, [MODEL(), DATA(), Q(),
                                                          REPRESENTATION()], needs=FREE),
    Call("representations.bias", fdr.bias, [MODEL(), DATA(), Q(), V(), REPRESENTATION(),
                                            FEXT()], needs=FREE),
    Call("representations.jacobian", fdr.jacobian,
         [MODEL(), DATA(), Q(), FRAME(), REFERENCE(), REPRESENTATION()], needs=FREE),
    Call("representations.forward_dynamics", fdr.forward_dynamics,
         [MODEL(), DATA(), Q(), V(), V("tau"), REPRESENTATION(), FEXT()], needs=FREE),
    # the Model's methods, Data
    Call("Model.joint_id", lambda model, name: model.joint_id(name),
         [A("model", "receiver", lambda c, _: c.model),
          A("name", "name", lambda c, _: c.model.joint_names[_joint(c, _)],
            opts={"names": "joint_names"})]),
    Call("Model.frame_id", lambda model, name: model.frame_id(name),
         [A("model", "receiver", lambda c, _: c.model),
          A("name", "name", lambda c, _: c.model.frame_names[_frame(c, _)],
            opts={"names": "frame_names"})]),
    Call("Model.joint_type", lambda model, j: model.joint_type(j),
         [A("model", "receiver", lambda c, _: c.model), JOINT("j")]),
    Call("Model.create_data", lambda model: model.create_data(),
         [A("model", "receiver", lambda c, _: c.model)], observe=_observe_data),
    Call("Data", fd.Data, [MODEL()], observe=_observe_data, model_only=True),
    # files and the builder
    Call("load_urdf", lambda path_or_xml, root_joint: _fingerprint(
        fd.load_urdf(path_or_xml, root_joint=root_joint)),
         [A("path_or_xml", "urdf", _urdf_path, words=("XML", "URDF")),
          A("root_joint", "root_joint", lambda c, _: None)], models=ONE),
    Call("load_mjcf", lambda path_or_xml, root_joint: _fingerprint(
        fd.load_mjcf(path_or_xml, root_joint=root_joint)),
         [A("path_or_xml", "mjcf", _mjcf_path, words=("XML", "MJCF")),
          A("root_joint", "root_joint", lambda c, _: None)], models=ONE),
    Call("save_npz", _save_and_load,
         [MODEL(), A("path", "path_out", lambda c, _: str(c.tmpdir() / "saved.npz"))],
         model_only=True),
    Call("load_npz", lambda path: _fingerprint(fd.load_npz(path)),
         [A("path", "path_in", _npz_path)]),
    Call("ModelBuilder.add_joint", _builder_add_joint,
         [A("name", "joint_name_new", lambda c, _: "j2"),
          A("type", "joint_type", lambda c, _: "revolute_y"),
          A("parent", "joint", lambda c, _: 1, opts={"names": ("universe", "base"), "n": 2}),
          A("placement", "placement",
            lambda c, _: (_rotation(c, _), c.rng.uniform(-0.5, 0.5, 3))),
          A("lower", "limit", lambda c, _: -1.0), A("upper", "limit", lambda c, _: 1.0)],
         models=ONE),
]
CALLS_BY_NAME = {c.name: c for c in CALLS}


# --- mutations --------------------------------------------------------------------------------

SAME = "same"  # must return the clean answer
CONVERT = "convert"  # must behave as the call with ref_updates (float64 of the same values)
REFUSE = "refuse"  # must raise a clear error
REFUSE_TYPE = "refuse: TypeError"  # must raise a clear TypeError
REFUSE_VALUE = "refuse: ValueError"  # must raise a clear ValueError
EITHER = "either"  # the clean answer or a clear error
OVERFLOW = "finite answer or clear error"  # huge finite input: a finite answer, or an error
EXPECTS = (SAME, CONVERT, REFUSE, REFUSE_TYPE, REFUSE_VALUE, EITHER, OVERFLOW)


@dataclass
class Mutant:
    updates: dict  # argument name -> mutant value (two for a pickled (model, data) pair)
    ref: dict | None = None  # CONVERT: the float64 values the mutant stands for
    prepare: bool = False  # run the call's prepare on the mutant's Data (a fresh Data)
    desc: str = ""


@dataclass
class Mutation:
    name: str
    expect: str
    make: Callable  # make(ctx, values, arg) -> Mutant, a bare value, or None (not applicable)
    core: bool = False  # always part of the small run
    relational: bool = False  # breaks a relation between arguments: any of them may be named


def _one(arg, value, **kw):
    return Mutant({arg.name: value}, **kw)


def M(name, expect, make, core=False, relational=False):
    return Mutation(name, expect, make, core, relational)


# values ---------------------------------------------------------------------------------

def _int_config(model, q):
    """q rounded to integers, its quaternions and (cos, sin) pairs set to the nearest unit
    axis: a valid configuration an int array can hold."""
    qi = np.round(np.asarray(q, dtype=float))
    for o, k in unit_parts(model):
        part = np.asarray(q[..., o:o + k])
        e = np.zeros_like(part)
        idx = np.argmax(np.abs(part), axis=-1)
        np.put_along_axis(e, idx[..., None], np.sign(np.take_along_axis(part, idx[..., None],
                                                                        -1)), -1)
        qi[..., o:o + k] = e
    return qi.astype(np.int64)


def _strided(x):
    x = np.asarray(x)
    big = np.zeros(x.shape[:-1] + (2 * x.shape[-1] + 1,))
    big[..., 1::2] = x
    return big[..., 1::2]


def _reversed_view(x):
    return np.ascontiguousarray(np.asarray(x)[::-1])[::-1]


def _readonly(x):
    x = np.array(x)
    x.flags.writeable = False
    return x


def _tuple(x):
    return tuple(_tuple(r) for r in x) if isinstance(x, np.ndarray) and x.ndim > 1 else \
        tuple(np.asarray(x).tolist())


def _entry(ctx, x):
    return tuple(int(ctx.mrng.integers(s)) for s in np.shape(x))


def _set(ctx, arg, x, val, where=None):
    y = np.array(x, dtype=float)
    if y.size == 0:
        return None
    y[_entry(ctx, y) if where is None else where] = val
    return _one(arg, y)


def _nonunit(ctx, values, arg):
    parts = unit_parts(ctx.model)
    if arg.kind not in ("q", "Q") or not parts:
        return None
    o, k = parts[int(ctx.mrng.integers(len(parts)))]
    y = np.array(values[arg.name], dtype=float)
    y[..., o:o + k] *= 1.5
    return _one(arg, y, desc=f"q[{o}:{o + k}] scaled by 1.5")


def _convert(arg, mutant, ref):
    return Mutant({arg.name: mutant}, ref={arg.name: ref})


def _float32(ctx, values, arg):
    x = np.asarray(values[arg.name], dtype=np.float32)
    return _convert(arg, x, x.astype(np.float64))


def _int(ctx, values, arg):
    x = values[arg.name]
    xi = _int_config(ctx.model, x) if arg.kind in ("q", "Q") else \
        np.round(np.asarray(x)).astype(np.int64)
    return _convert(arg, xi, xi.astype(np.float64))


def _huge(ctx, values, arg):
    x = np.array(values[arg.name], dtype=float)
    if x.size == 0:
        return None
    k = _entry(ctx, x)
    x[k] = HUGE * (1 if ctx.mrng.random() < 0.5 else -1)
    return _one(arg, x, desc=f"entry {k} = {x[k]:g}")


def _shape_change(fn):
    def make(ctx, values, arg):
        x = np.asarray(values[arg.name])
        y = fn(x)
        return None if y is None or np.shape(y) == x.shape else _one(arg, y)
    return make


def _drop_row(x):
    return x[:-1] if x.ndim >= 2 and x.shape[0] > 0 else None


def _drop_middle(x):
    """One entry fewer along the middle axis of a 3-d table (a joint of pi), for arguments
    whose middle axis the model fixes (opts middle_fixed; a rollout's steps are free)."""
    return x[:, :-1] if x.ndim == 3 and x.shape[1] > 0 else None


def _drop_col(x):
    return x[..., :-1] if x.shape[-1] > 0 else None


def _add_col(x):
    return np.concatenate([x, np.zeros(x.shape[:-1] + (1,))], axis=-1)


def _transpose(x):
    return x.T if x.ndim == 2 and x.shape[0] != x.shape[1] else None


# The table. Array arguments (1-D state vectors and n-D stacks) share most entries; which
# mutations are "converted" and which "refused" is decided here and only here.
ARRAY_COMMON = [
    # same values, another container or layout: the clean answer
    M("list", SAME, lambda c, v, a: _one(a, np.asarray(v[a.name]).tolist()), core=True),
    M("tuple", SAME, lambda c, v, a: _one(a, _tuple(v[a.name]))),
    M("strided_view", SAME, lambda c, v, a: _one(a, _strided(v[a.name])), core=True),
    M("negative_stride_view", SAME, lambda c, v, a: _one(a, _reversed_view(v[a.name]))),
    M("fortran_order", SAME, lambda c, v, a: _one(a, np.asfortranarray(v[a.name]))
      if np.ndim(v[a.name]) > 1 else None),
    M("read_only", SAME, lambda c, v, a: _one(a, _readonly(v[a.name]))),
    # other real dtypes: the answer of the float64 of the same values
    M("float32", CONVERT, _float32, core=True),
    M("int64", CONVERT, _int),
    # not an array of reals
    M("complex", REFUSE, lambda c, v, a: _one(a, np.asarray(v[a.name]) + 0j)),
    M("bool", REFUSE, lambda c, v, a: _one(a, np.asarray(v[a.name]) > 0)),
    M("object", REFUSE, lambda c, v, a: _one(a, np.asarray(v[a.name]).astype(object))),
    M("str_array", REFUSE, lambda c, v, a: _one(a, np.asarray(v[a.name]).astype(str))),
    M("string", REFUSE, lambda c, v, a: _one(a, "fast")),
    M("none", REFUSE, lambda c, v, a: None if a.optional else _one(a, None), core=True),
    M("float_scalar", REFUSE, lambda c, v, a: _one(a, 0.5)),
    # wrong shapes
    M("short", REFUSE, _shape_change(lambda x: x[..., :-1] if x.shape[-1] else None), core=True),
    M("long", REFUSE, _shape_change(_add_col)),
    M("0d", REFUSE, _shape_change(lambda x: np.array(x.ravel()[0]) if x.size else None)),
    M("empty", REFUSE, _shape_change(lambda x: np.zeros(0))),
    M("add_axis", REFUSE, _shape_change(lambda x: x[None])),
    M("flattened", REFUSE, _shape_change(lambda x: x.ravel() if x.ndim > 1 else None)),
    # non-finite entries: never an answer
    M("nan", REFUSE, lambda c, v, a: _set(c, a, v[a.name], np.nan), core=True),
    M("inf", REFUSE, lambda c, v, a: None if a.opts.get("allow_inf") else
      _set(c, a, v[a.name], np.inf)),
    M("-inf", REFUSE, lambda c, v, a: None if a.opts.get("allow_inf") else
      _set(c, a, v[a.name], -np.inf)),
    # huge but finite: a finite answer, or an error naming the argument or the overflow
    M("huge", OVERFLOW, _huge, core=True),
]
VECTOR = ARRAY_COMMON + [
    M("column", REFUSE, _shape_change(lambda x: x[:, None])),
]
CONFIG_EXTRA = [M("non_unit_quaternion", REFUSE, _nonunit, core=True)]
MATRIX = ARRAY_COMMON + [
    M("transposed", REFUSE, _shape_change(_transpose)),
    M("drop_column", REFUSE, _shape_change(_drop_col)),
]
ROWS = [M("drop_row", REFUSE, lambda c, v, a: None if a.opts.get("rows_free") else
          _shape_change(_drop_row)(c, v, a), relational=True)]


def _pose_pair(c, v, a):
    T = np.asarray(v[a.name])
    return _one(a, (T[:3, :3].copy(), T[:3, 3].copy()))


def _scaled_rotation(c, v, a):
    T = np.array(v[a.name], dtype=float)
    T[..., :3, :3] *= 1.1
    return _one(a, T)


POSE = [m for m in MATRIX if m.name not in ("int64", "transposed")] + [
    M("R_p_pair", SAME, _pose_pair),
    M("not_a_rotation", REFUSE, _scaled_rotation),
]

# the state after a pickle round trip; a Data from another model


def _pickled(c, v, a):
    m2, d2 = pickle.loads(pickle.dumps((v["model"], v["data"])))
    return Mutant({"model": m2, "data": d2}, desc="(model, data) = pickle.loads(pickle.dumps("
                                                  "(model, data)))")


def _deepcopied(c, v, a):
    m2, d2 = copy.deepcopy((v["model"], v["data"]))
    return Mutant({"model": m2, "data": d2}, desc="(model, data) = copy.deepcopy((model, data))")


def _data_of_copy(c, v, a):
    _, d2 = pickle.loads(pickle.dumps((v["model"], v["data"])))
    return _one(a, d2, desc="the Data of a pickled copy of the model, with the original model")


def _other_data(c, v, a):
    om = get_model(c.other_name)
    d = om.create_data()
    fd.forward_kinematics(om, d, fd.neutral(om), np.zeros(om.nv), np.zeros(om.nv))
    return _one(a, d, desc=f"a Data of {c.other_name} (nq={om.nq}, nv={om.nv})")


def _model_copy(c, v, a):
    m2 = pickle.loads(pickle.dumps(v[a.name]))
    return _one(a, m2, desc="pickle.loads(pickle.dumps(model))")


DATA_MUTATIONS = [
    M("none", REFUSE_TYPE, lambda c, v, a: _one(a, None), core=True),
    M("other_model_data", REFUSE_VALUE, _other_data, core=True),
    M("pickled_pair", SAME, _pickled, core=True),
    M("deepcopied_pair", SAME, _deepcopied),
    M("data_of_pickled_model", EITHER, _data_of_copy),
    M("fresh_data", SAME, lambda c, v, a: _one(a, c.model.create_data(), prepare=True)),
    M("model_as_data", REFUSE, lambda c, v, a: _one(a, v["model"])),
    M("dict", REFUSE, lambda c, v, a: _one(a, {})),
]


def _model_mutations(with_data: bool):
    out = [
        M("none", REFUSE_TYPE, lambda c, v, a: _one(a, None), core=True),
        M("pinocchio_model", REFUSE_TYPE, lambda c, v, a: _one(a, pin_model(c.model_name),
                                                               desc="its Pinocchio twin"),
          core=True),
        M("other_model", REFUSE, lambda c, v, a: _one(a, get_model(c.other_name),
                                                      desc=f"the model {c.other_name}")),
        M("string", REFUSE, lambda c, v, a: _one(a, c.model_name)),
        M("data_as_model", REFUSE, lambda c, v, a: _one(a, c.model.create_data())),
        M("pickled_model", EITHER if with_data else SAME, _model_copy),
    ]
    return out


def _index_mutations():
    def n_of(c, a):
        return a.opts.get("n") or (c.model.nframes if a.kind == "frame" else c.model.njoints)

    def names(c, a):
        if "names" in a.opts:
            return a.opts["names"]
        return c.model.frame_names if a.kind == "frame" else c.model.joint_names

    def by_name(c, v, a):
        nm = names(c, a)
        i = v[a.name]
        return _one(a, nm[i]) if nm.index(nm[i]) == i else None  # names not unique: skip

    return [
        M("name", SAME, by_name),
        M("np.int64", SAME, lambda c, v, a: _one(a, np.int64(v[a.name]))),
        M("np.int32", SAME, lambda c, v, a: _one(a, np.int32(v[a.name]))),
        M("float_1.7", REFUSE_TYPE, lambda c, v, a: _one(a, 1.7), core=True),
        M("float_-0.9", REFUSE_TYPE, lambda c, v, a: _one(a, -0.9), core=True),
        M("np.float64_1.7", REFUSE_TYPE, lambda c, v, a: _one(a, np.float64(1.7))),
        M("integral_float", EITHER, lambda c, v, a: _one(a, float(v[a.name]))),
        M("True", REFUSE_TYPE, lambda c, v, a: _one(a, True), core=True),
        M("False", REFUSE_TYPE, lambda c, v, a: _one(a, False)),
        M("np.bool_", REFUSE_TYPE, lambda c, v, a: _one(a, np.True_)),
        M("negative", REFUSE, lambda c, v, a: _one(a, -1), core=True),
        M("out_of_range", REFUSE, lambda c, v, a: _one(a, n_of(c, a)), core=True),
        M("huge_int", REFUSE, lambda c, v, a: _one(a, 2**70)),
        M("unknown_name", REFUSE, lambda c, v, a: _one(a, "no_such_name"), core=True),
        M("digit_string", REFUSE, lambda c, v, a: None if str(v[a.name]) in names(c, a) else
          _one(a, str(v[a.name]))),
        M("none", REFUSE, lambda c, v, a: None if a.optional else _one(a, None)),
        M("list", REFUSE, lambda c, v, a: _one(a, [v[a.name]])),
    ]


def _scalar_mutations(kind):
    """dt, u, tol: real numbers. ``kind`` positive (simulate's dt, IK's tol), nonnegative
    (is_normalized's tol) or real (integrate's dt, interpolate's u)."""
    out = [
        M("np.float64", SAME, lambda c, v, a: _one(a, np.float64(v[a.name]))),
        M("0d_array", SAME, lambda c, v, a: _one(a, np.array(v[a.name]))),
        M("np.float32", CONVERT, lambda c, v, a: _convert(a, np.float32(v[a.name]),
                                                          float(np.float32(v[a.name])))),
        M("int", CONVERT, lambda c, v, a: _convert(a, max(1, int(round(v[a.name]))),
                                                   float(max(1, int(round(v[a.name])))))),
        M("1_element_array", EITHER, lambda c, v, a: _one(a, np.array([v[a.name]]))),
        M("nan", REFUSE, lambda c, v, a: _one(a, float("nan")), core=True),
        M("inf", REFUSE, lambda c, v, a: _one(a, float("inf"))),
        M("string", REFUSE, lambda c, v, a: _one(a, str(v[a.name])), core=True),
        M("none", REFUSE, lambda c, v, a: _one(a, None)),
        M("True", REFUSE, lambda c, v, a: _one(a, True), core=True),
        M("complex", REFUSE, lambda c, v, a: _one(a, complex(v[a.name], 1.0))),
        M("list", REFUSE, lambda c, v, a: _one(a, [v[a.name]])),
        M("huge", OVERFLOW, lambda c, v, a: _one(a, HUGE)),
    ]
    if kind in ("positive", "nonnegative"):
        out.append(M("negative", REFUSE, lambda c, v, a: _one(a, -abs(v[a.name]) - 0.01),
                     core=True))
    if kind == "positive":
        out.append(M("zero", REFUSE, lambda c, v, a: _one(a, 0.0)))
    return out


def _count_mutations():
    """Integers that are not indices: max_iter, seed."""
    return [
        M("np.int64", SAME, lambda c, v, a: _one(a, np.int64(v[a.name]))),
        M("float_1.7", REFUSE, lambda c, v, a: _one(a, v[a.name] + 0.7), core=True),
        M("True", REFUSE, lambda c, v, a: _one(a, True)),
        M("negative", REFUSE, lambda c, v, a: None if a.opts.get("seed") else _one(a, -1)),
        M("string", REFUSE, lambda c, v, a: _one(a, str(v[a.name]))),
        M("none", REFUSE, lambda c, v, a: _one(a, None)),
        M("nan", REFUSE, lambda c, v, a: _one(a, float("nan"))),
    ]


def _seed_mutations():
    return [
        M("np.int64", SAME, lambda c, v, a: _one(a, np.int64(v[a.name]))),
        M("generator", SAME, lambda c, v, a: _one(a, np.random.default_rng(v[a.name]))),
        M("float_1.7", REFUSE, lambda c, v, a: _one(a, v[a.name] + 0.7), core=True),
        M("negative", REFUSE, lambda c, v, a: _one(a, -1 - v[a.name])),
        M("True", REFUSE, lambda c, v, a: _one(a, True)),
        M("string", REFUSE, lambda c, v, a: _one(a, "seed")),
    ]


def _choice_mutations():
    def other_case(c, v, a):
        s = v[a.name]
        return None if s.upper() in a.opts["valid"] else _one(a, s.upper())
    return [
        M("np.str_", SAME, lambda c, v, a: _one(a, np.str_(v[a.name]))),
        M("upper_case", REFUSE, other_case, core=True),
        M("unknown", REFUSE, lambda c, v, a: _one(a, "bogus")),
        M("empty", REFUSE, lambda c, v, a: _one(a, "")),
        M("none", REFUSE, lambda c, v, a: _one(a, None), core=True),
        M("int", REFUSE, lambda c, v, a: _one(a, 1)),
        M("bytes", REFUSE, lambda c, v, a: _one(a, v[a.name].encode())),
        M("list", REFUSE, lambda c, v, a: _one(a, [v[a.name]])),
    ]


def _reference_mutations():
    def pin_ref(c, v, a):
        import pinocchio as pin
        return _one(a, pin.ReferenceFrame.WORLD)
    return [
        M("np.int64", SAME, lambda c, v, a: _one(a, np.int64(v[a.name]))),
        M("out_of_range", REFUSE, lambda c, v, a: _one(a, 3), core=True),
        M("negative", REFUSE, lambda c, v, a: _one(a, -1)),
        M("float", REFUSE, lambda c, v, a: _one(a, float(v[a.name]))),
        M("True", REFUSE, lambda c, v, a: _one(a, True), core=True),
        M("string", REFUSE, lambda c, v, a: _one(a, "WORLD"), core=True),
        M("pinocchio_enum", REFUSE, pin_ref, core=True),
        M("none", REFUSE, lambda c, v, a: _one(a, None)),
    ]


def _out_mutations():
    def arr(fn):
        def make(c, v, a):
            return _one(a, fn(a.opts["shape"](c.model)))
        return make

    def ro(s):
        x = np.zeros(s)
        x.flags.writeable = False
        return x
    return [
        M("correct_out", SAME, arr(np.zeros), core=True),
        M("int64", REFUSE, arr(lambda s: np.zeros(s, dtype=np.int64)), core=True),
        M("float32", REFUSE, arr(lambda s: np.zeros(s, dtype=np.float32))),
        M("complex", REFUSE, arr(lambda s: np.zeros(s, dtype=complex))),
        M("short", REFUSE, arr(lambda s: np.zeros(s[:-1] + (s[-1] - 1,))), core=True),
        M("long", REFUSE, arr(lambda s: np.zeros(s[:-1] + (s[-1] + 1,)))),
        M("add_axis", REFUSE, arr(lambda s: np.zeros((1,) + s))),
        M("strided", REFUSE, arr(lambda s: _strided(np.zeros(s))), core=True),
        M("fortran", REFUSE, lambda c, v, a: _one(a, np.asfortranarray(np.zeros(
            a.opts["shape"](c.model)))) if len(a.opts["shape"](c.model)) > 1 else None),
        M("read_only", REFUSE, arr(ro)),
        M("list", REFUSE, arr(lambda s: np.zeros(s).tolist())),
        M("string", REFUSE, lambda c, v, a: _one(a, "out")),
    ]


def _constraints_mutations():
    def other_model(c, v, a):
        m = get_model(c.other_name)
        return _one(a, [fd.RigidConstraint(m, fd.CONTACT_3D, _last_frame(m))],
                    desc=f"a constraint of the model {c.other_name}")
    return [
        M("tuple", SAME, lambda c, v, a: _one(a, tuple(v[a.name]))),
        M("bare", SAME, lambda c, v, a: _one(a, v[a.name][0])),
        M("none", REFUSE_TYPE, lambda c, v, a: _one(a, None), core=True),
        M("string", REFUSE_TYPE, lambda c, v, a: _one(a, "contact")),
        M("nested", REFUSE_TYPE, lambda c, v, a: _one(a, [v[a.name]])),
        M("other_model", REFUSE, other_model, core=True),
    ]


def _name_mutations():
    def names(c, a):
        return getattr(c.model, a.opts["names"])
    return [
        M("np.str_", SAME, lambda c, v, a: _one(a, np.str_(v[a.name]))),
        M("unknown", REFUSE, lambda c, v, a: _one(a, "no_such_name"), core=True),
        M("padded", REFUSE, lambda c, v, a: _one(a, " " + v[a.name])),
        M("int", REFUSE, lambda c, v, a: _one(a, names(c, a).index(v[a.name]))),
        M("none", REFUSE, lambda c, v, a: _one(a, None), core=True),
        M("bytes", REFUSE, lambda c, v, a: _one(a, v[a.name].encode())),
        M("list", REFUSE, lambda c, v, a: _one(a, [v[a.name]])),
    ]


def _file_mutations(direction):
    def missing(c, v, a):
        return _one(a, str(c.tmpdir() / "no_such_dir" / "x.npz"))
    out = [
        M("pathlib.Path", SAME, lambda c, v, a: _one(a, Path(v[a.name]))),
        M("missing", REFUSE, missing, core=True),
        M("none", REFUSE, lambda c, v, a: _one(a, None), core=True),
        M("empty_string", REFUSE, lambda c, v, a: _one(a, "")),
        M("float", REFUSE, lambda c, v, a: _one(a, 1.7)),
    ]
    if direction == "in":  # (saving to "dir" writes "dir.npz", as numpy documents)
        out.append(M("directory", REFUSE, lambda c, v, a: _one(a, str(c.tmpdir()))))
        def not_npz(c, v, a):
            return _one(a, _urdf_path(c, v))

        def foreign_npz(c, v, a):
            p = c.tmpdir() / "foreign.npz"
            np.savez(p, x=np.zeros(3))
            return _one(a, str(p))
        out += [M("not_an_npz", REFUSE, not_npz), M("foreign_npz", REFUSE, foreign_npz)]
    return out


def _urdf_mutations():
    def text(c, v, a):
        return _one(a, Path(v[a.name]).read_text())

    def raw(c, v, a):
        return _one(a, Path(v[a.name]).read_bytes())
    return [
        M("pathlib.Path", SAME, lambda c, v, a: _one(a, Path(v[a.name]))),
        M("xml_text", SAME, text),
        M("xml_bytes", SAME, raw),
        M("missing", REFUSE, lambda c, v, a: _one(a, "/no/such/robot.urdf"), core=True),
        M("none", REFUSE, lambda c, v, a: _one(a, None), core=True),
        M("int", REFUSE, lambda c, v, a: _one(a, 7)),
        M("truncated_xml", REFUSE, lambda c, v, a: _one(a, Path(v[a.name]).read_text()[:200])),
        M("empty_string", REFUSE, lambda c, v, a: _one(a, "")),
    ]


def _root_joint_mutations():
    return [
        M("unknown", REFUSE, lambda c, v, a: _one(a, "hovercraft"), core=True),
        M("int", REFUSE, lambda c, v, a: _one(a, 1)),
        M("float", REFUSE, lambda c, v, a: _one(a, 1.7)),
        M("True", REFUSE, lambda c, v, a: _one(a, True)),
        M("empty", REFUSE, lambda c, v, a: _one(a, "")),
    ]


def _new_name_mutations():
    return [
        M("np.str_", SAME, lambda c, v, a: _one(a, np.str_(v[a.name]))),
        M("duplicate", REFUSE, lambda c, v, a: _one(a, "base"), core=True),
        M("none", REFUSE, lambda c, v, a: _one(a, None), core=True),
        M("int", REFUSE, lambda c, v, a: _one(a, 5)),
        M("list", REFUSE, lambda c, v, a: _one(a, ["j2"])),
    ]


def _joint_type_mutations():
    return [
        M("code", SAME, lambda c, v, a: _one(a, codes.NAMES.index(v[a.name]))),
        M("np.int64_code", SAME, lambda c, v, a: _one(a, np.int64(codes.NAMES.index(v[a.name])))),
        M("upper_case", EITHER, lambda c, v, a: _one(a, v[a.name].upper())),
        M("unknown", REFUSE, lambda c, v, a: _one(a, "wobbly"), core=True),
        M("universe", REFUSE, lambda c, v, a: _one(a, "universe")),
        M("code_out_of_range", REFUSE, lambda c, v, a: _one(a, 99)),
        M("float_code", REFUSE_TYPE, lambda c, v, a: _one(a, codes.NAMES.index(v[a.name]) + 0.7),
          core=True),
        M("True", REFUSE_TYPE, lambda c, v, a: _one(a, True)),
        M("none", REFUSE, lambda c, v, a: _one(a, None)),
    ]


def _placement_mutations():
    def homogeneous(c, v, a):
        R, p = v[a.name]
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = R, p
        return _one(a, T)

    def with_R(fn):
        def make(c, v, a):
            R, p = v[a.name]
            return _one(a, (fn(np.array(R)), p))
        return make

    def nan_p(c, v, a):
        R, p = v[a.name]
        p = np.array(p)
        p[int(c.mrng.integers(3))] = np.nan
        return _one(a, (R, p))

    def huge_p(c, v, a):
        R, p = v[a.name]
        p = np.array(p)
        p[int(c.mrng.integers(3))] = HUGE
        return _one(a, (R, p))
    return [
        M("homogeneous", SAME, homogeneous),
        M("list_pair", SAME, lambda c, v, a: _one(a, [np.asarray(x).tolist() for x in v[a.name]])),
        M("nan", REFUSE, nan_p, core=True),
        M("huge", OVERFLOW, huge_p),
        M("scaled_rotation", REFUSE, with_R(lambda R: 1.1 * R), core=True),
        M("reflection", REFUSE, with_R(lambda R: -R)),
        M("R_only", REFUSE, lambda c, v, a: _one(a, v[a.name][0])),
        M("string", REFUSE, lambda c, v, a: _one(a, "identity")),
    ]


def _limit_mutations():
    return [
        M("np.float64", SAME, lambda c, v, a: _one(a, np.float64(v[a.name]))),
        M("list", SAME, lambda c, v, a: _one(a, [v[a.name]])),
        M("nan", REFUSE, lambda c, v, a: _one(a, float("nan")), core=True),
        M("crossed", REFUSE, lambda c, v, a: _one(a, -5.0 if a.name == "upper" else 5.0),
          core=True),
        M("string", REFUSE, lambda c, v, a: _one(a, "1.0")),
        M("too_many", REFUSE, lambda c, v, a: _one(a, [v[a.name]] * 2)),
    ]


CATALOG: dict[str, list[Mutation]] = {
    "model": _model_mutations(with_data=True),
    "model_nodata": _model_mutations(with_data=False),
    "data": DATA_MUTATIONS,
    "receiver": [M("pickled_model", SAME, _model_copy)],
    "q": VECTOR + CONFIG_EXTRA,
    "qany": VECTOR,  # normalize / is_normalized: off-manifold quaternions are valid input
    "v": VECTOR,
    # a gain (computed_torque's kp, kd): an (nv,) array or one number for every dof, so the
    # number forms of a vector are valid input
    "gain": [m for m in VECTOR if m.name not in ("float_scalar", "0d")],
    "bounds": VECTOR,  # random_configuration's lower, upper: +-inf are valid (opts allow_inf)
    "fext": MATRIX + ROWS,
    "torques": MATRIX,  # (T, nv): any number of steps is valid
    "Q": MATRIX + ROWS + CONFIG_EXTRA,
    "V": MATRIX + ROWS,
    "V3": ARRAY_COMMON + [M("drop_row", REFUSE, lambda c, v, a: None if a.opts.get("rows_free")
                            else _shape_change(_drop_row)(c, v, a), relational=True),
                          M("drop_middle", REFUSE, lambda c, v, a: _shape_change(_drop_middle)(
                              c, v, a) if a.opts.get("middle_fixed") else None),
                          M("drop_column", REFUSE, _shape_change(_drop_col))],
    "pose": POSE,
    "poses": [m for m in POSE if m.name not in ("R_p_pair",)],
    "joint": _index_mutations(),
    "frame": _index_mutations(),
    "reference": _reference_mutations(),
    "choice": _choice_mutations(),
    "positive": _scalar_mutations("positive"),
    "nonnegative": _scalar_mutations("nonnegative"),
    "real": _scalar_mutations("real"),
    "count": _count_mutations(),
    "seed": _seed_mutations(),
    "out": _out_mutations(),
    "name": _name_mutations(),
    "constraints": _constraints_mutations(),
    "urdf": _urdf_mutations(),
    "mjcf": _urdf_mutations(),  # the same: path objects, text, bytes, missing, truncated ...
    "root_joint": _root_joint_mutations(),
    "path_out": _file_mutations("out"),
    "path_in": _file_mutations("in"),
    "joint_name_new": _new_name_mutations(),
    "joint_type": _joint_type_mutations(),
    "placement": _placement_mutations(),
    "limit": _limit_mutations(),
}
for _c in CALLS:  # the calls without a Data argument: a copied model is just the model
    for _a in _c.args:
        if _a.kind == "model" and not any(b.kind == "data" for b in _c.args):
            _a.kind = "model_nodata"
        if _a.kind == "bounds":
            _a.opts["allow_inf"] = True


def mutations_of(call: Call, arg: Arg) -> list[Mutation]:
    muts = CATALOG[arg.kind]
    if arg.kind.startswith("model") and call.model_only:
        muts = [m for m in muts if m.name != "other_model"]
    return muts


# --- the oracle -------------------------------------------------------------------------------

CLEAR = (ValueError, TypeError, KeyError, IndexError, RuntimeError)
FILE_ERRORS = (FileNotFoundError, IsADirectoryError, NotADirectoryError)  # for path arguments
NUMBA_WORDS = ("numba", "nopython", "No implementation of function", "Cannot determine Numba",
               "Invalid use of", "resolving callee type", "During: ", "reflected list",
               "llvm", "typeof(")


def message(e: BaseException) -> str:
    return str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)


def _mentions_word(w: str, msg: str) -> bool:
    if len(w) <= 2:  # "a", "q", "v", "u": the argument, not the English article
        pat = (rf"(?:^|[\s(\[,'\"`]){re.escape(w)}(?=\s+(?:must|has|have|is|was|should|needs|"
               rf"contains|expected|of|with|row)\b|[:\[=)'\"`,.]|$)")
    else:
        pat = rf"(?<![A-Za-z0-9_]){re.escape(w)}(?![A-Za-z0-9_])"
    return re.search(pat, msg) is not None


def _value_words(value) -> list[str]:
    """How a message may quote the offending value (strings, numbers, bools; not arrays)."""
    if isinstance(value, (bool, np.bool_)):
        return [str(bool(value))]
    if isinstance(value, (str, np.str_)):
        return [repr(str(value))] + ([str(value)] if len(str(value)) > 2 else [])
    if isinstance(value, (int, np.integer)):
        return [str(int(value))]
    if isinstance(value, (float, np.floating)):
        return [str(float(value)), repr(float(value))]
    if isinstance(value, bytes):
        return [repr(value)]
    if value is None:  # "got None", "no joint named None"; not "'NoneType'"
        return ["None"]
    if isinstance(value, fd.Model):  # "'manipulator' starts with a revolute joint"
        return [repr(value.name)]
    return []


def clear_error(e: BaseException, words: list[str], value, extra=()) -> str | None:
    """None if ``e`` is a clear error, else why not."""
    if isinstance(e, FILE_ERRORS) and "path" in " ".join(words):
        return None if str(e) else f"{type(e).__name__} with an empty message"
    mod = type(e).__module__ or ""
    if mod.startswith("numba"):
        return f"a numba error ({mod}.{type(e).__name__}), not a checked argument"
    if not isinstance(e, CLEAR + tuple(extra)) or isinstance(e, NotImplementedError):
        return f"{type(e).__name__} is not one of ValueError, TypeError, KeyError, IndexError, " \
               f"RuntimeError"
    msg = message(e)
    if not msg.strip():
        return f"{type(e).__name__} with an empty message"
    low = msg.lower()
    if any(w.lower() in low for w in NUMBA_WORDS):
        return "the message is about numba internals"
    if not any(_mentions_word(w, msg) for w in words) and \
            not any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(w)}(?![A-Za-z0-9_])", msg)
                    for w in _value_words(value)):
        return f"the message names neither the argument ({'/'.join(words)}) nor the value"
    return None


def _as_tuple(x) -> tuple:
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        x = tuple(getattr(x, f.name) for f in dataclasses.fields(x))
    if not isinstance(x, tuple):
        x = (x,)
    return tuple(e if isinstance(e, str) else np.array(e, copy=True) for e in x)


def answer_of(call: Call, result, values) -> tuple:
    return _as_tuple(call.observe(result, values) if call.observe else result)


def non_finite(ans: tuple) -> bool:
    return any(not isinstance(e, str) and e.dtype.kind in "fc" and not np.isfinite(e).all()
               for e in ans)


def differ(x: tuple, ref: tuple) -> str | None:
    if len(x) != len(ref):
        return f"{len(x)} outputs instead of {len(ref)}"
    for k, (a, b) in enumerate(zip(x, ref)):
        if isinstance(b, str) or isinstance(a, str):
            if a != b:
                return f"output {k} is {a!r}, not {b!r}"
            continue
        if a.shape != b.shape:
            return f"output {k} has shape {a.shape}, not {b.shape}"
        if b.dtype.kind in "fc" or a.dtype.kind in "fc":
            if b.size == 0:
                continue
            scale = max(1.0, float(np.abs(b).max()))
            err = float(np.abs(a.astype(float) - b.astype(float)).max())
            if not err <= RTOL * scale:  # NaN-safe
                return f"output {k} differs by {err:.3g} (scale {scale:.3g})"
        elif not np.array_equal(a, b):
            return f"output {k} is {a}, not {b}"
    return None


def _outcome(call: Call, values: dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = call.invoke(values)
        except Exception as e:  # the oracle judges it
            return "err", e
        try:
            return "ok", answer_of(call, r, values)
        except Exception as e:
            return "err", e


def _describe_err(e) -> str:
    return f"{type(e).__name__}: {message(e)[:300]}"


def judge(call, arg, mut, mutant, outcome, clean, ref_outcome) -> str | None:
    """None, or why the mutant's outcome breaks the oracle (module docstring)."""
    kind, val = outcome
    words = [arg.name, *arg.words]
    if arg.kind.startswith("model") or arg.kind == "data" or mut.relational:
        words += ["model", "Model", "data", "Data"] + [a.name for a in call.args if not a.hidden]
    value = mutant.updates.get(arg.name)
    if kind == "ok":
        if non_finite(val):
            return "returned a non-finite answer without an error"
        if mut.name in ("nan", "inf", "-inf"):
            return "returned a finite answer from a non-finite input"
        if mut.expect in (SAME, EITHER):
            d = differ(val, clean)
            return None if d is None else f"returned a different answer: {d}"
        if mut.expect == CONVERT:
            rk, rv = ref_outcome
            if rk == "err":
                return f"returned, but the float64 of the same values raises {_describe_err(rv)}"
            d = differ(val, rv)
            return None if d is None else \
                f"returned an answer other than for the float64 of the same values: {d}"
        if mut.expect == OVERFLOW:
            return None
        same = differ(val, clean) is None
        return f"accepted it (no error; the answer {'equals' if same else 'differs from'} the " \
               f"clean one)"
    e = val
    if mut.expect == CONVERT:  # the float64 of the same values raises the same: faithful
        rk, rv = ref_outcome
        if rk == "err" and type(rv) is type(e) and message(rv) == message(e):
            return None
    extra = ()
    if mut.expect == OVERFLOW:
        extra = (ArithmeticError,)
        low = message(e).lower()
        if isinstance(e, (ValueError, ArithmeticError)) and (
                "overflow" in low or "not finite" in low or "non-finite" in low):
            return None
    why = clear_error(e, words, value, extra)
    if why is not None:
        return f"raised {_describe_err(e)} -- not a clear error: {why}"
    if mut.expect == SAME:
        return f"raised {_describe_err(e)} on the same values in another container"
    if mut.expect == CONVERT:
        rk, rv = ref_outcome
        if rk == "ok":
            return f"raised {_describe_err(e)}, but the float64 of the same values gives an answer"
        if type(rv) is not type(e):
            return f"raised {_describe_err(e)}, the float64 of the same values " \
                   f"{_describe_err(rv)}"
    if mut.expect == REFUSE_TYPE and not isinstance(e, TypeError):
        return f"raised {_describe_err(e)}, expected a TypeError"
    if mut.expect == REFUSE_VALUE and not isinstance(e, ValueError):
        return f"raised {_describe_err(e)}, expected a ValueError"
    return None


# --- running one case -------------------------------------------------------------------------

SKIP = "skip"


@dataclass
class Case:
    call: str
    model: str
    arg: str
    mutation: str
    seed: int

    def repro(self) -> str:
        return f"python tests/fuzz_api.py {self.call} {self.model} {self.arg} {self.mutation} " \
               f"{self.seed}"


def build(call: Call, model_name: str, seed: int, arg: str = "", mutation: str = ""):
    m = get_model(model_name)
    ctx = Ctx(model_name, m, np.random.default_rng([seed, _crc(call.name)]),
              np.random.default_rng([seed, _crc(call.name), _crc(arg), _crc(mutation)]))
    values: dict = {}
    for a in call.args:
        values[a.name] = a.make(ctx, values)
    return ctx, values


def _prep(call, values):
    if call.prepare is not None:
        call.prepare(values)


def run_case(case: Case) -> str | None:
    """None if the case passes, SKIP if the mutation does not apply, else the failure."""
    call = CALLS_BY_NAME[case.call]
    arg = call.arg(case.arg)
    mut = next(m for m in mutations_of(call, arg) if m.name == case.mutation)
    ctx, values = build(call, case.model, case.seed, case.arg, case.mutation)
    cwd = os.getcwd()
    os.chdir(ctx.tmpdir())  # a relative-path mutant ("") writes here, not in the checkout
    try:
        _prep(call, values)
        kind, clean = _outcome(call, values)
        if kind == "err":
            return f"the clean call raised {_describe_err(clean)} (fuzz setup broken?)"
        if non_finite(clean):
            return "the clean call returned a non-finite answer"
        mutant = mut.make(ctx, values, arg)
        if mutant is None:
            return SKIP
        if not isinstance(mutant, Mutant):
            mutant = _one(arg, mutant)
        ref = None
        if mut.expect == CONVERT:
            rv = {**values, **mutant.ref}
            _prep(call, values)
            ref = _outcome(call, rv)
        mv = {**values, **mutant.updates}
        _prep(call, values)
        if mutant.prepare:
            _prep(call, mv)
        out = _outcome(call, mv)
        why = judge(call, arg, mut, mutant, out, clean, ref)
        if why is None:  # a refused or converted call must leave the Data as good as before
            _prep(call, values)
            k2, again = _outcome(call, values)
            if k2 == "err":
                why = f"after this call, the clean call on the same Data raises " \
                      f"{_describe_err(again)}"
            elif differ(again, clean):
                why = f"after this call, the clean call on the same Data gives another " \
                      f"answer: {differ(again, clean)}"
        if why is not None and mutant.desc:
            why = f"[{mutant.desc}] {why}"
        return why
    finally:
        os.chdir(cwd)
        if ctx.tmp is not None:
            import shutil
            shutil.rmtree(ctx.tmp, ignore_errors=True)


def cases_for(call: Call, models=None, seeds=(0,)) -> list[Case]:
    out = []
    for mn in models or call.models:
        if mn not in call.models or not call.needs(get_model(mn)):
            continue
        for s in seeds:
            for a in call.args:
                if a.hidden:
                    continue
                for mut in mutations_of(call, a):
                    out.append(Case(call.name, mn, a.name, mut.name, s))
    return out


def small_cases(call: Call, budget: int = 8, seed: int = 2024) -> list[Case]:
    """A bounded, seeded sample for the default run: one model (rotating over the calls), the
    ``core`` mutations first, then others, round robin over the arguments."""
    models = [mn for mn in call.models if call.needs(get_model(mn))]
    rng = np.random.default_rng([seed, _crc(call.name)])
    mn = models[int(rng.integers(len(models)))]
    per_arg = []
    for a in call.args:
        if a.hidden:
            continue
        muts = mutations_of(call, a)
        core = [m for m in muts if m.core]
        rest = [m for m in muts if not m.core]
        rng.shuffle(core)
        rng.shuffle(rest)
        per_arg.append([Case(call.name, mn, a.name, m.name, int(rng.integers(1000)))
                        for m in core + rest])
    out = []
    while len(out) < budget and any(per_arg):
        for lst in per_arg:
            if lst and len(out) < budget:
                out.append(lst.pop(0))
    return out


def is_risky(case: Case) -> bool:
    return case.arg in CALLS_BY_NAME[case.call].risky


def run_cases(cases: list[Case]) -> list[tuple[Case, str]]:
    """(case, failure) for the failing cases; risky ones in a child process."""
    fails = []
    risky = [c for c in cases if is_risky(c)]
    for c in cases:
        if is_risky(c):
            continue
        try:
            why = run_case(c)
        except Exception:  # a broken mutation or observer: report it, do not hide the rest
            why = "the fuzz harness raised:\n" + traceback.format_exc(limit=4)
        if why not in (None, SKIP):
            fails.append((c, why))
    if risky:
        fails += [(c, w) for c, w in run_in_child(risky) if w not in (None, SKIP)]
    return fails


def run_in_child(cases: list[Case]) -> list[tuple[Case, str | None]]:
    """Run cases in child processes; a case that kills its process (segfault, abort) fails
    with the signal, and the remaining cases go to a new child."""
    results: list[tuple[Case, str | None]] = []
    todo = list(cases)
    while todo:
        payload = json.dumps([dataclasses.astuple(c) for c in todo])
        # the child imports the fastdyn this process imported (a git worktree's, not the
        # editable install's of another checkout: its script directory is tests/)
        root = str(Path(fd.__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [root] + [x for x in [os.environ.get("PYTHONPATH")] if x])}
        p = subprocess.run([sys.executable, str(Path(__file__)), "--child"], input=payload,
                           capture_output=True, text=True, cwd=str(TESTS_DIR.parent),
                           timeout=1800, env=env)
        done = {}
        started = None
        for line in p.stdout.splitlines():
            if line.startswith("START "):
                started = int(line.split()[1])
            elif line.startswith("RESULT "):
                _, i, js = line.split(" ", 2)
                done[int(i)] = json.loads(js)
        for i, c in enumerate(todo):
            if i in done:
                results.append((c, done[i]))
        if p.returncode == 0 and len(done) == len(todo):
            break
        if started is None or started in done:  # died outside any case
            for i, c in enumerate(todo):
                if i not in done:
                    results.append((c, f"the child process failed (rc {p.returncode}): "
                                       f"{p.stderr[-1500:]}"))
            break
        results.append((todo[started], f"crashed the process (return code {p.returncode}, "
                                       f"signal {-p.returncode if p.returncode < 0 else None}): "
                                       f"{p.stderr[-800:]}"))
        todo = [c for i, c in enumerate(todo) if i > started and i not in done]
    return results


def _child_main():
    cases = [Case(*t) for t in json.loads(sys.stdin.read())]
    for i, c in enumerate(cases):
        print(f"START {i}", flush=True)
        try:
            why = run_case(c)
        except Exception:
            why = "the fuzz harness raised:\n" + traceback.format_exc(limit=4)
        print(f"RESULT {i} {json.dumps(why)}", flush=True)


def format_failures(fails: list[tuple[Case, str]]) -> str:
    lines = [f"{len(fails)} failing case(s):"]
    for c, why in fails:
        lines.append(f"- {c.call}({c.arg}=<{c.mutation}>) on {c.model}, seed {c.seed}: {why}\n"
                     f"    reproduce: {c.repro()}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        _child_main()
        return 0
    if argv[:1] == ["--list"]:
        for c in CALLS:
            print(c.name, [f"{a.name}:{a.kind}" for a in c.args if not a.hidden])
        return 0
    if len(argv) != 5:
        print(__doc__)
        return 2
    case = Case(argv[0], argv[1], argv[2], argv[3], int(argv[4]))
    call = CALLS_BY_NAME[case.call]
    arg = call.arg(case.arg)
    mut = next(m for m in mutations_of(call, arg) if m.name == case.mutation)
    ctx, values = build(call, case.model, case.seed, case.arg, case.mutation)
    mutant = mut.make(ctx, values, arg)
    shown = {k: (type(v).__name__, getattr(v, "dtype", None), np.shape(v)
                 if isinstance(v, np.ndarray) else v) for k, v in (
        mutant.updates.items() if isinstance(mutant, Mutant) else {})}
    print(f"{case.call} on {case.model}: {case.arg} <- {case.mutation} ({mut.expect}): {shown}")
    why = run_case(case)
    print("PASS" if why is None else why)
    if why not in (None, SKIP):  # show the mutant call's own traceback
        ctx, values = build(call, case.model, case.seed, case.arg, case.mutation)
        _prep(call, values)
        mutant = mut.make(ctx, values, arg)
        mutant = mutant if isinstance(mutant, Mutant) else _one(arg, mutant)
        try:
            call.invoke({**values, **mutant.updates})
        except Exception:
            traceback.print_exc()
    return 0 if why in (None, SKIP) else 1


if __name__ == "__main__":
    sys.path.insert(0, str(TESTS_DIR))
    sys.exit(main(sys.argv[1:]))
