"""The immutable Model (flat record arrays + names) and the per-thread Data workspace."""

from __future__ import annotations

import itertools

import numpy as np

from .kernels import layout
from .kernels.joints import codes

_tokens = itertools.count(1)


class Model:
    """A kinematic tree flattened into record arrays (see ``fastdyn.kernels.layout``).

    ``jnt`` (njoints,): one row per joint, row 0 the universe; ``frm`` (nframes,): frames;
    ``dof`` (nv,): one row per degree of freedom. The arrays are read-only; ``gravity`` is the
    one field users may change (in place, so existing Data stay valid). Build with
    ``fastdyn.ModelBuilder``, a parser, or ``fastdyn.samples``; share one Model across threads,
    and give each thread its own ``create_data()``.
    """

    def __init__(self, jnt: np.ndarray, frm: np.ndarray, joint_names: list[str],
                 frame_names: list[str], gravity=(0.0, 0.0, -9.81), name: str = "model",
                 mimic: dict | None = None):
        self.jnt = _frozen(jnt, layout.JOINT_DTYPE)
        self.frm = _frozen(frm, layout.FRAME_DTYPE)
        self.dof = _frozen(_dof_table(self.jnt), layout.DOF_DTYPE)
        self.joint_names = tuple(joint_names)
        self.frame_names = tuple(frame_names)
        self.name = name
        self.mimic = dict(mimic or {})  # joint name -> (mimicked joint, multiplier, offset)
        self._gravity = np.array(gravity, dtype=np.float64).reshape(3)
        self.token = next(_tokens)  # identifies this model to its Data
        self.njoints = int(self.jnt.shape[0])
        self.nframes = int(self.frm.shape[0])
        self.nv = int(self.dof.shape[0])
        last = self.jnt[-1]
        self.nq = int(last["idx_q"] + last["nq"]) if self.njoints > 1 else 0
        self._joint_index = {n: i for i, n in enumerate(self.joint_names)}
        self._frame_index = {}
        for i, n in enumerate(self.frame_names):
            self._frame_index.setdefault(n, i)  # first wins, as Pinocchio's getFrameId
        self.check()

    @classmethod
    def from_urdf(cls, path_or_xml, root_joint: str | None = None) -> "Model":
        """Same as ``fastdyn.load_urdf``."""
        from .parsers import load_urdf

        return load_urdf(path_or_xml, root_joint=root_joint)

    # --- sizes (plain attributes set in __init__: a property costs ~100 ns per call) ---
    @property
    def gravity(self) -> np.ndarray:
        """World gravity (3,), default [0, 0, -9.81]; assign to change it."""
        return self._gravity

    @gravity.setter
    def gravity(self, g) -> None:
        g = np.asarray(g, dtype=np.float64)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise ValueError(f"gravity must be 3 finite numbers, got {g!r}")
        self._gravity[:] = g

    # --- names -----------------------------------------------------------------------------
    def joint_id(self, name: str) -> int:
        try:
            return self._joint_index[name]
        except KeyError:
            raise KeyError(f"model {self.name!r} has no joint named {name!r}; joints: "
                           f"{', '.join(self.joint_names[1:20])}"
                           f"{' ...' if self.njoints > 21 else ''}") from None

    def frame_id(self, name: str) -> int:
        try:
            return self._frame_index[name]
        except KeyError:
            raise KeyError(f"model {self.name!r} has no frame named {name!r}; frames: "
                           f"{', '.join(self.frame_names[:20])}"
                           f"{' ...' if self.nframes > 20 else ''}") from None

    def joint_type(self, j: int | str) -> str:
        j = self.joint_id(j) if isinstance(j, str) else int(j)
        return codes.NAMES[int(self.jnt[j]["type"])]

    # --- per-coordinate views, Pinocchio's names ------------------------------------------
    def _per_q(self, field: str) -> np.ndarray:
        out = np.empty(self.nq)
        for r in self.jnt[1:]:
            out[r["idx_q"]:r["idx_q"] + r["nq"]] = r[field][:r["nq"]]
        return out

    def _per_v(self, field: str) -> np.ndarray:
        out = np.empty(self.nv)
        for r in self.jnt[1:]:
            out[r["idx_v"]:r["idx_v"] + r["nv"]] = r[field][:r["nv"]]
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
        """Raise ValueError if the arrays break an invariant the kernels rely on."""
        from .builder import check_arrays  # the builder owns the rules

        check_arrays(self.jnt, self.frm, self.joint_names, self.frame_names)

    def create_data(self) -> "Data":
        return Data(self)

    def __getstate__(self):
        return dict(jnt=np.array(self.jnt), frm=np.array(self.frm), joint_names=self.joint_names,
                    frame_names=self.frame_names, gravity=self._gravity.copy(), name=self.name,
                    mimic=self.mimic)

    def __setstate__(self, st):
        self.__init__(st["jnt"], st["frm"], list(st["joint_names"]), list(st["frame_names"]),
                      st["gravity"], st["name"], st["mimic"])

    def __repr__(self) -> str:
        return (f"Model({self.name!r}: njoints={self.njoints}, nq={self.nq}, nv={self.nv}, "
                f"nframes={self.nframes})")


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


class Data:
    """Every buffer the algorithms write, preallocated once per model (one Data per thread).

    ``ws`` (njoints, layout.NW) holds the per-joint quantities; named views below read it:
    ``liMi``/``oMi`` as (R, p) blocks, ``v``/``a``/``f`` spatial vectors in the joint frames.
    """

    def __init__(self, model: Model):
        nv, nj, nf = model.nv, model.njoints, model.nframes
        self.model_token = model.token
        self.nq, self.nv = model.nq, nv
        self.ws = np.zeros((nj, layout.NW))
        for o in (layout.LI, layout.OM):  # the universe sits at the identity for good
            self.ws[0, o] = self.ws[0, o + 4] = self.ws[0, o + 8] = 1.0
        self.oMf = np.zeros((nf, 12))  # frame placements in the world, R row-major then p
        self.tau = np.zeros(nv)  # joint torques (RNEA)
        self.ddq = np.zeros(nv)  # joint accelerations (ABA)
        self.nle = np.zeros(nv)  # nonlinear effects C(q, v) v + g(q)
        self.g = np.zeros(nv)  # generalized gravity
        self.M = np.zeros((nv, nv))  # joint-space inertia matrix (CRBA)
        self.Minv = np.zeros((nv, nv))  # its inverse (compute_minverse)
        self.U = np.eye(nv)  # M = U D U^T, unit upper triangular, tree-sparse (cholesky)
        self.D = np.zeros(nv)  # the diagonal of that factorization
        self.qv = np.zeros((4, max(nv, 1)))  # q/v-sized scratch rows for kernels
        self._zero_v = np.zeros(nv)  # never written: a (and v) of the at-rest RNEA calls
        self.com = np.zeros((nj, 3))  # subtree centres of mass (row 0: whole robot)
        self.vcom = np.zeros((nj, 3))
        self.acom = np.zeros((nj, 3))
        self.mass = np.zeros(nj)  # subtree masses (row 0: total)
        self.energy = np.zeros(2)  # [kinetic, potential]
        self.kinematics = 0  # what ws holds: 0 nothing, 1 placements, 2 + v, 3 + a
        # Jacobians, centroidal quantities, velocity representations (fastdyn.jacobians,
        # .centroidal, .representations)
        self.J = np.zeros((6, nv))  # joint Jacobians in the world frame, Pinocchio's data.J
        self.dJ = np.zeros((6, nv))  # their time variation
        self.J_frame = np.zeros((6, nv))  # the last frame/joint Jacobian asked for
        self.dJ_frame = np.zeros((6, nv))
        self.Jcom = np.zeros((3, nv))  # Jacobian of the centre of mass
        self.Jcom_subtree = np.zeros((3, nv))
        self.Ag = np.zeros((6, nv))  # centroidal momentum matrix
        self.dAg = np.zeros((6, nv))
        self.hg = np.zeros(6)  # centroidal momentum [linear; angular about the com]
        self.dhg = np.zeros(6)
        self.Ig = np.zeros((6, 6))  # centroidal composite inertia
        self.C = np.zeros((nv, nv))  # Coriolis matrix
        self.T = np.zeros((nv, nv))  # velocity-representation transform
        self.base_X = np.zeros((2, 6, 6))

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
