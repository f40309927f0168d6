"""The contact solver's start on a guessed active set (kernels/contact/active_set.py) and
the step's PGS that tries it (time_step._pgs), on random problems built from their answer
(test_contact_solver.random_problem: G = J M^-1 J^T, chosen percussions and velocities of
sticking, sliding and separating contacts), plus 1-D rows between and at their bounds.

The known answer is the oracle: the start from the answer's active set must give it (to
round-off), a sliding contact must not be guessed, a wrong active set must never be kept, and
PGS with its tries must still find the answer; where no try is kept, its iterates are PGS's
own to the bit."""

import numpy as np
import pytest

from fastdyn.kernels import layout as L
from fastdyn.kernels.contact.active_set import active_set_start
from fastdyn.kernels.contact.admm import work_size
from fastdyn.kernels.contact.pgs import pgs
from fastdyn.kernels.contact.time_step import _pgs
from test_contact_solver import random_problem

TOL = 1e-13


def with_rows(seed: int, modes, rows=("between", "upper")):
    """random_problem's contacts and 1-D rows (between: lo < lam < hi, u = 0; upper: lam =
    hi, u < 0; lower: lam = lo, u > 0), with G rebuilt so that it stays definite."""
    rng = np.random.default_rng(100 + seed)
    nc = len(modes)
    m = 3 * nc + len(rows)
    nv = m + 6
    A = rng.normal(size=(nv, nv))
    Jc = rng.normal(size=(m, nv))
    G = Jc @ np.linalg.solve(A @ A.T + nv * np.eye(nv), Jc.T)
    G = 0.5 * (G + G.T)
    G0, _, mu, lam0, u0 = random_problem(seed, modes)
    lam, u = np.zeros(m), np.zeros(m)
    lam[:3 * nc], u[:3 * nc] = lam0, u0
    lo, hi = np.zeros(m), np.zeros(m)
    for j, kind in enumerate(rows):
        r = 3 * nc + j
        lo[r], hi[r] = -1.0, 2.0
        lam[r] = {"between": 0.7, "upper": 2.0, "lower": -1.0}[kind]
        u[r] = {"between": 0.0, "upper": -0.3, "lower": 0.4}[kind]
    return G, u - G @ lam, mu, lo, hi, lam


def start(G, c, mu, lo, hi, lam):
    m = G.shape[0]
    x = np.array(lam, dtype=float)
    ok = active_set_start(G, c, mu, len(mu), lo, hi, m, x, np.full(work_size(m), np.nan))
    return ok, x


def step_pgs(G, c, mu, lo, hi, lam, iterations=100_000):
    m = G.shape[0]
    opt = np.zeros(L.NO)
    opt[L.O_TOL], opt[L.O_ITERATIONS] = TOL, iterations
    x = np.array(lam, dtype=float)
    sweeps, res = _pgs(G, c, mu, len(mu), lo, hi, m, x, opt, np.zeros(work_size(m)))
    return sweeps, res, x


CASES = [["stick"], ["stick", "stick", "separate"], ["separate", "stick"],
         ["stick", "stick", "stick", "stick"]]


@pytest.mark.parametrize("modes", CASES, ids=["-".join(c) for c in CASES])
@pytest.mark.parametrize("rows", [(), ("between", "upper", "lower")], ids=["contacts", "rows"])
def test_the_answers_active_set_gives_the_answer(modes, rows):
    G, c, mu, lo, hi, lam = with_rows(len(modes), modes, rows)
    rng = np.random.default_rng(1)
    guess = lam.copy()
    for i, mode in enumerate(modes):  # anywhere in the same active set
        if mode == "stick":
            guess[3 * i] *= rng.uniform(0.5, 1.5)
            guess[3 * i + 1:3 * i + 3] *= rng.uniform(0.0, 0.5)
    for j, kind in enumerate(rows):
        if kind == "between":
            guess[3 * len(modes) + j] = 0.1
    ok, x = start(G, c, mu, lo, hi, guess)
    assert ok
    assert np.abs(x - lam).max() <= 1e-10 * max(1.0, np.abs(lam).max())
    assert pgs(G, c, mu, len(mu), lo, hi, G.shape[0], x, TOL, 1)[0] == 0  # no sweep moves it


def test_a_sliding_contact_is_not_guessed():
    G, c, mu, lo, hi, lam = with_rows(5, ["stick", "slide"], ())
    ok, x = start(G, c, mu, lo, hi, lam)
    assert not ok and np.array_equal(x, lam)


@pytest.mark.parametrize("wrong", ["sticking taken as apart", "apart taken as sticking",
                                   "interior row taken at a bound", "row at a bound taken inside"])
def test_a_wrong_active_set_is_pivoted_to_the_answer_or_refused(wrong):
    """A guess with one row in the wrong class: block pivoting reaches the answer, which the
    check sweep leaves as it is (before pivoting, the start solved the wrong system or
    refused). The step's PGS finds the answer too."""
    G, c, mu, lo, hi, lam = with_rows(3, ["stick", "stick", "separate"], ("between", "upper"))
    guess = lam.copy()
    if wrong == "sticking taken as apart":
        guess[3:6] = 0.0
    elif wrong == "apart taken as sticking":
        guess[6:9] = (0.1, 0.0, 0.0)
    elif wrong == "interior row taken at a bound":
        guess[9] = hi[9]
    else:
        guess[10] = 0.5 * (lo[10] + hi[10])
    ok, x = start(G, c, mu, lo, hi, guess)
    assert ok
    assert np.abs(x - lam).max() <= 1e-8 * np.abs(lam).max()
    assert pgs(G, c, mu, len(mu), lo, hi, G.shape[0], x, TOL, 1)[0] == 0
    _, res, x = step_pgs(G, c, mu, lo, hi, guess)
    assert res <= TOL
    assert np.abs(x - lam).max() <= 1e-8 * np.abs(lam).max()


@pytest.mark.parametrize("seed", range(6))
def test_the_steps_pgs_finds_every_answer(seed):
    """Mixed problems (sliding included), cold: the answer to the solver's tolerance."""
    modes = [["stick", "slide", "separate"], ["slide", "slide"], ["stick", "stick"],
             ["separate", "slide", "stick", "stick"], ["stick"], ["slide"]][seed]
    G, c, mu, lo, hi, lam = with_rows(seed, modes, ("between", "lower"))
    sweeps, res, x = step_pgs(G, c, mu, lo, hi, np.zeros_like(lam))
    assert res <= TOL and sweeps < 100_000
    assert np.abs(x - lam).max() <= 1e-8 * np.abs(lam).max()


def test_without_a_kept_try_the_iterates_are_pgs_own():
    """Sliding contacts only (never guessed): the step's PGS, in runs of 1, 1, 2, 4, ...
    sweeps, is the one call of pgs: the same percussions to the bit, the same count."""
    G, c, mu, lo, hi, lam = with_rows(4, ["slide", "slide", "slide"], ())
    m = G.shape[0]
    for iterations in (1, 3, 50, 100_000):
        ref = np.zeros(m)
        k, res = pgs(G, c, mu, len(mu), lo, hi, m, ref, TOL, iterations)
        sweeps, res2, x = step_pgs(G, c, mu, lo, hi, np.zeros(m), iterations)
        assert (sweeps, res2) == (k, res) and np.array_equal(x, ref)
