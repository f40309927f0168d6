"""The ADMM contact solver (kernels/contact/admm.py, ``Scene(solver="admm")``) against
problems with a known answer, Pinocchio 4's own ``ADMMConstraintSolver`` on the same Delassus
matrix and drift, and the physics of Pinocchio's unittest/admm-solver.cpp scenarios, in the
kernel alone and in a scene. The problems, the row orders and Pinocchio's side are
test_contact_solver.py's (its helpers are imported); its stack of cubes, where Gauss-Seidel
stalls (the xfail there), is solved here, and so is its analogue in a scene (a tower on joint
limits, with PGS's failure as a strict xfail)."""

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.kernels.contact.admm import admm, work_size
from fastdyn.kernels.contact.pgs import pgs
from test_contact_solver import (AGREE, CASES, CUBE, DT, G0, MU, ball_model, cubes_model,
                                 next_velocity, pin_solve, pushed_box, random_problem, scale,
                                 stack, step_problem, total)
from test_simulator import ball, box, pendulum, pose, standing_quadruped

_FIXTURES = (ball, box)  # test_simulator's bodies, its fixtures here too

TOL = 1e-12  # ADMM: the largest velocity error [m/s]
ITERATIONS = 100_000


def admm_solve(G, c, mu, lam=None, lo=None, hi=None, tol: float = TOL,
               iterations: int = ITERATIONS):
    """(iterations, residual, lam) from fastdyn's ADMM, cold or from ``lam``; rows after the
    3 len(mu) contact rows are bounded by lo, hi."""
    m = G.shape[0]
    lam = np.zeros(m) if lam is None else np.array(lam, dtype=float)
    lo = np.zeros(m) if lo is None else np.asarray(lo, dtype=float)
    hi = np.zeros(m) if hi is None else np.asarray(hi, dtype=float)
    mu = np.asarray(mu, dtype=float)
    k, res = admm(np.ascontiguousarray(G), np.ascontiguousarray(c), mu, len(mu), lo, hi, m,
                  lam, tol, iterations, np.full(work_size(m), np.nan))
    return k, res, lam


# --- random problems with a known answer ---------------------------------------------------

@pytest.fixture(scope="module", params=range(len(CASES)), ids=[c[0] for c in CASES])
def solved(request):
    G, c, mu, lam, u = random_problem(request.param, CASES[request.param][1])
    return dict(G=G, c=c, mu=mu, lam=lam, u=u, ours=admm_solve(G, c, mu),
                admm=pin_solve("admm", G, c, mu), pgs=pin_solve("pgs", G, c, mu))


def test_admm_finds_the_answer(solved):
    """Sticking, sliding and separating contacts: the constructed percussions and velocities
    (the solution is unique: G is definite)."""
    k, res, lam = solved["ours"]
    assert k < ITERATIONS and res <= TOL
    assert np.abs(lam - solved["lam"]).max() <= 1e-9 * scale(solved["lam"])
    u = solved["G"] @ lam + solved["c"]
    assert np.abs(u - solved["u"]).max() <= 1e-9 * scale(solved["u"])


@pytest.mark.parametrize("kind", ["admm", "pgs"])
def test_pinocchios_solvers_give_the_same_percussions(solved, kind):
    """Pinocchio's ADMM converges on every problem, its PGS on all but one (see
    test_contact_solver.py: slide-separate-stick-slide-7); there Pinocchio's PGS, started
    from ADMM's answer, takes it as its solution (to 1e-11, ADMM's being to TOL in
    velocity) in 0 iterations."""
    ours = solved["ours"][2]
    ok, _, theirs = solved[kind]
    if not ok:
        assert kind == "pgs"
        ok, iterations, theirs = pin_solve(kind, solved["G"], solved["c"], solved["mu"],
                                           guess=ours, tol=1e-11)
        assert ok and iterations == 0
    assert np.abs(ours - theirs).max() <= AGREE * scale(theirs)


def test_a_warm_start_at_the_solution_takes_no_iteration(solved):
    """At the constructed answer (exact to rounding), one iteration changes nothing: 0, as
    Pinocchio's unittest asks. (From ADMM's own answer, converged to TOL, the first
    iteration's residual can be a few TOL: the warm start's dual velocity is projected on the
    dual cone but not made orthogonal to the percussion, admm.py's docstring.)"""
    lam = solved["lam"]
    k, res, again = admm_solve(solved["G"], solved["c"], solved["mu"], lam=lam)
    assert k == 0 and res <= TOL
    assert np.abs(again - lam).max() <= 1e-12 * scale(lam)


def test_a_warm_start_from_pinocchios_answer_converges_at_once(solved):
    """Pinocchio's solution is ours to its own tolerance: from it, a few iterations at most."""
    k, res, lam = admm_solve(solved["G"], solved["c"], solved["mu"], lam=solved["admm"][2])
    assert res <= TOL and k <= 50
    assert np.abs(lam - solved["lam"]).max() <= 1e-9 * scale(solved["lam"])


POLISHED = [["stick"], ["stick", "stick", "separate"], ["separate", "stick"], ["stick"] * 4]


@pytest.mark.parametrize("modes", POLISHED, ids=["-".join(c) for c in POLISHED])
@pytest.mark.parametrize("rows", [(), ("between", "upper", "lower")], ids=["contacts", "rows"])
def test_polishing_ends_the_iterations_on_the_answer(modes, rows):
    """admm.py's polish: after POLISH iterations, the exact solution on the active set the
    iterate shows (test_active_set's problems, built from their answer: sticking and
    separating contacts, 1-D rows between and at their bounds) is the answer to round-off.
    Without it these problems took 5 to 160 iterations to reach 1e-12 m/s, and the answer
    only to 1e-11."""
    from fastdyn.kernels.contact.admm import POLISH
    from test_active_set import with_rows
    G, c, mu, lo, hi, lam = with_rows(len(modes), modes, rows)
    k, res, x = admm_solve(G, c, mu, lo=lo, hi=hi)
    assert k <= POLISH and res <= 1e-14
    assert np.abs(x - lam).max() <= 1e-13 * scale(lam)
    k, res, x = admm_solve(G, c, mu, lo=lo, hi=hi, iterations=2)  # the last iterate's polish
    assert k == 2 and res <= 1e-14 and np.abs(x - lam).max() <= 1e-13 * scale(lam)


ROW_MODES = ("lower", "upper", "between")


@pytest.mark.parametrize("seed", range(6))
def test_bounded_rows_with_contacts(seed):
    """Contacts plus 1-D rows (joint limits: [0, inf); dry friction: [-b, b]), built from
    their answer as random_problem builds contacts: a row at its lower bound moves up
    (u > 0), at its upper bound down (u < 0), between its bounds not at all; a limit row that
    is not pressed separates. The answer is unique (G definite), so ADMM must find it."""
    rng = np.random.default_rng(100 + seed)
    modes = [str(x) for x in rng.choice(("stick", "slide", "separate"), 1 + seed % 3)]
    _, _, mu, lam0, u0 = random_problem(200 + seed, modes)
    nc, nb = len(modes), 4 + seed % 3
    m = 3 * nc + nb
    A = rng.normal(size=(m + 6, m + 6))
    J = rng.normal(size=(m, m + 6))
    G = J @ np.linalg.solve(A @ A.T + (m + 6) * np.eye(m + 6), J.T)
    G = 0.5 * (G + G.T)
    lam, u = np.zeros(m), np.zeros(m)
    lam[:3 * nc], u[:3 * nc] = lam0, u0  # contacts: random_problem's answer
    lo, hi = np.zeros(m), np.zeros(m)
    for r in range(3 * nc, m):
        limit = r % 2 == 0
        lo[r], hi[r] = (0.0, np.inf) if limit else (-rng.uniform(0.5, 2), rng.uniform(0.5, 2))
        mode = rng.choice(("lower", "between") if limit else ROW_MODES)
        if mode == "lower":
            lam[r], u[r] = lo[r], rng.uniform(0.1, 1.0)
        elif mode == "upper":
            lam[r], u[r] = hi[r], -rng.uniform(0.1, 1.0)
        else:
            lam[r] = rng.uniform(0.2, 1.0) * (1.0 if limit else rng.uniform(lo[r], hi[r]))
    c = u - G @ lam
    k, res, got = admm_solve(G, c, mu, lo=lo, hi=hi)
    assert k < ITERATIONS and res <= TOL
    assert np.abs(got - lam).max() <= 1e-9 * scale(lam)
    assert admm_solve(G, c, mu, lam=got, lo=lo, hi=hi)[0] == 0
    # Gauss-Seidel, an independent method, converges here too and agrees
    theirs = np.zeros(m)
    sweeps, _ = pgs(G, c, mu, nc, lo, hi, m, theirs, 1e-14, 100_000)
    assert sweeps < 100_000
    assert np.abs(theirs - lam).max() <= 1e-9 * scale(lam)


# --- Pinocchio's admm-solver unittest scenarios, with fastdyn's Jacobians ------------------

def test_ball_at_rest():
    p = step_problem(ball_model(), np.array([0, 0, 0.5, 0, 0, 0, 1.0]), ["ball"], 1)
    k, res, lam = admm_solve(p[0], p[1], [MU])
    assert res <= TOL
    assert total(lam, 1) == pytest.approx([10.0 * G0, 0, 0], rel=1e-8, abs=1e-8)
    assert np.abs(next_velocity(p, lam)).max() < 2e-10
    ok, _, theirs = pin_solve("admm", p[0], p[1], [MU])
    assert ok and np.abs(lam - theirs).max() <= AGREE * scale(theirs)
    assert admm_solve(p[0], p[1], [MU], lam=lam)[0] == 0


@pytest.mark.parametrize("angle", [0.0, 2.5])
@pytest.mark.parametrize("push", [0.9, 1.1])
def test_box_pushed_sticks_below_the_friction_bound_and_slides_above(push, angle):
    """As test_contact_solver's: 4 redundant corner contacts (G singular, rank 6 of 12), so
    totals and the next velocity are compared, not the split of the load."""
    p, lam = pushed_box(admm_solve, cubes_model([CUBE]), push, angle, TOL)
    assert admm_solve(p[0], p[1], [MU] * 4, lam=lam)[0] == 0


def test_stack_of_cubes_converges():
    """test_contact_solver's stack (10 cubes, 1e6 mass ratio, 40 contacts), where projected
    Gauss-Seidel stalls (its strict xfail): ADMM converges (measured: 32 iterations; Pinocchio's
    ADMM takes ~2,000), the bottom face carries the whole weight, nothing moves, and the totals
    are Pinocchio's."""
    masses, p = stack()
    k, res, lam = admm_solve(p[0], p[1], [MU] * 40, tol=1e-10, iterations=2000)
    assert res <= 1e-10, f"{k} iterations, residual {res:.3g} m/s"
    weight = masses.sum() * G0
    assert total(lam, 4) == pytest.approx([weight, 0, 0], rel=1e-6, abs=1e-6 * weight)
    assert np.abs(next_velocity(p, lam)).max() < 1e-8
    ok, _, theirs = pin_solve("admm", p[0], p[1], [MU] * 40, tol=1e-10)
    assert ok and total(lam, 4) == pytest.approx(total(theirs, 4), rel=1e-6,
                                                 abs=1e-6 * weight)


# --- in a scene ----------------------------------------------------------------------------

def test_scene_ball_at_rest_and_warm_start(ball):
    scene = fd.Scene(ball, dt=DT, mu=0.4, solver="admm")
    assert scene.solver == "admm"
    scene.add_sphere("base", 0.1)
    q, v = scene.step(pose(0.1), np.zeros(6))
    assert scene.contact_forces[0] == pytest.approx([0.0, 0.0, 2.0 * G0], rel=1e-7, abs=1e-9)
    assert np.abs(v).max() < 1e-9
    assert scene.stats[2] <= scene.tolerance
    scene.step(q, v)
    assert scene.stats[1] == 0  # warm-started at the solution: no iteration needed


@pytest.mark.parametrize("push", [0.9, 1.1])
def test_scene_box_pushed(box, push):
    """The box's 8 corners on the ground (4 touching, redundant), pushed at 0.9 or 1.1 mu m g
    for 0.5 s: it stays, or slides at the Coulomb rate without spin."""
    scene = fd.Scene(box, dt=DT, mu=MU, solver="admm")
    scene.add_box("base", (0.2, 0.2, 0.2))
    fext = np.zeros((box.njoints, 6))
    fext[1, 0] = push * MU * 1.5 * G0
    steps = 500
    out = scene.rollout(pose(0.1), np.zeros(6), steps, fext=fext, record=("contacts", "stats"))
    assert np.all(out.stats[:, 2] <= scene.tolerance)
    f = out.contact_forces[-1].sum(axis=0)
    assert f[2] == pytest.approx(1.5 * G0, rel=1e-6)
    if push < 1:
        assert np.abs(out.final_v).max() < 1e-6 and abs(out.final_q[0]) < 1e-6
    else:
        expected = (fext[1, 0] / 1.5 - MU * G0) * steps * DT
        # exact for semi-implicit Euler at a constant acceleration (reached: 4.8e-10, the
        # ADMM tolerance)
        assert out.final_v[0] == pytest.approx(expected, rel=5e-8)
        assert np.abs(out.final_v[3:]).max() < 1e-6 and abs(out.final_v[2]) < 1e-6
        assert f[0] == pytest.approx(-MU * f[2], rel=1e-6)


def test_scene_pendulum_rests_against_its_limit():
    """A joint-limit row (1-D, unilateral) through the scene: the limit torque equals
    gravity's, m g l cos q."""
    upper = 0.3
    scene = fd.Scene(pendulum(upper), dt=DT, ground=False, solver="admm")
    out = scene.rollout(np.array([upper - 0.05]), np.zeros(1), 2000, record=("q",))
    assert out.q.max() <= upper + 1e-6
    assert out.final_q[0] == pytest.approx(upper, abs=1e-6)
    scene.step(out.final_q, out.final_v)
    assert scene.constraint_tau[0] == pytest.approx(-1.0 * G0 * 0.5 * np.cos(upper), rel=1e-6)


def test_scene_dry_friction_holds():
    held = pendulum(np.inf).with_friction("hinge", 1.0 * G0 * 0.5 * 1.01)
    out = fd.Scene(held, dt=DT, ground=False, solver="admm").rollout(np.array([0.0]),
                                                                    np.zeros(1), 200)
    assert abs(out.final_q[0]) < 1e-9


def tower(n: int = 10, ratio: float = 1e6) -> tuple[fd.Model, np.ndarray]:
    """The cube stack's analogue in a scene: a 1 m cube of 1 g on the ground (a free-flyer,
    its 8 corners as contact points), carrying a column of n - 1 bodies up to 1 t (a 1e6
    mass ratio) on prismatic z joints, each resting on its lower limit (a 1-D limit row)."""
    masses = 1e-3 * ratio ** (np.arange(n) / (n - 1))
    b = fd.ModelBuilder("tower", gravity=(0.0, 0.0, -G0))
    j = b.add_joint("base", "freeflyer")
    b.add_body(j, masses[0], inertia=np.eye(3) * masses[0] / 6)
    for i in range(1, n):
        j = b.add_joint(f"lift{i}", "prismatic_z", parent=j, lower=0.0, upper=1.0)
        b.add_body(j, masses[i], inertia=np.eye(3) * masses[i] / 6)
    return b.build(), masses


@pytest.mark.parametrize("solver", ["admm", pytest.param("pgs", marks=pytest.mark.xfail(
    strict=True, reason="PGS stalls on the 1e6 mass ratio: after 200 steps of 1,000 sweeps "
    "the ground carries 7e-7 of the weight, the limits are 2 mm deep, the base has risen "
    "4 cm"))])
def test_a_tower_with_a_1e6_mass_ratio_stands(solver):
    """200 steps from rest: the ground carries the whole weight, no limit is entered, nothing
    moves, every step's solve reaches the tolerance (measured with ADMM: 8 iterations a step
    on average; ground force 1 + 2e-7 of the weight, limits 8e-7 deep, from the compliance
    and the Baumgarte-like correction)."""
    model, masses = tower()
    q0 = np.zeros(model.nq)
    q0[2], q0[6] = 0.5, 1.0
    scene = fd.Scene(model, dt=DT, mu=0.8, solver=solver, iterations=1000)
    scene.add_box("base", (1.0, 1.0, 1.0))
    out = scene.rollout(q0, np.zeros(model.nv), 200, record=("q", "contacts", "stats"))
    assert out.contact_forces[-1, :, 2].sum() == pytest.approx(masses.sum() * G0, rel=1e-5)
    assert out.q[:, 7:].min() > -1e-5
    assert np.abs(out.final_q - q0).max() < 1e-5
    assert np.all(out.stats[:, 2] <= scene.tolerance)


def test_quadruped_dropped_stands_and_agrees_with_pgs():
    """The quadruped dropped from 0.3 m under PD stands on its 4 feet with its weight on
    them; its feet's contact problem has a unique solution (G definite), so PGS and ADMM, each
    to its tolerance, simulate the same motion."""
    model, q0, feet, (kp, kd) = standing_quadruped()
    q0 = q0.copy()
    q0[2] += 0.3
    outs = {}
    for solver in ("pgs", "admm"):
        scene = fd.Scene(model, dt=DT, solver=solver)
        for f in feet:
            scene.add_sphere(f, 0.016)
        outs[solver] = scene.rollout(q0, np.zeros(model.nv), 2000, kp=kp, kd=kd,
                                     record=("contacts",))
    F = outs["admm"].contact_forces[-1]
    assert F[:, 2].sum() == pytest.approx(model.mass.sum() * G0, rel=5e-3)
    assert np.all(np.hypot(F[:, 0], F[:, 1]) <= 0.8 * F[:, 2] * (1 + 1e-9))
    assert np.abs(outs["admm"].final_v).max() < 1e-3
    assert np.abs(fd.difference(model, outs["pgs"].final_q, outs["admm"].final_q)).max() < 1e-6


def test_unknown_solver_is_refused(ball):
    with pytest.raises(ValueError, match=r"solver must be one of \('pgs', 'admm'\), got 'lcp'"):
        fd.Scene(ball, solver="lcp")
    scene = fd.Scene(ball)
    assert scene.solver == "pgs"
    with pytest.raises(ValueError, match="solver must be one of"):
        scene.solver = 1
    assert scene.solver == "pgs"


def test_a_non_finite_problem_returns_nan_without_hanging():
    """NaN in G (a diverging state upstream): the residual says so, the call returns (the
    factorization's retry loop is bounded); time_step then reports the rollout diverged."""
    G, c, mu, _, _ = random_problem(0, ["stick", "slide"])
    G[1, 1] = np.nan
    k, res, _ = admm_solve(G, c, mu, iterations=50)
    assert np.isnan(res)
    c[0] = np.nan
    k, res, _ = admm_solve(np.nan_to_num(G), c, mu, iterations=50)
    assert np.isnan(res) and k <= 50
