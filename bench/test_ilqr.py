"""The newcomer's iLQR: fastdyn.examples.mpc's ``ilqr`` (UR5, 50 steps of 10 ms, 10
iterations) with its dynamics from three sources, the same Python iLQR around each:
- ``fastdyn``: ``Scene.horizon``, the forward pass and its Jacobians in one call a pass;
- ``fastdyn-steps``: ``Scene.step`` and ``Scene.step_derivatives`` step by step (what a user
  writes first; the issue measured 16x Pinocchio's time this way when ``step`` cost 300 us);
- ``pinocchio``: the same semi-implicit Euler step and its Jacobians from Pinocchio's calls:
  ``aba`` + ``integrate``, then ``computeABADerivatives`` and ``dIntegrate`` assembled in NumPy
  (A = [[Jq + dt Jv dv+/dq, dt Jv dv+/dv], [dv+/dq, dv+/dv]], dv+/dq = dt ddq/dq,
  dv+/dv = I + dt ddq/dv, B = [[dt Jv dv+/dtau], [dv+/dtau]], dv+/dtau = dt M^-1).
Both libraries' plans are checked equal (costs to 1e-9 relative) before anything is timed.
The "horizon" rows time the dynamics alone: one forward pass of 50 steps with its Jacobians,
as each side's ``horizon`` above makes it (the iLQR's own NumPy work, the same on all sides,
left out). No assertion on time.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import fastdyn as fd
import fastdyn.models as fm
from bench.ladder import tag
from fastdyn.examples import mpc
from fastdyn.sim.horizon import Horizon

pin = pytest.importorskip("pinocchio")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mujoco_twin import bare_model  # noqa: E402

H, ITERATIONS, DT = 50, 10, mpc.DT


class PinocchioSteps:
    """``horizon`` of Scene's signature, from Pinocchio's calls step by step."""

    def __init__(self, model: fd.Model):
        self.model = model  # fastdyn's, for the iLQR's cost (the same URDF)
        self.pm = pin.buildModelFromUrdf(str(fm.path("ur5")))
        self.pd = self.pm.createData()

    def horizon(self, q0, v0, U, gains=None, q_ref=None, v_ref=None) -> Horizon:
        pm, pd, nv = self.pm, self.pd, self.pm.nv
        n = len(U)
        Q, V, TAU = np.empty((n + 1, pm.nq)), np.empty((n + 1, nv)), np.empty((n, nv))
        A, B = np.empty((n, 2 * nv, 2 * nv)), np.empty((n, 2 * nv, nv))
        Q[0], V[0] = q0, v0
        eye = np.eye(nv)
        for k in range(n):
            q, v = Q[k], V[k]
            u = U[k]
            if gains is not None:
                u = u + gains[k] @ np.concatenate((pin.difference(pm, q_ref[k], q), v - v_ref[k]))
            TAU[k] = u
            V[k + 1] = v + DT * pin.aba(pm, pd, q, v, u)
            Q[k + 1] = pin.integrate(pm, q, DT * V[k + 1])
            pin.computeABADerivatives(pm, pd, q, v, u)
            Minv = np.triu(pd.Minv) + np.triu(pd.Minv, 1).T
            dvdq, dvdv, dvdu = DT * pd.ddq_dq, eye + DT * pd.ddq_dv, DT * Minv
            Jq = pin.dIntegrate(pm, q, DT * V[k + 1], pin.ARG0)
            Jv = DT * pin.dIntegrate(pm, q, DT * V[k + 1], pin.ARG1)
            A[k, :nv, :nv] = Jq + Jv @ dvdq
            A[k, :nv, nv:] = Jv @ dvdv
            A[k, nv:, :nv], A[k, nv:, nv:] = dvdq, dvdv
            B[k, :nv], B[k, nv:] = Jv @ dvdu, dvdu
        return Horizon(Q, V, TAU, A, B)


class FastdynSteps:
    """``horizon`` from ``Scene.step`` and ``Scene.step_derivatives``, step by step."""

    def __init__(self, scene: fd.Scene):
        self.scene, self.model = scene, scene.model

    def horizon(self, q0, v0, U, gains=None, q_ref=None, v_ref=None) -> Horizon:
        model, scene = self.model, self.scene
        n, nv = len(U), model.nv
        Q, V, TAU = np.empty((n + 1, model.nq)), np.empty((n + 1, nv)), np.empty((n, nv))
        A, B = np.empty((n, 2 * nv, 2 * nv)), np.empty((n, 2 * nv, nv))
        Q[0], V[0] = q0, v0
        for k in range(n):
            u = U[k]
            if gains is not None:
                dx = np.concatenate((fd.difference(model, q_ref[k], Q[k]), V[k] - v_ref[k]))
                u = u + gains[k] @ dx
            TAU[k] = u
            A[k], B[k] = scene.step_derivatives(Q[k], V[k], u)
            Q[k + 1], V[k + 1] = scene.step(Q[k], V[k], u)
        return Horizon(Q, V, TAU, A, B)


def _problem():
    model = bare_model(fm.load("ur5"))
    q = np.array([0.0, -1.0, 1.2, -1.8, -1.57, 0.0])
    q_star = q + np.array([0.4, -0.3, 0.3, 0.2, -0.2, 0.3])
    u_star = fd.compute_generalized_gravity(model, model.create_data(), q_star).copy()
    return model, q, np.zeros(model.nv), q_star, u_star


_made: dict = {}


def _sides():
    if not _made:
        model, q, v, q_star, u_star = _problem()
        scene = fd.Scene(model, dt=DT, ground=False)
        U0 = np.tile(u_star, (H, 1))
        dynamics = {"fastdyn": scene, "fastdyn-steps": FastdynSteps(scene),
                    "pinocchio": PinocchioSteps(model)}
        for role, dyn in dynamics.items():
            _made[role] = (lambda d=dyn: mpc.ilqr(d, q, v, U0, q_star, u_star, ITERATIONS))
        costs = {role: np.array(f()[2]) for role, f in _made.items()}
        for role in ("fastdyn", "fastdyn-steps"):
            assert costs[role].shape == costs["pinocchio"].shape, costs
            np.testing.assert_allclose(costs[role], costs["pinocchio"], rtol=1e-9)
        _made["model"] = model
        for role, dyn in dynamics.items():
            _made["horizon-" + role] = (lambda d=dyn: d.horizon(q, v, U0))
    return _made


@pytest.mark.parametrize("side", ["fastdyn", "fastdyn-steps", "pinocchio"])
def test_ilqr(benchmark, side):
    sides = _sides()
    tag(benchmark, "mpc", "ilqr", "ur5", side, evals=1, dofs=sides["model"].nv,
        horizon=H, iterations=ITERATIONS)
    benchmark.pedantic(sides[side], rounds=20, iterations=1)


@pytest.mark.parametrize("side", ["fastdyn", "fastdyn-steps", "pinocchio"])
def test_horizon(benchmark, side):
    sides = _sides()
    tag(benchmark, "mpc", "horizon", "ur5", side, evals=H, dofs=sides["model"].nv, horizon=H)
    f = sides["horizon-" + side]
    benchmark.pedantic(f, rounds=50, iterations=1)
