"""A body's inertial parameters and a joint's placement as users give them: checked, and in
the order the kernels store them (Pinocchio's: [m, m c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] about
the body origin). Shared by the builder and the model's variants (``Model.with_*``)."""

from __future__ import annotations

import numpy as np

from .invariants import is_rotation


def as_placement(placement, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) from None (identity), a 4x4 homogeneous matrix or an (R, p) pair; R checked."""
    if placement is None:
        return np.eye(3), np.zeros(3)
    if isinstance(placement, (tuple, list)) and len(placement) == 2:
        R, p = (np.asarray(x, dtype=np.float64) for x in placement)
    else:
        T = np.asarray(placement, dtype=np.float64)
        if T.shape != (4, 4):
            raise ValueError(f"{what}: placement must be a 4x4 matrix or an (R, p) pair, "
                             f"got shape {T.shape}")
        R, p = T[:3, :3], T[:3, 3]
    if R.shape != (3, 3) or p.shape != (3,):
        raise ValueError(f"{what}: placement R must be 3x3 and p length 3, got {R.shape}, {p.shape}")
    if not (np.all(np.isfinite(R)) and np.all(np.isfinite(p))):
        raise ValueError(f"{what}: placement has non-finite entries")
    if not is_rotation(R):
        raise ValueError(f"{what}: placement rotation is not a proper rotation matrix "
                         f"(R R^T != I or det R < 0)")
    return R.copy(), p.copy()


def check_inertia(mass: float, com, inertia, what: str,
                  physical: bool = True) -> tuple[float, np.ndarray, np.ndarray]:
    """Validate (m, c, I_c): finite, m >= 0, I_c symmetric and, when ``physical``, positive
    semi-definite and physically consistent (principal moments satisfy the triangle
    inequality). ``physical=False`` is for bodies read from files that other tools accept."""
    m = float(mass)
    c = np.asarray(com, dtype=np.float64).reshape(-1)
    I = np.asarray(inertia, dtype=np.float64)
    if c.shape != (3,) or I.shape != (3, 3):
        raise ValueError(f"{what}: com must have 3 entries and inertia be 3x3, got "
                         f"{c.shape} and {I.shape}")
    if not (np.isfinite(m) and np.all(np.isfinite(c)) and np.all(np.isfinite(I))):
        raise ValueError(f"{what}: mass, com and inertia must be finite")
    if max(abs(m), float(np.abs(c).max()), float(np.abs(I).max())) > 1e150:
        # their products (m c c^T, the eigenvalues) would overflow a double
        raise ValueError(f"{what}: mass, com or inertia beyond 1e150, so large that the body's "
                         f"inertia (m c c^T, its eigenvalues) overflows a double: not a body")
    if m < 0:
        raise ValueError(f"{what}: negative mass {m}")
    scale = max(1.0, float(np.abs(I).max()))
    if not np.allclose(I, I.T, atol=1e-10 * scale):
        raise ValueError(f"{what}: inertia matrix is not symmetric")
    I = 0.5 * I + 0.5 * I.T  # (symmetric up to rounding; I + I.T could overflow)
    if not physical:
        return m, c, I
    ev = np.linalg.eigvalsh(I)
    tol = 1e-9 * scale
    if ev[0] < -tol:
        raise ValueError(f"{what}: inertia has a negative principal moment {ev[0]:.6g}")
    if ev[0] + ev[1] < ev[2] - tol:
        raise ValueError(f"{what}: principal moments {ev[0]:.6g}, {ev[1]:.6g}, {ev[2]:.6g} "
                         f"violate the triangle inequality (I1 + I2 >= I3): not a physical body")
    return m, c, I


def dynamic_parameters(m: float, c: np.ndarray, Ic: np.ndarray) -> np.ndarray:
    """[m, m c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] with I about the origin (Pinocchio's order)."""
    S = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    I = Ic - m * S @ S
    return np.array([m, m * c[0], m * c[1], m * c[2], I[0, 0], I[0, 1], I[1, 1], I[0, 2],
                     I[1, 2], I[2, 2]])
