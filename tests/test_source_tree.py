"""A checkout imported directly runs its own kernels (fastdyn/_internal/source_tree.py), also when
an editable install of another checkout (a second git worktree) is on the path."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_checkout_imports_its_own_kernels():
    out = subprocess.run([sys.executable, "-c", "import fastdyn, fastdyn.kernels; "
                          "print(fastdyn.__file__); print(fastdyn.kernels.__file__)"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    package, kernels = (Path(p).resolve() for p in out.stdout.split())
    if package != ROOT / "fastdyn" / "__init__.py":  # e.g. an installed wheel shadows it
        return
    assert kernels == ROOT / "kernels" / "__init__.py"
