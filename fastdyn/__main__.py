"""The ``fastdyn`` command (also ``python -m fastdyn``): ``demo``, ``simulate``, ``clear-cache``,
``--version``. Bad arguments get one line saying what is wrong, and exit code 2."""

from __future__ import annotations

import argparse
import sys


def _count(text: str) -> int:
    n = int(text) if text.strip().lstrip("+").isdigit() else -1
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return n


def parser() -> argparse.ArgumentParser:
    from . import __version__, models

    p = argparse.ArgumentParser(
        prog="fastdyn", description="Rigid-body dynamics for Python: Numba kernels over flat "
        "NumPy model arrays, checked against Pinocchio.")
    p.add_argument("--version", action="version", version=f"fastdyn {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser(
        "demo", help="run batches of inverse and forward dynamics and rollouts on a bundled "
        "robot and report what was computed, how accurately and how fast",
        description="Load a bundled robot, run inverse dynamics (RNEA) and forward dynamics "
        "(ABA) on a batch of random states and a batch of rollouts, check ABA(RNEA(a)) = a, "
        "and report the speed. The first run compiles the kernels (cached on disk after).")
    demo.add_argument("--model", default="quadruped", choices=models.list(),
                      help="bundled robot (default: quadruped)")
    demo.add_argument("--states", type=_count, default=10_000,
                      help="states in the dynamics batches (default: 10000)")
    demo.add_argument("--rollouts", type=_count, default=64,
                      help="rollouts in the simulation batch (default: 64)")
    demo.add_argument("--steps", type=_count, default=1000,
                      help="steps of 1 ms per rollout (default: 1000)")
    sim = sub.add_parser(
        "simulate", help="drop the bundled quadruped on the ground under PD control and "
        "report whether it stands, its contact forces and the simulator's speed",
        description="Simulate the bundled quadruped dropped onto a plane (feet as spheres, "
        "Coulomb friction) under joint PD control; check that it stands with its weight on "
        "its feet; time a batch of rollouts. --plot writes base height and contact forces "
        "to a PNG (needs matplotlib).")
    sim.add_argument("--drop", type=float, default=0.3, help="drop height [m] (default 0.3)")
    sim.add_argument("--rollouts", type=_count, default=256,
                     help="rollouts in the timed batch (default: 256)")
    sim.add_argument("--plot", metavar="PNG", help="write a plot to this file")
    sub.add_parser("clear-cache", help="delete the per-model modules fastdyn.codegen "
                   "generated and the kernels' cached machine code (where NUMBA_CACHE_DIR says)")
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    try:
        a = p.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as e:  # --help, --version (0) and bad arguments (2, one line said)
        return int(e.code or 0)
    if a.command == "demo":
        from .demo import run

        run(a.model, a.states, a.rollouts, a.steps)
    elif a.command == "simulate":
        from .simulate_demo import run as simulate

        return 0 if simulate(a.drop, rollouts=a.rollouts, plot=a.plot) else 1
    elif a.command == "clear-cache":
        from .codegen import clear_cache, default_directory
        from .kernels import _jit

        n = clear_cache()
        print(f"removed {n} generated module{'' if n == 1 else 's'} from {default_directory()}")
        index, data = _jit.clear_cache()
        print(f"removed {index} index file{'' if index == 1 else 's'} and {data} data "
              f"file{'' if data == 1 else 's'} of compiled kernels from numba's cache")
    else:
        p.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
