"""The ``fastdyn`` command (also ``python -m fastdyn``): ``demo``, ``simulate``, ``montecarlo``,
``compile``, ``clear-cache``, ``--version``. Bad arguments get one line saying what is wrong,
and exit code 2."""

from __future__ import annotations

import argparse
import sys


def _count(text: str) -> int:
    n = int(text) if text.strip().lstrip("+").isdigit() else -1
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return n


def _natural(text: str) -> int:
    n = int(text) if text.strip().lstrip("+").isdigit() else -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return n


def _mass(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        x = -1.0
    if not 0.0 <= x < 1e3:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"expected a mass in kg, >= 0, got {text!r}")
    return x


def parser() -> argparse.ArgumentParser:
    from .. import __version__, models
    from . import precompile

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
    demo.add_argument("--view", metavar="HTML", help="write four of the rollouts, side by "
                      "side, to a page that replays them in a browser (needs fastdyn[view])")
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
    sim.add_argument("--view", metavar="HTML", help="write the drop, with its contact forces "
                     "as arrows, to a page that replays it in a browser, offline (needs "
                     "fastdyn[view]: meshcat, trimesh)")
    mc = sub.add_parser(
        "montecarlo", help="a Monte Carlo study on the bundled UR5: the spread of the joint "
        "torques of a fast move when link inertias and the payload are uncertain",
        description="Sample the bundled UR5's inertial parameters and an uncertain payload, "
        "compute every sample's torques along a minimum-jerk move (inverse dynamics by the "
        "regressor), and report each joint's peak and RMS torque quantiles and how often the "
        "rated torque is exceeded. --plot writes a fan chart and histograms (needs "
        "matplotlib); --workers or --scheduler run it on Dask (needs dask.distributed).")
    mc.add_argument("--samples", type=_count, default=10_000,
                    help="samples of the parameters (default: 10000)")
    mc.add_argument("--steps", type=_count, default=1000,
                    help="steps of the 1.2 s move (default: 1000)")
    mc.add_argument("--seed", type=_natural, default=0, help="random seed (default: 0)")
    mc.add_argument("--payload", type=_mass, default=5.0,
                    help="nominal payload [kg] (default: 5; its spread is 30 %%)")
    mc.add_argument("--plot", metavar="PNG", help="write the fan chart and histograms here")
    mc.add_argument("--workers", type=_count, default=0,
                    help="run on a local Dask cluster of this many single-threaded workers")
    mc.add_argument("--scheduler", metavar="ADDRESS",
                    help="run on the Dask cluster whose scheduler is at ADDRESS")
    mc.add_argument("--progress", action="store_true", help="show a progress bar")
    comp = sub.add_parser(
        "compile", help="compile the kernels into the disk cache ahead of use, on every core "
        "(for worker pools and images: workers then only load them)",
        description="Make the first call of each kernel group, compiling the cold ones on "
        "several processes at once into numba's disk cache (where NUMBA_CACHE_DIR says), so "
        "that later processes, such as a pool's workers, only load machine code.")
    comp.add_argument("groups", nargs="*", metavar="GROUP",
                      help=f"kernel groups (default: all): {', '.join(precompile.TASKS)}")
    comp.add_argument("--jobs", type=_count, default=None,
                      help="processes that compile at once (default: the CPU count)")
    sub.add_parser("clear-cache", help="delete the per-model modules fastdyn.codegen "
                   "generated and the kernels' cached machine code (where NUMBA_CACHE_DIR says)")
    return p


def _compile(p: argparse.ArgumentParser, groups: list[str], jobs: int | None) -> int:
    import time

    from . import precompile

    unknown = [g for g in groups if g not in precompile.TASKS]
    if unknown:
        try:
            p.error(f"compile: unknown kernel group {unknown[0]!r}; known: "
                    f"{', '.join(precompile.TASKS)}")
        except SystemExit as e:  # one line said, exit code 2
            return int(e.code)
    t = time.perf_counter()
    def compiling(n: int) -> None:
        print(f"compiling on {n} process{'es' if n > 1 else ''} ...", flush=True)

    seconds = precompile.warm(groups or list(precompile.TASKS), jobs=jobs, on_compile=compiling)
    for g, s in seconds.items():
        print(f"  {g:20s} {s:6.2f} s in this process")
    print(f"done in {time.perf_counter() - t:.1f} s: these kernels now load from numba's disk "
          f"cache in every process that uses the same cache")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = parser()
    try:
        a = p.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as e:  # --help, --version (0) and bad arguments (2, one line said)
        return int(e.code or 0)
    if a.command == "demo":
        from .demo import run

        try:
            run(a.model, a.states, a.rollouts, a.steps, view=a.view)
        except ImportError as e:  # --view without the optional extra
            print(f"fastdyn demo: {e}", file=sys.stderr)
            return 1
    elif a.command == "simulate":
        from .simulate_demo import run as simulate

        try:
            return 0 if simulate(a.drop, rollouts=a.rollouts, plot=a.plot, view=a.view) else 1
        except ImportError as e:  # --view without the optional extra
            print(f"fastdyn simulate: {e}", file=sys.stderr)
            return 1
    elif a.command == "montecarlo":
        from .montecarlo_demo import run as montecarlo

        if a.workers and a.scheduler:
            try:
                p.error("montecarlo: give --workers or --scheduler, not both")
            except SystemExit as e:  # one line said, exit code 2
                return int(e.code)
        try:
            return 0 if montecarlo(a.samples, a.steps, a.seed, a.payload, a.plot, a.workers,
                                   a.scheduler, a.progress) else 1
        except ImportError as e:  # an optional extra that --workers or --scheduler needs
            print(f"fastdyn montecarlo: {e}", file=sys.stderr)
            return 1
    elif a.command == "compile":
        return _compile(p, a.groups, a.jobs)
    elif a.command == "clear-cache":
        from ..codegen import clear_cache, default_directory
        from ..kernels import _jit

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
