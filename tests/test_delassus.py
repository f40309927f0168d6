"""The Delassus matrix of a step's rows (kernels/contact/delassus.py): J M^-1 J^T from
Pinocchio's mass matrix, with the compliance on its diagonal.

Rows as the simulator makes them on a quadruped (a free-flyer base and four 3-dof legs): a
contact's three rows non-zero on the dofs from its foot to the root, a joint row on one dof;
and a row that spans two legs (rows of other makers)."""

import numpy as np
import pytest

import fastdyn as fd
import fastdyn.models as fm
from conftest import close, pin
from fastdyn.kernels import layout as L
from fastdyn.kernels.contact.delassus import chain_code, delassus, pair_code
from fastdyn.kernels.linalg.cholesky import cholesky
from oracle import to_pinocchio

REG = 1e-8


@pytest.fixture(scope="module")
def quadruped():
    m = fm.load("quadruped")
    return m, to_pinocchio(m)


def rows_on_chains(m, rng, legs=(0, 1, 2, 3), joints=3, across=False):
    """Random contact rows on the chains of the feet (3 per leg), unit joint rows, and
    optionally one row on two legs and a row of zeros between the feet's (delassus.py bounds
    each product by the rows' shared support, which such rows do not follow)."""
    rows = []
    for leg in legs:
        leaf = 6 + 3 * leg + 2
        for _ in range(3):
            r = np.zeros(m.nv)
            k = leaf
            while k >= 0:
                r[k] = rng.normal()
                k = int(m.dof[k]["parent"])
            rows.append(r)
    for k in rng.choice(np.arange(6, m.nv), joints, replace=False):
        rows.append(np.eye(m.nv)[k] * rng.choice([-1.0, 1.0]))
    if across:
        r = np.zeros(m.nv)
        r[[7, 10]] = rng.normal(size=2)
        rows.append(r)
        rows.insert(4, np.zeros(m.nv))
    return np.array(rows)


def assemble(m, M, J, soft):
    nv, rows = m.nv, J.shape[0]
    U, D = np.zeros((nv, nv)), np.zeros(nv)
    assert cholesky(m.dof, M.copy(), U, D) < 0
    Z, G = np.zeros((rows, nv)), np.zeros((rows, rows))
    delassus(m.dof, U, D, J, rows, REG, soft, Z, G, np.empty(3 * rows))
    return G


@pytest.mark.parametrize("across", [False, True], ids=["chains", "a row across legs"])
def test_delassus_is_J_Minv_JT(quadruped, across):
    m, pm = quadruped
    pd = pm.createData()
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = fd.random_configuration(m, rng)
        q[:3] = rng.uniform(-1.0, 1.0, 3)
        Mp = pin.crba(pm, pd, q)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        J = rows_on_chains(m, rng, across=across)
        soft = np.zeros(J.shape[0])
        soft[:3] = 0.05  # one soft contact: its compliance joins the diagonal as given
        want = J @ np.linalg.solve(Mp, J.T)
        want[np.diag_indices_from(want)] *= np.where(soft > 0, 1.0, 1.0 + REG)
        want[np.diag_indices_from(want)] += soft
        M = np.zeros((m.nv, m.nv))
        fd.kernels.crba(m.jnt, m.prm, q, L.workspace(m.jnt), M, q[:0])
        G = assemble(m, M, J, soft)
        close(G, want)
        assert np.array_equal(G, G.T)


def test_a_row_across_two_roots_ending_at_dof_1():
    """Two one-dof branches hanging from the world (dofs 0 and 1, no common ancestor) and a
    row on both: its code, -3, was the initial "no code seen yet" of delassus's cache of
    bounds, which then skipped its products. With U = I and D = 1, G = J J^T."""
    dof = np.array([(1, -1), (2, -1)], dtype=np.dtype([("joint", "<i8"), ("parent", "<i8")],
                                                       align=True))
    J = np.array([[1.0, 2.0], [0.0, 3.0], [4.0, 0.0]])
    rows = J.shape[0]
    Z, G = np.zeros((rows, 2)), np.zeros((rows, rows))
    delassus(dof, np.eye(2), np.ones(2), J, rows, 0.0, np.zeros(rows), Z, G,
             np.empty(3 * rows))
    assert np.array_equal(G, J @ J.T)


def test_rows_between_free_bodies_share_only_their_bodies_dofs():
    """Five free bodies (five trees) and the rows a stack makes: contacts between two bodies
    (both bodies' 6 dofs), on one body (a chain), a row of zeros, and a row over three bodies.
    G is J M^-1 J^T from Pinocchio's mass matrix, the entries of rows on bodies that share none
    are exact zeros, and each row's span (tip[m:3m]) covers every non-zero of its row of G
    (PGS and the active set read nothing else)."""
    nb = 5
    b = fd.ModelBuilder("five", gravity=(0.0, 0.0, -9.81))
    rng = np.random.default_rng(3)
    for i in range(nb):
        b.add_joint(f"b{i}", "freeflyer")
        b.add_body(f"b{i}", 1.0 + i, inertia=np.diag(rng.uniform(0.5, 1.0, 3)))
    m = b.build()
    pm = to_pinocchio(m)
    q = fd.random_configuration(m, rng)
    Mp = pin.crba(pm, pm.createData(), q)
    Mp = np.triu(Mp) + np.triu(Mp, 1).T
    bodies = [(0, 1), (0, 1), (1,), (1, 2), (), (2, 3), (3, 4), (0, 2, 4), (4,)]
    J = []
    for on in bodies:
        for _ in range(3):
            r = np.zeros(m.nv)
            for k in on:
                r[6 * k:6 * k + 6] = rng.normal(size=6)
            J.append(r)
    J = np.array(J)
    rows = J.shape[0]
    M = np.zeros((m.nv, m.nv))
    fd.kernels.crba(m.jnt, m.prm, q, L.workspace(m.jnt), M, q[:0])
    U, D = np.zeros((m.nv, m.nv)), np.zeros(m.nv)
    assert cholesky(m.dof, M, U, D) < 0
    Z, G, tip = np.zeros((rows, m.nv)), np.full((rows, rows), np.nan), np.empty(3 * rows)
    delassus(m.dof, U, D, J, rows, 0.0, np.full(rows, -1.0), Z, G, tip)
    close(G, J @ np.linalg.solve(Mp, J.T))
    assert np.array_equal(G, G.T)
    sets = [set(on) for on in bodies for _ in range(3)]
    apart = np.array([[not (a & c) for c in sets] for a in sets])
    assert np.all(G[apart] == 0.0)
    first, last = tip[rows:2 * rows], tip[2 * rows:]
    cols = np.arange(rows)
    outside = (cols[None, :] < first[:, None]) | (cols[None, :] > last[:, None])
    assert np.all(G[outside] == 0.0)
    # rows on bodies 2, 3 (15..17) and 3, 4 (18..20) do not meet the rows on bodies 0 and 1
    assert first[15] == 9 and first[18] == 15 and last[0] == 23



@pytest.mark.parametrize("across", [False, True], ids=["chains", "a row across legs"])
def test_known_chain_codes_give_the_same_bits(quadruped, across):
    """Rows whose chain their maker knows (time_step.sphere_codes: a sphere's joint) come with
    delassus.chain_code instead of a code read off J, here the feet's rows, two of them zero
    at their foot's last dof (the code then bounds the row beyond its last non-zero): G is the
    same to the bit (the products only add exact zeros), and each span covers the span read
    off J (the same on one tree's chains: every column)."""
    m, _ = quadruped
    rng = np.random.default_rng(5)
    q = fd.random_configuration(m, rng)
    M = np.zeros((m.nv, m.nv))
    fd.kernels.crba(m.jnt, m.prm, q, L.workspace(m.jnt), M, q[:0])
    U, D = np.zeros((m.nv, m.nv)), np.zeros(m.nv)
    assert cholesky(m.dof, M, U, D) < 0
    J = rows_on_chains(m, rng, joints=2, across=across)
    leaves = [6 + 3 * leg + 2 for leg in range(4)]
    feet = [(r, leaves[r // 3]) for r in range(12)]
    if across:  # (a row of zeros at 4: the feet's rows after it move down one)
        feet = [(r if r < 4 else r + 1, t) for r, t in feet]
    J[feet[1][0], feet[1][1]] = 0.0
    J[feet[5][0], feet[5][1]] = 0.0
    rows = J.shape[0]
    out = []
    for coded in (False, True):
        Z, G, tip = np.zeros((rows, m.nv)), np.full((rows, rows), np.nan), np.empty(3 * rows)
        known = 0
        if coded:  # (a prefix of rows: the feet's up to the first one off them)
            known = 4 if across else 12
            for r, t in feet[:known]:
                tip[r] = chain_code(m.dof, t)
        delassus(m.dof, U, D, J, rows, REG, np.zeros(rows), Z, G, tip, known)
        out.append((G, tip[rows:2 * rows].copy(), tip[2 * rows:].copy()))
    (G0, first0, last0), (G1, first1, last1) = out
    assert np.array_equal(G0, G1)
    assert np.all(first1 <= first0) and np.all(last1 >= last0)
    if not across:
        assert np.array_equal(first0, first1) and np.array_equal(last0, last1)
    assert chain_code(m.dof, -1) == 0.0


def test_pair_codes_give_the_same_bits_as_codes_read_off_the_rows():
    """Contacts between two bodies come with delassus.pair_code (geom_rows.geom_codes: the
    bodies of a contact's geoms) instead of codes read off J. Rows J_p(b2) - J_p(b1) on the
    quadruped (one tree) plus a free box (a second tree): foot on world, foot on the base
    (the base's chain is in the foot's: a chain), two feet (two branches of one tree), foot on
    the box (two trees), the box on world; a dof both chains share cancels (zero). G and the
    products are the same to the bit as with codes read off J, and each span covers that
    span: a code narrower than its row (a chain taken for two branches, a root missed) would
    drop products and fail both."""
    rng = np.random.default_rng(7)
    b = fd.ModelBuilder("two", gravity=(0.0, 0.0, -9.81))
    b.add_joint("base", "freeflyer")
    b.add_body("base", 5.0, inertia=np.diag([0.3, 0.4, 0.5]))
    for leg in range(4):
        parent = "base"
        for k in range(3):
            name = f"leg{leg}_{k}"
            b.add_joint(name, "revolute", parent, (np.eye(3), rng.normal(size=3) * 0.2),
                        axis=np.eye(3)[k])
            b.add_body(name, 0.5, com=(0.0, 0.0, -0.1), inertia=np.diag([0.01, 0.01, 0.005]))
            parent = name
    b.add_joint("box", "freeflyer")
    b.add_body("box", 2.0, inertia=np.diag([0.1, 0.2, 0.3]))
    two = b.build()
    q = fd.random_configuration(two, rng)
    M = np.zeros((two.nv, two.nv))
    fd.kernels.crba(two.jnt, two.prm, q, L.workspace(two.jnt), M, q[:0])
    U, D = np.zeros((two.nv, two.nv)), np.zeros(two.nv)
    assert cholesky(two.dof, M, U, D) < 0
    feet = [6 + 3 * leg + 2 for leg in range(4)]
    box = two.nv - 1

    def chain(t):
        out = set()
        while t >= 0:
            out.add(t)
            t = int(two.dof[t]["parent"])
        return out

    pairs = [(-1, feet[0]), (5, feet[1]), (feet[2], feet[3]), (feet[0], box), (-1, box)]
    J, codes = [], []
    for t1, t2 in pairs:
        c1, c2 = chain(t1), chain(t2)
        for _ in range(3):
            r = np.zeros(two.nv)
            r[sorted(c1 ^ c2)] = rng.normal(size=len(c1 ^ c2))  # (shared dofs cancel)
            J.append(r)
            codes.append(pair_code(two.dof, t1, t2))
    J = np.array(J)
    rows = J.shape[0]
    out = []
    for known in (0, rows):
        Z, G, tip = np.zeros((rows, two.nv)), np.full((rows, rows), np.nan), np.empty(3 * rows)
        tip[:known] = codes[:known]
        delassus(two.dof, U, D, J, rows, REG, np.zeros(rows), Z, G, tip, known)
        out.append((G, tip[rows:2 * rows].copy(), tip[2 * rows:].copy()))
    (G0, first0, last0), (G1, first1, last1) = out
    assert np.array_equal(G0, G1)
    assert np.all(first1 <= first0) and np.all(last1 >= last0)
    Mp = np.triu(M) + np.triu(M, 1).T
    close(G0, (J @ np.linalg.solve(Mp, J.T)) * np.where(np.eye(rows) > 0, 1.0 + REG, 1.0))
