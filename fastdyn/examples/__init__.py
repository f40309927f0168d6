"""Examples that run: ``python -m fastdyn.examples.NAME`` after ``pip install fastdyn``.

One per job and one per loader, each a short file to read and copy from:

- ``rollouts``: batch rollouts with ground contact, the bundled quadruped dropped from eight
  heights under PD control (``fd.sim.standing_scene``, ``Scene.rollout``).
- ``montecarlo``: a Monte Carlo study of the bundled UR5 carrying an uncertain payload along a
  minimum-jerk move (``fd.study.run``, ``fd.Payload``), locally; its comments say how to run
  it on Dask.
- ``mpc``: model-predictive control of the bundled UR5 by iLQR on the simulator's own step
  and its derivatives (``Scene.step``, ``Scene.step_derivatives``).
- ``load_urdf``: a bundled URDF, fixed base and free-flyer, and what a model holds.
- ``load_mjcf``: a pendulum written as an inline MJCF document, checked against its formula.

Each has ``main(short=False)``: ``short=True`` runs a few steps in seconds (the tests run
every example that way, tests/test_examples.py); each returns the numbers it printed.
"""
