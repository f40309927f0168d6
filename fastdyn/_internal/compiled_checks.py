"""The object API's state and result checks, run as compiled code (fastdyn/_internal/fastcall.py).

For calls without a ``*_checked`` entry point of their own (kernels/entry/guard.py): the
state's finiteness and unit parts go through the guard's own ``check_inputs``, a result's
finiteness through its ``_finite``. Each is one call into compiled code (~0.1 us on Solo12)
where ``np.isfinite`` and a Python loop over the quaternions cost microseconds; the messages
are the same (``_checks.explain`` words the codes).
"""

from __future__ import annotations

import numpy as np

from . import checks as _checks
from .fastcall import Kernel
from ..kernels import checks as _kchecks
from .arrays import EMPTY, NO_FORCES

_inputs = Kernel(_kchecks.check_inputs, vectors=(1, 2, 3))
_finite_vector = Kernel(_kchecks.first_nonfinite)
_finite_matrix = Kernel(_kchecks.first_nonfinite_row)


def state(model, q, v=None, a=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, v, a) checked as the dynamics check them (type, length; finite; unit quaternions
    and (cos, sin) pairs of q); EMPTY for a v or a not given. ``model`` a fastdyn Model."""
    q = _checks.fast_vector(q, model.nq, "q")
    v = EMPTY if v is None else _checks.fast_vector(v, model.nv, "v")
    a = EMPTY if a is None else _checks.fast_vector(a, model.nv, "a")
    code = _inputs.call(model.jnt, q, v, a, NO_FORCES, _checks.QUAT_TOL)
    if code:
        _checks.explain(model, code, ("q", "v", "a"), q, v, a)
    return q, v, a


def finite(out: np.ndarray, names: tuple[str, ...], inputs) -> np.ndarray:
    """``out`` (C-contiguous float64, 1-D or 2-D), or NumericalOverflowError when it is not
    finite: its inputs were checked, so they were too large for float64."""
    if out.ndim == 2:
        bad = _finite_matrix.call(out, 0, out.shape[1], out.shape[0])
    else:
        bad = _finite_vector.call(out)
    if bad >= 0:
        raise _checks.NumericalOverflowError(_checks.overflow_message(names, inputs))
    return out
