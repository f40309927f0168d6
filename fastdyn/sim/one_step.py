"""``Scene.step``: one simulator step from Python, through a prepared compiled path.

An MPC or a controller calls it at every tick, so it is built to cost little more than the
step itself (kernels/entry/scene_step.py):
- the buffers, the options prepared for the model's own robot and the step's geometry
  tables are made once (``Prepared``) and made again only when the scene's geometry or
  options change (the kernel compares the options: STALE);
- q, v and tau are checked for type and size here (~0.3 us) and for finiteness and unit
  quaternions in the compiled entry point;
- what the step leaves besides (q+, v+): the contact forces and points, the applied torque,
  the constraints' generalized force, the solver's stats and the geom contacts, is read from
  the step's buffers when the scene's attribute is read (``last``), not copied at every step.
A step whose kernel fails (singular, diverged, too many contacts) is replayed through the
rollout path from the same warm start, whose messages name the failure.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._internal import checks as _checks
from .._internal.checks import QUAT_TOL
from .._internal.fastcall import Kernel
from ..errors import ConvergenceWarning
from ..kernels import layout as L
from ..kernels.contact import time_step as _ts
from ..kernels.entry import scene_step as _ss
from . import scene_geoms as _geoms

# one entry point per type of ``geo`` and ``eqc`` (None, or the geom or constraint tables'
# tuple): a Kernel binds to the signature of its first call
_KERNELS = {(g, e): Kernel(_ss.step_checked, vectors=(8, 9, 10))
            for g in (False, True) for e in (False, True)}
_F64 = _checks.F64
_NO_FORCES = np.zeros((0, 6))


class Prepared:
    """A scene's step, prepared: options (``opt``, with O_FREE and O_NO_CLAMP set for the
    model's own robot), sizes, workspace and ``scratch`` (the kernel's buffers, end to end),
    and what the prepared copy was made from (``fresh`` compares it with the scene)."""

    def __init__(self, scene, opt: np.ndarray, sizes: tuple[int, int, int, int]):
        model = scene.model
        _, nwarm, nf, ni = sizes
        self.sph, self.hsp = scene.spheres, scene.halfspaces
        self.ngeom, self.nexcluded = len(scene._geoms), len(scene._excluded)
        self.nconstraints = len(scene._constraints)
        self.max_contacts = scene.max_contacts
        self.nq, self.nv, self.nf, self.nwarm = model.nq, model.nv, nf, nwarm
        self.npair = len(self.sph) * len(self.hsp)
        self.nslots = scene._npair()  # the sphere pairs and the constraints' room
        self.ws = L.workspace(model.jnt)
        self.ibuf = np.zeros(ni, dtype=np.int64)
        self.scratch = np.zeros(_ss.scratch_size(model.nq, model.nv, nf, self.npair, nwarm))
        self.scratch[:L.NO] = opt
        self.fbuf, self.tau, self.qn, self.vn, self.cf, self.stats = self._views()
        self.zero = np.zeros(model.nv)  # tau when none is given
        self.geo, self.eqc = scene._geo_tables(), scene._eqc_tables()
        self.kernel = _KERNELS[self.geo is not None, self.eqc is not None]
        self.warm2d = self.warm = None  # the scene's warm start (2-D) and its row

    def fresh(self, scene) -> bool:
        """Whether the scene's geometry is still what this copy was prepared from (its
        options are compared by the kernel)."""
        return (self.sph is scene.spheres and self.hsp is scene.halfspaces
                and self.ngeom == len(scene._geoms) and self.nexcluded == len(scene._excluded)
                and self.nconstraints == len(scene._constraints)
                and self.max_contacts == scene.max_contacts)

    def _views(self) -> tuple[np.ndarray, ...]:
        """(fbuf, tau, qn, vn, cf, stats): the kernel's views of ``scratch``
        (kernels/entry/scene_step.py's scratch_views), made once: scratch is never replaced."""
        nq, nv, nf = self.nq, self.nv, self.nf
        o = L.NO
        fbuf = self.scratch[o:o + nf]
        o += nf + nq + nv
        tau = self.scratch[o:o + nv]
        o += nv
        qn, vn = self.scratch[o:o + nq], self.scratch[o + nq:o + nq + nv]
        o += nq + nv
        cf = self.scratch[o:o + 6 * self.npair].reshape(self.npair, 6)
        o += 6 * self.npair
        return fbuf, tau, qn, vn, cf, self.scratch[o:o + 3]


class Stored:
    """What a step replayed through the rollout path left (its arrays, by name)."""

    __slots__ = ("arrays",)

    def __init__(self, **arrays):
        self.arrays = arrays

    def get(self, name: str, scene):
        return self.arrays[name]


class Last:
    """What the last fast step left, read on demand from its prepared buffers."""

    __slots__ = ("p",)

    def __init__(self, p: Prepared):
        self.p = p

    def get(self, name: str, scene):
        p = self.p
        fbuf, tau, cf, stats = p.fbuf, p.tau, p.cf, p.stats
        if name == "contact_forces":
            return cf[:, :3].copy()
        if name == "contact_points":
            return cf[:, 3:].copy()
        if name == "applied_tau":
            return tau.copy()
        if name == "stats":
            return stats.copy()
        if name == "constraint_tau":
            o = _ts.rhs_offset(p.nv)
            return fbuf[o:o + p.nv].copy()
        if name == "geom_contacts":
            return _geoms.results(p.geo, fbuf, p.ibuf, p.nv, p.nslots)
        if name == "constraint_forces":
            return scene._constraint_forces(p.warm)
        raise KeyError(name)


def step(scene, q, v, tau=None, fext=None) -> tuple[np.ndarray, np.ndarray]:
    """One step from (q, v) under the commanded torque ``tau`` (clamped to the effort
    limits) and external forces ``fext`` (njoints, 6; LOCAL, as ``fastdyn.rnea``);
    returns the next (q, v). The contacts of the step are left in ``contact_forces``,
    ``contact_points`` (npairs, 3), the applied torque in ``applied_tau``, the
    constraints' generalized force W P / dt (contacts, limits, joint friction) in
    ``constraint_tau`` (nv,), the solver's rows, sweeps and residual in ``stats``, the
    geom contacts in ``geom_contacts`` and the constraints' row forces in
    ``constraint_forces`` (each read from the step's buffers when asked).
    Consecutive calls warm-start the solver (``reset`` forgets): not thread-safe, one
    Scene per thread (the class docstring). A step whose solver stopped at its cap
    above the tolerance warns (``ConvergenceWarning``); a state that is not finite raises
    ``DivergenceError``; bad inputs raise ValueError naming the entry (or the joint whose
    quaternion is off the unit sphere). Costs the step's kernel plus ~1.5 us
    (fastdyn/sim/one_step.py; bench/test_single_step.py)."""
    p = scene._prepared_step
    if p is None or not p.fresh(scene):
        p = scene._prepare_step()
    model = scene.model
    if tau is None:
        tau = p.zero
    if not (type(q) is type(v) is type(tau) is np.ndarray  # _checks.fast_state, inlined
            and q.dtype is v.dtype is tau.dtype is _F64 and q.ndim == v.ndim == tau.ndim == 1
            and len(q) == p.nq and len(v) == len(tau) == p.nv):
        q, v, tau = _checks.fast_state(q, v, tau, p.nq, p.nv, "tau")
    F = _NO_FORCES if fext is None else _checks.forces(model, fext)
    w = scene._warm
    if w is None or w is not p.warm2d:
        if w is None or w.shape[1] != p.nwarm:
            w = scene._warm = np.zeros((1, p.nwarm))
        p.warm2d, p.warm = w, w[0]
    code = p.kernel.call(model.jnt, model.prm, model.dof, p.sph, p.hsp, p.geo, p.eqc, scene.opt,
                         q, v, tau, F, p.ws, p.ibuf, p.warm, p.scratch, p.nf, QUAT_TOL)
    if code == _ss.STALE * _ss.CODE:  # an option changed since: prepare again, once
        p = scene._prepare_step()
        p.warm2d, p.warm = w, w[0]
        code = p.kernel.call(model.jnt, model.prm, model.dof, p.sph, p.hsp, p.geo, p.eqc,
                             scene.opt, q, v, tau, F, p.ws, p.ibuf, p.warm, p.scratch, p.nf,
                             QUAT_TOL)
    if code > _ss.UNCONVERGED:
        if code == _ss.FAILED * _ss.CODE:
            return scene._step_through_rollout(q, v, tau, fext)
        _checks.explain(model, code, ("q", "v", "tau"), q, v, tau)
    scene._last = Last(p)
    if code == _ss.UNCONVERGED:
        warnings.warn(f"the step did not converge: {scene._capped()} (residual "
                      f"{p.stats[2]:.3g} m/s): {scene._remedy()}",
                      ConvergenceWarning, stacklevel=2)
    return p.qn.copy(), p.vn.copy()
