"""The one check of a model's invariants: what the kernels rely on, for every path that makes a
Model (the builder and so the URDF and MJCF loaders, ``load_npz``, unpickling, every
``with_*``), since all of them end in ``Model.__init__``, which calls ``check_model`` before
it derives anything from the arrays.

Topology (``jnt``): joint 0 the universe; every other joint's parent in 0..i-1 (parents before
children); a known type code; nq, nv those of the type; idx_q, idx_v the running sums (q and v
in joint order, no gap, no overlap); names unique, one per joint. The records' dtypes are
JOINT_DTYPE's (int64), checked where the arrays are frozen (``model._frozen``).
Parameters (``prm``): ``check_table``'s rules (below) (finite, rotations, unit
axes, mass, armature, damping and friction >= 0, limits not NaN, lower <= upper for each
position limit a joint uses (``crossed_limits``), gravity), which also check every batch of
robots.
Frames: parent joint and parent frame in range, a known type, a finite rotation.
Mimic relations: both joints exist, multiplier and offset finite.

Each failure is a ValueError naming the joint (or frame) and the field. Vectorised: a model of
a few hundred joints is checked in tens of microseconds plus the compiled table check.
Inertias are not required to be physically consistent here (triangle inequality): URDF and
MJCF files that Pinocchio and MuJoCo accept carry such bodies; the builder's ``add_body`` and
``with_inertia`` refuse them where a user enters them.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..kernels import layout
from ..kernels.entry import parameter_check
from ..kernels.entry.parameter_check import ROTATION_ATOL, ROTATION_RTOL
from ..kernels.joints import codes
from .parallel import launch

_NQ = np.array(codes.NQ, dtype=np.int64)
_NV = np.array(codes.NV, dtype=np.int64)
FRAME_TYPES = (layout.OP_FRAME, layout.JOINT_FRAME, layout.FIXED_JOINT_FRAME,
               layout.BODY_FRAME, layout.SENSOR_FRAME)  # the powers of two 1..16
assert FRAME_TYPES == tuple(2**k for k in range(5))


def check_model(jnt: np.ndarray, prm: np.ndarray, frm: np.ndarray, joint_names, frame_names,
                mimic: dict | None = None) -> None:
    """Raise ValueError naming the joint or frame and the field if the arrays (JOINT_DTYPE,
    (njoints, NP) float64, FRAME_DTYPE) break an invariant the kernels rely on (module
    docstring); else return."""
    check_topology(jnt, joint_names)
    check_table(jnt, prm, joint_names)  # (lower <= upper included: crossed_limits)
    check_frames(frm, jnt.shape[0], frame_names)
    if mimic:
        check_mimic(mimic, joint_names)


def _first(bad: np.ndarray) -> int:
    return int(np.argmax(bad))


def check_topology(jnt: np.ndarray, joint_names) -> None:
    """Joint 0 the universe; parents before children; type, nq, nv, idx_q, idx_v consistent."""
    n = jnt.shape[0]
    if n < 1 or jnt[0]["type"] != codes.UNIVERSE or jnt[0]["parent"] != -1:
        raise ValueError("joint 0 must be the universe (type 0, parent -1)")
    u = jnt[0]
    if u["nq"] != 0 or u["nv"] != 0 or u["idx_q"] != 0 or u["idx_v"] != 0:
        raise ValueError(f"joint 0 (the universe) must have nq = nv = idx_q = idx_v = 0, got "
                         f"{int(u['nq'])}, {int(u['nv'])}, {int(u['idx_q'])}, {int(u['idx_v'])}")
    if len(joint_names) != n:
        raise ValueError(f"{len(joint_names)} joint names for {n} joints: one name per joint")
    if not all(isinstance(s, str) for s in joint_names) or len(set(joint_names)) != n:
        raise ValueError("joint names must be unique str, one per joint")
    r = jnt[1:]
    i = np.arange(1, n)
    par, t = r["parent"], r["type"]
    bad = (par < 0) | (par >= i)
    if bad.any():
        k = _first(bad)
        raise ValueError(f"joint {joint_names[k + 1]!r}: parent {int(par[k])} out of range "
                         f"0..{k} (a joint's parent comes before it)")
    bad = (t < 1) | (t >= codes.NTYPES)
    if bad.any():
        k = _first(bad)
        raise ValueError(f"joint {joint_names[k + 1]!r}: unknown type code {int(t[k])}")
    nq, nv = r["nq"], r["nv"]
    bad = (nq != _NQ[t]) | (nv != _NV[t])
    if bad.any():
        k = _first(bad)
        raise ValueError(f"joint {joint_names[k + 1]!r}: nq/nv = {int(nq[k])}/{int(nv[k])}, "
                         f"but a {codes.NAMES[int(t[k])]} joint has {int(_NQ[t[k]])}/"
                         f"{int(_NV[t[k]])}")
    for field, size in (("idx_q", nq), ("idx_v", nv)):
        want = np.cumsum(size) - size  # q and v in joint order, from 0, without gaps
        bad = r[field] != want
        if bad.any():
            k = _first(bad)
            raise ValueError(f"joint {joint_names[k + 1]!r}: {field} {int(r[field][k])}, "
                             f"expected {int(want[k])} (the sizes of the joints before it, "
                             f"added up)")


def crossed_limits(jnt: np.ndarray, prm: np.ndarray) -> tuple[int, int, int] | None:
    """(robot, joint, coordinate) of the first position limit with lower > upper among the
    first nq of each joint, in tables ``prm`` (N, njoints, NP); None if there is none (NaN is
    check_table's). Vectorised: 7 comparisons a joint."""
    lo = prm[..., layout.P_Q_LOWER:layout.P_Q_LOWER + layout.MAX_NQ]
    hi = prm[..., layout.P_Q_UPPER:layout.P_Q_UPPER + layout.MAX_NQ]
    crossed = (lo > hi) & (np.arange(layout.MAX_NQ) < jnt["nq"][:, None])
    if not crossed.any():
        return None
    s, j, k = (int(x) for x in np.argwhere(crossed)[0])
    return s, j, k


def check_frames(frm: np.ndarray, njoints: int, frame_names) -> None:
    """Parent joint and frame in range, a known frame type, a finite rotation placement."""
    nf = frm.shape[0]
    if len(frame_names) != nf:
        raise ValueError(f"{len(frame_names)} frame names for {nf} frames: one name per frame")
    if not all(isinstance(s, str) for s in frame_names):
        raise ValueError("frame names must be str")

    def fail(bad: np.ndarray, what: str):
        raise ValueError(f"frame {frame_names[_first(bad)]!r}: {what}")

    pj, pf = frm["parent_joint"], frm["parent_frame"]
    bad = (pj < 0) | (pj >= njoints)
    if bad.any():
        fail(bad, f"parent joint {int(pj[_first(bad)])} out of range 0..{njoints - 1}")
    bad = (pf < 0) | (pf >= nf)
    if bad.any():
        fail(bad, f"parent frame {int(pf[_first(bad)])} out of range 0..{nf - 1}")
    t = frm["type"]
    bad = ~((t >= 1) & (t <= layout.SENSOR_FRAME) & ((t & (t - 1)) == 0))  # one of FRAME_TYPES
    if bad.any():
        fail(bad, f"unknown frame type {int(frm['type'][_first(bad)])} (one of "
                  f"{', '.join(map(str, FRAME_TYPES))})")
    bad = ~(np.isfinite(frm["R"]).all(axis=(1, 2)) & np.isfinite(frm["p"]).all(axis=1))
    if bad.any():
        fail(bad, "non-finite placement")
    bad = ~is_rotation(frm["R"])
    if bad.any():
        fail(bad, "placement rotation is not a rotation matrix (orthonormal, determinant +1)")


def check_mimic(mimic: dict, joint_names) -> None:
    """Each relation joint -> (mimicked joint, multiplier, offset) names two joints of the
    model and holds finite numbers (fastdyn.mimic checks the rest when it reduces q)."""
    names = set(joint_names)
    for joint, rel in mimic.items():
        try:
            target, k, o = rel
            finite = np.isfinite(float(k)) and np.isfinite(float(o))
        except (TypeError, ValueError):
            raise ValueError(f"mimic relation of {joint!r} must be (mimicked joint, "
                             f"multiplier, offset), got {rel!r}") from None
        for name in (joint, target):
            if not (isinstance(name, str) and name in names):
                raise ValueError(f"mimic relation {joint!r} -> {target!r}: no joint named "
                                 f"{name!r}")
        if not finite:
            raise ValueError(f"mimic relation {joint!r} -> {target!r}: multiplier and offset "
                             f"must be finite, got {k}, {o}")


def is_rotation(R: np.ndarray) -> np.ndarray:
    """Whether each R (..., 3, 3) is a rotation: R R^T = I and det R = +1. The tolerance, 1e-9
    plus 1e-5 relative (np.allclose's), forgives rounding of parsed rpy angles and matrices
    written to 6 decimals, not a reflection. Every placement the builder takes, the model
    check and the batch check use this one rule (the compiled one, parameter_check's rule 18,
    reads the same tolerances), so a model's own table passes as a batch."""
    R = np.asarray(R, dtype=np.float64)
    eye = np.eye(3)
    RRt = R @ np.swapaxes(R, -1, -2)
    # np.isclose(RRt, eye, rtol, atol) written out (NaN and inf fail it too), 5x faster
    close = (np.abs(RRt - eye) <= ROTATION_ATOL + ROTATION_RTOL * eye).all(axis=(-2, -1))
    return close & (np.linalg.det(R) > 0.0)


def check_table(jnt: np.ndarray, prm: np.ndarray, joint_names: Sequence[str]) -> None:
    """The parameter invariants the kernels rely on, for the topology ``jnt``: finite
    placements, axes and inertias; rotation matrices; a unit axis (the type's own for
    axis-aligned joints, whose kernels never read it); mass, armature, damping and friction
    >= 0; limits not NaN, and lower <= upper for each position limit a joint uses; gravity
    finite and only in the universe row.

    ``prm``: one model's table (njoints, NP), as ``Model.check`` passes it, or a batch of
    robots (N, njoints, NP), float64 and of the right shape (the callers check that). Raises
    ValueError naming the joint and field, and for a batch the robot."""
    batch = prm.ndim == 3
    x = prm if batch else prm[None]
    bad = np.empty(x.shape[0], dtype=np.int64)
    fixed, uses = _axis_rules(jnt)
    args = (jnt, np.ascontiguousarray(x), fixed, uses, bad)
    if x.shape[0] > 1:
        launch(parameter_check.check_batch, parameter_check.check_chunk, *args)
    else:  # one table (Model.check): no threads
        parameter_check.check_chunk(0, 1, *args)
    hit = np.flatnonzero(bad >= 0)
    if not hit.size:
        crossed = crossed_limits(jnt, x)
        if crossed is not None:
            s, j, k = crossed
            lo, hi = (float(x[s, j, c + k]) for c in (layout.P_Q_LOWER, layout.P_Q_UPPER))
            at = f"prm: robot {s}, " if batch else ""
            raise ValueError(f"{at}joint {joint_names[j]!r}: position limits lower > upper "
                             f"(q_lower[{k}] = {lo:g} > q_upper[{k}] = {hi:g})")
        return
    s = int(hit[0])
    code, joint = divmod(int(bad[s]), parameter_check.CODE)
    at = f"prm: robot {s}" if batch else ""
    if code != parameter_check.GRAVITY_NOT_FINITE and code != parameter_check.GRAVITY_MISPLACED:
        at += f"{', ' if at else ''}joint {joint_names[joint]!r}"
    what = VIOLATIONS[code]
    raise ValueError(f"{at}: {what}" if at else what)


# parameter_check's rule codes, worded (the rules and their order are the kernel's)
VIOLATIONS = {
    **{k + 1: f"{f} is not finite" for k, f in enumerate(
        ("R", "p", "axis", "axis2", "pitch", "pi", "armature", "damping", "friction"))},
    **{10 + k: f"{f} contains NaN" for k, f in enumerate(
        ("q_lower", "q_upper", "v_max", "effort_max"))},
    **{14 + k: f"{f} must be >= 0" for k, f in enumerate(("armature", "damping", "friction"))},
    parameter_check.NEGATIVE_MASS: "negative mass",
    parameter_check.NOT_ROTATION: "R is not a rotation matrix (orthonormal, determinant +1)",
    parameter_check.AXIS_CHANGED: "axis differs from the one its joint type fixes (an "
                                  "axis-aligned joint's kernels never read it: change the "
                                  "model's joint type instead)",
    parameter_check.AXIS_NOT_UNIT: "axis is not a unit vector",
    parameter_check.GRAVITY_NOT_FINITE: "gravity is not finite",
    parameter_check.GRAVITY_MISPLACED: "gravity lives in the universe row only; the gravity "
                                       "columns of every other row must be zero",
    parameter_check.NOT_PHYSICAL: "not a rigid body's inertia: its principal moments about "
                                  "the com break the triangle inequality I1 + I2 >= I3 (or "
                                  "it has a first moment m c without mass); see "
                                  "fastdyn.parameters.is_physically_consistent",
}


def _axis_rules(jnt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per joint: the axis its type fixes (zeros: none) and whether its kernels read the
    parameter row's axis (the joint contract, codes.ALIGNED_AXIS and codes.AXIS_TYPES)."""
    types = jnt["type"]
    return _aligned_axes(types), np.isin(types, list(codes.AXIS_TYPES))


def _aligned(types: np.ndarray) -> np.ndarray:
    return np.isin(types, list(codes.ALIGNED_AXIS))


def _aligned_axes(types: np.ndarray) -> np.ndarray:
    """The axis each axis-aligned joint type fixes (njoints, 3); zero for other types."""
    out = np.zeros((len(types), 3))
    fixed = _aligned(types)
    out[fixed] = np.eye(3)[[codes.ALIGNED_AXIS[int(t)] for t in types[fixed]]]
    return out
