"""``fastdyn demo`` / ``fastdyn clear-cache`` (also as ``python -m fastdyn ...``)."""

from __future__ import annotations

import sys

USAGE = """usage: fastdyn demo [--model NAME] [--states N] [--rollouts N] [--steps N]
       fastdyn clear-cache   delete the per-model modules fastdyn.codegen generated and the
                             kernels' cached machine code (where NUMBA_CACHE_DIR says)"""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "demo":
        from .demo import main as demo

        demo(argv[1:])
        return 0
    if argv == ["clear-cache"]:
        from .codegen import clear_cache, default_directory
        from .kernels import _jit

        n = clear_cache()
        print(f"removed {n} generated module{'' if n == 1 else 's'} from {default_directory()}")
        index, data = _jit.clear_cache()
        print(f"removed {index} index file{'' if index == 1 else 's'} and {data} data "
              f"file{'' if data == 1 else 's'} of compiled kernels from numba's cache")
        return 0
    print(USAGE)
    return 0 if not argv or argv[0] in ("-h", "--help") else 2


if __name__ == "__main__":
    sys.exit(main())
