"""Generated articulated-body algorithm, world-frame like kernels/algorithms/aba.py.

Source: Featherstone, "Rigid Body Dynamics Algorithms" (2008), Table 7.1 (the articulated-body
algorithm); Traversaro & Saccon, "Multibody dynamics notation (version 2)" (2019), sec. 5.1.
With S_i = ^0X_i S_i (constant local S: c_J = 0), v_J = S_i qdot_i, a_0 = -g:
  pass 1: v_i = v_l(i) + v_J;  c_i = v_i x v_J;  IA_i = ^0Y_i;  pA_i = v_i x* (IA_i v_i)
  pass 2: U_i = IA_i S_i;  D_i = S_i^T U_i + diag(armature_i);  u_i = tau_i - S_i^T pA_i;
          IA_l(i) += IA_i - U_i D_i^-1 U_i^T;  pA_l(i) += pA_i + Ia c_i + U_i D_i^-1 u_i
  pass 3: a'_i = a_l(i) + c_i;  qddot_i = D_i^-1 (u_i - U_i^T a'_i);  a_i = a'_i + S_i qddot_i
"World" is joint 1's frame (kinematics.world_placements), so gravity is rotated into it. D_i of a
multi-dof joint is solved by a written-out LDL^T. No check for a singular D: the generated
kernels are unchecked (a massless subtree gives inf/nan, as division by zero does).
"""

from __future__ import annotations

from . import joints, spatial
from .kinematics import read, world_placements
from .parameters import LITERALS, TABLE, Literals
from .tracer import Tracer, lit


def _matrix6(pi):
    """The 6x6 of pi = [m, h, I]: [[m I3, -[h]x], [[h]x, I]], signed entries as (sign, value)."""
    m, (hx, hy, hz) = pi[0], pi[1:4]
    I3 = spatial.rot_inertia(pi)
    return [[m, 0.0, 0.0, 0.0, ("+", hz), ("-", hy)],
            [0.0, m, 0.0, ("-", hz), 0.0, ("+", hx)],
            [0.0, 0.0, m, ("+", hy), ("-", hx), 0.0],
            [0.0, ("-", hz), ("+", hy)] + I3[0],
            [("+", hz), 0.0, ("-", hx)] + I3[1],
            [("-", hy), ("+", hx), 0.0] + I3[2]]


def inertia6(T: Tracer, pi):
    rows = _matrix6(pi)
    out = []
    for row in rows:
        r = []
        for x in row:
            if isinstance(x, tuple):
                sign, val = x
                r.append(T.sop([((1.0 if sign == "+" else -1.0), val)]))
            else:
                r.append(x)
        out.append(r)
    return out


def mul6(T: Tracer, Y, x):
    return [T.sop([(1.0, Y[r][k], x[k]) for k in range(6)]) for r in range(6)]


def spd_solve(T: Tracer, D, rhs):
    """x = D^-1 b for each b in rhs, D symmetric positive definite (LDL^T, written out)."""
    n = len(D)
    L = [[0.0] * n for _ in range(n)]
    dinv = [0.0] * n
    dval = [0.0] * n
    for j in range(n):
        dj = T.sop([(1.0, D[j][j])] + [(-1.0, L[j][k], L[j][k], dval[k]) for k in range(j)])
        dval[j] = dj
        dinv[j] = T.assign(f"1.0 / {lit(dj)}", "di")
        for i in range(j + 1, n):
            x = T.sop([(1.0, D[i][j])] + [(-1.0, L[i][k], L[j][k], dval[k]) for k in range(j)])
            L[i][j] = T.sop([(1.0, x, dinv[j])])
    out = []
    for b in rhs:
        y = []
        for i in range(n):
            y.append(T.sop([(1.0, b[i])] + [(-1.0, L[i][k], y[k]) for k in range(i)]))
        z = [T.sop([(1.0, y[i], dinv[i])]) for i in range(n)]
        x = [0.0] * n
        for i in range(n - 1, -1, -1):
            x[i] = T.sop([(1.0, z[i])] + [(-1.0, L[k][i], x[k]) for k in range(i + 1, n)])
        out.append(x)
    return out


def aba(jnt, nq: int, nv: int, fext: bool = False, params: Literals = LITERALS) -> str:
    """The source of ``aba(gravity, q, v, tau, ddq)``, or with ``fext`` of
    ``aba_fext(gravity, q, v, tau, fext, ddq)``: pA_i -= ^0X_i^-* fext_i (LOCAL forces).
    With ``params=parameters.TABLE``: ``aba_prm(prm, q, v, tau, ddq)``, inertias, rotor
    inertias and gravity read from the parameter table ``prm``; with ``parameters.INERTIAS``:
    ``aba_pi(gravity, pi, q, v, tau, ddq)``, the bodies' inertias read from ``pi``."""
    T = Tracer()
    qn, vn, tn = read(T, "q", nq), read(T, "v", nv), read(T, "tau", nv)
    trace(T, jnt, qn, vn, tn, params.gravity(T), fext, params)
    assert not (fext and params.table), "no generated aba_prm or aba_pi with fext"
    head = ("def aba_fext(gravity, q, v, tau, fext, ddq):",
            '    """ddq = M(q)^-1 (tau - C(q, v) v - g(q) + sum_i J_i^T fext_i)."""') if fext else (
        "def aba_prm(prm, q, v, tau, ddq):",
        '    """ddq = M(q)^-1 (tau - C(q, v) v - g(q)), the dynamic parameters from prm."""'
    ) if params is TABLE else (
        f"def aba{params.suffix}({params.arguments(True)}q, v, tau, ddq):",
        '    """ddq = M(q)^-1 (tau - C(q, v) v - g(q)) (no external forces)'
        + ('; body i\'s inertia pi[i - 1]."""' if params.table else '."""'))
    return "\n".join(["@jit", *head] + T.lines) + "\n"


def trace(T: Tracer, jnt, qn, vn, tn, g, fext: bool = False, params: Literals = LITERALS,
          keep: dict | None = None) -> list:
    """ABA traced into ``T`` (the module docstring's passes), q, v, tau and gravity given as
    traced values; writes ``ddq[k] = ...`` and returns ddq's values (for generators that go on
    from it, e.g. codegen/aba_derivatives.py, which passes ``keep`` to receive the placements,
    J, v and body inertias: "world", "axes", "J", "v", "Y")."""
    n = jnt.shape[0]
    world, axes = world_placements(T, jnt, qn, frame="first")
    J, ov, c, IA, pA = ([None] * n for _ in range(5))
    if keep is not None:
        keep.update(world=world, axes=axes, J=J, v=ov, Y=[None] * n)
    for i in range(1, n):
        jr = jnt[i]
        par = int(jr["parent"])
        iv, nvi = int(jr["idx_v"]), int(jr["nv"])
        R, p = world[i]
        J[i] = [spatial.act(T, R, p, col) for col in joints.subspace(jr)]
        vj = [T.sop([(1.0, col[r], x) for col, x in zip(J[i], vn[iv:iv + nvi])])
              for r in range(6)]
        if par:
            ov[i] = T.add(ov[par], vj)
            c[i] = spatial.cross_motion(T, ov[i], vj)
        else:
            ov[i], c[i] = vj, [0.0] * 6  # v_i x v_J = v_J x v_J
        Y = params.body_in(T, jr, i, R, p)
        if keep is not None:
            keep["Y"][i] = Y
        IA[i] = inertia6(T, Y)
        pA[i] = spatial.cross_force(T, ov[i], spatial.apply_inertia(T, Y, ov[i]))
        if fext:
            fi = [T.assign(f"fext[{i}, {k}]", "f") for k in range(6)]
            pA[i] = T.sub(pA[i], spatial.act_force(T, R, p, fi))
    U, Dm, u = ([None] * n for _ in range(3))
    for i in range(n - 1, 0, -1):
        jr = jnt[i]
        par = int(jr["parent"])
        iv, nvi = int(jr["idx_v"]), int(jr["nv"])
        U[i] = [mul6(T, IA[i], col) for col in J[i]]
        Dm[i] = [[T.sop([(1.0, x, y) for x, y in zip(J[i][r], U[i][d])]
                        + ([(1.0, params.armature(T, jr, i, r))] if r == d else []))
                  for d in range(nvi)] for r in range(nvi)]
        u[i] = [T.sop([(1.0, tn[iv + r])] + [(-1.0, x, y) for x, y in zip(J[i][r], pA[i])])
                for r in range(nvi)]
        if not par:
            continue
        # UDinv (6 x nvi) row k = D^-1 U[k, :]^T (D symmetric)
        rows = spd_solve(T, Dm[i], [[U[i][d][k] for d in range(nvi)] for k in range(6)])
        Ia = [[None] * 6 for _ in range(6)]
        for r in range(6):
            for k in range(r, 6):
                x = T.sop([(1.0, IA[i][r][k])]
                          + [(-1.0, rows[r][d], U[i][d][k]) for d in range(nvi)])
                Ia[r][k] = Ia[k][r] = x
        ud = spd_solve(T, Dm[i], [u[i]])[0]
        iac = mul6(T, Ia, c[i])
        pa = [T.sop([(1.0, pA[i][k]), (1.0, iac[k])]
                    + [(1.0, U[i][d][k], ud[d]) for d in range(nvi)]) for k in range(6)]
        IA[par] = [[T.sop([(1.0, IA[par][r][k]), (1.0, Ia[r][k])]) if k >= r else None
                    for k in range(6)] for r in range(6)]
        for r in range(6):
            for k in range(r):
                IA[par][r][k] = IA[par][k][r]
        pA[par] = T.add(pA[par], pa)
    if axes is None:
        a0 = [T.sop([(-1.0, x)]) for x in g]
    else:  # gravity in joint 1's frame: R1^T g
        a0 = [T.sop([(-1.0, x)]) for x in T.mattvec(axes, g)]
    acc = [a0 + [0.0, 0.0, 0.0]] + [None] * (n - 1)
    out = [0.0] * len(tn)
    for i in range(1, n):
        jr = jnt[i]
        par = int(jr["parent"])
        iv, nvi = int(jr["idx_v"]), int(jr["nv"])
        a = T.add(acc[par], c[i])
        rhs = [T.sop([(1.0, u[i][d])] + [(-1.0, x, y) for x, y in zip(U[i][d], a)])
               for d in range(nvi)]
        qdd = spd_solve(T, Dm[i], [rhs])[0]
        for d in range(nvi):
            T.line(f"ddq[{iv + d}] = {lit(qdd[d])}")
            out[iv + d] = qdd[d]
        acc[i] = [T.sop([(1.0, a[k])] + [(1.0, J[i][d][k], qdd[d]) for d in range(nvi)])
                  for k in range(6)]
    return out
