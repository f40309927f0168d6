"""The one jit policy every fastdyn kernel is compiled with.

- ``cache=True``: compiled machine code is written to disk so a second process does not
  recompile. Opt out with the environment variable ``FASTDYN_NO_CACHE=1`` (read once, at import),
  e.g. for short-lived worker processes on a read-only file system where even the fallback
  directory is unwanted.
- ``error_model="numpy"``: division by zero gives inf/nan instead of raising inside a kernel
  (no Python exception machinery in the hot loop); the object API checks inputs and outputs.
- ``fastmath=False``: results must match Pinocchio to 1e-12; reassociation would break that.
- ``boundscheck=False``: inputs are validated once at the Python boundary.

Cache validity: a cached function is reused only if the whole kernels/ source tree is unchanged
(see ``_tree_stamp``), not just its own file.

Cache location: numba tries ``NUMBA_CACHE_DIR``, then ``__pycache__`` beside the source, then the
user-wide cache directory. When all of these are unwritable (read-only site-packages and HOME),
numba raises ``RuntimeError`` at decoration time; fastdyn then falls back to a per-user directory
under the system temporary directory instead of failing the import.
"""

import hashlib
import os
import tempfile

import numba
from numba.core import caching

CACHE = os.environ.get("FASTDYN_NO_CACHE", "0").lower() in ("0", "", "false", "no")


def user_temp_dir(name: str) -> str:
    """``<tmp>/<name>-<user>``: a per-user directory for caches that have nowhere better to go
    (also fastdyn.codegen's fallback)."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return os.path.join(tempfile.gettempdir(), f"{name}-{user}")


class _TempDirLocator(caching.UserProvidedCacheLocator):
    """Last-resort cache locator: ``<tmp>/fastdyn-numba-cache-<user>/``."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        root = user_temp_dir("fastdyn-numba-cache")
        self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        # Skip UserProvidedCacheLocator's NUMBA_CACHE_DIR test: this locator is the fallback.
        return caching._SourceFileBackedLocatorMixin.from_function.__func__(cls, py_func, py_file)


def _tree_stamp(root: str | None = None) -> str:
    """Content hash of every kernel source file. Numba stamps a cached function with its own
    file only, so a kernel whose callee (another file) changed would load stale machine code,
    after an edit or a fastdyn upgrade alike; the whole tree's hash closes that hole."""
    h = hashlib.sha256()
    root = root or os.path.dirname(os.path.abspath(__file__))
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                h.update(f.encode())
                with open(os.path.join(d, f), "rb") as fh:
                    h.update(fh.read())
    return h.hexdigest()


_TREE = _tree_stamp()


def _stamped(cls):
    def get_source_stamp(self):
        return (cls.get_source_stamp(self), _TREE)

    return type("Fastdyn" + cls.__name__, (cls,), {"get_source_stamp": get_source_stamp})


class _CacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = [_stamped(c) for c in caching.CompileResultCacheImpl._locator_classes
                        + [_TempDirLocator]]


class _FunctionCache(caching.FunctionCache):
    _impl_class = _CacheImpl


_OPTIONS = dict(error_model="numpy", fastmath=False, boundscheck=False, nogil=True)


def jit(func=None, *, parallel=False, inline="never", nrt=False):
    """Compile ``func`` with fastdyn's policy; usable as ``@jit`` or ``@jit(parallel=True)``.

    ``nrt=False`` (the default) compiles without numba's reference-counting runtime. Kernels
    never allocate, and with the runtime on, every call between kernels that is not inlined
    increments and decrements the reference count of each array argument (atomic operations):
    on UR5 forward kinematics that cost 3x (584 ns -> 179 ns per evaluation). A kernel that
    must allocate (or a parallel one: numba's prange machinery needs the runtime) says
    ``nrt=True``. ``inline="always"`` inlines at numba IR level; measured slower than LLVM's
    own inlining here, so use it only where a measurement says so.
    """

    def wrap(f):
        disp = numba.njit(parallel=parallel, inline=inline, _nrt=nrt or parallel,
                          **_OPTIONS)(f)
        if CACHE and not numba.config.DISABLE_JIT:  # (pure-Python mode has nothing to cache)
            # What Dispatcher.enable_caching does, with the fallback locator appended.
            disp._cache = _FunctionCache(disp.py_func)
        return disp

    return wrap if func is None else wrap(func)
