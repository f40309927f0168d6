"""Reliability of the simulator (fastdyn.Scene): no failure passes as "ok". Each test here
failed on the code before the fix it names: joint limits crossed at large time steps, steps
whose solver stopped at its cap reported "ok", a raising policy run on with stale torques, a
rollout's recording allocated whatever its size, a Scene shared between threads undocumented.

Truths are independent of the solver: a limit is a closed-form bound on q; a rollout whose
steps all converged equals, to the tolerance, the same rollout solved with many more
iterations; a policy that raises at step k leaves the steps before it as the same policy that
does not raise.
"""

import copy
import threading
import warnings

import numba
import numpy as np
import pytest

import fastdyn as fd
from fastdyn.kernels import layout as L
from fastdyn.sim.scene import ConvergenceWarning, RolloutWarning


@pytest.fixture(scope="module")
def ur5():
    return fd.models.load("ur5")


def _past_limits(model, q):
    """How far (rad) the recorded q (..., nq) of a model of bounded revolute joints goes
    past its position limits, at worst (negative: inside)."""
    lo = model.prm[1:, L.P_Q_LOWER]
    hi = model.prm[1:, L.P_Q_UPPER]
    return float(np.nanmax(np.maximum(lo - q, q - hi)))


# --- joint limits at any time step -------------------------------------------------------

@pytest.mark.parametrize("dt", [0.02, 0.1, 0.5])
@pytest.mark.parametrize("solver", ["pgs", "admm"])
def test_ur5_limits_hold_at_large_time_steps(ur5, dt, solver):
    """The UR5 (limits +-2 pi) falling under gravity, no control, 5 s. Before the fix a limit
    row entered a step only when the joint's own free velocity crossed it, so the other
    joints' limit percussions pushed it through: 0.10 rad past at dt = 0.02, 300 rad at
    0.5, a divergence at 0.1, every rollout "ok". Now the end-of-step q stays within the
    bounds to round-off (7e-13 rad measured), and the limits are reached (the test bites)."""
    scene = fd.Scene(ur5, dt=dt, ground=False, solver=solver)
    out = scene.rollout(np.zeros(6), np.zeros(6), int(round(5.0 / dt)), record=("q",))
    assert out.status == "ok", out.failures
    assert _past_limits(ur5, out.q) <= 1e-10
    assert _past_limits(ur5, out.q) > -1e-6  # some joint sits on its limit


def test_limit_pushed_by_another_rows_percussion_becomes_a_row(ur5):
    """Single cold steps (``step`` after ``reset``) at dt = 0.5 from the states of the falling
    UR5, where joints clear of their limits by their own free velocity are pushed through
    them by other joints' limit percussions (M couples them): each step's q is within the
    bounds (before the fix: up to 300 rad past)."""
    scene = fd.Scene(ur5, dt=0.5, ground=False)
    out = scene.rollout(np.zeros(6), np.zeros(6), 10, record=("q", "v"))
    worst = 0.0
    for k in range(10):
        scene.reset()
        q, _ = scene.step(out.q[k], out.v[k])
        worst = max(worst, _past_limits(ur5, q))
    assert worst <= 1e-10


def test_step_derivatives_follow_the_limit_rows_the_step_added(ur5):
    """The step derivatives classify the rows the step solved, those added for limits that
    other rows pushed included: at the falling UR5's states (dt = 0.5, 2 to 9 limit rows,
    joints sitting on their limits, where the derivative is one-sided) each column of A
    matches the forward or the backward difference of ``step`` (1e-4 relative measured, the
    differences' own error at eps = 1e-7)."""
    scene = fd.Scene(ur5, dt=0.5, ground=False)
    out = scene.rollout(np.zeros(6), np.zeros(6), 6, record=("q", "v"))
    eps = 1e-7
    for k in range(1, 6):
        q, v = out.q[k], out.v[k]
        A, _ = scene.step_derivatives(q, v, np.zeros(6))
        scene.reset()
        x0 = np.concatenate(scene.step(q, v))
        for j in range(12):
            d = np.zeros(12)
            d[j] = eps
            sides = []
            for s in (1.0, -1.0):
                scene.reset()
                x = np.concatenate(scene.step(q + s * d[:6], v + s * d[6:]))
                sides.append(s * (x - x0) / eps)
            scale = max(1.0, np.abs(sides[0]).max())
            assert min(np.abs(A[:, j] - f).max() for f in sides) < 1e-3 * scale, (k, j)


# --- a solver stopped at its cap is reported ------------------------------------------------

@pytest.mark.parametrize("solver,iterations", [("pgs", 2), ("pgs", 3), ("admm", 1)])
def test_a_step_stopped_at_its_cap_is_never_ok(ur5, solver, iterations):
    """The same falling UR5 at dt = 0.1 with the solver capped at a few iterations: its
    limits end 4e-3 to 2.6 rad past (a closed-form bound the test checks itself), so some
    step did not solve its equations; before the fix the rollout said "ok". Now it runs to
    the end as "unconverged", with a ConvergenceWarning and a reason that names the cap."""
    scene = fd.Scene(ur5, dt=0.1, ground=False, solver=solver, iterations=iterations)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        out = scene.rollout(np.zeros((2, 6)), np.zeros((2, 6)), 50, record=("q", "stats"))
    assert _past_limits(ur5, out.q) > 1e-6  # the truth: these steps are not solved
    assert list(out.status) == ["unconverged"] * 2
    assert f"{iterations}-" in out.failures[0] and "cap" in out.failures[0]
    assert np.isfinite(out.final_q).all()  # it ran to the end
    tol = scene.tolerance
    assert (out.stats[..., 2] > tol).any()


def test_ok_means_the_same_as_a_converged_solve(ur5):
    """A rollout is "ok" only when it is the converged rollout: capped runs either say
    "unconverged" or equal, to the tolerance, the run with the default 200 iterations."""
    ref = fd.Scene(ur5, dt=0.1, ground=False).rollout(np.zeros(6), np.zeros(6), 30)
    assert ref.status == "ok"
    for iterations in (1, 2, 3, 5, 10, 20):
        scene = fd.Scene(ur5, dt=0.1, ground=False, iterations=iterations)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RolloutWarning)
            out = scene.rollout(np.zeros(6), np.zeros(6), 30)
        if out.status == "ok":
            assert np.abs(out.final_q - ref.final_q).max() < 1e-8, iterations
        else:
            assert out.status in ("unconverged", "diverged")


def test_step_warns_when_its_solver_stops_at_its_cap(ur5):
    scene = fd.Scene(ur5, dt=0.1, ground=False, iterations=2)
    q, v = np.zeros(6), np.zeros(6)
    seen = []
    for _ in range(50):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            q, v = scene.step(q, v)
        seen += [(str(x.message), scene.stats[2]) for x in w
                 if issubclass(x.category, ConvergenceWarning)]
    assert seen
    message, residual = seen[0]
    assert "the step did not converge" in message and "2-sweep cap" in message
    assert residual > scene.tolerance


def test_soft_contacts_stopped_at_the_cap_are_reported():
    """Issue 36: a soft-contact rollout at PGS's 200-sweep cap passed silently. A box (8
    corner points) sliding onto a soft ground: with one sweep per step, or with PGS's
    default 200 on 4 of its 200 steps (the sliding corners), the residual stays above the
    tolerance, and the rollout says so; with 2000 sweeps it converges, says "ok", and ends
    where ADMM's converged rollout ends (the truth the "ok" is checked against)."""
    b = fd.ModelBuilder("box", gravity=(0.0, 0.0, -9.81))
    b.add_joint("base", "freeflyer")
    b.add_body("base", 1.5, inertia=np.eye(3) * 1.5 * 0.08 / 12)
    box = b.build()
    q0 = np.array([0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0])
    v0 = np.array([0.3, 0.0, 0.0, 0.0, 0.0, 0.0])
    final = {}
    for solver, iterations, expected in (("pgs", 1, "unconverged"),
                                         ("pgs", 200, "unconverged"),
                                         ("pgs", 2000, "ok"), ("admm", 200, "ok")):
        scene = fd.Scene(box, dt=2e-3, solref=(0.02, 1.0), iterations=iterations,
                         solver=solver)
        scene.add_box("base", (0.2, 0.2, 0.2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RolloutWarning)
            out = scene.rollout(q0, v0, 200, record=("stats",))
        assert out.status == expected, (solver, iterations, out.failures)
        assert (out.stats[:, 0] > 0).any()  # it did touch
        final[solver, iterations] = out.final_q
    assert np.abs(final["pgs", 2000] - final["admm", 200]).max() < 1e-8


# --- a raising policy ------------------------------------------------------------------------

@numba.njit
def _raises_at_five(r, k, t, q, v, args, tau):
    if r == args[0] and k == 5:
        raise ValueError("the policy's own message")
    for j in range(tau.shape[0]):
        tau[j] = -2.0 * v[j]


def test_a_raising_policy_stops_its_rollout_with_the_message(capfd):
    """Before the fix numba printed "Exception ignored" and the step went on with the torques
    of step 4: every rollout "ok". Now rollout 1 stops at step 5 with status "raised" and
    the exception's type and message; the others run as the policy that never raises."""
    m = fd.samples.double_pendulum()
    scene = fd.Scene(m, dt=1e-3, ground=False)
    Q0 = np.tile(fd.neutral(m) + 0.3, (3, 1))
    with pytest.warns(RolloutWarning, match="ValueError: the policy's own message"):
        out = scene.rollout(Q0, np.zeros((3, m.nv)), 12, policy=_raises_at_five,
                            policy_args=(1,), record=("q",))
    ref = scene.rollout(Q0, np.zeros((3, m.nv)), 12, policy=_raises_at_five,
                        policy_args=(-1,), record=("q",))
    assert list(out.status) == ["ok", "raised", "ok"]
    assert list(ref.status) == ["ok"] * 3
    assert "step 5" in out.failures[1] and "ValueError" in out.failures[1]
    np.testing.assert_array_equal(out.q[[0, 2]], ref.q[[0, 2]])
    np.testing.assert_array_equal(out.q[1, :6], ref.q[1, :6])  # up to the state of step 5
    assert np.isnan(out.q[1, 6:]).all()
    assert "Exception ignored" not in capfd.readouterr().err


# --- the size of a recording ----------------------------------------------------------------

def test_a_recording_larger_than_memory_is_refused_before_it_is_allocated(ur5):
    """Rollouts allocated every recorded array up front, whatever its size. A recording of
    petabytes is refused with the size and what to record instead, before any step."""
    scene = fd.Scene(ur5, ground=False)
    steps = 10 ** 11
    need = 8.0 * 2 * (steps + 1) * (6 + 6) / 1e9
    with pytest.raises(MemoryError, match="record less") as e:
        scene.rollout(np.zeros((2, 6)), np.zeros((2, 6)), steps, record=("q", "v"))
    assert f"{need:.1f} GB" in str(e.value)


# --- threads --------------------------------------------------------------------------------

def test_a_scene_is_one_threads_and_its_copies_step_alike(ur5):
    """``step`` carries the warm start from call to call: the docs say that a Scene is not
    shared between threads, and a deep copy per thread steps as the original does."""
    assert "not shared between" in fd.Scene.__doc__ and "thread" in fd.Scene.step.__doc__
    scene = fd.Scene(ur5, dt=0.1, ground=False)

    def run(sc, out, i):
        q, v = np.zeros(6), np.zeros(6)
        for _ in range(20):
            q, v = sc.step(q, v)
        out[i] = q

    serial = [None]
    run(copy.deepcopy(scene), serial, 0)
    out = [None, None]
    threads = [threading.Thread(target=run, args=(copy.deepcopy(scene), out, i))
               for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(out[0], serial[0])
    np.testing.assert_array_equal(out[1], serial[0])


EDGES = [0.0, -1.0, -0.0, 1e-300, 1e-12, 0.5, 1.0, 1.5, 1e300, np.inf, -np.inf, np.nan]
FLOAT_OPTIONS = ("dt", "mu", "restitution", "erp", "regularization", "tolerance", "margin",
                 "bounce_speed", "impratio")


def test_fuzzed_scene_options_give_a_scene_or_an_error_that_names_them():
    """A seeded fuzz of the simulator's options at the edges of their ranges (0, negative,
    denormal, huge, inf, NaN; iterations that are not positive integers; unknown solvers and
    integrators), one or two at a time: either the Scene refuses with a ValueError or TypeError
    naming the option, or it builds and a dropped ball's 20-step rollout ends with a status and,
    when "ok", a finite state. Nothing else: no other exception, no NaN passing as "ok". (The
    60 trials: 38 refusals, 21 "ok", 1 "diverged".)"""
    from test_simulator import free_body, pose
    ball = free_body("ball", 2.0, np.eye(3) * 0.008)
    rng = np.random.default_rng(34)
    for trial in range(60):
        kw = {}
        for name in rng.choice(FLOAT_OPTIONS, size=rng.integers(1, 3), replace=False):
            kw[str(name)] = float(rng.choice(EDGES))
        if rng.random() < 0.3:
            kw["iterations"] = [0, -1, 1, 2.5, True, "9", 10 ** 9][rng.integers(7)]
        if rng.random() < 0.15:
            kw["solver"] = ["pgs", "admm", "newton", None][rng.integers(4)]
        try:
            scene = fd.Scene(ball, **kw)
            scene.add_sphere("base", 0.1)
        except (ValueError, TypeError) as e:
            assert any(k in str(e) for k in kw), (trial, kw, str(e))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # RolloutWarning: the status says it too
            out = scene.rollout(pose(0.3), np.zeros(6), 20)
        status = out.status if np.ndim(out.status) else np.array([out.status])
        assert status[0] in ("ok", "unconverged", "diverged", "singular"), (trial, kw, status)
        if status[0] == "ok":
            assert np.isfinite(out.final_q).all() and np.isfinite(out.final_v).all(), (trial, kw)
