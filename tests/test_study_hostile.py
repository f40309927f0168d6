"""Hostile samplers: a study refuses a sample that is not a robot, whatever it computes.

Each study quantity (InverseDynamics, Rollouts, AtStates rnea / aba / crba) is run with a
sampler that spoils one body of one sample: a negative mass, a NaN, an inertia whose
principal moments break the triangle inequality. The one check every quantity goes through
(``fastdyn.parameters.check_physical``, on each slice a study computes) must refuse it with a
ValueError naming the sample and the joint whose body it is. Before that check, the regressor
path of InverseDynamics took any numbers and put their torques in the quantiles.

Then a small seeded fuzz over what a sampler may return (wrong shape, dtype, NaN, negative,
huge): the documented error (TypeError, ValueError and its NumericalOverflowError) or a
result that is each sample's own, never another exception.
"""

import numpy as np
import pytest

import fastdyn as fd
from fastdyn import study
from fastdyn.builder import dynamic_parameters

BAD = 1030  # the spoiled sample: in the second block of samples
N = 1100


@pytest.fixture(scope="module")
def arm():
    return fd.models.load("ur5")


def quantities(model):
    Q = np.stack([fd.random_configuration(model, k) for k in range(3)])
    rng = np.random.default_rng(0)
    V, A = rng.normal(size=(2, 3, model.nv))
    return {
        "InverseDynamics": study.InverseDynamics(Q, V, A),
        "Rollouts": study.Rollouts(Q[0], V[0], 3),
        "AtStates-rnea": study.AtStates(Q, V, A),
        "AtStates-aba": study.AtStates(Q, V, A, quantity="aba"),
        "AtStates-crba": study.AtStates(Q, quantity="crba"),
    }


def _triangle(pi):
    """A body whose principal moments about the com are (1, 1, 3) kg m^2: I1 + I2 < I3."""
    return dynamic_parameters(pi[0], pi[1:4] / pi[0], np.diag([1.0, 1.0, 3.0]))


SPOIL = {  # how one body is spoiled, and what the refusal says
    "negative mass": (lambda pi: np.concatenate([[-5.0], pi[1:]]), "negative mass"),
    "NaN": (lambda pi: np.where(np.arange(10) == 7, np.nan, pi), "pi is not finite"),
    "triangle inequality": (_triangle, "triangle inequality"),
}


class Spoiled(study.ParameterSampler):
    """The model's own sampler, with body ``joint`` of sample BAD spoiled by ``how``."""

    def __init__(self, model, how, joint=3, **spread):
        self.how, self.joint = how, joint
        super().__init__(model, **spread)

    def sample(self, rng, n):
        pi = super().sample(rng, n)
        if n == study.BLOCK and rng.bit_generator.seed_seq.entropy == [0, BAD // study.BLOCK]:
            row = pi[BAD % study.BLOCK, self.joint - 1]
            row[:] = self.how(row.copy())
        return pi


@pytest.mark.parametrize("spoil", sorted(SPOIL))
@pytest.mark.parametrize("what", ["InverseDynamics", "Rollouts", "AtStates-rnea",
                                  "AtStates-aba", "AtStates-crba"])
def test_every_quantity_refuses_a_body_that_is_not_a_body(arm, what, spoil):
    how, says = SPOIL[spoil]
    sampler = Spoiled(arm, how, mass=0.1, com=0.01, inertia=0.2)
    computation = quantities(arm)[what]
    joint = arm.joint_names[3]
    with pytest.raises(ValueError, match=rf"study \(seed 0\) sample {BAD}: pi: joint "
                                         rf"'{joint}': .*{says}"):
        study.run(arm, sampler, computation, n=N, seed=0)
    # the same study without the spoiled sample runs, and the check costs nothing it needs
    res = study.run(arm, sampler, computation, n=BAD, seed=0)
    assert res.n == BAD and all(np.isfinite(x).all() for x in res.quantiles.values())


def test_a_massless_body_with_rotational_inertia_is_a_body(arm):
    """Massless bodies the model has (and sample_parameters leaves alone) pass the check;
    a first moment without mass does not."""
    from fastdyn.parameters import check_physical
    pi = np.array(np.broadcast_to(arm.params["pi"][1:], (2, arm.njoints - 1, 10)))
    pi[0, 0] = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0]  # a flywheel's, say
    pi[0, 1] = 0.0  # nothing at all
    check_physical(arm, pi)
    pi[1, 2, :4] = [0.0, 0.1, 0.0, 0.0]
    with pytest.raises(ValueError, match="row 1: pi: joint 'elbow_joint': not a rigid body"):
        check_physical(arm, pi)


# --- fuzz ----------------------------------------------------------------------------------

USED = 20  # samples each fuzzed study computes


def _hostile(rng, model):
    """One hostile output of sampler.sample(rng, BLOCK): (array, "shape" | "dtype" | None);
    None: the numbers are to be judged (_robots)."""
    good = fd.sample_parameters(model, study.BLOCK, rng, mass=0.1, com=0.01, inertia=0.2)
    kind = int(rng.integers(9))
    s, j = int(rng.integers(USED + 5)), int(rng.integers(model.njoints - 1))
    if kind == 0:
        return good[:, :-1], "shape"
    if kind == 1:
        return good.astype(np.complex128), "dtype"
    if kind == 2:
        return good.astype(str), "dtype"
    if kind == 3:
        return good.astype(np.float32), None  # converted: a fine robot
    if kind == 4:
        good[s, j, int(rng.integers(10))] = rng.choice([np.nan, np.inf, -np.inf])
    elif kind == 5:
        good[s, j, 0] = -rng.uniform(1e-9, 10)
    elif kind == 6:
        good[s, j, 4 + int(rng.integers(6))] *= -1e3  # a moment or a product gone wild
    elif kind == 7:  # huge but a real body: its results overflow, or are finite
        good[s, j] *= 10.0 ** rng.uniform(100, 300)
    return good, None


def _robots(pi):
    """Per sample, whether every body is a rigid body's: NumPy's eigenvalues (not the
    kernel's minors) of the second moments about the com, to 1e-9 of their trace."""
    from fastdyn.parameters import is_physically_consistent
    pi = np.asarray(pi, dtype=np.float64)
    finite = np.isfinite(pi).all(axis=-1)
    safe = np.where(finite[..., None], pi, 0.0)
    m = safe[..., 0]
    tol = 1e-9 * 0.5 * (safe[..., 4] + safe[..., 6] + safe[..., 9])
    massive = is_physically_consistent(np.where((m > 0)[..., None], safe, 1.0), tol=tol)
    I = safe[..., [4, 5, 7, 5, 6, 8, 7, 8, 9]].reshape(safe.shape[:-1] + (3, 3))
    S = 0.5 * np.trace(I, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - I
    massless = (safe[..., 1:4] == 0).all(axis=-1) & (np.linalg.eigvalsh(S)[..., 0] >= -tol)
    body = finite & (m >= 0) & np.where(m > 0, massive, massless)
    return body.all(axis=-1)


def test_fuzz_sampler_outputs(arm):
    rng = np.random.default_rng(34)
    whats = list(quantities(arm).values())
    for trial in range(30):
        pi, broken = _hostile(rng, arm)

        class Fuzzed(study.ParameterSampler):
            def sample(self, rng, n):
                return pi

        what = whats[trial % len(whats)]
        robots = None if broken else _robots(pi[:USED])
        try:
            res = study.run(arm, Fuzzed(arm), what, n=USED, seed=0)
        except (TypeError, ValueError) as e:  # ValueError includes NumericalOverflowError
            msg = str(e)
            if broken:
                assert "Fuzzed.sample(rng, 1024)" in msg, msg
            elif not robots.all():
                assert f"sample {int(np.flatnonzero(~robots)[0])}: pi: joint" in msg, msg
            else:  # real bodies, only too heavy for float64
                assert isinstance(e, fd.NumericalOverflowError), msg
            continue
        assert not broken and robots.all(), (trial, what)
        assert np.array_equal(res.params, np.asarray(pi[:USED], dtype=np.float64))
        stopped = ~res.outputs["ok"] if "ok" in res.outputs else np.zeros(USED, bool)
        for name, x in res.outputs.items():  # finite, but for a rollout that stopped
            assert x.dtype == np.bool_ or np.isfinite(x[~stopped]).all(), (trial, name)
