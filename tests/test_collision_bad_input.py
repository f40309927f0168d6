"""Bad geoms get a GeomError that names the geom's index and the field (fastdyn.errors)."""

import numpy as np
import pytest

from fastdyn.sim import collision as col
from fastdyn.errors import GeomError

TET = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]


@pytest.mark.parametrize("geom, field, words", [
    (dict(type="sphere", size=(0.0,)), "size", "positive"),
    (dict(type="box", size=(0.1, -0.2, 0.1)), "size", "positive"),
    (dict(type="capsule", size=(0.1,)), "size", "expected 2 numbers"),
    (dict(type="cylinder"), "size", "needs 2"),
    (dict(type="ellipsoid", size=(0.1, np.nan, 0.1)), "size", "not finite"),
    (dict(type="cone", size=(0.1,)), "type", "unknown geom type 'cone'"),
    (dict(size=(0.1,)), "type", "unknown geom type None"),
    (dict(type="convex", vertices=TET[:3]), "vertices", "at least 4"),
    (dict(type="convex", vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]), "vertices",
     "flat"),
    (dict(type="convex", vertices=TET[:3] + [[0, 0, np.nan]]), "vertices", "vertex 3"),
    (dict(type="convex", vertices=np.zeros((5, 2))), "vertices", "(n, 3)"),
    (dict(type="convex"), "vertices", "needs its vertices"),
    (dict(type="box", size=(1, 1, 1), vertices=TET), "vertices", "only convex"),
    (dict(type="sphere", size=(1,), quat=(0, 0, 0, 2)), "quat", "unit quaternion"),
    (dict(type="sphere", size=(1,), rot=2 * np.eye(3)), "rot", "rotation"),
    (dict(type="sphere", size=(1,), body=-1), "body", "body index"),
    (dict(type="sphere", size=(1,), margin=-0.1), "margin", ">= 0"),
    (dict(type="sphere", size=(1,), contype=-1), "contype", "bit mask"),
    (dict(type="sphere", size=(1,), colour=1), "colour", "unknown field"),
])
def test_bad_geoms_name_the_geom_and_field(geom, field, words):
    with pytest.raises(GeomError) as e:
        col.geom_table([dict(type="plane"), geom])
    assert e.value.geom == 1 and e.value.field == field
    assert str(e.value).startswith(f"geom 1: {field}: ") and words in str(e.value)
    assert isinstance(e.value, ValueError)


def test_a_geom_on_a_body_without_a_placement_is_refused():
    table = col.geom_table([dict(type="sphere", size=(1,), body=2)])
    with pytest.raises(GeomError, match="geom 0: body: body 2 but 2 body placements"):
        col.collide(table, np.tile(np.eye(4), (2, 1, 1)))
    with pytest.raises(ValueError, match="expected shape"):
        col.collide(table, np.eye(4))
