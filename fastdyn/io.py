"""Save a Model to a NumPy ``.npz`` file and load it back: arrays, names, gravity, mimic.

No pickle is involved (``np.load(..., allow_pickle=False)``): the file holds the topology
and frame records and the parameter table field by field (``jnt.parent``, ``prm.pi``, ...),
names as unicode arrays and a format version, so a file can be read without trusting it and
survives changes of the layouts' field order or column offsets. Format 1 (before the
topology + parameters split: every field under ``jnt.``) still loads.
"""

from __future__ import annotations

import os

import numpy as np

from .kernels import layout
from .model import Model

FORMAT = 2
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
        recs = {}
        fields = [f for f in layout.PARAM_DTYPE.names if f != "gravity"]
        prm_key = "prm" if version == FORMAT else "jnt"  # format 1 kept them with the joints
        both = np.dtype([(f, layout.PARAM_DTYPE.fields[f][0]) for f in fields])
        for key, dtype in _RECORDS + (("prm", both),):
            src = prm_key if key == "prm" else key
            first = f"{'jnt' if key == 'prm' else key}.type"
            if first not in keys:
                raise ValueError(f"{path}: field {first!r} missing")
            n = len(z[first])
            rec = np.zeros(n, dtype)
            for f in dtype.names:
                name = f"{src}.{f}"
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
        if z["gravity"].shape != (3,) or z["gravity"].dtype.kind != "f":
            raise ValueError(f"{path}: gravity must be 3 floats, got {z['gravity'].shape} "
                             f"{z['gravity'].dtype}")
        prm = np.zeros((recs["jnt"].shape[0], layout.NP))
        named = layout.named(prm)
        for f in fields:
            named[f] = recs["prm"][f]
        named["gravity"][0] = z["gravity"]
        return Model(recs["jnt"], prm, recs["frm"], [str(s) for s in z["joint_names"]],
                     [str(s) for s in z["frame_names"]], str(z["name"]), mimic)
