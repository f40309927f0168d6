"""A Scene's constraints: loop closures, welds, frame contacts and joint couplings in its step.

    scene.add_constraint(fd.RigidConstraint(model, fd.CONTACT_3D, "coupler_tip", "rocker_tip"))
    scene.add_constraint(fd.JointCoupling(model, "finger2", "finger1"), solref=(0.02, 1))
    scene.add_mjcf_equalities(path)          # a MuJoCo file's <equality>, with its softness

The scene keeps (constraint, softness) pairs and builds, per launch, the tuple its step reads
(kernels/contact/equality_rows.py, which states the rows, their targets and what hard and soft
mean): the constraints' table (fastdyn.constraints.constraint_table) and one row each of
[solref, solimp] in a half-space row's columns (zeros: hard) with MuJoCo's approximate
Delassus diagonal (diagApprox), computed here from MuJoCo's inverse weights at the neutral
configuration (``inverse_weights``: body_invweight0 and dof_invweight0, as MuJoCo's compiler
computes them at qpos0). A scene without constraints passes None (NO_EQC): its kernels compile
nothing of this.
"""

from __future__ import annotations

import numpy as np

from ..constraints import RigidConstraint, constraint_table
from ..coupling import JointCoupling
from ..errors import ConstraintError
from ..kernels import layout as L
from ..kernels.contact import equality_rows as _eq

NO_EQC = _eq.NO_EQC
NO_ROWS = np.zeros(0)  # constraint_forces of a scene without constraints (read-only)
NO_ROWS.flags.writeable = False


def listed(constraints) -> list:
    """A list of the constraints given (one constraint: a list of one), or a TypeError."""
    if type(constraints) is RigidConstraint or type(constraints) is JointCoupling:
        return [constraints]
    try:
        return list(constraints)
    except TypeError:
        raise TypeError(f"constraints must be a list of fastdyn.RigidConstraint or "
                        f"fastdyn.JointCoupling, got {type(constraints).__name__}") from None


def checked(model, c, where: str):
    """c if it is a RigidConstraint or JointCoupling of ``model``; else a TypeError or a
    ConstraintError naming it (``where``: how the caller calls it, e.g. constraints[2])."""
    if type(c) is not RigidConstraint and type(c) is not JointCoupling:
        raise TypeError(f"{where} must be a fastdyn.RigidConstraint or fastdyn.JointCoupling, "
                        f"got {type(c).__name__}")
    if c.model_token != model.token:
        raise ConstraintError(c.name, f"it was built for another model than the scene's "
                                      f"{model.name!r}")
    return c


def softness(c, solref, solimp, soft_row) -> np.ndarray:
    """[solref (2), solimp (5)] of constraint c (zeros: hard) by ``soft_row`` (the Scene's
    check of MuJoCo's parameters), its ValueError or TypeError re-raised naming c."""
    try:
        return soft_row(solref, solimp)
    except (TypeError, ValueError) as e:
        raise ConstraintError(c.name, f"solref/solimp: {e}") from None


def inverse_weights(model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MuJoCo's inverse weights at the neutral configuration (its compiler's, at qpos0):
    per joint (body), the translational trace(J_c M^-1 J_c^T) / 3 at its centre of mass and
    the rotational trace(J_w M^-1 J_w^T) / 3 (body_invweight0; the world's are 0), and per
    dof (M^-1)_kk (dof_invweight0 of a one-dof joint)."""
    from ..configuration import neutral
    from ..dynamics import crba
    from ..jacobians import compute_joint_jacobian

    q = neutral(model)
    data = model.create_data()
    Minv = np.linalg.inv(crba(model, data, q))
    nj = model.njoints
    trans, rot = np.zeros(nj), np.zeros(nj)
    for j in range(1, nj):
        J = compute_joint_jacobian(model, data, q, j, L.LOCAL_WORLD_ALIGNED)
        pi = model.prm[j, L.P_PI:L.P_PI + 4]
        c = data.oMi_R[j] @ (pi[1:4] / pi[0]) if pi[0] > 0 else np.zeros(3)
        Jc = J[:3] - np.cross(c, J[3:].T).T  # v + w x c
        trans[j] = np.trace(Jc @ Minv @ Jc.T) / 3
        rot[j] = np.trace(J[3:] @ Minv @ J[3:].T) / 3
    return trans, rot, np.diag(Minv).copy()


def tables(model, items: list) -> tuple | None:
    """The step's eqc tuple (equality_rows.py) of (constraint, softness) pairs: NO_EQC when
    there are none."""
    if not items:
        return NO_EQC
    cst = constraint_table(model, [c for c, _ in items])
    eprm = np.zeros((len(items), _eq.EQ_WIDTH))
    for k, (c, soft) in enumerate(items):
        eprm[k, L.H_SOLREF:L.H_SOLIMP + 5] = soft
    if any(soft[3] > 0 for _, soft in items):
        trans, rot, dof = inverse_weights(model)
        for k, (c, soft) in enumerate(items):
            r = cst[k]
            j1, j2 = int(r["joint1"]), int(r["joint2"])
            if type(c) is JointCoupling:
                iv = model.jnt["idx_v"]
                eprm[k, _eq.EQ_DIAG] = dof[iv[j1]] + (dof[iv[j2]] if j2 > 0 else 0.0)
            else:
                eprm[k, _eq.EQ_DIAG] = trans[j1] + trans[j2]
                eprm[k, _eq.EQ_DIAG_ROT] = rot[j1] + rot[j2]
    return (cst, eprm)


def rows(items: list) -> int:
    """The constraints' rows: 3 per point, 6 per frame, 1 per coupling."""
    return sum(c.contact_type for c, _ in items)


def capacity(items: list) -> int:
    """The contact entries the step's buffers add for them (equality_rows.eq_capacity)."""
    return (rows(items) + 2) // 3


def forces(items: list, warm: np.ndarray, npair: int, dt: float) -> np.ndarray:
    """Each constraint row's force (percussion / dt) of the last step, read from the warm
    start (the step leaves each row's percussion in its slot, after the npair sphere pairs'):
    MuJoCo's rows (equality_rows.py): a point's world force on frame 1 [N], a weld's then its
    rotation rows', a coupling's generalized force on its joint [N m or N]; a row the step
    left out (it could not move) 0."""
    o = 3 * npair
    return warm[o:o + rows(items)] / dt
