"""bench/perf_map.py: the map it writes for perf names each compiled kernel at its own
address (perf then attributes a sample at that address to that kernel)."""

import importlib.util
from pathlib import Path

import numba
import numpy as np


def _perf_map():
    # by path: the repository root is not on sys.path when fastdyn is installed (CI)
    spec = importlib.util.spec_from_file_location(
        "perf_map", Path(__file__).resolve().parents[1] / "bench" / "perf_map.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@numba.njit(cache=False)  # (compiled here: a kernel loaded from the disk cache has no module)
def _summed_squares(x):
    s = 0.0
    for k in range(x.shape[0]):
        s += x[k] * x[k]
    return s


def test_each_kernel_is_named_at_its_address(tmp_path):
    perf_map = _perf_map()
    _summed_squares(np.ones(3))
    cres = next(iter(_summed_squares.overloads.values()))
    name = cres.fndesc.mangled_name
    assert perf_map.demangled(name) == f"{__name__}._summed_squares"
    address = cres.library.get_pointer_to_function(name)
    path = perf_map.write_map(str(tmp_path / "perf-1.map"))
    lines = {int(a, 16): (int(n, 16), s) for a, n, s in
             (line.split(" ", 2) for line in Path(path).read_text().splitlines())}
    size, label = lines[address]
    assert label == f"{__name__}._summed_squares" and 0 < size <= 1 << 20
    starts = sorted(lines)
    assert all(a + lines[a][0] <= b for a, b in zip(starts, starts[1:]))  # no overlaps
