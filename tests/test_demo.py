"""The README's main job: ``fastdyn demo`` runs on a bundled model and says what it did."""

import subprocess
import sys

from fastdyn import __main__ as cli
from fastdyn.demo import run


def test_demo_reports_what_it_computed(capsys):
    run("quadruped", n_states=200, n_rollouts=4, steps=50)
    out = capsys.readouterr().out
    assert "'quadruped' from models/ (13 joints, nq=19, nv=18)" in out
    assert "inverse dynamics (RNEA)" in out and "forward dynamics (ABA)" in out
    assert "ABA(RNEA(a)) = a to" in out and "real time" in out
    err = float(out.split("ABA(RNEA(a)) = a to ")[1].split()[0])
    assert err < 1e-9  # the demo's own consistency check passed


def test_cli_usage_and_unknown_command(capsys):
    assert cli.main([]) == 0
    assert "usage: fastdyn demo" in capsys.readouterr().out
    assert cli.main(["simulate"]) == 2


def test_module_entry_point(tmp_path):
    out = subprocess.run([sys.executable, "-m", "fastdyn", "--help"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0 and "usage: fastdyn demo" in out.stdout
