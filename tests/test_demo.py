"""The README's main job: ``fastdyn demo`` runs on a bundled model and says what it did."""

import subprocess
import sys

from fastdyn.cli import main as cli
from fastdyn.cli.demo import run


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
    out = capsys.readouterr().out
    assert "usage: fastdyn" in out and "demo" in out and "clear-cache" in out
    assert "simulate" in out
    assert cli.main(["nosuch"]) == 2
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err


def test_cli_version_and_bad_arguments(capsys):
    import fastdyn
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"fastdyn {fastdyn.__version__}"
    for argv, said in ((["demo", "--model", "nosuch"], "invalid choice: 'nosuch'"),
                       (["demo", "--states", "-3"], "expected a positive whole number, got '-3'"),
                       (["demo", "--steps", "1.5"], "got '1.5'")):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert said in err[-1] and err[-1].startswith("fastdyn demo: error:"), err


def test_module_entry_point(tmp_path):
    out = subprocess.run([sys.executable, "-m", "fastdyn", "--help"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0 and "usage: fastdyn" in out.stdout and "demo" in out.stdout
