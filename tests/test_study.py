"""Monte Carlo studies on one machine (fastdyn/study/__init__.py), checked against computations
that do not go through the study: RNEA per sample on that sample's own model (fd.rnea on
model.with_parameters), Pinocchio with the sample's inertias set through pin.Inertia,
Scene.rollout per sample, NumPy's mean and quantiles on the raw samples.
The Dask runs are in test_study_dask.py."""

import importlib.util
import os
import signal
import threading
import time

import numba
import numpy as np
import pytest

import fastdyn as fd
from fastdyn._internal import memory as _memory
from fastdyn import study
from fastdyn._internal import slices
from conftest import close, get_pair, needs_pinocchio, pin

SPREAD = dict(mass=0.1, com=0.01, inertia=0.2)


@pytest.fixture(scope="module")
def arm():
    return fd.models.load("ur5")


@pytest.fixture(scope="module")
def tree():
    """A free-flyer tree of every joint type, with rotor inertias (the armature term)."""
    return fd.samples.random_tree(10, seed=4, root="freeflyer")


def states(model, T: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    Q = np.stack([fd.random_configuration(model, seed + k) for k in range(T)])
    return Q, rng.normal(size=(T, model.nv)), rng.normal(size=(T, model.nv))


def sample_model(model, pi):
    """Sample pi's robot as a Model of its own (the single-call path, no study code)."""
    return model.with_parameters(fd.parameter_batch(model, pi=pi[None])[0])


def rnea_along(model, Q, V, A):
    data = model.create_data()
    return np.array([fd.rnea(model, data, q, v, a).copy() for q, v, a in zip(Q, V, A)])


@pytest.mark.parametrize("name", ["arm", "tree"])
def test_inverse_dynamics_is_rnea_of_each_sample(name, request):
    model = request.getfixturevalue(name)
    Q, V, A = states(model, 50)
    sampler = study.ParameterSampler(model, **SPREAD)
    res = study.run(model, sampler, study.InverseDynamics(Q, V, A, every=1), n=40, seed=7)
    assert res.params.shape == (40, model.njoints - 1, 10)
    assert res["tau"].shape == (40, 50, model.nv)
    if name == "tree":
        assert model.armature.max() > 0  # the term the regressor leaves out is added back
    for s in (0, 17, 39):
        tau = rnea_along(sample_model(model, res.params[s]), Q, V, A)
        close(res["tau"][s], tau, 1e-10)
        close(res["peak"][s], np.abs(tau).max(axis=0), 1e-10)
        close(res["rms"][s], np.sqrt((tau ** 2).mean(axis=0)), 1e-10)


def test_inverse_dynamics_matches_pinocchio():
    needs_pinocchio()
    model, pm = get_pair("ur5")  # example-robot-data's UR5, parsed by Pinocchio itself
    Q, V, A = states(model, 20, seed=3)
    sampler = study.ParameterSampler(model, **SPREAD)
    res = study.run(model, sampler, study.InverseDynamics(Q, V, A, every=1), n=5, seed=11)
    for s in range(5):
        twin = pin.Model(pm)
        for j in range(1, model.njoints):
            twin.inertias[j] = pin.Inertia.FromDynamicParameters(res.params[s, j - 1])
        data = twin.createData()
        tau = np.array([pin.rnea(twin, data, q, v, a).copy() for q, v, a in zip(Q, V, A)])
        close(res["tau"][s], tau, 1e-10)


def test_every_keeps_every_kth_step(arm):
    Q, V, A = states(arm, 23)
    sampler = study.ParameterSampler(arm, **SPREAD)
    full = study.run(arm, sampler, study.InverseDynamics(Q, V, A, every=1), n=9, seed=1)
    some = study.run(arm, sampler, study.InverseDynamics(Q, V, A, every=5), n=9, seed=1)
    bare = study.run(arm, sampler, study.InverseDynamics(Q, V, A), n=9, seed=1)
    assert np.array_equal(some["tau"], full["tau"][:, ::5])  # steps 0, 5, ..., 20
    assert "tau" not in bare.outputs and np.array_equal(bare["peak"], full["peak"])


def test_samples_depend_on_seed_and_index_alone(arm):
    Q, V, A = states(arm, 30)
    sampler = study.ParameterSampler(arm, **SPREAD)
    what = study.InverseDynamics(Q, V, A, every=3)
    n = study.BLOCK + 700  # two random-stream blocks, the second used in part
    res = study.run(arm, sampler, what, n=n, seed=5)
    assert np.array_equal(res.params, sampler.draw(5, 0, n))
    assert np.array_equal(res.params[1000:1100], sampler.draw(5, 1000, 1100))
    fewer = study.run(arm, sampler, what, n=n - 500, seed=5)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # other slices, another split over threads
    try:
        serial = study.run(arm, sampler, what, n=n, seed=5)
    finally:
        numba.set_num_threads(threads)
    for k in res.outputs:
        assert np.array_equal(fewer[k], res[k][:n - 500]), k
        assert np.array_equal(serial[k], res[k]), k
    other = study.run(arm, sampler, what, n=10, seed=6)
    assert not np.array_equal(other.params, res.params[:10])
    # mass spread 0.1 as asked: the log of the mass ratios has that standard deviation
    ratio = np.log(res.params[:, :, 0] / arm.mass[1:])
    assert abs(ratio.std() - 0.1) < 0.01


def test_mean_and_quantiles_are_numpys_on_the_raw_samples(arm):
    Q, V, A = states(arm, 20)
    levels = (0.1, 0.5, 0.9, 0.99)
    res = study.run(arm, study.ParameterSampler(arm, **SPREAD),
                    study.InverseDynamics(Q, V, A, every=2), n=500, seed=2, levels=levels)
    assert np.array_equal(res.levels, levels)
    for k in ("peak", "rms", "tau"):
        raw = res[k]
        assert np.array_equal(res.quantiles[k], np.quantile(raw, levels, axis=0)), k
        assert np.array_equal(res.mean[k], np.mean(raw, axis=0)), k
    assert np.array_equal(res.quantile("peak", 0.9), np.quantile(res["peak"], 0.9, axis=0))
    with pytest.raises(KeyError, match="level 0.3 was not computed"):
        res.quantile("peak", 0.3)
    with pytest.raises(KeyError, match="no output 'torque'"):
        res["torque"]
    # NaN samples (rollouts that stopped) are left out: the same numbers as without them
    x = res["peak"].copy()
    x[[3, 77]] = np.nan
    mean, quantiles = study.summarize({"peak": x}, np.array(levels))
    kept = np.delete(x, [3, 77], axis=0)
    close(mean["peak"], kept.mean(axis=0), 1e-15)
    close(quantiles["peak"], np.quantile(kept, levels, axis=0), 1e-15)


def test_at_states_is_the_single_call_of_each_sample(tree):
    Q, V, X = states(tree, 3, seed=9)
    sampler = study.ParameterSampler(tree, **SPREAD)
    for quantity, call, out in (("rnea", fd.rnea, "tau"), ("aba", fd.aba, "ddq"),
                                ("crba", fd.crba, "M")):
        what = study.AtStates(Q, quantity=quantity) if quantity == "crba" else \
            study.AtStates(Q, V, X, quantity=quantity)
        res = study.run(tree, sampler, what, n=6, seed=4)
        for s in (0, 5):
            m = sample_model(tree, res.params[s])
            d = m.create_data()
            for k in range(3):
                ref = call(m, d, Q[k]) if quantity == "crba" else call(m, d, Q[k], V[k], X[k])
                assert np.array_equal(res[out][s, k], ref), (quantity, s, k)
    gravity = study.run(tree, sampler, study.AtStates(Q), n=2, seed=4)  # V = A = 0
    m = sample_model(tree, gravity.params[1])
    close(gravity["tau"][1, 2], fd.compute_generalized_gravity(m, m.create_data(), Q[2]), 1e-12)


def test_rollouts_are_scene_rollouts_of_each_sample(arm):
    scene = fd.Scene(arm, dt=1e-3, ground=False)
    q0 = np.stack([fd.neutral(arm), fd.neutral(arm) + 0.3])
    v0 = np.zeros((2, arm.nv))
    q_ref = fd.neutral(arm) + 0.5
    what = study.Rollouts(q0, v0, 40, scene=scene, record=("q", "tau"), kp=50.0, kd=5.0,
                          q_ref=q_ref)
    res = study.run(arm, study.ParameterSampler(arm, **SPREAD), what, n=5, seed=3)
    assert res["q"].shape == (5, 2, 41, arm.nq) and res["ok"].all()
    for s in (0, 4):
        own = fd.Scene(sample_model(arm, res.params[s]), dt=1e-3, ground=False)
        ref = own.rollout(q0, v0, 40, record=("q", "tau"), kp=50.0, kd=5.0, q_ref=q_ref)
        assert np.array_equal(res["q"][s], ref.q) and np.array_equal(res["tau"][s], ref.tau)
        assert np.array_equal(res["final_q"][s], ref.final_q)
    single = study.run(arm, study.ParameterSampler(arm, **SPREAD),
                       study.Rollouts(q0[1], v0[1], 40, scene=scene, kp=50.0, kd=5.0,
                                      q_ref=q_ref), n=5, seed=3)
    assert np.array_equal(single["final_q"], res["final_q"][:, 1])  # (n, nq): no S axis


def test_a_custom_sampler_is_used_and_checked(arm):
    class Uniform(study.ParameterSampler):
        def sample(self, rng, n):
            pi = np.broadcast_to(arm.params["pi"][1:], (n, arm.njoints - 1, 10))
            return pi * rng.uniform(0.9, 1.1, size=(n, 1, 1))  # every body scaled alike

    Q, V, A = states(arm, 5)
    res = study.run(arm, Uniform(arm), study.InverseDynamics(Q, V, A), n=30, seed=0)
    scale = res.params[:, 0, 0] / arm.mass[1]
    assert np.allclose(res.params, arm.params["pi"][1:] * scale[:, None, None], rtol=1e-14)
    assert 0.9 <= scale.min() and scale.max() <= 1.1

    class Short(study.ParameterSampler):
        def sample(self, rng, n):
            return np.zeros((n - 1, arm.njoints - 1, 10))
    with pytest.raises(ValueError, match=r"Short.sample\(rng, 1024\) returned shape"):
        study.run(arm, Short(arm), study.InverseDynamics(Q, V, A), n=3, seed=0)


def test_bad_input_is_refused_with_a_clear_message(arm, tree):
    Q, V, A = states(arm, 5)
    ok = study.InverseDynamics(Q, V, A)
    sampler = study.ParameterSampler(arm, **SPREAD)
    with pytest.raises(ValueError, match="sampler was made for model 'random_tree_10_4'"):
        study.run(arm, study.ParameterSampler(tree), ok, n=3, seed=0)
    heavier = arm.with_inertia("wrist_3_joint", mass=2.0)
    with pytest.raises(ValueError, match="other inertial parameters"):
        study.run(heavier, sampler, ok, n=3, seed=0)
    with pytest.raises(ValueError, match=r"n \(the number of samples\) must be >= 1, got 0"):
        study.run(arm, sampler, ok, n=0, seed=0)
    with pytest.raises(ValueError, match=r"chunk \(samples per Dask task\) must be >= 1, got 0"):
        study.run(arm, sampler, ok, n=3, seed=0, chunk=0)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        study.run(arm, sampler, ok, n=3, seed=-1)
    with pytest.raises(ValueError, match=r"levels must be numbers in \[0, 1\]"):
        study.run(arm, sampler, ok, n=3, seed=0, levels=(0.5, 1.5))
    with pytest.raises(TypeError, match="sampler must be a fastdyn.study.ParameterSampler"):
        study.run(arm, {"mass": 0.1}, ok, n=3, seed=0)
    if importlib.util.find_spec("distributed") is not None:
        with pytest.raises(TypeError, match="client must be a dask.distributed Client"):
            study.run(arm, sampler, ok, n=3, seed=0, client="tcp://localhost:8786")
    with pytest.raises(TypeError, match="what to compute must be"):
        study.run(arm, sampler, "rnea", n=3, seed=0)
    with pytest.raises(ValueError, match=r"V must have shape \(5, 6\)"):
        study.run(arm, sampler, study.InverseDynamics(Q, V[:4], A), n=3, seed=0)
    with pytest.raises(ValueError, match="every must be >= 1"):
        study.run(arm, sampler, study.InverseDynamics(Q, V, A, every=0), n=3, seed=0)
    with pytest.raises(ValueError, match="mass spreads must be finite and >= 0"):
        study.ParameterSampler(arm, mass=-0.1)
    with pytest.raises(ValueError, match="quantity must be one of"):
        study.run(arm, sampler, study.AtStates(Q, quantity="jacobian"), n=3, seed=0)
    with pytest.raises(ValueError, match="the scene was made for model"):
        study.run(arm, sampler, study.Rollouts(Q[0], V[0], 5, scene=fd.Scene(tree)), n=3,
                  seed=0)
    with pytest.raises(ValueError, match="prm= is the study's to set"):
        study.run(arm, sampler, study.Rollouts(Q[0], V[0], 5, prm=arm.prm), n=3, seed=0)
    if np.isfinite(_memory.physical()):  # more torques than the machine has memory for
        with pytest.raises(MemoryError,
                           match=r"would take [\d.]+ GB, more than half.* the most.*every=k"):
            study.run(arm, sampler, study.InverseDynamics(Q, V, A, every=1),
                      n=int(_memory.physical() // (8 * 5 * 6)) + 1, seed=0)
    with pytest.raises(ValueError, match="record: unknown 'contacts'"):
        study.run(arm, sampler, study.Rollouts(Q[0], V[0], 5, record=("contacts",)), n=3,
                  seed=0)


def test_ctrl_c_stops_a_long_study_and_leaves_the_process_usable(arm, capsys, monkeypatch,
                                                                 python_sigint):
    Q, V, A = states(arm, 5000)
    sampler = study.ParameterSampler(arm, **SPREAD)
    what = study.InverseDynamics(Q, V, A)
    small = study.run(arm, sampler, what, n=50, seed=1)  # compiled; the reference below
    n = 100_000  # about 100 us a sample: several seconds even on both cores
    sent = []
    started = threading.Event()
    next_span = slices.next_span

    def spy(*args):  # the first slice is done: the study is running (not allocating)
        started.set()
        return next_span(*args)

    def interrupt():
        started.wait(60.0)
        time.sleep(0.2)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(slices, "next_span", spy)
    timer = threading.Thread(target=interrupt, daemon=True)
    timer.start()
    with pytest.raises(KeyboardInterrupt) as stop:
        study.run(arm, sampler, what, n=n, seed=1)
    latency = time.perf_counter() - sent[0]
    assert isinstance(stop.value, study.StudyInterrupted)
    assert 0 < stop.value.done < n and f"after {stop.value.done} of {n}" in str(stop.value)
    with capsys.disabled():  # reported, not asserted (tests never time)
        print(f"\n  Ctrl-C stopped the study {1e3 * latency:.0f} ms after the signal, "
              f"{stop.value.done} of {n} samples done")
    again = study.run(arm, sampler, what, n=50, seed=1)  # the process is still usable
    assert all(np.array_equal(again[k], small[k]) for k in small.outputs)


def test_progress_bar_counts_every_sample(arm, capsys):
    Q, V, A = states(arm, 10)
    study.run(arm, study.ParameterSampler(arm, **SPREAD), study.InverseDynamics(Q, V, A),
              n=3000, seed=0, progress=True)
    err = capsys.readouterr().err
    assert "3000/3000" in err or "100.0 % of 3000 samples" in err  # tqdm, or the fallback


def test_plot_writes_a_png(arm, tmp_path):
    pytest.importorskip("matplotlib")
    from fastdyn.study.plot import plot
    Q, V, A = states(arm, 12)
    res = study.run(arm, study.ParameterSampler(arm, **SPREAD),
                    study.InverseDynamics(Q, V, A, every=2), n=200, seed=0)
    path = plot(res, str(tmp_path / "fan.png"), time=np.arange(6) * 0.002,
                limits=arm.params["effort_max"][1:, 0], names=arm.joint_names[1:])
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="output 'peak' has shape"):
        plot(res, str(tmp_path / "bad.png"), fan="peak")


def test_cli_montecarlo_runs_a_study_and_writes_the_plot(tmp_path, capsys):
    from fastdyn.cli.main import main
    png = tmp_path / "mc.png"
    assert main(["montecarlo", "--samples", "400", "--steps", "200", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "400 samples x 200 steps" in out and "P(peak > rated)" in out
    assert "shoulder_lift_joint" in out
    try:
        import matplotlib  # noqa: F401
        assert png.read_bytes()[:4] == b"\x89PNG"
    except ImportError:
        assert "no plot" in out
    assert main(["montecarlo", "--samples", "0"]) == 2
    assert main(["montecarlo", "--payload", "-1"]) == 2
    assert main(["montecarlo", "--workers", "2", "--scheduler", "tcp://x:1"]) == 2
    err = capsys.readouterr().err
    assert "expected a positive whole number, got '0'" in err
    assert "not both" in err


def test_a_sample_that_fails_is_named(arm):
    class Massless(study.ParameterSampler):  # sample 1030 has no mass anywhere
        def sample(self, rng, n):
            pi = super().sample(rng, n)
            if pi.shape[0] == study.BLOCK and rng.bit_generator.seed_seq.entropy == [0, 1]:
                pi[6] = 0.0
            return pi

    what = study.AtStates(np.zeros((1, arm.nq)), quantity="aba")
    with pytest.raises(fd.SingularMassMatrixError,
                       match=r"study \(seed 0\) sample 1030: the articulated"):
        study.run(arm, Massless(arm, **SPREAD), what, n=2000, seed=0)


def test_a_sample_that_never_arrives_is_an_error_not_a_result(arm, monkeypatch):
    """A computation that leaves the last sample of each slice unwritten (a chunk boundary off
    by one): the study raises, naming a lost sample, instead of returning whatever the buffer
    held (it was np.empty: the rows happened to hold plausible values)."""
    Q, V, A = states(arm, 5)
    compute = study._InverseDynamics.compute

    def short(self, model, pi, threads, out):
        full = {k: np.empty_like(x) for k, x in out.items()}
        compute(self, model, pi, threads, full)
        for k, x in full.items():
            out[k][:-1] = x[:-1]  # the last row never written

    monkeypatch.setattr(study._InverseDynamics, "compute", short)
    with pytest.raises(RuntimeError, match=r"samples were never computed \(the first: sample"):
        study.run(arm, study.ParameterSampler(arm, **SPREAD), study.InverseDynamics(Q, V, A),
                  n=40, seed=3)


def test_a_short_or_misplaced_dask_chunk_is_refused():
    """The cluster's assembly (study_dask._put) takes a chunk only whole and where it was
    asked for; the rows it writes are the chunk's."""
    from fastdyn.study import cluster as study_dask
    params, outputs = np.full((6, 2, 10), np.nan), {"tau": np.full((6, 3), np.nan)}
    pi, tau = np.ones((2, 2, 10)), np.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match=r"samples 2..3 came back"):
        study_dask._put(params, outputs, 2, 4, (2, pi[:1], {"tau": tau[:1]}))  # one row short
    with pytest.raises(RuntimeError, match=r"samples 2..3 came back as samples from 3"):
        study_dask._put(params, outputs, 2, 4, (3, pi, {"tau": tau}))
    with pytest.raises(RuntimeError, match=r"outputs \['peak'\]"):
        study_dask._put(params, outputs, 2, 4, (2, pi, {"peak": tau}))
    assert np.isnan(params).all() and np.isnan(outputs["tau"]).all()  # nothing written
    study_dask._put(params, outputs, 2, 4, (2, pi, {"tau": tau}))
    assert np.array_equal(outputs["tau"][2:4], tau)
    assert np.isnan(outputs["tau"][[0, 1, 4, 5]]).all()
    with pytest.raises(RuntimeError, match="2 of 6 samples were never computed"):
        outputs["tau"][:2] = 0.0
        params[:2] = 1.0
        study.complete(params, outputs)
