"""The jit policy: one set of options, a cache keyed on the whole kernel tree, and a fallback
cache directory when the package and user cache directories are read-only."""

import os
import subprocess
import sys
import textwrap

from fastdyn.kernels import _jit


def test_kernels_use_the_policy():
    from fastdyn.kernels.algorithms.rnea import rnea
    assert rnea.targetoptions["error_model"] == "numpy"
    # fused multiply-add only: no reassociation, no finite-math or reciprocal assumptions
    assert set(rnea.targetoptions["fastmath"]) == {"contract"}
    assert rnea.targetoptions.get("boundscheck", False) is False


def test_tree_stamp_changes_when_any_kernel_file_changes(tmp_path):
    import shutil
    root = os.path.dirname(_jit.__file__)
    copy = tmp_path / "kernels"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert _jit._tree_stamp(str(copy)) == _jit._TREE
    callee = copy / "spatial" / "motion.py"  # a callee of every algorithm, in another file
    callee.write_text(callee.read_text() + "\n# edited\n")
    assert _jit._tree_stamp(str(copy)) != _jit._TREE


def test_fallback_when_nothing_is_writable(tmp_path):
    """With NUMBA_CACHE_DIR unset, __pycache__ and the user cache dir unwritable (numba then
    raises 'no locator available'), fastdyn still imports and caches under the temp dir."""
    src = tmp_path / "ro_kernel.py"
    src.write_text(textwrap.dedent("""
        from fastdyn.kernels._jit import jit
        @jit
        def twice(x):
            return 2.0 * x
    """))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    script = textwrap.dedent(f"""
        import os, sys
        from numba.core import caching
        # simulate read-only locations: the standard locators all decline
        for cls in (caching.InTreeCacheLocator, caching.UserWideCacheLocator,
                    caching.UserProvidedCacheLocator):
            cls.from_function = classmethod(lambda cls, f, p: None)
        sys.path.insert(0, {str(tmp_path)!r})
        import ro_kernel
        assert ro_kernel.twice(3.0) == 6.0
        print(ro_kernel.twice._cache._impl.locator.get_cache_path())
    """)
    env = dict(os.environ, TMPDIR=str(tmpdir))
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         timeout=120, cwd=tmp_path)  # not the checkout: import the installed copy
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith(str(tmpdir / "fastdyn-numba-cache-"))
    assert any(p.suffix == ".nbi" for p in tmpdir.rglob("*"))


def test_opt_out_by_environment(tmp_path):
    script = ("import fastdyn.kernels._jit as j; from fastdyn.kernels.algorithms.rnea import rnea;"
              "print(j.CACHE, rnea._cache.__class__.__name__)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=dict(os.environ, FASTDYN_NO_CACHE="1"), timeout=120, cwd=tmp_path)
    assert out.stdout.split() == ["False", "NullCache"], out.stderr


def test_second_process_loads_from_the_cache(tmp_path):
    """A fresh process finds the first one's machine code on disk and compiles nothing."""
    script = ("import numpy as np, fastdyn as fd\n"
              "from fastdyn.kernels.entry.guard import rnea_checked as k\n"
              "m = fd.samples.double_pendulum(); d = m.create_data()\n"
              "fd.rnea(m, d, np.zeros(2), np.zeros(2), np.zeros(2))\n"
              "print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, timeout=300, cwd=tmp_path) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (tuple(int(x) for x in r.stdout.split()) for r in runs)
    assert first == (0, 1)  # compiled (and written to the cache)
    assert second == (1, 0)  # loaded, nothing compiled


@_jit.jit
def _two_views(x):
    return x[1:], x[:1]


def test_a_kernel_without_the_runtime_may_not_return_arrays():
    """Returned views carry no reference to their memory without numba's runtime, and a caller
    with it (users' @njit code, parallel kernels) would free that memory: refused at compile."""
    import numpy as np
    import pytest
    with pytest.raises(TypeError, match=r"_two_views returns .*inline=\"always\""):
        _two_views(np.zeros(3))


def test_buffer_views_serve_a_users_njit_function():
    """The step's buffer helpers return views; a user's @njit function (with the runtime)
    calling them used to free the caller's buffer on return (heap corruption: the process
    aborted on the next call). In a subprocess, so that a regression fails this test only."""
    script = textwrap.dedent("""
        import numba, numpy as np
        from fastdyn.kernels.contact.time_step import buffers, sizes
        from fastdyn.kernels.contact.step_derivatives import derivative_buffers

        @numba.njit
        def fill(fbuf, ibuf, dbuf, nv, npair):
            M = buffers(fbuf, ibuf, nv, npair)[0]
            Aq = derivative_buffers(dbuf, nv)[0]
            M[0, 0] += 1.0
            Aq[0, 0] += 1.0
            return np.ones(4).sum()  # an allocation after the views are released

        rows, nwarm, nf, ni = sizes(3, 2, 1)
        fbuf, ibuf, dbuf = np.zeros(nf), np.zeros(ni, np.int64), np.zeros(1000)
        for _ in range(200):
            fill(fbuf, ibuf, dbuf, 3, 2)
        assert fbuf[0] == 200.0 and dbuf[0] == 200.0, (fbuf[0], dbuf[0])
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
