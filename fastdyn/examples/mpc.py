"""Model-predictive control of the bundled UR5 by iLQR on the simulator itself: at every tick,
plan the next ``HORIZON`` steps with ``Scene.step`` (the dynamics) and
``Scene.step_derivatives`` (their Jacobians), apply the plan's first torque, and plan again
from where the arm went, warm-started from the last plan.

    python -m fastdyn.examples.mpc

iLQR (Li & Todorov 2004; Tassa, Erez & Todorov 2012, sec. II-III) minimizes
J = sum_k 1/2 (|e_k|_W^2 + r |u_k - u*|^2) + 1/2 |e_N|_{W_N}^2 over the torques u_k, with
e = [q (-) q*; v] the error to the target state (q*, 0) in the tangent space and u* the
gravity torque that holds it there: a backward pass of the Riccati recursion on the step's
Jacobians (A, B), then a forward pass on the true step with a line search on the feedforward.
Prints the first plan's cost at each iteration and the distance to the target over time.
"""

import numpy as np

import fastdyn as fd

DT = 0.01  # [s] a control tick and one simulator step
HORIZON = 30  # steps planned ahead (0.3 s)
W_Q, W_V, R = 100.0, 1.0, 1e-2  # weights on the position and velocity error, on the torque
W_END = 10.0  # the terminal weight, a multiple of the running one


def _error(model, q_star, q, v):
    """e = [q* -> q; v] (2 nv) and its Jacobian in the tangent space at q (2 nv, 2 nv)."""
    nv = model.nv
    J = np.eye(2 * nv)
    J[:nv, :nv] = fd.d_difference(model, q_star, q, "q1")
    return np.r_[fd.difference(model, q_star, q), v], J


def _cost(model, q_star, u_star, X, U):
    w = np.r_[np.full(model.nv, W_Q), np.full(model.nv, W_V)]
    total = 0.0
    for k, (q, v) in enumerate(X):
        e, _ = _error(model, q_star, q, v)
        total += 0.5 * (W_END if k == len(U) else 1.0) * e @ (w * e)
        if k < len(U):
            total += 0.5 * R * np.sum((U[k] - u_star) ** 2)
    return total


def _rollout(scene, q, v, U, X_ref=None, K=None, kff=None, alpha=1.0):
    """States and torques from (q, v): U as they are, or U + alpha kff + K (x (-) x_ref)."""
    model = scene.model
    X, out = [(q, v)], []
    for k in range(len(U)):
        u = U[k]
        if K is not None:
            dx = np.r_[fd.difference(model, X_ref[k][0], q), v - X_ref[k][1]]
            u = u + alpha * kff[k] + K[k] @ dx
        q, v = scene.step(q, v, u)
        X.append((q, v))
        out.append(u)
    return X, np.array(out)


def ilqr(scene, q0, v0, U, q_star, u_star, iterations: int, mu: float = 1e-6):
    """Improve the torques U (H, nv) from (q0, v0) by up to ``iterations`` iLQR iterations
    (``mu``: a Levenberg-Marquardt term on Quu); returns (U, states, the cost after each
    accepted iteration, the first U's own)."""
    model, nv = scene.model, scene.model.nv
    w = np.r_[np.full(nv, W_Q), np.full(nv, W_V)]
    X, U = _rollout(scene, q0, v0, U)
    costs = [_cost(model, q_star, u_star, X, U)]
    for _ in range(iterations):
        # backward pass: V(x) ~ 1/2 dx' Vxx dx + Vx' dx, from the end
        e, J = _error(model, q_star, *X[-1])
        Vx, Vxx = W_END * J.T @ (w * e), W_END * J.T @ (w[:, None] * J)
        K, kff = [None] * len(U), [None] * len(U)
        for k in reversed(range(len(U))):
            A, B = scene.step_derivatives(X[k][0], X[k][1], U[k])
            e, J = _error(model, q_star, *X[k])
            Qx = J.T @ (w * e) + A.T @ Vx
            Qu = R * (U[k] - u_star) + B.T @ Vx
            Qxx = J.T @ (w[:, None] * J) + A.T @ Vxx @ A
            Quu = R * np.eye(nv) + B.T @ Vxx @ B + mu * np.eye(nv)
            Qux = B.T @ Vxx @ A
            kff[k] = -np.linalg.solve(Quu, Qu)
            K[k] = -np.linalg.solve(Quu, Qux)
            Vx = Qx + K[k].T @ Quu @ kff[k] + K[k].T @ Qu + Qux.T @ kff[k]
            Vxx = Qxx + K[k].T @ Quu @ K[k] + K[k].T @ Qux + Qux.T @ K[k]
            Vxx = 0.5 * (Vxx + Vxx.T)
        # forward pass on the true step: the first step size that lowers the cost
        for alpha in (1.0, 0.5, 0.25, 0.1, 0.03):
            Xn, Un = _rollout(scene, q0, v0, U, X, K, kff, alpha)
            c = _cost(model, q_star, u_star, Xn, Un)
            if c < costs[-1]:
                X, U = Xn, Un
                costs.append(c)
                break
        else:
            break  # no step lowers the cost: converged (to a local minimum)
        if costs[-2] - costs[-1] < 1e-6 * costs[-2]:
            break  # and when the last step barely did
    return U, X, costs


def main(short: bool = False) -> dict:
    model = fd.models.load("ur5")
    plan, plant = fd.Scene(model, dt=DT, ground=False), fd.Scene(model, dt=DT, ground=False)
    q = np.array([0.0, -1.0, 1.2, -1.8, -1.57, 0.0])  # [rad]
    v = np.zeros(model.nv)
    q_star = q + np.array([0.4, -0.3, 0.3, 0.2, -0.2, 0.3])
    u_star = fd.compute_generalized_gravity(model, model.create_data(), q_star).copy()
    ticks, horizon = (5, 10) if short else (100, HORIZON)
    U = np.tile(u_star, (horizon, 1))  # the first guess: hold the target's gravity torque
    U, _, first = ilqr(plan, q, v, U, q_star, u_star, iterations=4 if short else 10)
    print(f"{model.name}: iLQR over {horizon} steps of {DT * 1e3:g} ms, the first plan's cost "
          f"by iteration: {', '.join(f'{c:.4g}' for c in first)}")
    distance = [np.linalg.norm(fd.difference(model, q_star, q))]
    for tick in range(ticks):
        U, _, _ = ilqr(plan, q, v, U, q_star, u_star, iterations=1)
        q, v = plant.step(q, v, U[0])  # apply the first torque; the plant moves
        U = np.vstack([U[1:], U[-1:]])  # the plan shifted by one step: the next warm start
        distance.append(np.linalg.norm(fd.difference(model, q_star, q)))
        if tick % max(1, ticks // 5) == 0 or tick == ticks - 1:
            print(f"  t = {(tick + 1) * DT:.2f} s: |q (-) q*| = {distance[-1]:.4f} rad, "
                  f"|v| = {np.linalg.norm(v):.3f} rad/s")
    return {"first_costs": np.array(first), "distance": np.array(distance), "q": q, "v": v,
            "q_star": q_star}


if __name__ == "__main__":
    main()
