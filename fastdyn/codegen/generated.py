"""The object ``fastdyn.codegen.generate`` returns: raw kernels and checked single calls."""

from __future__ import annotations

import os
from types import ModuleType

import numpy as np

from .._internal import checks as _checks
from .._internal.checks import QUAT_TOL
from .._internal.fastcall import Kernel
from ..model import Data, Model

ALGORITHMS = ("forward_kinematics", "joint_jacobians", "rnea", "crba", "aba", "free_velocity")
# opt-in (``generate(model, algorithms=ALGORITHMS + DERIVATIVES)``): long code, long compiles
DERIVATIVES = ("rnea_derivatives", "aba_derivatives")


class Generated:
    """The generated kernels of one model.

    ``gen.kernels.<name>``: the raw njit kernels (``ALGORITHMS``, plus ``rnea_batch`` and
    ``aba_batch``), for your own compiled loops; nothing is checked. ``gen.paths``: the
    generated modules' files, one per algorithm (``gen.path``: the first).

    Checked single calls from Python, with the object API's input checks (types, shapes,
    finiteness, unit quaternions; a bad input raises the same error as ``fastdyn.rnea`` would):
    ``gen.rnea(data, q, v, a, fext=None)``, ``gen.aba(data, q, v, tau, fext=None)``,
    ``gen.crba(data, q)``,
    ``gen.forward_kinematics(data, q)``, ``gen.compute_joint_jacobians(data, q)``, and when
    generated (``DERIVATIVES``), ``gen.compute_rnea_derivatives(data, q, v, a)`` and
    ``gen.compute_aba_derivatives(data, q, v, tau)`` (no fext). Each fills
    its own output in ``data`` (tau, ddq, M; liMi and oMi; J) and returns it. Unlike the generic
    functions, rnea/aba/crba leave the rest of ``data`` alone (no v, f or oMi), so frame
    queries after them ask for forward kinematics first.
    """

    def __init__(self, model: Model, module: ModuleType, paths: tuple[str, ...],
                 algorithms: tuple[str, ...] = ALGORITHMS, directory: str | None = None,
                 recipe=None):
        self.model_token = model.token
        self._recipe = recipe  # fastdyn.codegen.generate, which made this (for pickling)
        self.kernels = module
        self.paths = paths  # the modules' files, one per algorithm
        self.path = paths[0]  # the first one's (the only one for a single algorithm)
        self.algorithms = algorithms
        self._directory = directory
        self._model = model
        self._gravity = model._gravity  # the model's own array: gravity changes in place
        for name, vectors in _VECTORS.items():
            disp = getattr(module, name + "_checked", None)
            setattr(self, "_" + name, _Missing(name) if disp is None else
                    Kernel(disp, vectors))

    def __reduce__(self):
        """Pickled as the recipe, not the module: a worker process (multiprocessing, a process
        pool) regenerates, which finds the same file and the machine code cached beside it.
        The model's token travels with it, so a Data of that model (pickled with it or not)
        is accepted by these kernels in the worker too."""
        return self._recipe, (self._model, self.algorithms, self._directory)

    def __repr__(self) -> str:
        have = [a for a in ALGORITHMS + DERIVATIVES
                if hasattr(self.kernels, a) or hasattr(self.kernels, a + "_own")]
        where = self.path if len(self.paths) == 1 else os.path.dirname(self.path)
        return f"<fastdyn generated kernels {have} at {where}>"

    # -- checked calls: the type tests are written out in each method because a helper call
    # costs ~50 ns of the ~250 ns a call spends in Python (measured on UR5 CRBA) -------------
    def _slow(self, q, *vectors):
        """Inputs that are not all 1-D float64 ndarrays: the generic checks convert them
        (lists, float32, ints) or raise, naming the argument."""
        m = self._model
        return [_checks.configuration(m, q)] + [_checks.vector(x, m.nv, n) for x, n in vectors]

    def _fail(self, code: int, q, vectors: tuple = (), fext=None) -> None:
        """Turn a checked kernel's code (fastdyn/codegen/checked.py) into the error the
        generic functions raise: 4, the Data's arrays do not fit; 1, rerun the generic
        checks, which name the bad input (fext was checked whole before the call); 2, an
        overflow; 3, ABA's non-finite ddq from finite inputs, which the generic ABA (run on
        the same input) tells apart as a singular inertia or an overflow."""
        m = self._model
        if code == 4:
            raise ValueError(f"this Data's arrays do not fit {m!r} (rebound or reshaped?); "
                             f"use model.create_data()")
        _checks.configuration(m, q)
        for x, name in vectors:
            _checks.vector(x, m.nv, name)
        if code == 3:
            from ..dynamics import aba
            aba(m, m.create_data(), q, *(x for x, _ in vectors), fext=fext)
        if code in (2, 3):
            raise _checks.NumericalOverflowError(_checks.overflow_message(
                ("q",) + tuple(n for _, n in vectors), (q,) + tuple(x for x, _ in vectors)))
        raise RuntimeError("generated input check refused an input the generic checks accept")

    def rnea(self, data: Data, q, v, a, fext=None) -> np.ndarray:
        """tau = M(q) a + C(q, v) v + g(q) - sum_i J_i^T fext_i into data.tau (fext: LOCAL
        forces (njoints, 6), as fastdyn.rnea takes them)."""
        try:
            same = data.model_token == self.model_token
        except AttributeError:  # not a Data: data_for says so
            same = False
        if not same:
            _checks.data_for(self._model, data)  # raises, saying whose Data it is
        if not (type(q) is type(v) is type(a) is _ND and q.dtype is v.dtype is a.dtype is _F64
                and q.ndim == v.ndim == a.ndim == 1):
            q, v, a = self._slow(q, (v, "v"), (a, "a"))
        if fext is None:
            code = self._rnea.call(self._gravity, q, v, a, data.tau, QUAT_TOL)
        else:
            fext = _checks.forces(self._model, fext)
            code = self._rnea_fext.call(self._gravity, q, v, a, fext, data.tau, QUAT_TOL)
        data.kinematics = 0
        if code:
            self._fail(code, q, ((v, "v"), (a, "a")))
        return data.tau

    def aba(self, data: Data, q, v, tau, fext=None) -> np.ndarray:
        """ddq = M(q)^-1 (tau - C(q, v) v - g(q) + sum_i J_i^T fext_i) into data.ddq."""
        try:
            same = data.model_token == self.model_token
        except AttributeError:  # not a Data: data_for says so
            same = False
        if not same:
            _checks.data_for(self._model, data)  # raises, saying whose Data it is
        if not (type(q) is type(v) is type(tau) is _ND
                and q.dtype is v.dtype is tau.dtype is _F64 and q.ndim == v.ndim == tau.ndim == 1):
            q, v, tau = self._slow(q, (v, "v"), (tau, "tau"))
        if fext is None:
            code = self._aba.call(self._gravity, q, v, tau, data.ddq, QUAT_TOL)
        else:
            fext = _checks.forces(self._model, fext)
            code = self._aba_fext.call(self._gravity, q, v, tau, fext, data.ddq, QUAT_TOL)
        data.kinematics = 0
        if code:
            self._fail(code, q, ((v, "v"), (tau, "tau")), fext)
        return data.ddq

    def crba(self, data: Data, q) -> np.ndarray:
        """M(q) into data.M, both triangles."""
        try:
            same = data.model_token == self.model_token
        except AttributeError:  # not a Data: data_for says so
            same = False
        if not same:
            _checks.data_for(self._model, data)  # raises, saying whose Data it is
        if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1):
            q, = self._slow(q)
        code = self._crba.call(q, data.M, QUAT_TOL)
        data.kinematics = 0
        if code:
            self._fail(code, q)
        return data.M

    def forward_kinematics(self, data: Data, q) -> None:
        """liMi and oMi of every joint into data (data.oMi_R, data.oMi_p, ...)."""
        try:
            same = data.model_token == self.model_token
        except AttributeError:  # not a Data: data_for says so
            same = False
        if not same:
            _checks.data_for(self._model, data)  # raises, saying whose Data it is
        if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1):
            q, = self._slow(q)
        code = self._forward_kinematics.call(q, data.ws, QUAT_TOL)
        data.kinematics = 0 if code else 1
        if code:
            self._fail(code, q)

    def compute_joint_jacobians(self, data: Data, q) -> np.ndarray:
        """Placements, then the world Jacobian of every dof into data.J (6, nv)."""
        try:
            same = data.model_token == self.model_token
        except AttributeError:  # not a Data: data_for says so
            same = False
        if not same:
            _checks.data_for(self._model, data)  # raises, saying whose Data it is
        if not (type(q) is _ND and q.dtype is _F64 and q.ndim == 1):
            q, = self._slow(q)
        code = self._joint_jacobians.call(q, data.ws, data.J, QUAT_TOL)
        data.kinematics = 0 if code else 1
        if code:
            self._fail(code, q)
        return data.J

    def compute_rnea_derivatives(self, data: Data, q, v, a
                                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dtau_dq, dtau_dv, M) at (q, v, a), no external forces, into data.dtau_dq,
        data.dtau_dv, data.M (both triangles; data.tau = RNEA(q, v, a) too), where
        fastdyn.compute_rnea_derivatives puts them; q perturbed along tangent vectors, as
        pinocchio.computeRNEADerivatives (fastdyn/codegen/rnea_derivatives.py). Generated with
        ``algorithms=(..., "rnea_derivatives")``."""
        try:
            same = data.model_token == self.model_token
        except AttributeError:  # not a Data: data_for says so
            same = False
        if not same:
            _checks.data_for(self._model, data)  # raises, saying whose Data it is
        if not (type(q) is type(v) is type(a) is _ND and q.dtype is v.dtype is a.dtype is _F64
                and q.ndim == v.ndim == a.ndim == 1):
            q, v, a = self._slow(q, (v, "v"), (a, "a"))
        code = self._rnea_derivatives.call(self._gravity, q, v, a, data.tau, data.dtau_dq,
                                           data.dtau_dv, data.M, QUAT_TOL)
        data.kinematics = 0
        if code:
            self._fail(code, q, ((v, "v"), (a, "a")))
        return data.dtau_dq, data.dtau_dv, data.M

    def compute_aba_derivatives(self, data: Data, q, v, tau
                                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ddq_dq, ddq_dv, Minv) at (q, v, tau), no external forces, into data.ddq_dq,
        data.ddq_dv, data.Minv (both triangles; data.ddq = ABA(q, v, tau) too), where
        fastdyn.compute_aba_derivatives puts them; data.M, U, D are not written (the
        factorization lives in the kernel's locals). q perturbed along tangent vectors, as
        pinocchio.computeABADerivatives (fastdyn/codegen/aba_derivatives.py). Generated with
        ``algorithms=(..., "aba_derivatives")``."""
        try:
            same = data.model_token == self.model_token
        except AttributeError:  # not a Data: data_for says so
            same = False
        if not same:
            _checks.data_for(self._model, data)  # raises, saying whose Data it is
        if not (type(q) is type(v) is type(tau) is _ND
                and q.dtype is v.dtype is tau.dtype is _F64 and q.ndim == v.ndim == tau.ndim == 1):
            q, v, tau = self._slow(q, (v, "v"), (tau, "tau"))
        code = self._aba_derivatives.call(self._gravity, q, v, tau, data.ddq, data.ddq_dq,
                                          data.ddq_dv, data.Minv, QUAT_TOL)
        data.kinematics = 0
        if code:
            self._fail(code, q, ((v, "v"), (tau, "tau")))
        return data.ddq_dq, data.ddq_dv, data.Minv


class _Missing:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def call(self, *args):
        raise AttributeError(f"{self.name} was not generated for this model: "
                             f"fastdyn.codegen.generate(model, algorithms=(..., {self.name!r}))")


_ND = np.ndarray
_F64 = _checks.F64
# which arguments of each *_checked kernel are state vectors (any layout:
# fastdyn/_internal/fastcall.py)
_VECTORS = {"rnea": (1, 2, 3), "rnea_fext": (1, 2, 3), "aba": (1, 2, 3), "aba_fext": (1, 2, 3),
            "crba": (0,), "forward_kinematics": (0,), "joint_jacobians": (0,),
            "rnea_derivatives": (1, 2, 3), "aba_derivatives": (1, 2, 3)}
