"""How much memory this machine has, and the refusal of results that would not fit in it.

Shared by the batch entry points that allocate all their results up front: studies
(fastdyn/study/__init__.py) and rollouts (fastdyn/sim/scene.py) refuse more than half of the
physical memory with a MemoryError that says what to keep instead, before allocating anything.
"""

from __future__ import annotations

import os


def physical() -> float:
    """Physical memory in bytes (inf where the system does not say)."""
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return float("inf")


def check(need: float, what: str, advice: str) -> None:
    """A MemoryError when ``need`` bytes are more than half of this machine's memory:
    "{what} would take X GB, more than half of this machine's Y GB: {advice}"."""
    have = physical()
    if need > 0.5 * have:
        raise MemoryError(f"{what} would take {need / 1e9:.1f} GB, more than half of this "
                          f"machine's {have / 1e9:.1f} GB: {advice}")
