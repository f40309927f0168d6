"""RESULTS.md's section on bench/test_cold.py: each job's first use from an empty cache."""

from __future__ import annotations

FIRST_USE_TARGET = 10.0  # s, whole process, empty caches (issue 35)
GENERATED_TARGET = 60.0  # s, Talos's generated module with its derivatives


def cold_section(res, tally, fmt_t, table) -> list[str]:
    """The rows of bench/test_cold.py, judged: ``res`` report.Results, ``tally`` report.Tally
    (report.py passes its formatters, as the other sections use them)."""
    jobs = [b["extra_info"] for b in res.doc["benchmarks"]
            if b.get("extra_info", {}).get("measure") == "cold"]
    rows = []
    for x in jobs:  # in the suite's order
        name, what, c = x["algo"], x.get("what", x["algo"]), x.get("compile")
        t = res.get("cold", name, "-", "fastdyn")
        generated = name == "talos_generated"
        bound = GENERATED_TARGET if generated else FIRST_USE_TARGET
        target = "cold generated module <= 60 s" if generated else "cold first use <= 10 s"
        verdict = tally.judge(target, name, t[0], bound)
        rows.append([what, fmt_t(t[0]), fmt_t(c) if c is not None else "-",
                     f"<= {bound:g} s", verdict])
    if not rows:
        return []
    return (["## First use from an empty cache: each job in a fresh process", "",
             "bench/test_cold.py: a fresh interpreter with empty `NUMBA_CACHE_DIR` and "
             "`FASTDYN_CODEGEN_DIR` runs one job, as on a new machine after `pip install .`. "
             "Wall time: the whole process, start to exit (one round each: read it with the "
             "suite's load in Provenance). Compile: the time spent inside numba's outermost "
             "compilations of that process (\"-\": the command compiles on several processes).",
             ""]
            + table(["job", "wall time", "of which compiling", "target", ""], rows))
