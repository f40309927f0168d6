"""Scene.rollout(..., generated=gen): contact-free steps on the model's generated ABA.

Checked against the generic rollouts of the same scene (to 1e-12 relative over a short
horizon: the two differ only by round-off), against an Euler loop of Pinocchio's own ABA and
integrator, on a batch of robots (prm) too; steps the generated kernel cannot take (external
forces, Runge-Kutta, contacts) give the generic results exactly; bad kernels or robots are
refused by name. One generated module per model and test session (they compile slowly)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fastdyn as fd
from fastdyn import codegen
from fastdyn.kernels import layout as L
from conftest import close, get_pair, pin

STEPS = 40
_made = {}


def _bare(name):
    """The robot without damping and dry friction (and a scene without limits or ground):
    no constraint row can arise, so every step is the contact-free ABA step."""
    m, _ = get_pair(name)
    prm = np.array(m.prm)
    prm[1:, L.P_DAMPING:L.P_DAMPING + 6] = 0.0
    prm[1:, L.P_FRICTION:L.P_FRICTION + 6] = 0.0
    return m.with_parameters(prm)


def made(name):
    """(model, its generated kernels, a contact-free scene)."""
    if name not in _made:
        m = _bare(name)
        scene = fd.Scene(m, dt=1e-3, ground=False, limits=False)
        assert scene._free(m.prm[None])  # the step the generated kernel replaces
        _made[name] = m, codegen.generate(m, algorithms=("aba",)), scene
    return _made[name]


def _states(m, n, seed):
    rng = np.random.default_rng(seed)
    Q = np.stack([fd.random_configuration(m, rng) for _ in range(n)])
    if m.joint_type(1) == "freeflyer":
        Q[:, :3] = 0.0
    return Q, 0.3 * rng.normal(size=(n, m.nv)), rng


def _same(a, b, tol=1e-12):
    for x, y in ((a.q, b.q), (a.v, b.v), (a.tau, b.tau)):
        close(x, y, tol)
    assert list(a.status) == list(b.status) == ["ok"] * len(a.status)


@pytest.mark.parametrize("name", ["ur5", "solo12"])
def test_generated_rollouts_equal_the_generic_ones(name):
    """A PD + feed-forward batch: every recorded state and torque as the generic rollout's."""
    m, gen, scene = made(name)
    Q, V, rng = _states(m, 3, 1)
    kw = dict(kp=2.0, kd=0.1, torques=rng.normal(size=(STEPS, m.nv)),
              record=("q", "v", "tau"))
    a = scene.rollout(Q, V, STEPS, **kw)
    b = scene.rollout(Q, V, STEPS, generated=gen, **kw)
    _same(a, b)
    assert np.abs(a.q[:, -1] - a.q[:, 0]).max() > 1e-3  # it moved
    assert not np.array_equal(a.v, b.v)  # another kernel ran: other round-off, not the same bits


def test_generated_rollout_follows_pinocchio():
    """The same steps by Pinocchio: v+ = v + dt aba(q, v, tau), q+ = integrate(q, dt v+)."""
    m, gen, scene = made("ur5")
    from oracle import to_pinocchio
    pm = to_pinocchio(m)
    pd = pm.createData()
    Q, V, rng = _states(m, 1, 2)
    tau = rng.normal(size=m.nv)
    out = scene.rollout(Q[0], V[0], STEPS, torques=tau, generated=gen)
    q, v = Q[0].copy(), V[0].copy()
    for k in range(STEPS):
        v = v + 1e-3 * pin.aba(pm, pd, q, v, tau)
        q = pin.integrate(pm, q, 1e-3 * v)
        close(out.q[k + 1], q, 1e-10)
        close(out.v[k + 1], v, 1e-10)


def test_a_batch_of_robots_reads_each_robots_parameters():
    """prm: masses, inertias and gravity per rollout reach the generated kernel (the rollouts
    differ by robot) and give the generic results; one robot for all rollouts likewise."""
    m, gen, scene = made("solo12")
    n = 3
    Q, V, rng = _states(m, 1, 3)
    Q, V = np.repeat(Q, n, 0), np.repeat(V, n, 0)
    PRM = fd.parameter_batch(m, pi=fd.sample_parameters(m, n, seed=4, mass=0.2),
                             gravity=rng.normal([0.0, 0.0, -9.81], 1.0, (n, 3)))
    outs = []
    for prm in (PRM, PRM[1]):
        a = scene.rollout(Q, V, STEPS, prm=prm, record=("q", "v", "tau"))
        outs.append(scene.rollout(Q, V, STEPS, prm=prm, generated=gen, record=("q", "v", "tau")))
        _same(a, outs[-1])
    many, one = outs
    assert np.abs(many.q[0, -1] - many.q[1, -1]).max() > 1e-6
    close(one.q[0], many.q[1], 1e-12)


def test_steps_the_generated_kernel_does_not_take_are_the_generic_ones():
    """External forces, Runge-Kutta and contact steps go through the generic step: the same
    numbers to the last bit."""
    m, gen, scene = made("ur5")
    Q, V, rng = _states(m, 2, 5)
    fext = rng.normal(size=(m.njoints, 6))
    a, b = (scene.rollout(Q, V, 10, fext=fext, generated=g) for g in (None, gen))
    assert np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)
    rk4 = fd.Scene(m, dt=1e-3, ground=False, limits=False, integrator="rk4")
    a, b = (rk4.rollout(Q, V, 10, generated=g) for g in (None, gen))
    assert np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)
    limited = fd.Scene(m, dt=1e-3, ground=False)  # joint limits: constraint rows
    assert not limited._free(m.prm[None])
    a, b = (limited.rollout(Q, V, 10, generated=g) for g in (None, gen))
    assert np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)


def test_a_singular_step_is_reported_as_the_generic_rollout_reports_it():
    """A massless leaf: the generated ddq is not finite; the step is retaken generically and
    the rollout stops 'singular', naming the dof, as without generated kernels."""
    b = fd.ModelBuilder("massless_leaf")
    j1 = b.add_joint("j1", "revolute_z", 0)
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    b.add_joint("j2", "revolute_y", j1, (np.eye(3), np.array([0.2, 0.0, 0.0])))
    m = b.build()
    scene = fd.Scene(m, ground=False, limits=False)
    gen = codegen.generate(m, algorithms=("aba",))
    outs = []
    for g in (None, gen):
        with pytest.warns(fd.RolloutWarning, match="not positive definite at dof 1"):
            outs.append(scene.rollout(np.zeros(2), np.zeros(2), 5, generated=g))
    assert outs[0].status == outs[1].status == "singular"
    assert outs[0].failures == outs[1].failures


def test_bad_generated_kernels_and_robots_are_refused():
    m, gen, scene = made("ur5")
    _, other, _ = made("solo12")
    Q, V, _ = _states(m, 2, 6)
    with pytest.raises(ValueError, match="made for another model"):
        scene.rollout(Q, V, 2, generated=other)
    with pytest.raises(TypeError, match="generated must be fastdyn.codegen.generate"):
        scene.rollout(Q, V, 2, generated=gen.kernels)
    no_aba = codegen.generate(m, algorithms=("forward_kinematics",))
    with pytest.raises(ValueError, match="have no ABA"):
        scene.rollout(Q, V, 2, generated=no_aba)
    PRM = np.array(fd.parameter_batch(m, gravity=np.tile([0.0, 0.0, -9.81], (2, 1))))
    L.named(PRM)["p"][1, 3, 2] += 1e-3
    with pytest.raises(ValueError, match=f"row 1: robot 1 has another 'p' for joint "
                                         f"'{m.joint_names[3]}'.*generated=None"):
        scene.rollout(Q, V, 2, prm=PRM, generated=gen)
    out = scene.rollout(Q, V, 2, prm=PRM)  # the generic kernels take it
    assert list(out.status) == ["ok", "ok"]


def test_a_second_process_loads_the_generated_callback_and_the_loop_from_disk(tmp_path):
    """The generated ABA's callback (aba_own: the model itself) is cached beside its module
    and the rollout loop is the generic rollouts' own: a second process compiles neither
    (numba's cache debug output shows no save of either)."""
    script = textwrap.dedent("""
        import numpy as np
        import fastdyn as fd
        from fastdyn import codegen
        m = fd.models.load("double_pendulum")
        scene = fd.Scene(m, 1e-3, ground=False, limits=False)
        gen = codegen.generate(m, algorithms=("aba",))
        q0, v0 = fd.neutral(m), np.zeros(m.nv)
        a = scene.rollout(q0, v0, 20, generated=gen)
        b = scene.rollout(q0, v0, 20)
        assert a.status == b.status == "ok"
        assert np.abs(a.final_q - b.final_q).max() < 1e-12
    """)
    env = dict(os.environ, NUMBA_DEBUG_CACHE="1", FASTDYN_CODEGEN_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, timeout=600) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    assert any("saved" in line and "aba_own" in line for line in runs[0].stdout.splitlines())
    saved = [line for line in runs[1].stdout.splitlines()
             if "saved" in line and ("rollout" in line or "aba" in line)]
    assert not saved, saved
