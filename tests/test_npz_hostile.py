"""Model files (.npz) written by an unlucky disk or an attacker: each test here failed on the
code before the fix it names.

- ``save_npz`` over an existing file that fails part-way (a full disk) left it truncated; it
  now writes a temporary file beside it and renames it over the old one.
- A zip bomb (a 4.7 MB file whose ``jnt.type`` inflates to 1 GiB) raised peak memory by
  1 GiB before a MemoryError; ``load_npz`` now refuses from the members' declared sizes.
- Tampered files loaded: lower > upper limits, a parent index stored as the float 2.7 (read as
  2), a parent index of 99 (an IndexError). One check of the model's invariants
  (``fastdyn._internal.invariants``) now runs on every path that makes a Model.
- A seeded fuzz over every member: a file loads, or ``load_npz`` raises ValueError naming the
  file; never another exception.
"""

import errno
import os
import re
import tracemalloc
import zipfile

import numpy as np
import pytest

import fastdyn as fd
from fastdyn.kernels import layout


@pytest.fixture(scope="module")
def small():
    return fd.samples.double_pendulum()


@pytest.fixture(scope="module")
def chain():
    """Four revolute joints: parent index 2 exists for joint 3, q index 2 is joint 3's."""
    return fd.samples.random_tree(4, seed=3, types=("revolute_z",))


def _arrays(model, path) -> dict:
    fd.save_npz(model, path)
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _peak_while(call) -> tuple[int, BaseException | None]:
    """(peak bytes traced by tracemalloc, the exception raised) while ``call()`` runs."""
    tracemalloc.start()
    try:
        call()
        err = None
    except BaseException as e:  # noqa: BLE001 (returned for the test to judge)
        err = e
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, err


# --- 5. a failed save keeps the old file ---------------------------------------------------

def test_a_save_that_fails_half_way_keeps_the_old_file(tmp_path, small, monkeypatch):
    path = tmp_path / "m.npz"
    fd.save_npz(small, path)
    before = path.read_bytes()
    real = np.lib.format.write_array  # what np.savez calls for each member
    written = []

    def full_disk(fid, array, *args, **kwargs):
        written.append(1)
        if len(written) == 6:  # half-way through the members
            fid.write(b"\0" * 100)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fid, array, *args, **kwargs)

    monkeypatch.setattr(np.lib.format, "write_array", full_disk)
    with pytest.raises(OSError, match="No space left"):
        fd.save_npz(small.with_damping(1, 0.5), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["m.npz"]  # the temporary file is gone
    np.testing.assert_array_equal(fd.load_npz(path).prm, small.prm)


def test_a_save_replaces_the_file_and_keeps_its_permissions(tmp_path, small):
    path = tmp_path / "m.npz"
    fd.save_npz(small, path)
    os.chmod(path, 0o600)
    fd.save_npz(small.with_damping(1, 0.5), path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert fd.load_npz(path).damping[0] == 0.5
    assert sorted(os.listdir(tmp_path)) == ["m.npz"]
    os.symlink("m.npz", tmp_path / "link.npz")  # written through, as open() would
    fd.save_npz(small, tmp_path / "link.npz")
    assert os.path.islink(tmp_path / "link.npz") and fd.load_npz(path).damping[0] == 0.0
    os.remove(tmp_path / "link.npz")
    fd.save_npz(small, tmp_path / "new")  # ".npz" appended, as NumPy does
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(tmp_path / "new.npz").st_mode & 0o777 == 0o666 & ~umask


# --- 6. a zip bomb -------------------------------------------------------------------------

def _bomb(path, arrays: dict, key: str, shape: tuple, dtype=np.int64) -> None:
    """``arrays`` as an .npz, but member ``key`` holds zeros of ``shape``, streamed through
    deflate (1 GiB of zeros compress to 4.7 MB)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for k, v in arrays.items():
            if k != key:
                with zf.open(k + ".npy", "w", force_zip64=True) as f:
                    np.lib.format.write_array(f, v)
        with zf.open(key + ".npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {
                "descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                "fortran_order": False, "shape": shape})
            chunk = bytes(2**20)
            left = int(np.prod(shape)) * np.dtype(dtype).itemsize
            while left > 0:
                f.write(chunk[:left])
                left -= len(chunk)


@pytest.fixture(scope="module")
def gib_bomb(tmp_path_factory, small):
    path = tmp_path_factory.mktemp("bomb") / "bomb.npz"
    _bomb(path, _arrays(small, path), "jnt.type", (2**27,))  # 1 GiB of int64
    assert os.path.getsize(path) < 8 * 2**20
    return path


@pytest.mark.parametrize("kwargs, message", [
    ({}, r"'jnt.type' .*1073741952 bytes.* max_bytes"),
    ({"max_bytes": None}, r"'jnt.type' .*134217728 rows.*'joint_names' .*3"),
], ids=["the byte cap", "no cap: the model's own sizes"])
def test_a_zip_bomb_is_refused_before_it_inflates(gib_bomb, kwargs, message):
    peak, err = _peak_while(lambda: fd.load_npz(gib_bomb, **kwargs))
    assert type(err) is ValueError, repr(err)  # the documented error, not a MemoryError
    assert str(gib_bomb) in str(err)
    assert re.search(message, str(err)), str(err)
    assert peak < 4 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_a_member_larger_than_the_model_is_refused_before_it_inflates(tmp_path, small):
    path = tmp_path / "pi.npz"
    _bomb(path, _arrays(small, path), "prm.pi", (small.njoints * 100_000, 10), np.float64)
    peak, err = _peak_while(lambda: fd.load_npz(path))  # 24 MB: under the byte cap
    assert isinstance(err, ValueError) and "'prm.pi'" in str(err), repr(err)
    assert "(300000, 10)" in str(err) and "(3, 10)" in str(err)
    assert peak < 4 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_a_header_that_claims_more_than_its_member_holds_is_refused(tmp_path, small):
    """A 100-byte member whose header declares a 400 MB name: NumPy allocated the array the
    header declares before reading the bytes."""
    path = tmp_path / "m.npz"
    arrays = _arrays(small, path)
    with zipfile.ZipFile(path, "w") as zf:
        for k, v in arrays.items():
            with zf.open(k + ".npy", "w") as f:
                if k != "name":
                    np.lib.format.write_array(f, v)
                    continue
                np.lib.format.write_array_header_1_0(f, {
                    "descr": "<U100000000", "fortran_order": False, "shape": ()})
                f.write(b"x" * 100)
    peak, err = _peak_while(lambda: fd.load_npz(path, max_bytes=None))
    assert isinstance(err, ValueError) and "'name'" in str(err), repr(err)
    assert peak < 4 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_max_bytes_is_checked(tmp_path, small):
    path = tmp_path / "m.npz"
    fd.save_npz(small, path)
    assert fd.load_npz(path, max_bytes=None).njoints == small.njoints
    with pytest.raises(ValueError, match="max_bytes=100"):
        fd.load_npz(path, max_bytes=100)
    for bad in (-1, 1.5, "10"):
        with pytest.raises((TypeError, ValueError), match="max_bytes"):
            fd.load_npz(path, max_bytes=bad)


# --- 7. tampered files and the one invariant check ---------------------------------------

def _tampered(model, path, change) -> str:
    arrays = _arrays(model, path)
    change(arrays)
    np.savez(path, **arrays)
    return path


def _crossed_limits(a):
    a["prm.q_lower"][1, 0], a["prm.q_upper"][1, 0] = 1.0, -1.0


def _float_parent(a):
    a["jnt.parent"] = a["jnt.parent"].astype(np.float64)
    a["jnt.parent"][3] = 2.7


@pytest.mark.parametrize("change, message", [
    (_crossed_limits, r"joint 'j0_revolute_z': position limits lower > upper.*q_lower\[0\] = "
                      r"1 > q_upper\[0\] = -1"),
    (_float_parent, r"'jnt.parent' .*float64.*integer"),
    (lambda a: a["jnt.parent"].__setitem__(3, 99), r"joint 'j\w+': parent 99 .*0\.\.2"),
    (lambda a: a["jnt.parent"].__setitem__(3, -5), r"joint 'j\w+': parent -5 .*0\.\.2"),
    (lambda a: a["jnt.idx_q"].__setitem__(3, 7), r"joint 'j\w+': idx_q 7, expected 2"),
    (lambda a: a["jnt.type"].__setitem__(2, 99), r"joint 'j\w+': unknown type code 99"),
    (lambda a: a["frm.parent_joint"].__setitem__(1, 99), r"frame '\w+': parent joint"),
    (lambda a: a["frm.type"].__setitem__(1, 3), r"frame '\w+': unknown frame type 3"),
    (lambda a: a.update({"jnt.parent": a["jnt.parent"].astype(np.uint64) + 2**63}),
     r"'jnt.parent' .*beyond int64"),
    (lambda a: a.update({"joint_names": np.arange(5)}), r"'joint_names' .*int64"),
    (lambda a: a.update({"mimic_joint": np.array(["j0_revolute_z"]),
                         "mimic_mimicked": np.array(["nope"]),
                         "mimic_coeffs": np.array([[1.0, 0.0]])}), r"mimic .*'nope'"),
    (lambda a: a.update({"mimic_coeffs": np.zeros(0)}), r"'mimic_coeffs' .*\(0, 2\)"),
    (lambda a: a.update({"format": np.array(2.7)}), "not a fastdyn model file"),
], ids=["lower > upper", "float parent", "parent 99", "parent -5", "idx_q", "type",
        "frame parent", "frame type", "uint64 parent", "numeric names", "mimic name",
        "mimic shape", "float format"])
def test_a_tampered_file_is_refused_naming_file_joint_and_field(tmp_path, chain, change,
                                                                message):
    path = _tampered(chain, tmp_path / "m.npz", change)
    with pytest.raises(ValueError, match=message) as e:
        fd.load_npz(path)
    assert e.type is ValueError
    assert str(path) in str(e.value)


def test_with_parameters_and_batches_refuse_crossed_limits(small):
    prm = np.array(small.prm)
    layout.named(prm)[1]["q_lower"][0], layout.named(prm)[1]["q_upper"][0] = 1.0, -1.0
    with pytest.raises(ValueError, match="joint .*: position limits lower > upper"):
        small.with_parameters(prm)
    with pytest.raises(ValueError, match="joint .*: position limits lower > upper"):
        small.with_limits(1, lower=2.0, upper=1.0)
    with pytest.raises(ValueError, match="robot 1, joint .*: position limits lower > upper"):
        fd.parameters.check_parameters(small, np.stack([small.prm, prm]))  # a batch too


def test_a_model_made_from_arrays_raises_value_error_not_index_error(chain):
    jnt = np.array(chain.jnt)
    jnt["parent"][3] = 99
    with pytest.raises(ValueError, match="parent 99"):
        fd.Model(jnt, chain.prm, chain.frm, list(chain.joint_names), list(chain.frame_names))
    jnt = np.array(chain.jnt)
    jnt["nv"][2] = 6  # a revolute joint with six dofs: sizes the kernels would trust
    with pytest.raises(ValueError, match="nq/nv"):
        fd.Model(jnt, chain.prm, chain.frm, list(chain.joint_names), list(chain.frame_names))


def test_an_unpickled_model_is_checked_as_a_new_one(chain):
    import pickle
    state = chain.__getstate__()
    state["jnt"]["parent"][3] = 99
    blob = pickle.dumps(chain)
    m = pickle.loads(blob)
    with pytest.raises(ValueError, match="parent 99"):
        m.__setstate__(state)


# --- the hostile-input fuzz over every member ----------------------------------------------

def _fuzz_model():
    b = fd.ModelBuilder("fuzz")
    root = b.add_joint("root", "freeflyer")
    b.add_body(root, 2.0, inertia=np.eye(3) * 0.1)
    j1 = b.add_joint("a", "revolute_z", root, lower=-1.0, upper=1.0, velocity=2.0, effort=3.0)
    b.add_body(j1, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    j2 = b.add_joint("b", "revolute_y", j1, damping=0.1, friction=0.2)
    b.add_body(j2, 1.0, (0.1, 0, 0), np.eye(3) * 0.01)
    j3 = b.add_joint("c", "continuous", root, axis=(0, 1, 0))
    b.add_body(j3, 0.5, inertia=np.eye(3) * 0.01)
    j4 = b.add_joint("d", "spherical", j3)
    b.add_body(j4, 0.5, inertia=np.eye(3) * 0.01)
    b.add_frame("tool", j2, (np.eye(3), np.array([0.2, 0.0, 0.0])))
    b.set_mimic("b", "a", 2.0, 0.1)
    return b.build()


_DTYPES = (np.float64, np.float32, np.int64, np.int32, np.uint8, np.uint64, np.bool_,
           np.complex128, "<U3", "S2", object)


def _corrupt(rng, x: np.ndarray) -> np.ndarray | None:
    """One random corruption of a member (None: delete it)."""
    kind = rng.integers(9)
    x = np.array(x)
    if kind == 0:
        return None
    if kind == 1:  # another dtype
        dt = _DTYPES[rng.integers(len(_DTYPES))]
        try:
            with np.errstate(invalid="ignore"):  # (inf as an integer)
                return x.astype(dt)
        except (TypeError, ValueError):
            return np.zeros(x.shape, dt)
    if kind == 2:  # another shape
        choice = rng.integers(4)
        if choice == 0:
            return x.reshape(-1)[:1].reshape(()) if x.size else np.array(0)
        if choice == 1:
            return x[None]
        if choice == 2 and x.ndim:
            return x[:-1]
        return np.concatenate([x, x[:1]]) if x.ndim and x.shape[0] else np.zeros((2, 2))
    if x.size == 0:
        return x
    flat = x.reshape(-1)
    i = rng.integers(flat.size)
    if x.dtype.kind == "U":  # names: empty, a duplicate, a very long one
        flat[i] = ("", str(flat[0]), "x" * 1000)[rng.integers(3)]
        return flat.reshape(x.shape)
    if kind == 3 and x.dtype.kind == "f":
        flat[i] = (np.nan, np.inf, -np.inf)[rng.integers(3)]
    elif kind == 4:
        big = (1e308, -1e308, 1e150, 2.0**62) if x.dtype.kind == "f" else (2**62, -2**62,
                                                                             2**31)
        flat[i] = big[rng.integers(len(big))]
    elif kind == 5:
        flat[i] = -abs(flat[i]) - 1
    elif kind == 6:  # a float where an index was
        y = flat.astype(np.float64)
        y[i] += 0.5
        return y.reshape(x.shape)
    else:  # a neighbouring value
        flat[i] = flat[i] + (1 if rng.integers(2) else -1)
    return flat.reshape(x.shape)


def test_fuzz_npz_members(tmp_path):
    """Random corruptions of one or two members at a time: a correct load or ValueError naming
    the file, never another exception (seeded; ~400 files in a few seconds)."""
    model = _fuzz_model()
    path = tmp_path / "f.npz"
    base = _arrays(model, path)
    keys = sorted(base)
    rng = np.random.default_rng(34)
    outcomes = {"loaded": 0, "refused": 0}
    for trial in range(400):
        arrays = dict(base)
        others = [k for k in keys if k != keys[trial % len(keys)]]  # every member, in turn
        for key in [keys[trial % len(keys)], *rng.choice(others, size=rng.integers(2))]:
            y = _corrupt(rng, arrays[key])
            if y is None:
                del arrays[key]
            else:
                arrays[key] = y
        np.savez(path, **arrays)
        try:
            m = fd.load_npz(path)
        except ValueError as e:
            assert str(path) in str(e), (trial, str(e))
            outcomes["refused"] += 1
            continue
        except Exception as e:  # noqa: BLE001
            raise AssertionError(f"trial {trial}: {type(e).__name__}: {e}") from e
        m.check()
        assert m.jnt["parent"].dtype == np.int64
        outcomes["loaded"] += 1
    assert outcomes["loaded"] > 20 and outcomes["refused"] > 200, outcomes
