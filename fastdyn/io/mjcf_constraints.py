"""MJCF equality constraints as fastdyn.RigidConstraint objects: ``mjcf_constraints``.

``<connect>`` becomes a CONTACT_3D loop closure (or a contact with the world when body2 is
the world), ``<weld>`` a CONTACT_6D one, both with rows in LOCAL_WORLD_ALIGNED axes (MuJoCo's
connect residual is the anchors' world position difference). Frames, anchors and relative
poses are fastdyn/io/_mjcf_equality.py's reading of MuJoCo's XML reference.

MuJoCo's constraints are soft (its documentation, "Computation: Soft constraints"): the
constraint acceleration a1 = J qacc follows the reference a_ref = -b (J v) - k d r, with
    b = 2 / (d_max timeconst),  k = 1 / (d_max^2 timeconst^2 dampratio^2)
for solref = (timeconst, dampratio) (k = -solref[0] / d_max^2, b = -solref[1] / d_max for a
non-positive solref), d the impedance (solimp: d_min at zero violation, d_max beyond
``width``), blended with the unconstrained acceleration by 1 - d. fastdyn's constraints are
rigid: the gains here are Baumgarte's kp = d_min k and kd = b, the reference MuJoCo's
constraint pulls toward at small violations, and the 1 - d blend is not modelled (as d -> 1
the two agree: tests/test_mjcf_constraints.py measures it against MuJoCo).
"""

from __future__ import annotations

import warnings

from ..constraints import CONTACT_3D, CONTACT_6D, RigidConstraint
from ..coupling import JointCoupling
from ..errors import ConstraintError, MJCFError, MJCFWarning
from ..frames import LOCAL_WORLD_ALIGNED
from ..model import Model
from ._mjcf_equality import JointEquality
from .mjcf import MAX_BYTES, parse_mjcf

__all__ = ["mjcf_constraints", "mjcf_equalities", "baumgarte_gains"]


def baumgarte_gains(solref, solimp) -> tuple[float, float]:
    """(kp, kd) of MuJoCo's reference acceleration at zero violation (module docstring)."""
    dmin, dmax = float(solimp[0]), float(solimp[1])
    if solref[0] > 0.0:
        tc, ratio = float(solref[0]), float(solref[1])
        k, b = 1.0 / (dmax * dmax * tc * tc * ratio * ratio), 2.0 / (dmax * tc)
    else:
        k, b = -float(solref[0]) / (dmax * dmax), -float(solref[1]) / dmax
    return dmin * k, b


def mjcf_constraints(model: Model, path_or_xml, *,
                     max_bytes: int | None = MAX_BYTES) -> list[RigidConstraint]:
    """The active ``<connect>`` and ``<weld>`` equality constraints of an MJCF file (the one
    ``model`` was loaded from: frames are found by the bodies' and sites' names) as
    fastdyn.RigidConstraint objects and its linear ``<joint>`` equalities as
    fastdyn.JointCoupling objects (``mjcf_equalities`` without the softness), for
    fd.constraint_dynamics, fd.impulse_dynamics and their batches."""
    return [c for c, _, _ in mjcf_equalities(model, path_or_xml, max_bytes=max_bytes)]


def mjcf_equalities(model: Model, path_or_xml, *,
                    max_bytes: int | None = MAX_BYTES) -> list[tuple]:
    """The active ``<connect>`` and ``<weld>`` equality constraints of an MJCF file (the one
    ``model`` was loaded from: frames are found by the bodies' and sites' names) as
    fastdyn.RigidConstraint objects and its linear ``<joint>`` equalities as
    fastdyn.JointCoupling objects (q1 = c1 q2 + (y0 + c0 - c1 x0), MuJoCo's polycoef and
    the joints' refs), in the file's order, named by the element's ``name`` (or
    "connect a-b"), for fd.constraint_dynamics, fd.impulse_dynamics and their batches.
    Inactive ones (``active="false"``) are left out with an MJCFWarning naming them;
    ``<tendon>`` and ``<flex>`` equalities are not read. A frame or joint the model lacks,
    or a nonlinear polycoef, raises MJCFError naming the element and line. Each comes as a
    (constraint, solref, solimp) triple with the element's MuJoCo softness (its class's, or
    MuJoCo's defaults), what ``fastdyn.Scene.add_mjcf_equalities`` simulates."""
    with warnings.catch_warnings():  # (load_mjcf already said what the model leaves out)
        warnings.simplefilter("ignore", MJCFWarning)
        d = parse_mjcf(path_or_xml, max_bytes=max_bytes, constraints=True)
    out, off = [], []
    for e in d.equalities:
        if not e.active:
            off.append(f"{e.name!r} ({e.where})")
            continue
        kp, kd = baumgarte_gains(e.solref, e.solimp)
        try:
            if isinstance(e, JointEquality):
                c = JointCoupling(model, e.joint1, e.joint2, ratio=e.ratio, offset=e.offset,
                                  kp=kp, kd=kd, name=e.name)
                out.append((c, e.solref, e.solimp))
                continue
            kind = CONTACT_3D if e.kind == "connect" else CONTACT_6D
            c = RigidConstraint(model, kind, e.frame1, frame2=e.frame2,
                                placement=e.placement2, placement1=e.placement1,
                                reference=LOCAL_WORLD_ALIGNED, kp=kp, kd=kd, name=e.name)
            out.append((c, e.solref, e.solimp))
        except ConstraintError as err:
            tag = e.node.tag
            raise MJCFError(f"<{tag}> {e.name!r}: {err.reason} (is this the file the model "
                            f"was loaded from?)", d.source, f"<{tag}>", e.node.line) from None
    if off:
        warnings.warn(f"{d.source}: {len(off)} inactive equality constraint(s) left out: "
                      f"{'; '.join(off[:8])}", MJCFWarning, stacklevel=3)
    return out
