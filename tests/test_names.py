"""The naming rule (fastdyn/docs/names.md) held against Pinocchio's own Python bindings: a
public function whose name Pinocchio has with a ``compute``/``get`` prefix, or without the
prefix fastdyn gives it, is misnamed; every batch is named as its single call; every renamed
name still works, warns, and is the new object."""

import re
import warnings

import pytest

import fastdyn as fd

pin = pytest.importorskip("pinocchio")


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _functions(module) -> list[str]:
    return [n for n in module.__all__ if callable(getattr(module, n))
            and not isinstance(getattr(module, n), type)]


def test_camel_helper():
    assert _camel("compute_generalized_gravity") == "computeGeneralizedGravity"
    assert _camel("non_linear_effects") == "nonLinearEffects"


def test_pinocchio_names_are_taken_as_pinocchio_spells_them():
    names = set(dir(pin))
    wrong = []
    for n in _functions(fd):
        bare = re.sub(r"^(compute|get)_", "", n)
        have = _camel(n) in names
        prefixed = [p for p in ("compute", "get") if _camel(f"{p}_{bare}") in names]
        if not have and (prefixed or _camel(bare) in names):
            wrong.append(f"fd.{n}: Pinocchio has "
                         f"{[_camel(f'{p}_{bare}') for p in prefixed] or [_camel(bare)]}")
    assert wrong == []


def test_the_rule_would_catch_the_old_names():
    """The check above fails on the 0.1 names (else it could pass whatever the names)."""
    names = set(dir(pin))
    for old in ("generalized_gravity", "kinetic_energy", "frame_velocity", "nonlinear_effects"):
        bare = re.sub(r"^(compute|get)_", "", old)
        assert _camel(old) not in names
        assert any(_camel(f"{p}_{bare}") in names for p in ("compute", "get")) or \
            old == "nonlinear_effects"
    assert "nonLinearEffects" in names  # the one renamed by spelling, not by prefix


def test_every_batch_is_named_as_its_single_call():
    singles = set(fd.__all__) | {"step_derivatives"}  # Scene.step_derivatives' batch
    assert [n for n in _functions(fd.batch) if n not in singles] == []


@pytest.mark.parametrize("module, old", [(fd, o) for o in fd._RENAMED]
                         + [(fd.batch, o) for o in fd.batch._RENAMED])
def test_an_old_name_warns_and_is_the_new_object(module, old):
    new = module._RENAMED[old]
    target = fd
    for part in new.split("."):
        target = getattr(target, part)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = getattr(module, old)
    assert got is target
    assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message)
               for w in caught)
    if not old.endswith("_pose"):  # the two dropped twins are in no __all__ any more
        assert old not in module.__all__ and new.split(".")[-1] in (
            fd.__all__ + fd.batch.__all__)


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'rnea_typo'"):
        fd.rnea_typo  # noqa: B018
