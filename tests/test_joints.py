"""Every joint type against Pinocchio: transform, motion subspace, joint velocity and bias."""

import numpy as np
import pytest

from conftest import close, get_pair, needs_pinocchio, pin
from fastdyn.kernels.joints import codes
from fastdyn.kernels.joints.jcalc import jcalc
from fastdyn.kernels.layout import CJ, LI, NW, S, VJ
from fastdyn import samples

TYPES = [t for t in codes.NAMES[1:]]


@pytest.fixture(scope="module", params=TYPES)
def single(request):
    """A tree made only of one joint type (three joints: chained and branched)."""
    needs_pinocchio()
    from oracle import to_pinocchio
    root = "freeflyer" if request.param == "freeflyer" else None
    types = (request.param,)
    if root:
        types = ("revolute",)
    m = samples.random_tree(3, seed=11, types=types, root=root)
    return m, to_pinocchio(m)


def test_joint_calc_matches_pinocchio(single):
    m, pm = single
    pd = pm.createData()
    rng = np.random.default_rng(5)
    w = np.zeros(NW)
    for _ in range(20):
        q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
        v = rng.normal(size=pm.nv)
        pin.forwardKinematics(pm, pd, q, v)
        for i in range(1, m.njoints):
            jcalc(m.jnt, i, q, v, w)
            jd = pd.joints[i]
            nv = int(m.jnt[i]["nv"])
            close(w[LI:LI + 9].reshape(3, 3), pd.liMi[i].rotation, 1e-12)
            close(w[LI + 9:LI + 12], pd.liMi[i].translation, 1e-12)
            Sm = w[S:S + 6 * nv].reshape(nv, 6).T
            close(Sm, np.asarray(jd.S).reshape(6, -1)[:, :nv], 1e-12)
            close(w[VJ:VJ + 6], jd.v.vector, 1e-12)
            close(w[CJ:CJ + 6], jd.c.vector, 1e-12)


def test_every_type_is_covered():
    """The random trees used across the suite contain every joint type."""
    seen = set()
    for name in ("tree_fixed", "tree_free", "tree_planar", "humanoid"):
        m, _ = get_pair(name)
        seen |= {m.joint_type(i) for i in range(1, m.njoints)}
    assert seen == set(TYPES)
