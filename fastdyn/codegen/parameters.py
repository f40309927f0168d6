"""Where a generated kernel gets a joint's dynamic parameters: literals or the parameter table.

``LITERALS`` writes the model's inertias, rotor inertias and gravity into the source, as the
generator always has. ``TABLE`` reads them from a ``prm`` argument (the model's parameter table,
or one robot of a parameter batch, layout as fastdyn.kernels.layout: ``prm[i, P_PI + k]``,
``prm[i, P_ARMATURE + d]``, gravity in ``prm[0, P_GRAVITY:]``): the topology *and* the
kinematic parameters (placements, axes, pitch) stay baked in, so one compiled kernel serves
every robot of a Monte Carlo study that varies masses, inertias, rotor inertias or gravity.
``kinematics_check`` writes the test that a table's kinematic columns are the ones baked in:
a batch of robots with edited placements must go through the generic kernels, never silently
through these. ``INERTIAS`` reads only the bodies' 10 inertial parameters, from a ``pi``
argument (njoints - 1, 10), body i in row i - 1 (fastdyn.sample_parameters' layout): gravity
is an argument and rotor inertias literals, as for ``LITERALS``; a batch over inertias then
streams 80 bytes a body (kernels/entry/batch_inertias.py says why that matters).
``OWN`` keeps the literals but reads gravity from ``prm`` (the simulator's steps).
Each provider also names its functions (``suffix``) and their leading arguments.
"""

from __future__ import annotations

from ..kernels.layout import P_ARMATURE, P_GRAVITY, P_PI, P_PITCH
from . import spatial
from .tracer import Tracer

KINEMATIC_COLUMNS = P_PITCH + 1  # R, p, axis, axis2, pitch: columns 0 .. P_PITCH


class Literals:
    """The model's parameters as constants of the source (the default generated kernels)."""

    table = False
    suffix = ""  # rnea, aba, crba

    def arguments(self, gravity: bool) -> str:
        """The arguments before the state: gravity (rnea, aba) or none (crba)."""
        return "gravity, " if gravity else ""

    def gravity(self, T: Tracer) -> list:
        return [T.assign(f"gravity[{k}]", "gravity") for k in range(3)]

    def pi(self, T: Tracer, jr, i: int) -> list:
        return [float(x) for x in jr["pi"]]

    def armature(self, T: Tracer, jr, i: int, d: int):
        return float(jr["armature"][d])

    def body_in(self, T: Tracer, jr, i: int, R, p) -> list:
        """The body's 10 parameters in the frame where its joint frame sits at (R, p)."""
        return spatial.body_to_world(T, jr, R, p)


class Table(Literals):
    """The model's dynamic parameters read from ``prm`` (njoints, NP) at run time."""

    table = True
    suffix = "_prm"

    def arguments(self, gravity: bool) -> str:
        return "prm, "

    def gravity(self, T: Tracer) -> list:
        return [T.assign(f"prm[0, {P_GRAVITY + k}]", "gravity") for k in range(3)]

    def pi(self, T: Tracer, jr, i: int) -> list:
        return [T.assign(f"prm[{i}, {P_PI + k}]", "pi") for k in range(10)]

    def armature(self, T: Tracer, jr, i: int, d: int):
        return T.assign(f"prm[{i}, {P_ARMATURE + d}]", "arm")

    def body_in(self, T: Tracer, jr, i: int, R, p) -> list:
        return spatial.pi_to_world(T, self.pi(T, jr, i), R, p)


class Inertias(Literals):
    """The bodies' inertias read from ``pi`` (njoints - 1, 10) at run time; gravity an
    argument and rotor inertias literals, as the default kernels."""

    table = True
    suffix = "_pi"

    def arguments(self, gravity: bool) -> str:
        return "gravity, pi, " if gravity else "pi, "

    def pi(self, T: Tracer, jr, i: int) -> list:
        return [T.assign(f"pi[{i - 1}, {k}]", "pi") for k in range(10)]

    def body_in(self, T: Tracer, jr, i: int, R, p) -> list:
        return spatial.pi_to_world(T, self.pi(T, jr, i), R, p)


class Own(Literals):
    """The model's inertias and rotor inertias as literals, gravity read from ``prm``'s
    universe row: the simulator's steps of the model itself, which take the same arguments
    as the ``TABLE`` variant (one callback type for both: fastdyn/sim/generated_rollout.py)."""

    suffix = "_own"

    def arguments(self, gravity: bool) -> str:
        return "prm, "

    def gravity(self, T: Tracer) -> list:
        return TABLE.gravity(T)


LITERALS, TABLE, INERTIAS = Literals(), Table(), Inertias()
OWN = Own()


def kinematics_check(prm_model) -> str:
    """The source of ``same_kinematics(prm)``: True when every joint's kinematic columns
    (placement, axes, pitch) equal the model's, which the generated kernels hold as literals.
    Written out entry by entry (the compiler turns it into compares against constants)."""
    tests = [f"prm[{i}, {k}] != {float(prm_model[i, k])!r}"
             for i in range(1, prm_model.shape[0]) for k in range(KINEMATIC_COLUMNS)]
    body = ["@jit", "def same_kinematics(prm):",
            '    """prm\'s placements, axes and pitches are the ones these kernels hold."""']
    for k in range(0, len(tests), 8):  # short conditions: cheap to compile
        body += [f"    if {' or '.join(tests[k:k + 8])}:", "        return False"]
    return "\n".join(body + ["    return True"]) + "\n"
