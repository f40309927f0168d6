"""Collision geometry: the flat geom table (geoms.py), world placements and bounding boxes,
the narrow phase (analytic routines for plane, sphere, capsule and box pairs, GJK/EPA for every
other convex pair) and the broad phase (sweep-and-prune with body and bitmask filters).

Every routine writes contacts into a preallocated table ``con`` (see geoms.py: point, normal
from geom 1 to geom 2, signed distance) and allocates nothing; all are callable from @njit code.
"""
