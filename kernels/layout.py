"""Record layouts of the flat model and column offsets of the per-joint workspace.

The model is three NumPy structured arrays, one row per joint, frame and degree of freedom;
Data is one 2-D float64 workspace ``ws`` (one row per joint) plus q/v-sized arrays. Every
kernel reads rows of these; the offsets below are compile-time constants (never reassigned).
"""

import numpy as np

MAX_NQ = 7  # free-flyer: [x, y, z, qx, qy, qz, qw]
MAX_NV = 6

# One row per joint; row 0 is the universe (parent -1). parent < i for every i > 0.
JOINT_DTYPE = np.dtype(
    [
        ("parent", np.int64),  # index of the parent joint, -1 for the universe ()
        ("type", np.int64),  # joint type code, kernels/joints/codes.py ()
        ("idx_q", np.int64),  # first index of this joint in q ()
        ("nq", np.int64),  # number of configuration coordinates ()
        ("idx_v", np.int64),  # first index of this joint in v, a, tau ()
        ("nv", np.int64),  # number of degrees of freedom ()
        ("R", np.float64, (3, 3)),  # rotation of the joint frame in its parent's frame at q0 (3x3)
        ("p", np.float64, (3,)),  # origin of the joint frame in its parent's frame (3)
        ("axis", np.float64, (3,)),  # unit axis in the joint frame; universal: first axis (3)
        ("axis2", np.float64, (3,)),  # universal joint: second unit axis (3)
        ("pitch", np.float64),  # helical joint: translation per radian [m/rad] ()
        ("mass", np.float64),  # mass of the body the joint carries [kg] ()
        ("com", np.float64, (3,)),  # centre of mass of that body in the joint frame (3)
        ("inertia", np.float64, (3, 3)),  # rotational inertia about the com, joint axes (3x3)
        ("pi", np.float64, (10,)),  # the same inertia as 10 dynamic parameters, see below (10)
        ("q_lower", np.float64, (MAX_NQ,)),  # lower position limits, first nq used (7)
        ("q_upper", np.float64, (MAX_NQ,)),  # upper position limits, first nq used (7)
        ("v_max", np.float64, (MAX_NV,)),  # velocity limits, first nv used (6)
        ("effort_max", np.float64, (MAX_NV,)),  # effort limits, first nv used (6)
        ("armature", np.float64, (MAX_NV,)),  # rotor inertia added to M's diagonal (6)
        ("damping", np.float64, (MAX_NV,)),  # viscous damping [N m s/rad] (6)
        ("friction", np.float64, (MAX_NV,)),  # dry friction [N m] (6)
    ],
    align=True,
)
# "pi" is derived from (mass, com, inertia) by the builder and kept in Pinocchio's order
# [m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] with I about the joint origin (see the
# README's Conventions section): kernels read these ten numbers, people read the triplet.

# Frame types, as Pinocchio's FrameType.
OP_FRAME, JOINT_FRAME, FIXED_JOINT_FRAME, BODY_FRAME, SENSOR_FRAME = 1, 2, 4, 8, 16

# One row per frame: operational frames, joint frames, bodies, URDF fixed joints.
FRAME_DTYPE = np.dtype(
    [
        ("parent_joint", np.int64),  # joint whose frame this frame is fixed to ()
        ("parent_frame", np.int64),  # frame this one was attached to (tree of frames) ()
        ("type", np.int64),  # OP_FRAME, JOINT_FRAME, FIXED_JOINT_FRAME, BODY_FRAME, SENSOR_FRAME ()
        ("R", np.float64, (3, 3)),  # rotation of the frame in the parent joint's frame (3x3)
        ("p", np.float64, (3,)),  # origin of the frame in the parent joint's frame (3)
    ],
    align=True,
)

# One row per degree of freedom (entry of v).
DOF_DTYPE = np.dtype(
    [
        ("joint", np.int64),  # joint owning this dof ()
        ("parent", np.int64),  # previous dof on the path to the root, -1 at the root ()
    ],
    align=True,
)

# --- Workspace columns, ws[i, ...] for joint i (row 0: the universe) -------------------------
# A placement is 12 numbers: R row-major (9) then p (3).
LI = 0  # liMi: placement of joint i in its parent (12)
OM = 12  # oMi: placement of joint i in the world (12)
V = 24  # spatial velocity of body i in frame i, [v; w] (6)
A = 30  # spatial acceleration of body i in frame i, gravity not included (6)
F = 36  # spatial force of body i in frame i, [f; tau] (6)
VJ = 42  # joint velocity S v_i (6)
CJ = 48  # joint bias acceleration c_J (6)
S = 54  # motion subspace, column k of joint i at S + 6 k (36)
YC = 90  # composite rigid-body inertia as 10 dynamic parameters (10)
IA = 100  # ABA: articulated-body inertia, world frame, 6x6 row-major (36)
PA = 136  # ABA: articulated-body bias force, world frame (6)
U = 142  # ABA: U = IA S, column k at U + 6 k; CRBA: the force block F = Yc S (36)
DI = 178  # ABA D^-1 = (S^T U)^-1, nv x nv row-major (36)
UU = 214  # ABA u = tau - S^T pA (6)
AGF = 220  # RNEA's acceleration with -gravity folded in at the root, Pinocchio's a_gf (6)
C = 226  # ABA: velocity-product acceleration c_i of joint i, world frame (6)
TMP = 232  # scratch for one 6x6 product (36)
# Appended for Jacobians, centroidal quantities and the Coriolis matrix (world-frame columns).
OV = 268  # spatial velocity of body i in the world frame (at the world origin), [v; w] (6)
OJ = 274  # S of joint i in the world frame, column k at OJ + 6 k: its columns of data.J (36)
ODJ = 310  # time derivative of OJ, column k at ODJ + 6 k: its columns of data.dJ (36)
OYC = 346  # composite inertia of the subtree of i in the world frame, 10 parameters (10)
OB = 356  # 6x6 row-major per subtree, world frame: d/dt OYC (dccrba) or Coriolis B (36)
OAG = 392  # ABA: acceleration of body i with -gravity folded in, world frame (6)
NW = 398  # workspace width

# Reference frames of velocities, accelerations and Jacobians (the README's Conventions section).
LOCAL = 0  # in the moving frame
WORLD = 1  # in the world frame, at its origin
LOCAL_WORLD_ALIGNED = 2  # origin at the moving frame, world axes (Traversaro & Saccon's E[A])


def workspace(jnt, threads: int | None = None) -> np.ndarray:
    """A zeroed workspace for ``jnt`` (the model's joint records, or a joint count): (njoints,
    NW), or (threads, njoints, NW) for parallel code (one per thread). The universe's row holds
    identity placements that the kernels read but never write, which is why a plain
    ``np.zeros`` workspace gives NaN: make workspaces here, or use ``model.create_data().ws``."""
    n = jnt if isinstance(jnt, (int, np.integer)) else jnt.shape[0]
    ws = np.zeros((n, NW) if threads is None else (threads, n, NW))
    for o in (LI, OM):
        ws[..., 0, o] = ws[..., 0, o + 4] = ws[..., 0, o + 8] = 1.0
    return ws
