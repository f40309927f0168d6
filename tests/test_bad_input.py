"""Bad input to the algorithms: a clear error naming the argument, never a crash or a numba
typing error, never a silent specialization."""

import numpy as np
import pytest

import fastdyn as fd
from conftest import get_pair


@pytest.fixture(scope="module")
def hum():
    m, pm = get_pair("humanoid")
    q = fd.configuration.neutral(m)
    return m, m.create_data(), q


def test_wrong_length(hum):
    m, d, q = hum
    with pytest.raises(ValueError, match=r"v must have shape \(31,\), got \(30,\)"):
        fd.rnea(m, d, q, np.zeros(30), np.zeros(31))
    with pytest.raises(ValueError, match=r"q must have shape \(35,\)"):
        fd.crba(m, d, q[:-1])
    with pytest.raises(ValueError, match=r"tau must have shape"):
        fd.aba(m, d, q, np.zeros(31), np.zeros((31, 1)))


def test_nan_and_inf_are_named(hum):
    m, d, q = hum
    v = np.zeros(31)
    v[4] = np.nan
    with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[4\]"):
        fd.rnea(m, d, q, v, np.zeros(31))
    a = np.zeros(31)
    a[0] = np.inf
    with pytest.raises(ValueError, match="a has non-finite"):
        fd.rnea(m, d, q, np.zeros(31), a)


def test_non_unit_quaternion(hum):
    m, d, q = hum
    bad = q.copy()
    bad[3:7] = [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="quaternion of joint 'root_joint'.*normalize"):
        fd.aba(m, d, bad, np.zeros(31), np.zeros(31))
    ok = q.copy()
    ok[6] += 1e-9  # rounding-level drift is accepted
    fd.aba(m, d, ok, np.zeros(31), np.zeros(31))


def test_rnea_at_rest_variants_check_like_rnea(hum):
    """nonlinear_effects, generalized_gravity and static_torque take rnea's checks and words."""
    m, d, q = hum
    bad = q.copy()
    bad[3:7] = [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="quaternion of joint 'root_joint'"):
        fd.compute_generalized_gravity(m, d, bad)
    v = np.zeros(31)
    v[7] = np.inf
    with pytest.raises(ValueError, match=r"v has non-finite entries at indices \[7\]"):
        fd.non_linear_effects(m, d, q, v)
    with pytest.raises(ValueError, match=r"q must have shape \(35,\)"):
        fd.non_linear_effects(m, d, q[:-1], np.zeros(31))
    f = np.zeros((17, 6))
    f[2, 1] = np.nan
    with pytest.raises(ValueError, match="fext .* non-finite"):
        fd.compute_static_torque(m, d, q, f)
    with pytest.raises(ValueError, match=r"fext .* must have shape \(17, 6\)"):
        fd.compute_static_torque(m, d, q, f[:16])
    other = fd.samples.manipulator().create_data()
    with pytest.raises(ValueError, match="not created by"):
        fd.compute_generalized_gravity(m, other, q)
    g = fd.compute_generalized_gravity(m, d, q).copy()
    assert np.array_equal(fd.non_linear_effects(m, d, list(q), [0] * 31), g)  # lists convert
    assert fd.compute_kinetic_energy(m, d, q, [1] * 31) == fd.compute_kinetic_energy(m, d, q, np.ones(31))


def test_dtypes_are_converted_not_specialized(hum):
    m, d, q = hum
    ref = fd.rnea(m, d, q, np.ones(31), np.ones(31)).copy()
    out = fd.rnea(m, d, q.astype(np.float32).astype(np.float64), np.ones(31, dtype=np.int64),
                  np.ones(31, dtype=np.float32))
    assert np.array_equal(out, ref)
    from fastdyn.kernels.entry.guard import rnea_checked as kernel
    before = len(kernel.signatures)
    fd.rnea(m, d, q.astype(np.float32).astype(np.float64), np.ones(31, dtype=np.int32),
            np.ones(31, dtype=np.float32))
    assert len(kernel.signatures) == before  # float32/int inputs compiled nothing new
    with pytest.raises(TypeError, match="real array"):
        fd.rnea(m, d, q, np.zeros(31, dtype=complex), np.zeros(31))
    with pytest.raises(TypeError, match="v must be an array"):
        fd.rnea(m, d, q, "fast", np.zeros(31))


def test_data_from_another_model(hum):
    m, _, q = hum
    other = fd.samples.manipulator().create_data()
    with pytest.raises(ValueError, match="not created by"):
        fd.rnea(m, other, q, np.zeros(31), np.zeros(31))


def test_fext_shape(hum):
    m, d, q = hum
    with pytest.raises(ValueError, match=r"fext .* must have shape \(17, 6\)"):
        fd.rnea(m, d, q, np.zeros(31), np.zeros(31), np.zeros((16, 6)))


def test_kinematics_before_forward_kinematics():
    m = fd.samples.manipulator()
    d = m.create_data()
    with pytest.raises(RuntimeError, match="call forward_kinematics"):
        fd.frame_placement(m, d, "tool0")
    with pytest.raises(KeyError, match="no frame named 'tool9'"):
        fd.forward_kinematics(m, d, np.zeros(6))
        fd.frame_placement(m, d, "tool9")
    with pytest.raises(IndexError, match="out of range"):
        fd.joint_placement(m, d, 99)


def test_strided_views_are_read_through_their_strides(hum):
    """The checked entry points take any layout (fastdyn/_internal/fastcall.py): a column of a 2-D
    array and a reversed view give the contiguous answer, with no copy and no new signature."""
    m, d, q = hum
    rng = np.random.default_rng(4)
    v, a = rng.normal(size=31), rng.normal(size=31)
    ref = fd.rnea(m, d, q, v, a).copy()
    Q = np.zeros((35, 3))
    Q[:, 1] = q
    v_rev = np.ascontiguousarray(v[::-1])[::-1]  # negative stride, same values
    assert Q[:, 1].strides == (24,) and v_rev.strides == (-8,)
    from fastdyn.kernels.entry.guard import rnea_checked as kernel
    before = len(kernel.signatures)
    assert np.array_equal(fd.rnea(m, d, Q[:, 1], v_rev, a), ref)  # ref is a copy
    assert len(kernel.signatures) == before
    M_strided = fd.crba(m, d, Q[:, 1]).copy()
    assert np.array_equal(M_strided, fd.crba(m, d, q))
