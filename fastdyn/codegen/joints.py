"""Symbolic joints for generated code: liMi(q), S, v_J of the joint types generation supports.

Each joint family writes its own rules beside its kernels (``symbolic_placement`` and
``symbolic_subspace`` in kernels/joints/<family>.py; kernels/joints/common.py says what they
compute), and its contract says which of its types are generated; this module dispatches.
Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "Joint" (^{l(i)}M_i = j.M_0
j.M(q), v_J = S qdot, c_J = 0 for constant S). Supported: every
joint whose S is constant in its own frame (so c_J = 0): revolute (any fixed axis; bounded or
continuous), prismatic, spherical, planar, translation and free-flyer, which covers every joint
type a URDF can declare. Helical, universal and spherical-ZYX (S depends on q) are refused by
name, never approximated.
"""

from __future__ import annotations

from ..kernels.joints import codes
from .tracer import Tracer

SUPPORTED = codes.GENERATED  # the joint contract's "generated" flag


def family(jtype: int):
    """The family module whose symbolic_* rules write this type (kernels/joints/<family>.py),
    or NotImplementedError naming the type."""
    if jtype not in SUPPORTED:
        raise NotImplementedError(codes.NAMES[jtype])
    return codes.FAMILY[jtype]


def placement(T: Tracer, jr, qn: list[str]):
    """(R, p) of liMi = M_0 M_J(q); ``qn`` names q's entries."""
    return family(int(jr["type"])).symbolic_placement(T, jr, qn)


def subspace(jr) -> list[list[float]]:
    """The constant columns of S (6-vectors, linear first)."""
    return family(int(jr["type"])).symbolic_subspace(jr)


def combine(T: Tracer, cols, coeffs):
    """sum_d S_d coeffs[d] as a 6-list (S constant, so this is mostly picking entries)."""
    return [T.sop([(col[r], x) for col, x in zip(cols, coeffs)]) for r in range(6)]
