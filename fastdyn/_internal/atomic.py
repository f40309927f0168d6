"""Replace a file all at once: a reader, a crash or a full disk sees the old file or the new
one, never a part of the new one over the old.

``replace_file(path, write)`` writes through ``write`` into a new file beside ``path`` (same
directory, so the rename stays on one file system), named unguessably and created exclusively
(``O_EXCL``: a planted file or symlink cannot take its place), flushes it to disk and renames
it over ``path`` (``os.replace``, atomic on POSIX and Windows). Any failure (an exception in
``write``, ENOSPC, Ctrl-C) removes the temporary file and leaves ``path`` as it was. For
fastdyn's model files (``save_npz``) and any other file fastdyn writes whole.
"""

from __future__ import annotations

import os
import secrets
import stat
from typing import BinaryIO, Callable

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(
    os, "O_BINARY", 0)


def replace_file(path: str, write: Callable[[BinaryIO], None], mode: int | None = None,
                 follow_symlinks: bool = True) -> str:
    """Write ``path`` whole through ``write(file)`` (module docstring) and return the path
    written. A symlink at ``path`` is followed (its target is replaced, as ``open`` would
    write through it) unless ``follow_symlinks=False`` (the link itself is replaced).
    Permissions: ``mode`` if given, else those of the file replaced, else a new file's (0o666
    less the umask). The temporary file is ``.<name>.<16 hex digits>.tmp`` beside it (a
    crash can leave one: sweep that pattern)."""
    if follow_symlinks and os.path.islink(path):
        path = os.path.realpath(path)
    directory, name = os.path.split(os.path.abspath(path))
    if mode is None:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            pass
        else:
            if stat.S_ISREG(st.st_mode):  # (not a link's 0o777)
                mode = st.st_mode & 0o777
    for _ in range(100):
        # A hidden name with the target's in it: ".m.npz.<16 hex>.tmp", unguessable.
        tmp = os.path.join(directory, f".{name}.{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(tmp, _FLAGS, 0o666)  # the umask applies, as to open(path, "wb")
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free temporary name beside {path}")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())  # on disk before the rename: a crash leaves one whole file
        if mode is not None and not hasattr(os, "fchmod"):
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        raise
    return path
