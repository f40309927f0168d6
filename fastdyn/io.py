"""Save a Model to a NumPy ``.npz`` file and load it back: arrays, names, gravity, mimic.

No pickle is involved (``np.load(..., allow_pickle=False)``): the file holds the joint and
frame record arrays field by field, names as unicode arrays and a format version, so a file
can be read without trusting it and survives changes of the record layout's field order.
"""

from __future__ import annotations

import os

import numpy as np

from .kernels import layout
from .model import Model

FORMAT = 1
_RECORDS = (("jnt", layout.JOINT_DTYPE), ("frm", layout.FRAME_DTYPE))


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
        if "format" not in keys or int(z["format"]) != FORMAT:
            raise ValueError(f"{path}: not a fastdyn model file (format {FORMAT} expected)")
        recs = {}
        for key, dtype in _RECORDS:
            if f"{key}.type" not in keys:
                raise ValueError(f"{path}: field {key + '.type'!r} missing")
            n = len(z[f"{key}.type"])
            rec = np.zeros(n, dtype)
            for f in dtype.names:
                name = f"{key}.{f}"
                if name not in keys:
                    raise ValueError(f"{path}: field {name!r} missing")
                x = z[name]
                if x.shape != rec[f].shape or x.dtype.kind not in "iuf":
                    raise ValueError(f"{path}: field {name!r} has shape {x.shape} and dtype "
                                     f"{x.dtype}, expected {rec[f].shape}, {rec[f].dtype}")
                rec[f] = x
            recs[key] = rec
        mimic = {str(j): (str(m), float(c[0]), float(c[1])) for j, m, c in
                 zip(z["mimic_joint"], z["mimic_mimicked"], z["mimic_coeffs"])}
        return Model(recs["jnt"], recs["frm"], [str(s) for s in z["joint_names"]],
                     [str(s) for s in z["frame_names"]], z["gravity"], str(z["name"]), mimic)
