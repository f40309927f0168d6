"""tests/scheduling.py: the tables name files that exist, and grouped files form one unit."""

import os

import pytest

pytest.importorskip("xdist")
import scheduling  # noqa: E402  (tests/scheduling.py; needs pytest-xdist)

HERE = os.path.dirname(__file__)


def test_the_tables_name_test_files_that_exist():
    # A renamed or deleted file would silently leave its group (compiling twice again) or
    # keep a cost that no longer describes anything.
    for name in list(scheduling.GROUPS) + list(scheduling.COST):
        assert os.path.isfile(os.path.join(HERE, name)), name


def test_grouped_files_are_one_unit_and_the_others_their_own():
    s = scheduling.FileGroups.__new__(scheduling.FileGroups)  # _split_scope reads no state
    grouped = sorted(scheduling.GROUPS)
    assert grouped, "no groups: the scheduler is plain loadfile"
    a = grouped[0]
    mates = [f for f in grouped if scheduling.GROUPS[f] == scheduling.GROUPS[a]]
    assert len(mates) > 1
    assert {s._split_scope(f"tests/{f}::test_x") for f in mates} == {scheduling.GROUPS[a]}
    assert s._split_scope("tests/test_not_grouped.py::test_y[1]") == "tests/test_not_grouped.py"
