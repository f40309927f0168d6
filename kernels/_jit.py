"""The one jit policy every fastdyn kernel is compiled with.

- ``cache=True``: compiled machine code is written to disk so a second process does not
  recompile. Opt out with the environment variable ``FASTDYN_NO_CACHE=1`` (read once, at import):
  every process then compiles what it uses. ``FASTDYN_CACHE_READONLY=1`` loads without writing
  (see "Read-only caches" below).
- ``error_model="numpy"``: division by zero gives inf/nan instead of raising inside a kernel
  (no Python exception machinery in the hot loop); the object API checks inputs and outputs.
- ``fastmath={"contract"}``: LLVM may fuse a multiply and an add into one fused multiply-add
  (one rounding instead of two, IEEE 754's fusedMultiplyAdd); nothing else of fast-math:
  no reassociation, no assumptions about NaN, inf or signed zeros, so results still match
  Pinocchio to 1e-12 and NaN still reaches the checks. Measured on this project's 2-core
  machine (AMD EPYC, AVX2 + FMA): generic RNEA / ABA / RNEA derivatives 3-8 % faster,
  generated ABA 5-11 % (UR5 to Talos). Bits differ from a build without FMA in the last
  place; the same kernel gives the same bits on a machine, which is what the tests that
  compare bits (batch rows against single calls, rollouts across thread counts) rely on.
- ``boundscheck=False``: inputs are validated once at the Python boundary.
- Typing: importing this module makes numba remember how it typed each scalar operation
  (_typing_memo.py: a generated module's compile 2x faster; ``FASTDYN_TYPING_MEMO=0`` opts out).

Cache validity: a cached function is reused only if the whole kernels/ source tree is unchanged
(see ``_tree_stamp``), not just its own file.

Cache location: numba tries ``NUMBA_CACHE_DIR``, then ``__pycache__`` beside the source, then the
user-wide cache directory. When all of these are unwritable (read-only site-packages and HOME),
numba raises ``RuntimeError`` at decoration time; fastdyn then falls back to a per-user directory
under the system temporary directory instead of failing the import. That directory's name is
predictable and what is in it runs in this process (numba's index files are pickles), so it must
be private (``private_dir``); if it is not, or cannot be made, kernels compile in memory only and
one ``CacheWarning`` says why.

Read-only caches: a cache filled ahead of time (``fastdyn compile`` at install or image-build
time) is loaded from even where it cannot be written: numba itself skips a directory it cannot
write to, so each of its locators gets a read-only twin, tried right after it, that takes the
same directory when it already holds cached kernels (``.nbi`` index files) and either cannot be
written or ``FASTDYN_CACHE_READONLY=1`` says this process must not write (worker pools sharing
one cache). Nothing is saved there; a kernel missing from it compiles in memory, with one
``CacheWarning`` naming the directory.

Cache damage: a cache file that cannot be read (truncated by a full disk, garbled) is a miss, not
an error: it is deleted, the kernel recompiles and numba writes a fresh entry; one
``CacheWarning`` per process names the file.
"""

import hashlib
import importlib
import os
import pkgutil
import re
import stat
import tempfile
import warnings

import numba
from numba.core import caching

from . import _typing_memo

_typing_memo.install()  # scalar operations typed once per process (_typing_memo.py)

CACHE = os.environ.get("FASTDYN_NO_CACHE", "0").lower() in ("0", "", "false", "no")
READ_ONLY = os.environ.get("FASTDYN_CACHE_READONLY", "0").lower() not in ("0", "", "false", "no")


class CacheWarning(UserWarning):
    """The compiled-code cache was bypassed or repaired; results are unaffected."""


class UnsafeCacheDirError(PermissionError):
    """A fallback cache directory that someone else could write to (see ``private_dir``)."""


_warned: set[str] = set()


def _warn_once(kind: str, message: str) -> None:
    # One per kind and process: one cause would otherwise repeat for each of ~200 kernels.
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(message, CacheWarning, stacklevel=3)


def user_temp_dir(name: str) -> str:
    """``<tmp>/<name>-<user>``: a per-user directory for caches that have nowhere better to go
    (also fastdyn.codegen's fallback). Its name is guessable: use it through ``private_dir``."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return os.path.join(tempfile.gettempdir(), f"{name}-{user}")


def private_dir(path: str, setting: str) -> str:
    """Create ``path`` with mode 0700, or check the directory already there; return ``path``.

    For directories under the shared temp directory: anyone can create ``path`` before our first
    run, and whoever can write to it runs code in this process (numba's cache index is a pickle,
    codegen imports its modules from it). So it must be a real directory (not a symlink to
    someone's), owned by us and not writable by group or others, each time it is used; otherwise
    ``UnsafeCacheDirError`` says what is wrong and names ``setting``, the environment variable
    that moves the cache elsewhere. (On Windows the temp directory is per-user already and modes
    do not describe ACLs: only the symlink test applies there.)"""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    else:
        os.chmod(path, 0o700)  # the umask may have taken the owner's own bits away
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        _refuse(path, [f"it is a symbolic link (to {os.readlink(path)})"], setting)
    _refuse(path, _foreign(st, owners=(os.getuid(),) if hasattr(os, "getuid") else ()), setting)
    return path


def trusted_dir(path: str, setting: str) -> str:
    """Check a directory that code is imported from, named by the user (``setting``); return it.

    Unlike ``private_dir``'s temp directory, the user chose this one, so a symbolic link is
    followed and the directory may be root's (a cache filled at image-build time). What is
    checked is what decides who runs code here: the directory and its ``__pycache__`` (where
    Python's ``.pyc`` files and numba's index pickles go) must be directories owned by us or by
    root, and not writable by group or others; otherwise ``UnsafeCacheDirError`` names the
    directory, what is wrong and ``setting``."""
    owners = (os.getuid(), 0) if hasattr(os, "getuid") else ()
    for d in (path, os.path.join(path, "__pycache__")):
        try:
            st = os.stat(d)
        except FileNotFoundError:
            continue  # __pycache__ not made yet: Python makes it inside the checked directory
        _refuse(d, _foreign(st, owners), setting)
    return path


def _foreign(st: os.stat_result, owners: tuple) -> list[str]:
    """What lets someone other than ``owners`` put files in the directory ``st`` describes."""
    if not stat.S_ISDIR(st.st_mode):
        return ["it is not a directory"]
    problems = []
    if owners:  # POSIX
        if st.st_uid not in owners:
            problems.append(f"it is owned by uid {st.st_uid}, not by you (uid {os.getuid()})")
        if st.st_mode & 0o022:
            problems.append(f"its mode {stat.S_IMODE(st.st_mode):04o} lets group or others "
                            f"write to it")
    return problems


def _refuse(path: str, problems: list[str], setting: str) -> None:
    if problems:
        raise UnsafeCacheDirError(
            f"refusing the cache directory {path}: {'; '.join(problems)}. Code cached there runs "
            f"in this process, so it must be yours alone: remove it (it is recreated writable by "
            f"you alone), or set {setting} to a private directory")


class _TempDirLocator(caching.UserProvidedCacheLocator):
    """Last-resort cache locator: ``<tmp>/fastdyn-numba-cache-<user>/``, private."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._root = user_temp_dir("fastdyn-numba-cache")
        self._cache_path = os.path.join(self._root, self.get_suitable_cache_subpath(py_file))

    def ensure_cache_path(self):
        # numba calls this when choosing the locator and before every save.
        private_dir(self._root, "NUMBA_CACHE_DIR")
        super().ensure_cache_path()

    @classmethod
    def from_function(cls, py_func, py_file):
        # Not numba's "return None on OSError": this is the last resort and jit() reports why it
        # failed. Nor UserProvidedCacheLocator's NUMBA_CACHE_DIR test: this is the fallback.
        if not os.path.exists(py_file):
            return None
        self = cls(py_func, py_file)
        self.ensure_cache_path()
        return self


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


def _holds_kernels(path: str) -> bool:
    try:
        return any(name.endswith(".nbi") for name in os.listdir(path))
    except OSError:
        return False


def _read_only(cls):
    """``cls``'s directory as a cache to load from only (see "Read-only caches" above)."""

    def ensure_cache_path(self):
        path = self.get_cache_path()
        if not (os.path.isdir(path) and _holds_kernels(path)
                and (READ_ONLY or not os.access(path, os.W_OK))):
            raise OSError(f"{path} is not a read-only cache")  # numba: try the next locator

    return type("ReadOnly" + cls.__name__, (cls,),
                {"ensure_cache_path": ensure_cache_path, "read_only": True})


def _locators(classes):
    out = []
    for c in classes:
        if READ_ONLY:  # never numba's writable locator: only the read-only twin may take it
            out.append(_read_only(c))
        else:
            out += [c, _read_only(c)]
    return out


class _CacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = [_stamped(c) for c in _locators(
        caching.CompileResultCacheImpl._locator_classes + [_TempDirLocator])]


class _IndexDataCacheFile(caching.IndexDataCacheFile):
    """numba's index and data files, where a file that cannot be unpickled is a miss: numba
    raises, so one damaged file would fail the first call of that kernel in every process."""

    def _load_index(self):
        try:
            return super()._load_index()
        except Exception as e:  # unpickling garbage can raise almost anything
            _discard(self._index_path, e)
            return {}

    def _load_data(self, name):
        try:
            return super()._load_data(name)
        except OSError:
            raise  # numba's load() already treats a missing data file as a miss
        except Exception as e:
            _discard(self._data_path(name), e)
            return None


def _discard(path: str, error: Exception) -> None:
    try:
        os.remove(path)
    except OSError:
        pass  # gone already (another process), or not ours to delete: numba overwrites it
    _warn_once("damaged", f"discarded the unreadable numba cache file {path} "
                          f"({type(error).__name__}: {error}); the kernel is recompiled and cached "
                          f"again (further damaged files in this process are discarded silently)")


class FunctionCache(caching.FunctionCache):
    _impl_class = _CacheImpl

    def save_overload(self, sig, data):
        if getattr(self._impl.locator, "read_only", False):
            _warn_once("readonly", f"kernels missing from the read-only cache "
                                   f"{self._cache_path} compile in memory, in every process "
                                   f"that needs them; fill the cache where it can be written "
                                   f"(fastdyn compile, with the same NUMBA_CACHE_DIR)")
            return
        super().save_overload(sig, data)

    def __init__(self, py_func):
        super().__init__(py_func)
        f = self._cache_file
        self._cache_file = _IndexDataCacheFile(self._cache_path, self._impl.filename_base,
                                               f._source_stamp)


_OPTIONS = dict(error_model="numpy", fastmath={"contract"}, boundscheck=False, nogil=True)


_KERNELS = []  # every function jit() compiled, for clear_cache


def clear_cache() -> tuple[int, int]:
    """Delete the cached machine code of every kernel compiled with ``jit`` (all of
    fastdyn.kernels, which this imports, and the generated modules imported so far); return how
    many (index files, data files) went. Only each kernel's own index and data files are
    removed, never a directory: a cache directory also holds ``.pyc`` files or, under
    ``NUMBA_CACHE_DIR``, other packages' caches. The files are looked for where this process's
    locators put them, so run it with the ``NUMBA_CACHE_DIR`` of the processes that wrote them."""
    for mod in pkgutil.walk_packages([os.path.dirname(__file__)], __package__ + "."):
        importlib.import_module(mod.name)  # `import fastdyn` leaves a few kernel modules out
    index = data = 0
    for f in _KERNELS:
        try:
            cache = FunctionCache(f)
        except (OSError, RuntimeError):  # no usable cache directory: nothing was cached
            continue
        folder, stem = cache.cache_path, cache._impl.filename_base
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue
        for name in names:
            is_index = name == stem + ".nbi"
            if is_index or re.fullmatch(re.escape(stem) + r"\.\d+\.nbc", name):
                try:
                    os.remove(os.path.join(folder, name))
                except FileNotFoundError:  # another process cleared it first
                    continue
                index += is_index
                data += not is_index
    return index, data


def _refuse_borrowed_returns(disp) -> None:
    """Make ``disp`` refuse, as it compiles (or loads from the cache), a signature whose result
    holds an array.

    Without the runtime a kernel returns its arrays (e.g. views of a buffer) without taking a
    reference to their memory, and a caller compiled with the runtime (a parallel kernel, or
    any user's ``@njit`` function) releases one at its end: the buffer is freed while its owner
    still holds it, and the heap is corrupted (seen as "malloc(): unaligned tcache chunk
    detected" on the caller's next allocation). Such a helper must say ``inline="always"``
    (it then compiles into its caller, under the caller's runtime) or ``nrt=True``."""
    add = disp.add_overload

    def add_overload(cres):
        ret = cres.signature.return_type
        if cres.target_context.data_model_manager[ret].contains_nrt_meminfo():
            raise TypeError(f"fastdyn kernel {disp.py_func.__module__}."
                            f"{disp.py_func.__qualname__} returns {ret}, which holds arrays, but "
                            f"is compiled without numba's runtime: a caller with the runtime "
                            f"would free memory it does not own. Declare it "
                            f'@jit(inline="always") or @jit(nrt=True).')
        add(cres)

    disp.add_overload = add_overload


def jit(func=None, *, parallel=False, inline="never", nrt=False):
    """Compile ``func`` with fastdyn's policy; usable as ``@jit`` or ``@jit(parallel=True)``.

    ``nrt=False`` (the default) compiles without numba's reference-counting runtime. Kernels
    never allocate, and with the runtime on, every call between kernels that is not inlined
    increments and decrements the reference count of each array argument (atomic operations):
    on UR5 forward kinematics that cost 3x (584 ns -> 179 ns per evaluation). A kernel that
    must allocate (or a parallel one: numba's prange machinery needs the runtime) says
    ``nrt=True``. ``inline="always"`` inlines at numba IR level; measured slower than LLVM's
    own inlining here, so use it only where a measurement says so (jcalc and the aligned
    revolute joint's calc, which LLVM no longer inlined: joints/jcalc.py), or where a helper
    returns views of a buffer: without the runtime that is refused at compile time
    (``_refuse_borrowed_returns``), inlined it is the caller's code.
    """

    def wrap(f):
        disp = numba.njit(parallel=parallel, inline=inline, _nrt=nrt or parallel,
                          **_OPTIONS)(f)
        if not (nrt or parallel) and inline != "always":
            _refuse_borrowed_returns(disp)
        _KERNELS.append(f)
        if CACHE and not numba.config.DISABLE_JIT:  # (pure-Python mode has nothing to cache)
            # What Dispatcher.enable_caching does, with the fallback locator appended.
            try:
                disp._cache = FunctionCache(disp.py_func)
            except OSError as e:  # the fallback directory is unusable or unsafe
                _warn_once("nodir", f"fastdyn kernels compile without a disk cache (in memory "
                                    f"only, so every process compiles again): {e}")
        return disp

    return wrap if func is None else wrap(func)
