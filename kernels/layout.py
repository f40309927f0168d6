"""Record layouts of the flat model and column offsets of its parameters and workspace.

The model is a topology (structured arrays, one row per joint, frame and degree of freedom)
and a float64 parameter table (one row per joint);
Data is one 2-D float64 workspace ``ws`` (one row per joint) plus q/v-sized arrays. Every
kernel reads rows of these; the offsets below are compile-time constants (never reassigned).
"""

import numpy as np

MAX_NQ = 7  # free-flyer: [x, y, z, qx, qy, qz, qw]
MAX_NV = 6

# A model is a static topology and a table of parameters (Featherstone's "model" split the way
# jaxsim and MJX split theirs): what never changes within a study (the tree and the coordinate
# layout) in ``jnt``; every number a study may vary, one row per joint, in ``prm``.

# Topology: one row per joint; row 0 is the universe (parent -1). parent < i for every i > 0.
JOINT_DTYPE = np.dtype(
    [
        ("parent", np.int64),  # index of the parent joint, -1 for the universe ()
        ("type", np.int64),  # joint type code, kernels/joints/codes.py ()
        ("idx_q", np.int64),  # first index of this joint in q ()
        ("nq", np.int64),  # number of configuration coordinates ()
        ("idx_v", np.int64),  # first index of this joint in v, a, tau ()
        ("nv", np.int64),  # number of degrees of freedom ()
    ],
    align=True,
)

# Parameters: prm (njoints, NP) float64, C-contiguous, one row per joint; kernels read
# prm[i, P_x + k]. A batch of robots is (N, njoints, NP): row s is one robot. Columns, with
# the number of entries and unit:
P_R = 0  # rotation of the joint frame in its parent's frame at q0, row-major (9)
P_P = 9  # origin of the joint frame in its parent's frame [m] (3)
P_AXIS = 12  # unit axis in the joint frame; universal: first axis (3)
P_AXIS2 = 15  # universal joint: second unit axis (3)
P_PITCH = 18  # helical joint: translation per radian [m/rad] (1)
P_PI = 19  # the body's inertia as 10 dynamic parameters, see below [kg, kg m, kg m^2] (10)
P_Q_LOWER = 29  # lower position limits, first nq used (7)
P_Q_UPPER = 36  # upper position limits, first nq used (7)
P_V_MAX = 43  # velocity limits, first nv used [rad/s or m/s] (6)
P_EFFORT_MAX = 49  # effort limits, first nv used [N m or N] (6)
P_ARMATURE = 55  # rotor inertia added to M's diagonal [kg m^2 or kg] (6)
P_DAMPING = 61  # viscous damping [N m s/rad or N s/m] (6)
P_FRICTION = 67  # dry friction [N m or N] (6)
P_GRAVITY = 73  # universe row only: world gravity [m/s^2] (3); zero in every other row
NP = 76  # parameter row width
# "pi" is the one inertia representation, Pinocchio's order [m, m cx, m cy, m cz, Ixx, Ixy,
# Iyy, Ixz, Iyz, Izz] with I about the joint origin (see the README's Conventions section);
# mass, com and the inertia about the com are derived from it (Model.mass, .com, .inertia).

# The same row with names, for people and NumPy (prm.view(PARAM_DTYPE)[..., 0]["pi"]): one
# storage, two ways to read it.
PARAM_DTYPE = np.dtype(
    {
        "names": ["R", "p", "axis", "axis2", "pitch", "pi", "q_lower", "q_upper", "v_max",
                  "effort_max", "armature", "damping", "friction", "gravity"],
        "formats": [(np.float64, (3, 3)), (np.float64, (3,)), (np.float64, (3,)),
                    (np.float64, (3,)), np.float64, (np.float64, (10,)),
                    (np.float64, (MAX_NQ,)), (np.float64, (MAX_NQ,)), (np.float64, (MAX_NV,)),
                    (np.float64, (MAX_NV,)), (np.float64, (MAX_NV,)), (np.float64, (MAX_NV,)),
                    (np.float64, (MAX_NV,)), (np.float64, (3,))],
        "offsets": [8 * o for o in (P_R, P_P, P_AXIS, P_AXIS2, P_PITCH, P_PI, P_Q_LOWER,
                                    P_Q_UPPER, P_V_MAX, P_EFFORT_MAX, P_ARMATURE, P_DAMPING,
                                    P_FRICTION, P_GRAVITY)],
        "itemsize": 8 * NP,
    }
)


def named(prm: np.ndarray) -> np.ndarray:
    """The parameter table (..., NP) as records with the names of PARAM_DTYPE, (...,): a view
    (writes go through, read-only stays read-only)."""
    return np.ascontiguousarray(prm).view(PARAM_DTYPE)[..., 0]


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

# Mimic joints (fastdyn.mimic): one row per joint whose coordinate follows another joint's,
# q_joint = multiplier q_mimicked + offset (both 1-dof, of one Lie group; chains of mimic tags
# composed, so ``mimicked`` is never itself a mimic joint). Rows in joint order.
MIMIC_DTYPE = np.dtype(
    [
        ("joint", np.int64),  # the mimic (following) joint ()
        ("mimicked", np.int64),  # the joint it follows, whose coordinate stays in q ()
        ("multiplier", np.float64),  # k [rad/rad, m/m, rad/m or m/rad] ()
        ("offset", np.float64),  # o [rad or m] ()
    ],
    align=True,
)

# Rigid constraints (fastdyn.RigidConstraint, kernels/contact/rigid_constraints.py): one row
# per constraint, in the order the caller lists them. Frame c1, fixed to joint1, is held to
# frame c2, fixed to joint2 (joint2 = 0: c2 is a placement in the world), as Pinocchio's
# RigidConstraintModel (joint1_id, joint1_placement, joint2_id, joint2_placement).
CONSTRAINT_DTYPE = np.dtype(
    [
        ("kind", np.int64),  # 3: point (CONTACT_3D), 6: frame (CONTACT_6D), 1: joint coupling ()
        ("reference", np.int64),  # LOCAL or LOCAL_WORLD_ALIGNED: the axes of its rows ()
        ("joint1", np.int64),  # joint carrying c1 ()
        ("R1", np.float64, (3, 3)),  # rotation of c1 in joint1's frame (3x3)
        ("p1", np.float64, (3,)),  # origin of c1 in joint1's frame [m] (3)
        ("joint2", np.int64),  # joint carrying c2; 0: the world ()
        ("R2", np.float64, (3, 3)),  # rotation of c2 in joint2's frame (3x3)
        ("p2", np.float64, (3,)),  # origin of c2 in joint2's frame [m] (3)
        ("kp", np.float64),  # Baumgarte position gain [1/s^2] ()
        ("kd", np.float64),  # Baumgarte velocity gain [1/s] ()
        ("row", np.int64),  # first row of this constraint in lambda ()
        ("ratio", np.float64),  # kind 1 (a joint coupling): q1 = ratio q2 + offset ()
        ("offset", np.float64),  # kind 1: [rad or m] ()
    ],
    align=True,
)
# Proximal settings and results of a constrained solve, prox (NX,) float64 (Pinocchio's
# ProximalSettings: the first four are read, the last three written):
X_MU = 0  # proximal parameter mu >= 0; 0: one direct solve [units of G]
X_MAX_ITER = 1  # most proximal iterations (>= 1) ()
X_ABS_ACC = 2  # stop when |J ddq - rhs|_inf is at most this (1)
X_REL_ACC = 3  # ... or when |lambda_k+1 - lambda_k|_inf is at most this (1)
X_ITER = 4  # out: the iterations made (1)
X_ABS_RES = 5  # out: |J ddq - rhs|_inf at the end (1)
X_REL_RES = 6  # out: |lambda_k+1 - lambda_k|_inf at the end (1)
NX = 7

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
# Appended for the dynamics derivatives (rnea_derivatives.py; world frame, column k of joint i
# at X + 6 k): the partial derivatives of body velocities and accelerations along J's columns.
DVDQ = 398  # d(ov)/dq: ov_parent x J_k (36)
DADQ = 434  # d(oa)/dq: oa_gf,parent x J_k + ov_parent x DVDQ_k (36)
DADV = 470  # d(oa)/dv: (ov_i + ov_parent) x J_k (36)
ODYC = 506  # d/dt of OYC, 10 parameters (its mass entry is zero) (10)
OH = 516  # spatial momentum of the subtree of i, world frame, [p; L] (6)
OF = 522  # force of the subtree of i, world frame (Pinocchio's of, summed over the subtree) (6)
NW = 528  # workspace width

# Reference frames of velocities, accelerations and Jacobians (the README's Conventions section).
LOCAL = 0  # in the moving frame
WORLD = 1  # in the world frame, at its origin
LOCAL_WORLD_ALIGNED = 2  # origin at the moving frame, world axes (Traversaro & Saccon's E[A])


LINE = 64  # bytes in a cache line (x86-64, most ARM cores)
GUARD = 128  # untouched bytes each side of a thread-shared buffer (adjacent-line prefetch pairs)


def isolated(shape: tuple, dtype=np.float64) -> np.ndarray:
    """np.zeros(shape, dtype), C-contiguous, starting on a cache line and with GUARD bytes
    nobody writes on each side: a buffer whose parts threads write every step shares no cache
    line with whatever the allocator placed next to it. Threads' rows inside it are the
    caller's to keep apart (a per-thread workspace row is a whole number of lines: NW * 8 =
    66 * 64 bytes; ``per_thread`` pads small rows)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    pad = (GUARD + LINE) // dtype.itemsize
    buf = np.zeros(count + 2 * pad, dtype)
    start = pad + (-(buf.ctypes.data + pad * dtype.itemsize) % LINE) // dtype.itemsize
    return buf[start:start + count].reshape(shape)


def per_thread(nt: int, shape: tuple, dtype=np.float64) -> np.ndarray:
    """Zeros of shape (nt, s) + shape, ``isolated``: thread t works in [t, 0], and the s - 1
    rows after it keep the next thread's row off its cache lines. Rows of a few floats that
    each thread writes every state or step (a rollout's next state, a batch's scratch) shared
    lines between the two threads: each write took the line from the other core, and batches
    ran up to 2x slower on machines whose two cores do not share a cache."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return isolated((nt, 1 + -(-GUARD // max(nbytes, 1))) + tuple(shape), dtype)


def workspace(jnt, threads: int | None = None) -> np.ndarray:
    """A zeroed workspace for ``jnt`` (the model's joint records, or a joint count): (njoints,
    NW), or (threads, njoints, NW) for parallel code (one per thread). The universe's row holds
    identity placements that the kernels read but never write, which is why a plain
    ``np.zeros`` workspace gives NaN: make workspaces here, or use ``model.create_data().ws``."""
    n = jnt if isinstance(jnt, (int, np.integer)) else jnt.shape[0]
    ws = np.zeros((n, NW)) if threads is None else isolated((threads, n, NW))
    for o in (LI, OM):
        ws[..., 0, o] = ws[..., 0, o + 4] = ws[..., 0, o + 8] = 1.0
    return ws

# --- The simulator's scene (fastdyn.Scene): contact geometry and environment ---------------
# Contact geometry is spheres fixed to joints (a point is a sphere of radius 0; boxes and
# capsules become spheres at their corners and ends when a scene is built).
SPHERE_DTYPE = np.dtype(
    [
        ("joint", np.int64),  # joint whose frame carries the sphere ()
        ("p", np.float64, (3,)),  # centre in that joint's frame [m] (3)
        ("radius", np.float64),  # [m], >= 0 ()
        # MuJoCo's translational inverse weight of the sphere's body at the neutral
        # configuration (its body_invweight0): soft contacts' R scale [1/kg] ()
        ("invweight", np.float64),
    ],
    align=True,
)
# Environment: half-spaces {x : n.x >= offset}, one row of hsp (nh, NH) float64 each; the
# ground is n = (0, 0, 1), offset 0. t1, t2 complete n to a right-handed orthonormal basis
# (the contact frame of every contact on that half-space).
H_N = 0  # outward unit normal (3)
H_OFFSET = 3  # n.x on the boundary [m] (1)
H_T1 = 4  # first tangent (3)
H_T2 = 7  # second tangent, n x t1... completing (t1, t2, n) (3)
H_MU = 10  # Coulomb friction coefficient, >= 0 (1)
H_RESTITUTION = 11  # coefficient of restitution e in [0, 1] (1)
# MuJoCo-style soft contacts (kernels/contact/softness.py); all zero: a hard half-space.
H_SOLREF = 12  # (timeconst [s], dampratio) or direct (-stiffness, -damping) (2)
H_SOLIMP = 14  # impedance (dmin, dmax, width [m], midpoint, power) (5)
NH = 19
# Options of a scene's time step, opt (NO,) float64:
O_DT = 0  # time step [s]
O_ERP = 1  # fraction of a penetration removed per step, in (0, 1] (Baumgarte-like)
O_REGULARIZATION = 2  # relative compliance: R = r diag(G) added to the Delassus matrix
O_TOL = 3  # solver tolerance on the natural-map residual [m/s]
O_ITERATIONS = 4  # most solver sweeps (PGS) or iterations (ADMM) per step
O_MARGIN = 5  # a contact enters the step when its predicted gap is below this [m]
O_BOUNCE = 6  # smallest approach speed that restitution acts on [m/s]
O_LIMITS = 7  # 1: joint position limits are constraint rows; 0: ignored
O_FREE = 8  # 1 (set per launch): no row can arise, the free velocity comes from ABA
O_INTEGRATOR = 9  # EULER (semi-implicit) or RK4 (only where O_FREE)
O_SOLVER = 10  # the contact solver: PGS (pgs.py) or ADMM (admm.py)
O_IMPRATIO = 11  # soft contacts: friction rows' R = the normal's / impratio (MuJoCo's), > 0
O_NO_CLAMP = 12  # 1 (set per launch): no dof has a finite effort limit, tau is not clamped
NO = 13
EULER, RK4 = 0, 1
PGS, ADMM = 0, 1
# Kinds of constraint rows in a step.
ROW_CONTACT = 0  # three rows (normal, t1, t2) per contact, first in the list
ROW_LIMIT = 1  # unilateral: lambda >= 0
ROW_FRICTION = 2  # bounded: |lambda| <= dry friction * dt
