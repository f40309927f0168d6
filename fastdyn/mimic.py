"""Mimic joints: a joint whose coordinate follows another's, q_j = k q_i + o (URDF ``<mimic>``,
MJCF ``<equality><joint>`` with a linear ``polycoef``), as a reduced system over the full tree.

``MimicModel(model)`` (or ``load_urdf(path, mimic=True)``, ``load_mjcf(path, mimic=True)``)
takes the model's mimic relations and removes the mimic joints' coordinates from q and v:
Pinocchio 4.1's layout for ``buildModelFromUrdf(path, mimic=True)`` (same nq, nv, same order).
Its joints and frames are the full model's (``model.full``, where every joint is independent),
so joint and frame ids and names are unchanged.

Design: the algorithms run on the full model at the expanded state and reduce its results
(kernels/algorithms/mimic.py has the equations, Featherstone 2008 sec. 3.2):
  q_full = gamma(q),  v_full = G v,  a_full = G a,  tau = G^T tau_full,  M = G^T M_full G,
  J = J_full G,  and forward dynamics solves M a = tau - G^T RNEA_full(q_full, G v, 0).
G has one non-zero entry per row, so each reduction is one pass over the full result. The
other design, mimic joints read natively by every kernel (Pinocchio's JointModelMimic), would
put a branch into every kernel's joint loop for every model; this one leaves the kernels and
their cost on models without mimic joints untouched, and costs a mimic model one full-size
evaluation plus an O(nv_full^2) reduction (the dynamics of the few dofs removed are computed
and folded back).

Fences: a MimicModel is not a ``fastdyn.Model`` and its Data (``MimicData``) never carries a
model's token, so every function that has not been taught the reduced system refuses it
with an error naming the function (``fastdyn._internal.checks``), never computing with the wrong
sizes. Its ``jnt``, ``prm``, ``dof`` and ``params`` raise for the same reason: the kernels'
arrays are ``model.full``'s, whose q and v include the mimic joints.
Supported: forward kinematics, frames, joint and frame placements, centre of mass (and its
Jacobian), rnea, nonlinear_effects, generalized_gravity, static_torque, crba, aba,
compute_minverse, energies and their regressors (and the static regressor), joint and frame
Jacobians, frame velocities and accelerations, and the configuration functions (neutral,
integrate, difference, interpolate, d_integrate, d_difference, normalize, is_normalized,
random_configuration). Not yet (refused): derivatives, centroidal quantities other than the
com Jacobian, Jacobian time variations, the joint torque regressor, cholesky, the simulator
and Scene, batches and studies, inverse kinematics, codegen, model files and ``with_*``.

Which relations are accepted: mimic and mimicked joints 1-dof revolute or prismatic (any axis),
or both continuous (their angles then follow, t_j = k t_i + o, q = (cos t, sin t)), as
Pinocchio. A joint following a mimic joint is composed down to the first joint that follows
none (q_c = k2 (k1 q_a + o1) + o2), which Pinocchio refuses; cycles are refused. Unlike
Pinocchio, a mimicked joint may come after its follower in the tree (Talos's full model,
Romeo).
"""

from __future__ import annotations

import uuid

import numpy as np

from ._internal import mimic_calls
from .builder import ModelBuilder
from .kernels import layout
from .kernels.algorithms import mimic as _k
from .kernels.joints import codes
from .model import Data, Model

__all__ = ["MimicModel", "MimicData", "MIMIC_TYPES", "resolve"]

# The types a mimic relation may join (Pinocchio's mimic joint takes these): 1-dof, with
# nq = 1 (revolute, prismatic) or the (cos, sin) pair of a continuous joint.
MIMIC_TYPES = frozenset((codes.REVOLUTE_X, codes.REVOLUTE_Y, codes.REVOLUTE_Z, codes.REVOLUTE,
                         codes.PRISMATIC_X, codes.PRISMATIC_Y, codes.PRISMATIC_Z,
                         codes.PRISMATIC, codes.CONTINUOUS_X, codes.CONTINUOUS_Y,
                         codes.CONTINUOUS_Z, codes.CONTINUOUS))

# Model attributes that are the full model's kernel arrays: a MimicModel refuses them.
_KERNEL_ARRAYS = ("jnt", "prm", "dof", "params")


def resolve(model: Model, relations: dict) -> np.ndarray:
    """The MIMIC_DTYPE rows of ``relations`` (joint name -> (mimicked name, multiplier,
    offset)) on ``model``, chains composed, in joint order; ValueError for unknown names,
    types that cannot mimic, and cycles."""
    follows = {}
    for name, rel in relations.items():
        try:
            target, k, o = rel
            k, o = float(k), float(o)
        except (TypeError, ValueError):
            raise ValueError(f"mimic relation of {name!r} must be (mimicked joint, multiplier, "
                             f"offset), got {rel!r}") from None
        if not (np.isfinite(k) and np.isfinite(o)):
            raise ValueError(f"mimic joint {name!r}: multiplier and offset must be finite, got "
                             f"{k}, {o}")
        j, i = _joint(model, name, "mimic joint"), _joint(model, target, f"{name!r} mimics")
        tj, ti = int(model.jnt[j]["type"]), int(model.jnt[i]["type"])
        for jj, t in ((j, tj), (i, ti)):
            if t not in MIMIC_TYPES:
                raise ValueError(f"mimic joint {name!r} -> {target!r}: joint "
                                 f"{model.joint_names[jj]!r} is {codes.NAMES[t]}; mimic joints "
                                 f"join 1-dof revolute, prismatic or continuous joints")
        if codes.NQ[tj] != codes.NQ[ti]:
            raise ValueError(f"mimic joint {name!r} ({codes.NAMES[tj]}) -> {target!r} "
                             f"({codes.NAMES[ti]}): a continuous joint can only mimic, and be "
                             f"mimicked by, a continuous joint (q = (cos, sin) against an "
                             f"angle)")
        follows[j] = (i, k, o)
    rows = np.zeros(len(follows), layout.MIMIC_DTYPE)
    for n, j in enumerate(sorted(follows)):
        i, k, o = follows[j]
        seen = [j]
        while i in follows:  # compose the chain down to a joint that follows none
            if i in seen:
                cyc = seen[seen.index(i):] + [i]
                raise ValueError("mimic relations form a cycle " + " -> ".join(
                    repr(model.joint_names[c]) for c in cyc) + ", so none of these joints has "
                    "a value of its own to follow")
            seen.append(i)
            i2, k2, o2 = follows[i]
            i, k, o = i2, k * k2, k * o2 + o
        rows[n] = (j, i, k, o)
    return rows


def _joint(model: Model, name, what: str) -> int:
    if not isinstance(name, str):
        raise TypeError(f"{what}: joint names are str, got {name!r}")
    try:
        j = model.joint_id(name)
    except KeyError as e:
        raise ValueError(f"{what}: {e.args[0]}") from None
    if j == 0:
        raise ValueError(f"{what}: the universe is not a joint that moves")
    return j


class MimicModel:
    """A model with mimic joints, q_j = k q_i + o, over ``full`` (the same joints, all
    independent); q and v lack the mimic joints' coordinates (Pinocchio's layout). See the
    module docstring for what it supports; pass ``relations`` (joint name -> (mimicked name,
    multiplier, offset)) to use others than ``full.mimic``.

    ``nq``, ``nv``, the limits, armature, damping and friction are the reduced ones; names,
    ids, ``njoints``, ``nframes``, ``frm``, masses and inertias those of ``full``.
    ``expand_configuration``, ``expand_velocity`` and ``G`` map the reduced state to the
    full model's. Immutable, like a Model (``gravity`` assignable).
    """

    # the public calls' reduced versions: fastdyn.rnea(mimic_model, ...) and the others find
    # them here (fastdyn/_internal/mimic_calls.py), so they need not import this module
    calls = mimic_calls

    def __init__(self, full: Model, relations: dict | None = None):
        if not isinstance(full, Model):
            raise TypeError(f"MimicModel(full): full must be a fastdyn.Model, got "
                            f"{type(full).__qualname__}")
        rel = dict(full.mimic if relations is None else relations)
        mim = resolve(full, rel)
        mim.flags.writeable = False
        self.full = full
        self.mimic = rel
        self.mim = mim
        self.mimic_joints = tuple(int(j) for j in mim["joint"])
        self.mimicked_joints = tuple(int(i) for i in mim["mimicked"])
        self.name = full.name
        self.joint_names, self.frame_names = full.joint_names, full.frame_names
        self.njoints, self.nframes = full.njoints, full.nframes
        self.frm = full.frm
        followers = set(self.mimic_joints)
        own = [i for i in range(1, full.njoints) if i not in followers]
        jnt = full.jnt
        self.q_index = _frozen(np.concatenate(
            [np.arange(jnt[i]["idx_q"], jnt[i]["idx_q"] + jnt[i]["nq"]) for i in own] +
            [np.zeros(0, np.int64)]).astype(np.int64))
        red_v = {}  # full dof -> reduced dof, own joints
        for i in own:
            for d in range(jnt[i]["idx_v"], jnt[i]["idx_v"] + jnt[i]["nv"]):
                red_v[int(d)] = len(red_v)
        v_map = np.empty(full.nv, np.int64)
        v_scale = np.ones(full.nv)
        for d, r in red_v.items():
            v_map[d] = r
        for row in mim:
            d, di = int(jnt[row["joint"]]["idx_v"]), int(jnt[row["mimicked"]]["idx_v"])
            v_map[d], v_scale[d] = red_v[di], row["multiplier"]
        self.v_map, self.v_scale = _frozen(v_map), _frozen(v_scale)
        self.v_index = _frozen(np.array(sorted(red_v), dtype=np.int64))
        self.nq, self.nv = int(self.q_index.shape[0]), len(red_v)
        self.configuration_model = _configuration_model(full, own)
        self.token = uuid.uuid4().hex

    # --- the map to the full model --------------------------------------------------------
    def expand_configuration(self, q, out: np.ndarray | None = None) -> np.ndarray:
        """q_full (full.nq,) of the reduced q: each mimic joint at k q_i + o."""
        from ._internal import checks as _checks
        q = _checks.configuration(self.configuration_model, q)
        out = np.empty(self.full.nq) if out is None else out
        _k.expand_configuration(self.full.jnt, self.mim, self.q_index, q, out)
        return out

    def expand_velocity(self, v, out: np.ndarray | None = None) -> np.ndarray:
        """v_full = G v (full.nv,); accelerations too."""
        from ._internal import checks as _checks
        v = _checks.vector(v, self.nv, "v")
        out = np.empty(self.full.nv) if out is None else out
        _k.expand_velocity(self.v_map, self.v_scale, v, out)
        return out

    @property
    def G(self) -> np.ndarray:
        """v_full = G v: (full.nv, nv), one non-zero entry per row (a new array)."""
        G = np.zeros((self.full.nv, self.nv))
        G[np.arange(self.full.nv), self.v_map] = self.v_scale
        return G

    # --- what a Model offers, reduced where it is per coordinate ---------------------------
    @property
    def gravity(self) -> np.ndarray:
        return self.full.gravity

    @gravity.setter
    def gravity(self, g) -> None:
        self.full.gravity = g

    @property
    def mass(self) -> np.ndarray:
        return self.full.mass

    @property
    def com(self) -> np.ndarray:
        return self.full.com

    @property
    def inertia(self) -> np.ndarray:
        return self.full.inertia

    @property
    def lower_position_limit(self) -> np.ndarray:
        return self.configuration_model.lower_position_limit

    @property
    def upper_position_limit(self) -> np.ndarray:
        return self.configuration_model.upper_position_limit

    @property
    def velocity_limit(self) -> np.ndarray:
        return self.configuration_model.velocity_limit

    @property
    def effort_limit(self) -> np.ndarray:
        return self.configuration_model.effort_limit

    @property
    def armature(self) -> np.ndarray:
        return self.configuration_model.armature

    @property
    def damping(self) -> np.ndarray:
        return self.configuration_model.damping

    @property
    def friction(self) -> np.ndarray:
        return self.configuration_model.friction

    def joint_id(self, name: str) -> int:
        """The full model's index of joint ``name`` (mimicking joints included)."""
        return self.full.joint_id(name)

    def frame_id(self, name: str) -> int:
        """The index of frame ``name`` (the full model's frames)."""
        return self.full.frame_id(name)

    def joint_type(self, j: int | str) -> str:
        """Joint ``j``'s type name, by index or name, in the full model."""
        return self.full.joint_type(j)

    def check(self) -> None:
        """Check the full model's invariants (``Model.check``)."""
        self.full.check()

    def create_data(self) -> "MimicData":
        """A workspace for this model: one per thread."""
        return MimicData(self)

    def __getattr__(self, name: str):
        # only for names not found the normal way: say why a Model's attribute is missing
        if name in _KERNEL_ARRAYS:
            raise AttributeError(
                f"a MimicModel has no {name} of its own: the kernels' arrays are "
                f"model.full.{name}, whose q and v include the mimic joints (q_full = "
                f"model.expand_configuration(q), v_full = model.expand_velocity(v))")
        if not name.startswith("_") and hasattr(Model, name):
            raise AttributeError(f"MimicModel.{name}: not supported for models with mimic "
                                 f"joints; model.full.{name} is the model without them")
        raise AttributeError(f"'MimicModel' object has no attribute {name!r}")

    def __reduce__(self):
        return (_restore, (self.full, self.mimic, self.token))

    def __repr__(self) -> str:
        return (f"MimicModel({self.name!r}: njoints={self.njoints}, nq={self.nq}, "
                f"nv={self.nv}, nframes={self.nframes}, {len(self.mim)} mimic joints)")


def _restore(full: Model, relations: dict, token: str) -> MimicModel:
    m = MimicModel(full, relations)
    m.token = token
    return m


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


def _configuration_model(full: Model, own: list[int]) -> Model:
    """The reduced configuration space as a Model: the independent joints, each on the
    universe, with their types, axes and limits (a product of Lie groups, so the configuration
    functions of a Model apply unchanged). It has no bodies: never use it for dynamics."""
    b = ModelBuilder(full.name + " (configuration)")
    for i in own:
        r, p = full.jnt[i], full.params[i]
        t, nq, nv = int(r["type"]), int(r["nq"]), int(r["nv"])
        b.add_joint(full.joint_names[i], t, 0, axis=p["axis"].copy(),
                    axis2=p["axis2"].copy() if t == codes.UNIVERSAL else None,
                    pitch=float(p["pitch"]), lower=p["q_lower"][:nq], upper=p["q_upper"][:nq],
                    velocity=p["v_max"][:nv], effort=p["effort_max"][:nv],
                    armature=p["armature"][:nv], damping=p["damping"][:nv],
                    friction=p["friction"][:nv], frame=False)
    return b.build()


# What a MimicData reads from its full Data: the per-joint arrays and their views (the same
# joints and frames), and which kinematics they hold.
_SHARED_DATA = frozenset(("ws", "oMf", "com", "vcom", "acom", "mass", "energy", "liMi_R",
                          "liMi_p", "oMi_R", "oMi_p", "oMf_R", "oMf_p", "v", "a", "f",
                          "kinematics"))


class MimicData:
    """The workspace of a MimicModel: the full model's Data (``full``), whose per-joint arrays
    (placements, velocities, frames, centres of mass, energies) it shares, and reduced
    arrays for what has nq or nv in its shape (tau, ddq, nle, g, M, Minv, J, J_frame, Jcom).
    One per thread, as a Data."""

    def __init__(self, model: MimicModel):
        if not isinstance(model, MimicModel):
            raise TypeError(f"MimicData(model): model must be a MimicModel, got "
                            f"{type(model).__qualname__}")
        self.full = Data(model.full)
        # Never a Model's token: the compiled fast paths, which compare tokens, refuse it
        # and leave the call to the slow path, where a MimicModel is routed or refused.
        self.model_token = None
        self.mimic_token = model.token
        self.nq, self.nv = model.nq, model.nv
        self.njoints, self.nframes = model.njoints, model.nframes
        nv = model.nv
        for name, shape in (("tau", (nv,)), ("ddq", (nv,)), ("nle", (nv,)), ("g", (nv,)),
                            ("M", (nv, nv)), ("Minv", (nv, nv)), ("J", (6, nv)),
                            ("J_frame", (6, nv)), ("Jcom", (3, nv)), ("_L", (nv, nv)),
                            ("_rhs", (nv,))):
            setattr(self, name, np.zeros(shape))
        self.q_full = np.zeros(model.full.nq)
        self.v_full = np.zeros(model.full.nv)
        self.a_full = np.zeros(model.full.nv)
        self._J_full = np.zeros((6, model.full.nv))

    def __getattr__(self, name: str):
        full = self.__dict__.get("full")  # (absent while unpickling)
        if full is not None and name in _SHARED_DATA:
            return getattr(full, name)
        raise AttributeError(f"MimicData has no {name!r} (not computed for models with mimic "
                             f"joints; data.full is the full model's Data)")

    @property
    def nbytes(self) -> int:
        own = sum(x.nbytes for x in vars(self).values() if isinstance(x, np.ndarray))
        return own + self.full.nbytes
