"""A computed-torque control loop at 1 kHz, written in plain Python four ways: with
Pinocchio, with fastdyn's single calls, with fastdyn's fused per-tick calls (fastdyn.tick)
and the control law in NumPy, and with the law compiled too (fastdyn.computed_torque).
bench/test_tick.py times them; tests/test_all_terms.py checks that the four give the same
trajectory.

Every tick, all three do the same work and the same arithmetic:
  controller:  M = M(q), h = rnea(q, v, 0), e = q_ref (-) q (difference(q, q_ref)),
               the tool frame's placement X (forward kinematics + frame placement),
               tau = M (a_ref + Kp e + Kd (v_ref - v)) + h       (computed torque, NumPy)
  plant:       ddq = aba(q, v, tau), v <- v + dt ddq, q <- q (+) dt v   (semi-implicit Euler)
The control law is the same NumPy expression in the first three; the fourth computes the
same expression inside fastdyn.computed_torque's compiled call. On a free-flyer (Solo12) the
fused and compiled ticks' fastdyn.forward_step advances the base's linear velocity in the
step's start axes and turns it exactly into the new ones (kernels/configuration/frozen.py: a
few flops more), where the first two take the plain Euler step above: their trajectories
differ by O(dt^2) a tick (tests/test_all_terms.py checks each against its own step).
"""

from __future__ import annotations

import warnings

import numpy as np
import pinocchio as pin

import fastdyn as fd
import fastdyn.models as fm

TOOL = {"ur5": "tool0", "solo12": "FL_FOOT"}  # the frame each loop places every tick
FREE_FLYER = {"ur5": False, "solo12": True}
DT, KP, KD = 1e-3, 100.0, 20.0


class Loop:
    """One robot in both libraries, the loop's reference and gains, and its initial state."""

    def __init__(self, name: str, seed: int = 0):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model = fm.load(name, source="example-robot-data")
        path = str(fm.path(name, source="example-robot-data"))
        self.pm = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if FREE_FLYER[name]
                   else pin.buildModelFromUrdf(path))
        self.name = name
        self.data, self.pd = self.model.create_data(), self.pm.createData()
        self.nq, self.nv = self.model.nq, self.model.nv
        self.tool = self.model.frame_id(TOOL[name])
        self.pin_tool = self.pm.getFrameId(TOOL[name])
        assert self.pm.frames[self.pin_tool].parentJoint == \
            self.model.frm[self.tool]["parent_joint"]
        rng = np.random.default_rng(seed)
        self.q0 = fd.random_configuration(self.model, rng)
        self.v0 = rng.uniform(-1.0, 1.0, self.nv)
        self.q_ref = fd.random_configuration(self.model, rng)
        self.v_ref = rng.uniform(-0.5, 0.5, self.nv)
        self.a_ref = rng.uniform(-0.5, 0.5, self.nv)

    def pinocchio_tick(self, step=None):
        """tick(q, v) -> (q, v, X) with Pinocchio's calls (X: the tool's pin.SE3); ``step``
        (q, v, ddq) -> (q, v) in place of the plain Euler step (for tests)."""
        pm, pd, f = self.pm, self.pd, self.pin_tool
        q_ref, v_ref, a_ref = self.q_ref, self.v_ref, self.a_ref
        zero = np.zeros(self.nv)
        crba, rnea, difference, fk = pin.crba, pin.rnea, pin.difference, pin.forwardKinematics
        place, aba, integrate = pin.updateFramePlacement, pin.aba, pin.integrate

        def tick(q, v):
            M = crba(pm, pd, q)
            h = rnea(pm, pd, q, v, zero)
            e = difference(pm, q, q_ref)
            fk(pm, pd, q)
            X = place(pm, pd, f)
            tau = M @ (a_ref + KP * e + KD * (v_ref - v)) + h
            ddq = aba(pm, pd, q, v, tau)
            if step is not None:
                q, v = step(q, v, ddq)
                return q, v, X
            v = v + DT * ddq
            q = integrate(pm, q, v * DT)
            return q, v, X
        return tick

    def fastdyn_tick(self):
        """The same loop with fastdyn's single calls (X: the tool's 4x4 placement)."""
        m, d, f = self.model, self.data, self.tool
        q_ref, v_ref, a_ref = self.q_ref, self.v_ref, self.a_ref
        zero = np.zeros(self.nv)
        crba, rnea, difference, fk = fd.crba, fd.rnea, fd.difference, fd.forward_kinematics
        place, aba, integrate = fd.frame_placement, fd.aba, fd.integrate

        def tick(q, v):
            M = crba(m, d, q)
            h = rnea(m, d, q, v, zero)
            e = difference(m, q, q_ref)
            fk(m, d, q)
            X = place(m, d, f)
            tau = M @ (a_ref + KP * e + KD * (v_ref - v)) + h
            ddq = aba(m, d, q, v, tau)
            v = v + DT * ddq
            q = integrate(m, q, v, DT)
            return q, v, X
        return tick

    def fused_tick(self):
        """The same loop with fastdyn.compute_all_terms (M, h, the tool's placement and
        Jacobian in one call) and fastdyn.forward_step (the Euler step in one call, its ddq
        solved with the M and h compute_all_terms left instead of ABA: the same state).
        X: the tool's row of data.oMf (R row-major, then p), a view."""
        m, d, f = self.model, self.data, self.tool
        q_ref, v_ref, a_ref = self.q_ref, self.v_ref, self.a_ref
        terms, difference, step = fd.compute_all_terms, fd.difference, fd.forward_step
        M, h, oMf = d.M, d.nle, d.oMf

        def tick(q, v):
            terms(m, d, q, v, f, com=False)
            e = difference(m, q, q_ref)
            X = oMf[f]
            tau = M @ (a_ref + KP * e + KD * (v_ref - v)) + h
            q, v = step(m, d, q, v, tau, DT)
            return q, v, X
        return tick


    def compiled_tick(self):
        """The same loop with the law compiled: fastdyn.computed_torque (M, h, e, the tool's
        placement and Jacobian, tau = M (a_ref + Kp e + Kd (v_ref - v)) + h, one call) and
        fastdyn.forward_step. X: the tool's row of data.oMf, a view. Its own Data: the
        state it returns lives in it (data.q_next, v_next), as the fused tick's in self.data."""
        m, d, f = self.model, self.model.create_data(), self.tool
        q_ref, v_ref, a_ref = self.q_ref, self.v_ref, self.a_ref
        law, step = fd.computed_torque, fd.forward_step
        oMf = d.oMf

        def tick(q, v):
            tau = law(m, d, q, v, q_ref, v_ref, a_ref, KP, KD, f)
            X = oMf[f]
            q, v = step(m, d, q, v, tau, DT)
            return q, v, X
        return tick


def run(tick, q, v, n: int):
    """n ticks from (q, v); the last state."""
    for _ in range(n):
        q, v, _X = tick(q, v)
    return q, v


def placement(X) -> np.ndarray:
    """A copy of the tool placement as 4x4, from any of the three ticks' X."""
    if isinstance(X, pin.SE3):
        return np.array(X.homogeneous)
    X = np.asarray(X)
    if X.shape == (12,):  # a row of data.oMf
        T = np.eye(4)
        T[:3, :3] = X[:9].reshape(3, 3)
        T[:3, 3] = X[9:]
        return T
    return X.copy()
