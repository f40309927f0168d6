"""A hostile MJCF corpus: malformed, unsafe, inconsistent or merely unsupported files each fail
fast with an MJCFError (a fastdyn DescriptionError, a ValueError) naming the file, the line
and the element, never a crash, a hang or a model that is silently wrong.

Most cases are one document (the offending element on line 2 of the wrapper ``W``); the
include cases write their files to a temporary folder.
"""

import os
import time

import pytest

import fastdyn as fd
from fastdyn.io import DescriptionError, MJCFError, load_mjcf, parse_mjcf
from fastdyn.io._mjcf_doc import MAX_INCLUDE_DEPTH, MAX_INCLUDES


def W(body: str, head: str = "") -> str:
    """A document whose line 2 is ``body``, inside <worldbody>."""
    return f"<mujoco>{head}<worldbody>\n{body}\n</worldbody></mujoco>"


B = '<body name="b"><joint/><geom size=".1"/></body>'  # a valid body to fill in

# name: (document, fragments the message must hold, line)
CASES = {
    # XML and safety
    "malformed": ("<mujoco><worldbody>\n<body></worldbody></mujoco>", ["malformed XML"], 2),
    "doctype": ('<?xml version="1.0"?>\n<!DOCTYPE mujoco [<!ENTITY a "b">]>\n<mujoco/>',
                ["DOCTYPE", "not allowed"], 2),
    "entity_bomb": ('<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa">'
                    '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<mujoco>&b;</mujoco>',
                    ["not allowed"], 2),
    "urdf_root": ('<?xml version="1.0"?>\n<robot name="r"><link name="a"/></robot>',
                  ["root element is <robot>", "load_urdf"], 2),
    "unknown_section": ("<mujoco>\n<wobble/></mujoco>", ["unknown element <wobble>"], 2),
    "unknown_in_body": (W('<body><joint/><geom size=".1"/><wobble/></body>'),
                        ["unknown element <wobble> in <body>"], 2),
    # numbers
    "nan": (W('<body><joint/><geom size="nan"/></body>'),
            ['<geom size="nan">', "not a finite decimal number"], 2),
    "inf": (W('<body pos="0 inf 0"><joint/><geom size=".1"/></body>'),
            ['<body pos="0 inf 0">', "'inf'"], 2),
    "overflow": (W('<body><joint/><geom size="1e400"/></body>'), ["overflows a double"], 2),
    "decimal_comma": (W('<body><joint/><geom size="0,1"/></body>'), ["'0,1'"], 2),
    "hex": (W('<body><joint damping="0x10"/><geom size=".1"/></body>'), ["'0x10'"], 2),
    "non_ascii_digit": (W('<body><joint/><geom size="\u0661"/></body>'), ["non-ASCII"], 2),
    "too_few": (W('<body pos="1 2"><joint/><geom size=".1"/></body>'),
                ['<body pos="1 2">', "needs 3 numbers, got 2"], 2),
    "too_many": (W('<body><joint/><geom size=".1 .2 .3 .4"/></body>'),
                 ["needs 1 to 3 numbers, got 4"], 2),
    # orientations
    "zero_quat": (W('<body quat="0 0 0 0"><joint/><geom size=".1"/></body>'),
                  ["the quaternion is zero"], 2),
    "nan_quat": (W('<body quat="1 0 NaN 0"><joint/><geom size=".1"/></body>'),
                 ["'NaN'", "not a finite"], 2),
    "two_orientations": (W('<body quat="1 0 0 0" euler="0 0 1"><joint/><geom size=".1"/></body>'),
                         ["more than one orientation"], 2),
    "parallel_xyaxes": (W('<body xyaxes="1 0 0 2 0 0"><joint/><geom size=".1"/></body>'),
                        ["parallel to the x axis"], 2),
    "zero_zaxis": (W('<body><joint/><geom size=".1" zaxis="0 0 0"/></body>'),
                   ["the z axis is zero"], 2),
    "zero_axisangle": (W('<body axisangle="0 0 0 30"><joint/><geom size=".1"/></body>'),
                       ["the rotation axis is zero"], 2),
    "bad_eulerseq": ('<mujoco>\n<compiler eulerseq="xyw"/></mujoco>', ["eulerseq"], 2),
    "bad_angle": ('<mujoco>\n<compiler angle="grad"/></mujoco>',
                  ["expected one of degree, radian"], 2),
    "global_coordinates": ('<mujoco>\n<compiler coordinate="global"/></mujoco>',
                           ["global coordinates"], 2),
    # joints
    "unknown_joint_type": (W('<body><joint type="wobbly"/><geom size=".1"/></body>'),
                           ['<joint type="wobbly">', "hinge, slide, ball, free"], 2),
    "zero_axis": (W('<body><joint axis="0 0 0"/><geom size=".1"/></body>'),
                  ["axis cannot be zero"], 2),
    "negative_damping": (W('<body><joint damping="-1"/><geom size=".1"/></body>'),
                         ['<joint damping="-1">', "must be >= 0"], 2),
    "limited_no_range": (W('<body><joint limited="true"/><geom size=".1"/></body>'),
                         ["range[0] must be below range[1]"], 2),
    "range_reversed": (W('<body><joint range="1 -1"/><geom size=".1"/></body>'),
                       ["range[0] must be below range[1]"], 2),
    "range_no_autolimits": (W('<body><joint range="0 1"/><geom size=".1"/></body>',
                              '<compiler autolimits="false"/>'),
                            ['<joint range="0 1">', "autolimits"], 2),
    "nested_free": (W('<body><joint/><geom size=".1"/><body><freejoint/><geom size=".1"/>'
                      '</body></body>'), ["top level"], 2),
    "free_and_hinge": (W('<body><freejoint/><joint/><geom size=".1"/></body>'),
                       ["free joint must be its body's only joint"], 2),
    "ball_then_hinge": (W('<body><joint type="ball"/><joint/><geom size=".1"/></body>'),
                        ["ball followed by rotation"], 2),
    "joint_in_world": (W("<joint/>"), ["<joint> in the worldbody"], 2),
    "free_align": (W('<body><freejoint align="true"/><geom size=".1"/></body>'),
                   ["aligned to the body's inertia"], 2),
    # names and classes
    "repeated_body": (W(B + "\n" + B), ["repeated body name 'b' (first at line 2)"], 3),
    "body_named_world": (W('<body name="world"><joint/><geom size=".1"/></body>'),
                         ["repeated body name 'world'"], 2),
    "repeated_joint": (W('<body><joint name="j"/><geom size=".1"/><body><joint name="j"/>'
                         '<geom size=".1"/></body></body>'), ["repeated joint name 'j'"], 2),
    "unknown_class": (W('<body><joint class="nope"/><geom size=".1"/></body>'),
                      ["class='nope': no default class"], 2),
    "unknown_childclass": (W('<body childclass="nope"><joint/><geom size=".1"/></body>'),
                           ["childclass='nope'"], 2),
    "class_twice": ('<mujoco><default><default class="a"/>\n<default class="a"/></default>'
                    '</mujoco>', ["default class 'a' is defined twice"], 2),
    "class_unnamed": ("<mujoco><default>\n<default/></default></mujoco>",
                      ["needs a class"], 2),
    "main_renamed": ('<mujoco>\n<default class="top"/></mujoco>', ["cannot be renamed"], 2),
    # masses
    "inertial_no_pos": (W('<body><joint/><inertial mass="1" diaginertia="1 1 1"/></body>'),
                        ["<inertial> needs a pos"], 2),
    "inertial_no_mass": (W('<body><joint/><inertial pos="0 0 0" diaginertia="1 1 1"/></body>'),
                         ["needs a mass"], 2),
    "negative_mass": (W('<body><joint/><inertial pos="0 0 0" mass="-1" diaginertia="1 1 1"/>'
                        '</body>'), ["must be >= 0"], 2),
    "negative_density": (W('<body><joint/><geom size=".1" density="-5"/></body>'),
                         ["must be >= 0"], 2),
    "nonphysical": (W('<body><joint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 3"/>'
                      '</body>'), ["A + B >= C", "balanceinertia"], 2),
    "full_and_diag": (W('<body><joint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1" '
                        'fullinertia="1 1 1 0 0 0"/></body>'), ["not both"], 2),
    "massless_moving": (W('<body name="ghost"><joint/><body><joint/><geom size=".1"/></body>'
                          '</body>'), ["body 'ghost' moves but has mass 0", "mjMINVAL"], 2),
    "zero_size": (W('<body><joint/><geom size="0"/></body>'),
                  ["size[0] of a sphere must be positive"], 2),
    "fromto_and_pos": (W('<body><joint/><geom type="capsule" size=".1" pos="0 0 1" '
                         'fromto="0 0 0 1 0 0"/></body>'), ["a geom takes one"], 2),
    "fromto_sphere": (W('<body><joint/><geom size=".1" fromto="0 0 0 1 0 0"/></body>'),
                      ["fromto takes a capsule"], 2),
    "fromto_point": (W('<body><joint/><geom type="capsule" size=".1" fromto="1 1 1 1 1 1"/>'
                       '</body>'), ["fromto's two points coincide"], 2),
    "shellinertia": (W('<body><joint/><geom size=".1" shellinertia="true"/></body>'),
                     ["shellinertia"], 2),
    "inertial_in_frame": (W('<body><joint/><frame><inertial pos="0 0 0" mass="1"/></frame>'
                            '</body>'), ["<inertial> belongs directly in a <body>"], 2),
    "plane_on_moving": (W('<body><joint/><geom size=".1"/><geom type="plane" size="1 1 1"/>'
                          '</body>'), ["plane geom belongs to a body that does not move"], 2),
    "mocap_with_joint": (W('<body mocap="true"><joint/><geom size=".1"/></body>'),
                         ["mocap body"], 2),
    # numbers at the edge of a double: what is computed from them (volumes, masses, moments,
    # placements) is checked where it is computed, naming the attribute
    "sphere_1e308": (W('<body><joint/><geom size="1e308"/></body>'),
                     ['<geom size="1e308">', "the sphere's mass", "overflows a double"], 2),
    "sphere_1e-308_alone": (W('<body name="dust"><joint/><geom size="1e-308"/></body>'),
                            ["body 'dust' moves but has mass 0", "mjMINVAL"], 2),
    "density_1e308": (W('<body><joint/><geom size=".1" density="1e308"/></body>'),
                      ['<geom size=".1"> and <geom density="1e308">', "beyond 1e+150"], 2),
    "capsule_1e308": (W('<body><joint/><geom type="capsule" size=".1 1e308"/></body>'),
                      ['<geom size=".1 1e308">', "the capsule's mass", "overflows"], 2),
    "fromto_1e308": (W('<body><joint/><geom type="capsule" size=".1" '
                       'fromto="-1e308 0 0 1e308 0 0"/></body>'),
                     ['<geom fromto="-1e308 0 0 1e308 0 0">', "the capsule's mass"], 2),
    "geom_pos_1e308": (W('<body><joint/><geom size=".1" pos="1e308 0 0"/></body>'),
                       ['<geom pos="1e308 0 0">', "centre of this geom", "beyond 1e+150"], 2),
    "geom_mass_on_huge_box": (W('<body><joint/><geom type="box" size="1e300 1 1" mass="1"/>'
                                '</body>'), ['<geom size="1e300 1 1">', "moment of inertia",
                                             "overflows"], 2),
    "inertia_1e308": (W('<body><joint/><inertial pos="0 0 0" mass="1" '
                        'diaginertia="1e308 1e308 1e308"/></body>'),
                      ['<inertial diaginertia="1e308 1e308 1e308">', "beyond 1e+150"], 2),
    "fullinertia_1e308": (W('<body><joint/><inertial pos="0 0 0" mass="1" '
                            'fullinertia="1e308 1e308 1e308 1e308 0 0"/></body>'),
                          ['<inertial fullinertia="1e308 1e308 1e308 1e308 0 0">'], 2),
    "inertial_mass_1e308": (W('<body><joint/><inertial pos="0 0 0" mass="1e308" '
                              'diaginertia="1 1 1"/></body>'),
                            ['<inertial mass="1e308">', "the mass [kg]"], 2),
    "inertial_pos_1e308": (W('<body><joint/><inertial pos="1e308 0 0" mass="1" '
                             'diaginertia="1 1 1"/></body>'),
                           ['<inertial pos="1e308 0 0">', "centre of mass"], 2),
    "frames_overflow": (W('<frame pos="1e308 0 0"><body pos="1e308 0 0"><joint/>'
                          '<geom size=".1"/></body></frame>'),
                        ['<body pos="1e308 0 0">', "with the frames around it",
                         "overflows a double"], 2),
    "joint_pos_1e308": (W('<body><joint pos="1e308 0 0"/><geom size=".1"/></body>'),
                        ['<joint pos="1e308 0 0">', "centre of mass from this joint"], 2),
    "slide_ref_overflow": (W('<body><joint type="slide" axis="1 0 0" pos="-1e308 0 0" '
                             'ref="1.7e308"/><geom size=".1"/></body>'),
                           ['<joint pos="-1e308 0 0"> and <joint ref="1.7e308">',
                            "position in its parent"], 2),
    "welded_far_away": (W('<body name="arm"><joint/><geom size=".1"/><body pos="1e308 0 0">'
                          '<geom size=".1"/></body></body>'),
                        ["body 'arm' moves", "welded to it"], 2),
    "settotalmass_scales_beyond": (W('<body><joint/><inertial pos="0 0 0" mass="1e-200" '
                                     'diaginertia="1 1 1"/></body>',
                                     '<compiler settotalmass="1e10"/>'),
                                   ['<compiler settotalmass="1e10">', "scaled to the total"],
                                   1),
    "boundmass_1e308": (W(B, '<compiler boundmass="1e308"/>'),
                        ['<compiler boundmass="1e308">', "beyond 1e+150"], 1),
    # unsupported
    "composite": (W('<body><joint/><geom size=".1"/><composite type="grid" count="2 2 1"/>'
                    '</body>'), ["<composite> is not supported"], 2),
    "attach": (W('<body><joint/><geom size=".1"/><attach model="m" body="b" prefix="p"/>'
                 '</body>'), ["<attach> is not supported"], 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus(name):
    doc, fragments, line = CASES[name]
    t = time.perf_counter()
    with pytest.raises(MJCFError) as err:
        load_mjcf(doc)
    assert time.perf_counter() - t < 2.0
    msg = str(err.value)
    assert isinstance(err.value, DescriptionError) and isinstance(err.value, ValueError)
    assert err.value.source == "<string>" and msg.startswith(f"<string>, line {line}: "), msg
    assert err.value.line == line
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in {msg!r}"


def test_corpus_is_broad():
    assert len(CASES) >= 50


def test_balanceinertia_fixes_what_it_is_for():
    doc = CASES["nonphysical"][0].replace("<mujoco>", '<mujoco><compiler balanceinertia="true"/>')
    assert load_mjcf(doc).nv == 1


# --- includes -----------------------------------------------------------------------------------

def _files(tmp_path, files: dict):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path / next(iter(files))


MAIN = '<mujoco>\n<include file="{}"/><worldbody>' + B + "</worldbody></mujoco>"


@pytest.mark.parametrize("files, source, fragments, line", [
    ({"main.xml": MAIN.format("gone.xml")}, "main.xml", ["'gone.xml' not found"], 2),
    ({"main.xml": MAIN.format("main.xml")}, "main.xml",
     ["the includes form a cycle: main.xml -> main.xml"], 2),
    ({"main.xml": MAIN.format("a.xml"), "a.xml": '<mujoco>\n\n<include file="b.xml"/></mujoco>',
      "b.xml": '<mujoco><include file="a.xml"/></mujoco>'}, "b.xml",
     ["cycle: a.xml -> b.xml -> a.xml"], 1),
    ({"main.xml": '<mujoco><include file="a.xml"/>\n<include file="a.xml"/></mujoco>',
      "a.xml": "<mujoco/>"}, "main.xml", ["'a.xml' is already included", "line 1"], 2),
    ({"main.xml": MAIN.format("a.xml"), "a.xml": "<mujoco>\n<worldbody></mujoco>"}, "a.xml",
     ["malformed XML"], 2),
    ({"main.xml": MAIN.format("a.xml"), "a.xml": '<robot name="r"/>'}, "a.xml",
     ["an included file's root element must be <mujoco>"], 1),
    ({"main.xml": MAIN.format("a.xml"),
      "a.xml": '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "/etc/passwd">]><mujoco/>'},
     "a.xml", ["DOCTYPE", "not allowed"], 2),
    ({"main.xml": MAIN.format("a.xml"),
      "a.xml": '<mujoco><worldbody>\n<body><joint/><geom size="nan"/></body></worldbody></mujoco>'},
     "a.xml", ['<geom size="nan">'], 2),
    ({"main.xml": "<mujoco>\n<include/></mujoco>"}, "main.xml", ["no file=\"...\""], 2),
])
def test_include_errors_name_the_file_they_are_in(tmp_path, files, source, fragments, line):
    main = _files(tmp_path, files)
    with pytest.raises(MJCFError) as err:
        load_mjcf(main)
    msg = str(err.value)
    assert os.path.basename(err.value.source) == source, msg
    assert err.value.line == line, msg
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in {msg!r}"


def test_include_bomb_deep(tmp_path):
    files = {"main.xml": MAIN.format("f0.xml")}
    for k in range(3 * MAX_INCLUDE_DEPTH):
        files[f"f{k}.xml"] = f'<mujoco><include file="f{k + 1}.xml"/></mujoco>'
    files[f"f{3 * MAX_INCLUDE_DEPTH}.xml"] = "<mujoco/>"
    t = time.perf_counter()
    with pytest.raises(MJCFError, match=f"nested more than {MAX_INCLUDE_DEPTH} deep"):
        load_mjcf(_files(tmp_path, files))
    assert time.perf_counter() - t < 2.0


def test_include_bomb_wide(tmp_path):
    """Exponential expansion (each level including the next one ten times) stops at the
    second include of a file; many distinct files stop at MAX_INCLUDES."""
    files = {"main.xml": "<mujoco>" + '<include file="l0.xml"/>' * 10 + "</mujoco>"}
    for k in range(8):
        files[f"l{k}.xml"] = "<mujoco>" + f'<include file="l{k + 1}.xml"/>' * 10 + "</mujoco>"
    files["l8.xml"] = '<mujoco><option gravity="0 0 -1"/></mujoco>'
    t = time.perf_counter()
    with pytest.raises(MJCFError, match="already included"):
        load_mjcf(_files(tmp_path, files))
    wide = {"wide.xml": "<mujoco>" + "".join(f'<include file="w{k}.xml"/>'
                                             for k in range(MAX_INCLUDES + 50)) + "</mujoco>"}
    wide.update({f"w{k}.xml": "<mujoco/>" for k in range(MAX_INCLUDES + 50)})
    with pytest.raises(MJCFError, match=f"more than {MAX_INCLUDES} included files"):
        load_mjcf(_files(tmp_path, wide))
    assert time.perf_counter() - t < 4.0


def test_includes_count_against_max_bytes(tmp_path):
    big = "<mujoco>" + "<!-- " + "x" * 5000 + " -->" * 1 + "</mujoco>"
    main = _files(tmp_path, {"main.xml": MAIN.format("big.xml"), "big.xml": big})
    assert load_mjcf(main).nv == 1
    with pytest.raises(MJCFError, match="included files are larger than max_bytes") as err:
        load_mjcf(main, max_bytes=1000)
    assert err.value.line == 2
    with pytest.raises(MJCFError, match="larger than max_bytes=10"):
        load_mjcf(main, max_bytes=10)
    with pytest.raises(ValueError, match="max_bytes must be None or an integer"):
        load_mjcf(main, max_bytes=-1)
    assert parse_mjcf(main, max_bytes=None).links[-1].name == "b"


def test_devices_and_pipes_are_not_read_whole(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    t = time.perf_counter()
    with pytest.raises(MJCFError, match="a device or a pipe"):
        load_mjcf("/dev/zero", max_bytes=1 << 20)
    main = _files(tmp_path, {"main.xml": MAIN.format("/dev/zero")})
    with pytest.raises(MJCFError, match="not found"):  # not a regular file: never opened
        load_mjcf(main)
    assert time.perf_counter() - t < 2.0


def test_bad_arguments():
    with pytest.raises(TypeError, match="an MJCF file's path or an MJCF document"):
        load_mjcf(7)
    with pytest.raises(FileNotFoundError):
        load_mjcf("/no/such/robot.xml")
    with pytest.raises(TypeError, match="root_joint must be None or a joint type name"):
        load_mjcf(W(B), root_joint=1)
    assert fd.MJCFError is MJCFError


def test_deep_nesting_is_refused_not_a_recursion_error(tmp_path):
    """Bodies nest as elements do: a chain deeper than MAX_NESTING is refused where it gets
    too deep (the file it is in, the line), in one document or across an include."""
    from fastdyn.io._mjcf_doc import MAX_NESTING

    def chain(n):
        return '<body><joint/><geom size=".1"/>' * n + "</body>" * n

    t = time.perf_counter()
    with pytest.raises(MJCFError, match=f"nested more than {MAX_NESTING} deep"):
        load_mjcf("<mujoco><worldbody>" + chain(20_000) + "</worldbody></mujoco>")
    assert load_mjcf("<mujoco><worldbody>" + chain(MAX_NESTING - 10) +
                     "</worldbody></mujoco>").nv == MAX_NESTING - 10
    half = MAX_NESTING // 2 + 10
    main = _files(tmp_path, {
        "main.xml": "<mujoco><worldbody>" + chain(half).replace(
            "</body>", '<include file="more.xml"/></body>', 1) + "</worldbody></mujoco>",
        "more.xml": "<mujoco>" + chain(half) + "</mujoco>"})
    with pytest.raises(MJCFError, match="nested more than") as err:
        load_mjcf(main)
    assert err.value.source.endswith("more.xml")
    assert time.perf_counter() - t < 10.0


# --- numbers at the edge of a double ----------------------------------------------------------

def test_numbers_at_the_edge_that_make_a_robot_give_its_exact_model():
    """Where the mathematics is finite the model is, however near the edge the numbers are:
    directions normalized by their largest entry, moments ordered as (m r) r, a geom too small
    for a double's volume weighing nothing."""
    import numpy as np

    m = load_mjcf(W('<body quat="1e308 1e308 0 0"><joint/><geom size=".1"/></body>'
                    '<body zaxis="0 1e308 1e308"><joint/><geom size=".1"/></body>'
                    '<body xyaxes="1e308 0 0 1e308 1e308 0"><joint/><geom size=".1"/></body>'))
    half = np.sqrt(0.5)
    assert np.allclose(m.params["R"][1], [[1, 0, 0], [0, 0, -1], [0, 1, 0]], atol=1e-15)
    assert np.allclose(m.params["R"][2][:, 2], [0, half, half], atol=1e-15)  # z onto zaxis
    assert np.allclose(m.params["R"][3], np.eye(3), atol=1e-15)
    plain = load_mjcf(W(B))
    dusty = load_mjcf(W('<body name="b"><joint/><geom size=".1"/><geom size="1e-308" '
                        'pos="0 0 1"/><geom type="capsule" size="1e-200 1e-300"/></body>'))
    assert np.array_equal(dusty.params["pi"], plain.params["pi"])
    # a capsule 1e200 m across of 1e-300 kg beside a 1 kg sphere: r^2 alone overflows, m r^2
    # does not (1.21 m r^2 about a cross axis, 0.46 m r^2 about its own)
    cap = load_mjcf(W('<body><joint/><geom size=".1"/><geom type="capsule" mass="1e-300" '
                      'size="1e200 1e200"/></body>'))
    assert np.allclose(np.diag(cap.inertia[1]), [1.21e100, 1.21e100, 0.46e100], rtol=1e-12)


EDGES = ("0", "-0", "1e-308", "-1e-308", "5e-324", "1e308", "-1e308",
         "1.7976931348623157e308", "inf", "nan", "-1", "-2.5", "1e400", "1e-400")

# A robot that reads every numeric attribute the loader computes with; {name} slots hold
# their valid values below, which the fuzz replaces by edge values.
FUZZ_DOC = """<mujoco>
<compiler angle="radian" boundmass="{boundmass}" boundinertia="{boundinertia}"
  settotalmass="{settotalmass}"/>
<option gravity="{gravity}"/>
<worldbody>
<body name="base" pos="{base_pos}" quat="{base_quat}">
  <joint name="j1" pos="{j1_pos}" axis="{j1_axis}" ref="{j1_ref}" range="{j1_range}"
    armature="{armature}" damping="{damping}" frictionloss="{frictionloss}"
    actuatorfrcrange="{frc}"/>
  <geom type="sphere" size="{sphere}" pos="{sphere_pos}" density="{density}"/>
  <frame pos="{frame_pos}" euler="{frame_euler}">
    <body name="arm" pos="{arm_pos}" xyaxes="{arm_xyaxes}">
      <joint name="j2" type="slide" axis="{j2_axis}" ref="{j2_ref}"/>
      <geom type="capsule" size="{capsule}" fromto="{fromto}" mass="{capsule_mass}"/>
      <geom type="box" size="{box}" pos="{box_pos}" axisangle="{box_axisangle}"/>
      <site name="tip" pos="{site_pos}" zaxis="{site_zaxis}"/>
      <body name="hand" pos="{hand_pos}">
        <geom type="ellipsoid" size="{ellipsoid}"/>
        <geom type="cylinder" size="{cylinder}" mass="{cylinder_mass}"/>
      </body>
    </body>
  </frame>
  <body name="tool" pos="{tool_pos}">
    <joint name="j3" type="ball"/>
    <inertial pos="{inertial_pos}" mass="{inertial_mass}" {inertia}/>
  </body>
</body>
</worldbody></mujoco>"""
FUZZ_VALUES = {
    "boundmass": "0", "boundinertia": "0", "settotalmass": "-1", "gravity": "0 0 -9.81",
    "base_pos": "0 0 1", "base_quat": "1 0 0 0", "j1_pos": "0 0 0.1", "j1_axis": "0 1 0",
    "j1_ref": "0.1", "j1_range": "-1 1", "armature": "0.01", "damping": "0.1",
    "frictionloss": "0.2", "frc": "-5 5", "sphere": "0.1", "sphere_pos": "0 0 0.05",
    "density": "1000", "frame_pos": "0.1 0 0", "frame_euler": "0 0.3 0",
    "arm_pos": "0 0 0.2", "arm_xyaxes": "1 0 0 0 1 0", "j2_axis": "1 0 0", "j2_ref": "0",
    "capsule": "0.05", "fromto": "0 0 0 0 0 0.3", "capsule_mass": "1.5",
    "box": "0.1 0.05 0.02", "box_pos": "0 0 0.1", "box_axisangle": "0 0 1 0.5",
    "site_pos": "0 0 0.3", "site_zaxis": "0 0 1", "hand_pos": "0 0 0.3",
    "ellipsoid": "0.03 0.04 0.05", "cylinder": "0.02 0.04", "cylinder_mass": "0.3",
    "tool_pos": "0 0.2 0", "inertial_pos": "0 0 0.01", "inertial_mass": "0.5",
    "inertia": 'diaginertia="0.01 0.02 0.025"',
}


def _fuzzed(rng) -> str:
    values = dict(FUZZ_VALUES)
    for key in rng.choice(sorted(values), size=int(rng.integers(1, 4)), replace=False):
        if key == "inertia":
            k = rng.choice(["diaginertia", "fullinertia"])
            n = 3 if k == "diaginertia" else 6
            nums = ["0.01"] * 3 + ["0"] * (n - 3)
        else:
            nums = values[key].split()
        for i in rng.choice(len(nums), size=int(rng.integers(1, len(nums) + 1)),
                            replace=False):
            nums[i] = str(rng.choice(EDGES))
        values[key] = f'{k}="{" ".join(nums)}"' if key == "inertia" else " ".join(nums)
    return FUZZ_DOC.format(**values)


def test_fuzz_numeric_attributes_at_the_edges_of_a_double():
    """Every numeric attribute at 0, +-1e-308, +-1e308, inf, nan, negative: a Model whose
    numbers are finite, or an MJCFError naming the line and the element; never NumPy's or
    Python's arithmetic errors, nor their warnings."""
    import warnings

    import numpy as np

    from fastdyn.io import MJCFWarning

    assert load_mjcf(FUZZ_DOC.format(**FUZZ_VALUES)).nv == 1 + 1 + 3  # the base case loads
    rng = np.random.default_rng(10)
    outcomes = {"model": 0, "error": 0}
    t = time.perf_counter()
    for _ in range(400):
        doc = _fuzzed(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MJCFWarning)
            warnings.simplefilter("error")  # a RuntimeWarning (overflow) is a failure too
            try:
                m = load_mjcf(doc)
            except MJCFError as e:
                assert e.source == "<string>" and e.line is not None and e.element, str(e)
                outcomes["error"] += 1
                continue
            except Exception as e:  # noqa: BLE001  (the point of the test)
                raise AssertionError(f"{type(e).__name__}: {e}\n{doc}") from None
        for field in ("pi", "R", "p", "armature", "damping", "friction"):
            assert np.isfinite(m.params[field]).all(), (field, doc)
        assert np.isfinite(m.gravity).all(), doc
        outcomes["model"] += 1
    assert min(outcomes.values()) > 40, outcomes  # both sides of the edge are exercised
    assert time.perf_counter() - t < 30.0
