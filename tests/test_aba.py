"""Forward dynamics: Pinocchio, and ABA inverts RNEA."""

import numpy as np
import pytest

import fastdyn as fd
from conftest import close, pin, random_state


def test_aba_matches_pinocchio(pair):
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    rng = np.random.default_rng(0)
    for _ in range(10):
        q, v, tau = random_state(pm, rng)
        close(fd.aba(m, d, q, v, tau), pin.aba(pm, pd, q, v, tau))
        fext = rng.normal(size=(m.njoints, 6))
        close(fd.aba(m, d, q, v, tau, fext),
              pin.aba(pm, pd, q, v, tau, [pin.Force(f) for f in fext]))


def test_aba_inverts_rnea(pair):
    m, pm = pair
    d = m.create_data()
    rng = np.random.default_rng(1)
    for _ in range(10):
        q, v, a = random_state(pm, rng)
        fext = rng.normal(size=(m.njoints, 6))
        tau = fd.rnea(m, d, q, v, a, fext).copy()
        close(fd.aba(m, d, q, v, tau, fext), a, 1e-9)


def test_massless_subtree_is_reported():
    b = fd.ModelBuilder("massless")
    j1 = b.add_joint("j1", "revolute_z")
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    b.add_joint("j2", "revolute_x", j1, (np.eye(3), (0.2, 0, 0)))  # carries nothing
    m = b.build()
    d = m.create_data()
    with pytest.raises(fd.SingularMassMatrixError, match="j2"):
        fd.aba(m, d, np.zeros(2), np.zeros(2), np.zeros(2))
    fd.crba(m, d, np.zeros(2))
    with pytest.raises(fd.SingularMassMatrixError, match="j2"):
        fd.cholesky(m, d)


def test_aba_and_crba_leave_fresh_placements(pair):
    """Both work in the world frame and fill oMi on the way; frame queries may follow them."""
    m, pm = pair
    d, pd = m.create_data(), pm.createData()
    q, v, tau = random_state(pm, np.random.default_rng(3))
    pin.framesForwardKinematics(pm, pd, q)
    for call in (lambda: fd.aba(m, d, q, v, tau), lambda: fd.crba(m, d, q)):
        d.ws[1:, 12:24] = 0.0  # wipe oMi (row 0, the universe, stays the identity)
        call()
        for k in range(0, m.nframes, max(1, m.nframes // 7)):
            close(fd.frame_placement(m, d, k), pd.oMf[k].homogeneous)


@pytest.mark.parametrize("name", ["tree_free", "solo12"])
def test_far_from_the_origin(name):
    """A floating robot 10 km away: the joint-space results do not depend on where it is, and
    the world-frame algorithms (ABA, CRBA) keep their digits (they once lost 8 of them)."""
    from conftest import get_pair
    m, pm = get_pair(name)
    d = m.create_data()
    rng = np.random.default_rng(4)
    for _ in range(5):
        q, v, a = random_state(pm, rng)
        M0 = fd.crba(m, d, q).copy()
        far = q.copy()
        far[:3] += 1e4
        tau = fd.rnea(m, d, far, v, a).copy()
        close(fd.aba(m, d, far, v, tau), a, 1e-10)
        close(fd.crba(m, d, far), M0, 1e-12)
        # the placements ABA leaves behind are shifted back to the world frame
        fd.aba(m, d, far, v, tau)
        pd = pm.createData()
        pin.forwardKinematics(pm, pd, far)
        j = m.njoints - 1
        close(fd.joint_placement(m, d, j), pd.oMi[j].homogeneous, 1e-12)
