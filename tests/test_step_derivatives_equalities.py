"""Transition Jacobians of simulator steps with equality constraints (Scene.add_constraint,
add_mjcf_equalities: kernels/contact/equality_derivatives.py) against central finite
differences of Scene.step itself, each perturbed step started cold (Scene.reset) with a tight
solver tolerance, on: a four-bar linkage (connect), two arms welded at their tips (weld), a
joint coupling, a body hung from the world by a free-flyer connect, MuJoCo-soft connect, weld
and coupling (solref / solimp: the targets and compliance as functions of the state), and a
constraint beside a sphere contact. Equality rows are bilateral: every perturbed step must keep
the nominal step's rows (their number, Scene.stats[0]). The next state is Scene.step's and the
batch and horizon rows the single calls', bit for bit."""

import warnings

import numpy as np
import pytest

import fastdyn as fd
from conftest import close, step_jacobians_by_differences
from mechanisms import arms as two_arms, fourbar
from fastdyn.errors import MJCFWarning

EPS = 1e-6
TIGHT = dict(tolerance=1e-15, iterations=5000)
FOURBAR = fourbar('<option gravity="0 0 -9.81" timestep="0.001"/>')


def arms(equality: str) -> str:
    return two_arms(equality, '<option timestep="0.001"/>')


HANG = """<mujoco><worldbody><body name="bob" pos="0 0 1"><freejoint/>
  <geom type="box" size="0.05 0.08 0.2" mass="2"/></body>
  </worldbody><equality><connect body1="bob" anchor="0.03 0.02 0.2"/></equality></mujoco>"""


def load(xml):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MJCFWarning)
        return fd.load_mjcf(xml)


def scene_of(xml, soft=False, **kw):
    """The file's model and a scene with its equalities: hard (the scene's erp) or as MuJoCo
    softens them (``soft``)."""
    model = load(xml)
    scene = fd.Scene(model, dt=1e-3, ground=False, **{**TIGHT, **kw})
    if soft:
        scene.add_mjcf_equalities(xml)
    else:
        scene.add_constraints(fd.io.mjcf_constraints(model, xml))
    return model, scene


def moving_state(scene, steps, seed, v_scale=1.0):
    """A state some steps into a motion from q = neutral under random torques (the constraints
    nearly closed, their residuals small and not zero), a random torque to differentiate at."""
    model = scene.model
    rng = np.random.default_rng(seed)
    v0 = v_scale * rng.normal(size=model.nv)
    out = scene.rollout(fd.neutral(model), v0, steps,
                        torques=np.tile(rng.normal(size=model.nv), (steps, 1)))
    return out.final_q.copy(), out.final_v.copy(), rng.normal(size=model.nv)


def fd_jacobians(scene, q, v, tau):
    """A, B by central differences of Scene.step (cold starts); every perturbed step keeps
    the nominal number of rows."""
    scene.reset()
    scene.step(q, v, tau)
    rows = scene.stats[0]

    def step(q, v, tau):
        scene.reset()
        out = scene.step(q, v, tau)
        assert scene.stats[0] == rows, "the perturbation changed the rows"
        return out

    A, B = step_jacobians_by_differences(scene.model, step, q, v, tau, EPS)
    return A, B, rows


def agree(scene, q, v, tau, rows, tol):
    """Scene.step_derivatives equal to the finite differences (relative to the largest entry,
    conftest.close), on a step with ``rows`` constraint rows; the next state is
    Scene.step's after reset, bit for bit."""
    A, B = scene.step_derivatives(q, v, tau)
    h = scene.horizon(q, v, tau[None])  # (one step: its state is step_derivatives')
    assert np.array_equal(h.A[0], A) and np.array_equal(h.B[0], B)
    fA, fB, n = fd_jacobians(scene, q, v, tau)
    assert n == rows, n
    scene.reset()
    qn, vn = scene.step(q, v, tau)
    assert np.array_equal(qn, h.q[1]) and np.array_equal(vn, h.v[1])
    close(A, fA, tol)
    close(B, fB, tol)


# --- hard constraints (Baumgarte targets at the scene's erp) ------------------------------------

def test_fourbar_connect():
    """Two rows (the out-of-plane one is left out): the closure's second derivatives through
    d(J v+)/dq and the world-fixed force on the moving points."""
    _, scene = scene_of(FOURBAR)
    q, v, tau = moving_state(scene, 30, 0)
    agree(scene, q, v, tau, 2, 1e-8)  # reached 7.5e-11


def test_welded_arms():
    """Six rows on eight hinges: the rotation rows' A(q) = 1/2 (e_w I - [e_v]x) R2^T
    differentiated, and the torque A^T lam with it."""
    _, scene = scene_of(arms('<weld body1="a3" body2="b3" relpose="0.28 0.01 0 0.999 0.04 0 '
                             '0"/>'))
    q, v, tau = moving_state(scene, 30, 1)
    agree(scene, q, v, tau, 6, 1e-8)  # reached 1.3e-10


def test_joint_coupling():
    _, scene = scene_of(arms('<joint joint1="aj1" joint2="bj2" polycoef="0.1 -0.5"/>'))
    q, v, tau = moving_state(scene, 30, 2)
    agree(scene, q, v, tau, 1, 1e-7)  # reached 8.6e-10


def test_free_body_hung_from_the_world():
    """A free-flyer (Lie group rows and columns) held by a connect to the world (joint2 = 0),
    swinging. The hard rows' compliance R = r diag(G) is held at its value: A's error follows
    r (reached 1.5e-7, 1.4e-9, 8.2e-11 at r = 1e-6, 1e-8, 1e-10); B's, 1.3e-8 at each, is the
    solver's tolerance (1e-13 m/s: PGS stops at 3e-15 here) over the difference step."""
    _, scene = scene_of(HANG, tolerance=1e-13)
    q, v, tau = moving_state(scene, 20, 3, v_scale=0.3)
    agree(scene, q, v, tau, 3, 1e-6)


# --- soft constraints (MuJoCo's solref / solimp) --------------------------------------------

def test_soft_connect_sites():
    """Target J v + dt (a_ref - dJ/dt v) and compliance (1 - d) / d A^ move with the state:
    the impedance at the residual's norm and the velocity product's derivatives."""
    _, scene = scene_of(arms('<connect site1="atip" site2="btip" solref="0.05 0.8" '
                             'solimp="0.8 0.95 0.2 0.4 2"/>'), soft=True)
    q, v, tau = moving_state(scene, 40, 4)
    agree(scene, q, v, tau, 3, 3e-7)  # reached 2.9e-9


def test_soft_joint_lock():
    """A direct solref (-stiffness, -damping) on a coupling to the world."""
    _, scene = scene_of(arms('<joint joint1="aj2" polycoef="0.2" solref="-1000 -20" '
                             'solimp="0.5 0.95 0.5 0.5 2"/>'), soft=True)
    q, v, tau = moving_state(scene, 40, 5)
    agree(scene, q, v, tau, 1, 5e-7)  # reached 4.6e-9


# --- with contacts; batch, horizon, refusals ----------------------------------------------------

def test_fourbar_with_its_crank_on_a_soft_floor():
    """A sphere contact at the crank's tip, pushed 0.1 mm into a MuJoCo-soft floor, and the
    closure in one step. (On a rigid floor the planar linkage's sticking contact is
    degenerate: its out-of-plane tangent row cannot move and has no compliance; a soft floor's
    compliance is absolute.)"""
    model = load(FOURBAR)
    scene = fd.Scene(model, dt=1e-3, ground=False, solver="admm", **TIGHT)
    scene.add_halfspace((0.0, 0.0, 1.0), 1e-4, mu=2.0, solref=(0.02, 1.0),
                        solimp=(0.9, 0.95, 0.001, 0.5, 2))
    scene.add_sphere("crank", 0.0, (0.2, 0.0, 0.0))
    scene.add_constraints(fd.io.mjcf_constraints(model, FOURBAR))
    q, v, tau = np.zeros(model.nq), np.array([0.01, 0.0, 0.0]), np.array([5.0, 0.0, 0.0])
    agree(scene, q, v, tau, 5, 1e-7)  # reached 7.2e-10
    assert scene.contact_forces[0, 2] > 30.0  # (it pushes: 37 N)


def test_batch_and_horizon_are_the_single_calls():
    _, scene = scene_of(FOURBAR, soft=True)
    q, v, tau = moving_state(scene, 30, 6)
    h = scene.horizon(q, v, np.tile(tau, (3, 1)))
    AA, BB = fd.batch.step_derivatives(scene, h.q[:-1], h.v[:-1], h.tau)
    for k in range(3):
        A, B = scene.step_derivatives(h.q[k], h.v[k], h.tau[k])
        assert np.array_equal(A, h.A[k]) and np.array_equal(B, h.B[k])
        assert np.array_equal(A, AA[k]) and np.array_equal(B, BB[k])
        scene.reset()
        qn, vn = scene.step(h.q[k], h.v[k], h.tau[k])
        assert np.array_equal(qn, h.q[k + 1]) and np.array_equal(vn, h.v[k + 1])


@pytest.mark.parametrize("weld", [
    '<weld body1="a3" body2="b3" relpose="0.28 0.01 0 0.999 0.04 0 0"/>',  # reached 5.8e-9
    '<weld body1="b3" solref="0.05 0.7"/>',  # to the world (its blocks zero); reached 2.9e-9
], ids=["between-arms", "to-the-world"])
def test_soft_weld(weld):
    """A MuJoCo-soft weld (MJCF's default solref / solimp, or a given solref): the rotation
    rows' velocity product A (al1 - al2 - w2 x W) - |W|^2 / 4 e_v differentiated through A(q),
    e(q) and the bodies' velocities and accelerations, with the impedance at the six
    residuals' norm. (Without those terms A was off by 1e-1; without only the |W|^2 / 4 de_v
    term or only the dv part, by 5e-5 and 2e-4.)"""
    _, scene = scene_of(arms(weld), soft=True)
    q, v, tau = moving_state(scene, 40, 8)
    agree(scene, q, v, tau, 6, 3e-7)


def test_the_generated_route_takes_the_generic_kernel_with_constraints():
    """``generated=``: a step with constraint rows is not the contact-free step the generated
    ABA derivatives serve, so it goes to the generic kernel (the same bits)."""
    model, scene = scene_of(FOURBAR)
    q, v, tau = moving_state(scene, 10, 7)
    gen = fd.codegen.generate(model, algorithms=("aba_derivatives",))
    A, B = scene.step_derivatives(q, v, tau)
    Ag, Bg = scene.step_derivatives(q, v, tau, generated=gen)
    assert np.array_equal(A, Ag) and np.array_equal(B, Bg)
    h = scene.horizon(q, v, tau[None], generated=gen)
    assert np.array_equal(h.A[0], A) and np.array_equal(h.B[0], B)
