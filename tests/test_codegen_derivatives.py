"""Generated derivative kernels (fastdyn.codegen, algorithms DERIVATIVES) against Pinocchio's
computeRNEADerivatives / computeABADerivatives, against the generic kernels, and bad input.

Models: UR5, Solo12 (a free-flyer) and two random trees of the joint types codegen supports
below a free-flyer, each with rotor inertias (armature) on some joints. Generating and
compiling the two kernels costs ~15 s (UR5, the small tree) to a minute or two (Solo12, the
bigger tree: marked slow) once; numba caches the machine code beside the module
(FASTDYN_CODEGEN_DIR), so later runs reuse it."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from fastdyn import codegen, samples
from conftest import close, get_pair, needs_pinocchio, pin, random_state, to_pinocchio

SUPPORTED_TYPES = ("revolute_x", "revolute_y", "revolute_z", "revolute", "continuous",
                   "prismatic", "spherical", "planar", "translation")
TOL = 1e-9


def _with_armature(m, pm, rng):
    """Rotor inertias on every other joint of m and its twin pm (the same values)."""
    for i in range(1, m.njoints, 2):
        m = m.with_armature(i, rng.uniform(0.05, 0.5, size=int(m.jnt[i]["nv"])))
    pm.armature = m.armature.copy()
    return m, pm


TREES = {  # (size, seed): a free-flyer root, branches, the supported types between them
    "tree": (3, 94),  # spherical, planar, revolute about an unaligned axis
    "big_tree": (5, 11),  # revolute (unaligned and x), prismatic, planar, translation
}


@pytest.fixture(scope="module", params=["ur5", "tree",
                                        pytest.param("solo12", marks=pytest.mark.slow),
                                        pytest.param("big_tree", marks=pytest.mark.slow)])
def generated(request):
    """(model, pinocchio twin, generated kernels): each model generated and compiled once."""
    needs_pinocchio()
    rng = np.random.default_rng(5)
    if request.param in TREES:
        size, seed = TREES[request.param]
        m = samples.random_tree(size, seed=seed, types=SUPPORTED_TYPES, root="freeflyer")
        pm = to_pinocchio(m)
    else:
        m, pm = get_pair(request.param)
        pm = pin.Model(pm)  # the shared twin stays as it was
    m, pm = _with_armature(m, pm, rng)
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "tree":  # the pair loops of big models; UR5 keeps straight lines
            mp.setattr(codegen.rnea_derivatives, "LOOP_PAIRS", 1)
            assert _looped(m)
        return m, pm, codegen.generate(m, algorithms=codegen.DERIVATIVES)


def _looped(m) -> bool:
    """Whether m's generated derivatives write their ancestor pairs as loops over a table."""
    return "stack_matrix(24," in codegen.source(m, codegen.DERIVATIVES)


def test_pairs_are_looped_from_the_threshold_on():
    """codegen/rnea_derivatives.LOOP_PAIRS: UR5 (6 such pairs) straight-line, Panda (20)
    looped."""
    assert not _looped(get_pair("ur5")[0])
    assert _looped(get_pair("panda")[0])


def _sym(upper):
    return np.triu(upper) + np.triu(upper, 1).T


def test_rnea_derivatives_match_pinocchio_and_the_generic_kernel(generated):
    m, pm, g = generated
    d, dg, pd = m.create_data(), m.create_data(), pm.createData()
    rng = np.random.default_rng(1)
    for _ in range(3):
        q, v, a = random_state(pm, rng)
        dq, dv, M = g.compute_rnea_derivatives(d, q, v, a)
        pdq, pdv, pM = pin.computeRNEADerivatives(pm, pd, q, v, a)
        close(dq, pdq, TOL)
        close(dv, pdv, TOL)
        close(M, _sym(pM), TOL)
        close(d.tau, pin.rnea(pm, pd, q, v, a), TOL)
        for x, y in zip((dq, dv, M), fd.compute_rnea_derivatives(m, dg, q, v, a)):
            close(x, y, 1e-12)
        assert np.array_equal(M, M.T)


def test_aba_derivatives_match_pinocchio_and_the_generic_kernel(generated):
    m, pm, g = generated
    d, dg, pd = m.create_data(), m.create_data(), pm.createData()
    rng = np.random.default_rng(2)
    for _ in range(3):
        q, v, _ = random_state(pm, rng)
        tau = rng.normal(size=m.nv)
        out = g.compute_aba_derivatives(d, q, v, tau)
        assert out[0] is d.ddq_dq and out[1] is d.ddq_dv and out[2] is d.Minv
        pin.computeABADerivatives(pm, pd, q, v, tau)
        close(d.ddq_dq, pd.ddq_dq, TOL)
        close(d.ddq_dv, pd.ddq_dv, TOL)
        close(d.Minv, _sym(pd.Minv), TOL)
        close(d.ddq, pin.aba(pm, pd, q, v, tau), TOL)
        for x, y in zip(out, fd.compute_aba_derivatives(m, dg, q, v, tau)):
            close(x, y, 1e-11)
        assert np.array_equal(d.Minv, d.Minv.T)


@numba.njit
def _aba_derivatives_loop(kernel, gravity, Q, V, TAU, ddq, dq, dv, Minv, out):
    """A user's compiled loop around the raw kernel (a dispatcher argument)."""
    for r in range(Q.shape[0]):
        kernel(gravity, Q[r], V[r], TAU[r], ddq, dq, dv, Minv)
        out[r] = dq[0, 0] + dv[-1, -1] + Minv[0, -1]


def test_raw_kernel_runs_in_a_users_compiled_loop(generated):
    m, pm, g = generated
    if m.name != "ur5":  # a compile of its own per model (contiguous rows): one is enough
        pytest.skip("UR5 only")
    rng = np.random.default_rng(3)
    states = [random_state(pm, rng) for _ in range(2)]
    Q, V, TAU = (np.array([s[k] for s in states]) for k in range(3))
    nv = m.nv
    mats = [np.full((nv, nv), np.nan) for _ in range(3)]  # every entry must be written
    out = np.zeros(2)
    _aba_derivatives_loop(g.kernels.aba_derivatives, m.gravity, Q, V, TAU, np.zeros(nv), *mats,
                          out)
    d = m.create_data()
    for r in range(2):
        dq, dv, Mi = fd.compute_aba_derivatives(m, d, Q[r], V[r], TAU[r])
        assert abs(out[r] - (dq[0, 0] + dv[-1, -1] + Mi[0, -1])) <= 1e-9 * max(1, abs(out[r]))
    assert np.isfinite(mats[0]).all() and np.isfinite(mats[1]).all()
    close(mats[2], Mi, 1e-11)


@pytest.mark.parametrize("bad, match", [
    (lambda q, v: (q[:-1], v), r"q must have shape"),
    (lambda q, v: (q, v[:, None]), r"v must have shape"),
    (lambda q, v: (np.where(np.arange(q.size) == 1, np.nan, q), v),
     r"q has non-finite entries at indices \[1\]"),
    (lambda q, v: (q, np.where(np.arange(v.size) == 2, np.inf, v)),
     r"v has non-finite entries at indices \[2\]"),
    (lambda q, v: (np.r_[q[:3], 2 * q[3:7], q[7:]], v), "quaternion"),
    (lambda q, v: (q, v.astype(complex)), "real array"),
])
def test_checked_calls_refuse_bad_input(generated, bad, match):
    m, pm, g = generated
    if match == "quaternion" and m.nq == m.nv:
        pytest.skip("no quaternion in q")
    d = m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(4))
    qb, vb = bad(q, v)
    with pytest.raises((ValueError, TypeError), match=match):
        g.compute_rnea_derivatives(d, qb, vb, a)
    with pytest.raises((ValueError, TypeError), match=match):
        g.compute_aba_derivatives(d, qb, vb, a)


def test_checked_calls_convert_lists_and_refuse_another_models_data(generated):
    m, pm, g = generated
    d = m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(6))
    ref = [x.copy() for x in g.compute_rnea_derivatives(d, q, v, a)]
    for x, y in zip(g.compute_rnea_derivatives(d, list(q), v, a.tolist()), ref):
        assert np.array_equal(x, y)
    other = fd.samples.double_pendulum() if m.nv != 2 else get_pair("ur5")[0]
    with pytest.raises(ValueError, match="Data"):
        g.compute_aba_derivatives(other.create_data(), q, v, a)


def test_batch_rows_equal_the_checked_calls(generated, request):
    """fd.batch.*_derivatives(..., generated=gen): row r is gen.compute_*(data, row r)."""
    if request.node.callspec.params["generated"] == "tree":  # a compile of its own (~30 s):
        pytest.skip("the other models cover it (the free-flyers in the slow run)")
    m, pm, g = generated
    rng = np.random.default_rng(7)
    states = [random_state(pm, rng) for _ in range(3)]
    Q, V, A = (np.array([s[k] for s in states]) for k in range(3))
    d = m.create_data()
    for name, X in (("rnea_derivatives", A), ("aba_derivatives", A * 10.0)):
        out = getattr(fd.batch, "compute_" + name)(m, Q, V, X, generated=g)
        for r in range(Q.shape[0]):
            for x, y in zip(out, getattr(g, "compute_" + name)(d, Q[r], V[r], X[r])):
                assert np.array_equal(x[r], y)
    with pytest.raises(ValueError, match="no fext or prm"):
        fd.batch.compute_rnea_derivatives(m, Q, V, A, fext=np.zeros((m.njoints, 6)), generated=g)
    other = fd.samples.double_pendulum()
    with pytest.raises(ValueError, match="another model"):
        fd.batch.compute_aba_derivatives(other, np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)),
                                 generated=g)


def test_step_derivatives_with_generated_kernels(generated, request):
    """Scene.step_derivatives(..., generated=gen) on a contact-free step equals the generic
    Jacobians (themselves checked against finite differences of the step in
    tests/test_step_derivatives.py); with fext it takes the generic route. "tree" (a free-flyer
    root, three joints) is the default run's check of the generated step Jacobians on a floating
    base, the route behind the README's Solo12 ratio (solo12 itself is in the slow run)."""
    from fastdyn.kernels.layout import O_FREE
    from fastdyn.sim.step_derivatives import step_options
    m, pm, g = generated
    scene = fd.Scene(m, dt=1e-3, ground=False, limits=False)
    assert step_options(scene, m.prm[None])[O_FREE] > 0.0  # the generated route is taken
    rng = np.random.default_rng(8)
    q, v, _ = random_state(pm, rng)
    tau = rng.normal(size=m.nv)
    A, B = (x.copy() for x in scene.step_derivatives(q, v, tau))
    Ag, Bg = scene.step_derivatives(q, v, tau, generated=g)
    close(Ag, A, 1e-10)
    close(Bg, B, 1e-10)
    fext = rng.normal(size=(m.njoints, 6))
    for x, y in zip(scene.step_derivatives(q, v, tau, fext, generated=g),
                    scene.step_derivatives(q, v, tau, fext)):
        assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="another model"):
        fd.Scene(fd.samples.double_pendulum(), ground=False).step_derivatives(
            np.zeros(2), np.zeros(2), np.zeros(2), generated=g)
    _later_calls_take_the_short_route(m, g, scene, q, v, tau, Ag, Bg)
    _a_generated_horizon_is_its_single_calls(scene, g, q, v, rng)


def _a_generated_horizon_is_its_single_calls(scene, g, q, v, rng):
    """Scene.horizon(..., generated=g): the Jacobians at each of its states are
    step_derivatives(generated=g)'s there, bit for bit, and its states Scene.step's to
    round-off (the generated ABA's sums run in another order than the generic step's;
    tests/test_horizon.py holds the generic horizon to the generic calls bit for bit)."""
    U = rng.normal(size=(3, scene.model.nv))
    h = scene.horizon(q, v, U, generated=g)
    for k in range(3):
        A, B = scene.step_derivatives(h.q[k], h.v[k], U[k], generated=g)
        assert np.array_equal(h.A[k], A) and np.array_equal(h.B[k], B), k
        qn, vn = scene.step(h.q[k], h.v[k], U[k])
        close(h.q[k + 1], qn, 1e-12)  # reached: 0 (q) ...
        close(h.v[k + 1], vn, 1e-12)  # ... and 1e-16 (ur5, tree) to 2.8e-14 (solo12) of v's scale


def _later_calls_take_the_short_route(m, g, scene, q, v, tau, Ag, Bg):
    """After the first call, a contact-free step goes through the generated route's own short
    entry point (generated_step_derivatives.py's free_step_derivatives_checked): the same
    bits; an edited option, a new contact or bad input send it back to the full route."""
    assert scene._step_derivatives_free is not None
    for x, y in zip(scene.step_derivatives(q, v, tau, generated=g), (Ag, Bg)):
        assert np.array_equal(x, y)
    scene.dt = 2e-3  # the prepared options are stale: prepared again, with the new dt
    for x, y in zip(scene.step_derivatives(q, v, tau, generated=g),
                    scene.step_derivatives(q, v, tau)):
        close(x, y, 1e-10)
    assert not np.allclose(scene.step_derivatives(q, v, tau, generated=g)[0], Ag)
    bad = q.copy()
    bad[-1] = np.nan
    with pytest.raises(ValueError, match="q"):
        scene.step_derivatives(bad, v, tau, generated=g)
    frame = m.frame_names[-1]
    scene.add_sphere(frame, 0.05)  # a contact row: the generic route (equal, not generated)
    scene.add_halfspace((0.0, 0.0, 1.0), 10.0)
    scene.reset()
    ref = [x.copy() for x in scene.step_derivatives(q, v, tau)]
    scene.reset()
    for x, y in zip(scene.step_derivatives(q, v, tau, generated=g), ref):
        assert np.array_equal(x, y)


def _massless_leaf():
    """Joint j2 carries nothing: M is singular."""
    b = fd.ModelBuilder("massless_leaf")
    j1 = b.add_joint("j1", "revolute_z", 0)
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    b.add_joint("j2", "revolute_y", j1, (np.eye(3), np.array([0.2, 0.0, 0.0])))
    return b.build()


def test_a_singular_mass_matrix_and_a_missing_kernel_are_named():
    m = _massless_leaf()
    g = codegen.generate(m, algorithms=("aba_derivatives",))
    with pytest.raises(fd.SingularMassMatrixError):
        g.compute_aba_derivatives(m.create_data(), np.zeros(2), np.zeros(2), np.ones(2))
    with pytest.raises(fd.SingularMassMatrixError, match=r"row 0 \(of 3 failed\)"):
        fd.batch.compute_aba_derivatives(m, np.zeros((3, 2)), np.zeros((3, 2)), np.ones((3, 2)),
                                 generated=g)
    with pytest.raises(AttributeError, match="rnea_derivatives was not generated"):
        g.compute_rnea_derivatives(m.create_data(), np.zeros(2), np.zeros(2), np.ones(2))
    with pytest.raises(ValueError, match="no rnea_derivatives"):
        fd.batch.compute_rnea_derivatives(m, np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)),
                                  generated=g)


def test_derivatives_are_opt_in_and_refused_for_unsupported_joints():
    m = samples.double_pendulum()
    assert "rnea_derivatives" not in codegen.source(m)
    assert "def aba_derivatives(" in codegen.source(m, ("aba_derivatives",))
    b = fd.ModelBuilder("zyx")
    b.add_body(b.add_joint("j", "spherical_zyx", 0), 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    with pytest.raises(NotImplementedError, match="spherical_zyx"):
        codegen.source(b.build(), codegen.DERIVATIVES)
