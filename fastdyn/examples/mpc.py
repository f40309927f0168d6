"""Model-predictive control of the bundled UR5 by iLQR on the simulator itself: at every tick,
plan the next ``HORIZON`` steps with ``Scene.horizon`` (the steps of a horizon and their
Jacobians (A, B), in one call), apply the plan's first torque, and plan again from where the
arm went, warm-started from the last plan.

    python -m fastdyn.examples.mpc

iLQR (Li & Todorov 2004; Tassa, Erez & Todorov 2012, sec. II-III) minimizes
J = sum_k 1/2 (|e_k|_W^2 + r |u_k - u*|^2) + 1/2 |e_N|_{W_N}^2 over the torques u_k, with
e = [q (-) q*; v] the error to the target state (q*, 0) in the tangent space and u* the
gravity torque that holds it there: a backward pass of the Riccati recursion on the step's
Jacobians (A, B), then a forward pass on the true step under the new feedback law
u_k = U_k + alpha k_k + K_k (x_k (-) x_ref,k), with a line search on alpha. Both the forward
pass and the Jacobians of its trajectory are one ``Scene.horizon`` call. ``ilqr`` takes
anything with the same ``horizon`` method (bench/test_ilqr.py runs it on Pinocchio's calls).
Prints the first plan's cost at each iteration and the distance to the target over time.
"""

import numpy as np

import fastdyn as fd

DT = 0.01  # [s] a control tick and one simulator step
HORIZON = 30  # steps planned ahead (0.3 s)
W_Q, W_V, R = 100.0, 1.0, 1e-2  # weights on the position and velocity error, on the torque
W_END = 10.0  # the terminal weight, a multiple of the running one


def _errors(model, q_star, h):
    """Each state's position error q* -> q_k (H+1, nv); the velocity error is v_k itself."""
    return np.array([fd.difference(model, q_star, q) for q in h.q])


def _error_jacobians(model, q_star, h):
    """The position errors' Jacobians in the tangent spaces at the q_k (H+1, nv, nv)."""
    return np.array([fd.d_difference(model, q_star, q, "q1") for q in h.q])


def _cost(model, q_star, u_star, h) -> float:
    """J of the horizon ``h`` (its states h.q, h.v and torques h.tau)."""
    E = _errors(model, q_star, h)
    s = np.ones(len(h.q))
    s[-1] = W_END
    return 0.5 * (R * np.sum((h.tau - u_star) ** 2)
                  + s @ (W_Q * np.sum(E ** 2, axis=1) + W_V * np.sum(h.v ** 2, axis=1)))


def ilqr(scene, q0, v0, U, q_star, u_star, iterations: int, mu: float = 1e-6):
    """Improve the torques U (H, nv) from (q0, v0) by up to ``iterations`` iLQR iterations
    (``mu``: a Levenberg-Marquardt term on Quu); returns (U, the last horizon (states,
    torques, Jacobians), the cost after each accepted iteration, the first U's own)."""
    model, nv = scene.model, scene.model.nv
    h = scene.horizon(q0, v0, U)
    costs = [_cost(model, q_star, u_star, h)]
    H = len(U)
    K, kff = np.zeros((H, nv, 2 * nv)), np.zeros((H, nv))
    Ruu = (R + mu) * np.eye(nv)
    for _ in range(iterations):
        # the running cost's gradient lx and Hessian lxx at every state (the terminal cost is
        # the running one's state part times W_END): e = [q* -> q; v], weights W_Q, W_V
        E, D = _errors(model, q_star, h), _error_jacobians(model, q_star, h)
        lx = np.concatenate((W_Q * np.einsum("kij,ki->kj", D, E), W_V * h.v), axis=1)
        lxx = np.zeros((H + 1, 2 * nv, 2 * nv))
        lxx[:, :nv, :nv] = W_Q * np.einsum("kji,kjl->kil", D, D)
        lxx[:, nv:, nv:] = W_V * np.eye(nv)
        lu = R * (h.tau - u_star)
        # backward pass: V(x) ~ 1/2 dx' Vxx dx + Vx' dx, from the end. With k = -Quu^-1 Qu
        # and K = -Quu^-1 Qux solved on the same (regularized) Quu, Tassa et al.'s eq. (11)
        # reduce to Vx = Qx + Qux' k and Vxx = Qxx + Qux' K.
        Vx, Vxx = W_END * lx[H], W_END * lxx[H]
        for k in reversed(range(H)):
            A, B = h.A[k], h.B[k]
            VxxB = Vxx @ B
            Quu = Ruu + B.T @ VxxB
            Qux = VxxB.T @ A
            sol = -np.linalg.solve(Quu, np.hstack((lu[k][:, None] + B.T @ Vx[:, None], Qux)))
            kff[k], K[k] = sol[:, 0], sol[:, 1:]
            Vx = lx[k] + A.T @ Vx + Qux.T @ kff[k]
            Vxx = lxx[k] + A.T @ Vxx @ A + Qux.T @ K[k]
            Vxx = 0.5 * (Vxx + Vxx.T)
        # forward pass on the true step: the first step size that lowers the cost
        for alpha in (1.0, 0.5, 0.25, 0.1, 0.03):
            hn = scene.horizon(q0, v0, h.tau + alpha * kff, gains=K, q_ref=h.q[:-1],
                               v_ref=h.v[:-1])
            c = _cost(model, q_star, u_star, hn)
            if c < costs[-1]:
                h = hn
                costs.append(c)
                break
        else:
            break  # no step lowers the cost: converged (to a local minimum)
        if costs[-2] - costs[-1] < 1e-6 * costs[-2]:
            break  # and when the last step barely did
    return h.tau, h, costs


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
