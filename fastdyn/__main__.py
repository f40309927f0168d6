"""``fastdyn demo`` / ``python -m fastdyn demo``."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help") or argv[0] != "demo":
        print("usage: fastdyn demo [--model NAME] [--states N] [--rollouts N] [--steps N]")
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    from .demo import main as demo

    demo(argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
