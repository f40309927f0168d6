"""Configuration spaces (fastdyn/configuration.py, kernels/configuration/) against Pinocchio's
Lie-group functions, against finite differences through integrate/difference themselves, and
as identities, on models that together hold every joint type."""

import numba
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")  # compares with Pinocchio at import time

from fastdyn import configuration as cfg
from fastdyn import samples
from fastdyn.kernels.configuration import dispatch
from fastdyn.kernels.joints import codes

from oracle import to_pinocchio

TOL = 1e-12  # agreement with Pinocchio (relative and absolute) and exact identities
FAR_TOL = 1e-8  # Pinocchio's acos-based SO(2) log, see below
# Pinocchio's SE(2) exp and log divide by w and by 1 - cos w: ~1e-16 / w^2 relative error (up
# to 1.4e-10 seen, w ~ 1e-3); the formulas here do not (lie.exp_coeffs): planar entries get this.
PIN_SE2_TOL = 1e-9
FD_TOL = 1e-6  # central differences, step H
H = 1e-5
N = 12  # random states per model and check
TREE_SEEDS = (1, 3, 5)  # random_tree(30, seed, root="freeflyer"): with these, every joint type
MODELS = ("humanoid", "manipulator") + tuple(f"tree{s}" for s in TREE_SEEDS)
ARG0, ARG1 = pin.ArgumentPosition.ARG0, pin.ArgumentPosition.ARG1


@pytest.fixture(scope="module")
def models():
    ms = {"humanoid": samples.humanoid(), "manipulator": samples.manipulator()}
    for s in TREE_SEEDS:
        ms[f"tree{s}"] = samples.random_tree(30, s, root="freeflyer")
    return {k: (m, to_pinocchio(m)) for k, m in ms.items()}


@pytest.fixture(params=MODELS)
def model_pair(request, models):
    return models[request.param]


def _finite_limits(m):
    lo, hi = m.lower_position_limit, m.upper_position_limit
    return np.where(np.isfinite(lo), lo, -1.5), np.where(np.isfinite(hi), hi, 1.5)


def _states(m, pm, rng, n=N):
    """n configurations: half from fastdyn, half from pin.randomConfiguration (finite bounds)."""
    lo, hi = _finite_limits(m)
    pin.seed(int(rng.integers(1 << 30)))
    return [cfg.random_configuration(m, rng) if k % 2 else pin.randomConfiguration(pm, lo, hi)
            for k in range(n)]


def _pin_atol(m, per, tol=TOL):
    """Absolute tolerance per entry of q (per="q") or v / Jacobian rows (per="v")."""
    atol = np.full(m.nq if per == "q" else m.nv, tol)
    for r in m.jnt[1:]:
        if r["type"] == codes.PLANAR:
            o = r["idx_q"] if per == "q" else r["idx_v"]
            atol[o:o + (4 if per == "q" else 3)] = max(tol, PIN_SE2_TOL)
    return atol


def _assert_pin(actual, desired, atol):
    """|actual - desired| <= atol + TOL |desired| entrywise; atol per row."""
    atol = atol if actual.ndim == 1 else atol[:, None]
    excess = np.abs(actual - desired) - (atol + TOL * np.abs(desired))
    bad = np.argwhere(excess > 0)
    assert bad.size == 0, (f"{len(bad)} entries off, first at {bad[:3].tolist()}: "
                           f"{actual[tuple(bad[0])]!r} vs Pinocchio's {desired[tuple(bad[0])]!r}")


def _near(m, q0, v_scale, rng):
    """q0 (+) v for a random v with |v_i| <= v_scale (bounds the relative rotations)."""
    return cfg.integrate(m, q0, rng.uniform(-v_scale, v_scale, m.nv))


def test_models_hold_every_joint_type(models):
    seen = set()
    for m, _ in models.values():
        seen |= {int(t) for t in m.jnt["type"][1:]}
    assert seen == set(range(1, codes.NTYPES)), sorted(set(range(1, codes.NTYPES)) - seen)


def test_neutral(model_pair):
    m, pm = model_pair
    np.testing.assert_array_equal(cfg.neutral(m), pin.neutral(pm))


def test_integrate_difference_interpolate_match_pinocchio(model_pair):
    m, pm = model_pair
    rng = np.random.default_rng(1)
    qs = _states(m, pm, rng)
    tq, tv = _pin_atol(m, "q"), _pin_atol(m, "v")
    # Far pairs: Pinocchio's SO(2) log takes acos of the cosine, off by up to 4e-9 (measured)
    # for relative angles near pi. fastdyn matched a long-double reference to 2e-12 there.
    far_q, far_v = _pin_atol(m, "q", FAR_TOL), _pin_atol(m, "v", FAR_TOL)
    for k, q0 in enumerate(qs):
        v = rng.normal(size=m.nv) * (1.0 + (k % 2))  # |w| > pi now and then
        _assert_pin(cfg.integrate(m, q0, v), pin.integrate(pm, q0, v), tq)
        _assert_pin(cfg.integrate(m, q0, v, 0.3), pin.integrate(pm, q0, 0.3 * v), tq)
        for q1, aq, av in ((_near(m, q0, 2.5, rng), tq, tv), (qs[k - 1], far_q, far_v)):
            _assert_pin(cfg.difference(m, q0, q1), pin.difference(pm, q0, q1), av)
            for u in (0.0, 1.0, rng.uniform(-0.25, 1.25)):
                _assert_pin(cfg.interpolate(m, q0, q1, u), pin.interpolate(pm, q0, q1, u), aq)


def test_jacobians_match_pinocchio(model_pair):
    # q1 near q0: Pinocchio's dDifference takes log3 of a matrix and loses digits for relative
    # rotations near pi (5e-12 at pi - 5e-3); the quaternion log used here does not.
    m, pm = model_pair
    rng = np.random.default_rng(2)
    tv = _pin_atol(m, "v")
    for q0 in _states(m, pm, rng):
        v = rng.uniform(-1.0, 1.0, m.nv)
        q1 = _near(m, q0, 1.0, rng)
        for arg, pa in (("q", ARG0), ("v", ARG1)):
            _assert_pin(cfg.d_integrate(m, q0, v, arg), pin.dIntegrate(pm, q0, v, pa), tv)
        for arg, pa in (("q0", ARG0), ("q1", ARG1)):
            _assert_pin(cfg.d_difference(m, q0, q1, arg), pin.dDifference(pm, q0, q1, pa), tv)


def _fd(f, base, m):
    """Central differences of the step d -> f(d) (-) base (or f(d) itself when base is None,
    f then returning a tangent vector): columns (f(h e_k) - f(-h e_k)) / 2h."""
    J = np.empty((m.nv, m.nv))
    for k in range(m.nv):
        e = np.zeros(m.nv)
        e[k] = H
        if base is None:
            J[:, k] = (f(e) - f(-e)) / (2 * H)
        else:
            J[:, k] = (cfg.difference(m, base, f(e)) - cfg.difference(m, base, f(-e))) / (2 * H)
    return J


@pytest.mark.parametrize("scale", [1.0, 1e-3])
def test_jacobians_finite_differences(models, scale):
    # scale 1e-3 probes the small-angle branches, where Pinocchio's Jexp6 is off by up to 4e-8.
    rng = np.random.default_rng(3)
    for m, _ in models.values():
        q0 = cfg.random_configuration(m, rng)
        v = rng.uniform(-scale, scale, m.nv)
        # far pairs too at scale 1 (no wrap-around within H: relative angles are not that near pi)
        q1 = cfg.random_configuration(m, rng) if scale == 1.0 else _near(m, q0, scale, rng)
        base = cfg.integrate(m, q0, v)
        checks = {
            ("d_integrate", "q"): _fd(lambda d: cfg.integrate(m, cfg.integrate(m, q0, d), v),
                                      base, m),
            ("d_integrate", "v"): _fd(lambda d: cfg.integrate(m, q0, v + d), base, m),
            ("d_difference", "q0"): _fd(lambda d: cfg.difference(m, cfg.integrate(m, q0, d), q1),
                                        None, m),
            ("d_difference", "q1"): _fd(lambda d: cfg.difference(m, q0, cfg.integrate(m, q1, d)),
                                        None, m),
        }
        for (fn, arg), J_fd in checks.items():
            J = getattr(cfg, fn)(m, q0, v if fn == "d_integrate" else q1, arg)
            np.testing.assert_allclose(J, J_fd, 0, FD_TOL, err_msg=f"{m.name} {fn} {arg}")


def test_identities(model_pair):
    m, pm = model_pair
    rng = np.random.default_rng(4)
    zero = np.zeros(m.nv)
    eye = np.eye(m.nv)
    for q0 in _states(m, pm, rng, 6):
        q1 = cfg.random_configuration(m, rng)
        for scale in (0.5, 1e-9):
            v = rng.uniform(-scale, scale, m.nv)
            np.testing.assert_allclose(cfg.difference(m, q0, cfg.integrate(m, q0, v)), v, 0,
                                       TOL if scale > 1e-3 else 1e-15)
        dt = 0.37
        np.testing.assert_array_equal(cfg.integrate(m, q0, v, dt), cfg.integrate(m, q0, v * dt))
        np.testing.assert_allclose(cfg.difference(m, q1, cfg.integrate(m, q0, cfg.difference(
            m, q0, q1))), zero, 0, TOL)
        for u, end in ((0.0, q0), (1.0, q1)):
            np.testing.assert_allclose(cfg.difference(m, end, cfg.interpolate(m, q0, q1, u)),
                                       zero, 0, TOL)
        np.testing.assert_allclose(cfg.difference(m, q0, q0), zero, 0, TOL)
        # Jacobians at the identity: every small-angle branch at exactly zero
        np.testing.assert_allclose(cfg.d_integrate(m, q0, zero, "q"), eye, 0, TOL)
        np.testing.assert_allclose(cfg.d_integrate(m, q0, zero, "v"), eye, 0, TOL)
        np.testing.assert_allclose(cfg.d_difference(m, q0, q0, "q0"), -eye, 0, TOL)
        np.testing.assert_allclose(cfg.d_difference(m, q0, q0, "q1"), eye, 0, TOL)


def test_normalize_and_is_normalized(model_pair):
    m, pm = model_pair
    rng = np.random.default_rng(5)
    has_lie = any(int(t) in codes.LIE_TYPES for t in m.jnt["type"])
    for q in _states(m, pm, rng, 4):
        assert cfg.is_normalized(m, q) and pin.isNormalized(pm, q)
        noisy = q + rng.normal(scale=1e-3, size=m.nq)
        assert cfg.is_normalized(m, noisy) == pin.isNormalized(pm, noisy) == (not has_lie)
        assert cfg.is_normalized(m, noisy, tol=0.1)
        assert cfg.is_normalized(m, noisy, 1e-2) == pin.isNormalized(pm, noisy, 1e-2)
        fixed = cfg.normalize(m, noisy)
        np.testing.assert_allclose(fixed, pin.normalize(pm, noisy), 0, 1e-15)
        assert cfg.is_normalized(m, fixed) and pin.isNormalized(pm, fixed)


def _effective_bounds(m):
    """What random_configuration documents: the model's limits, -+pi (angles) or -+1 m
    (positions) where infinite; `vec` marks the coordinates that bounds apply to."""
    lo, hi = m.lower_position_limit.copy(), m.upper_position_limit.copy()
    default, vec = np.zeros(m.nq), np.zeros(m.nq, bool)
    lengths = (codes.PRISMATIC_X, codes.PRISMATIC_Y, codes.PRISMATIC_Z, codes.PRISMATIC,
               codes.TRANSLATION, codes.FREEFLYER, codes.PLANAR)
    for r in m.jnt[1:]:
        t, iq, nq = int(r["type"]), int(r["idx_q"]), int(r["nq"])
        n = {codes.FREEFLYER: 3, codes.PLANAR: 2}.get(t, 0 if t in codes.LIE_TYPES else nq)
        vec[iq:iq + n] = True
        default[iq:iq + n] = 1.0 if t in lengths else np.pi
    lo = np.where(np.isinf(lo), -default, lo)
    hi = np.where(np.isinf(hi), default, hi)
    return lo, hi, vec, default


def test_random_configuration(model_pair):
    m, pm = model_pair
    np.testing.assert_array_equal(cfg.random_configuration(m, 7),
                                  cfg.random_configuration(m, np.random.default_rng(7)))
    assert not np.array_equal(cfg.random_configuration(m, 7), cfg.random_configuration(m, 8))
    lo, hi, vec, default = _effective_bounds(m)
    rng = np.random.default_rng(6)
    Q = np.array([cfg.random_configuration(m, rng) for _ in range(200)])
    assert np.all(Q[:, vec] >= lo[vec]) and np.all(Q[:, vec] <= hi[vec])
    assert np.all(np.ptp(Q[:, vec], axis=0) > 0.5 * (hi - lo)[vec])  # spread, not stuck
    assert all(cfg.is_normalized(m, q) and pin.isNormalized(pm, q) for q in Q)
    # a custom box, one coordinate bounded on one side only
    lo2, hi2 = lo + 0.25 * (hi - lo), hi - 0.25 * (hi - lo)
    k = int(np.flatnonzero(vec)[0])
    lo2[k], hi2[k] = -np.inf, -5.0
    Q = np.array([cfg.random_configuration(m, rng, lo2, hi2) for _ in range(50)])
    keep = vec.copy()
    keep[k] = False
    assert np.all(Q[:, keep] >= lo2[keep]) and np.all(Q[:, keep] <= hi2[keep])
    # -inf became -pi or -1 m, above -5: so it is put one default range (2 pi, 2 m) below -5
    assert np.all(Q[:, k] >= -5.0 - 2 * default[k]) and np.all(Q[:, k] <= -5.0)


def test_random_quaternions_are_uniform(models):
    m, _ = models["humanoid"]
    iq = int(m.jnt[m.joint_id("left_hip")]["idx_q"])
    Q = np.array([cfg.random_configuration(m, s)[iq:iq + 4] for s in range(2000)])
    # uniform on SO(3) = uniform on S^3: E[q] = 0, E[q q^T] = I / 4
    np.testing.assert_allclose(Q.mean(axis=0), 0.0, atol=0.05)
    np.testing.assert_allclose(Q.T @ Q / len(Q), np.eye(4) / 4, atol=0.02)


def test_bad_inputs(models):
    m, _ = models["humanoid"]
    q = cfg.neutral(m)
    v = np.zeros(m.nv)
    with pytest.raises(ValueError, match=rf"q must have shape \({m.nq},\)"):
        cfg.integrate(m, q[:-1], v)
    with pytest.raises(ValueError, match=r"v must have shape"):
        cfg.integrate(m, q, np.zeros(m.nv + 1))
    with pytest.raises(ValueError, match="non-finite"):
        cfg.difference(m, q, np.where(np.arange(m.nq) == 2, np.nan, q))
    with pytest.raises(ValueError, match="non-finite"):
        cfg.d_integrate(m, q, np.full(m.nv, np.nan), "q")
    bad = q.copy()
    bad[6] = 2.0  # free-flyer quaternion w
    with pytest.raises(ValueError, match="quaternion.*norm"):
        cfg.integrate(m, bad, v)
    with pytest.raises(ValueError, match=r"arg must be one of \('q', 'v'\)"):
        cfg.d_integrate(m, q, v, "q0")
    with pytest.raises(ValueError, match=r"arg must be one of \('q0', 'q1'\)"):
        cfg.d_difference(m, q, q, "v")
    with pytest.raises(ValueError, match="dt must be finite"):
        cfg.integrate(m, q, v, np.nan)
    with pytest.raises(ValueError, match="u must be finite"):
        cfg.interpolate(m, q, q, np.inf)
    with pytest.raises(ValueError, match="lower must have shape"):
        cfg.random_configuration(m, 0, lower=np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        cfg.random_configuration(m, 0, upper=np.full(m.nq, np.nan))
    with pytest.raises(ValueError, match="lower > upper"):
        cfg.random_configuration(m, 0, lower=np.ones(m.nq), upper=np.zeros(m.nq))
    with pytest.raises(ValueError, match="is zero"):
        cfg.normalize(m, np.zeros(m.nq))
    with pytest.raises(ValueError, match="tol must be >= 0"):
        cfg.is_normalized(m, q, -1.0)


def test_kernels_callable_from_njit(models):
    m, pm = models["tree5"]

    @numba.njit
    def there_and_back(jnt, q, v, out_q, out_v):
        dispatch.integrate(jnt, q, v, 1.0, out_q)
        dispatch.difference(jnt, q, out_q, out_v)

    rng = np.random.default_rng(8)
    q = cfg.random_configuration(m, rng)
    v = rng.uniform(-0.5, 0.5, m.nv)
    out_q, out_v = np.empty(m.nq), np.empty(m.nv)
    there_and_back(m.jnt, q, v, out_q, out_v)
    _assert_pin(out_q, pin.integrate(pm, q, v), _pin_atol(m, "q"))
    np.testing.assert_allclose(out_v, v, 0, TOL)


def test_minimum_jerk_is_a_rest_to_rest_geodesic(models):
    """On trees of every joint type (free-flyer root): the path starts at q0 and ends at q1,
    at rest, and V, A are its derivatives: Q[k-1] to Q[k+1] differs by (h_{k+1} - h_{k-1}) d
    along the one-parameter subgroup, so central differences of Q (and of V) match V (and A)
    to O(dt^2). A path built with q + h d on quaternions, or a V off by a factor, fails."""
    for name in ("humanoid", "tree1"):
        m, _ = models[name]
        rng = np.random.default_rng(7)
        q0 = cfg.random_configuration(m, rng)
        q1 = _near(m, q0, 0.5, rng)
        t, Q, V, A = cfg.minimum_jerk(m, q0, q1, 0.8, 801)
        dt = t[1] - t[0]
        assert Q.shape == (801, m.nq) and V.shape == A.shape == (801, m.nv)
        np.testing.assert_allclose(Q[0], q0, atol=1e-14)
        np.testing.assert_allclose(cfg.difference(m, Q[-1], q1), 0, atol=1e-12)
        assert np.abs(V[[0, -1]]).max() == 0 and np.abs(A[[0, -1]]).max() == 0
        scale = np.abs(V).max()
        for k in (100, 400, 650):
            fd_v = cfg.difference(m, Q[k - 1], Q[k + 1]) / (2 * dt)
            np.testing.assert_allclose(fd_v, V[k], atol=1e-4 * scale)
            np.testing.assert_allclose((V[k + 1] - V[k - 1]) / (2 * dt), A[k],
                                       atol=1e-4 * np.abs(A).max())
    with pytest.raises(ValueError, match="duration"):
        cfg.minimum_jerk(m, q0, q1, 0.0, 10)
