"""Fuzzing the URDF parser against Pinocchio (tests/fuzz_urdf.py makes and judges the mutants).

Every mutant of a bundled or example-robot-data URDF must end in one of the outcomes
``fuzz_urdf.judge`` allows: both parsers load it and agree (joints, types, frames, limits,
inertias, RNEA at a random state), both refuse it, or fastdyn departs from Pinocchio for a
reason listed in ``fuzz_urdf.STRICTER`` / ``fuzz_urdf.LENIENT`` (or, for differences outside
the parser, ``fuzz_urdf.KNOWN``). The seeds are fixed, so a failure names a (source, seed)
pair that rebuilds the same mutant anywhere.

The default run judges 200 mutants in a few seconds once the kernels are compiled; the
``slow`` run judges 20000 (about two minutes). Both stop early, with what they have, past a
time budget, so a loaded machine makes them check less rather than hang.
"""

import time

import pytest

pin = pytest.importorskip("pinocchio")
import fuzz_urdf as fz  # noqa: E402  (needs pinocchio for the judge)

from fastdyn.io.urdf import URDFError, load_urdf  # noqa: E402

SMALL_SEEDS = range(0, 200)
LARGE_SEEDS = range(1_000_000, 1_020_000)


@pytest.fixture(scope="module")
def labels():
    labs = fz.available_sources()
    assert {"bundled/ur5", "bundled/humanoid"} <= set(labs)
    for label in labs:
        fz.source_text(label)
    return labs


def _report(fails, counts, n, seconds):
    shown = "\n".join(f.detail for f in fails[:20])
    more = f"\n... and {len(fails) - 20} more" if len(fails) > 20 else ""
    return (f"{len(fails)} of {n} mutants failed in {seconds:.1f} s (outcomes {counts}); "
            f"reproduce one with fuzz_urdf.judge(label, seed) from tests/:\n{shown}{more}")


def _run(labels, seeds, budget):
    t = time.perf_counter()
    fails, counts, n = fz.run(labels, seeds, budget)
    return fails, counts, n, time.perf_counter() - t


def test_fuzz_small(labels):
    fails, counts, n, dt = _run(labels, SMALL_SEEDS, budget=60.0)
    assert not fails, _report(fails, counts, n, dt)
    assert n >= 50, f"only {n} mutants judged in {dt:.0f} s"
    # the run exercises all three kinds of outcome, not only refusals
    assert counts.get("agree", 0) > 20 and counts.get("both refuse", 0) > 20, counts
    assert any(k.startswith("stricter") for k in counts), counts


@pytest.mark.slow
def test_fuzz_large(labels):
    fails, counts, n, dt = _run(labels, LARGE_SEEDS, budget=240.0)
    assert not fails, _report(fails, counts, n, dt)
    assert n >= 1000, f"only {n} mutants judged in {dt:.0f} s"


def test_mutants_are_reproducible(labels):
    for seed in (0, 7, 123456):
        for label in labels[:3]:
            assert fz.mutant(label, seed) == fz.mutant(label, seed)
    assert fz.mutant(labels[0], 1) != fz.mutant(labels[0], 2)


def test_untouched_sources_agree(labels):
    """The round trip through the fuzzer's tree changes nothing either parser sees."""
    for label in labels:
        data = fz.serialize(fz.parse_tree(fz.source_text(label))).encode()
        root = fz.SOURCES[label][2]
        m, err, foreign = fz.fd_load(data, root)
        pm, refusal = fz.pin_load(data, root)
        assert err is None and pm is not None and not foreign, (label, err, refusal, foreign)
        assert fz.compare(m, pm, seed=0) == "", label


# --- the listed departures from Pinocchio are real ----------------------------------------------
# One small document per reason: fastdyn must refuse it (STRICTER) or load it (LENIENT) with
# that reason, and Pinocchio must do the opposite, or the table claims something false.

_LINK = ('<link name="{}"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" '
         'iyy="0.1" iyz="0" izz="0.1"/></inertial></link>')


def _doc(joint_extra="", kind="revolute", link_b=None, jname="j", more=""):
    lim = '<limit lower="-1" upper="1" effort="1" velocity="1"/>' if "<limit" not in \
        joint_extra and kind in ("revolute", "prismatic") else ""
    b = _LINK.format("b") if link_b is None else link_b
    return (f'<?xml version="1.0"?>\n<robot name="r">{_LINK.format("a")}{b}\n'
            f'<joint name="{jname}" type="{kind}"><parent link="a"/><child link="b"/>'
            f'<axis xyz="0 0 1"/>{lim}{joint_extra}</joint>{more}</robot>')


def _inertia(**kw):
    v = dict(ixx="0.1", ixy="0", ixz="0", iyy="0.1", iyz="0", izz="0.1", mass="1", xyz="0 0 0",
             rpy="0 0 0")
    v.update(kw)
    return (f'<link name="b"><inertial><origin xyz="{v["xyz"]}" rpy="{v["rpy"]}"/>'
            f'<mass value="{v["mass"]}"/><inertia ixx="{v["ixx"]}" ixy="{v["ixy"]}" '
            f'ixz="{v["ixz"]}" iyy="{v["iyy"]}" iyz="{v["iyz"]}" izz="{v["izz"]}"/></inertial>'
            f'</link>')


def _no_axis(extra):
    return _doc(joint_extra=extra).replace('<axis xyz="0 0 1"/>', "", 1)


STRICTER_EXAMPLES = {  # reason -> documents Pinocchio loads and fastdyn refuses for it
    "NaN or inf": [_doc(link_b=_inertia(ixx="nan")), _doc(link_b=_inertia(mass="inf")),
                   _doc(link_b=_inertia(xyz="0 1e999 0"))],
    "decimal comma": [_doc(link_b=_inertia(mass="1,5"))],
    "number syntax": [_doc(link_b=_inertia(iyz="0. ")), _doc(link_b=_inertia(mass="0x10")),
                      _doc(link_b=_inertia(izz="\uff11"))],
    "vector size": [_doc(link_b=_inertia(xyz="0 0 0 1"))],
    "broken inertial": [_doc(link_b='<link name="b"><inertial><inertia ixx="1" ixy="0" ixz="0" '
                                    'iyy="1" iyz="0" izz="1"/></inertial></link>'),
                        _doc(link_b='<link name="b"><inertial><mass value="1"/></inertial>'
                                    '</link>')],
    "DOCTYPE": [_doc().replace("<robot", "<!DOCTYPE robot>\n<robot", 1)],
    "malformed XML": [_doc(more="<gazebo>&#xD800;</gazebo>")],
    "missing or blank name": [_doc(jname=""), '<robot name="r"><link/></robot>'],
    "reserved name": [_doc(jname="universe")],
    "overflow": [_no_axis('<axis xyz="1e308 1e308 0"/>'),
                 _doc(link_b=_inertia(ixx="1e308", iyy="1e308", izz="1e308", ixy="1e308"))],
    "kinematic cycle": [_doc(more=f'{_LINK.format("c")}{_LINK.format("d")}'
                                  f'<joint name="k1" type="fixed"><parent link="c"/>'
                                  f'<child link="d"/></joint><joint name="k2" type="fixed">'
                                  f'<parent link="d"/><child link="c"/></joint>')],
    "mimic cycle": [_doc(joint_extra='<mimic joint="j"/>')],
    "impossible inertia": [_doc(link_b=_inertia(mass="-1")),
                           _doc(link_b=_inertia(ixx="-1"))],
    "limits": [_doc(joint_extra='<limit lower="1" upper="-1" effort="1" velocity="1"/>'),
               _doc(joint_extra='<dynamics damping="-1"/>')],
    "zero axis": [_no_axis('<axis xyz="0 0 0"/>'), _no_axis("<axis/>")],
}

LENIENT_EXAMPLES = {
    "encodings": ("re-encoded as UTF-16 with BOM", _doc().replace(
        '<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>').encode("utf-16")),
    "ignored elements": ("", _doc(joint_extra='<safety_controller k_velocity="x"/>')),
    "processing instruction": ("insert b'<?pi data?>'", _doc().replace(
        "<link", "<?pi data?><link", 1)),
}


def test_stricter_and_lenient_tables_are_documented():
    for table in (fz.STRICTER, fz.LENIENT):
        for reason, (_, why) in table.items():
            assert len(why) > 30 and "..." not in why, reason
    assert all(len(why) > 30 for why in fz.KNOWN.values())
    assert set(STRICTER_EXAMPLES) == set(fz.STRICTER)
    assert set(LENIENT_EXAMPLES) == set(fz.LENIENT)


@pytest.mark.parametrize("reason", sorted(STRICTER_EXAMPLES))
def test_stricter_reason_is_real(reason):
    for doc in STRICTER_EXAMPLES[reason]:
        data = doc.encode()
        m, err, foreign = fz.fd_load(data, None)
        assert isinstance(err, URDFError) and err.line is not None and not foreign, (doc, err)
        assert fz._stricter_reason(str(err)) == reason, str(err)
        pm, refusal = fz.pin_load(data, None)
        assert pm is not None, f"Pinocchio refuses too, so {reason!r} is no departure: {refusal}"


@pytest.mark.parametrize("reason", sorted(LENIENT_EXAMPLES))
def test_lenient_reason_is_real(reason):
    desc, data = LENIENT_EXAMPLES[reason]
    data = data if isinstance(data, bytes) else data.encode()
    m, err, foreign = fz.fd_load(data, None)
    assert err is None and not foreign, err
    pm, refusal = fz.pin_load(data, None)
    assert pm is None
    applies, _ = fz.LENIENT[reason]
    assert applies(desc, refusal), refusal


def test_judge_reports_seed_and_mutation(labels, monkeypatch):
    """A failure says which mutant to rebuild: patch fastdyn's load to crash and look."""
    def crash(*a, **k):
        raise TypeError("boom")

    monkeypatch.setattr(fz, "load_urdf", crash)
    v = fz.judge(labels[0], 42)
    assert not v.ok and f"({labels[0]!r}, seed=42)" in v.detail and "TypeError" in v.detail
    assert fz.mutant(labels[0], 42)[1] in v.detail


def test_comparison_is_not_vacuous():
    """The judge's comparison catches a model that differs in one inertia, or in gravity only
    (which only the RNEA check sees)."""
    doc = _doc()
    pm = pin.buildModelFromXML(doc)
    assert fz.compare(load_urdf(doc), pm, seed=3) == ""
    assert "inertia" in fz.compare(load_urdf(_doc(link_b=_inertia(ixx="0.2"))), pm, seed=3)
    doc = fz.source_text("bundled/ur5")
    m, pm = load_urdf(doc), pin.buildModelFromXML(doc)
    assert fz.compare(m, pm, seed=3) == ""
    m.gravity = [0.0, 0.0, -1.0]
    assert "RNEA differs" in fz.compare(m, pm, seed=3)


def test_known_differences_are_real():
    """The two KNOWN entries (outside the parser) still happen; when one stops, drop it."""
    far = _doc(more=f'<link name="c"/><joint name="f" type="fixed"><parent link="b"/>'
                    f'<child link="c"/><origin xyz="0 0 1e308"/></joint>')
    m, pm = load_urdf(far), pin.buildModelFromXML(far)
    assert fz.compare(m, pm, seed=0) == "known: Pinocchio not finite"
    doc = fz.source_text("bundled/double_pendulum").replace(
        '<origin xyz="0 0 -1.0" rpy="0 0 0"/>', '<origin xyz="0 1e308 -1.0" rpy="0 0 0"/>', 1)
    m, pm = load_urdf(doc), pin.buildModelFromXML(doc)
    assert fz.compare(m, pm, seed=0) == "known: kernel overflow"
