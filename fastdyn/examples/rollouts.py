"""Batch rollouts with ground contact: the bundled quadruped dropped from eight heights onto
the plane z = 0, its legs held by PD control, all eight rollouts in one parallel call.

    python -m fastdyn.examples.rollouts

Prints each rollout's final base height beside the standing height, and, for the first, the
ground's normal forces against the robot's weight m g (at rest they carry it exactly).
"""

import numpy as np

import fastdyn as fd


def main(short: bool = False) -> dict:
    scene, q, kp, kd = fd.sim.standing_scene(dt=1e-3)  # the feet on the ground, PD gains
    model = scene.model
    n, seconds = 8, (0.4 if short else 2.0)
    steps = int(round(seconds / scene.dt))
    Q0 = np.tile(q, (n, 1))
    Q0[:, 2] += np.linspace(0.0, 0.05 if short else 0.3, n)  # drop heights [m]
    out = scene.rollout(Q0, np.zeros((n, model.nv)), steps, kp=kp, kd=kd,
                        record=("q", "contacts"))  # PD holds each rollout's initial pose
    weight = model.mass.sum() * -model.gravity[2]
    # the last 0.1 s of the first rollout: the feet's normal forces, summed, per step
    carried = out.contact_forces[0, -100:, :, 2].sum(axis=1).mean()
    print(f"{model.name}: {n} rollouts x {steps} steps of {scene.dt * 1e3:g} ms, "
          f"status {sorted(set(out.status))}")
    print(f"  standing base height {q[2]:.4f} m")
    for r in range(n):
        print(f"  dropped from +{Q0[r, 2] - q[2]:.3f} m: base at {out.final_q[r, 2]:.4f} m")
    print(f"  rollout 0, last 0.1 s: normal forces carry {carried:.3f} N of m g = "
          f"{weight:.3f} N")
    return {"standing_height": float(q[2]), "drop": Q0[:, 2] - q[2], "status": out.status,
            "final_q": out.final_q, "base_height": out.q[:, :, 2], "carried": float(carried),
            "weight": float(weight)}


if __name__ == "__main__":
    main()
