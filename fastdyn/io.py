"""Save a Model to a NumPy ``.npz`` file and load it back: arrays, names, gravity, mimic.

No pickle is involved (``np.load(..., allow_pickle=False)``): the file holds the topology
and frame records and the parameter table field by field (``jnt.parent``, ``prm.pi``, ...),
names as unicode arrays and a format version, so a file can be read without trusting it and
survives changes of the layouts' field order or column offsets. Format 1 (before the
topology + parameters split: every field under ``jnt.``) still loads.
"""

from __future__ import annotations

import os
from typing import Callable

import numpy as np

from .kernels import layout
from . import _checks
from .model import Model, split_records

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
    """Write ``model`` to ``path`` (``.npz`` is appended by NumPy if missing)."""
    if not isinstance(model, Model):
        _checks.refuse_mimic(model)  # a MimicModel: say so
        raise TypeError(f"model must be a fastdyn.Model, got {type(model).__name__}")
    path = _path(path)
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
    np.savez(path, **arrays)


def load_npz(path) -> Model:
    """Read a Model written by ``save_npz``; ValueError if the file is not one, or if its
    arrays break an invariant the kernels rely on (``Model.check``: sizes and indices, the
    universe row, finite numbers, rotation matrices, limits that are not NaN, consistent
    inertias), so an untrusted file cannot make the kernels read or write out of bounds."""
    path = _path(path)
    try:
        z = np.load(path, allow_pickle=False)
    except ValueError:  # NumPy's reading of a file that is neither .npy nor .npz
        raise ValueError(f"{path}: not a fastdyn model file (not an .npz archive)") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise ValueError(f"{path}: not a fastdyn model file (a single .npy array)")
    with z:
        keys = set(z.files)
        version = int(z["format"]) if "format" in keys and z["format"].shape == () else 0
        if version not in (1, FORMAT):
            raise ValueError(f"{path}: not a fastdyn model file (format 1 or {FORMAT} "
                             f"expected)")
        params = "prm" if version == FORMAT else "jnt"  # format 1 kept them with the joints
        joints = _records(z, path, _JOINT_FILE_DTYPE,
                          lambda f: f"{'jnt' if f in layout.JOINT_DTYPE.names else params}.{f}")
        if joints.shape[0] < 1:
            raise ValueError(f"{path}: no joints (joint 0, the universe, is missing)")
        frm = _records(z, path, layout.FRAME_DTYPE, lambda f: f"frm.{f}")
        g = _field(z, path, "gravity")
        if g.shape != (3,) or g.dtype.kind != "f":
            raise ValueError(f"{path}: gravity must be 3 floats, got {g.shape} {g.dtype}")
        mimic = {str(j): (str(m), float(c[0]), float(c[1])) for j, m, c in
                 zip(_field(z, path, "mimic_joint"), _field(z, path, "mimic_mimicked"),
                     _field(z, path, "mimic_coeffs"))}
        jnt, prm = split_records(joints, g)
        return Model(jnt, prm, frm, [str(s) for s in _field(z, path, "joint_names")],
                     [str(s) for s in _field(z, path, "frame_names")],
                     str(_field(z, path, "name")), mimic)


def _records(z, path: str, dtype: np.dtype, key: Callable[[str], str]) -> np.ndarray:
    """Records of ``dtype`` from the file's arrays, field f stored under ``key(f)``, one row
    per entry of the "type" field; ValueError naming a field that is missing or whose shape
    or kind does not fit (the file is untrusted)."""
    rows = _field(z, path, key("type"))
    if rows.ndim != 1:
        raise ValueError(f"{path}: field {key('type')!r} must be 1-D, got shape {rows.shape}")
    rec = np.zeros(rows.shape[0], dtype)
    for f in dtype.names:
        x = _field(z, path, key(f))
        if x.shape != rec[f].shape or x.dtype.kind not in "iuf":
            raise ValueError(f"{path}: field {key(f)!r} has shape {x.shape} and dtype "
                             f"{x.dtype}, expected {rec[f].shape}, {rec[f].dtype}")
        rec[f] = x
    return rec


def _field(z, path: str, name: str) -> np.ndarray:
    if name not in z.files:
        raise ValueError(f"{path}: field {name!r} missing")
    return z[name]
