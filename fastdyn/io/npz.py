"""Save a Model to a NumPy ``.npz`` file and load it back: arrays, names, gravity, mimic.

No pickle is involved: the file holds the topology and frame records and the parameter table
field by field (``jnt.parent``, ``prm.pi``, ...), names as unicode arrays and a format version,
so a file can be read without trusting it and survives changes of the layouts' field order or
column offsets. Format 1 (before the topology + parameters split: every field under ``jnt.``)
still loads.

Untrusted files: ``load_npz`` reads each member only after its declared sizes (the zip entry's
uncompressed size and the ``.npy`` header's shape and dtype, read from the member's first
bytes) fit the model the file describes (one row per joint, as ``jnt.type`` declares) and the
``max_bytes`` budget, so a zip bomb is refused before anything inflates; integer fields must
be stored as integers; the model is then checked as every Model is (``Model.check``). Every
refusal is a ValueError naming the file and the member, joint or field.

``save_npz`` replaces the file whole (a temporary file beside it, renamed over it): a save that
fails part-way (a full disk) leaves the old file as it was.
"""

from __future__ import annotations

import math
import os
import struct
import zipfile
import zlib
from typing import Callable

import numpy as np

from .._internal import checks as _checks
from .._internal.atomic import replace_file
from ..kernels import layout
from ..model import Model, split_records

MAX_BYTES = 64 * 2**20  # load_npz's default budget: the uncompressed bytes of the members read

FORMAT = 2
_RECORDS = (("jnt", layout.JOINT_DTYPE), ("frm", layout.FRAME_DTYPE))
# A joint as files hold it, topology and parameters (gravity is saved once, not per joint):
# what model.split_records takes apart, for both formats.
_JOINT_FILE_DTYPE = np.dtype(
    [(f, layout.JOINT_DTYPE.fields[f][0]) for f in layout.JOINT_DTYPE.names]
    + [(f, layout.PARAM_DTYPE.fields[f][0]) for f in layout.PARAM_DTYPE.names if f != "gravity"])


def _path(path) -> str:
    try:
        p = os.fspath(path)
    except TypeError:
        raise TypeError(f"path must be a str or an os.PathLike, got "
                        f"{type(path).__name__}") from None
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if not os.path.basename(p):
        raise ValueError(f"path must name a file, got {p!r}")
    return p


def save_npz(model: Model, path) -> None:
    """Write ``model`` to ``path`` (``.npz`` is appended if missing), replacing the file whole:
    a temporary file beside it is written, flushed to disk and renamed over it, so a save that
    fails part-way (a full disk, Ctrl-C) leaves the old file as it was. A file replaced keeps
    its permissions."""
    if not isinstance(model, Model):
        _checks.refuse_mimic(model)  # a MimicModel: say so
        raise TypeError(f"model must be a fastdyn.Model, got {type(model).__name__}")
    path = _path(path)
    if not path.endswith(".npz"):
        path += ".npz"  # as np.savez does with a path
    arrays = {"format": np.array(FORMAT), "name": np.array(model.name),
              "gravity": np.array(model.gravity, dtype=np.float64),
              "joint_names": np.array(model.joint_names, dtype=str),
              "frame_names": np.array(model.frame_names, dtype=str)}
    for key, dtype in _RECORDS:
        rec = getattr(model, key)
        for f in dtype.names:
            arrays[f"{key}.{f}"] = np.ascontiguousarray(rec[f])
    for f in layout.PARAM_DTYPE.names:
        if f != "gravity":  # saved once, above
            arrays[f"prm.{f}"] = np.ascontiguousarray(model.params[f])
    items = sorted(model.mimic.items())
    arrays["mimic_joint"] = np.array([j for j, _ in items], dtype=str)
    arrays["mimic_mimicked"] = np.array([m[0] for _, m in items], dtype=str)
    arrays["mimic_coeffs"] = np.array([m[1:] for _, m in items], dtype=np.float64).reshape(-1, 2)
    replace_file(path, lambda fh: np.savez(fh, **arrays))


def load_npz(path, *, max_bytes: int | None = MAX_BYTES) -> Model:
    """Read a Model written by ``save_npz``; ValueError naming the file and the member, joint
    or field if the file is not one, or if its arrays break an invariant the kernels rely on
    (``Model.check``: sizes and indices, the universe row, finite numbers, rotation matrices,
    limits that are not NaN and not crossed, masses >= 0), so an untrusted file cannot
    make the kernels read or write out of bounds. Integer fields (indices, sizes, type codes)
    must be stored as integers (a parent index stored as 2.7 is refused, not truncated).

    ``max_bytes``: the uncompressed bytes of the members read (64 MiB by default, None for no
    cap). Each member's declared sizes (the zip entry's, and the shape and dtype in its
    ``.npy`` header) are checked against this budget and against the model's own sizes (one
    row per joint, as ``jnt.type`` declares; one per frame, as ``frm.type`` does) before it
    is inflated, so a zip bomb is refused without using its memory."""
    path = _path(path)
    cap = None if max_bytes is None else _checks.integer(max_bytes, "max_bytes", minimum=0)
    with open(path, "rb") as fh:
        if fh.read(6) == b"\x93NUMPY":
            raise ValueError(f"{path}: not a fastdyn model file (a single .npy array)")
        fh.seek(0)
        try:
            zf = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError,
                struct.error):
            raise ValueError(f"{path}: not a fastdyn model file (not an .npz archive)") from None
        with zf:
            return _load(_Archive(zf, path, cap), path)


def _load(z: "_Archive", path: str) -> Model:
    fmt = z.header("format", required=False)
    version = int(z.read("format", (), "iu")) if fmt is not None and fmt[0] == () and \
        fmt[1].kind in "iu" else 0
    if version not in (1, FORMAT):
        raise ValueError(f"{path}: not a fastdyn model file (format 1 or {FORMAT} expected)")
    params = "prm" if version == FORMAT else "jnt"  # format 1 kept them with the joints
    key = lambda f: f"{'jnt' if f in layout.JOINT_DTYPE.names else params}.{f}"  # noqa: E731
    n = z.rows("jnt.type")
    if n < 1:
        raise ValueError(f"{path}: no joints (joint 0, the universe, is missing)")
    names_shape = z.header("joint_names")[0]
    if names_shape != (n,):  # before reading either: which one is the bomb?
        raise ValueError(f"{path}: field 'jnt.type' declares {n} rows (joints) but "
                         f"'joint_names' has shape {names_shape}; refused before reading them")
    joints = _records(z, n, _JOINT_FILE_DTYPE, key, "joints, as 'jnt.type' declares")
    nf = z.rows("frm.type")
    frm = _records(z, nf, layout.FRAME_DTYPE, lambda f: f"frm.{f}",
                   "frames, as 'frm.type' declares")
    g = z.read("gravity", (3,), "iuf", "3 numbers")
    joint_names = z.read("joint_names", (n,), "U", "one name per joint", "str")
    frame_names = z.read("frame_names", (nf,), "U", "one name per frame", "str")
    name = z.read("name", (), "U", "the model's name", "str")
    k = z.rows("mimic_joint")
    mj = z.read("mimic_joint", (k,), "U", "one name per mimic relation", "str")
    mm = z.read("mimic_mimicked", (k,), "U", "one name per mimic relation", "str")
    mc = z.read("mimic_coeffs", (k, 2), "iuf", "(multiplier, offset) per mimic relation")
    mimic = {str(j): (str(m), float(c[0]), float(c[1])) for j, m, c in zip(mj, mm, mc)}
    jnt, prm = split_records(joints, g)
    try:
        return Model(jnt, prm, frm, [str(s) for s in joint_names],
                     [str(s) for s in frame_names], str(name), mimic)
    except ValueError as e:  # the invariants (fastdyn/_internal/invariants.py): say which file
        raise ValueError(f"{path}: {e}") from None


def _records(z: "_Archive", n: int, dtype: np.dtype, key: Callable[[str], str],
             rows: str) -> np.ndarray:
    """``n`` records of ``dtype`` from the file's arrays, field f stored under ``key(f)``;
    ValueError naming a field that is missing or whose shape or dtype does not fit (integer
    fields stored as integers that fit int64)."""
    rec = np.zeros(n, dtype)
    for f in dtype.names:
        integer = rec.dtype[f].kind == "i"
        x = z.read(key(f), rec[f].shape, "iu" if integer else "iuf", rows,
                   "integers (int64)" if integer else "numbers (float64)")
        if integer and x.dtype.kind == "u" and x.size and x.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{z.path}: field {key(f)!r} holds values beyond int64")
        rec[f] = x
    return rec


class _Archive:
    """The .npy members of an open zip file, each read only after its declared sizes are
    checked: its uncompressed size against what is left of ``cap``, and its header (shape and
    dtype) against what the caller expects and against the bytes the member holds."""

    def __init__(self, zf: zipfile.ZipFile, path: str, cap: int | None):
        self.zf, self.path, self.cap, self.left = zf, path, cap, cap
        self.keys = {name[:-4] for name in zf.namelist() if name.endswith(".npy")}

    def _fail(self, key: str, what: str):
        raise ValueError(f"{self.path}: field {key!r} {what}")

    def header(self, key: str, required: bool = True):
        """(shape, dtype, zip entry) from the member's first bytes, or None if it is missing
        and not ``required``; ValueError if it cannot be read or claims more than it holds."""
        if key not in self.keys:
            if not required:
                return None
            raise ValueError(f"{self.path}: field {key!r} missing")
        info = self.zf.getinfo(key + ".npy")
        if self.left is not None and info.file_size > self.left:
            mib = f" ({self.cap / 2**20:g} MiB)" if self.cap >= 2**20 else ""
            self._fail(key, f"declares {info.file_size} bytes uncompressed, more than the "
                            f"{self.left} left of max_bytes={self.cap}{mib}, and was not "
                            f"inflated; if the file really is a model this large, pass a "
                            f"larger max_bytes=... (or max_bytes=None) to load_npz")
        try:
            with self.zf.open(info) as f:
                head = _Capped(f, 65536)  # a header's length is what its first bytes say
                version = np.lib.format.read_magic(head)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(head)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(head)
                else:
                    raise ValueError(f"unsupported .npy version {version}")
        except _READ_ERRORS as e:
            error = f"is not a readable NumPy array ({type(e).__name__}: {e})"
        else:
            error = None
        if error:
            self._fail(key, error)
        if dtype.hasobject:
            self._fail(key, "holds Python objects (pickles), which load_npz never reads")
        if dtype.names is not None or dtype.subdtype is not None:
            self._fail(key, f"has a structured dtype {dtype}, expected plain numbers or str")
        if any(d < 0 for d in shape):
            self._fail(key, f"has a negative size in its shape {shape}")
        size = math.prod(shape) * dtype.itemsize
        if size > info.file_size:
            self._fail(key, f"declares shape {shape} of {dtype} ({size} bytes) but holds only "
                            f"{info.file_size} bytes; refused before reading it")
        return shape, dtype, info

    def rows(self, key: str) -> int:
        """The length of 1-D member ``key``, from its header."""
        shape = self.header(key)[0]
        if len(shape) != 1:
            self._fail(key, f"must be 1-D, got shape {shape}")
        return shape[0]

    def read(self, key: str, shape: tuple, kinds: str, rows: str = "",
             what: str = "") -> np.ndarray:
        """Member ``key``, of ``shape`` and a dtype of one of ``kinds`` (else ValueError, before
        anything is inflated); ``rows`` and ``what`` word what was expected."""
        got, dtype, info = self.header(key)
        if dtype.kind not in kinds:
            self._fail(key, f"has dtype {dtype}; expected {what or 'numbers'}")
        if got != shape:
            self._fail(key, f"has shape {got}, expected {shape} ({rows}); refused before "
                            f"reading it")
        if self.left is not None:
            self.left -= info.file_size
        try:
            with self.zf.open(info) as f:
                x = np.lib.format.read_array(f, allow_pickle=False)
        except _READ_ERRORS as e:
            x, error = None, f"is damaged ({type(e).__name__}: {e})"
        if x is None:
            self._fail(key, error)
        if x.shape != shape or x.dtype != dtype:  # (what the header said)
            self._fail(key, f"read as {x.shape} {x.dtype}, not as its header said")
        return x


# What reading a damaged member raises: NumPy's header and data checks, zipfile's CRC and
# compression errors, deflate's, and the parser's on a hostile header literal.
_READ_ERRORS = (ValueError, TypeError, SyntaxError, RecursionError, OverflowError, EOFError,
                struct.error, zipfile.BadZipFile, zlib.error, NotImplementedError)


class _Capped:
    """A file that refuses to read more than ``limit`` bytes: a member's header, whose length
    field could otherwise make NumPy read gigabytes."""

    def __init__(self, f, limit: int):
        self.f, self.left = f, limit

    def read(self, n: int = -1) -> bytes:
        if n < 0 or n > self.left:
            raise ValueError(f"the .npy header is longer than {self.left} bytes")
        self.left -= n
        return self.f.read(n)
