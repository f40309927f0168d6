"""A Monte Carlo study: the bundled UR5 carries a payload of uncertain mass and centre through a
fast minimum-jerk move, its links' inertias uncertain too. What torque does each joint need?

    python -m fastdyn.examples.montecarlo

Prints each joint's peak torque over the move: its nominal value (the robot and payload as
specified), the samples' mean and their 5 % and 95 % quantiles.

On a Dask cluster (``pip install "fastdyn[distributed]"``), pass a client to the same call;
the results are bit-identical to the local run's:

    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        res = fd.study.run(model, sampler, what, n=n, seed=1, client=client)

Dask starts its workers as new processes that import this file, so the study must run under
``if __name__ == "__main__":`` (as below): without it, each worker would start the study again.
"""

import numpy as np

import fastdyn as fd

Q_START = np.array([0.0, -1.0, 1.2, -1.8, -1.57, 0.0])  # [rad]
Q_END = np.array([2.0, -2.2, 0.4, -0.6, -1.0, 1.0])
# 2 kg +-20 % (log-normal sigma), its centre 5 cm past the flange +-1 cm per axis
PAYLOAD = fd.Payload("tool0", mass=(2.0, 0.2), com=((0.0, 0.0, 0.05), 0.01))


def main(short: bool = False) -> dict:
    model = fd.models.load("ur5")
    steps, n = (200, 2000) if short else (1000, 20_000)
    t, Q, V, A = fd.minimum_jerk(model, Q_START, Q_END, 1.5, steps)  # a 1.5 s move
    # links: masses and second moments +-10 % (log-normal sigma), centres 1 cm per axis
    sampler = fd.study.ParameterSampler(model, mass=0.1, com=0.01, inertia=0.1,
                                        payload=PAYLOAD)
    res = fd.study.run(model, sampler, fd.study.InverseDynamics(Q, V, A), n=n, seed=1)
    # the nominal robot with its nominal payload: every spread zero, so any sample is it
    nominal_pi = fd.sample_parameters(model, 1, 0, payload=fd.Payload("tool0", 2.0,
                                                                      (0.0, 0.0, 0.05)))
    nominal = np.abs(fd.batch.rnea(model, Q, V, A, pi=nominal_pi)).max(axis=0)
    print(f"{model.name} carrying {PAYLOAD.mass[0]:g} kg through a {t[-1]:g} s move in "
          f"{steps} steps: {res.n:,} samples in {res.seconds:.2f} s")
    print(f"  {'joint':<22}{'peak |tau| [N m]: nominal':>26}{'mean':>8}{'5 %':>8}{'95 %':>8}")
    q5, q95 = res.quantile("peak", 0.05), res.quantile("peak", 0.95)
    for k, name in enumerate(model.joint_names[1:]):
        print(f"  {name:<22}{nominal[k]:26.2f}{res.mean['peak'][k]:8.2f}{q5[k]:8.2f}"
              f"{q95[k]:8.2f}")
    return {"peak": res["peak"], "mean": res.mean["peak"], "q5": q5, "q95": q95,
            "nominal": nominal, "params": res.params, "model": model, "Q": Q, "V": V, "A": A}


if __name__ == "__main__":
    main()
