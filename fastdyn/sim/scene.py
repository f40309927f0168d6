"""The simulator: a model in an environment, stepped with contacts, limits and controllers.

    scene = fd.Scene(model, dt=1e-3)              # a ground plane z = 0, mu = 0.8
    scene.add_sphere("FL_FOOT", radius=0.016)    # contact geometry on frames
    out = scene.rollout(q0, v0, steps=2000, kp=3.0, kd=0.2, record=("q", "contacts"))

Each step solves the frictional contact problem of Moreau-Jean time stepping (exact Coulomb
cones, unilateral normals, joint limits, dry joint friction) by projected Gauss-Seidel on the
Delassus matrix, or by ADMM (``Scene(solver="admm")``) where Gauss-Seidel stalls:
kernels/contact/time_step.py states the equations, pgs.py the problem and its tolerance,
admm.py the ADMM iteration. Rollouts run in compiled code, in parallel over initial states
and robots, under a PD + feed-forward controller or a user's own @njit policy.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numba
import numpy as np

from .._internal import checks as _checks, memory as _memory
from . import generated_rollout as _generated_rollout, policy as _policy, scene_geoms as _geoms
from . import horizon as _horizon, one_step as _onestep
from . import scene_constraints as _eqs
from .._internal.slices import next_span, progress as _progress
from .._internal.threads import run_rows
from .._internal import batching
from ..kernels import layout as L
from ..kernels.contact import constraint_rows as _rows, controllers
from ..kernels.entry import rollout as _roll
from ..kernels.contact import time_step as _ts
from ..model import Model
from .step_derivatives import step_derivatives as _step_derivatives
from ..errors import (ConvergenceWarning, DivergenceError, RolloutWarning,  # noqa: F401
                      TooManyContactsError)

RECORDABLE = ("q", "v", "tau", "contacts", "stats", "ncontacts", "constraints")
_SOLVERS = {"pgs": L.PGS, "admm": L.ADMM}


@dataclass
class Rollout:
    """What ``Scene.rollout`` returns. Arrays have a leading rollout axis N unless the initial
    state was a single vector. Recorded arrays (None unless asked for in ``record``):
    q (N, T + 1, nq) and v (N, T + 1, nv) with the initial state first; tau (N, T, nv) the
    applied torques; contact_forces and contact_points (N, T, npairs, 3), one per
    (sphere, half-space) pair (``Scene.pairs``), zero while apart, forces in newtons in world
    axes; stats (N, T, 3): constraint rows, solver sweeps (or ADMM iterations), solver
    residual [m/s]; ncontacts (N, T): the geom contacts each step found (``Scene.add_geom``;
    those within the margin, the rows among them and more: ``Scene.geom_contacts``);
    constraint_forces (N, T, rows): each constraint row's force (``Scene.add_constraint``; as
    ``Scene.constraint_forces``).
    frame_positions (N, T + 1, nframes, 3) and frame_rotations (N, T + 1, nframes, 3, 3): the
    world placements of the frames given to ``rollout(frames=...)``, at each recorded state.
    Steps after a rollout stopped are NaN. ``status`` (N,) is, per rollout:
    "ok": every step solved to the tolerance; "unconverged": it ran to the end, but on some
    steps the constraint solver stopped at its iteration cap with the residual above the
    tolerance (``Scene``'s docstring); "diverged": it stopped where the next state was not
    finite; "singular": it stopped where M(q) + dt diag(damping) was not positive definite;
    "raised": it stopped where its policy raised (the exception is in the reason);
    "too_many_contacts": it stopped where a step found more geom contacts than the scene's
    ``max_contacts`` (none is dropped silently: the reason gives the count).
    ``failures`` maps every rollout that is not "ok" to the reason (a stopped one's also says
    whether its solver had missed the tolerance before)."""
    final_q: np.ndarray
    final_v: np.ndarray
    status: np.ndarray
    failures: dict[int, str] = field(default_factory=dict)
    q: np.ndarray | None = None
    v: np.ndarray | None = None
    tau: np.ndarray | None = None
    contact_forces: np.ndarray | None = None
    contact_points: np.ndarray | None = None
    stats: np.ndarray | None = None
    ncontacts: np.ndarray | None = None
    constraint_forces: np.ndarray | None = None
    frame_positions: np.ndarray | None = None
    frame_rotations: np.ndarray | None = None
    steps_per_second: float = 0.0
    constraint_tau: np.ndarray | None = None  # the last step's W P / dt, thread 0's (step)


class Scene:
    """A model, its contact geometry (spheres on frames), the environment (half-spaces with
    friction and restitution) and the step's options.

    dt: time step [s]. erp: fraction of a penetration removed per step (a rigid contact at
    rest settles at a penetration near (tolerance + r G_nn P_n) dt / erp, about 1e-12 m at
    the defaults; tests/test_simulator.py holds standing Solo12 and Talos under 1e-9 m).
    regularization: relative compliance r of every contact and dry-friction row
    (R = r diag(G)); joint-limit rows have none: a limit holds to round-off at the end of
    every step, whatever dt (a limit enters a step when the free velocity or the velocity
    solved without it would cross it: kernels/contact/constraint_rows.py).
    tolerance: solver residual [m/s] at which a step's solver stops (PGS: a sweep's largest
    change; ADMM: the largest velocity error); iterations: the most sweeps or iterations.
    A step whose solver reaches ``iterations`` with the residual still above ``tolerance``
    is reported, never passed as converged: ``step`` warns (``ConvergenceWarning``), and
    ``rollout`` marks the rollout "unconverged" (it runs to the end; ``Rollout.failures``
    says on how many steps, the first, and its residual) with one ``ConvergenceWarning``.
    margin: a contact enters a step when its gap predicted at the end of the step is below
    it [m]. bounce_speed: restitution acts only on approach speeds above it [m/s]. ground:
    add the plane z = 0 with friction ``mu`` and ``restitution``. limits: False ignores the
    joint position limits (as MuJoCo without ``limited``). A scene where no constraint can
    arise (no contact pairs, no limits, no dry friction, no damping) steps with ABA alone;
    there, integrator="rk4" takes Runge-Kutta steps instead of semi-implicit Euler
    (kernels/algorithms/rk4.py: Munthe-Kaas' RK4 on the configuration Lie group, fourth
    order on every joint, rotations included). Semi-implicit Euler advances a free-flyer's
    (and a planar joint's) linear velocity in the step's start axes and turns it exactly
    into the new ones, so a spinning body in free flight keeps its speed and straight line
    to round-off (kernels/configuration/frozen.py); it is first order, and its angular
    momentum drifts as dt (7e-4 of it in 2 s at dt = 1 ms for a body at 10 rad/s
    tumbling through its intermediate axis).
    solver: "pgs" (projected Gauss-Seidel, kernels/contact/pgs.py, which after 1, 2, 4,
    ... sweeps tries the exact solution on the active set they show, refined by block
    pivoting, and keeps it when a sweep finds it within the tolerance:
    kernels/contact/active_set.py) or "admm" (ADMM with
    a dense factorization of the Delassus matrix, admm.py: converges on ill-conditioned
    problems such as heavy bodies on light ones, where Gauss-Seidel stalls; its iterates are
    polished the same way; ``iterations`` then counts ADMM iterations).
    solref, solimp: MuJoCo's soft contacts on every half-space of the scene (the ground and
    those added later; ``add_halfspace`` takes its own): giving either one makes contacts
    soft, the other taking MuJoCo's default (``MUJOCO_SOLREF`` (0.02, 1): timeconst [s],
    dampratio, or (-stiffness, -damping); ``MUJOCO_SOLIMP`` (0.9, 0.95, 0.001, 0.5, 2): dmin,
    dmax, width [m], midpoint, power). A soft contact enters a step when its sphere
    penetrates (no margin, no restitution); each step then solves MuJoCo's soft problem at
    the velocity level, (G + R) P + c in the Coulomb cone with R = (1 - d) / d w (w: MuJoCo's
    inverse weight of the sphere's body at the neutral configuration) and the velocity
    target J v + dt a_ref, a_ref = -B J v - K d r, in place of ``erp`` and
    ``regularization`` (kernels/contact/softness.py; fastdyn/docs/mujoco.md says what
    differs from MuJoCo). The default (None, None) is rigid contact. impratio: MuJoCo's
    ratio of the friction rows' impedance to the normal's (their R is the normal's over
    impratio; 1 as MuJoCo's default, 10 stops most of the creep of loaded soft feet).
    max_contacts: the most geom contacts (``add_geom``) a step takes (MuJoCo's nconmax idea;
    default 8 per geom, at least 32): the step's buffers hold that many. A step that finds
    more is never cut silently: ``step`` raises TooManyContactsError and a rollout stops
    with status "too_many_contacts", both naming the count.

    Threads: ``step`` carries state from one call to the next (the solver's warm start, the
    last step's ``contact_forces``, ``stats``, ...), so a Scene is not shared between
    threads that call ``step``: two threads stepping one Scene drift apart (by about 2e-5
    on a contact scene) through the shared warm start. Give each thread its own Scene
    (``copy.deepcopy(scene)``). ``rollout`` keeps its state in arrays of its own."""

    MUJOCO_SOLREF = (0.02, 1.0)
    MUJOCO_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)

    def __init__(self, model: Model, dt: float = 1e-3, *, ground: bool = True, mu: float = 0.8,
                 restitution: float = 0.0, erp: float = 0.2, regularization: float = 1e-8,
                 tolerance: float = 1e-9, iterations: int = 200, margin: float = 1e-3,
                 bounce_speed: float = 1e-2, limits: bool = True, integrator: str = "euler",
                 solver: str = "pgs", solref: Sequence[float] | None = None,
                 solimp: Sequence[float] | None = None, impratio: float = 1.0,
                 max_contacts: int | None = None):
        _checks.model_arg(model)
        self.model = model
        self.spheres = np.zeros(0, L.SPHERE_DTYPE)
        self.sphere_names: list[str] = []
        self.halfspaces = np.zeros((0, L.NH))
        self._geoms: list[dict] = []  # fastdyn.sim.collision.geom_table's dicts (scene_geoms.py)
        self.geom_names: list[str] = []
        self._excluded: list[tuple[int, int]] = []
        self._geo_key, self._geo = None, _geoms.NO_GEO
        self._constraints: list = []  # (constraint, softness) pairs (scene_constraints.py)
        self._eqc_key, self._eqc = None, _eqs.NO_EQC
        if max_contacts is not None:
            max_contacts = _checks.integer(max_contacts, "max_contacts", 1)
        self.max_contacts = max_contacts
        self.opt = np.zeros(L.NO)
        self.dt = dt
        self.erp = erp
        self.regularization = regularization
        self.tolerance = tolerance
        self.iterations = iterations
        self.margin = margin
        self.bounce_speed = bounce_speed
        if not isinstance(limits, (bool, np.bool_)):
            raise TypeError(f"limits must be True or False, got {limits!r}")
        self.opt[L.O_LIMITS] = float(limits)
        if integrator not in ("euler", "rk4"):
            raise ValueError(f"integrator must be 'euler' or 'rk4', got {integrator!r}")
        self.opt[L.O_INTEGRATOR] = L.RK4 if integrator == "rk4" else L.EULER
        self.solver = solver
        self._softness = _soft_row(solref, solimp)
        self.impratio = impratio
        if ground:
            self.add_halfspace((0.0, 0.0, 1.0), 0.0, mu=mu, restitution=restitution)
        self._warm: np.ndarray | None = None

    # --- options, checked on the way in --------------------------------------------------
    def _option(self, slot: int, x, name: str, lo: float = 0.0, hi: float = np.inf,
                open_lo: bool = False) -> None:
        x = _checks.scalar(x, name)
        if not (lo < x if open_lo else lo <= x) or not x <= hi:
            raise ValueError(f"Scene {name} must be in {'(' if open_lo else '['}{lo:g}, "
                             f"{hi:g}], got {x!r}")
        self.opt[slot] = x

    dt = property(lambda s: float(s.opt[L.O_DT]),
                  lambda s, x: s._option(L.O_DT, x, "dt", open_lo=True))
    erp = property(lambda s: float(s.opt[L.O_ERP]),
                   lambda s, x: s._option(L.O_ERP, x, "erp", 0.0, 1.0))
    regularization = property(lambda s: float(s.opt[L.O_REGULARIZATION]),
                              lambda s, x: s._option(L.O_REGULARIZATION, x, "regularization"))
    tolerance = property(lambda s: float(s.opt[L.O_TOL]),
                         lambda s, x: s._option(L.O_TOL, x, "tolerance"))
    iterations = property(lambda s: int(s.opt[L.O_ITERATIONS]),
                          lambda s, x: s._option(L.O_ITERATIONS,
                                                 _checks.integer(x, "iterations", 1),
                                                 "iterations", 1.0))
    margin = property(lambda s: float(s.opt[L.O_MARGIN]),
                      lambda s, x: s._option(L.O_MARGIN, x, "margin"))
    impratio = property(lambda s: float(s.opt[L.O_IMPRATIO]),
                        lambda s, x: s._option(L.O_IMPRATIO, x, "impratio", open_lo=True))
    bounce_speed = property(lambda s: float(s.opt[L.O_BOUNCE]),
                            lambda s, x: s._option(L.O_BOUNCE, x, "bounce_speed"))

    @property
    def solver(self) -> str:
        return "admm" if self.opt[L.O_SOLVER] == L.ADMM else "pgs"

    @solver.setter
    def solver(self, name: str) -> None:
        if not isinstance(name, str) or name not in _SOLVERS:
            raise ValueError(f"solver must be one of {tuple(_SOLVERS)}, got {name!r}")
        self.opt[L.O_SOLVER] = _SOLVERS[name]

    # --- geometry and environment --------------------------------------------------------
    def _fill_weights(self) -> None:
        """Each sphere's ``invweight`` (MuJoCo's body_invweight0, which scales soft contacts
        only), computed once the scene has a soft half-space: it needs the mass matrix, whose
        compilation a rigid scene never pays. Until then it is NaN (never read)."""
        s = self.spheres
        if not (len(self.halfspaces) and self.halfspaces[:, L.H_SOLREF:L.H_SOLIMP + 5].any()):
            return
        for i in np.flatnonzero(np.isnan(s["invweight"])):
            s["invweight"][i] = _inverse_weight(self.model, int(s["joint"][i]))

    def add_sphere(self, frame: str | int, radius: float, position: Sequence[float] = (0, 0, 0),
                   name: str | None = None) -> int:
        """A contact sphere of ``radius`` [m] (0: a point) centred at ``position`` in the
        frame's axes; returns its index. The frame may be any of the model's frames. Spheres
        collide with the scene's half-spaces only (not with ``add_geom``'s geoms, nor with
        each other); ``add_geom(frame, "sphere", ...)`` collides with everything."""
        f = _checks.frame_index(self.model, frame)
        radius = _checks.scalar(radius, "radius")
        if radius < 0:
            raise ValueError(f"sphere radius must be >= 0, got {radius!r}")
        p = _checks.vector(position, 3, "position")
        fr = self.model.frm[f]
        row = np.zeros(1, L.SPHERE_DTYPE)
        row["joint"] = fr["parent_joint"]
        row["p"] = fr["R"] @ p + fr["p"]
        row["radius"] = radius
        row["invweight"] = np.nan  # computed when a soft contact needs it (_fill_weights)
        self.spheres = np.concatenate([self.spheres, row])
        self._fill_weights()
        self.sphere_names.append(name or f"{self.model.frame_names[f]}#{len(self.spheres) - 1}")
        self._warm = None
        return len(self.spheres) - 1

    def add_box(self, frame: str | int, size: Sequence[float],
                position: Sequence[float] = (0, 0, 0), rotation=None) -> list[int]:
        """A box of full edge lengths ``size`` as its 8 corners (points: exact for a box on a
        plane, which touches it at corners, an edge or a face), centred at ``position`` and
        turned by ``rotation`` (3x3) in the frame's axes."""
        half = 0.5 * _checks.vector(size, 3, "size")
        if np.any(half <= 0):
            raise ValueError(f"box size must be positive, got {list(2 * half)}")
        R = np.eye(3) if rotation is None else _checks.matrix(rotation, (3, 3), "rotation")
        c = _checks.vector(position, 3, "position")
        name = self.model.frame_names[_checks.frame_index(self.model, frame)]
        return [self.add_sphere(frame, 0.0, c + R @ (half * np.array(s)),
                                name=f"{name}#box{k}")
                for k, s in enumerate(np.array(np.meshgrid(*[[-1, 1]] * 3)).T.reshape(-1, 3))]

    def add_capsule(self, frame: str | int, radius: float, length: float,
                    position: Sequence[float] = (0, 0, 0), rotation=None) -> list[int]:
        """A capsule (the segment of ``length`` along its z axis, swept by ``radius``) as the
        spheres at its two ends: exact against half-spaces, whose deepest point on a capsule
        is always on one of the two end spheres."""
        length = _checks.scalar(length, "length")
        if length < 0:
            raise ValueError(f"capsule length must be >= 0, got {length!r}")
        R = np.eye(3) if rotation is None else _checks.matrix(rotation, (3, 3), "rotation")
        c = _checks.vector(position, 3, "position")
        return [self.add_sphere(frame, radius, c + R @ np.array([0.0, 0.0, s * length / 2]))
                for s in (-1.0, 1.0)]

    def add_cylinder(self, frame: str | int, radius: float, length: float,
                     position: Sequence[float] = (0, 0, 0), rotation=None,
                     points: int = 8) -> list[int]:
        """A cylinder (axis z, ``length``, ``radius``) as ``points`` points on each rim
        circle: against a half-space a cylinder's deepest point is on a rim, so this is
        exact when a point sits there and otherwise deep by at most r (1 - cos(pi / points))
        (8 points: 7.6 % of r) when the cylinder lies on its side."""
        radius = _checks.scalar(radius, "radius")
        length = _checks.scalar(length, "length")
        if radius < 0 or length < 0:
            raise ValueError(f"cylinder radius and length must be >= 0, got {radius}, {length}")
        points = _checks.integer(points, "points", 3)
        R = np.eye(3) if rotation is None else _checks.matrix(rotation, (3, 3), "rotation")
        c = _checks.vector(position, 3, "position")
        a = 2 * np.pi * np.arange(points) / points
        return [self.add_sphere(frame, 0.0, c + R @ np.array([radius * np.cos(t),
                                                              radius * np.sin(t), s * length / 2]))
                for s in (-1.0, 1.0) for t in a]

    def add_urdf_collisions(self, path_or_xml, links: Sequence[str] | None = None) -> list[int]:
        """The <collision> shapes of a URDF (the one the model came from) as contact
        geometry on the frames of the same names: spheres, boxes (corners), capsules (end
        spheres), cylinders (rim points). Meshes are skipped with one warning naming them:
        add a sphere where such a body touches the ground (``add_sphere``). ``links``: only
        these links. Returns the indices of the spheres added."""
        from ..io.urdf import URDFWarning, urdf_collisions

        return self._add_shapes(urdf_collisions(path_or_xml), links, "URDF's link",
                                URDFWarning)

    def add_mjcf_collisions(self, path_or_xml, bodies: Sequence[str] | None = None, *,
                            environment: bool = True) -> list[int]:
        """The colliding geoms (contype or conaffinity not 0) of an MJCF file (the one the
        model came from) as contact geometry on the body frames of the same names, as
        ``add_urdf_collisions`` does: spheres, boxes, capsules, cylinders; meshes, ellipsoids
        and other shapes are skipped with one warning. ``environment``: the worldbody's
        planes become half-spaces with the geom's sliding friction (build the scene with
        ``ground=False`` when the file has its own floor); other worldbody geoms are
        skipped. ``bodies``: only these bodies. Returns the indices of the spheres added."""
        from ..io.mjcf import MJCFWarning, mjcf_collisions

        shapes = mjcf_collisions(path_or_xml)
        skipped = []
        for sh in shapes.pop("world", []) if environment else ():
            if sh.kind == "plane":
                n = sh.R[:, 2]
                self.add_halfspace(n, float(n @ sh.p), mu=sh.friction)
            else:
                skipped.append((f"world ({sh.kind}, line {sh.line})", sh.kind))
        shapes.pop("world", None)
        return self._add_shapes(shapes, bodies, "MJCF's body", MJCFWarning, skipped)

    def _add_shapes(self, shapes: dict, only, what: str, warning: type,
                    skipped: list | None = None) -> list[int]:
        added, skipped = [], list(skipped or ())
        for link, items in shapes.items():
            if only is not None and link not in only:
                continue
            if link not in self.model.frame_names:
                raise KeyError(f"the {what} {link!r} is not a frame of model "
                               f"{self.model.name!r}: is this the model's file?")
            for sh in items:
                if sh.kind == "sphere":
                    added.append(self.add_sphere(link, sh.size[0], sh.p))
                elif sh.kind == "box":
                    added += self.add_box(link, sh.size, sh.p, sh.R)
                elif sh.kind == "capsule":
                    added += self.add_capsule(link, sh.size[0], sh.size[1], sh.p, sh.R)
                elif sh.kind == "cylinder":
                    added += self.add_cylinder(link, sh.size[0], sh.size[1], sh.p, sh.R)
                else:
                    skipped.append((f"{link} ({sh.mesh or sh.kind}, line {sh.line})", sh.kind))
        if skipped:
            kinds = sorted({k for _, k in skipped})
            shown = "; ".join(t for t, _ in skipped[:10])
            warnings.warn(f"{len(skipped)} {' or '.join(kinds)} collision shapes have no contact "
                          f"geometry here (add spheres for them): {shown}"
                          f"{' ...' if len(skipped) > 10 else ''}", warning, stacklevel=3)
        return added

    def add_halfspace(self, normal: Sequence[float], offset: float = 0.0, *, mu: float = 0.8,
                      restitution: float = 0.0, solref: Sequence[float] | None = None,
                      solimp: Sequence[float] | None = None) -> int:
        """The solid {x : n.x >= offset} (n normalized here): the ground is n = (0, 0, 1),
        an incline a tilted n. ``mu`` >= 0 is Coulomb's friction coefficient and
        ``restitution`` in [0, 1] Newton's coefficient for every contact on it. ``solref``,
        ``solimp``: MuJoCo's softness of its contacts (as ``Scene``'s; either one makes it
        soft, the other taking MuJoCo's default); neither: the scene's."""
        given = solref is not None or solimp is not None
        soft = _soft_row(solref, solimp) if given else self._softness
        n = _checks.vector(normal, 3, "normal")
        norm = float(np.linalg.norm(n))
        if not norm > 0:
            raise ValueError("half-space normal must be non-zero")
        n = n / norm
        mu = _checks.scalar(mu, "mu")
        e = _checks.scalar(restitution, "restitution")
        if mu < 0:
            raise ValueError(f"friction coefficient mu must be >= 0, got {mu!r}")
        if not 0 <= e <= 1:
            raise ValueError(f"restitution must be in [0, 1], got {e!r}")
        if e > 0 and soft[3] > 0:
            raise ValueError("restitution applies to rigid half-spaces only: a soft one "
                             "(solref/solimp) bounces by solref's dampratio, as in MuJoCo")
        # t1: the axis least aligned with n, made orthogonal; t2 = n x t1 (right-handed)
        a = np.eye(3)[int(np.argmin(np.abs(n)))]
        t1 = a - n * (a @ n)
        t1 /= np.linalg.norm(t1)
        row = np.zeros((1, L.NH))
        row[0, L.H_N:L.H_N + 3] = n
        row[0, L.H_OFFSET] = _checks.scalar(offset, "offset")
        row[0, L.H_T1:L.H_T1 + 3] = t1
        row[0, L.H_T2:L.H_T2 + 3] = np.cross(n, t1)
        row[0, L.H_MU] = mu
        row[0, L.H_RESTITUTION] = e
        row[0, L.H_SOLREF:L.H_SOLIMP + 5] = soft
        self.halfspaces = np.concatenate([self.halfspaces, row])
        self._fill_weights()
        self._warm = None
        return len(self.halfspaces) - 1

    # --- collision geoms (fastdyn/sim/scene_geoms.py, kernels/contact/geom_rows.py) ---------
    def add_geom(self, frame: str | int | None, type: str, size: Sequence[float] | None = None,
                 pos: Sequence[float] = (0.0, 0.0, 0.0), rot=None, quat=None, *,
                 friction=None, margin: float | None = None,
                 solref: Sequence[float] | None = None, solimp: Sequence[float] | None = None,
                 contype: int | None = None, conaffinity: int | None = None,
                 name: str | None = None) -> int:
        """A collision geom on a frame of the model (its joint carries it, placed by the
        frame's placement composed with ``pos``, ``rot`` (3x3) or ``quat`` (x, y, z, w)), or
        fixed in the world (``frame`` None or "world": a table, a step, a wall, a plane).
        ``type``: "plane" (the half-space z <= 0 of its frame), "sphere" (r,), "capsule" and
        "cylinder" (r, half-length along z), "ellipsoid" (semi-axes), "box" (half-sizes),
        "convex" (give vertices through ``add_geoms``); sizes as MuJoCo's. ``friction``: the
        sliding coefficient (a pair takes the larger of its two, MuJoCo's rule) or MuJoCo's
        (sliding, torsional, rolling), default 1. ``solref``/``solimp``: MuJoCo's softness
        (either one makes the geom soft; neither: the scene's, rigid by default). ``margin``
        [m], ``contype``/``conaffinity``: MuJoCo's (defaults 0, 1, 1). Returns its index.
        Geoms collide with geoms and with the scene's half-spaces, not with ``add_sphere``'s
        spheres (fastdyn/sim/scene_geoms.py); bodies that are parent and child never collide
        (``exclude`` drops other pairs)."""
        index = len(self._geoms)
        d = _geoms.described(self.model, index, frame, type, size, pos, rot, quat, friction,
                             margin, solref, solimp, contype, conaffinity,
                             self._softness if solref is None and solimp is None
                             else _soft_row(solref, solimp))
        return self._append_geoms([d], [name])[0]

    def add_geoms(self, geoms, names: Sequence[str] | None = None) -> list[int]:
        """Geoms in the dict format of ``fastdyn.sim.collision.geom_table`` (what the URDF and
        MJCF loaders produce): ``body`` the model's joint index (0: the world), pos and
        rot/quat in that joint's frame; a geom without solref and solimp takes the scene's
        softness (rigid by default). ``geoms`` may be what ``fastdyn.io.collision_geoms``
        read: its geoms, named by its names (unless ``names`` is given), and its excluded
        joint pairs (the MJCF's ``<exclude>``, the SRDF's disabled collisions) passed to
        ``exclude``. Returns their indices."""
        from ..io.geoms import CollisionGeoms  # (the loaders import the simulator's tables)

        if isinstance(geoms, CollisionGeoms):
            found = geoms
            out = self.add_geoms(list(found.geoms), found.names if names is None else names)
            for a, b in found.exclude:
                self.exclude(int(a), int(b))
            return out
        ds = []
        for d in geoms:
            d = dict(d) if isinstance(d, dict) else d
            if isinstance(d, dict) and "solref" not in d and "solimp" not in d:
                d["solref"], d["solimp"] = self._softness[:2], self._softness[2:]
            ds.append(d)
        return self._append_geoms(ds, list(names) if names is not None else [None] * len(ds))

    def _append_geoms(self, ds: list, names: list) -> list[int]:
        _geoms.checked(self._geoms + ds, self.model)
        first = len(self._geoms)
        self._geoms += ds
        for k, d in enumerate(ds):
            n = names[k] if k < len(names) else None
            self.geom_names.append(n or f"{d['type']}#{first + k}")
        self._warm = None
        self.__dict__.pop("_step_derivatives", None)  # (prepared before: now refused)
        self._step_derivatives_free = None
        return list(range(first, len(self._geoms)))

    def exclude(self, a: str | int, b: str | int) -> None:
        """No contact between the geoms of two bodies: each a joint name, a frame name (its
        joint) or a joint index (0: the world)."""
        self._excluded.append((self._body(a), self._body(b)))
        self._warm = None

    def _body(self, x) -> int:
        m = self.model
        if isinstance(x, str):
            if x in m.joint_names:
                return m.joint_names.index(x)
            return int(m.frm[_checks.frame_index(m, x)]["parent_joint"])
        j = _checks.integer(x, "body", 0)
        if j >= m.njoints:
            raise ValueError(f"body {j}: the model has joints 0..{m.njoints - 1}")
        return j

    @property
    def geom_contacts(self) -> "_geoms.GeomContacts":
        """The geom contacts of the last ``step`` (fastdyn/sim/scene_geoms.py's
        GeomContacts: geom pair, point, normal, distance, world force)."""
        if self._last is None or not isinstance(self._last, _onestep.Last):
            return _geoms.results(_geoms.NO_GEO, None, None, 0, 0)
        return self._last.get("geom_contacts", self)

    def _geo_tables(self) -> tuple:
        """The step's geo tuple, made again only when the geoms, half-spaces, margin or
        max_contacts changed."""
        if not self._geoms:
            return _geoms.NO_GEO
        key = (len(self._geoms), len(self._excluded), id(self.halfspaces), self.margin,
               self.max_contacts, self.halfspaces.tobytes())
        if self._geo_key != key:
            self._geo = _geoms.tables(self, _inverse_weight)
            self._geo_key = key
        return self._geo

    # --- constraints (fastdyn/sim/scene_constraints.py, kernels/contact/equality_rows.py) ---
    def add_constraint(self, constraint, solref: Sequence[float] | None = None,
                       solimp: Sequence[float] | None = None) -> int:
        """A fastdyn.RigidConstraint (a loop closure "connect" or "weld" between two frames,
        or a frame held to the world) or fastdyn.JointCoupling of the scene's model, as
        bilateral rows of every step; returns its index. Hard by default (its residual decays
        by the scene's ``erp`` per step; its own kp, kd are not read); ``solref`` /
        ``solimp``: soft, as MuJoCo's equality constraints (either one given, the other
        MuJoCo's default). kernels/contact/equality_rows.py states the rows. After a step,
        ``constraint_forces`` holds each row's force."""
        return self.add_constraints([constraint], solref, solimp)[0]

    def add_constraints(self, constraints, solref: Sequence[float] | None = None,
                        solimp: Sequence[float] | None = None) -> list[int]:
        """``add_constraint`` for each of a list (one softness for all); returns the indices."""
        constraints = _eqs.listed(constraints)
        items = [(_eqs.checked(self.model, c, f"constraints[{k}]"),
                  _eqs.softness(c, solref, solimp, _soft_row))
                 for k, c in enumerate(constraints)]
        return self._append_constraints(items)

    def add_mjcf_equalities(self, path_or_xml) -> list[int]:
        """The active ``<equality>`` connect, weld and (linear) joint elements of an MJCF file
        (the one the model came from: fastdyn.io.mjcf_equalities) as constraints with their
        MuJoCo solref and solimp, so that the scene steps as MuJoCo does; returns the
        indices."""
        from ..io.mjcf_constraints import mjcf_equalities

        items = [(c, _eqs.softness(c, ref, imp, _soft_row))
                 for c, ref, imp in mjcf_equalities(self.model, path_or_xml)]
        return self._append_constraints(items)

    def _append_constraints(self, items: list) -> list[int]:
        first = len(self._constraints)
        self._constraints += items
        self._warm = None
        self.__dict__.pop("_step_derivatives", None)  # (prepared before: now refused)
        self._step_derivatives_free = None
        return list(range(first, len(self._constraints)))

    @property
    def constraints(self) -> list:
        """The scene's constraints, in the order of their rows (``constraint_forces``)."""
        return [c for c, _ in self._constraints]

    def _eqc_tables(self):
        """The step's eqc tuple, made again only when constraints were added."""
        if not self._constraints:
            return _eqs.NO_EQC
        if self._eqc_key != len(self._constraints):
            self._eqc = _eqs.tables(self.model, self._constraints)
            self._eqc_key = len(self._constraints)
        return self._eqc

    @property
    def pairs(self) -> list[tuple[str, int]]:
        """(sphere name, half-space index) of each contact pair, in the order of the
        contact arrays of ``step`` and ``rollout``."""
        return [(s, h) for s in self.sphere_names for h in range(len(self.halfspaces))]

    def to_mjcf(self, path=None, *, rigid_solref=None, rigid_solimp=None) -> str:
        """This scene's MuJoCo twin as MJCF text (written to ``path`` too when given): the
        same bodies (merged as fastdyn merges them), inertias, joints, limits, a motor per
        one-coordinate joint (ctrl = tau), the spheres and half-spaces with one contact pair
        each and their friction and soft parameters, dt, gravity and impratio.
        ``fastdyn.sim.mjcf_twin.MujocoMap(scene.model)`` converts states and torques; the
        module docstring says what differs (rigid half-spaces become MuJoCo's default soft
        contact, or ``rigid_solref`` / ``rigid_solimp``)."""
        from .mjcf_twin import to_mjcf

        return to_mjcf(self, path, rigid_solref=rigid_solref, rigid_solimp=rigid_solimp)

    # --- stepping ------------------------------------------------------------------------
    def _sizes(self) -> tuple[int, int, int, int]:
        npair = self._npair()
        base = _ts.sizes(self.model.nv, 1, npair)
        return _geoms.sizes(base, self.model.nv, npair, self._geo_tables())

    def _npair(self) -> int:
        """The sphere pairs and the constraints' room (scene_constraints.capacity): the step's
        contact entries before the geoms' (time_step.contact_capacity)."""
        return len(self.spheres) * len(self.halfspaces) + _eqs.capacity(self._constraints)

    def reset(self) -> None:
        """Forget the warm start that ``step`` carries from one call to the next."""
        self._warm = None

    # scene.step(q, v, tau): fastdyn/sim/one_step.py's function itself (its docstring is the
    # method's), no wrapper: a Python frame is ~70 ns of a ~2 us call
    step = _onestep.step

    def _prepare_step(self) -> "_onestep.Prepared":
        """step's buffers and options, made again when the scene's geometry (``fresh``) or
        its options changed (what a rollout derives per call: O_FREE, O_NO_CLAMP, the buffer
        sizes)."""
        model = self.model
        PRM = model.prm[None]
        opt = self.opt.copy()
        opt[L.O_FREE] = float(self._free(PRM))
        opt[L.O_NO_CLAMP] = float(not _effort_limited(model, PRM))
        _check_integrator(opt)
        p = self._prepared_step = _onestep.Prepared(self, opt, self._sizes())
        return p

    def _step_through_rollout(self, q, v, tau, fext):
        """step as a one-step rollout: its failure messages (and statuses) are the rollout's."""
        if self._warm is None:  # (a cold start, kept: constraint_forces reads it)
            self._warm = np.zeros((1, self._sizes()[1]))
        out = self._run(q[None], v[None], 1, torques=tau[None, None], fext=fext,
                        record=("tau", "contacts", "stats"), warm=self._warm)
        if out.status[0] == "unconverged":
            warnings.warn(f"the step did not converge: {self._capped()} (residual "
                          f"{out.stats[0, 0, 2]:.3g} m/s): {self._remedy()}",
                          ConvergenceWarning, stacklevel=3)
        elif out.failures:
            raise {"diverged": DivergenceError, "too_many_contacts": TooManyContactsError}.get(
                out.status[0], _singular())(out.failures[0].replace("rollout 0 ", "the step "))
        self._last = _onestep.Stored(
            contact_forces=out.contact_forces[0, 0], contact_points=out.contact_points[0, 0],
            applied_tau=out.tau[0, 0], stats=out.stats[0, 0], constraint_tau=out.constraint_tau,
            constraint_forces=self._constraint_forces(self._warm[0]))
        return out.final_q[0], out.final_v[0]

    # what the last step left (fastdyn/sim/one_step.py's Last: read from its buffers when asked)
    _last = None
    contact_forces = property(lambda s: s._last and s._last.get("contact_forces", s),
                              doc="the last step's contact forces (npairs, 3) [N], world axes")
    contact_points = property(lambda s: s._last and s._last.get("contact_points", s),
                              doc="the last step's contact points (npairs, 3) [m]")
    applied_tau = property(lambda s: s._last and s._last.get("applied_tau", s),
                           doc="the torque the last step applied (nv,), clamped to the limits")
    constraint_tau = property(lambda s: s._last and s._last.get("constraint_tau", s),
                              doc="the last step's constraint force W P / dt (nv,)")
    stats = property(lambda s: s._last and s._last.get("stats", s),
                     doc="the last step's rows, solver sweeps and residual (3,)")
    constraint_forces = property(
        lambda s: s._last.get("constraint_forces", s) if s._last else _eqs.NO_ROWS,
        doc="each constraint row's force after the last step (scene_constraints.forces)")

    def _constraint_forces(self, warm: np.ndarray) -> np.ndarray:
        """Each constraint row's force (scene_constraints.forces) from the warm start a step
        left; without constraints a shared empty array."""
        if not self._constraints:
            return _eqs.NO_ROWS
        return _eqs.forces(self._constraints, warm, len(self.spheres) * len(self.halfspaces),
                           self.dt)

    _prepared_step = None  # step's one_step.Prepared
    _step_derivatives_free = None  # what step_derivatives' generated route has prepared
    # A, B = scene.step_derivatives(q, v, tau): fastdyn/sim/step_derivatives.py's function itself
    # (its docstring is the method's), no wrapper: a Python frame is ~70 ns of a ~3 us call
    step_derivatives = _step_derivatives
    # scene.horizon(q0, v0, U): a horizon's states and Jacobians in one call (sim/horizon.py)
    horizon = _horizon.horizon

    def rollout(self, q0, v0, steps: int, *, torques=None, kp=None, kd=None, q_ref=None,
                v_ref=None, policy: Callable | None = None, policy_args: tuple = (),
                prm=None, fext=None, record: Sequence[str] = ("q", "v"),
                frames: Sequence[str | int] | None = None, progress: bool = False,
                generated=None) -> Rollout:
        """``steps`` steps from each initial state (q0 (nq,) or (N, nq), v0 likewise).

        Controller, one of:
        - the built-in PD + feed-forward (the default; no gains: open loop):
          tau = torques + kp (q_ref (-) q) + kd (v_ref - v), with (-) the configuration
          difference. ``torques``: (nv,), (T, nv) a table shared by every rollout, or
          (N, T | 1, nv); ``kp``, ``kd``: a scalar, (nv,) or (N, nv); ``q_ref``: (nq,),
          (T, nq) or (N, T | 1, nq), default each rollout's initial configuration;
          ``v_ref`` likewise, default zero. Give zero gains on a floating base's dofs.
        - ``policy``: your @numba.njit function policy(r, k, t, q, v, args, tau) writing
          tau (nv,) for rollout r at step k, time t = k dt; ``policy_args`` is passed as
          ``args``. The loop calls it through a function pointer (fastdyn/sim/policy.py): the
          loop compiles once per type of ``args`` and is cached on disk; decorate the policy
          with cache=True so other processes load it too. A policy that raises stops its
          rollout at that step: status "raised", the exception's type and message in
          ``Rollout.failures`` and in a ``RolloutWarning`` (fastdyn/sim/policy.py).
        ``prm``: a batch of robots (fastdyn.parameter_batch), one per rollout or one for all;
        ``fext`` (njoints, 6), (T, njoints, 6) or (N, T, njoints, 6): external forces in the
        joint frames. ``record``: any of "q", "v", "tau", "contacts", "stats",
        "ncontacts", "constraints" (``Rollout``'s fields); the final state
        is always returned. The recorded arrays are allocated up front: a batch whose arrays
        would take more than half of this machine's memory is refused with a MemoryError
        that gives the size (as studies check theirs); record less (``record=()`` keeps the
        final state only) or run the steps in slices from each slice's final state.
        ``frames``: frame names or ids whose world placements are recorded at every state
        (``Rollout.frame_positions``, ``frame_rotations``; one forward
        kinematics pass per step). ``progress``: a progress bar (tqdm if installed).
        ``generated``: the model's ``fastdyn.codegen.generate(model)`` kernels, as for
        ``fastdyn.batch.rnea``: contact-free steps (a scene where no constraint row can arise,
        semi-implicit Euler, no ``fext``) then take the generated ABA: steps 1.4x (Talos) to
        2.2x (UR5) faster; steps of a scene with contacts, limits, friction or damping (no
        ``fext``) take the generated CRBA + RNEA + factorization (codegen/free_velocity.py)
        and go on generically: the quadruped's contact steps about 1.4x faster. Results equal
        to round-off where every step's solver converged (after a step stopped at the cap,
        status "unconverged", they may part by more); steps with ``fext`` and Runge-Kutta
        steps are unchanged (kernels/contact/generated_step.py). Kernels of another model, or a
        ``prm`` robot with other placements or axes than they hold, are refused with a ValueError
        naming it. Cost: the model's kernel compiled once as a callback
        (fastdyn/sim/generated_rollout.py), cached on disk beside the generated module: the first
        generated contact-free rollout of a model took 3.8 s (UR5), 5.5 s (Panda), 9.7 s (Solo12),
        44 s (Talos), the first one with contacts 8 s (the quadruped), later processes 0.01-0.07
        s; the rollout loop itself is shared with the generic rollouts.
        Runs on ``numba.get_num_threads()`` threads (``numba.set_num_threads``), each taking
        the next block of rollouts as it frees up (fastdyn/_internal/threads.py: a thread
        slowed by other work does not hold the others back), in slices of ~50 ms so that
        Ctrl-C stops it promptly. A rollout that diverges stops alone (``Rollout.status``)."""
        model = self.model
        single = np.ndim(q0) == 1
        Q0 = batching.configurations(model, np.atleast_2d(q0), "q0")
        n = Q0.shape[0]
        V0 = _checks.matrix(np.atleast_2d(v0), (n, model.nv), "v0")
        steps = _checks.integer(steps, "steps", 0)
        bad = [r for r in record if r not in RECORDABLE]
        if bad:
            raise ValueError(f"record: unknown {bad[0]!r}; choose from {RECORDABLE}")
        if policy is not None:
            if not isinstance(policy, numba.core.registry.CPUDispatcher):
                raise TypeError(f"policy must be a @numba.njit function, got "
                                f"{type(policy).__name__}")
            if any(x is not None for x in (torques, kp, kd, q_ref, v_ref)):
                raise ValueError("give either a policy or torques/kp/kd/q_ref/v_ref, not both")
        if frames is not None:
            if isinstance(frames, (str, int, np.integer)):
                frames = [frames]
            frames = np.array([_checks.frame_index(model, f) for f in frames], dtype=np.int64)
        self._check_size(n, steps, record, 0 if frames is None else len(frames))
        out = self._run(Q0, V0, steps, torques=torques, kp=kp, kd=kd, q_ref=q_ref, v_ref=v_ref,
                        policy=policy, policy_args=policy_args, prm=prm, fext=fext,
                        record=tuple(record), frames=frames, progress=progress,
                        generated=generated)
        stopped = [r for r in out.failures if out.status[r] != "unconverged"]
        if stopped:
            warnings.warn(f"{len(stopped)} of {n} rollouts stopped early; "
                          f"{out.failures[min(stopped)]}", RolloutWarning, stacklevel=2)
        late = [r for r in out.failures if out.status[r] == "unconverged"]
        if late:
            warnings.warn(f"{len(late)} of {n} rollouts ran steps whose solver did not converge "
                          f"(status 'unconverged'); {out.failures[min(late)]}",
                          ConvergenceWarning, stacklevel=2)
        if single:
            for name in ("final_q", "final_v", "status", "q", "v", "tau", "contact_forces",
                         "contact_points", "stats", "ncontacts", "constraint_forces",
                         "frame_positions",
                         "frame_rotations"):
                x = getattr(out, name)
                if x is not None:
                    setattr(out, name, x[0])
        return out

    def _capped(self) -> str:
        return (f"its {self.solver.upper()} solver stopped at its {self.iterations}-"
                f"{'iteration' if self.solver == 'admm' else 'sweep'} cap with the residual "
                f"above the tolerance {self.tolerance:g} m/s")

    def _remedy(self) -> str:
        return ("the forces and the states after it do not solve the step's equations; more "
                f"iterations{'' if self.solver == 'admm' else ', solver=' + repr('admm')} or "
                f"a shorter dt converge")

    def _check_size(self, n: int, steps: int, record, nframes: int) -> None:
        """A MemoryError, before anything is allocated, when the recorded arrays of n
        rollouts of ``steps`` steps would take more than half of this machine's memory
        (fastdyn/_internal/memory.py, as studies check theirs)."""
        nq, nv = self.model.nq, self.model.nv
        npair = len(self.spheres) * len(self.halfspaces)
        per = {"q": (steps + 1) * nq, "v": (steps + 1) * nv, "tau": steps * nv,
               "contacts": steps * npair * 6, "stats": steps * 3, "ncontacts": steps,
               "constraints": steps * _eqs.rows(self._constraints)}
        sizes = {r: per[r] for r in record if r in per}
        if nframes:
            sizes["frames"] = (steps + 1) * nframes * 12
        if not sizes:
            return
        big = max(sizes, key=sizes.get)
        _memory.check(8.0 * n * sum(sizes.values()),
                      f"the recorded arrays of {n} rollouts of {steps} steps ({big!r}, "
                      f"{8.0 * n * sizes[big] / 1e9:.3g} GB, the most)",
                      "record less (record=('q',), or record=() for the final state only; "
                      "fewer frames=), fewer rollouts, or run the steps in slices, each "
                      "rollout starting from the last one's final_q and final_v")

    # --- the launch ----------------------------------------------------------------------
    def _controller(self, n: int, steps: int, Q0, torques, kp, kd, q_ref, v_ref) -> tuple:
        model = self.model
        nq, nv = model.nq, model.nv

        def table(x, width, name, default):
            """(1 | N, 1 | T, width), C-contiguous float64 (one compiled signature)."""
            if x is None:
                return default
            x = _finite(x, name)
            if x.ndim == 1:
                x = x[None, None]
            elif x.ndim == 2:
                x = x[None]
            if x.ndim != 3 or x.shape[2] != width or x.shape[0] not in (1, n) \
                    or x.shape[1] not in (1, steps):
                raise ValueError(f"{name} must be ({width},), (T, {width}) or (N, T or 1, "
                                 f"{width}) with T = {steps} steps and N = {n} rollouts; got "
                                 f"shape {np.shape(x)}")
            return np.ascontiguousarray(x, dtype=float)

        def gains(x, name):
            if x is None:
                return np.zeros((1, nv))
            scalar = np.ndim(x) == 0
            x = _finite(x, name)  # (at least one dimension, as np.ascontiguousarray)
            if scalar:
                x = np.full(nv, float(x[0]))
            x = np.atleast_2d(x)
            if x.shape[1] != nv or x.shape[0] not in (1, n):
                raise ValueError(f"{name} must be a scalar, ({nv},) or ({n}, {nv}); got shape "
                                 f"{np.shape(x)}")
            return np.ascontiguousarray(x, dtype=float)

        QREF = table(q_ref, nq, "q_ref", np.ascontiguousarray(Q0[:, None, :]))
        if q_ref is not None:
            for r in range(QREF.shape[0]):
                _checks.configuration(model, QREF[r, 0], "q_ref")
        return (model.jnt, gains(kp, "kp"), gains(kd, "kd"), QREF,
                table(v_ref, nv, "v_ref", np.zeros((1, 1, nv))),
                table(torques, nv, "torques", np.zeros((1, 1, nv))))

    def _free(self, PRM: np.ndarray) -> bool:
        """Whether no constraint row can arise for these robots (time_step's O_FREE), by the
        rule joint_rows itself follows (constraint_rows.rows_possible)."""
        npair = (len(self.spheres) * len(self.halfspaces) + len(self._geoms)
                 + len(self._constraints))
        return not _rows.rows_possible(self.model.jnt, PRM, self.opt, npair)

    def _forces(self, n: int, steps: int, fext) -> np.ndarray:
        nj = self.model.njoints
        if fext is None:
            return np.zeros((1, 1, 0, 6))
        F = _finite(fext, "fext")
        F = F.reshape((1,) * (4 - F.ndim) + F.shape) if 2 <= F.ndim <= 4 else F
        if F.ndim != 4 or F.shape[2:] != (nj, 6) or F.shape[0] not in (1, n) \
                or F.shape[1] not in (1, steps):
            raise ValueError(f"fext must be ({nj}, 6), (T, {nj}, 6) or (N, T, {nj}, 6); got "
                             f"shape {np.shape(fext)}")
        return np.ascontiguousarray(F)

    def _run(self, Q0, V0, steps, *, torques=None, kp=None, kd=None, q_ref=None, v_ref=None,
             policy=None, policy_args=(), prm=None, fext=None, record=(), progress=False,
             warm=None, frames=None, generated=None) -> Rollout:
        model = self.model
        n, nq, nv = Q0.shape[0], model.nq, model.nv
        PRM = batching.robots(model, prm, n)
        if policy is None:
            args = self._controller(n, steps, Q0, torques, kp, kd, q_ref, v_ref)
            # no gain anywhere: the torque table as it is (the same torques, no loop over gains)
            policy = controllers.open_loop if not (args[1].any() or args[2].any()) else \
                controllers.pd_feedforward
        else:
            args = policy_args
        FEXT = self._forces(n, steps, fext)
        opt = self.opt.copy()
        opt[L.O_FREE] = float(self._free(PRM))
        opt[L.O_NO_CLAMP] = float(not _effort_limited(model, PRM))
        _check_integrator(opt)
        rows, nwarm, nf, ni = self._sizes()
        npair = len(self.spheres) * len(self.halfspaces)
        nt = max(1, min(numba.get_num_threads(), n))  # threads: fastdyn/_internal/threads.py
        Q, V = L.isolated(Q0.shape), L.isolated(V0.shape)  # rows both threads write
        Q[...], V[...] = Q0, V0
        WARM = np.zeros((n, nwarm)) if warm is None else warm

        def rec(name, shape):
            return np.full(shape, np.nan) if name in record else np.zeros(shape[:1] + (0,)
                                                                            + shape[2:])
        RQ = rec("q", (n, steps + 1, nq))
        RV = rec("v", (n, steps + 1, nv))
        if RQ.shape[1]:
            RQ[:, 0] = Q0
        if RV.shape[1]:
            RV[:, 0] = V0
        RTAU = rec("tau", (n, steps, nv))
        RCF = rec("contacts", (n, steps, npair, 6))
        RSTATS = rec("stats", (n, steps, 3))
        RNC = np.zeros((n, steps) if "ncontacts" in record else (n, 0), np.int64)
        RCON = rec("constraints", (n, steps, _eqs.rows(self._constraints)))
        geo = self._geo_tables()
        eqc = self._eqc_tables()
        STATUS = np.full((n, 4), -1, dtype=np.int64)  # code, step, first unconverged, count
        STATUS[:, 3] = 0
        FRAMES = np.zeros(0, np.int64) if frames is None else frames
        RF = np.full((n, steps + 1, len(FRAMES), 12), np.nan) if frames is not None else \
            np.zeros((n, 0, 0, 12))
        each = L.per_thread
        bufs = (L.workspace(model.jnt, nt), each(nt, (nf,)), each(nt, (ni,), np.int64),
                each(nt, (nq,)), each(nt, (nv,)), each(nt, (nv,)), each(nt, (npair, 6)),
                each(nt, (3,)))
        ws3, FBUF, IBUF, QN, VN, TC, CF, ST = bufs
        user = policy
        policy = _policy.compiled(policy, args, Q[0], V[0], TC[0, 0])  # the loop is then cached
        aba, fv = _generated_rollout.generic(PRM, ws3[0]) if generated is None else \
            _generated_rollout.callbacks(model, generated, PRM, ws3[0], bool(opt[L.O_FREE]))
        bar = _progress(steps * n) if progress else None
        start = time.perf_counter()
        k0, span = 0, min(steps, 8)
        while k0 < steps or (k0 == 0 and RF.shape[1]):  # (steps = 0: the initial frames)
            k1 = min(steps, k0 + span)
            t0 = time.perf_counter()
            args_all = (model.jnt, PRM, model.dof, self.spheres, self.halfspaces, geo, eqc, opt,
                        policy, args, k0, k1, Q, V, FEXT, WARM, FBUF, IBUF, ws3, QN, VN, TC,
                        CF, ST, RQ, RV, RTAU, RCF, RSTATS, RNC, RCON, STATUS, model.frm, FRAMES,
                        RF, generated is not None, aba, fv)
            run_rows(_roll.rollout_rows, n, nt, *args_all)  # (one rollout: no threads)
            elapsed = time.perf_counter() - t0
            if bar is not None:
                bar((k1 - k0) * n)
            span = next_span(span, elapsed)  # ~50 ms of work (fastdyn/_internal/slices.py)
            k0 = k1
            if steps == 0:
                break
        wall = time.perf_counter() - start
        if bar is not None:
            bar(0, done=True)
        status = np.array(["ok"] * n, dtype=object)
        failures = {}
        for r in np.flatnonzero(STATUS[:, 0] >= 0):
            code, k = divmod(int(STATUS[r, 0]), 1_000_000)[0], int(STATUS[r, 1])
            if code == _roll.RAISED:
                status[r] = "raised"
                failures[int(r)] = (
                    f"rollout {r} stopped at step {k} (t = {k * self.dt:.6g} s): its policy "
                    f"raised {_policy.raised(user, int(r), k, k * self.dt, Q[r], V[r], args, nv)}")
            elif code == _ts.TOO_MANY:
                found = int(STATUS[r, 0]) % 1_000_000
                status[r] = "too_many_contacts"
                failures[int(r)] = (
                    f"rollout {r} stopped at step {k} (t = {k * self.dt:.6g} s): the step found "
                    f"{found} geom contacts, more than the scene takes (max_contacts = "
                    f"{int(geo[3][0])}); none is dropped silently: build the Scene with "
                    f"max_contacts >= {found}")
            elif code == _ts.SINGULAR:
                dof = int(STATUS[r, 0]) % 1_000_000
                status[r] = "singular"
                failures[int(r)] = (
                    f"rollout {r} stopped at step {k} (t = {k * self.dt:.6g} s): M(q) + dt "
                    f"diag(damping) is not positive definite at dof {dof} (joint "
                    f"{model.joint_names[int(model.dof[dof]['joint'])]!r}): a moving joint "
                    f"carries no mass or inertia")
            else:
                status[r] = "diverged"
                failures[int(r)] = (
                    f"rollout {r} diverged at step {k} (t = {k * self.dt:.6g} s): the next "
                    f"state is not finite (max |v| = {float(np.abs(V[r]).max()):.3g} before "
                    f"it); a shorter dt, bounded torques or gains, or softer contacts "
                    f"(regularization) keep it finite")
        for r in np.flatnonzero(STATUS[:, 3] > 0):
            k, count = int(STATUS[r, 2]), int(STATUS[r, 3])
            res = f", residual {RSTATS[r, k, 2]:.3g} m/s" if RSTATS.shape[1] else ""
            what = (f"{self._capped()} on {count} of its steps (the first: step {k}, "
                    f"t = {k * self.dt:.6g} s{res}): {self._remedy()}")
            if status[r] == "ok":
                status[r] = "unconverged"
                failures[int(r)] = f"rollout {r} did not converge: {what}"
            else:
                failures[int(r)] += f"; before that, {what}"
        return Rollout(
            final_q=Q, final_v=V, status=status, failures=failures,
            q=RQ if "q" in record else None, v=RV if "v" in record else None,
            tau=RTAU if "tau" in record else None,
            contact_forces=RCF[..., :3] if "contacts" in record else None,
            contact_points=RCF[..., 3:] if "contacts" in record else None,
            stats=RSTATS if "stats" in record else None,
            ncontacts=RNC if "ncontacts" in record else None,
            constraint_forces=RCON if "constraints" in record else None,
            frame_positions=RF[..., 9:] if frames is not None else None,
            frame_rotations=RF[..., :9].reshape(RF.shape[:3] + (3, 3)) if frames is not None
            else None,
            steps_per_second=n * steps / wall if wall > 0 else 0.0,
            constraint_tau=FBUF[0, 0, _ts.rhs_offset(nv):_ts.rhs_offset(nv) + nv].copy())


def _check_integrator(opt: np.ndarray) -> None:
    if opt[L.O_INTEGRATOR] == L.RK4 and not opt[L.O_FREE]:
        raise ValueError("integrator='rk4' is for contact-free dynamics: this scene has "
                         "contact pairs, joint limits (Scene(limits=False) ignores them), "
                         "dry friction or damping; use 'euler'")




def _effort_limited(model: Model, PRM: np.ndarray) -> bool:
    """Whether any dof of any robot in PRM has a finite effort limit (else the step's clamp
    is skipped: time_step.clamp_torque_step)."""
    dofs = np.arange(L.MAX_NV) < model.jnt["nv"][1:, None]  # (njoints - 1, 6): real dofs
    limits = PRM[:, 1:, L.P_EFFORT_MAX:L.P_EFFORT_MAX + L.MAX_NV]
    return bool(np.isfinite(limits[:, dofs]).any())


def _inverse_weight(model: Model, joint: int) -> float:
    """MuJoCo's body_invweight0 (translational) of joint's body: trace(J_c M^-1 J_c^T) / 3
    at the neutral configuration, J_c the translational Jacobian of the body's centre of mass
    (its joint origin when it has no mass); 0 for the universe. Soft contacts scale their R
    by it, as MuJoCo does (kernels/contact/softness.py)."""
    if joint == 0:
        return 0.0
    from ..configuration import neutral
    from ..dynamics import crba
    from ..jacobians import compute_joint_jacobian

    q = neutral(model)
    data = model.create_data()
    J = compute_joint_jacobian(model, data, q, joint, L.LOCAL_WORLD_ALIGNED)
    M = crba(model, data, q)
    pi = model.prm[joint, L.P_PI:L.P_PI + 4]
    c = data.oMi_R[joint] @ (pi[1:4] / pi[0]) if pi[0] > 0 else np.zeros(3)
    Jc = J[:3] - np.cross(c, J[3:].T).T  # v + w x c
    return float(np.trace(Jc @ np.linalg.solve(M, Jc.T)) / 3)


def _soft_row(solref, solimp) -> np.ndarray:
    """[solref (2), solimp (5)] of a half-space: zeros (rigid) when both are None, else
    MuJoCo's defaults (``Scene.MUJOCO_SOLREF``, ``MUJOCO_SOLIMP``) for the one not given,
    checked: solref (timeconst > 0, dampratio > 0) or direct (-stiffness < 0, -damping <= 0);
    solimp with 0 < dmin <= dmax < 1, width > 0, 0 < midpoint < 1, power >= 1."""
    if solref is None and solimp is None:
        return np.zeros(7)
    ref = _checks.vector(Scene.MUJOCO_SOLREF if solref is None else solref, 2, "solref")
    imp = _checks.vector(Scene.MUJOCO_SOLIMP if solimp is None else solimp, 5, "solimp")
    a, b = ref
    if a > 0 and not b > 0:
        raise ValueError(f"solref = ({a:g}, {b:g}): a timeconst > 0 needs a dampratio > 0 "
                         f"(solref[1]); a direct solref is (-stiffness, -damping), both <= 0")
    if a < 0 and b > 0:
        raise ValueError(f"solref = ({a:g}, {b:g}): a direct solref (-stiffness, -damping) "
                         f"needs solref[1] = -damping <= 0; (timeconst, dampratio) are both > 0")
    if a == 0:
        raise ValueError("solref[0] must not be 0: timeconst > 0, or -stiffness < 0")
    dmin, dmax, width, mid, power = imp
    for name, x in (("dmin", dmin), ("dmax", dmax), ("midpoint", mid)):
        if not 0 < x < 1:
            raise ValueError(f"solimp {name} must be in (0, 1), got {x:g}")
    if dmin > dmax:
        raise ValueError(f"solimp dmin = {dmin:g} > dmax = {dmax:g}: the impedance must not "
                         f"fall with penetration (0 < dmin <= dmax < 1)")
    if not width > 0:
        raise ValueError(f"solimp width must be > 0 [m], got {width:g}")
    if not power >= 1:
        raise ValueError(f"solimp power must be >= 1, got {power:g}")
    return np.concatenate([ref, imp])


def _finite(x, name: str) -> np.ndarray:
    """x as a float64 array of real, finite numbers, or an error naming it."""
    a = _checks.real(x, name, "an array of real numbers")
    if not np.isfinite(a).all():
        bad = np.argwhere(~np.isfinite(a))[0].tolist()
        raise ValueError(f"{name} has a non-finite entry at index {bad}")
    return a


def _singular():
    from ..dynamics import SingularMassMatrixError
    return SingularMassMatrixError

