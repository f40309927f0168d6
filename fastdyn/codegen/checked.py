"""Generated input checks and the checked entry points the Python methods call.

The same checks as kernels/entry/guard.py (finite entries, unit quaternions and
(cos, sin) pairs within the tolerance), plus the lengths, with this model's sizes and unit-part
offsets written in, and the result's finiteness. A checked kernel returns 0 when it ran; 4 when
an output or the workspace has the wrong shape (nothing was written); 1 when an input is bad,
and the Python side then reruns fastdyn's generic checks, which say what is wrong and where;
2 when the result is not finite although the inputs are (an overflow); 3 for that in ABA,
where it may also be a singular articulated inertia.
"""

from __future__ import annotations

from ..kernels.joints import codes
from ..kernels.layout import NW, OM


def _unit_parts(jnt) -> list[tuple[int, int]]:
    """(first q index, length) of every part of q that must have unit norm (the joint
    contract, codes.unit_part)."""
    return [(int(r["idx_q"]) + o, k) for r in jnt[1:]
            for o, k in (codes.unit_part(int(r["type"])),) if k]


_SQUARE = " and ".join(f"{{{a}}}.shape[0] == {{{{nv}}}} and {{{a}}}.shape[1] == {{{{nv}}}}"
                       for a in "xyz")


# the algorithms with a checked entry point (the simulator's free_velocity has none: the
# rollout loop calls it on inputs it has checked)
CHECKED = ("forward_kinematics", "joint_jacobians", "rnea", "crba", "aba", "rnea_derivatives",
           "aba_derivatives")


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
    lines += ["", "", "@jit", "def check_m(M):", f'    """M is ({nv}, {nv}) with a finite diagonal."""',
              f"    if M.shape[0] != {nv} or M.shape[1] != {nv}:", "        return False",
              f"    for k in range({nv}):", "        if not (M[k, k] - M[k, k] == 0.0):",
              "            return False", "    return True", "", "", "@jit",
              "def check_ws(ws):", f'    """ws is ({nj}, {NW}) and every oMi translation finite."""',
              f"    if ws.shape[0] != {nj} or ws.shape[1] != {NW}:", "        return False",
              f"    for i in range({nj}):", f"        for k in range({OM + 9}, {OM + 12}):",
              "            if not (ws[i, k] - ws[i, k] == 0.0):", "                return False",
              "    return True", "", "", "@jit", "def check_j(J):",
              f'    """J is (6, {nv}) and finite."""',
              f"    if J.shape[0] != 6 or J.shape[1] != {nv}:", "        return False",
              "    for r in range(6):", f"        for k in range({nv}):",
              "            if not (J[r, k] - J[r, k] == 0.0):", "                return False",
              "    return True", ""]
    # (arguments, input test, shapes of what is written, call, result test): the shapes are
    # checked before anything is written, the result's finiteness after.
    entry = {
        "forward_kinematics": ("q, ws, tol", "check_q(q, tol)", "ws.shape[0] == {nj}",
                               "forward_kinematics(q, ws)", "check_ws(ws)"),
        "joint_jacobians": ("q, ws, J, tol", "check_q(q, tol)",
                            "ws.shape[0] == {nj} and J.shape[0] == 6 and J.shape[1] == {nv}",
                            "joint_jacobians(q, ws, J)", "check_j(J)"),
        "rnea": ("gravity, q, v, a, tau, tol", "check_q(q, tol) and check_v(v) and check_v(a)",
                 "tau.shape[0] == {nv}", "rnea(gravity, q, v, a, tau)", "check_v(tau)"),
        "rnea_fext": ("gravity, q, v, a, fext, tau, tol",
                      "check_q(q, tol) and check_v(v) and check_v(a) and check_f(fext)",
                      "tau.shape[0] == {nv}", "rnea_fext(gravity, q, v, a, fext, tau)",
                      "check_v(tau)"),
        "crba": ("q, M, tol", "check_q(q, tol)", "M.shape[0] == {nv} and M.shape[1] == {nv}",
                 "crba(q, M)", "check_m(M)"),
        "aba": ("gravity, q, v, tau, ddq, tol",
                "check_q(q, tol) and check_v(v) and check_v(tau)", "ddq.shape[0] == {nv}",
                "aba(gravity, q, v, tau, ddq)", "check_v(ddq)"),
        "aba_fext": ("gravity, q, v, tau, fext, ddq, tol",
                     "check_q(q, tol) and check_v(v) and check_v(tau) and check_f(fext)",
                     "ddq.shape[0] == {nv}", "aba_fext(gravity, q, v, tau, fext, ddq)",
                     "check_v(ddq)"),
        "rnea_derivatives": ("gravity, q, v, a, tau, dtau_dq, dtau_dv, M, tol",
                             "check_q(q, tol) and check_v(v) and check_v(a)", "tau.shape[0] == "
                             "{nv} and " + _SQUARE.format(x="dtau_dq", y="dtau_dv", z="M"),
                             "rnea_derivatives(gravity, q, v, a, tau, dtau_dq, dtau_dv, M)",
                             # diagonals, as the generic derivatives' checked kernels
                             "(check_v(tau) and check_m(dtau_dq) and check_m(dtau_dv)"
                             " and check_m(M))"),
        "aba_derivatives": ("gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv, tol",
                            "check_q(q, tol) and check_v(v) and check_v(tau)", "ddq.shape[0] == "
                            "{nv} and " + _SQUARE.format(x="ddq_dq", y="ddq_dv", z="Minv"),
                            "aba_derivatives(gravity, q, v, tau, ddq, ddq_dq, ddq_dv, Minv)",
                            "(check_v(ddq) and check_m(ddq_dq) and check_m(ddq_dv)"
                            " and check_m(Minv))"),
    }
    algorithms = [a for name in algorithms for a in ((name, name + "_fext")
                                                      if name in ("rnea", "aba") else (name,))]
    for name in algorithms:
        args, test, fits, call, result = entry[name]
        fits = fits.format(nj=nj, nv=nv)
        if "ws" in args:
            fits += f" and ws.shape[1] == {NW}"
        lines += ["", "@jit", f"def {name}_checked({args}):", f"    if not ({fits}):",
                  "        return 4", f"    if not ({test}):", "        return 1", f"    {call}",
                  f"    if not {result}:", f"        return {3 if name.startswith('aba') else 2}",
                  "    return 0", ""]
    return "\n".join(lines) + "\n"
