"""Generated input checks and the checked entry points the Python methods call.

The same checks as kernels/algorithms/guard.py (finite entries, unit quaternions and
(cos, sin) pairs within the tolerance), plus the lengths, with this model's sizes and unit-part
offsets written in. A checked kernel returns 0 when it ran, 1 when an input is bad; on 1 the
Python side reruns fastdyn's generic checks, which say what is wrong and where.
"""

from __future__ import annotations

from ..kernels.joints import codes


def _unit_parts(jnt) -> list[tuple[int, int]]:
    """(first q index, length) of every part of q that must have unit norm."""
    out = []
    for i in range(1, jnt.shape[0]):
        t, iq = int(jnt[i]["type"]), int(jnt[i]["idx_q"])
        if t == codes.FREEFLYER:
            out.append((iq + 3, 4))
        elif t == codes.SPHERICAL:
            out.append((iq, 4))
        elif t == codes.PLANAR:
            out.append((iq + 2, 2))
        elif codes.CONTINUOUS_X <= t <= codes.CONTINUOUS:
            out.append((iq, 2))
    return out


def checks(jnt, nq: int, nv: int, algorithms) -> str:
    nj = jnt.shape[0]
    lines = ["@jit", "def check_q(q, tol):",
             f'    """q is ({nq},), finite, its unit parts within tol of norm 1."""',
             f"    if q.shape[0] != {nq}:", "        return False",
             f"    for k in range({nq}):", "        if not (q[k] - q[k] == 0.0):",
             "            return False"]
    for o, n in _unit_parts(jnt):
        norm2 = " + ".join(f"q[{o + k}] * q[{o + k}]" for k in range(n))
        lines += [f"    if abs(sqrt({norm2}) - 1.0) > tol:", "        return False"]
    lines += ["    return True", "", "", "@jit", "def check_v(x):",
              f'    """x is ({nv},) and finite."""',
              f"    if x.shape[0] != {nv}:", "        return False",
              f"    for k in range({nv}):", "        if not (x[k] - x[k] == 0.0):",
              "            return False", "    return True", "", "", "@jit", "def check_f(fext):",
              f'    """fext is ({nj}, 6) and finite."""',
              f"    if fext.shape[0] != {nj} or fext.shape[1] != 6:", "        return False",
              f"    for i in range({nj}):", "        for k in range(6):",
              "            if not (fext[i, k] - fext[i, k] == 0.0):", "                return False",
              "    return True", ""]
    entry = {
        "forward_kinematics": ("q, ws, tol", "check_q(q, tol)", "forward_kinematics(q, ws)"),
        "joint_jacobians": ("q, ws, J, tol", "check_q(q, tol)", "joint_jacobians(q, ws, J)"),
        "rnea": ("gravity, q, v, a, tau, tol", "check_q(q, tol) and check_v(v) and check_v(a)",
                 "rnea(gravity, q, v, a, tau)"),
        "rnea_fext": ("gravity, q, v, a, fext, tau, tol",
                      "check_q(q, tol) and check_v(v) and check_v(a) and check_f(fext)",
                      "rnea_fext(gravity, q, v, a, fext, tau)"),
        "crba": ("q, M, tol", "check_q(q, tol)", "crba(q, M)"),
        "aba": ("gravity, q, v, tau, ddq, tol",
                "check_q(q, tol) and check_v(v) and check_v(tau)", "aba(gravity, q, v, tau, ddq)"),
        "aba_fext": ("gravity, q, v, tau, fext, ddq, tol",
                     "check_q(q, tol) and check_v(v) and check_v(tau) and check_f(fext)",
                     "aba_fext(gravity, q, v, tau, fext, ddq)"),
    }
    algorithms = [a for name in algorithms for a in ((name, name + "_fext")
                                                      if name in ("rnea", "aba") else (name,))]
    for name in algorithms:
        args, test, call = entry[name]
        lines += ["", "@jit", f"def {name}_checked({args}):", f"    if not ({test}):",
                  "        return 1", f"    {call}"]
        if name.startswith("aba"):  # finite inputs, non-finite ddq: a singular articulated inertia
            lines += ["    if not check_v(ddq):", "        return 2"]
        lines += ["    return 0", ""]
    return "\n".join(lines) + "\n"
