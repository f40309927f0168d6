"""Reference frames in which velocities, accelerations and Jacobians are expressed.

Source: Traversaro & Saccon (2019), sec. 5.1-5.2; the README's Conventions section. For a
moving frame E and the world (inertial) frame A:
  LOCAL               ^E v_{A,E}     expressed in E itself (left-trivialized)
  WORLD               ^A v_{A,E}     expressed in A, at A's origin (right-trivialized)
  LOCAL_WORLD_ALIGNED ^{E[A]} v_{A,E} origin of E, axes of A: [^A o_E'; ^A w] (eq. 35, "mixed")
The numbers are fastdyn's own and differ from Pinocchio's enum (pin.WORLD == 0 and
pin.LOCAL == 1): a Pinocchio enum passed here is refused rather than silently misread.
Reference: Traversaro & Saccon, "Multibody dynamics notation (version 2)", Technische Universiteit
Eindhoven, 2019.
"""

from __future__ import annotations

import numpy as np

from .kernels.layout import LOCAL, LOCAL_WORLD_ALIGNED, WORLD

REFERENCES = {LOCAL: "LOCAL", WORLD: "WORLD", LOCAL_WORLD_ALIGNED: "LOCAL_WORLD_ALIGNED"}

__all__ = ["LOCAL", "WORLD", "LOCAL_WORLD_ALIGNED", "reference_code"]


def reference_code(reference) -> int:
    """The kernel code of ``reference`` (fastdyn.LOCAL, WORLD or LOCAL_WORLD_ALIGNED), or a
    ValueError naming the accepted values."""
    plain = type(reference) is int or isinstance(reference, np.integer)
    if plain and int(reference) in REFERENCES:
        return int(reference)
    hint = ""
    if not plain and "pinocchio" in type(reference).__module__:
        hint = " (a Pinocchio ReferenceFrame: its numbers differ from fastdyn's)"
    raise ValueError(f"reference must be fastdyn.LOCAL (0), fastdyn.WORLD (1) or "
                     f"fastdyn.LOCAL_WORLD_ALIGNED (2), got {reference!r}{hint}")
