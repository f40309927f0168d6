"""fd.io.mjcf_constraints: MJCF <connect> and <weld> as fd.RigidConstraint, against MuJoCo.

- Geometry: at the drawn pose and at a random one, the constraint's residual (the two points'
  world difference; for a weld also the angle between the two frames) equals MuJoCo's
  efc_pos for every form of the elements (bodies, the world, sites, relpose, anchor); a
  wrong anchor, relpose or site reading fails here by centimetres.
- Dynamics: MuJoCo's constraints are soft, its constraint acceleration blended with the
  unconstrained one by 1 - d (solimp). fastdyn's rigid constraint with Baumgarte gains from
  solref is the d -> 1 limit: on a four-bar (connect) the gap to MuJoCo's qacc is measured at
  0.72 (1 - d) of the largest acceleration for d = 0.999 and 0.9999 alike (asserted: 2 (1 - d)).
  The gains are MuJoCo's own (efc_KBIP).
- A four-bar run 10 s through fd.constraint_dynamics keeps its loop closed within a bound.
"""

import warnings

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.errors import MJCFError, MJCFWarning
from mechanisms import arms, fourbar

mujoco = pytest.importorskip("mujoco")

FOURBAR = fourbar('<option gravity="0 0 -9.81"><flag contact="disable"/></option>',
                  connect="SOFT")


def _arms(equality: str) -> str:
    return arms(equality, '<option><flag contact="disable"/></option>')


def _load(xml):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MJCFWarning)
        model = fd.load_mjcf(xml)
    return model, fd.io.mjcf_constraints(model, xml)


def _residual(model, data, q, c):
    """(world difference of the two constrained points, sin(angle between the frames / 2))."""
    fd.forward_kinematics(model, data, q)
    fd.update_frame_placements(model, data)
    T1 = fd.frame_placement(model, data, c.frame).copy()
    T2 = np.eye(4) if c.frame2 is None else fd.frame_placement(model, data, c.frame2).copy()
    R1, p1 = T1[:3, :3] @ c.placement1[0], T1[:3, :3] @ c.placement1[1] + T1[:3, 3]
    R2, p2 = T2[:3, :3] @ c.placement[0], T2[:3, :3] @ c.placement[1] + T2[:3, 3]
    cos = np.clip((np.trace(R1.T @ R2) - 1.0) / 2.0, -1.0, 1.0)
    return p1 - p2, np.sin(np.arccos(cos) / 2.0)


FORMS = {
    "weld drawn": '<weld body1="a3" body2="b3"/>',
    "weld relpose": '<weld body1="a3" body2="b3" relpose="0.3 0.1 0 0.9 0.1 0 0.2" '
                    'anchor="0.01 0.02 0.1"/>',
    "weld world": '<weld body1="a3" relpose="0.3 0.1 0 0.9 0.1 0 0.2" anchor="0 0.02 0.1"/>',
    "weld anchor": '<weld body1="b3" body2="a2" anchor="0.01 0.02 0.1"/>',
    "weld sites": '<weld site1="atip" site2="btip"/>',
    "connect sites": '<connect site1="atip" site2="btip"/>',
    "connect world": '<connect body1="a3" anchor="0.1 0.2 0.3"/>',
}


@pytest.mark.parametrize("form", list(FORMS))
def test_the_residual_is_mujocos(form):
    xml = _arms(FORMS[form])
    model, (c,) = _load(xml)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    data = model.create_data()
    rng = np.random.default_rng(0)
    for scale in (0.0, 0.3):
        q = rng.normal(size=model.nq) * scale
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        gap, half_angle = _residual(model, data, q, c)
        assert np.abs(gap - md.efc_pos[:3]).max() < 1e-14  # (round-off: 0 to 3e-17)
        if c.size == 6:  # MuJoCo's rotational residual: the quaternion error's vector part
            assert abs(half_angle - np.linalg.norm(md.efc_pos[3:6])) < 1e-14


@pytest.mark.parametrize("d", (0.999, 0.9999))
def test_a_fourbar_is_mujocos_in_the_rigid_limit(d):
    xml = FOURBAR.replace("SOFT", f'solimp="{d} {d} 0.001"')
    model, cs = _load(xml)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    data = model.create_data()
    rng = np.random.default_rng(3)
    for _ in range(5):  # off the loop (violated by up to a few cm), moving, driven
        q = rng.normal(size=model.nq) * 0.05
        v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
        md.qpos[:], md.qvel[:], md.qfrc_applied[:] = q, v, tau
        mujoco.mj_forward(mm, md)
        # a planar loop's out-of-plane row is always zero: the proximal mode's least-norm
        ddq, lam = fd.constraint_dynamics(model, data, q, v, tau, cs, mu=1e-9)
        assert np.abs(ddq - md.qacc).max() < 2.0 * (1.0 - d) * np.abs(ddq).max()
        kp, kd = cs[0].kp, cs[0].kd  # MuJoCo's stiffness K times impedance I, damping B
        K, B, imp = md.efc_KBIP[0, :3]
        assert abs(kp - K * imp) < 1e-12 * kp and abs(kd - B) < 1e-12 * kd


def test_the_default_class_sets_the_gains():
    xml = FOURBAR.replace("<worldbody>", '<default><equality solref="0.05 0.7" '
                                         'solimp="0.8 0.9 0.01"/></default><worldbody>')
    xml = xml.replace("SOFT", "")
    model, (c,) = _load(xml)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    K, B, imp = md.efc_KBIP[0, :3]  # at zero violation: imp = d_min
    assert abs(c.kp - K * imp) < 1e-12 * c.kp and abs(c.kd - B) < 1e-12 * c.kd
    assert abs(imp - 0.8) < 1e-12


def test_a_fourbar_stays_closed_for_ten_seconds():
    """Semi-implicit Euler on fd.constraint_dynamics (dt = 1 ms, MuJoCo's default solref as
    Baumgarte gains), the crank thrown at 3 rad/s under gravity: the loop's gap stays below
    1.5 mm (measured: 0.74 mm, the step's first-order error against the Baumgarte pull) and
    the mechanical energy within 1.5 % (measured: 0.63 %)."""
    model, cs = _load(FOURBAR.replace("SOFT", ""))
    data = model.create_data()
    q, dt = np.zeros(model.nq), 1e-3
    J = np.empty((3, model.nv))
    gap0 = _residual(model, data, q, cs[0])[0]
    for k in range(model.nv):  # a velocity that keeps the loop closed: J v = 0, by FD
        dq = np.zeros(model.nv)
        dq[k] = 1e-7
        J[:, k] = (_residual(model, data, q + dq, cs[0])[0] - gap0) / 1e-7
    v = np.array([3.0, 0.0, 0.0])
    v[1:] = -np.linalg.lstsq(J[:, 1:], J[:, 0] * v[0], rcond=None)[0]
    e0 = fd.compute_mechanical_energy(model, data, q, v)
    worst_gap, worst_energy = 0.0, 0.0
    for step in range(10_000):
        ddq, _ = fd.constraint_dynamics(model, data, q, v, np.zeros(model.nv), cs, mu=1e-9)
        v = v + dt * ddq
        q = fd.integrate(model, q, dt * v)
        if step % 10 == 9:
            worst_gap = max(worst_gap, np.linalg.norm(_residual(model, data, q, cs[0])[0]))
            e = fd.compute_mechanical_energy(model, data, q, v)
            worst_energy = max(worst_energy, abs(e - e0) / abs(e0))
    assert worst_gap < 1.5e-3 and worst_energy < 1.5e-2, (worst_gap, worst_energy)


def test_bad_equalities_are_named():
    with pytest.raises(MJCFError, match=r"line 1.*no body named 'b9'"):
        _load(_arms('<connect body1="a3" body2="b9"/>'))
    with pytest.raises(MJCFError, match="needs both site1 and site2"):
        _load(_arms('<connect site1="atip"/>'))
    with pytest.raises(MJCFError, match="names bodies and sites"):
        _load(_arms('<weld body1="a3" site2="btip"/>'))
    with pytest.raises(MJCFError, match="torque scale"):
        _load(_arms('<weld body1="a3" body2="b3" torquescale="0.5"/>'))
    with pytest.raises(MJCFError, match="solimp"):
        _load(_arms('<weld body1="a3" body2="b3" solimp="0 0.9 0.001"/>'))
    model, cs = _load(_arms('<weld body1="a3" body2="b3"/>'))
    with pytest.warns(MJCFWarning, match=r"1 inactive .*'off'"):
        assert fd.io.mjcf_constraints(model, _arms(
            '<weld name="off" body1="a3" body2="b3" active="false"/>')) == []
    with pytest.raises(MJCFError, match="is this the file the model was loaded from"):
        fd.io.mjcf_constraints(model, _arms('<connect body1="a3" body2="a2"/>').replace(
            'name="a3"', 'name="zz"').replace('body1="a3"', 'body1="zz"'))
