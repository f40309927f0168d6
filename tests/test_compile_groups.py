"""``fastdyn compile``'s groups cover the public API: every public function of fastdyn's top
level, of fastdyn.batch, Scene's stepping calls and studies is warmed by some group (or
compiles nothing of its own), and every group's first calls run."""

import inspect

import pytest

import fastdyn as fd
from fastdyn.cli import compile_groups as cg
from fastdyn.cli import precompile


def _public() -> set[str]:
    names = {n for n in fd.__all__
             if callable(getattr(fd, n)) and not inspect.isclass(getattr(fd, n))}
    names |= {f"batch.{n}" for n in fd.batch.__all__}
    names |= {f"Scene.{n}" for n in ("step", "step_derivatives", "horizon", "rollout")}
    names |= {"study.run"}
    return names


def test_every_public_function_is_in_a_group():
    covered = {c for _, covers in cg.GROUPS.values() for c in covers}
    missing = sorted(_public() - covered - cg.NO_KERNEL)
    assert not missing, f"public calls in no `fastdyn compile` group: {missing}"
    stale = sorted(covered - _public())
    assert not stale, f"groups name calls that are not public: {stale}"
    assert set(precompile.TASKS) == set(cg.GROUPS)


@pytest.mark.parametrize("group", list(cg.GROUPS))
def test_each_group_makes_its_first_calls(group):
    cg.first_call(group, fd.models.load("quadruped"))


def test_an_unknown_group_is_named():
    with pytest.raises(ValueError, match="unknown kernel group 'rnae'"):
        cg.first_call("rnae", None)
