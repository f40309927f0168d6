"""Generated per-model kernels (fastdyn.codegen) against Pinocchio, on every model whose joints
generation supports, and against physical identities far from the origin.

Generating and compiling costs seconds per model, once: the modules and their machine code are
cached (FASTDYN_CODEGEN_DIR or ~/.cache/fastdyn/generated), so later test runs reuse them."""

import os
import subprocess
import sys
import tempfile

import numba
import numpy as np
import pytest

import fastdyn as fd
from fastdyn import codegen, samples
from conftest import close, get_pair, needs_pinocchio, pin, random_state

SUPPORTED_TYPES = ("revolute_x", "revolute_y", "revolute_z", "revolute", "continuous_x",
                   "continuous", "prismatic_y", "prismatic", "spherical", "planar",
                   "translation")
MODELS = ["manipulator", "double_pendulum", "mixed_tree", "forest", "ur5", "panda", "solo12",
          pytest.param("talos", marks=pytest.mark.slow)]  # Talos compiles for ~45 s


def _pair(name):
    needs_pinocchio()
    if name == "mixed_tree":  # the supported types, unaligned axes, a free-flyer root, three
        # branches; 8 joints (each joint is straight-line code to compile: keep it small)
        m = samples.random_tree(7, seed=103, types=SUPPORTED_TYPES, root="freeflyer")
        assert {"spherical", "planar", "translation", "continuous", "revolute", "prismatic"} <= \
            {m.joint_type(i) for i in range(1, m.njoints)}
        from oracle import to_pinocchio
        return m, to_pinocchio(m)
    if name == "forest":  # three subtrees on the universe: CRBA/ABA's frame is joint 1's origin
        m = samples.random_tree(8, seed=11, types=SUPPORTED_TYPES)
        assert [i for i in range(1, m.njoints) if m.jnt[i]["parent"] == 0] == [1, 2, 5]
        from oracle import to_pinocchio
        return m, to_pinocchio(m)
    return get_pair(name)


def _massless_leaf():
    """Joint j2 carries nothing: M is singular."""
    b = fd.ModelBuilder("massless_leaf")
    j1 = b.add_joint("j1", "revolute_z", 0)
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    b.add_joint("j2", "revolute_y", j1, (np.eye(3), np.array([0.2, 0.0, 0.0])))
    return b.build()


_generated = {}


def _gen(m):
    if m.token not in _generated:
        _generated[m.token] = codegen.generate(m)
    return _generated[m.token]


@numba.njit
def _rnea_loop(kernel, gravity, Q, V, A, out):
    """A user's compiled loop calling a generated kernel (dispatchers are first-class)."""
    for r in range(Q.shape[0]):
        kernel(gravity, Q[r], V[r], A[r], out[r])


@pytest.mark.parametrize("name", MODELS)
def test_generated_kernels_match_pinocchio(name):
    m, pm = _pair(name)
    g = _gen(m)
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(3)
    states = [random_state(pm, rng) for _ in range(3)]
    for q, v, a in states:
        g.kernels.forward_kinematics(q, d.ws)
        pin.forwardKinematics(pm, pd, q)
        for j in range(1, m.njoints):
            close(d.ws[j, 12:21].reshape(3, 3), pd.oMi[j].rotation, 1e-12)
            close(d.ws[j, 21:24], pd.oMi[j].translation, 1e-12)
            close(d.ws[j, 0:9].reshape(3, 3), pd.liMi[j].rotation, 1e-12)
            close(d.ws[j, 9:12], pd.liMi[j].translation, 1e-12)
        J = np.full((6, m.nv), np.nan)
        g.kernels.joint_jacobians(q, d.ws, J)
        close(J, pin.computeJointJacobians(pm, pd, q))
        tau = np.full(m.nv, np.nan)
        g.kernels.rnea(m.gravity, q, v, a, tau)
        close(tau, pin.rnea(pm, pd, q, v, a))
        M = np.full((m.nv, m.nv), np.nan)
        g.kernels.crba(q, M)
        Mp = pin.crba(pm, pd, q)
        close(M, np.triu(Mp) + np.triu(Mp, 1).T)
        ddq = np.full(m.nv, np.nan)
        g.kernels.aba(m.gravity, q, v, tau, ddq)
        close(ddq, pin.aba(pm, pd, q, v, tau))
        close(ddq, a, 1e-9)  # ABA inverts RNEA
    Q = np.array([s[0] for s in states])
    V = np.array([s[1] for s in states])
    A = np.array([s[2] for s in states])
    out = np.zeros((3, m.nv))
    _rnea_loop(g.kernels.rnea, m.gravity, Q, V, A, out)
    for r, (q, v, a) in enumerate(states):
        close(out[r], pin.rnea(pm, pd, q, v, a))


def test_generated_dynamics_keep_their_digits_far_from_the_origin():
    """CRBA and ABA work in joint 1's frame: with the base 10 km away, M matches the generic
    kernel at the origin and ABA still inverts RNEA to ~1e-12."""
    m, pm = _pair("solo12")
    g = _gen(m)
    q, v, a = random_state(pm, np.random.default_rng(5))
    far = q.copy()
    far[:3] += (1e4, -1e4, 3e3)
    M0, M1 = np.zeros((m.nv, m.nv)), np.zeros((m.nv, m.nv))
    g.kernels.crba(q, M0)
    g.kernels.crba(far, M1)
    close(M1, M0, 1e-13)
    tau, ddq = np.zeros(m.nv), np.zeros(m.nv)
    g.kernels.rnea(m.gravity, far, v, a, tau)
    g.kernels.aba(m.gravity, far, v, tau, ddq)
    close(ddq, a, 1e-11)


def test_gravity_is_read_at_call_time():
    m, pm = _pair("ur5")
    g = _gen(m)
    q, v, a = random_state(pm, np.random.default_rng(6))
    tau = np.zeros(m.nv)
    g.kernels.rnea(np.array([0.0, 3.7, -1.62]), q, v, a, tau)
    pm2 = pm.copy()
    pm2.gravity.linear = np.array([0.0, 3.7, -1.62])
    close(tau, pin.rnea(pm2, pm2.createData(), q, v, a))


def test_unsupported_joint_types_are_refused_by_name():
    m = samples.humanoid()  # universal, spherical ZYX and helical joints
    with pytest.raises(NotImplementedError, match=r"joint '.*' is of type '(universal|"
                                                  r"spherical_zyx|helical)'"):
        codegen.source(m)


def test_unknown_algorithm_and_non_model_are_refused():
    m, _ = _pair("double_pendulum")
    with pytest.raises(ValueError, match="unknown algorithms \\['rnaa'\\]"):
        codegen.source(m, ("rnaa",))
    with pytest.raises(TypeError, match="fastdyn.Model"):
        codegen.generate("ur5")


def test_the_module_is_named_by_its_source_and_reused(tmp_path):
    m, _ = _pair("double_pendulum")
    a = codegen.generate(m, ("rnea",), directory=str(tmp_path))
    before = (tmp_path / a.path.split("/")[-1]).stat().st_mtime_ns
    b = codegen.generate(m, ("rnea",), directory=str(tmp_path))
    assert a.path == b.path and b.kernels is a.kernels
    assert (tmp_path / b.path.split("/")[-1]).stat().st_mtime_ns == before  # not rewritten
    assert codegen.source(m, ("rnea",)) == open(a.path, encoding="utf-8").read()
    other = fd.samples.manipulator()
    assert codegen.generate(other, ("rnea",), directory=str(tmp_path)).path != a.path
    assert not hasattr(a.kernels, "crba")


def test_batches_through_generated_kernels():
    """fastdyn.batch with generated=: the same checks, the generated kernels' rows, Pinocchio's
    answers."""
    m, pm = _pair("solo12")
    g = _gen(m)
    rng = np.random.default_rng(8)
    states = [random_state(pm, rng) for _ in range(64)]
    Q, V, A = (np.array([s[k] for s in states]) for k in range(3))
    TAU = fd.batch.rnea(m, Q, V, A, generated=g)
    assert np.array_equal(TAU, fd.batch.rnea(m, Q, V, A, generated=g))
    pd = pm.createData()
    for r in (0, 31, 63):
        close(TAU[r], pin.rnea(pm, pd, Q[r], V[r], A[r]))
    close(fd.batch.aba(m, Q, V, TAU, generated=g), A, 1e-9)
    Q[5, 3:7] *= 2.0  # a non-unit quaternion is refused before any kernel runs
    with pytest.raises(ValueError, match="quaternion|unit"):
        fd.batch.rnea(m, Q, V, A, generated=g)
    other, _ = _pair("ur5")
    with pytest.raises(ValueError, match="another model"):
        fd.batch.rnea(other, np.zeros((2, other.nq)), np.zeros((2, other.nv)),
                      np.zeros((2, other.nv)), generated=g)


def test_parameter_table_kernels_match_pinocchio_robot_by_robot():
    """rnea_prm / aba_prm / crba_prm read inertias, armature and gravity from a robot's table:
    each robot of a batch against Pinocchio on a model built with that robot's parameters; a
    robot with an edited placement is refused by name, never computed with the baked-in one."""
    from oracle import to_pinocchio
    from fastdyn.kernels import layout
    m, _ = _pair("mixed_tree")
    g = _gen(m)
    n = 6
    rng = np.random.default_rng(21)
    PRM = np.array(fd.parameter_batch(
        m, pi=fd.sample_parameters(m, n, seed=2, mass=0.3, com=0.05, inertia=0.3),
        gravity=rng.normal([0.0, 0.0, -9.81], 1.0, (n, 3))))
    layout.named(PRM)["armature"][:, 1:, 0] = rng.uniform(0.0, 0.2, (n, m.njoints - 1))
    Q = np.array([fd.random_configuration(m, rng) for _ in range(n)])
    V, A = rng.normal(size=(2, n, m.nv))
    TAU = fd.batch.rnea(m, Q, V, A, prm=PRM, generated=g)
    DDQ = fd.batch.aba(m, Q, V, TAU, prm=PRM, generated=g)
    M = np.empty((m.nv, m.nv))
    for s in range(n):
        pm = to_pinocchio(m.with_parameters(PRM[s]))
        pd = pm.createData()
        close(TAU[s], pin.rnea(pm, pd, Q[s], V[s], A[s]))
        close(DDQ[s], pin.aba(pm, pd, Q[s], V[s], TAU[s]), 1e-9)
        g.kernels.crba_prm(PRM[s], Q[s], M)
        Mp = pin.crba(pm, pd, Q[s])
        close(M, np.triu(Mp) + np.triu(Mp, 1).T)
    one = fd.batch.rnea(m, Q, V, A, prm=PRM[2], generated=g)  # one robot for every row
    close(one[4], fd.rnea(m.with_parameters(PRM[2]), m.create_data(), Q[4], V[4], A[4]))
    layout.named(PRM)["p"][3, 5, 1] += 1e-3
    with pytest.raises(ValueError, match=f"row 3: robot 3 has another 'p' for joint "
                                         f"'{m.joint_names[5]}'.*generated=None"):
        fd.batch.rnea(m, Q, V, A, prm=PRM, generated=g)


def test_inertia_kernels_match_pinocchio_robot_by_robot():
    """rnea_pi / aba_pi / crba_pi read only the bodies' inertias, from pi (njoints - 1, 10):
    each sampled robot against Pinocchio with those inertias, under another gravity; the
    batch route equals the generic kernels' to rounding; a bad set of inertias is named."""
    from oracle import to_pinocchio
    m, _ = _pair("mixed_tree")
    g = _gen(m)
    n = 6
    rng = np.random.default_rng(23)
    PI = fd.sample_parameters(m, n, seed=4, mass=0.3, com=0.05, inertia=0.3)
    Q = np.array([fd.random_configuration(m, rng) for _ in range(n)])
    V, A = rng.normal(size=(2, n, m.nv))
    m2 = m.with_gravity((0.5, -0.2, -9.0))
    TAU = fd.batch.rnea(m2, Q, V, A, pi=PI, generated=g)
    DDQ = fd.batch.aba(m2, Q, V, TAU, pi=PI, generated=g)
    close(TAU, fd.batch.rnea(m2, Q, V, A, pi=PI))
    pm = to_pinocchio(m2)
    pd = pm.createData()
    M = np.empty((m.nv, m.nv))
    for s in range(n):
        for i in range(1, m.njoints):
            pm.inertias[i] = pin.Inertia.FromDynamicParameters(PI[s, i - 1].copy())
        close(TAU[s], pin.rnea(pm, pd, Q[s], V[s], A[s]))
        close(DDQ[s], pin.aba(pm, pd, Q[s], V[s], TAU[s]), 1e-9)
        g.kernels.crba_pi(PI[s], Q[s], M)
        Mp = pin.crba(pm, pd, Q[s])
        close(M, np.triu(Mp) + np.triu(Mp, 1).T)
    PI[4, 2, 0] = -1.0
    with pytest.raises(ValueError, match=f"row 4: pi: robot 4, joint '{m.joint_names[3]}': "
                                         f"negative mass"):
        fd.batch.aba(m, Q, V, TAU, pi=PI, generated=g)


def test_generated_batch_aba_reports_a_singular_mass_matrix():
    m = _massless_leaf()
    g = codegen.generate(m)
    with pytest.raises(fd.SingularMassMatrixError, match=r"row 0 \(of 2 failed\).*not posit"):
        fd.batch.aba(m, np.zeros((2, 2)), np.zeros((2, 2)), np.ones((2, 2)), generated=g)


def test_checked_single_calls_match_pinocchio():
    """gen.rnea(data, q, v, a) etc.: the object API's checks, the generated arithmetic."""
    m, pm = _pair("solo12")
    g = _gen(m)
    d, pd = m.create_data(), pm.createData()
    q, v, a = random_state(pm, np.random.default_rng(9))
    close(g.rnea(d, q, v, a), pin.rnea(pm, pd, q, v, a))
    tau = d.tau.copy()
    close(g.aba(d, q, v, tau), a, 1e-9)
    Mp = pin.crba(pm, pd, q)
    close(g.crba(d, q), np.triu(Mp) + np.triu(Mp, 1).T)
    close(g.compute_joint_jacobians(d, q), pin.computeJointJacobians(pm, pd, q))
    g.forward_kinematics(d, q[::-1][::-1])  # a strided view is fine
    pin.forwardKinematics(pm, pd, q)
    close(fd.joint_placement(m, d, m.njoints - 1), pd.oMi[m.njoints - 1].homogeneous, 1e-12)
    v32 = v.astype(np.float32)
    close(g.rnea(d, list(q), v32, a.tolist()),  # lists and float32 convert, as in fd.rnea
          pin.rnea(pm, pd, q, v32.astype(np.float64), a))
    g.rnea(d, q, v, a)
    with pytest.raises(RuntimeError, match="forward_kinematics"):  # rnea filled no oMi
        fd.joint_placement(m, d, 1)


@pytest.mark.parametrize("bad, match", [
    (lambda q, v: (q[:-1], v), r"q must have shape \(19,\)"),
    (lambda q, v: (q, v[:, None]), r"v must have shape \(18,\)"),
    (lambda q, v: (np.where(np.arange(19) == 4, np.nan, q), v), r"q has non-finite entries at indices \[4\]"),
    (lambda q, v: (q, np.where(np.arange(18) == 2, np.inf, v)), r"v has non-finite entries at indices \[2\]"),
    (lambda q, v: (np.r_[q[:3], 2 * q[3:7], q[7:]], v), "quaternion"),
    (lambda q, v: (q.astype(np.int64), v), None),  # converted, then checked like any q
    (lambda q, v: (q, v.astype(complex)), "real array"),
])
def test_checked_single_calls_refuse_bad_input(bad, match):
    m, pm = _pair("solo12")
    g = _gen(m)
    d = m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(10))
    qb, vb = bad(q, v)
    if match is None:  # int64 q: rounding to integers breaks the quaternion's unit norm
        with pytest.raises(ValueError):
            g.rnea(d, qb, vb, a)
        return
    with pytest.raises((ValueError, TypeError), match=match):
        g.rnea(d, qb, vb, a)
    with pytest.raises((ValueError, TypeError), match=match):
        g.aba(d, qb, vb, a)


def test_checked_calls_refuse_another_models_data():
    m, _ = _pair("solo12")
    other, _ = _pair("ur5")
    with pytest.raises(ValueError, match="Data"):
        _gen(m).crba(other.create_data(), np.zeros(m.nq))


def test_checked_aba_reports_a_singular_mass_matrix():
    m = _massless_leaf()
    with pytest.raises(fd.SingularMassMatrixError):
        codegen.generate(m).aba(m.create_data(), np.zeros(2), np.zeros(2), np.ones(2))


def test_a_method_whose_kernel_was_not_generated_says_so(tmp_path):
    m, _ = _pair("double_pendulum")
    g = codegen.generate(m, ("rnea",), directory=str(tmp_path))
    with pytest.raises(AttributeError, match="crba was not generated"):
        g.crba(m.create_data(), np.zeros(m.nq))


def test_an_unusable_cache_directory_falls_back_to_the_temp_directory(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("FASTDYN_CODEGEN_DIR", str(blocker / "generated"))
    m, _ = _pair("double_pendulum")
    g = codegen.generate(m, ("rnea",))
    assert g.path.startswith(tempfile.gettempdir()) and "fastdyn-generated-" in g.path
    with pytest.raises(OSError):  # an explicit directory is the caller's choice: no fallback
        codegen.generate(m, ("rnea",), directory=str(blocker / "generated"))


def test_clear_cache_removes_generated_modules_and_their_machine_code_only(tmp_path):
    # A mass of its own: a module no other test imports (names do not reach the source), so
    # this one compiles, writing beside it.
    m = fd.samples.double_pendulum().with_inertia(1, mass=1.2345)
    g = codegen.generate(m, ("rnea",), directory=str(tmp_path))
    g.rnea(m.create_data(), np.zeros(m.nq), np.zeros(m.nv), np.zeros(m.nv))  # numba writes
    cached = list((tmp_path / "__pycache__").glob("fastdyn_generated_*.nb[ic]"))
    assert cached  # the machine code beside the module
    (tmp_path / "notes.py").write_text("mine")  # a shared directory's other files stay
    (tmp_path / "__pycache__" / "notes.cpython-311.pyc").write_bytes(b"")
    assert codegen.clear_cache(str(tmp_path)) == 1
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        "notes.cpython-311.pyc", "notes.py"]
    assert codegen.clear_cache(str(tmp_path / "never-created")) == 0
    h = codegen.generate(m, ("rnea",), directory=str(tmp_path))  # written again on demand
    assert os.path.exists(h.path)


def test_clear_cache_from_the_command_line(tmp_path, monkeypatch, capsys):
    from fastdyn.cli import main as cli
    from fastdyn.kernels import _jit
    monkeypatch.setenv("FASTDYN_CODEGEN_DIR", str(tmp_path))
    # The command also clears the kernel cache: not this process's real one (the kernels
    # would recompile in every later test process); tests/test_cache_safety.py covers it.
    monkeypatch.setattr(_jit, "clear_cache", lambda: (0, 0))
    m, _ = _pair("double_pendulum")
    codegen.generate(m, ("rnea",))
    assert cli.main(["clear-cache"]) == 0
    assert f"removed 1 generated module from {tmp_path}" in capsys.readouterr().out
    assert not list(tmp_path.glob("*.py"))


def test_a_second_process_neither_regenerates_nor_recompiles(tmp_path):
    """The module file is reused as it is and numba loads its machine code from beside it."""
    script = ("import os, numpy as np, fastdyn as fd, fastdyn.codegen as cg\n"
              "m = fd.samples.double_pendulum(); d = m.create_data()\n"
              f"g = cg.generate(m, ('rnea',), directory={str(tmp_path / 'gen')!r})\n"
              "before = os.stat(g.path).st_mtime_ns\n"
              "g.rnea(d, np.zeros(2), np.zeros(2), np.zeros(2))\n"
              "k = g.kernels.rnea_checked\n"
              "print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()), "
              "before)")
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           timeout=300, cwd=tmp_path) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (tuple(int(x) for x in r.stdout.split()) for r in runs)
    assert first[:2] == (0, 1)  # compiled, and written beside the module
    assert second[:2] == (1, 0)  # loaded, nothing compiled
    assert second[2] == first[2]  # the module file was not rewritten


def test_generated_kernels_pickle_for_worker_processes(tmp_path):
    """A process pool gets the recipe: the child regenerates (finding the cached module). The
    model and its kernels travel in one pickle, so they stay one model there too."""
    import pickle
    m, pm = _pair("double_pendulum")
    g = codegen.generate(m, ("rnea", "aba"), directory=str(tmp_path))
    twin, h = pickle.loads(pickle.dumps((m, g)))
    assert h.path == g.path and h.algorithms == ("rnea", "aba")
    assert h.model_token == twin.token == m.token  # one model: the token survives pickling
    q, v, a = random_state(pm, np.random.default_rng(12))
    expected = g.rnea(m.create_data(), q, v, a).copy()
    close(h.rnea(twin.create_data(), q, v, a), expected)


def test_external_forces_match_pinocchio():
    """rnea/aba with LOCAL external forces per joint, raw and checked, as fastdyn.rnea takes
    them; a non-finite force is refused with the generic message."""
    m, pm = _pair("mixed_tree")
    g = _gen(m)
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(14)
    q, v, a = random_state(pm, rng)
    fext = rng.normal(size=(m.njoints, 6))
    fp = [pin.Force(f) for f in fext]
    tau_ref = pin.rnea(pm, pd, q, v, a, fp)
    close(g.rnea(d, q, v, a, fext), tau_ref)
    tau = np.zeros(m.nv)
    g.kernels.rnea_fext(m.gravity, q, v, a, fext, tau)
    close(tau, tau_ref)
    close(g.aba(d, q, v, tau_ref, fext), pin.aba(pm, pd, q, v, tau_ref, fp))
    close(g.aba(d, q, v, tau_ref, fext.tolist()), a, 1e-9)  # ABA inverts RNEA, lists convert
    bad = fext.copy()
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match="fext"):
        g.rnea(d, q, v, a, bad)
    with pytest.raises(ValueError, match="fext"):
        g.aba(d, q, v, tau_ref, fext[:-1])
