"""Every exception and warning fastdyn raises or issues, in one place.

    import fastdyn as fd
    try:
        model = fd.load_urdf("robot.urdf")
    except fd.errors.URDFError as err:      # err.source, err.line, err.element, err.reason
        ...

Every bad-input error is also a ``ValueError``, so ``except ValueError`` catches them all;
each message says what was wrong and where (file, line, element; row, joint, field). The
classes are also importable from the modules that raise them (``fastdyn.io.URDFError`` ...).
"""

from __future__ import annotations

import numpy as np

from .kernels._jit import CacheWarning, UnsafeCacheDirError

__all__ = [
    "NumericalOverflowError", "SingularMassMatrixError", "MimicNotSupportedError",
    "DescriptionError", "GeomError", "URDFError", "URDFWarning", "MJCFError", "MJCFWarning",
    "DivergenceError", "RolloutWarning", "ConvergenceWarning", "StudyInterrupted",
    "ForkedSerialWarning", "CacheWarning", "UnsafeCacheDirError", "ConstraintError",
    "SingularConstraintError", "SRDFError", "SRDFWarning", "MeshWarning", "TooManyContactsError",
]


# --- numbers --------------------------------------------------------------------------------

class NumericalOverflowError(OverflowError, ValueError):
    """A result is not finite although every input is: the inputs are too large for float64
    (e.g. v = 1e200), or a rollout diverged. Also a ValueError, like every bad-input error."""


class SingularMassMatrixError(np.linalg.LinAlgError, ValueError):
    """M(q) is not positive definite, e.g. a massless subtree carried by a moving joint."""


class MimicNotSupportedError(NotImplementedError, TypeError):
    """A function that does not take a model with mimic joints (fastdyn.mimic) was given one."""


# --- rigid constraints (fastdyn.constraints, fastdyn.constrained_dynamics) ------------------

class ConstraintError(ValueError):
    """A rigid constraint that cannot be built or used: ``str(err)`` is "constraint 'name':
    reason"; ``.constraint`` and ``.reason`` hold the parts."""

    def __init__(self, constraint: str, reason: str):
        self.constraint, self.reason = constraint, reason
        super().__init__(f"constraint {constraint!r}: {reason}")


class SingularConstraintError(ConstraintError, np.linalg.LinAlgError):
    """A constraint set whose rows are dependent (redundant or conflicting constraints) met a
    direct solve (mu = 0): ``.constraint`` names the first constraint with a dependent row.
    The proximal mode (mu > 0) gives the least-norm forces of a redundant set."""


# --- robot descriptions (fastdyn.io) --------------------------------------------------------

class DescriptionError(ValueError):
    """A description that cannot become a model; says where (source, element, line) and why."""

    def __init__(self, message: str, source: str | None = None, element: str | None = None,
                 line: int | None = None):
        self.source, self.element, self.line, self.reason = source, element, line, message
        where = source or "<description>"
        if line is not None:
            where += f", line {line}"
        super().__init__(f"{where}: {element + ': ' if element else ''}{message}")


class GeomError(ValueError):
    """A collision geom that cannot be built (fastdyn.sim.collision): ``str(err)`` is
    "geom N: field: reason"; ``.geom``, ``.field`` and ``.reason`` hold the parts."""

    def __init__(self, geom: int, field: str, reason: str):
        self.geom, self.field, self.reason = geom, field, reason
        super().__init__(f"geom {geom}: {field}: {reason}")


class URDFError(DescriptionError):
    """A URDF fastdyn cannot load: ``str(err)`` is "file, line N: element: reason";
    ``.source``, ``.line``, ``.element`` and ``.reason`` hold the parts."""


class URDFWarning(UserWarning):
    """Something Pinocchio accepts silently but a reader should know (e.g. a non-physical
    inertia, a mimic tag naming a fixed joint)."""


class MJCFError(DescriptionError):
    """An MJCF file fastdyn cannot load: ``str(err)`` is "file, line N: element: reason";
    ``.source``, ``.line``, ``.element`` and ``.reason`` hold the parts."""


class MJCFWarning(UserWarning):
    """Something in an MJCF file that the Model leaves out (hfields' mass, joint springs,
    equality constraints ...), said once per file and kind."""


class SRDFError(DescriptionError):
    """An SRDF file fastdyn cannot read against its model: ``str(err)`` is "file, line N:
    element: reason"; ``.source``, ``.line``, ``.element`` and ``.reason`` hold the parts."""


class SRDFWarning(UserWarning):
    """Something in an SRDF file that does not apply to its model (a joint or link the model
    does not have), said once per file."""


# --- the simulator (fastdyn.sim) ------------------------------------------------------------

class DivergenceError(NumericalOverflowError):
    """A simulated state is no longer finite: the rollout diverged."""


class TooManyContactsError(RuntimeError):
    """A step found more geom contacts than its scene takes (``Scene(max_contacts=...)``):
    none is dropped silently; the message says how many and the remedy."""


class RolloutWarning(RuntimeWarning):
    """Some rollouts of a batch stopped early (diverged, met a singular mass matrix, or their
    policy raised)."""


class ConvergenceWarning(RolloutWarning):
    """A step's constraint solver stopped at its iteration cap with the residual above the
    tolerance: its forces and the state after it do not solve the step's equations
    (``Rollout.status`` "unconverged"; ``Scene.step`` warns). Also the proximal iterations
    of constraint_dynamics / impulse_dynamics (mu > 0) stopping at max_iterations."""


# --- studies and parallel runs --------------------------------------------------------------

class StudyInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a study; ``done`` of its ``n`` samples had been computed."""

    def __init__(self, done: int, n: int):
        super().__init__(f"study interrupted after {done} of {n} samples")
        self.done, self.n = done, n


class ForkedSerialWarning(RuntimeWarning):
    """This process was forked after its parent ran GNU OpenMP threads: batches run on one
    thread here."""


# --- the viewer and mesh files (fastdyn.view, fastdyn.io.meshes) ------------------------------

class MeshWarning(UserWarning):
    """A mesh file that could not be read (missing, unreadable, empty, not finite): the
    warning names the file, and what uses the mesh falls back to a primitive shape."""
