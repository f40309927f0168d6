"""The immutable Model (a topology, a parameter table, names) and the per-thread Data."""

from __future__ import annotations

import uuid
import warnings

import numpy as np

from ._internal import checks as _checks, variants as _variants
from ._internal.indices import joint_index
from ._internal.invariants import check_model
from .kernels import layout
from .kernels.joints import codes


class Model:
    """A kinematic tree as a static topology and a table of parameters (see
    ``fastdyn.kernels.layout``).

    Topology, what a study never changes: ``jnt`` (njoints,) one row per joint (parent, type,
    idx_q, nq, idx_v, nv), row 0 the universe; ``dof`` (nv,) one row per degree of freedom;
    ``frm`` (nframes,) the frames. Parameters, what a study may vary: ``prm`` (njoints,
    layout.NP) float64, one row per joint (placement, axes, pitch, the 10 inertial parameters
    ``pi``, limits, armature, damping, friction; gravity in the universe row), also readable by
    name as ``params`` (``model.params["pi"]``). ``mass``, ``com`` and ``inertia`` are derived
    from ``pi``, which is the one inertia the model stores.

    The arrays are read-only; ``gravity`` is the one parameter users may assign in place (so
    existing Data stay valid); ``with_*`` methods give variants and ``with_parameters`` a
    whole new table. Build with ``fastdyn.ModelBuilder``, a parser, or ``fastdyn.samples``;
    share one Model across threads, and give each thread its own ``create_data()``.
    """

    def __init__(self, jnt: np.ndarray, prm: np.ndarray, frm: np.ndarray,
                 joint_names: list[str], frame_names: list[str], name: str = "model",
                 mimic: dict | None = None):
        self.jnt = _frozen(jnt, layout.JOINT_DTYPE)
        prm = np.asarray(prm)
        if prm.dtype != np.float64 or prm.shape != (self.jnt.shape[0], layout.NP):
            raise ValueError(f"parameters must be float64 ({self.jnt.shape[0]}, {layout.NP}) "
                             f"(one row per joint, kernels/layout.py), got {prm.dtype} "
                             f"{prm.shape}")
        self.prm = _frozen(prm, np.dtype(np.float64))
        self.params = layout.named(self.prm)  # the same memory, by field name
        self._gravity = self.prm[0, layout.P_GRAVITY:layout.P_GRAVITY + 3]
        self.frm = _frozen(frm, layout.FRAME_DTYPE)
        self.joint_names = tuple(joint_names)
        self.frame_names = tuple(frame_names)
        self.name = name
        self.mimic = dict(mimic or {})  # joint name -> (mimicked joint, multiplier, offset)
        self.check()  # before anything is derived from the arrays (a parent index of 99)
        self.dof = _frozen(_dof_table(self.jnt), layout.DOF_DTYPE)
        # Identifies this model's joints, and so the shapes of its Data. Random (uuid4), not a
        # per-process counter: a counter restarts in every worker process, where a pickled
        # Data of one robot then matched another robot's model and the kernels wrote past its
        # arrays. Pickling, copying and the with_* variants (same joints) keep it.
        self.token = uuid.uuid4().hex
        self.njoints = int(self.jnt.shape[0])
        self.nframes = int(self.frm.shape[0])
        self.nv = int(self.dof.shape[0])
        last = self.jnt[-1]
        self.nq = int(last["idx_q"] + last["nq"]) if self.njoints > 1 else 0
        self._joint_index = {n: i for i, n in enumerate(self.joint_names)}
        self._frame_index = {}
        for i, n in enumerate(self.frame_names):
            self._frame_index.setdefault(n, i)  # first wins, as Pinocchio's getFrameId

    @classmethod
    def from_urdf(cls, path_or_xml, root_joint: str | None = None, **kwargs) -> "Model":
        """Deprecated: ``fastdyn.load_urdf`` (one way to load a file; this goes in the next
        release, and with it the model's one import of the loaders)."""
        from .io import load_urdf

        warnings.warn("Model.from_urdf is deprecated: use fastdyn.load_urdf",
                      DeprecationWarning, stacklevel=2)
        return load_urdf(path_or_xml, root_joint=root_joint, **kwargs)

    @classmethod
    def from_mjcf(cls, path_or_xml, root_joint: str | None = None, **kwargs) -> "Model":
        """Deprecated: ``fastdyn.load_mjcf`` (as ``from_urdf``)."""
        from .io import load_mjcf

        warnings.warn("Model.from_mjcf is deprecated: use fastdyn.load_mjcf",
                      DeprecationWarning, stacklevel=2)
        return load_mjcf(path_or_xml, root_joint=root_joint, **kwargs)

    # --- sizes (plain attributes set in __init__: a property costs ~100 ns per call) ---
    @property
    def gravity(self) -> np.ndarray:
        """World gravity (3,), default [0, 0, -9.81]: a read-only view of the universe row of
        ``prm``. Assign to change it (``model.gravity = (0, 0, -1.62)``): the array is
        read-only so that every change passes the setter's check (a NaN written in place
        reached the kernels unchecked). The setter writes into ``prm`` itself, so Data and
        generated kernels made earlier see the new value."""
        return self._gravity

    @gravity.setter
    def gravity(self, g) -> None:
        try:
            g = np.asarray(g, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"gravity must be 3 finite numbers, got {g!r}") from None
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise ValueError(f"gravity must be 3 finite numbers, got {g!r}")
        self.prm.flags.writeable = True
        try:
            self.prm[0, layout.P_GRAVITY:layout.P_GRAVITY + 3] = g
        finally:
            self.prm.flags.writeable = False

    # --- the inertia, derived from pi (read-only arrays, one row per joint) ----------------
    @property
    def mass(self) -> np.ndarray:
        """Mass of the body each joint carries [kg], (njoints,): a view of pi[0]."""
        return self.params["pi"][:, 0]

    @property
    def com(self) -> np.ndarray:
        """Centre of mass of each body in its joint frame [m], (njoints, 3): h / m from pi
        (zero for a massless body)."""
        pi = self.params["pi"]
        m = pi[:, 0]
        out = np.divide(pi[:, 1:4], m[:, None], out=np.zeros((self.njoints, 3)),
                        where=m[:, None] > 0.0)
        out.flags.writeable = False
        return out

    @property
    def inertia(self) -> np.ndarray:
        """Rotational inertia of each body about its centre of mass, joint axes [kg m^2],
        (njoints, 3, 3): I_c = I_o - m (|c|^2 1 - c c^T) from pi (parallel axes)."""
        pi = self.params["pi"]
        I = np.empty((self.njoints, 3, 3))
        for k, (r, s) in enumerate(((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)), start=4):
            I[:, r, s] = I[:, s, r] = pi[:, k]
        c = self.com
        m = pi[:, 0]
        cc = np.einsum("ni,nj->nij", c, c)
        I -= m[:, None, None] * (np.einsum("nii->n", cc)[:, None, None] * np.eye(3) - cc)
        I.flags.writeable = False
        return I

    # --- names -----------------------------------------------------------------------------
    def joint_id(self, name: str) -> int:
        """The index of the joint called ``name`` (KeyError with the closest names if none)."""
        try:
            return self._joint_index[name]
        except TypeError:  # unhashable: a list, an array
            raise TypeError(f"joint name must be a str, got {type(name).__name__}") from None
        except KeyError:
            raise KeyError(f"model {self.name!r} has no joint named {name!r}; joints: "
                           f"{', '.join(self.joint_names[1:20])}"
                           f"{' ...' if self.njoints > 21 else ''}") from None

    def frame_id(self, name: str) -> int:
        """The index of the frame called ``name`` (KeyError with the closest names if none)."""
        try:
            return self._frame_index[name]
        except TypeError:  # unhashable: a list, an array
            raise TypeError(f"frame name must be a str, got {type(name).__name__}") from None
        except KeyError:
            raise KeyError(f"model {self.name!r} has no frame named {name!r}; frames: "
                           f"{', '.join(self.frame_names[:20])}"
                           f"{' ...' if self.nframes > 20 else ''}") from None

    def q_slice(self, j: int | str) -> slice:
        """Where joint ``j`` (index or name) sits in q: ``q[model.q_slice("knee")]``
        (Pinocchio's idx_q and nq; an empty slice for a fixed joint)."""
        r = self.jnt[joint_index(self, j, "joint")]
        return slice(int(r["idx_q"]), int(r["idx_q"]) + int(r["nq"]))

    def v_slice(self, j: int | str) -> slice:
        """Where joint ``j`` (index or name) sits in v, tau and the rows of M: idx_v, nv."""
        r = self.jnt[joint_index(self, j, "joint")]
        return slice(int(r["idx_v"]), int(r["idx_v"]) + int(r["nv"]))

    def joint_type(self, j: int | str) -> str:
        """Joint ``j``'s type name (one of fastdyn.JOINT_TYPES), by index or name."""
        return codes.NAMES[int(self.jnt[joint_index(self, j, "j")]["type"])]

    # --- per-coordinate views, Pinocchio's names ------------------------------------------
    def _per_q(self, field: str) -> np.ndarray:
        out = np.empty(self.nq)
        for r, p in zip(self.jnt[1:], self.params[1:]):
            out[r["idx_q"]:r["idx_q"] + r["nq"]] = p[field][:r["nq"]]
        return out

    def _per_v(self, field: str) -> np.ndarray:
        out = np.empty(self.nv)
        for r, p in zip(self.jnt[1:], self.params[1:]):
            out[r["idx_v"]:r["idx_v"] + r["nv"]] = p[field][:r["nv"]]
        return out

    @property
    def lower_position_limit(self) -> np.ndarray:
        return self._per_q("q_lower")

    @property
    def upper_position_limit(self) -> np.ndarray:
        return self._per_q("q_upper")

    @property
    def velocity_limit(self) -> np.ndarray:
        return self._per_v("v_max")

    @property
    def effort_limit(self) -> np.ndarray:
        return self._per_v("effort_max")

    @property
    def armature(self) -> np.ndarray:
        return self._per_v("armature")

    @property
    def damping(self) -> np.ndarray:
        return self._per_v("damping")

    @property
    def friction(self) -> np.ndarray:
        return self._per_v("friction")

    # --- checks, data, pickling ------------------------------------------------------------
    def check(self) -> None:
        """Raise ValueError naming the joint or frame and the field if the arrays break an
        invariant the kernels rely on: the topology (parents before children, type, sizes and
        q/v indices), the parameters (the rules every batch of robots is checked by, and
        lower <= upper limits), the frames and the mimic relations. The one check every
        path that makes a Model runs (fastdyn/_internal/invariants.py)."""
        check_model(self.jnt, self.prm, self.frm, self.joint_names, self.frame_names,
                    self.mimic)

    def create_data(self) -> "Data":
        """A new preallocated workspace for this model: one per thread."""
        return Data(self)

    # --- variants: the same joints with one parameter changed (fastdyn/_internal/variants.py)
    def with_parameters(self, prm: np.ndarray) -> "Model":
        """This topology with another parameter table (njoints, NP), e.g. one row of a batch
        from ``fastdyn.parameter_batch``, checked as a new model is: a Model with the same
        joints, frames, names and token, so this model's Data fits it."""
        x = _checks.real(prm, "prm", f"a ({self.njoints}, {layout.NP}) parameter table")
        if x.shape != self.prm.shape:
            raise ValueError(f"prm must have shape {self.prm.shape} (one row per joint, "
                             f"kernels/layout.py), got {x.shape}")
        new = Model(self.jnt, x, self.frm, list(self.joint_names), list(self.frame_names),
                    self.name, self.mimic)
        new.token = self.token
        return new

    def with_inertia(self, joint: int | str, mass: float | None = None, com=None,
                     inertia=None) -> "Model":
        """This model with joint ``joint``'s body changed: ``mass`` (kg), ``com`` (3, in the
        joint frame) and ``inertia`` (3x3 about the com, joint axes); None keeps that part.
        Raises ValueError if the result is not a physically consistent body."""
        return self.with_parameters(_variants.inertia(self, joint, mass, com, inertia))

    def with_placement(self, joint: int | str, placement) -> "Model":
        """This model with joint ``joint`` placed at ``placement`` (4x4 or (R, p)) in its
        parent (the placement at q = neutral)."""
        return self.with_parameters(_variants.placement(self, joint, placement))

    def with_armature(self, joint: int | str, armature) -> "Model":
        """This model with joint ``joint``'s rotor inertia (one value per dof, or one for
        all)."""
        return self.with_parameters(_variants.armature(self, joint, armature))

    def with_damping(self, joint: int | str, damping) -> "Model":
        """This model with joint ``joint``'s viscous damping (N m s/rad; per dof or one)."""
        return self.with_parameters(_variants.damping(self, joint, damping))

    def with_friction(self, joint: int | str, friction) -> "Model":
        """This model with joint ``joint``'s dry friction (N m; per dof or one value)."""
        return self.with_parameters(_variants.friction(self, joint, friction))

    def with_limits(self, joint: int | str, lower=None, upper=None, velocity=None,
                    effort=None) -> "Model":
        """This model with joint ``joint``'s limits changed: ``lower``/``upper`` (nq values
        each, +-inf for none), ``velocity``/``effort`` (nv values, >= 0, inf for none); None
        keeps one. lower > upper is refused by the model check, naming the joint."""
        return self.with_parameters(_variants.limits(self, joint, lower, upper, velocity,
                                                     effort))

    def with_gravity(self, gravity) -> "Model":
        """This model under another gravity vector (3,) [m/s^2], e.g. (0, 0, -1.62)."""
        return self.with_parameters(_variants.gravity(self, gravity))

    def __getstate__(self):
        return dict(jnt=np.array(self.jnt), prm=np.array(self.prm), frm=np.array(self.frm),
                    joint_names=self.joint_names, frame_names=self.frame_names, name=self.name,
                    mimic=self.mimic, token=self.token)

    def __setstate__(self, st):
        if "prm" not in st:  # pickled before the topology + parameters split
            st = dict(st)
            st["jnt"], st["prm"] = split_records(st["jnt"], st["gravity"])
        self.__init__(st["jnt"], st["prm"], st["frm"], list(st["joint_names"]),
                      list(st["frame_names"]), st["name"], st["mimic"])  # checks them again
        self.token = str(st.get("token", self.token))  # (a pickle from before tokens travelled)

    def __repr__(self) -> str:
        return (f"Model({self.name!r}: njoints={self.njoints}, nq={self.nq}, nv={self.nv}, "
                f"nframes={self.nframes})")


def joint_records(model: "Model") -> np.ndarray:
    """Every joint's topology, parameters and derived mass, com and inertia (about the com) in
    one structured array (a copy): for Python code that reads a joint whole by name, such as
    fastdyn.codegen. The kernels read ``jnt`` and ``prm``."""
    fields = [(f, *model.jnt.dtype.fields[f][:1]) for f in model.jnt.dtype.names]
    fields += [(f, model.params.dtype.fields[f][0]) for f in model.params.dtype.names]
    fields += [("mass", np.float64), ("com", np.float64, (3,)), ("inertia", np.float64, (3, 3))]
    out = np.zeros(model.njoints, np.dtype(fields))
    for f in model.jnt.dtype.names:
        out[f] = model.jnt[f]
    for f in model.params.dtype.names:
        out[f] = model.params[f]
    out["mass"], out["com"], out["inertia"] = model.mass, model.com, model.inertia
    return out


def split_records(records: np.ndarray, gravity) -> tuple[np.ndarray, np.ndarray]:
    """(jnt, prm) from joint records that hold both (any structured array with the fields of
    JOINT_DTYPE and PARAM_DTYPE, such as fastdyn's model files and pickles from before the
    split), with ``gravity`` into the universe row."""
    n = records.shape[0]
    jnt = np.zeros(n, layout.JOINT_DTYPE)
    for f in layout.JOINT_DTYPE.names:
        jnt[f] = records[f]
    prm = np.zeros((n, layout.NP))
    named = layout.named(prm)
    for f in layout.PARAM_DTYPE.names:
        if f in records.dtype.names:
            named[f] = records[f]
    named["gravity"][0] = gravity
    return jnt, prm


def _frozen(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if a.dtype != dtype:
        raise ValueError(f"model array has dtype {a.dtype}, expected {dtype}")
    a = np.ascontiguousarray(a).copy()
    a.flags.writeable = False
    return a


def _dof_table(jnt: np.ndarray) -> np.ndarray:
    """Per-dof joint and parent dof (the previous dof towards the root, -1 at the base)."""
    nv = int(jnt["nv"].sum())
    dof = np.zeros(nv, layout.DOF_DTYPE)
    last_dof = np.full(jnt.shape[0], -1, dtype=np.int64)  # deepest dof at or above joint i
    for i in range(1, jnt.shape[0]):
        par = jnt[i]["parent"]
        prev = last_dof[par]
        for k in range(jnt[i]["nv"]):
            d = jnt[i]["idx_v"] + k
            dof[d]["joint"] = i
            dof[d]["parent"] = prev
            prev = d
        last_dof[i] = prev
    return dof


def _arrays(nq: int, nv: int, nj: int, nf: int) -> dict[str, tuple[int, ...]]:
    """Every array of a Data and its shape: the one table ``Data`` allocates from and checks
    an unpickled Data against (the kernels write through these shapes unchecked)."""
    return {
        "ws": (nj, layout.NW),  # per-joint quantities, columns in kernels/layout.py
        "oMf": (nf, 12),  # frame placements in the world, R row-major then p
        "tau": (nv,),  # joint torques (RNEA)
        "ddq": (nv,),  # joint accelerations (ABA)
        "q_next": (nq,),  # the state after one forward_step (fastdyn.tick)
        "v_next": (nv,),
        "_tick_M": (nv, nv),  # M of the last compute_all_terms, then its factor (fastdyn.tick)
        "_tick_x": (1 + nq + 3 * nv + 3,),  # [valid, q, v, gravity, h, D] of that call
        "_kp": (1,),  # computed_torque's gains when given as numbers (fastdyn.tick)
        "_kd": (1,),
        "nle": (nv,),  # nonlinear effects C(q, v) v + g(q)
        "g": (nv,),  # generalized gravity
        "M": (nv, nv),  # joint-space inertia matrix (CRBA)
        "Minv": (nv, nv),  # its inverse (compute_minverse)
        "U": (nv, nv),  # M = U D U^T, unit upper triangular, tree-sparse (cholesky)
        "D": (nv,),  # the diagonal of that factorization
        "qv": (4, max(nv, 1)),  # q/v-sized scratch rows for kernels
        "_zero_v": (nv,),  # never written: a (and v) of the at-rest RNEA calls
        "_scratch_v": (nv,),  # torques a kernel computes on its way (the regressor's RNEA)
        "com": (nj, 3),  # subtree centres of mass (row 0: whole robot)
        "vcom": (nj, 3),
        "acom": (nj, 3),
        "mass": (nj,),  # subtree masses (row 0: total)
        "energy": (2,),  # [kinetic, potential]
        # Jacobians, centroidal quantities, velocity representations (fastdyn.jacobians,
        # .centroidal, .representations)
        "J": (6, nv),  # joint Jacobians in the world frame, Pinocchio's data.J
        "dJ": (6, nv),  # their time variation
        "J_frame": (6, nv),  # the last frame/joint Jacobian asked for
        "dJ_frame": (6, nv),
        "Jcom": (3, nv),  # Jacobian of the centre of mass
        "Jcom_subtree": (3, nv),
        "Ag": (6, nv),  # centroidal momentum matrix
        "dAg": (6, nv),
        "hg": (6,),  # centroidal momentum [linear; angular about the com]
        "dhg": (6,),
        "Ig": (6, 6),  # centroidal composite inertia
        "C": (nv, nv),  # Coriolis matrix
        "T": (nv, nv),  # velocity-representation transform
        "base_X": (2, 6, 6),
        # Dynamics derivatives (fastdyn.derivatives), Pinocchio's names; q along tangents
        "dtau_dq": (nv, nv),  # d tau / dq (compute_rnea_derivatives, static torque)
        "dtau_dv": (nv, nv),  # d tau / dv
        "ddq_dq": (nv, nv),  # d ddq / dq (compute_aba_derivatives)
        "ddq_dv": (nv, nv),  # d ddq / dv
        "dg_dq": (nv, nv),  # d g / dq (compute_generalized_gravity_derivatives)
        # Kinematics and centroidal derivatives (fastdyn.kinematics_derivatives), Pinocchio's
        # meaning; q along tangents
        "dv_dq": (6, nv),  # d(velocity)/dq of the last joint or frame asked for
        "dv_dv": (6, nv),  # d(velocity)/dv: its Jacobian
        "da_dq": (6, nv),  # d(spatial acceleration)/dq
        "da_dv": (6, nv),
        "da_da": (6, nv),  # its Jacobian again
        "dh_dq": (6, nv),  # d h_g / dq (compute_centroidal_dynamics_derivatives)
        "dhdot_dq": (6, nv),  # d (dh_g/dt) / dq
        "dhdot_dv": (6, nv),  # d (dh_g/dt) / dv (d/da is A_g: data.Ag)
    }


class Data:
    """Every buffer the algorithms write, preallocated once per model (one Data per thread).

    ``ws`` (njoints, layout.NW) holds the per-joint quantities; named views below read it:
    ``liMi``/``oMi`` as (R, p) blocks, ``v``/``a``/``f`` spatial vectors in the joint frames.

    A Data belongs to the model that created it (``model.token``; kept through pickling and
    copying, so a pickled (model, data) pair still works). It is a workspace, not a lock:
    two threads calling into one Data at once overwrite each other's intermediate results
    and both get wrong answers (the kernels release the GIL). Memory stays safe, since the
    shapes never change, but the numbers do not: give each thread its own ``create_data()``.
    Its arrays are written in place by the algorithms; do not rebind them
    (``data.tau = ...``): the compiled calls check the workspace and output shapes they
    write through, other calls trust them.
    """

    def __init__(self, model: Model):
        if not isinstance(model, Model):
            raise TypeError(f"Data(model): model must be a fastdyn.Model, got "
                            f"{type(model).__module__}.{type(model).__qualname__}")
        self.model_token = model.token
        self.nq, self.nv = model.nq, model.nv
        self.njoints, self.nframes = model.njoints, model.nframes
        # what ws holds: 0 nothing, 1 placements, 2 + v, 3 + a, 4 + kinematics derivatives
        self.kinematics = 0
        for name, shape in _arrays(model.nq, model.nv, model.njoints, model.nframes).items():
            setattr(self, name, np.zeros(shape))
        self.ws = layout.workspace(model.njoints)  # the universe sits at the identity for good
        self.U[:] = np.eye(model.nv)

    def __setstate__(self, state: dict) -> None:
        """Unpickling: refuse a Data whose arrays do not have the shapes its sizes imply (a
        damaged or hand-made pickle would otherwise let the kernels write out of bounds)."""
        try:
            sizes = [int(state[k]) for k in ("nq", "nv", "njoints", "nframes")]
            shapes = _arrays(*sizes)
            bad = [k for k, shape in shapes.items()
                   if not (type(state[k]) is np.ndarray and state[k].dtype == np.float64
                           and state[k].shape == shape and state[k].flags.c_contiguous
                           and state[k].flags.writeable)]
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"not a fastdyn Data: {e!r} in its pickled state") from None
        if bad:
            raise ValueError(f"pickled Data is inconsistent: {', '.join(bad)} do not have the "
                             f"shapes of a model with nq, nv, njoints, nframes = {sizes}")
        self.__dict__.update(state)

    def _block(self, o: int, n: int) -> np.ndarray:
        return self.ws[:, o:o + n]

    @property
    def liMi_R(self) -> np.ndarray:
        return self._block(layout.LI, 9).reshape(-1, 3, 3)

    @property
    def liMi_p(self) -> np.ndarray:
        return self._block(layout.LI + 9, 3)

    @property
    def oMi_R(self) -> np.ndarray:
        return self._block(layout.OM, 9).reshape(-1, 3, 3)

    @property
    def oMi_p(self) -> np.ndarray:
        return self._block(layout.OM + 9, 3)

    @property
    def oMf_R(self) -> np.ndarray:
        return self.oMf[:, :9].reshape(-1, 3, 3)

    @property
    def oMf_p(self) -> np.ndarray:
        return self.oMf[:, 9:]

    @property
    def v(self) -> np.ndarray:
        """Spatial velocities of the bodies in their joint frames (LOCAL), (njoints, 6)."""
        return self._block(layout.V, 6)

    @property
    def a(self) -> np.ndarray:
        """Spatial accelerations (LOCAL), gravity not included, (njoints, 6)."""
        return self._block(layout.A, 6)

    @property
    def f(self) -> np.ndarray:
        """Spatial forces transmitted by the joints (LOCAL), (njoints, 6)."""
        return self._block(layout.F, 6)

    @property
    def nbytes(self) -> int:
        return sum(x.nbytes for x in vars(self).values() if isinstance(x, np.ndarray))


_checks.register(Model, Data)  # the classes the argument checks accept
