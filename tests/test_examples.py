"""Every example in fastdyn/examples runs, in its short form, in-process, and what it prints is
physically right, not merely printed. Each test names the bug it is there to catch.

The examples run as ``python -m fastdyn.examples.NAME`` too: the last test runs one that way,
from a directory outside the checkout's root, as a user after ``pip install`` would."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.examples import load_mjcf, load_urdf, montecarlo, mpc, rollouts

EXAMPLES = ("rollouts", "montecarlo", "mpc", "load_urdf", "load_mjcf")


def test_every_example_is_listed_and_runnable():
    here = os.path.dirname(fd.examples.__file__)
    files = {f[:-3] for f in os.listdir(here) if f.endswith(".py") and f != "__init__.py"}
    assert files == set(EXAMPLES)
    for name in EXAMPLES:
        assert f"``{name}``" in fd.examples.__doc__
        text = open(os.path.join(here, name + ".py"), encoding="utf-8").read()
        assert 'if __name__ == "__main__":\n    main()' in text
        assert "fastdyn.cli" not in text  # users' code never imports a demo module


def test_rollouts_the_quadruped_lands_and_stands(capsys):
    """Dropped from up to 5 cm, every rollout ends standing: its base within 2 cm of the
    standing height (a contact that pushes the wrong way lets it fall through the ground, a
    PD law with the wrong sign folds its legs), all eight at the same height whatever the drop
    (a bounce not dissipated leaves them apart), and at rest the feet's normal forces carry
    its weight m g to 1 % (contact forces scaled by dt, or a lost foot, miss it)."""
    out = rollouts.main(short=True)
    assert "normal forces carry" in capsys.readouterr().out
    assert (out["status"] == "ok").all()
    h0, final = out["standing_height"], out["final_q"][:, 2]
    assert np.all(np.abs(final - h0) < 0.02), (h0, final)
    assert np.ptp(final) < 1e-3
    assert out["base_height"].min() > 0.5 * h0  # it never collapsed on the way
    assert abs(out["carried"] / out["weight"] - 1) < 0.01
    assert np.abs(out["final_q"][:, 3:7] - out["final_q"][0, 3:7]).max() < 1e-3


def test_montecarlo_the_payload_weighs_and_the_study_is_consistent(capsys):
    """The study's mean peak torque lies inside its own 5-95 % band, and the nominal robot
    (every spread zero) sits near the samples' median; sample 0's peaks equal an RNEA of its
    own parameters along the move (the study's regressor route against the recursion); and the
    payload loads the shoulder: 2 kg at the tool adds at least 2 kg g 0.2 m to its peak over
    the unloaded arm's (a payload added to the wrong body, or not at all, fails)."""
    out = montecarlo.main(short=True)
    assert "peak |tau|" in capsys.readouterr().out
    assert np.all((out["q5"] <= out["mean"]) & (out["mean"] <= out["q95"]))
    big = slice(0, 3)  # the shoulder and elbow: torques of tens of N m
    median = np.median(out["peak"], axis=0)
    assert np.all(np.abs(median - out["nominal"])[big] < 0.25 * (out["q95"] - out["q5"])[big])
    model, Q, V, A = out["model"], out["Q"], out["V"], out["A"]
    tau0 = fd.batch.rnea(model, Q, V, A, pi=out["params"][:1])
    np.testing.assert_allclose(out["peak"][0], np.abs(tau0).max(axis=0), rtol=1e-10,
                               atol=1e-10)
    unloaded = np.abs(fd.batch.rnea(model, Q, V, A)).max(axis=0)
    assert out["nominal"][1] - unloaded[1] > 2.0 * 9.81 * 0.2


def test_mpc_lowers_the_cost_and_approaches_the_target(capsys):
    """iLQR's accepted iterations never raise the cost and cut it by at least 30 %, and the
    arm under MPC gets closer to the target at every tick. A wrong sign or transpose in
    Scene.step_derivatives' A or B points the backward pass the wrong way: the line search
    then finds no lower cost and the plan stalls."""
    out = mpc.main(short=True)
    assert "cost by iteration" in capsys.readouterr().out
    c = out["first_costs"]
    assert np.all(np.diff(c) <= 0) and c[-1] < 0.7 * c[0], c
    d = out["distance"]
    assert np.all(np.diff(d) < 0) and d[-1] < 0.85 * d[0], d


def test_load_urdf_masses_and_gravity_are_the_files(capsys):
    """The arm's mass is the sum of the URDF's <mass> tags but the fixed base's (read here
    with ElementTree: a link lumped twice or lost on a fixed joint changes it), its
    gravity torque is the gradient of its potential energy (central differences), and the
    free-flyer adds 7 coordinates and 6 velocities to the quadruped's 12 joints."""
    out = load_urdf.main(short=True)
    assert "tool0 at" in capsys.readouterr().out
    arm, q = out["arm"], out["q"]
    robot = ET.parse(out["path"]).getroot()
    children = {j.find("child").get("link") for j in robot.iter("joint")}
    moving = [float(link.find("inertial/mass").get("value")) for link in robot.iter("link")
              if link.get("name") in children and link.find("inertial") is not None]
    assert abs(arm.mass.sum() - sum(moving)) < 1e-12  # the root link stays with the world
    data, h = arm.create_data(), 1e-6
    grad = [(fd.compute_potential_energy(arm, data, q + h * e) - fd.compute_potential_energy(arm, data, q - h * e))
            / (2 * h) for e in np.eye(arm.nv)]
    np.testing.assert_allclose(out["gravity"], grad, atol=1e-6)
    legged = out["legged"]
    assert (legged.nq, legged.nv) == (19, 18)


def test_load_mjcf_is_the_pendulum_it_describes(capsys):
    """Inertia about the hinge I_yy + m L^2 (a lost <inertial pos>: I_yy alone), gravity torque
    m g L sin(theta) (a wrong hinge axis or sign: its negative), tip at (-L sin, 0, 1 - L cos)."""
    out = load_mjcf.main(short=True)
    assert "period" in capsys.readouterr().out
    m, L, I, th = load_mjcf.MASS, load_mjcf.LENGTH, load_mjcf.I_YY, out["theta"]
    assert abs(out["M"] - (I + m * L**2)) < 1e-12
    assert abs(out["gravity"] - m * 9.81 * L * np.sin(th)) < 1e-12
    np.testing.assert_allclose(out["tip"], [-L * np.sin(th), 0.0, 1.0 - L * np.cos(th)],
                               atol=1e-12)


@pytest.mark.parametrize("name", ["load_mjcf"])
def test_an_example_runs_as_a_module(name, tmp_path):
    """``python -m fastdyn.examples.NAME`` from another directory: the package resolves and
    the example runs as a script (its ``__main__`` guard calls main)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(fd.examples.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", f"fastdyn.examples.{name}"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "small-oscillation period 1.4326 s" in done.stdout
