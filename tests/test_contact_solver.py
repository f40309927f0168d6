"""The contact solver (kernels/contact/pgs.py) against Pinocchio 4's own contact solvers,
``pin.PGSConstraintSolver`` and ``pin.ADMMConstraintSolver``, on the same Delassus matrix G and
drift c, and against the physics of Pinocchio's unittest/admm-solver.cpp scenarios.

Both sides solve the same friction NCP (pgs.py's docstring; Pinocchio with ``solve_ncp =
True``, De Saxce's correction): u = G lam + c, lam_i in the Coulomb cone of contact i, u_i plus
the De Saxce term in its dual, orthogonal to lam_i. Pinocchio orders a frictional point's
components (t1, t2, n), normal LAST; fastdyn's rows are (n, t1, t2), normal FIRST: ``PIN``
permutes. Pinocchio's solvers only read the cones (friction coefficients and sizes) from the
constraint models when G is given: ``pin_solve`` hangs each cone on a PointContactConstraintModel
of a one-body placeholder model.

Random problems are built from their answer: G = J M^-1 J^T (random SPD M, random J with 3
rows per contact and more dofs than rows, so G is definite), and for each contact a chosen
percussion and velocity: sticking (lam strictly inside the cone, u = 0), sliding (lam on the
cone's boundary, u_n = 0, u_t opposite lam_t) or separating (lam = 0, u_n > 0); then
c = u - G lam. The scenarios take G and c from fastdyn's own Jacobians (frames at the contact
points, ``fd.compute_frame_jacobian`` in LOCAL_WORLD_ALIGNED) and mass matrix (``fd.crba``), rigid
(no compliance, as Pinocchio's test), with the free velocity of one step of dt = 1 ms.
"""

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.kernels.contact.pgs import pgs

pin = pytest.importorskip("pinocchio")
if not hasattr(pin, "ADMMConstraintSolver"):
    pytest.skip("needs Pinocchio >= 4 (its contact solvers)", allow_module_level=True)

G0 = 9.81
DT = 1e-3
MU = 0.4  # Pinocchio's admm-solver unittest
TOL = 1e-14  # our PGS: largest change per sweep, as a velocity [m/s]
PIN_TOL = 1e-13  # Pinocchio: absolute feasibility and complementarity
SWEEPS = 200_000
AGREE = 1e-6  # percussions, relative to the largest


def perm(nc: int) -> np.ndarray:
    """Pinocchio's row k is our row perm[k]: (t1, t2, n) per contact from our (n, t1, t2)."""
    return np.array([3 * i + k for i in range(nc) for k in (1, 2, 0)])


_placeholder = pin.Model()
_placeholder.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "body")


def pin_solve(kind: str, G, c, mu, guess=None, tol: float = PIN_TOL):
    """(converged, iterations, lam in OUR row order) from Pinocchio's PGS or ADMM."""
    nc = len(mu)
    p = perm(nc)
    models, datas = pin.StdVec_ConstraintModel(), pin.StdVec_ConstraintData()
    for m in mu:
        cm = pin.PointContactConstraintModel(_placeholder, 1)
        cm.setFriction(float(m))
        models.append(pin.ConstraintModel(cm))
        datas.append(models[-1].createData())
    if kind == "pgs":
        solver, settings, result = (pin.PGSConstraintSolver(3 * nc), pin.PGSSolverSettings(),
                                    pin.PGSSolverResult())
    else:
        solver, settings, result = (pin.ADMMConstraintSolver(3 * nc), pin.ADMMSolverSettings(),
                                    pin.ADMMSolverResult())
        settings.lanczos_size = 3 * nc
    settings.solve_ncp = True
    settings.max_iterations = 100_000
    settings.absolute_feasibility_tol = settings.absolute_complementarity_tol = tol
    settings.relative_feasibility_tol = settings.relative_complementarity_tol = tol / 10
    if guess is not None:
        result.setConstraintImpulseGuess(np.asarray(guess)[p])
    ok = solver.solve(pin.DelassusOperatorDense(np.ascontiguousarray(G[np.ix_(p, p)])),
                      np.ascontiguousarray(c[p]), models, datas, settings, result)
    lam = np.empty(3 * nc)
    lam[p] = result.retrieveConstraintImpulses()
    return ok, result.iterations, lam


def our_solve(G, c, mu, lam=None, tol: float = TOL, sweeps: int = SWEEPS):
    """(sweeps, residual, lam) from fastdyn's PGS, cold or from ``lam``."""
    m = G.shape[0]
    lam = np.zeros(m) if lam is None else np.array(lam, dtype=float)
    mu = np.asarray(mu, dtype=float)
    k, res = pgs(np.ascontiguousarray(G), np.ascontiguousarray(c), mu, len(mu), np.zeros(m),
                 np.zeros(m), m, lam, tol, sweeps)
    return k, res, lam


# --- random problems with a known answer ---------------------------------------------------

MODES = ("stick", "slide", "separate")


def cases():
    """(id, nc, modes): each mode alone for 1 and 3 contacts, then mixes of 1 to 4."""
    out = [(f"{nc}x{m}", [m] * nc) for nc in (1, 3) for m in MODES]
    rng = np.random.default_rng(7)
    for k in range(12):
        modes = ["separate"]
        while modes.count("separate") == len(modes):  # at least one contact pressed
            modes = [str(x) for x in rng.choice(MODES, 1 + k % 4)]
        out.append(("-".join(modes) + f"-{k}", modes))
    return out


CASES = cases()


def random_problem(seed: int, modes):
    """(G, c, mu, lam*, u*): a well-posed problem whose answer is lam* with velocity u*."""
    rng = np.random.default_rng(seed)
    nc = len(modes)
    m, nv = 3 * len(modes), 3 * len(modes) + 6
    A = rng.normal(size=(nv, nv))
    M = A @ A.T + nv * np.eye(nv)
    J = rng.normal(size=(m, nv))
    G = J @ np.linalg.solve(M, J.T)
    G = 0.5 * (G + G.T)
    mu = rng.uniform(0.2, 1.0, nc)
    lam, u = np.zeros(m), np.zeros(m)
    for i, mode in enumerate(modes):
        n = 3 * i
        a = rng.uniform(0, 2 * np.pi)
        d = np.array([np.cos(a), np.sin(a)])
        if mode == "separate":
            u[n] = rng.uniform(0.1, 1.0)
            u[n + 1:n + 3] = rng.normal(size=2)
            continue
        lam[n] = rng.uniform(0.5, 2.0)
        if mode == "stick":
            lam[n + 1:n + 3] = rng.uniform(0.0, 0.8) * mu[i] * lam[n] * d
        else:
            lam[n + 1:n + 3] = mu[i] * lam[n] * d
            u[n + 1:n + 3] = -rng.uniform(0.1, 1.0) * d
    return G, u - G @ lam, mu, lam, u


@pytest.fixture(scope="module", params=range(len(CASES)), ids=[c[0] for c in CASES])
def solved(request):
    G, c, mu, lam, u = random_problem(request.param, CASES[request.param][1])
    return dict(G=G, c=c, mu=mu, lam=lam, u=u, ours=our_solve(G, c, mu),
                pgs=pin_solve("pgs", G, c, mu), admm=pin_solve("admm", G, c, mu))


def scale(lam) -> float:
    return max(1.0, float(np.abs(lam).max()))


def test_our_pgs_finds_the_answer(solved):
    k, res, lam = solved["ours"]
    assert k < SWEEPS and res <= TOL
    assert np.abs(lam - solved["lam"]).max() <= AGREE * scale(solved["lam"])
    u = solved["G"] @ lam + solved["c"]
    assert np.abs(u - solved["u"]).max() <= AGREE * scale(solved["u"])


@pytest.mark.parametrize("kind", ["pgs", "admm"])
def test_pinocchio_solvers_give_the_same_percussions(solved, kind):
    """Cold, Pinocchio's ADMM converges on every problem and its PGS on all but one
    (slide-separate-stick-slide-7: 100,000 iterations end far from the answer, a pressed
    contact still approaching); there Pinocchio's PGS is started from ours, and takes it as
    its solution in 0 iterations."""
    ok, _, theirs = solved[kind]
    ours = solved["ours"][2]
    if ok:
        assert np.abs(ours - theirs).max() <= AGREE * scale(theirs)
    else:
        assert kind == "pgs"
        ok, iterations, theirs = pin_solve(kind, solved["G"], solved["c"], solved["mu"],
                                           guess=ours)
        assert ok and iterations == 0
        assert np.abs(ours - theirs).max() <= 1e-12 * scale(ours)


def test_a_warm_start_at_the_solution_takes_no_sweep(solved):
    lam = solved["ours"][2]
    k, res, again = our_solve(solved["G"], solved["c"], solved["mu"], lam=lam)
    assert k == 0 and res <= TOL
    assert np.abs(again - lam).max() <= 1e-12 * scale(lam)
    ok, iterations, _ = pin_solve("admm", solved["G"], solved["c"], solved["mu"], guess=lam)
    assert ok and iterations == 0  # Pinocchio agrees that it is the solution


def test_a_nan_in_the_problem_is_reported_not_taken_for_convergence(solved):
    """A NaN in c (or G) makes the residual NaN: the solver stops at once and says so
    (Python's max(0.0, nan) is 0.0, which read as converged at the first sweep)."""
    for which in ("c", "G"):
        G, c = solved["G"].copy(), solved["c"].copy()
        (c if which == "c" else G)[0] = np.nan
        k, res, _ = our_solve(G, c, solved["mu"])
        assert np.isnan(res) and k == 1, which


# --- Pinocchio's admm-solver unittest scenarios, with fastdyn's Jacobians ------------------

CORNERS = ((1, 1), (-1, 1), (-1, -1), (1, -1))


def ball_model(mass: float = 10.0, radius: float = 0.5) -> fd.Model:
    b = fd.ModelBuilder("ball", gravity=(0.0, 0.0, -G0))
    j = b.add_joint("ball", "freeflyer")
    b.add_body(j, mass, inertia=np.eye(3) * 0.4 * mass * radius ** 2)
    b.add_frame("ball_bottom0", j, (np.eye(3), np.array([0.0, 0.0, -radius])))
    return b.build()


def cubes_model(masses) -> fd.Model:
    """Unit cubes on free-flyers, frames at their 4 bottom and 4 top corners."""
    b = fd.ModelBuilder("cubes", gravity=(0.0, 0.0, -G0))
    for i, m in enumerate(masses):
        j = b.add_joint(f"cube{i}", "freeflyer")
        b.add_body(j, m, inertia=np.eye(3) * m / 6)
        for k, (x, y) in enumerate(CORNERS):
            for side, z in (("bottom", -0.5), ("top", 0.5)):
                b.add_frame(f"cube{i}_{side}{k}", j, (np.eye(3), np.array([0.5 * x, 0.5 * y, z])))
    return b.build()


def step_problem(model, q, bodies, points, fext=None):
    """(G, c, J, M, v_free) of one step from rest at q: contact k between body bodies[k]'s
    ``{body}_bottom{k % points}`` frame and the body below (the ground for the first), rows
    (z, x, y) = (n, t1, t2) as the simulator's ground; G = J M^-1 J^T, c = J v_free with
    v_free = dt ABA(q, 0, 0, fext)."""
    data = model.create_data()
    rows = []
    for i, body in enumerate(bodies):
        for k in range(points):
            J = fd.compute_frame_jacobian(model, data, q, f"{body}_bottom{k}",
                                  fd.LOCAL_WORLD_ALIGNED)[:3].copy()
            if i > 0:
                J -= fd.compute_frame_jacobian(model, data, q, f"{bodies[i - 1]}_top{k}",
                                       fd.LOCAL_WORLD_ALIGNED)[:3]
            rows += [J[2], J[0], J[1]]
    J = np.array(rows)
    M = fd.crba(model, data, q).copy()
    vfree = DT * fd.aba(model, data, q, np.zeros(model.nv), np.zeros(model.nv), fext)
    G = J @ np.linalg.solve(M, J.T)
    return 0.5 * (G + G.T), J @ vfree, J, M, vfree


def next_velocity(p, lam):
    _, _, J, M, vfree = p
    return vfree + np.linalg.solve(M, J.T @ lam)


def total(lam, contacts) -> np.ndarray:
    """The summed force (n, t1, t2) of the first ``contacts`` contacts [N]."""
    return lam[:3 * contacts].reshape(contacts, 3).sum(axis=0) / DT


def test_ball_at_rest():
    """The impulse over dt is m g, the next velocity zero; a warm start takes no sweep."""
    model = ball_model()
    p = step_problem(model, np.array([0, 0, 0.5, 0, 0, 0, 1.0]), ["ball"], 1)
    k, res, lam = our_solve(p[0], p[1], [MU])
    assert res <= TOL
    assert total(lam, 1) == pytest.approx([10.0 * G0, 0, 0], rel=1e-8, abs=1e-8)
    assert np.abs(next_velocity(p, lam)).max() < 2e-10
    ok, _, theirs = pin_solve("admm", p[0], p[1], [MU])
    assert ok and np.abs(lam - theirs).max() <= AGREE * scale(theirs)
    assert our_solve(p[0], p[1], [MU], lam=lam)[0] == 0


CUBE = 10.0


@pytest.fixture(scope="module")
def cube():
    return cubes_model([CUBE])


def pushed_box(solve, cube, push, angle, tol=TOL):
    """The pushed cube's problem solved by ``solve`` (our_solve's signature, its residual
    <= tol) and checked: the totals and the next velocity against the friction bound and
    Pinocchio's ADMM. Returns (problem, lam)."""
    d = np.array([np.cos(angle), np.sin(angle)])
    fext = np.zeros((2, 6))
    fext[1, :2] = push * MU * CUBE * G0 * d
    p = step_problem(cube, np.array([0, 0, 0.5, 0, 0, 0, 1.0]), ["cube0"], 4, fext)
    k, res, lam = solve(p[0], p[1], [MU] * 4)
    assert res <= tol
    v = next_velocity(p, lam)
    f = total(lam, 4)
    if push < 1:
        assert f == pytest.approx([CUBE * G0, *(-fext[1, :2])], rel=1e-6, abs=1e-6)
        assert np.abs(v).max() < 1e-8
    else:
        assert f == pytest.approx([CUBE * G0, *(-fext[1, :2] / push)], rel=1e-6, abs=1e-6)
        assert np.linalg.norm(v[:3]) == pytest.approx((push - 1) * MU * G0 * DT, abs=1e-6)
        assert v[:2] @ d > 0 and np.abs(v[3:]).max() < 1e-6
    ok, _, theirs = pin_solve("admm", p[0], p[1], [MU] * 4)
    assert ok
    assert np.abs(total(theirs, 4) - f).max() <= AGREE * CUBE * G0
    assert np.abs(next_velocity(p, theirs) - v).max() < 1e-9
    return p, lam


@pytest.mark.parametrize("angle", [0.0, 0.7, 2.5, 4.0])
@pytest.mark.parametrize("push", [0.9, 1.1])
def test_box_pushed_sticks_below_the_friction_bound_and_slides_above(cube, push, angle):
    """A unit cube on its 4 bottom corners pushed horizontally at its centre with push x mu m
    g: below the bound it stays (the corners carry m g and the push), above it slides at
    (push - 1) mu g dt after one step, with no spin. The 4 corners are redundant (G has rank
    6 of 12): how the load splits between them is not unique, so both solvers are compared
    on the totals and the next velocity, as Pinocchio's test does."""
    pushed_box(our_solve, cube, push, angle)


def stack(n: int = 10, ratio: float = 1e6):
    masses = 1e-3 * ratio ** (np.arange(n) / (n - 1))
    model = cubes_model(masses)
    q = np.concatenate([[0, 0, 0.5 + i, 0, 0, 0, 1.0] for i in range(n)])
    return masses, step_problem(model, q, [f"cube{i}" for i in range(n)], 4)


@pytest.fixture(scope="module")
def stack_of_cubes():
    masses, p = stack()
    ok, iterations, lam = pin_solve("admm", p[0], p[1], [MU] * 40, tol=1e-10)
    return masses, p, (ok, iterations, lam)


def test_stack_of_cubes_stays_under_pinocchios_admm(stack_of_cubes):
    """10 unit cubes, 1 g at the bottom to 1 t at the top (a 1e6 mass ratio), 4 corner
    contacts per face: Pinocchio's ADMM on fastdyn's G and c holds the stack (the bottom face
    carries the whole weight, nothing moves), which checks the problem fastdyn builds."""
    masses, p, (ok, _, lam) = stack_of_cubes
    assert ok
    weight = masses.sum() * G0
    assert total(lam, 4) == pytest.approx([weight, 0, 0], rel=1e-6, abs=1e-6 * weight)
    assert np.abs(next_velocity(p, lam)).max() < 1e-8


# Measured (cold start): 200 sweeps (the Scene's default) leave residual 1.1e-2 m/s and 0.01 %
# of the weight on the bottom face; 10,000 sweeps 1.1e-2 m/s and 0.5 %, cubes still falling at
# up to 9.8e-3 m/s after the step; 1,000,000 sweeps (5 s) 6.4e-3 m/s and 41 %. Pinocchio's ADMM
# converges in ~2,000 iterations; Pinocchio's PGS does not either (5 % after 100,000).
# fastdyn's ADMM (Scene(solver="admm")) does: tests/test_admm.py::test_stack_of_cubes_converges.
@pytest.mark.xfail(strict=True, reason="PGS does not converge on the 1e6 mass-ratio stack: "
                   "10,000 sweeps leave residual 1.1e-2 m/s, 0.5 % of the weight carried")
def test_stack_of_cubes_our_pgs_converges(stack_of_cubes):
    masses, p, (_, _, theirs) = stack_of_cubes
    k, res, lam = our_solve(p[0], p[1], [MU] * 40, tol=1e-10, sweeps=10_000)
    assert res <= 1e-10, f"{k} sweeps, residual {res:.3g} m/s"
    assert total(lam, 4) == pytest.approx(total(theirs, 4), rel=1e-6)
    assert np.abs(next_velocity(p, lam)).max() < 1e-8
