"""Reliability under processes, threads and hostile values: each test here failed on the code
before the fix it names (a crash, a hang, an abort, or a silently wrong number).

Worker-process tests run real multiprocessing pools (spawn and fork); the threading-layer
tests run in fresh interpreters with a timeout, since the failures they guard against are a
hang and a process abort.
"""

import copy
import multiprocessing as mp
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fastdyn as fd


@pytest.fixture(scope="module")
def small():
    return fd.samples.double_pendulum()


@pytest.fixture(scope="module")
def big():
    return fd.samples.humanoid()


def _state(m, seed=0):
    rng = np.random.default_rng(seed)
    return fd.random_configuration(m, seed), rng.normal(size=m.nv), rng.normal(size=m.nv)


# --- a Data and its model, across pickling, copying and processes --------------------------

def test_pickled_and_deep_copied_pairs_work(big):
    d = big.create_data()
    q, v, a = _state(big)
    ref = fd.rnea(big, big.create_data(), q, v, a).copy()
    for m2, d2 in (pickle.loads(pickle.dumps((big, d))), copy.deepcopy((big, d))):
        np.testing.assert_array_equal(fd.rnea(m2, d2, q, v, a), ref)
        np.testing.assert_array_equal(fd.rnea(m2, d, q, v, a), ref)  # the original Data too


def test_tokens_are_unique_across_processes(small):
    """A per-process counter gave the first model of every process the same token."""
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        theirs = pool.apply(_first_token)
    assert theirs != small.token != fd.samples.double_pendulum().token


def _first_token():
    return fd.samples.double_pendulum().token


def _rnea_in_worker(model, pickled_data):
    """Hand a model (built here, or pickled elsewhere) a Data pickled elsewhere."""
    m = model() if callable(model) else pickle.loads(model)
    data = pickle.loads(pickled_data)
    q, v, a = _state(m)
    try:
        fd.rnea(m, data, q, v, a)
    except ValueError as e:
        return str(e)
    return "accepted"


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_workers_refuse_a_data_of_another_model(method, small, big):
    """The segfault of the report: a worker's humanoid accepted a double pendulum's Data.
    Both ways, with the model built in the worker or pickled; and the model's own Data,
    pickled apart from it, is accepted."""
    if method not in mp.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    with mp.get_context(method).Pool(1) as pool:
        for model, other in ((fd.samples.humanoid, small), (fd.samples.double_pendulum, big),
                             (pickle.dumps(big), small), (pickle.dumps(small), big)):
            said = pool.apply(_rnea_in_worker, (model, pickle.dumps(other.create_data())))
            assert "was not created by" in said, said
        said = pool.apply(_rnea_in_worker, (pickle.dumps(big), pickle.dumps(big.create_data())))
        assert said == "accepted", said


def test_unpickled_data_with_wrong_shapes_is_refused(big):
    d = big.create_data()
    assert pickle.loads(pickle.dumps(d)).nv == big.nv
    d.tau = np.zeros(2)  # a damaged Data, pickled as it is
    with pytest.raises(ValueError, match="tau"):
        pickle.loads(pickle.dumps(d))


def test_a_rebound_data_array_is_refused_before_any_write(big):
    d = big.create_data()
    q, v, a = _state(big)
    d.tau = np.zeros(2)
    with pytest.raises(ValueError, match="do not fit"):
        fd.rnea(big, d, q, v, a)
    d = big.create_data()
    d.ws = np.zeros((2, d.ws.shape[1]))
    for call in (lambda: fd.aba(big, d, q, v, a), lambda: fd.crba(big, d, q),
                 lambda: fd.forward_kinematics(big, d, q)):
        with pytest.raises(ValueError, match="do not fit"):
            call()


@pytest.mark.parametrize("bad", [None, "data", 3])
def test_wrong_object_for_data_or_model_is_a_type_error(big, bad):
    q, v, a = _state(big)
    with pytest.raises(TypeError, match="data must be a fastdyn.Data"):
        fd.rnea(big, bad, q, v, a)
    with pytest.raises(TypeError, match="model must be a fastdyn.Model"):
        fd.aba(bad, big.create_data(), q, v, a)
    with pytest.raises(TypeError, match="model must be a fastdyn.Model"):
        fd.Data(bad)


def test_a_pinocchio_model_is_a_type_error(big):
    pin = pytest.importorskip("pinocchio")
    q, v, a = _state(big)
    with pytest.raises(TypeError, match="pinocchio"):
        fd.rnea(pin.Model(), big.create_data(), q, v, a)


# --- threading layers: fork after a batch, concurrent launches ----------------------------

def _run(script: str, env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung for {timeout} s (the defect this test guards against)")


def _layer_env(layer: str) -> dict:
    return dict(os.environ, NUMBA_THREADING_LAYER=layer, NUMBA_NUM_THREADS="2")


POOL_AFTER_BATCH = """
    import multiprocessing as mp, warnings
    import numba, numpy as np
    import fastdyn as fd

    m = fd.samples.manipulator()
    Q = np.array([fd.random_configuration(m, s) for s in range(64)])
    V, A = np.ones((64, m.nv)), np.zeros((64, m.nv))
    ref = fd.batch.rnea(m, Q, V, A)
    print("layer", numba.threading_layer())

    def work(k):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = fd.batch.rnea(m, Q, V, A)
        return np.array_equal(out, ref), [type(x.message).__name__ for x in w]

    with mp.get_context("fork").Pool(2) as pool:
        print("results", pool.map(work, range(4)))
"""


def test_a_fork_pool_after_a_batch_finishes():
    """GNU OpenMP hangs a child forked after a parallel region: fastdyn runs the child's
    batches on one thread instead, warns, and gives the same rows."""
    out = _run(POOL_AFTER_BATCH, _layer_env("omp"), timeout=240)
    if out.returncode != 0 and "threading layer" in out.stderr.lower():
        pytest.skip("numba's omp threading layer is not available here")
    assert out.returncode == 0, out.stderr
    assert "layer omp" in out.stdout
    results = out.stdout.split("results", 1)[1]
    assert results.count("True") == 4 and "False" not in results, out.stdout
    assert "ForkedSerialWarning" in results, out.stdout


CONCURRENT = """
    import threading
    import numpy as np
    import fastdyn as fd

    m = fd.samples.manipulator()
    Q = np.array([fd.random_configuration(m, s) for s in range(256)])
    V, A = np.ones((256, m.nv)), np.zeros((256, m.nv))
    ref = fd.batch.rnea(m, Q, V, A)
    same = []

    def hammer():
        for _ in range(200):
            same.append(np.array_equal(fd.batch.rnea(m, Q, V, A), ref))

    threads = [threading.Thread(target=hammer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(len(same), all(same))
"""


def test_concurrent_batches_on_the_workqueue_layer():
    """workqueue aborts the process when two threads launch at once; fastdyn serializes."""
    out = _run(CONCURRENT, _layer_env("workqueue"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["400", "True"], out.stdout


# --- silently wrong answers ----------------------------------------------------------------

def test_gravity_cannot_be_made_nan_in_place(small):
    with pytest.raises(ValueError, match="read-only"):
        small.gravity[2] = np.nan
    g = small.gravity.copy()
    small.gravity = (0.0, 0.0, -1.62)  # the setter still writes in place
    try:
        assert small.gravity[2] == -1.62
    finally:
        small.gravity = g


def test_cholesky_solve_checks_out(big):
    d = big.create_data()
    q, v, b = _state(big)
    fd.crba(big, d, q)
    fd.cholesky(big, d)
    want = np.linalg.solve(d.M, b)
    for out, err in ((np.zeros(big.nv, dtype=np.int64), TypeError),
                     (np.zeros(big.nv, dtype=np.float32), TypeError),
                     (np.zeros(big.nv + 1), ValueError), (np.zeros(2 * big.nv)[::2], ValueError),
                     ([0.0] * big.nv, TypeError)):
        with pytest.raises(err, match="out must be"):
            fd.cholesky_solve(big, d, b, out=out)
    out = np.zeros(big.nv)
    assert fd.cholesky_solve(big, d, b, out=out) is out
    np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-12)


def test_overflow_is_an_error_not_nan(big):
    d = big.create_data()
    q, v, a = _state(big)
    tau = fd.rnea(big, d, q, v, a).copy()
    huge = np.full(big.nv, 1e200)
    with pytest.raises(fd.NumericalOverflowError, match=r"overflow.*\|v\| = 1e\+200"):
        fd.rnea(big, d, q, huge, a)
    with pytest.raises(fd.NumericalOverflowError, match="overflow"):
        fd.aba(big, d, q, huge, tau)
    with pytest.raises(fd.NumericalOverflowError, match="overflow"):
        fd.compute_kinetic_energy(big, d, q, huge)
    assert issubclass(fd.NumericalOverflowError, ValueError)
    Q, V, A = np.array([q] * 4), np.array([v] * 4), np.array([a] * 4)
    V[2] = huge
    for call, x in ((fd.batch.rnea, A), (fd.batch.aba, np.array([tau] * 4))):
        with pytest.raises(fd.NumericalOverflowError, match="row 2: overflow"):
            call(big, Q, V, x)


def test_a_singular_model_is_still_called_singular():
    b = fd.ModelBuilder("massless")
    b.add_joint("j", "revolute_z", parent=0)
    m = b.build()
    with pytest.raises(fd.SingularMassMatrixError, match="not positive definite"):
        fd.aba(m, m.create_data(), np.zeros(1), np.zeros(1), np.zeros(1))
    with pytest.raises(fd.SingularMassMatrixError, match="row 0"):
        fd.batch.aba(m, np.zeros((2, 1)), np.zeros((2, 1)), np.zeros((2, 1)))


def test_a_diverging_rollout_says_it_diverged(small):
    q, v, _ = _state(small)
    torques = np.full((50, small.nv), 1e305)
    with pytest.raises(fd.NumericalOverflowError, match="diverged at step"):
        fd.simulate(small, q, v, torques, 0.01)
    with pytest.raises(fd.NumericalOverflowError, match="rollout 1 .*diverged at step"):
        fd.batch.simulate(small, np.array([q, q]), np.array([v, v]),
                          np.stack([np.zeros_like(torques), torques]), 0.01)


@pytest.mark.parametrize("index", [1.7, -0.9, 2.0, True, np.float64(1.0), "1"])
def test_float_and_bool_indices_are_refused(big, index):
    d = big.create_data()
    fd.forward_kinematics(big, d, fd.neutral(big))
    err = KeyError if isinstance(index, str) else TypeError
    with pytest.raises(err):
        fd.frame_placement(big, d, index)
    with pytest.raises(err):
        fd.joint_placement(big, d, index)
    assert np.array_equal(fd.frame_placement(big, d, np.int64(2)), fd.frame_placement(big, d, 2))


def _tampered_npz(model, path, key, change):
    fd.save_npz(model, path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays[key])
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("key, change, message", [
    ("jnt.nq", lambda x: x.__setitem__(0, 3), "universe"),
    ("jnt.idx_v", lambda x: x.__setitem__(0, 1), "universe"),
    ("frm.R", lambda x: x.__setitem__((1, 0, 0), 2.0), "rotation"),
    ("prm.R", lambda x: x.__setitem__(1, np.diag([1.0, 1.0, -1.0])), "rotation"),
    ("prm.damping", lambda x: x.__setitem__((1, 0), np.nan), "damping"),
    ("prm.q_upper", lambda x: x.__setitem__((1, 0), np.nan), "q_upper"),
    ("prm.effort_max", lambda x: x.__setitem__((1, 0), np.nan), "effort_max"),
    ("gravity", lambda x: x.__setitem__(0, np.nan), "gravity"),
    ("prm.p", lambda x: None, None),  # untouched: loads
])
def test_load_npz_checks_what_the_kernels_trust(tmp_path, small, key, change, message):
    path = _tampered_npz(small, tmp_path / "m.npz", key, change)
    if message is None:
        assert fd.load_npz(path).nv == small.nv
        return
    with pytest.raises(ValueError, match=message):
        fd.load_npz(path)


def test_load_npz_refuses_a_field_of_the_wrong_shape(tmp_path, small):
    path = tmp_path / "m.npz"
    fd.save_npz(small, path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["prm.p"] = arrays["prm.p"][:, :2]
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match="prm.p"):
        fd.load_npz(path)


def test_a_misspelt_frame_is_named_before_staleness(big):
    d = big.create_data()
    q, v, a = _state(big)
    fd.rnea(big, d, q, v, a)  # leaves no world placements: a frame query would be stale
    with pytest.raises(KeyError, match="no frame named 'tool00'"):
        fd.frame_placement(big, d, "tool00")
    with pytest.raises(RuntimeError, match="forward_kinematics"):
        fd.frame_placement(big, d, big.frame_names[1])


def test_help_of_batch_lists_functions_not_array_docs():
    import pydoc
    text = pydoc.render_doc(fd.batch, renderer=pydoc.plaintext)
    assert "def rnea" in text or "rnea(model" in text
    assert "NO_FORCES" not in text and "EMPTY" not in text
