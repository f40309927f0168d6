"""What MuJoCo does with ``fromto`` beside ``pos`` and with ``<mujocoinclude>`` roots, checked
on the same files with the installed MuJoCo: fastdyn accepts what it compiles (the same
model) and refuses what it refuses."""

from __future__ import annotations

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.io import MJCFError, load_mjcf

mujoco = pytest.importorskip("mujoco")

import mjcf_oracle as mo  # noqa: E402

BODY = ('<mujoco>{default}<worldbody><body name="b"><joint/>{element}</body></worldbody>'
        '</mujoco>')


@pytest.mark.parametrize("default,element,accepted", [
    ("", '<geom type="capsule" fromto="0 0 0 .1 .2 .3" pos="1 2 3" size=".1"/>', False),
    ('<default><geom pos="1 2 3"/></default>',
     '<geom type="capsule" fromto="0 0 0 .1 .2 .3" size=".1"/>', False),
    ("", '<geom size=".1"/><site type="capsule" fromto="0 0 0 0 0 1" pos="1 2 3" size=".1"/>',
     False),
    # an orientation beside fromto: fromto's axis wins, the quat is ignored
    ("", '<geom type="capsule" fromto="0 0 0 .1 .2 .3" quat="0 1 0 0" size=".1"/>', True),
    ("", '<geom type="sphere" fromto="0 0 0 .1 .2 .3" size=".1"/>', False),
])
def test_fromto_beside_pos_as_mujoco(default, element, accepted):
    xml = BODY.format(default=default, element=element)
    try:
        mujoco.MjModel.from_xml_string(xml)
        mj_ok = True
    except ValueError:
        mj_ok = False
    assert mj_ok == accepted  # what the installed MuJoCo does
    if accepted:
        model = load_mjcf(xml)
        m = mujoco.MjModel.from_xml_string(xml)
        assert abs(model.mass[1] - m.body_mass[1]) < 1e-15 * m.body_mass[1]
        assert np.abs(model.com[1] - m.body_ipos[1]).max() < 1e-15
    else:
        with pytest.raises(MJCFError, match="fromto"):
            load_mjcf(xml)


@pytest.mark.parametrize("root", ["mujoco", "mujocoinclude"])
def test_included_roots_as_mujoco(tmp_path, root):
    (tmp_path / "arm.xml").write_text(
        f'<{root}><body name="arm" pos="0 0 .5"><joint name="j2" axis="1 0 0"/>'
        f'<geom type="capsule" fromto="0 0 0 0 0 .4" size=".05"/></body></{root}>')
    (tmp_path / "opt.xml").write_text(f'<{root}><option gravity="0 0 -3"/></{root}>')
    main = tmp_path / "main.xml"
    main.write_text('<mujoco><include file="opt.xml"/><worldbody><body name="b"><joint/>'
                    '<geom size=".1"/><include file="arm.xml"/></body></worldbody></mujoco>')
    model = load_mjcf(str(main))
    m = mo.mj_load(main)
    assert model.joint_names[1:] == ("joint0", "j2") and m.njnt == 2
    assert model.gravity[2] == m.opt.gravity[2] == -3
    assert mo.inertia_errors(fd.io.parse_mjcf(str(main)), m) < 1e-12  # achieved 1e-16
    assert np.all(mo.dynamics_errors(model, m, 2) < 1e-10)


def test_other_included_roots_are_refused(tmp_path):
    (tmp_path / "a.xml").write_text('<robot name="r"/>')
    main = tmp_path / "main.xml"
    main.write_text('<mujoco><include file="a.xml"/></mujoco>')
    with pytest.raises(MJCFError, match=r"a.xml, line 1: XML: an included file's root element "
                                        r"must be <mujoco> \(or <mujocoinclude>"):
        load_mjcf(str(main))
