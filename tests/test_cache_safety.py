"""The compiled-code caches are safe to find on disk: a fallback directory under the shared temp
directory is used only while it is private (what is in it runs in this process), and a damaged
cache file costs one recompilation, not every later run. Each probe is a fresh interpreter with
every cache under tmp_path; most compile a one-line kernel of their own rather than fastdyn's."""

import json
import os
import stat
import subprocess
import sys

import pytest

TINY = """\
from fastdyn.kernels._jit import jit

@jit
def twice(x):
    return 2.0 * x
"""

PROBE = """\
import json, os, sys, warnings
os.umask(int(sys.argv[2], 8))
sys.path.insert(0, sys.argv[1])
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    import tiny
    result = tiny.twice(21.0)
s = tiny.twice.stats
print(json.dumps({"result": result, "hits": sum(s.cache_hits.values()),
                  "misses": sum(s.cache_misses.values()), "path": s.cache_path,
                  "warnings": [str(w.message) for w in seen
                               if w.category.__name__ == "CacheWarning"]}))
"""

CODEGEN_PROBE = """\
import os
os.umask(0)
import fastdyn as fd, fastdyn.codegen as cg
try:
    print("written", cg.generate(fd.samples.double_pendulum(), ("rnea",)).path)
except PermissionError as e:
    print("refused", e)
"""

FOREIGN_UID = 12345


def _run(args, env, tmp_path):
    # cwd: not the checkout, whose fastdyn/ (without kernels/) would shadow the installed one
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "FASTDYN_NO_CACHE", "FASTDYN_CODEGEN_DIR")}
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return dict(env, TMPDIR=str(tmp_path / "tmp"), **extra)


def _nothing_writable_env(tmp_path):
    """Every location numba tries before fastdyn's temp-dir fallback is unusable, even for root:
    no NUMBA_CACHE_DIR, the module's __pycache__ is a file, the user cache dir is under a file.
    The same blocker makes FASTDYN_CODEGEN_DIR unusable."""
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "tiny.py").write_text(TINY)
    (src / "__pycache__").write_text("not a directory")
    (tmp_path / "blocker").write_text("not a directory")
    return _env(tmp_path, XDG_CACHE_HOME=str(tmp_path / "blocker" / "cache"),
                FASTDYN_CODEGEN_DIR=str(tmp_path / "blocker" / "generated"))


def _probe(tmp_path, env, umask=0o022):
    return json.loads(_run(["-c", PROBE, str(tmp_path / "src"), oct(umask)], env,
                           tmp_path).splitlines()[-1])


def _files(root):
    """Every file below root (not following symlinks) with its size and mtime."""
    return {os.path.join(d, f): (os.lstat(os.path.join(d, f)).st_size,
                                 os.lstat(os.path.join(d, f)).st_mtime_ns)
            for d, _, fs in os.walk(root) for f in fs}


def _plant(directory, how, tmp_path):
    """Make ``directory`` (ours, private) look like one another user prepared."""
    if how == "foreign_owner":  # mode 0755: only the owner is wrong
        os.chmod(directory, 0o755)
        os.chown(directory, FOREIGN_UID, FOREIGN_UID)
        return f"owned by uid {FOREIGN_UID}"
    if how == "world_writable":
        os.chmod(directory, 0o777)
        return "mode 0777"
    theirs = tmp_path / "theirs"  # a symlink to a directory that looks fine
    os.rename(directory, theirs)
    os.symlink(theirs, directory)
    return "symbolic link"


def _private(directory):
    st = os.lstat(directory)
    return stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700 \
        and st.st_uid == os.getuid()


@pytest.mark.parametrize("umask", [0o000, 0o277])
def test_a_fresh_kernel_fallback_directory_is_private_and_used(umask, tmp_path):
    """umask 0 would give a plain mkdir mode 0777; 0277 would take the owner's write bit."""
    env = _nothing_writable_env(tmp_path)
    root = tmp_path / "tmp" / f"fastdyn-numba-cache-{os.getuid()}"
    first = _probe(tmp_path, env, umask)
    assert _private(root)
    assert first["path"].startswith(str(root)) and first["warnings"] == []
    assert (first["result"], first["hits"], first["misses"]) == (42.0, 0, 1)
    assert list(root.rglob("tiny.twice-*.nbi"))
    second = _probe(tmp_path, env, umask)
    assert (second["hits"], second["misses"], second["warnings"]) == (1, 0, [])


@pytest.mark.parametrize("how", ["foreign_owner", "world_writable", "symlink"])
def test_an_unsafe_kernel_fallback_directory_is_refused(how, tmp_path):
    """The planted directory holds a valid entry for the kernel (a first run wrote it): the
    refusing run neither loads it (a cache miss) nor writes anything there, compiles in memory,
    and says once what is wrong with which directory and how to fix it."""
    env = _nothing_writable_env(tmp_path)
    root = tmp_path / "tmp" / f"fastdyn-numba-cache-{os.getuid()}"
    assert _probe(tmp_path, env)["misses"] == 1
    problem = _plant(root, how, tmp_path)
    before = _files(tmp_path)
    seen = _probe(tmp_path, env)
    assert (seen["result"], seen["hits"], seen["misses"], seen["path"]) == (42.0, 0, 1, None)
    assert _files(tmp_path) == before
    [warning] = seen["warnings"]
    assert str(root) in warning and problem in warning and "NUMBA_CACHE_DIR" in warning
    assert "remove it" in warning and "without a disk cache" in warning


def test_a_fresh_codegen_fallback_directory_is_private_and_used(tmp_path):
    env = _nothing_writable_env(tmp_path)
    root = tmp_path / "tmp" / f"fastdyn-generated-{os.getuid()}"
    verdict, path = _run(["-c", CODEGEN_PROBE], env, tmp_path).split()
    assert verdict == "written" and path.startswith(str(root)) and os.path.exists(path)
    assert _private(root)
    assert [p.name for p in root.iterdir() if p.suffix == ".tmp"] == []


@pytest.mark.parametrize("how", ["foreign_owner", "world_writable", "symlink"])
def test_an_unsafe_codegen_fallback_directory_is_refused(how, tmp_path):
    env = _nothing_writable_env(tmp_path)
    root = tmp_path / "tmp" / f"fastdyn-generated-{os.getuid()}"
    root.mkdir(mode=0o700)
    problem = _plant(root, how, tmp_path)
    out = _run(["-c", CODEGEN_PROBE], env, tmp_path)
    assert out.startswith("refused") and str(root) in out and problem in out, out
    assert "FASTDYN_CODEGEN_DIR" in out
    assert not list(tmp_path.rglob("fastdyn_generated_*"))


@pytest.mark.parametrize("damage", ["truncated_nbc", "garbled_nbi"])
def test_a_damaged_cache_file_costs_one_recompilation(damage, tmp_path):
    env = _env(tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tiny.py").write_text(TINY)
    assert _probe(tmp_path, env)["misses"] == 1
    [bad] = (tmp_path / "cache").rglob("*.nbc" if damage == "truncated_nbc" else "*.nbi")
    data = bad.read_bytes()
    half = len(data) // 2
    bad.write_bytes(data[:half] if damage == "truncated_nbc" else
                    data[:half] + b"\xff" * (len(data) - half))
    recovered = _probe(tmp_path, env)
    assert (recovered["result"], recovered["hits"], recovered["misses"]) == (42.0, 0, 1)
    [warning] = recovered["warnings"]
    assert str(bad) in warning
    again = _probe(tmp_path, env)  # the recompiled entry was saved and loads silently
    assert (again["result"], again["hits"], again["misses"], again["warnings"]) == (42.0, 1, 0, [])


def test_clear_cache_command_removes_the_kernels_cache_files_only(tmp_path):
    env = _env(tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               FASTDYN_CODEGEN_DIR=str(tmp_path / "generated"))
    compile_one = ("import numpy as np\n"  # a leaf kernel: compiles in about a second
                   "from fastdyn.kernels.spatial.euler import _rz_ry_rx as k\n"
                   "k(0.1, 0.2, 0.3, np.empty((3, 3)))\n"
                   "print(k.stats.cache_path)")
    folder = _run(["-c", compile_one], env, tmp_path).split()[-1]
    assert sorted(os.path.splitext(f)[1] for f in os.listdir(folder)) == [".nbc", ".nbi"]
    others = [os.path.join(folder, "someone_else.f-3.py311.nbi"),
              os.path.join(folder, "someone_else.f-3.py311.1.nbc")]
    for path in others:
        open(path, "w").close()
    out = _run(["-m", "fastdyn", "clear-cache"], env, tmp_path)
    assert "removed 1 index file and 1 data file of compiled kernels" in out, out
    assert sorted(os.path.join(folder, f) for f in os.listdir(folder)) == sorted(others)
