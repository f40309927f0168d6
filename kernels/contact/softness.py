"""MuJoCo's soft contact model (solref, solimp), at the velocity level of a time step.

MuJoCo (documentation, "Computation" chapter, sections "Soft contact model" and "Solver
parameters"; E. Todorov, "Convex and analytically-invertible dynamics with contacts and
constraints: theory and implementation in MuJoCo", ICRA 2014) makes each constraint row i
soft: with A = J M^-1 J^T, a0 the row's acceleration without constraint forces and r_i its
violation (for a contact, the signed gap: negative when penetrating), the force f solves
    (A + R) f = a_ref - a0      (on the active rows; f_n >= 0 and f in the friction cone)
with
  impedance  d(r) = dmin + y(x) (dmax - dmin),  x = |r| / width  (d = dmax for x >= 1),
             y = x^p / mid^(p-1) for x <= mid,  y = 1 - (1 - x)^p / (1 - mid)^(p-1) above,
             from solimp = (dmin, dmax, width, mid, p), each d in (0, 1);
  regularizer  R_i = (1 - d) / d * A^_ii, with MuJoCo's approximation A^_ii of A_ii: for a
             contact's rows (condim 3) the sum of the two bodies' translational inverse
             weights at the reference configuration, body_invweight0 = trace(J_c M^-1 J_c^T)
             / 3 with J_c the translational Jacobian of the body's centre of mass (the
             world's is 0; fastdyn.Scene.add_sphere computes it at the neutral q);
  reference  a_ref = -B (J v) - K d r, with, for solref = (timeconst, dampratio) > 0,
             K = 1 / (dmax^2 timeconst^2 dampratio^2),  B = 2 / (dmax timeconst),
             timeconst raised to at least 2 dt (MuJoCo's default "refsafe"), and for a direct
             solref = (-stiffness, -damping) <= 0, K = stiffness / dmax^2, B = damping / dmax.
For a contact with an elliptic cone MuJoCo gives the two friction rows the normal's R divided
by impratio (isotropic friction; impratio is 1 by default) and a_ref = -B (J_t v): their
position term is zero.

A step of semi-implicit Euler takes the percussion P = dt f and v+ = v_free + M^-1 J^T P, so
with u+ = J v+ = G P + u_free (G = A, the Delassus matrix) the same equation reads, per row,
    (G + R) P + c = 0 on an active row,  c = u_free - b,  b = J v + dt a_ref,
i.e. the compliance R joins G's diagonal (delassus.py) and the velocity target b replaces the
rigid model's erp target (constraint_rows.py). This module computes d, K, B of a contact and
its targets; pgs.py / admm.py then solve the cone problem (with Coulomb's law on sliding
contacts where MuJoCo solves a convex relaxation of it: fastdyn/docs/mujoco.md).
"""

from .._jit import jit
from ..layout import H_SOLIMP, H_SOLREF


@jit
def is_soft(h):
    """Whether half-space row h carries solref/solimp (dmax > 0; zeros mean rigid)."""
    return h[H_SOLIMP + 1] > 0.0


@jit
def impedance(h, r):
    """d(r) of half-space row h's solimp at violation r (module docstring)."""
    dmin, dmax, width = h[H_SOLIMP], h[H_SOLIMP + 1], h[H_SOLIMP + 2]
    mid, power = h[H_SOLIMP + 3], h[H_SOLIMP + 4]
    x = abs(r) / width
    if x >= 1.0:
        return dmax
    if power == 1.0:
        y = x
    elif x <= mid:
        y = x ** power / mid ** (power - 1.0)
    else:
        y = 1.0 - (1.0 - x) ** power / (1.0 - mid) ** (power - 1.0)
    return dmin + y * (dmax - dmin)


@jit
def impedance_slope(h, r):
    """dd/dr of impedance(h, r) at r != 0 (zero beyond the width, where d = dmax)."""
    dmin, dmax, width = h[H_SOLIMP], h[H_SOLIMP + 1], h[H_SOLIMP + 2]
    mid, power = h[H_SOLIMP + 3], h[H_SOLIMP + 4]
    x = abs(r) / width
    if x >= 1.0:
        return 0.0
    if power == 1.0:
        dy = 1.0
    elif x <= mid:
        dy = power * x ** (power - 1.0) / mid ** (power - 1.0)
    else:
        dy = power * (1.0 - x) ** (power - 1.0) / (1.0 - mid) ** (power - 1.0)
    return (dmax - dmin) * dy / width * (1.0 if r > 0.0 else -1.0)


@jit
def stiffness_damping(h, dt):
    """(K, B) of half-space row h's solref at time step dt (module docstring)."""
    dmax = h[H_SOLIMP + 1]
    a, b = h[H_SOLREF], h[H_SOLREF + 1]
    if a > 0.0:
        tc = max(a, 2.0 * dt)
        return 1.0 / (dmax * dmax * tc * tc * b * b), 2.0 / (dmax * tc)
    return -a / (dmax * dmax), -b / dmax


@jit
def soft_targets(h, phi, un0, dt):
    """(compliance factor (1 - d) / d, normal target J_n v + dt a_ref, the tangent
    targets' factor 1 - dt B) of a contact at gap phi with normal velocity un0 = J_n v."""
    d = impedance(h, phi)
    K, B = stiffness_damping(h, dt)
    return (1.0 - d) / d, un0 - dt * (B * un0 + K * d * phi), 1.0 - dt * B
