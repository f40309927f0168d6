"""Generated recursive Newton-Euler (local frames, the root's acceleration set to -g).

Source: Pinocchio documentation, "SE(3) operations" cheat sheet, "RNEA"; Featherstone, "Rigid Body
Dynamics Algorithms" (2008), Table 5.1; the same recursion as kernels/algorithms/rnea.py:
  forward:  v_i = X_i^-1 v_l(i) + S qdot_i,  a_i = X_i^-1 a_l(i) + S qddot_i + v_i x v_J
            f_i = Y_i a_i + v_i x* (Y_i v_i)
  backward: tau_i = S_i^T f_i + armature_i qddot_i,   f_l(i) += X_i^* f_i
"""

from __future__ import annotations

from . import joints, spatial
from .parameters import LITERALS, TABLE, Literals
from .kinematics import read
from .tracer import Tracer, lit


def rnea(jnt, nq: int, nv: int, fext: bool = False, params: Literals = LITERALS) -> str:
    """The source of ``rnea(gravity, q, v, a, tau)``, or with ``fext`` of
    ``rnea_fext(gravity, q, v, a, fext, tau)``: f_i -= fext_i, LOCAL forces (njoints, 6).
    With ``params=parameters.TABLE``: ``rnea_prm(prm, q, v, a, tau)``, inertias, rotor
    inertias and gravity read from the parameter table ``prm``; with ``parameters.INERTIAS``:
    ``rnea_pi(gravity, pi, q, v, a, tau)``, the bodies' inertias read from ``pi``."""
    T = Tracer()
    qn, vn, an = read(T, "q", nq), read(T, "v", nv), read(T, "a", nv)
    trace(T, jnt, qn, vn, an, params.gravity(T), params,
          lambda k, x: T.line(f"tau[{k}] = {lit(x)}"), fext)
    assert not (fext and params.table), "no generated rnea_prm or rnea_pi with fext"
    head = ("def rnea_fext(gravity, q, v, a, fext, tau):",
            '    """tau = M(q) a + C(q, v) v + g(q) - sum_i J_i^T fext_i."""') if fext else (
        "def rnea_prm(prm, q, v, a, tau):",
        '    """tau = M(q) a + C(q, v) v + g(q), the robot\'s dynamic parameters from prm."""'
    ) if params is TABLE else (
        f"def rnea{params.suffix}({params.arguments(True)}q, v, a, tau):",
        '    """tau = M(q) a + C(q, v) v + g(q) (no external forces)'
        + ('; body i\'s inertia pi[i - 1]."""' if params.table else '."""'))
    return "\n".join(["@jit", *head] + T.lines) + "\n"


def trace(T: Tracer, jnt, qn, vn, an, g, params: Literals, emit, fext: bool = False,
          local: list | None = None) -> None:
    """RNEA traced into ``T`` (the module docstring's passes), q, v, a and gravity given as
    traced values: ``emit(k, value)`` receives tau[k] as soon as it is known. ``local``:
    every joint's liMi already traced (codegen/crba.py's ``keep``), so that a generator
    that runs CRBA first does not write the joints' sines and cosines twice."""
    n = jnt.shape[0]
    vel = [[0.0] * 6] + [None] * (n - 1)
    acc = [[T.sop([(-1.0, x)]) for x in g] + [0.0] * 3] + [None] * (n - 1)
    frc = [None] * n
    cols = [None] * n
    for i in range(1, n):
        jr = jnt[i]
        par = int(jr["parent"])
        iv, nvi = int(jr["idx_v"]), int(jr["nv"])
        R, p = joints.placement(T, jr, qn) if local is None else local[i - 1]
        cols[i] = joints.subspace(jr)
        vj = joints.combine(T, cols[i], vn[iv:iv + nvi])
        vel[i] = T.add(spatial.act_inv(T, R, p, vel[par]), vj) if par else vj
        a = T.add(spatial.act_inv(T, R, p, acc[par]),
                  joints.combine(T, cols[i], an[iv:iv + nvi]))
        if par:  # v_i x v_J vanishes when v_i = v_J
            a = T.add(a, spatial.cross_motion(T, vel[i], vj))
        acc[i] = a
        pi = params.pi(T, jr, i)
        frc[i] = T.add(spatial.apply_inertia(T, pi, a),
                       spatial.cross_force(T, vel[i], spatial.apply_inertia(T, pi, vel[i])))
        if fext:
            frc[i] = T.sub(frc[i], [T.assign(f"fext[{i}, {k}]", "f") for k in range(6)])
        jr_R = (R, p)
        cols[i] = (cols[i], jr_R)
    for i in range(n - 1, 0, -1):
        jr = jnt[i]
        iv = int(jr["idx_v"])
        S, (R, p) = cols[i]
        for d, col in enumerate(S):
            tau = T.sop([(c, x) for c, x in zip(col, frc[i])]
                        + [(1.0, params.armature(T, jr, i, d), an[iv + d])])
            emit(iv + d, tau)
        par = int(jr["parent"])
        if par:
            frc[par] = T.add(frc[par], spatial.act_force(T, R, p, frc[i]))
