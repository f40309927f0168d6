"""Kernels allocate nothing: numba's runtime allocation counters do not move across calls.

Checked in a fresh process with NUMBA_NRT_STATS=1 (the counters exist only then): every
kernel runs inside an @njit loop, once and then 101 times; the number of NRT allocations
must be the same (the call boundary's own boxing, once per call, cancels out). (Array views such as ws[i] are structs on the stack, not NRT
allocations, so the count is exactly what would hurt: heap traffic in the joint loops.)
"""

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import numba, numpy as np
    from numba.core.runtime import rtsys
    import fastdyn as fd
    from fastdyn.kernels import (aba, crba, rnea, forward_kinematics, integrate, cholesky,
                                 cholesky_solve, center_of_mass, rnea_derivatives,
                                 aba_derivatives, static_torque_derivatives,
                                 kinematics_derivatives, joint_motion_derivatives,
                                 frame_motion_derivatives, centroidal_dynamics_derivatives)

    @numba.njit
    def run(jnt, prm, dof, q, v, a, fext, ws, tau, M, U, D, mass, com, vcom, acom, qn, e, X,
            Y, Minv, frm, oMf, K, h, n):
        for _ in range(n):
            rnea(jnt, prm, q, v, a, fext, ws, tau)
            aba(jnt, prm, q, v, tau, fext, ws, a)
            crba(jnt, prm, q, ws, M, e)
            cholesky(dof, M, U, D)
            cholesky_solve(dof, U, D, tau)
            forward_kinematics(jnt, prm, q, v, a, ws)
            center_of_mass(jnt, prm, ws, 2, mass, com, vcom, acom)
            integrate(jnt, q, v, 1e-3, qn)
            rnea_derivatives(jnt, prm, q, v, a, fext, ws, tau, X, Y, M)
            aba_derivatives(jnt, prm, dof, q, v, tau, fext, ws, a, X, Y, M, U, D, Minv)
            static_torque_derivatives(jnt, prm, q, fext, ws, tau, X)
            kinematics_derivatives(jnt, prm, q, v, a, ws)
            joint_motion_derivatives(jnt, ws, jnt.shape[0] - 1, 2, K[0], K[1], K[2], K[3], K[4])
            frame_motion_derivatives(jnt, frm, ws, 1, 0, oMf, K[0], K[1], K[2], K[3], K[4])
            centroidal_dynamics_derivatives(jnt, prm, q, v, a, ws, K[0], K[1], K[2], K[3], h[0],
                                            h[1])

    m = fd.samples.random_tree(20, seed=4, root="freeflyer")
    d = m.create_data()
    q = fd.random_configuration(m, 0)
    v = np.ones(m.nv)
    a = np.ones(m.nv)
    args = (m.jnt, m.prm, m.dof, q, v, a, np.zeros((0, 6)), d.ws, d.tau, d.M, d.U, d.D,
            d.mass, d.com, d.vcom, d.acom, np.empty(m.nq), np.zeros(0), d.dtau_dq, d.dtau_dv,
            d.Minv, m.frm, d.oMf, np.zeros((5, 6, m.nv)), np.zeros((2, 6)))
    def allocations(n):
        before = rtsys.get_allocation_stats()
        run(*args, n)
        return rtsys.get_allocation_stats().alloc - before.alloc

    allocations(1)  # compile
    # Boxing each array argument at the call boundary counts once per call; the loop must
    # add nothing on top of it.
    print(allocations(1), allocations(101))
""")


def test_kernels_allocate_nothing(tmp_path):
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         env=dict(os.environ, NUMBA_NRT_STATS="1"), timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    one, many = out.stdout.split()
    assert one == many, f"{int(many) - int(one)} allocations in 100 iterations"
