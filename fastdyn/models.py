"""Ready-made robots: the URDFs bundled with fastdyn and those of example-robot-data.

    import fastdyn.models
    fastdyn.models.list()                                      # bundled names
    arm = fastdyn.models.load("ur5")                           # bundled, fixed base
    talos = fastdyn.models.load("talos", source="example-robot-data")   # free-flyer root

Bundled files live in the repository's ``models/`` folder, installed as the package
``fastdyn.models_data`` (found through importlib.resources, so it works from a wheel too).
Legged and flying robots get a free-flyer root joint by default (``root_joint="freeflyer"``);
pass ``root_joint=None`` to fix their base or any other root type ``load_urdf`` accepts.
"""

from __future__ import annotations

import builtins
import importlib.resources
import os
import sys
from pathlib import Path

from .model import Model
from .io.urdf import load_urdf

__all__ = ["list", "path", "load", "example_robot_data_dir", "BUNDLED", "EXAMPLE_ROBOT_DATA",
           "SOURCES"]

_FREE = "freeflyer"
_DEFAULT = object()

# name -> (file, default root joint)
BUNDLED = {
    "double_pendulum": ("double_pendulum.urdf", None),
    "ur5": ("ur5.urdf", None),
    "quadruped": ("quadruped.urdf", _FREE),
    "humanoid": ("humanoid.urdf", _FREE),
}

# example-robot-data: name -> (path under share/example-robot-data/robots, default root joint),
# following example-robot-data's own loaders (free-flyer for legged, humanoid and flying robots).
EXAMPLE_ROBOT_DATA = {
    "a1": ("a1_description/urdf/a1.urdf", _FREE),
    "alex_nub_hands": ("alex_description/urdf/alex_nub_hands.urdf", _FREE),
    "alex_psyonic_hands": ("alex_description/urdf/alex_psyonic_hands.urdf", _FREE),
    "alex_sake_hands": ("alex_description/urdf/alex_sake_hands.urdf", _FREE),
    "alexander": ("alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf", _FREE),
    "allegro_left_hand": ("allegro_hand_description/urdf/allegro_left_hand.urdf", None),
    "allegro_right_hand": ("allegro_hand_description/urdf/allegro_right_hand.urdf", None),
    "anymal": ("anymal_b_simple_description/robots/anymal.urdf", _FREE),
    "anymal_c": ("anymal_c_simple_description/urdf/anymal.urdf", _FREE),
    "anymal_kinova": ("anymal_b_simple_description/robots/anymal-kinova.urdf", _FREE),
    "asr_twodof": ("asr_twodof_description/urdf/TwoDofs.urdf", None),
    "b1": ("b1_description/urdf/b1.urdf", _FREE),
    "b1_z1": ("b1_description/urdf/b1-z1.urdf", _FREE),
    "baxter": ("baxter_description/urdf/baxter.urdf", None),
    "bolt": ("bolt_description/robots/bolt.urdf", _FREE),
    "borinot": ("borinot_description/urdf/borinot_flying_arm_2.urdf", _FREE),
    "centauro": ("centauro_description/urdf/centauro.urdf", _FREE),
    "double_pendulum": ("double_pendulum_description/urdf/double_pendulum.urdf", None),
    "double_pendulum_continuous": (
        "double_pendulum_description/urdf/double_pendulum_continuous.urdf", None),
    "double_pendulum_simple": ("double_pendulum_description/urdf/double_pendulum_simple.urdf",
                               None),
    "finger_edu": ("finger_edu_description/robots/finger_edu.urdf", None),
    "g1": ("g1_description/urdf/g1_29dof_rev_1_0.urdf", _FREE),
    "g1_with_hand": ("g1_description/urdf/g1_29dof_with_hand_rev_1_0.urdf", _FREE),
    "go1": ("go1_description/urdf/go1.urdf", _FREE),
    "go2": ("go2_description/urdf/go2.urdf", _FREE),
    "hector": ("hector_description/robots/quadrotor_base.urdf", _FREE),
    "hextilt": ("hextilt_description/urdf/hextilt_flying_arm_5.urdf", _FREE),
    "human": ("human_description/robots/human.urdf", _FREE),
    "hyq": ("hyq_description/robots/hyq_no_sensors.urdf", _FREE),
    "icub": ("icub_description/robots/icub.urdf", _FREE),
    "icub_reduced": ("icub_description/robots/icub_reduced.urdf", _FREE),
    "iris": ("iris_description/robots/iris_simple.urdf", _FREE),
    "kinova": ("kinova_description/robots/kinova.urdf", None),
    "laikago": ("laikago_description/urdf/laikago.urdf", _FREE),
    "panda": ("panda_description/urdf/panda.urdf", None),
    "panda_collision": ("panda_description/urdf/panda_collision.urdf", None),
    "pr2": ("pr2_description/urdf/pr2.urdf", None),
    "quadruped": ("quadruped_description/urdf/quadruped.urdf", _FREE),
    "romeo": ("romeo_description/urdf/romeo.urdf", _FREE),
    "simple_humanoid": ("simple_humanoid_description/urdf/simple_humanoid.urdf", _FREE),
    "simple_humanoid_classical": (
        "simple_humanoid_description/urdf/simple_humanoid_classical.urdf", _FREE),
    "so_arm_100": ("so_arm_description/urdf/so100.urdf", None),
    "so_arm_101": ("so_arm_description/urdf/so101.urdf", None),
    "solo8": ("solo_description/robots/solo.urdf", _FREE),
    "solo12": ("solo_description/robots/solo12.urdf", _FREE),
    "talos": ("talos_data/robots/talos_reduced.urdf", _FREE),
    "talos_box": ("talos_data/robots/talos_reduced_box.urdf", _FREE),
    "talos_full": ("talos_data/robots/talos_full_v2.urdf", _FREE),
    "talos_full_box": ("talos_data/robots/talos_full_v2_box.urdf", _FREE),
    "talos_arm": ("talos_data/robots/talos_left_arm.urdf", None),
    "tiago": ("tiago_description/robots/tiago.urdf", None),
    "tiago_dual": ("tiago_description/robots/tiago_dual.urdf", None),
    "tiago_no_hand": ("tiago_description/robots/tiago_no_hand.urdf", None),
    "tiago_pro": ("tiago_pro_description/robots/tiago_pro.urdf", None),
    "ur3": ("ur_description/urdf/ur3_robot.urdf", None),
    "ur3_gripper": ("ur_description/urdf/ur3_gripper.urdf", None),
    "ur3_limited": ("ur_description/urdf/ur3_joint_limited_robot.urdf", None),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", None),
    "ur5_gripper": ("ur_description/urdf/ur5_gripper.urdf", None),
    "ur5_limited": ("ur_description/urdf/ur5_joint_limited_robot.urdf", None),
    "ur10": ("ur_description/urdf/ur10_robot.urdf", None),
    "ur10_limited": ("ur_description/urdf/ur10_joint_limited_robot.urdf", None),
    "xarm7": ("xarm_description/urdf/xarm7.urdf", None),
    "z1": ("z1_description/urdf/z1.urdf", None),
}

SOURCES = ("bundled", "example-robot-data")


def list(source: str = "bundled") -> builtins.list[str]:  # noqa: A001 (the registry's verb)
    """Names ``load`` accepts for ``source`` ("bundled" or "example-robot-data")."""
    _check_source(source)
    return sorted(BUNDLED if source == "bundled" else EXAMPLE_ROBOT_DATA)


def path(name: str, source: str = "bundled") -> Path:
    """The URDF file behind ``name`` (for a bundled model, inside the installed package)."""
    _check_source(source)
    if source == "bundled":
        if name not in BUNDLED:
            raise KeyError(f"no bundled model {name!r}; bundled: {', '.join(list())} "
                           f"(source='example-robot-data' has {len(EXAMPLE_ROBOT_DATA)} more)")
        p = _bundled_dir() / BUNDLED[name][0]
        if not p.is_file():
            raise FileNotFoundError(f"bundled model file {p} is missing from the installation")
        return p
    root = example_robot_data_dir()
    rel = EXAMPLE_ROBOT_DATA[name][0] if name in EXAMPLE_ROBOT_DATA else None
    if rel is None:  # a relative path or a file stem ("talos_full_v2") also works
        cand = root / name
        if name.endswith(".urdf") and cand.is_file():
            return cand
        hits = sorted(root.rglob(f"{name}.urdf"))
        if len(hits) == 1:
            return hits[0]
        raise KeyError(f"example-robot-data has no robot {name!r}; known names: "
                       f"{', '.join(list('example-robot-data'))}, or a file stem or path "
                       f"relative to {root}")
    p = root / rel
    if not p.is_file():
        raise FileNotFoundError(f"{p} not found: this example-robot-data version does not ship "
                                f"{name!r}")
    return p


def load(name: str, source: str = "bundled", root_joint=_DEFAULT) -> Model:
    """Load robot ``name`` from ``source``; ``root_joint`` defaults to the robot's usual base
    (a free-flyer for legged, humanoid and flying robots, fixed otherwise)."""
    p = path(name, source)
    if root_joint is _DEFAULT:
        table = BUNDLED if source == "bundled" else EXAMPLE_ROBOT_DATA
        root_joint = table[name][1] if name in table else None
    return load_urdf(p, root_joint=root_joint)


def example_robot_data_dir() -> Path:
    """example-robot-data's ``robots/`` folder: $EXAMPLE_ROBOT_DATA_MODEL_DIR, the pip (cmeel)
    package's ``cmeel.prefix/share/example-robot-data/robots``, or a system install."""
    cands = []
    env = os.environ.get("EXAMPLE_ROBOT_DATA_MODEL_DIR")
    if env:
        cands.append(Path(env))
    sub = Path("share", "example-robot-data", "robots")
    try:
        from importlib.metadata import PackageNotFoundError, distribution

        try:
            cands.append(Path(distribution("example-robot-data").locate_file(
                Path("cmeel.prefix") / sub)))
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover
        pass
    for entry in sys.path:
        if entry:
            cands.append(Path(entry) / "cmeel.prefix" / sub)
    cands += [Path(sys.prefix) / sub, Path("/opt/openrobots") / sub, Path("/usr/share") /
              "example-robot-data" / "robots"]
    for c in cands:
        if c.is_dir():
            return c
    raise FileNotFoundError("example-robot-data is not installed: `pip install "
                            "example-robot-data` (or set EXAMPLE_ROBOT_DATA_MODEL_DIR to its "
                            "robots/ folder)")


def _check_source(source: str) -> None:
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")


def _bundled_dir() -> Path:
    """models/ as installed (package fastdyn.models_data) or, in a source checkout whose
    editable install predates that package, the repository's models/ folder."""
    try:
        d = importlib.resources.files("fastdyn.models_data")
        p = Path(str(d))
        if (p / "ur5.urdf").is_file():
            return p
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parent.parent / "models"
