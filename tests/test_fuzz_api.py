"""Fuzzing the public API's arguments: every mutant gives a clear error or the clean answer.

The machinery and the table of mutations (which are converted, which refused) live in
tests/fuzz_api.py; this file picks the cases. The default run takes a bounded, seeded sample
(``small_cases``: a few hundred cases, the known-weak mutations always in); the ``slow`` run
takes every mutation of every argument on every sample model, for three seeds. A failure prints
the call, the argument, the mutation, the model, the seed and a command reproducing it.

Also here: the pickle / deepcopy round trip of a (model, data) pair and a Data from a model of
another size (both directions), checked against Pinocchio; and self-tests of the oracle, so that
a harness that let everything pass would be caught.
"""

import copy
import pickle

import numpy as np
import pytest

import fastdyn as fd
import fuzz_api as fz
from conftest import close, get_pair, random_state

pin = pytest.importorskip("pinocchio")

CALL_NAMES = [c.name for c in fz.CALLS]


def _run(cases):
    fails = fz.run_cases(cases)
    assert not fails, fz.format_failures(fails)


@pytest.mark.parametrize("call", CALL_NAMES)
def test_fuzz_small(call):
    """A seeded sample of mutants of ``call``'s arguments (fz.small_cases)."""
    _run(fz.small_cases(fz.CALLS_BY_NAME[call]))


@pytest.mark.slow
@pytest.mark.parametrize("call", CALL_NAMES)
def test_fuzz_large(call):
    """Every mutation of every argument of ``call``, on every sample model it applies to."""
    _run(fz.cases_for(fz.CALLS_BY_NAME[call], seeds=(0, 1, 2)))


def test_small_run_is_bounded_and_covers_every_call():
    """The default run stays a few hundred cases and mutates every argument of every call."""
    total = 0
    for c in fz.CALLS:
        cases = fz.small_cases(c)
        total += len(cases)
        args = {a.name for a in c.args if not a.hidden}
        assert {k.arg for k in cases} == args or len(cases) == 8, c.name
    assert 200 <= total <= 800  # (752 with the constrained-dynamics calls)


def test_every_public_callable_is_fuzzed():
    """A function added to fastdyn.__all__, fastdyn.batch or fastdyn.representations without a
    row in fz.CALLS fails here, so the fuzz suite keeps up with the API."""
    covered = set(CALL_NAMES)
    public = {n for n in fd.__all__ if callable(getattr(fd, n)) and not isinstance(
        getattr(fd, n), type) or n in ("Data",)}
    public |= {f"batch.{n}" for n in ("rnea", "aba", "crba", "forward_kinematics", "simulate")}
    public |= {f"representations.{n}" for n in fd.representations.__all__
               if callable(getattr(fd.representations, n))}
    public |= {f"Model.{n}" for n in ("joint_id", "frame_id", "joint_type", "create_data")}
    public |= {"ModelBuilder.add_joint"}
    public -= {"ModelBuilder", "Model", "SingularMassMatrixError", "URDFError"}
    assert public - covered == set()


# --- pickled, deep-copied and foreign Data -----------------------------------------------------

@pytest.mark.parametrize("name", ["manipulator", "humanoid"])
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_copied_model_data_pair_works_with_rnea(name, how):
    """A (model, data) pair sent through pickle (multiprocessing does this) or deep-copied
    must compute the same torques as Pinocchio on the original state."""
    m, pm = get_pair(name)
    d = m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(7))
    fd.rnea(m, d, q, v, a)  # the copy carries a used Data, not a fresh one
    m2, d2 = pickle.loads(pickle.dumps((m, d))) if how == "pickle" else copy.deepcopy((m, d))
    tau = fd.rnea(m2, d2, q, v, a).copy()
    close(tau, pin.rnea(pm, pm.createData(), q, v, a))
    close(fd.aba(m2, d2, q, v, tau), a)  # and the pair keeps working for another algorithm


@pytest.mark.parametrize("model_of, data_of", [("manipulator", "humanoid"),
                                               ("humanoid", "manipulator")])
@pytest.mark.parametrize("algo", ["rnea", "aba", "crba"])
def test_data_of_another_model_is_refused(model_of, data_of, algo):
    """A Data sized for another model must be refused with a ValueError naming the Data, never
    read or written out of bounds, and the right Data must still work afterwards."""
    m, pm = get_pair(model_of)
    other = get_pair(data_of)[0].create_data()
    q, v, a = random_state(pm, np.random.default_rng(3))
    args = {"rnea": (q, v, a), "aba": (q, v, a), "crba": (q,)}[algo]
    with pytest.raises(ValueError, match="Data"):
        getattr(fd, algo)(m, other, *args)
    ref = {"rnea": lambda: pin.rnea(pm, pm.createData(), q, v, a),
           "aba": lambda: pin.aba(pm, pm.createData(), q, v, a),
           "crba": lambda: _sym(pin.crba(pm, pm.createData(), q))}[algo]()
    close(getattr(fd, algo)(m, m.create_data(), *args), ref)


def _sym(M):
    return np.triu(M) + np.triu(M, 1).T


# --- the oracle itself ------------------------------------------------------------------------

def _fake(fn, args):
    return fz.Call("fake", fn, args, models=("manipulator",))


def _verdict(call, arg, mutation):
    fz.CALLS_BY_NAME[call.name] = call
    try:
        return fz.run_case(fz.Case(call.name, "manipulator", arg, mutation, 0))
    finally:
        del fz.CALLS_BY_NAME[call.name]


def test_oracle_catches_silent_truncation_of_float_indices():
    call = _fake(lambda model, frame: np.array(model.frm[int(frame)]["p"]),
                 [fz.MODEL(), fz.FRAME()])
    assert "accepted it" in _verdict(call, "frame", "float_1.7")


def test_oracle_catches_nan_answers_and_unclear_errors():
    def nan_rnea(model, data, q, v):  # pretends v = 1e200 is fine and returns NaN
        v = np.asarray(v, dtype=float)
        return np.full(model.nv, np.nan) if np.abs(v).max() > 1e100 else v * 2

    call = _fake(nan_rnea, [fz.MODEL(), fz.DATA(), fz.Q(), fz.V()])
    assert "non-finite" in _verdict(call, "v", "huge")
    assert "non-finite answer" in _verdict(call, "v", "nan")
    assert _verdict(call, "v", "list") is None  # the harmless mutant passes
    assert "AttributeError" in _verdict(
        _fake(lambda model, data: data.model_token, [fz.MODEL(), fz.DATA()]), "data", "none")


def test_oracle_wants_the_argument_named():
    def vague(model, q):
        q = np.asarray(q)
        if q.shape != (model.nq,):
            raise ValueError("bad shape")
        return q

    assert "names neither" in _verdict(_fake(vague, [fz.MODEL(), fz.Q()]), "q", "short")

    def named(model, q):
        q = np.asarray(q)
        if q.shape != (model.nq,):
            raise ValueError(f"q must have shape ({model.nq},)")
        return q

    assert _verdict(_fake(named, [fz.MODEL(), fz.Q()]), "q", "short") is None
    assert not fz._mentions_word("a", "v must be a real array")  # the article is not `a`
    assert fz._mentions_word("a", "a has non-finite entries")
