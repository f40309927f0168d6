"""What the viewer animates, checked: trajectories (T, nq) and batches (N, T, nq), the frames
it samples from them, and where side-by-side copies of the robot stand."""

from __future__ import annotations

import numpy as np

__all__ = ["check_trajectories", "sample_times", "grid_offsets"]


def _first_bad(x: np.ndarray) -> tuple:
    return tuple(int(i) for i in np.argwhere(~np.isfinite(x))[0])


def check_trajectories(Q, nq: int, name: str = "trajectory") -> tuple[np.ndarray, bool]:
    """Q as an (N, T, nq) float64 array and whether it was one trajectory (T, nq) (a single
    configuration (nq,) is one trajectory of one row). Raises ValueError naming the shape
    that does not fit, or the first entry that is NaN or infinite by rollout, row (time
    step) and column (coordinate of q)."""
    try:
        X = np.asarray(Q, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} must be an array of numbers (T, nq) or (N, T, nq): {e}") \
            from None
    single = X.ndim <= 2
    if X.ndim == 1:
        X = X[None, None]
    elif X.ndim == 2:
        X = X[None]
    if X.ndim != 3 or X.shape[2] != nq or X.shape[1] == 0 or X.shape[0] == 0:
        raise ValueError(f"{name} must be (T, nq) or (N, T, nq) with nq = {nq} columns (the "
                         f"model's nq) and T >= 1 rows, got shape {np.shape(Q)}")
    if not np.all(np.isfinite(X)):
        k, t, c = _first_bad(X)
        where = f"row {t}, column {c}" if single else f"trajectory {k}, row {t}, column {c}"
        raise ValueError(f"{name} is not finite at {where}: {X[k, t, c]!r} (a diverged "
                         f"rollout? Rollout.status says which stopped)")
    return X, single


def hold_last_finite(X: np.ndarray) -> np.ndarray:
    """A rollout's q with the NaN rows after it stopped replaced by its last finite row (the
    robot stays where the rollout stopped); a rollout with no finite row is refused."""
    X = X.copy()
    for k in range(X.shape[0]):
        ok = np.isfinite(X[k]).all(axis=1)
        if not ok[0]:
            raise ValueError(f"rollout {k} has no finite initial state to show")
        bad = np.flatnonzero(~ok)
        if len(bad):
            X[k, bad[0]:] = X[k, bad[0] - 1]
    return X


def sample_times(T: int, dt: float | None, fps: float) -> np.ndarray:
    """Indices of the rows shown at fps frames per second for T rows dt seconds apart (dt
    None: one row a frame): the row nearest each frame's time, the last row included."""
    if not (np.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be positive, got {fps!r}")
    if dt is None:
        return np.arange(T)
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be positive, got {dt!r}")
    n = int(np.floor((T - 1) * dt * fps + 1e-9)) + 1
    rows = np.minimum(np.rint(np.arange(n) / (fps * dt)).astype(np.int64), T - 1)
    if rows[-1] != T - 1:
        rows = np.append(rows, T - 1)
    return rows


def grid_offsets(n: int, spacing: float) -> np.ndarray:
    """(n, 3) positions of n copies on a square grid in the xy plane, ``spacing`` apart,
    centred on the origin (one copy: at the origin)."""
    cols = int(np.ceil(np.sqrt(n)))
    k = np.arange(n)
    xy = np.column_stack([k // cols, k % cols]).astype(np.float64) * spacing
    xy -= xy.mean(axis=0)
    return np.column_stack([xy, np.zeros(n)])
