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
            jcalc(m.jnt, m.prm, i, q, v, w)
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


def test_no_joint_has_more_than_two_coordinates_per_dof():
    """The step derivatives keep C-contiguous copies of q in 2 nv floats
    (kernels/contact/step_derivatives.py, state_copies): a joint type with nq > 2 nv would
    overrun them."""
    assert all(codes.NQ[t] <= 2 * codes.NV[t] for t in range(1, len(codes.NQ)))
    assert codes.NQ.max() == 7 and max(codes.NQ[t] / codes.NV[t]  # continuous: (cos, sin)
                                       for t in range(1, len(codes.NQ))) == 2


@pytest.mark.parametrize("name", TYPES)
def test_the_joint_contract_matches_the_joint_calcs(name):
    """codes' tables (the joint contract) against what the joint kernels do: S depends on q
    exactly for the S_MOVES types; the unit-norm part is what normalize rescales and the
    only coordinates a neutral configuration does not leave at zero (besides none)."""
    from fastdyn import configuration as cfg
    t = codes.NAMES.index(name)
    m = samples.random_tree(1, seed=3, types=(name,))
    rng = np.random.default_rng(2)
    w = np.zeros(NW)
    columns = []
    for s in range(3):
        q = cfg.random_configuration(m, s)
        jcalc(m.jnt, m.prm, 1, q, rng.normal(size=m.nv), w)
        columns.append(w[S:S + 6 * m.nv].copy())
    moves = not all(np.allclose(c, columns[0], atol=1e-12) for c in columns)
    assert moves == codes.S_MOVES[t]
    o, k = codes.unit_part(t)
    scaled = cfg.random_configuration(m, 9) * 3.0
    normalized = cfg.normalize(m, scaled)
    touched = np.flatnonzero(~np.isclose(normalized, scaled))
    assert touched.tolist() == list(range(o, o + k))
    assert np.allclose(np.linalg.norm(normalized[o:o + k]), 1.0) if k else True
    assert (codes.LIE_GROUP[t] != codes.VECTOR) == (k > 0) == (t in codes.LIE_TYPES)
    assert codes.NQ[t] - codes.NV[t] == {0: 0, 2: 1, 4: 1}[k]
