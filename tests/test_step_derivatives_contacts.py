"""Transition Jacobians of simulator steps with constraint rows (contacts, joint limits, dry
joint friction), the active set held fixed: Scene.step_derivatives against central finite
differences of Scene.step itself.

Each perturbed step starts cold (Scene.reset), as step_derivatives does, with a tight solver
tolerance so that the differences see the exact solution of the step's problem. Every
perturbed step must keep the nominal step's active set, read from Scene.step's own outputs and
from the geometry (never from the derivative kernel): each contact separated, sticking or
sliding (its force against mu times its normal force), the sign of its gap (the target's
slope changes there), each limit's sign and each dry friction torque at its bound or inside."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from conftest import close, step_jacobians_by_differences
from fastdyn.kernels import layout as L, step_derivatives as step_kernel
from fastdyn.sim import standing_scene
from fastdyn.sim.step_derivatives import step_buffers, step_options

G = 9.81
EPS = 1e-6
FD_TOL = 1e-5  # relative to the largest entry (or 1), as conftest.close
TIGHT = dict(tolerance=1e-15, iterations=5000)


def free_body(name, mass, inertia):
    b = fd.ModelBuilder(name, gravity=(0.0, 0.0, -G))
    b.add_joint("base", "freeflyer")
    b.add_body("base", mass, inertia=np.asarray(inertia, float))
    return b.build()


def ball_scene(**kw):
    scene = fd.Scene(free_body("ball", 2.0, np.eye(3) * 0.4 * 2.0 * 0.1 ** 2), dt=1e-3,
                     mu=0.4, **TIGHT, **kw)
    scene.add_sphere("base", 0.1)
    return scene


BOX_MASS = 1.5


def BOTTOM(kind):
    """The box's corners in add_box's order: the four at z = -s/2 first, then the top ones."""
    return [kind] * 4 + ["apart"] * 4


def box_scene(**kw):
    m, s = BOX_MASS, 0.2
    scene = fd.Scene(free_body("box", m, np.eye(3) * m * 2 * s * s / 12), dt=1e-3, mu=0.4,
                     **{**TIGHT, **kw})
    scene.add_box("base", (s, s, s))
    return scene


def yawed(z, yaw, xy=(0.0, 0.0)):
    return np.array([xy[0], xy[1], z, 0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)])


def pendulum(friction=(0.0, 0.0)):
    """Two links about y; the shoulder limited to [-1, 0.3]."""
    b = fd.ModelBuilder("pendulum", gravity=(0.0, 0.0, -G))
    b.add_joint("shoulder", "revolute_y", lower=-1.0, upper=0.3)
    b.add_body("shoulder", 1.0, com=(0.5, 0.0, 0.0), inertia=np.eye(3) * 1e-3)
    b.add_joint("elbow", "revolute_y", "shoulder", (np.eye(3), (1.0, 0.0, 0.0)))
    b.add_body("elbow", 0.5, com=(0.3, 0.0, 0.0), inertia=np.eye(3) * 1e-3)
    m = b.build()
    for j, f in zip(("shoulder", "elbow"), friction):
        if f:
            m = m.with_friction(j, f)
    return fd.Scene(m, dt=1e-3, ground=False, **TIGHT)


# --- the active set, from Scene.step's outputs and the geometry ---------------------------------

def gaps(scene, q):
    """The gap of every (sphere, half-space) pair at q, in Scene.pairs' order."""
    m = scene.model
    d = m.create_data()
    fd.forward_kinematics(m, d, q)
    out = []
    for s in scene.spheres:
        x = d.oMi_R[s["joint"]] @ s["p"] + d.oMi_p[s["joint"]]
        for h in scene.halfspaces:
            out.append(h[0:3] @ x - h[3] - s["radius"])
    return np.array(out)


def active_set(scene, q):
    """What the step just taken did, as a hashable signature."""
    sig = []
    for f, g, h in zip(scene.contact_forces,
                       gaps(scene, q) if len(scene.spheres) else (),
                       np.repeat(scene.halfspaces[None], len(scene.spheres), 0).reshape(-1, L.NH)):
        n, mu = h[0:3], h[10]
        fn = f @ n
        ft = np.linalg.norm(f - fn * n)
        kind = "apart" if fn == 0.0 else ("slide" if ft >= mu * fn * (1 - 1e-9) else "stick")
        sig.append((kind, bool(g > 0.0)))
    m = scene.model
    limits = scene.opt[fd.kernels.layout.O_LIMITS] > 0
    for j in range(1, m.njoints):
        jr = m.jnt[j]
        for d in range(jr["nv"]):
            k = jr["idx_v"] + d
            tc = scene.constraint_tau[k]  # limit and friction rows only (not contacts)
            entry = [int(np.sign(tc))]
            if limits and jr["nq"] == jr["nv"] and m.joint_type(j) != "freeflyer":
                i = jr["idx_q"] + d
                entry += [bool(q[i] > m.lower_position_limit[i]),
                          bool(q[i] < m.upper_position_limit[i])]
            f = m.friction[k]
            if f > 0:
                entry.append(bool(abs(abs(tc) - f) <= 1e-9 * f))
            if len(entry) > 1:
                sig.append(tuple(entry))
    return tuple(sig)


def fd_jacobians(scene, q, v, tau, fext=None):
    """A, B by central differences of Scene.step (cold starts; conftest's
    step_jacobians_by_differences), and the nominal active set, which no perturbation may
    move (asserted at every step)."""
    scene.reset()
    scene.step(q, v, tau, fext)
    nominal = active_set(scene, q)

    def step(q, v, tau):
        scene.reset()
        out = scene.step(q, v, tau, fext)
        assert active_set(scene, q) == nominal, "the perturbation changed the active set"
        return out

    A, B = step_jacobians_by_differences(scene.model, step, q, v, tau, EPS)
    return A, B, nominal


def agree(scene, q, v, tau, expect, fext=None):
    """Scene.step_derivatives equal to the finite differences on the nominal active set, whose
    contact and row kinds must be ``expect`` (so that each case tests what it says)."""
    A, B = scene.step_derivatives(q, v, tau, fext)
    fA, fB, nominal = fd_jacobians(scene, q, v, tau, fext)
    kinds = [s[0] for s in nominal if isinstance(s[0], str)]
    assert kinds == list(expect[0]), nominal
    for k, want in expect[1].items():
        assert nominal[len(kinds) + k] == want, nominal
    close(A, fA, FD_TOL)
    close(B, fB, FD_TOL)
    return A, B


# --- (a) sticking ------------------------------------------------------------------------------

def test_ball_resting_and_rolling_sticks():
    scene = ball_scene()
    rng = np.random.default_rng(0)
    quat = rng.normal(size=4)
    q = np.r_[0.1, 0.2, 0.1 - 1e-4, quat / np.linalg.norm(quat)]
    v = 1e-3 * rng.normal(size=6)  # the friction cone holds this slip within the step
    agree(scene, q, v, rng.normal(size=6), (["stick"], {}))


def test_box_resting_on_four_corners_sticks():
    scene = box_scene()
    rng = np.random.default_rng(1)
    tau = np.r_[0.3 * 0.4 * BOX_MASS * G, -0.2, 0.0, 0.01, 0.0, 0.02]
    fext = np.zeros((2, 6))
    fext[1, :3] = (0.2 * 0.4 * BOX_MASS * G, 0.1, -1.0)  # with tau: still below mu m g
    agree(scene, yawed(0.1 - 1e-5, 0.3), 1e-3 * rng.normal(size=6), tau, (BOTTOM("stick"), {}),
          fext)


# --- (b) sliding -------------------------------------------------------------------------------

def test_box_pushed_past_mu_m_g_slides():
    """Straight sliding (the four corners slip alike: their split of the normal force, which
    only the compliance decides, does not move the box)."""
    scene = box_scene()
    tau = np.r_[1.1 * 0.4 * BOX_MASS * G, 0.3, 0.0, 0.0, 0.0, 0.0]
    agree(scene, yawed(0.1 - 1e-5, 0.3), np.r_[0.5, 0.1, 0.0, 0.0, 0.0, 0.0], tau,
          (BOTTOM("slide"), {}))


def test_box_sliding_and_turning():
    """Corners slipping in different directions: their normal forces' split matters, and
    Gauss-Seidel reaches the compliance-decided split only with a larger compliance (at the
    default 1e-8 it stops at the velocity tolerance before). Here R's own q-dependence, which
    the Jacobians leave out, is 1e-3 relative: the agreement is to ~1e-6."""
    scene = box_scene(regularization=1e-3, iterations=50_000)
    tau = np.r_[1.1 * 0.4 * BOX_MASS * G, 0.3, 0.0, 0.0, 0.0, 0.0]
    agree(scene, yawed(0.1 - 1e-5, 0.3), np.r_[0.5, 0.1, 0.0, 0.0, 0.0, 0.2], tau,
          (BOTTOM("slide"), {}))


def test_ball_sliding_and_spinning():
    scene = ball_scene()
    q = np.r_[0.1, 0.2, 0.1 - 1e-4, 0.0, 0.0, 0.0, 1.0]
    agree(scene, q, np.r_[1.0, 0.3, 0.0, 0.5, -0.2, 0.1], np.r_[0.3, -0.1, 0.2, 0.01, 0.0, 0.0],
          (["slide"], {}))


def test_ball_landing_with_restitution():
    """Newton's target -e u_n(v) replaces the gap's: its derivatives in v and in q (the
    contact point's velocity moves with q)."""
    scene = ball_scene(restitution=0.5)
    q = np.r_[0.1, 0.2, 0.1 + 1e-4, 0.0, 0.0, 0.0, 1.0]
    A, _ = agree(scene, q, np.r_[0.3, -0.2, -1.0, 2.0, 1.0, 0.5], np.zeros(6), (["stick"], {}))
    # dv_z+/dv_z = -e (plus gravity's nothing), up to the contact's regularization: reached 5.0e-6
    assert A[8, 8] == pytest.approx(-0.5, rel=5e-4)


# --- (c) the quadruped standing under PD ----------------------------------------------------

def test_quadruped_standing_under_pd():
    scene, q0, kp, kd = standing_scene()
    scene.tolerance, scene.iterations = TIGHT["tolerance"], TIGHT["iterations"]
    model = scene.model
    out = scene.rollout(q0, np.zeros(model.nv), 500, kp=kp, kd=kd)
    q, v = out.final_q.copy(), out.final_v
    # at rest the feet settle at a gap of ~-1e-13 m, where the gap target's slope jumps from
    # erp / dt to 1 / dt: a finite difference would straddle it. 0.1 mm deeper it does not.
    q[2] -= 1e-4
    tau = kp * fd.difference(model, q, q0) - kd * v  # the PD's torque at this state
    agree(scene, q, v, tau, (["stick"] * 4, {}))


def test_humanoid_hand_and_foot_against_walls():
    """Every joint type on the contact points' supports (spherical ZYX shoulder, helical
    wrist, universal ankle, spherical hip, prismatic spine): a hand and a foot each touching a
    tilted half-space, both sliding."""
    m = fd.samples.humanoid()
    rng = np.random.default_rng(5)
    q = fd.random_configuration(m, rng)
    scene = fd.Scene(m, dt=1e-3, ground=False, limits=False, **TIGHT)
    d = m.create_data()
    fd.forward_kinematics(m, d, q)
    fd.update_frame_placements(m, d)
    hand, foot = (d.oMf_p[m.frame_id(f)].copy() for f in ("left_hand", "right_ankle"))
    scene.add_sphere("left_hand", 0.05)
    scene.add_sphere("right_ankle", 0.0)
    axis = (foot - hand) / np.linalg.norm(foot - hand)
    for n, x, r in ((axis + 0.2 * rng.normal(size=3), hand, 0.05),
                    (-axis + 0.2 * rng.normal(size=3), foot, 0.0)):
        n /= np.linalg.norm(n)
        scene.add_halfspace(n, n @ x - r + 1e-4, mu=0.9)  # 0.1 mm into it
    agree(scene, q, 1e-3 * rng.normal(size=m.nv), 0.1 * rng.normal(size=m.nv),
          (["slide", "apart", "apart", "slide"], {}))


# --- (d) joint limits and dry friction ------------------------------------------------------

def test_pendulum_resting_at_its_limit():
    """With viscous damping (implicit) and armature on the elbow."""
    scene = pendulum()
    scene.model = scene.model.with_damping("elbow", 0.3).with_armature("elbow", 0.02)
    q = np.array([0.3 + 1e-5, 0.2])  # just past the shoulder's upper limit, gravity into it
    agree(scene, q, np.array([0.01, 0.0]), np.array([0.2, 0.1]),
          ([], {0: (-1, True, False)}))


def test_dry_friction_sliding_and_sticking_rows():
    """The shoulder moves (its friction at the bound), the elbow's friction holds it."""
    scene = pendulum(friction=(0.5, 5.0))
    agree(scene, np.array([0.1, 0.2]), np.array([1.0, 0.0]), np.array([0.2, 0.1]),
          ([], {0: (-1, True, True, True), 1: (1, True, True, False)}))


def test_touching_without_force_takes_the_separated_side():
    """A weightless ball resting at zero gap: the contact row enters with lam_n = 0, the
    degenerate state between separated and in contact. Its Jacobians are the separated
    side's, the same as without the ground (pulling the ball up is what they describe)."""
    b = fd.ModelBuilder("ball", gravity=(0.0, 0.0, 0.0))
    b.add_joint("base", "freeflyer")
    b.add_body("base", 2.0, inertia=np.eye(3) * 0.008)
    m = b.build()
    touching = fd.Scene(m, dt=1e-3, **TIGHT)
    touching.add_sphere("base", 0.1)
    q = np.r_[0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0]
    A, B = touching.step_derivatives(q, np.zeros(6), np.zeros(6))
    touching.reset()
    touching.step(q, np.zeros(6), np.zeros(6))
    assert touching.stats[0] == 3 and not touching.contact_forces.any()
    fA, fB = fd.Scene(m, dt=1e-3, ground=False).step_derivatives(q, np.zeros(6), np.zeros(6))
    close(A, fA, 1e-12)
    close(B, fB, 1e-12)


# --- the kernel and the batch --------------------------------------------------------------

def test_next_state_is_the_cold_step_and_the_batch_rows_the_single_calls():
    scene, q0, kp, kd = standing_scene()
    model = scene.model
    nv = model.nv
    out = scene.rollout(q0, np.zeros(nv), 300, kp=kp, kd=kd, record=("q", "v"))
    Q, V = out.q[-3:], out.v[-3:]
    TAU = np.stack([kp * fd.difference(model, q, q0) - kd * v for q, v in zip(Q, V)])
    AA, BB = fd.batch.step_derivatives(scene, Q, V, TAU)
    opt = step_options(scene, model.prm[None])
    ws, fbuf, ibuf, dbuf = step_buffers(scene)
    qn, vn = np.zeros(model.nq), np.zeros(nv)
    A, B = np.zeros((2 * nv, 2 * nv)), np.zeros((2 * nv, nv))
    for r in range(3):
        s1, s2 = scene.step_derivatives(Q[r], V[r], TAU[r])
        assert np.array_equal(AA[r], s1) and np.array_equal(BB[r], s2)
        code = _call(model.jnt, model.prm, model.dof, scene.spheres, scene.halfspaces, opt,
                     Q[r], V[r], TAU[r].copy(), np.zeros((0, 6)), ws, fbuf, ibuf, dbuf, qn, vn,
                     A, B)
        assert code == 0
        scene.reset()
        q1, v1 = scene.step(Q[r], V[r], TAU[r])
        assert scene.stats[0] == 12  # four feet in contact
        assert np.array_equal(q1, qn) and np.array_equal(v1, vn)
        assert np.array_equal(A, s1) and np.array_equal(B, s2)


@numba.njit(cache=False)
def _call(jnt, prm, dof, sph, hsp, opt, q, v, tau, fext, ws, fbuf, ibuf, dbuf, qn, vn, A, B):
    return step_kernel(jnt, prm, dof, sph, hsp, None, None, opt, q, v, tau, fext, ws, fbuf, ibuf,
                       dbuf, qn, vn, A, B)


def test_redundant_rows_without_compliance_are_refused():
    """Four sticking corners without compliance: the linearized problem is singular."""
    scene = box_scene(regularization=0.0, tolerance=1e-9, iterations=200)
    with pytest.raises(np.linalg.LinAlgError, match="singular.*regularization"):
        scene.step_derivatives(yawed(0.1 - 1e-5, 0.3), np.zeros(6), np.zeros(6))
