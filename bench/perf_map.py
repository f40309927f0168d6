"""Names for the kernels' machine code in a Linux ``perf`` profile: where a step's time goes.

``perf record`` sees numba's compiled kernels as bare addresses. perf reads the names of
JIT-compiled code from /tmp/perf-<pid>.map (one "start size name" line per function), and
this module writes that file from the process's own compiled overloads: each LLVM function
defined in an overload's module, its address from the execution engine, its size up to the
next known address, its name demangled to the kernel's dotted path. Only kernels compiled in
this process have a module to read (a kernel loaded from the disk cache keeps its machine code
only), so profile with an empty cache:

    NUMBA_CACHE_DIR=$(mktemp -d) perf record -F 10000 -o perf.data python my_script.py
    perf report -i perf.data --stdio --sort symbol | grep kernels

with, at the end of my_script.py (after the work to profile):

    from bench.perf_map import write_map; write_map()

The kernels' shares are then read among themselves (the compilation's own samples, numba and
LLVM, are the rest of the profile). Functions inlined into a kernel count as that kernel's.
"""

from __future__ import annotations

import gc
import os

from numba.core.dispatcher import Dispatcher


def demangled(name: str) -> str:
    """numba's mangled name (``_ZN<length><part>...E...``) as the dotted path of its parts,
    up to numba's ABI tags (a part "B<digits>...")."""
    i = 3 if name.startswith("_ZN") else 0
    out = []
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        part = name[j:j + int(name[i:j])]
        if part[:1] == "B" and part[1:2].isdigit():
            break
        out.append(part)
        i = j + len(part)
    return ".".join(out) or name


def symbols() -> dict[int, str]:
    """{address: name} of every function defined in the compiled overloads of this process."""
    found: dict[int, str] = {}
    for obj in gc.get_objects():
        if not issubclass(type(obj), Dispatcher):  # (isinstance would call a dead weakproxy)
            continue
        for cres in list(obj.overloads.values()):
            library = cres.library
            module = getattr(library, "_final_module", None)
            if module is None:
                continue
            for fn in module.functions:
                if fn.is_declaration:
                    continue
                address = library.get_pointer_to_function(fn.name)
                if address:
                    found.setdefault(address, demangled(fn.name))
    return found


def write_map(path: str | None = None) -> str:
    """Write perf's map of this process's kernels (default /tmp/perf-<pid>.map); its path."""
    path = path or f"/tmp/perf-{os.getpid()}.map"
    found = symbols()
    starts = sorted(found)
    with open(path, "w") as f:
        for i, a in enumerate(starts):
            gap = starts[i + 1] - a if i + 1 < len(starts) else 4096
            f.write(f"{a:x} {min(gap, 1 << 20):x} {found[a]}\n")
    return path
