"""Kinematics and centroidal derivatives: against Pinocchio, against central finite differences
through ``integrate`` (the independent check, and the only one where Pinocchio 4.1 differs:
LOCAL_WORLD_ALIGNED q-derivatives, spherical_zyx and universal joints), against identities
that tie them to Jacobians, frame motion and the centroidal momentum, and bad input."""

import numba
import numpy as np
import pytest

import fastdyn as fd
from conftest import close, get_pair, needs_pinocchio, pin, random_state, to_pinocchio
from fastdyn.kernels import (centroidal_dynamics_derivatives, frame_motion_derivatives,
                             kinematics_derivatives, workspace)
from fastdyn.kernels.joints import codes

PIN_TYPES = tuple(t for t in codes.NAMES[1:]
                  if t not in ("freeflyer", "spherical_zyx", "universal"))
REFS = ((fd.LOCAL, "LOCAL"), (fd.WORLD, "WORLD"), (fd.LOCAL_WORLD_ALIGNED, "LOCAL_WORLD_ALIGNED"))
FD_STEP = 1e-6
FD_TOL = 1e-6
_mixed = []


@pytest.fixture(scope="module", params=["ur5", "solo12", "talos", "mixed_tree"])
def at_state(request):
    """(model, pinocchio model, data, pinocchio data, q, v, a) after both passes at one random
    state (each model built once)."""
    if request.param != "mixed_tree":
        m, pm = get_pair(request.param)
    else:
        needs_pinocchio()
        if not _mixed:
            t = fd.samples.random_tree(20, seed=11, types=PIN_TYPES, root="freeflyer")
            _mixed.append((t, to_pinocchio(t)))
        m, pm = _mixed[0]
    d, pd = m.create_data(), pm.createData()
    q, v, a = random_state(pm, np.random.default_rng(20))
    fd.compute_forward_kinematics_derivatives(m, d, q, v, a)
    pin.computeForwardKinematicsDerivatives(pm, pd, q, v, a)
    return m, pm, d, pd, q, v, a


def _pin_lwa_fixed_point(ref, moving_w, J):
    """Pinocchio 4.1's LOCAL_WORLD_ALIGNED d/dq holds the frame origin p fixed; the derivative
    of the quantity adds [w x dp/dq; 0], dp/dq the linear rows of the LWA Jacobian."""
    out = ref.copy()
    out[:3] += np.cross(moving_w, J[:3].T).T
    return out


def _pin_world_da_dq(pm, pd, b, ref, p):
    """Pinocchio 4.1's WORLD (and LWA) da/dq of body b takes dJ_k = ov_i x J_k where
    ov_lambda x J_k belongs (i the joint of dof k, lambda its parent). The two differ on the
    columns of spherical and planar joints not at the root, where S_k x S_l != 0; with
    the derivative's term, (ov_b - ov_lambda) x ((ov_i - ov_lambda) x J_k) is missing. Added
    here (translated to p in LWA) so the rest is compared; finite differences decide there."""
    out = ref.copy()
    support = []
    j = b
    while j > 0:
        support.append(j)
        j = pm.parents[j]
    for i in support:
        if pm.parents[i] == 0:  # there Pinocchio has the derivative's term
            continue
        lam = pd.ov[pm.parents[i]]
        for c in range(pm.joints[i].idx_v, pm.joints[i].idx_v + pm.joints[i].nv):
            x = ((pd.ov[b] - lam) ^ ((pd.ov[i] - lam) ^ pin.Motion(pd.J[:, c]))).vector
            if p is not None:
                x[:3] += np.cross(x[3:], p)
            out[:, c] += x
    return out


def _check_against_pinocchio(ours_v, ours_a, pin_v, pin_a, motion_v, motion_a, lwa):
    """ours_v = (dv_dq, dv_dv), ours_a = (dv_dq, da_dq, da_dv, da_da), and Pinocchio's; motion_*
    its velocity and acceleration of the target in LWA (for the moving-point term)."""
    pv_dq, pa_dq = pin_v[0], pin_a[1]
    if lwa:
        pv_dq = _pin_lwa_fixed_point(pv_dq, motion_v.angular, pin_v[1])
        pa_dq = _pin_lwa_fixed_point(pa_dq, motion_a.angular, pin_v[1])
    close(ours_v[0], pv_dq)
    close(ours_v[1], pin_v[1])
    close(ours_a[0], pv_dq)
    close(ours_a[1], pa_dq)
    close(ours_a[2], pin_a[2])
    close(ours_a[3], pin_a[3])


def test_joint_derivatives_match_pinocchio(at_state):
    m, pm, d, pd, q, v, a = at_state
    for j in range(m.njoints):
        for ref, name in REFS:
            pref = getattr(pin, name)
            ours_v = [x.copy() for x in fd.get_joint_velocity_derivatives(m, d, j, ref)]
            ours_a = fd.get_joint_acceleration_derivatives(m, d, j, ref)
            lwa = pin.LOCAL_WORLD_ALIGNED
            pin_a = list(pin.getJointAccelerationDerivatives(pm, pd, j, pref))
            if ref != fd.LOCAL:
                p = pd.oMi[j].translation if ref == fd.LOCAL_WORLD_ALIGNED else None
                pin_a[1] = _pin_world_da_dq(pm, pd, j, pin_a[1], p)
            _check_against_pinocchio(
                ours_v, ours_a, pin.getJointVelocityDerivatives(pm, pd, j, pref), pin_a,
                pin.getVelocity(pm, pd, j, lwa), pin.getAcceleration(pm, pd, j, lwa),
                ref == fd.LOCAL_WORLD_ALIGNED)


def test_frame_derivatives_match_pinocchio(at_state):
    m, pm, d, pd, q, v, a = at_state
    pin.updateFramePlacements(pm, pd)
    frames = range(m.nframes) if m.nframes < 60 else range(0, m.nframes, 3)  # Talos: 1 in 3
    for f in frames:
        for ref, name in REFS:
            pref = getattr(pin, name)
            ours_v = [x.copy() for x in fd.get_frame_velocity_derivatives(m, d, f, ref)]
            ours_a = fd.get_frame_acceleration_derivatives(m, d, f, ref)
            lwa = pin.LOCAL_WORLD_ALIGNED
            pin_a = list(pin.getFrameAccelerationDerivatives(pm, pd, f, pref))
            if ref != fd.LOCAL:
                p = pd.oMf[f].translation if ref == fd.LOCAL_WORLD_ALIGNED else None
                pin_a[1] = _pin_world_da_dq(pm, pd, pm.frames[f].parentJoint, pin_a[1], p)
            _check_against_pinocchio(
                ours_v, ours_a, pin.getFrameVelocityDerivatives(pm, pd, f, pref), pin_a,
                pin.getFrameVelocity(pm, pd, f, lwa), pin.getFrameAcceleration(pm, pd, f, lwa),
                ref == fd.LOCAL_WORLD_ALIGNED)
        close(d.oMf[f], np.concatenate([pd.oMf[f].rotation.ravel(), pd.oMf[f].translation]))


def test_centroidal_derivatives_match_pinocchio(at_state):
    m, pm, d, pd, q, v, a = at_state
    ours = fd.compute_centroidal_dynamics_derivatives(m, d, q, v, a)
    for x, y in zip(ours, pin.computeCentroidalDynamicsDerivatives(pm, pd, q, v, a)):
        close(x, y)
    close(d.hg, pd.hg.vector)
    close(d.dhg, pd.dhg.vector)  # Pinocchio's linear-first Force: the same order as fastdyn's
    close(d.hg, fd.compute_centroidal_momentum(m, m.create_data(), q, v))


# --- central finite differences: every joint type, spherical_zyx and universal included ------

def _central(f, m, q, v, a, which):
    """Columns of d f / d(which) by central differences; q moves along tangents (integrate)."""
    cols = []
    for k in range(m.nv):
        e = np.zeros(m.nv)
        e[k] = FD_STEP
        if which == "q":
            hi, lo = f(fd.integrate(m, q, e), v, a), f(fd.integrate(m, q, -e), v, a)
        elif which == "v":
            hi, lo = f(q, v + e, a), f(q, v - e, a)
        else:
            hi, lo = f(q, v, a + e), f(q, v, a - e)
        cols.append((hi - lo) / (2 * FD_STEP))
    return np.stack(cols, axis=-1)


FD_MODELS = ["humanoid", "tree_free", "tree_planar"]


def test_finite_differences_cover_every_joint_type():
    seen = set()
    for name in FD_MODELS:
        m, _ = get_pair(name)
        seen |= {m.joint_type(i) for i in range(1, m.njoints)}
    assert seen == set(codes.NAMES[1:])


@pytest.mark.parametrize("name", FD_MODELS)
def test_derivatives_match_finite_differences(name):
    """Every frame, every reference, of the quantities frame_velocity and frame_acceleration
    return, and the centroidal momentum and its rate."""
    m, pm = get_pair(name)  # humanoid: spherical, ZYX, universal, helical, prismatic ...
    d, work = m.create_data(), m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(21))
    frames = range(m.nframes)
    refs = [r for r, _ in REFS]

    def motion(q, v, a):  # (nframes, refs, velocity / acceleration, 6)
        fd.forward_kinematics(m, work, q, v, a)
        return np.array([[(fd.get_frame_velocity(m, work, f, r), fd.get_frame_acceleration(m, work, f, r))
                          for r in refs] for f in frames])

    num = {w: _central(motion, m, q, v, a, w) for w in "qva"}
    fd.compute_forward_kinematics_derivatives(m, d, q, v, a)
    for f in frames:
        for k, r in enumerate(refs):
            dv_dq, da_dq, da_dv, da_da = fd.get_frame_acceleration_derivatives(m, d, f, r)
            close(dv_dq, num["q"][f, k, 0], FD_TOL)
            close(da_dq, num["q"][f, k, 1], FD_TOL)
            close(da_dv, num["v"][f, k, 1], FD_TOL)
            close(da_da, num["a"][f, k, 1], FD_TOL)
            close(fd.get_frame_velocity_derivatives(m, d, f, r)[1], num["v"][f, k, 0], FD_TOL)

    def centroidal(q, v, a):
        h = fd.compute_centroidal_momentum(m, work, q, v).copy()
        return np.concatenate([h, fd.compute_centroidal_momentum_time_variation(m, work, q, v, a)])

    dh_dq, dhdot_dq, dhdot_dv, dhdot_da = fd.compute_centroidal_dynamics_derivatives(m, d, q, v, a)
    nq, nv, na = (_central(centroidal, m, q, v, a, w) for w in "qva")
    close(dh_dq, nq[:6], FD_TOL)
    close(dhdot_dq, nq[6:], FD_TOL)
    close(dhdot_dv, nv[6:], FD_TOL)
    close(dhdot_da, na[6:], FD_TOL)
    close(dhdot_da, nv[:6], FD_TOL)


# --- identities ---------------------------------------------------------------------------

def test_identities_with_jacobians_and_frame_motion():
    """dv_dv = da_da = frame_jacobian; dv/dt = dv_dq v + dv_dv a is frame_acceleration (LOCAL,
    WORLD) and frame_classical_acceleration (LWA: the derivative of the mixed velocity is the
    origin's acceleration); da_dv v = 2 (acceleration - J a); the pass leaves
    forward_kinematics' v and a; the velocity getter's dv_dq is the acceleration getter's."""
    m, pm = get_pair("humanoid")
    d, ref = m.create_data(), m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(22))
    fd.compute_forward_kinematics_derivatives(m, d, q, v, a)
    fd.forward_kinematics(m, ref, q, v, a)
    close(d.v, ref.v, 1e-12)
    close(d.a, ref.a, 1e-12)
    for f in (1, m.nframes // 2, m.nframes - 1):
        for r, _ in REFS:
            dv_dq, dv_dv = (x.copy() for x in fd.get_frame_velocity_derivatives(m, d, f, r))
            dv_dq2, da_dq, da_dv, da_da = fd.get_frame_acceleration_derivatives(m, d, f, r)
            assert np.array_equal(dv_dq, dv_dq2)
            J = fd.compute_frame_jacobian(m, ref, q, f, r)
            close(dv_dv, J, 1e-12)
            assert np.array_equal(da_da, dv_dv)
            fd.forward_kinematics(m, ref, q, v, a)
            close(dv_dv @ v, fd.get_frame_velocity(m, ref, f, r), 1e-12)
            rate = fd.get_frame_classical_acceleration if r == fd.LOCAL_WORLD_ALIGNED \
                else fd.get_frame_acceleration
            close(dv_dq @ v + dv_dv @ a, rate(m, ref, f, r), 1e-11)
            # the acceleration is J a plus a term quadratic in v: Euler's theorem on it
            close(da_dv @ v, 2 * (fd.get_frame_acceleration(m, ref, f, r) - da_da @ a), 1e-11)
    j = m.njoints - 1
    close(fd.get_joint_velocity_derivatives(m, d, j, fd.LOCAL)[1],
          fd.compute_joint_jacobian(m, ref, q, j, fd.LOCAL), 1e-12)


def test_centroidal_identities():
    """dh_g/dt = dh_dq v + A_g a; dhdot_da is A_g (compute_centroidal_map), twice over."""
    m, pm = get_pair("humanoid")
    d, ref = m.create_data(), m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(23))
    dh_dq, dhdot_dq, dhdot_dv, Ag = fd.compute_centroidal_dynamics_derivatives(m, d, q, v, a)
    assert Ag is d.Ag
    close(Ag, fd.compute_centroidal_map(m, ref, q), 1e-12)
    close(dh_dq @ v + Ag @ a, fd.compute_centroidal_momentum_time_variation(m, ref, q, v, a),
          1e-11)
    close(d.dhg, ref.dhg, 1e-12)
    close(d.hg, Ag @ v, 1e-12)


def test_views_out_and_no_leaked_state():
    m, pm = get_pair("tree_free")
    d = m.create_data()
    rng = np.random.default_rng(24)
    q, v, a = random_state(pm, rng)
    j = m.njoints - 1
    fd.compute_forward_kinematics_derivatives(m, d, q, v, a)
    first = [x.copy() for x in fd.get_joint_acceleration_derivatives(m, d, j, fd.WORLD)]
    fd.get_joint_acceleration_derivatives(m, d, 2, fd.LOCAL)  # another support: other zeros
    got = fd.get_joint_acceleration_derivatives(m, d, j, fd.WORLD)
    assert got[0] is d.dv_dq and got[1] is d.da_dq and got[2] is d.da_dv and got[3] is d.da_da
    for x, y in zip(first, got):
        assert np.array_equal(x, y)
    out = tuple(np.full((6, m.nv), np.nan) for _ in range(4))
    res = fd.get_joint_acceleration_derivatives(m, d, j, fd.WORLD, out=out)
    assert all(x is y for x, y in zip(res, out))
    for x, y in zip(first, out):
        assert np.array_equal(x, y)
    out2 = (np.full((6, m.nv), np.nan), np.full((6, m.nv), np.nan))
    fd.get_frame_velocity_derivatives(m, d, m.frame_names[-1], fd.LOCAL, out=out2)
    close(out2[1], fd.compute_frame_jacobian(m, m.create_data(), q, m.nframes - 1), 1e-12)
    # the centroidal pass leaves the same kinematics derivatives
    fd.compute_centroidal_dynamics_derivatives(m, d, *random_state(pm, rng))
    fd.compute_centroidal_dynamics_derivatives(m, d, q, v, a)
    for x, y in zip(first, fd.get_joint_acceleration_derivatives(m, d, j, fd.WORLD)):
        assert np.array_equal(x, y)


def test_far_from_the_origin():
    """A floating robot 10 km away: LOCAL and LOCAL_WORLD_ALIGNED derivatives and the
    centroidal ones do not depend on where it is, and keep their digits (the pass works at the
    first joint's origin); WORLD ones are the near ones moved by the offset."""
    m, pm = get_pair("solo12")
    d = m.create_data()
    q, v, a = random_state(pm, np.random.default_rng(25))
    far = q.copy()
    far[:3] += 1e4
    f = m.nframes - 1
    res = {}
    for key, x in (("near", q), ("far", far)):
        fd.compute_forward_kinematics_derivatives(m, d, x, v, a)
        res[key] = [[y.copy() for y in fd.get_frame_acceleration_derivatives(m, d, f, r)]
                    for r, _ in REFS]
        res[key].append([y.copy() for y in fd.compute_centroidal_dynamics_derivatives(m, d, x, v,
                                                                                      a)])
    for k in (0, 2, 3):
        for x, y in zip(res["far"][k], res["near"][k]):
            close(x, y, 1e-9)
    s = np.full(3, 1e4)  # WORLD: the far twist at the origin is the near one at -s
    for x, y in zip(res["far"][1], res["near"][1]):
        moved = y.copy()
        moved[:3] += np.cross(s, y[3:].T).T
        close(x, moved, 1e-9)


# --- the kernels from a user's own @njit code ---------------------------------------------

@numba.njit(cache=False)
def _tip_derivatives(jnt, prm, frm, q, v, a, ws, f, reference, oMf, dv_dq, dv_dv, da_dq, da_dv,
                     da_da):
    kinematics_derivatives(jnt, prm, q, v, a, ws)
    frame_motion_derivatives(jnt, frm, ws, f, reference, oMf, dv_dq, dv_dv, da_dq, da_dv,
                             da_da)


def test_kernels_from_user_njit_code():
    m, pm = get_pair("manipulator")
    q, v, a = random_state(pm, np.random.default_rng(26))
    outs = [np.zeros((6, m.nv)) for _ in range(5)]
    f = m.nframes - 1
    _tip_derivatives(m.jnt, m.prm, m.frm, q, v, a, workspace(m.jnt), f, fd.WORLD,
                     np.zeros((m.nframes, 12)), *outs)
    d = m.create_data()
    fd.compute_forward_kinematics_derivatives(m, d, q, v, a)
    ref = fd.get_frame_acceleration_derivatives(m, d, f, fd.WORLD)
    for x, y in zip((outs[0], outs[2], outs[3], outs[4]), ref):
        assert np.array_equal(x, y)
    mats = [np.zeros((6, m.nv)) for _ in range(4)]
    mass = centroidal_dynamics_derivatives(m.jnt, m.prm, q, v, a, workspace(m.jnt), *mats,
                                           np.zeros(6), np.zeros(6))
    assert mass == pytest.approx(m.mass.sum())
    for x, y in zip(mats, fd.compute_centroidal_dynamics_derivatives(m, d, q, v, a)):
        assert np.array_equal(x, y)


# --- bad input -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hum():
    m, _ = get_pair("humanoid")
    return m, m.create_data(), fd.configuration.neutral(m)


PASSES = {"kinematics": fd.compute_forward_kinematics_derivatives,
          "centroidal": fd.compute_centroidal_dynamics_derivatives}


@pytest.mark.parametrize("which", list(PASSES))
def test_bad_state_is_named(hum, which):
    m, d, q = hum
    call = PASSES[which]
    z = np.zeros(m.nv)
    with pytest.raises(ValueError, match=r"q must have shape \(35,\)"):
        call(m, d, q[:-1], z, z)
    with pytest.raises(ValueError, match=r"v must have shape \(31,\), got \(30,\)"):
        call(m, d, q, z[:-1], z)
    with pytest.raises(ValueError, match=r"a must have shape"):
        call(m, d, q, z, np.zeros((31, 1)))
    bad = z.copy()
    bad[4] = np.nan
    with pytest.raises(ValueError, match=r"a has non-finite entries at indices \[4\]"):
        call(m, d, q, z, bad)
    qb = q.copy()
    qb[3:7] = [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="quaternion of joint 'root_joint'.*normalize"):
        call(m, d, qb, z, z)
    with pytest.raises(ValueError, match="not created by"):
        call(m, fd.samples.humanoid().create_data(), q, z, z)
    with pytest.raises(TypeError, match="must be a real"):
        call(m, d, q, z.astype(complex), z)
    with pytest.raises(fd.NumericalOverflowError):
        call(m, d, q, np.full(m.nv, 1e200), z)
    assert d.kinematics == 0  # a failed pass leaves nothing the getters would read


def test_getters_refuse_stale_or_missing_derivatives(hum):
    m, _, q = hum
    d = m.create_data()
    z = np.zeros(m.nv)
    getters = (fd.get_joint_velocity_derivatives, fd.get_joint_acceleration_derivatives,
               fd.get_frame_velocity_derivatives, fd.get_frame_acceleration_derivatives)
    for g in getters:
        with pytest.raises(RuntimeError, match="compute_forward_kinematics_derivatives"):
            g(m, d, 1)
    fd.compute_forward_kinematics_derivatives(m, d, q, z, z)
    for g in getters:
        g(m, d, 1)
    for other in (lambda: fd.forward_kinematics(m, d, q, z, z), lambda: fd.rnea(m, d, q, z, z),
                  lambda: fd.compute_rnea_derivatives(m, d, q, z, z),
                  lambda: fd.compute_centroidal_map(m, d, q)):
        fd.compute_forward_kinematics_derivatives(m, d, q, z, z)
        other()
        for g in getters:
            with pytest.raises(RuntimeError, match="reads the kinematics derivatives"):
                g(m, d, 1)


def test_getters_check_names_references_and_outputs(hum):
    m, d, q = hum
    z = np.zeros(m.nv)
    fd.compute_forward_kinematics_derivatives(m, d, q, z, z)
    with pytest.raises(KeyError, match="no joint named 'elbow'"):
        fd.get_joint_velocity_derivatives(m, d, "elbow")
    with pytest.raises(KeyError, match="no frame named 'tool'"):
        fd.get_frame_acceleration_derivatives(m, d, "tool")
    with pytest.raises(IndexError, match="out of range"):
        fd.get_joint_acceleration_derivatives(m, d, m.njoints)
    with pytest.raises(IndexError, match="out of range"):
        fd.get_frame_velocity_derivatives(m, d, -1)
    with pytest.raises(TypeError):
        fd.get_joint_velocity_derivatives(m, d, 1.0)
    with pytest.raises(ValueError, match="Pinocchio ReferenceFrame"):
        fd.get_joint_velocity_derivatives(m, d, 1, pin.LOCAL)
    with pytest.raises(ValueError, match="reference must be"):
        fd.get_frame_velocity_derivatives(m, d, 1, 3)
    with pytest.raises(TypeError, match="out must be a tuple of 2 arrays"):
        fd.get_joint_velocity_derivatives(m, d, 1, out=np.zeros((6, m.nv)))
    with pytest.raises(TypeError, match="out must be a tuple of 4 arrays"):
        fd.get_joint_acceleration_derivatives(m, d, 1, out=(np.zeros((6, m.nv)),) * 2)
    with pytest.raises(ValueError, match=r"out\[1\] \(dv_dv\)"):
        fd.get_joint_velocity_derivatives(m, d, 1, out=(np.zeros((6, m.nv)),
                                                        np.zeros((6, m.nv - 1))))
    with pytest.raises((TypeError, ValueError), match=r"out\[0\]"):
        fd.get_frame_velocity_derivatives(m, d, 1, out=(np.zeros((6, m.nv), np.float32),
                                                        np.zeros((6, m.nv))))
    x = np.zeros((6, m.nv))
    with pytest.raises(ValueError, match="distinct"):
        fd.get_joint_velocity_derivatives(m, d, 1, out=(x, x))
    with pytest.raises(ValueError, match="not created by"):
        fd.get_joint_velocity_derivatives(fd.samples.humanoid(), d, 1)


def test_massless_robot_has_no_centroidal_derivatives():
    b = fd.ModelBuilder("massless")
    b.add_joint("j1", "revolute_z")
    m = b.build()
    z = np.zeros(1)
    with pytest.raises(ValueError, match="has no mass"):
        fd.compute_centroidal_dynamics_derivatives(m, m.create_data(), z, z, z)
