"""The repository documents itself: no reference leaves it, and no path it cites is missing.

Every tracked .py, .md and .toml file is read. None may point outside the repository at
documents a clone does not have (the patterns in ``FORBIDDEN``), and every repository path a
docstring, comment or Markdown file cites (a token such as ``kernels/spatial/se3.py`` that starts
with one of the repository's top-level directories and ends in .py, .md, .urdf or .toml) must
name a file the repository has. The README's Conventions section is the project's statement of
its conventions; docstrings cite it, and published sources, rather than files elsewhere.
"""

import ast
import fnmatch
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = (".py", ".md", ".toml")
CITED_SUFFIXES = ("py", "md", "urdf", "toml")

# Written in pieces so that this file does not match its own patterns.
FORBIDDEN = [re.compile(re.escape(s), re.I) for s in
             ("../" + "shared", "shared/" + "seeds", "CONVENTIONS" + ".md", "seed" + " 00")]

URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.I)
_SKIP_DIRS = {"build", "dist", "__pycache__", "node_modules"}


def tracked_files() -> list[str]:
    """Repository-relative paths of the tracked files (git ls-files), or, outside a git
    checkout (an unpacked sdist), of every file below the root but build and cache output."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True, timeout=60).stdout.decode()
        files = [f for f in out.split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.SubprocessError):
        pass
    files = []
    for p in ROOT.rglob("*"):
        rel = p.relative_to(ROOT)
        if p.is_file() and not any(part.startswith(".") or part in _SKIP_DIRS
                                   or part.endswith(".egg-info") for part in rel.parts):
            files.append(rel.as_posix())
    return files


FILES = tracked_files()
TEXT_FILES = sorted(f for f in FILES if f.endswith(SUFFIXES) and (ROOT / f).is_file())
TOP_DIRS = sorted({f.split("/", 1)[0] for f in FILES if "/" in f})
PATH = re.compile(r"(?<![\w./~-])((?:%s)/[\w./{},*-]*?\.(?:%s))(?![\w/-])"
                  % ("|".join(re.escape(d) for d in TOP_DIRS), "|".join(CITED_SUFFIXES)))


def read(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8", errors="replace")


def prose(rel: str, text: str) -> list[tuple[int, str]]:
    """(line, text) of what a reader reads as documentation: a Python file's comments and
    docstrings (any statement that is a bare string), a TOML file's comments, a Markdown file
    whole."""
    if rel.endswith(".md"):
        return [(1, text)]
    if rel.endswith(".toml"):
        return [(n, line.split("#", 1)[1]) for n, line in enumerate(text.splitlines(), 1)
                if "#" in line]
    parts = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                parts.append((tok.start[0], tok.string))
        tree = ast.parse(text)
    except (SyntaxError, tokenize.TokenError) as e:
        pytest.fail(f"{rel}: cannot parse: {e}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            parts.append((node.lineno, node.value.value))
    return parts


def expand(token: str) -> list[str]:
    """Brace expansion, one level per pass: a/{b,c}.py -> a/b.py, a/c.py."""
    m = re.search(r"\{([^{}]*)\}", token)
    if not m:
        return [token]
    return [x for alt in m.group(1).split(",")
            for x in expand(token[:m.start()] + alt + token[m.end():])]


def exists(rel_from: str, path: str, files: set[str]) -> bool:
    """``path`` names a file of the repository: from the root, or (Markdown links) from the
    citing file's directory; a glob must match at least one file."""
    here = Path(rel_from).parent
    candidates = {path, (here / path).as_posix()}
    if any(c in path for c in "*?["):
        return any(fnmatch.filter(files, c) for c in candidates)
    return any(c in files for c in candidates)


def missing_paths(files=None) -> list[str]:
    files = set(FILES if files is None else files)
    bad = []
    for rel in TEXT_FILES:
        for line, chunk in prose(rel, read(rel)):
            chunk = URL.sub(" ", chunk)
            for m in PATH.finditer(chunk):
                token = m.group(1).rstrip(".")
                for path in expand(token):
                    if not exists(rel, path, files):
                        where = line + chunk.count("\n", 0, m.start())
                        bad.append(f"{rel}:{where}: {path}")
    return bad


def forbidden_mentions() -> list[str]:
    bad = []
    for rel in TEXT_FILES:
        for n, line in enumerate(read(rel).splitlines(), 1):
            if any(pat.search(line) for pat in FORBIDDEN):
                bad.append(f"{rel}:{n}: {line.strip()}")
    return bad


def test_scanned_files_are_the_repository():
    assert "README.md" in TEXT_FILES and "pyproject.toml" in TEXT_FILES
    assert any(f.startswith("kernels/") for f in TEXT_FILES)
    assert {"fastdyn", "kernels", "tests"} <= set(TOP_DIRS)


def test_no_reference_outside_the_repository():
    bad = forbidden_mentions()
    assert not bad, ("references to documents outside the repository (cite the README's "
                     "Conventions section or a published source instead):\n" + "\n".join(bad))


def test_cited_repository_paths_exist():
    bad = missing_paths()
    assert not bad, "docs cite repository paths that do not exist:\n" + "\n".join(bad)


def test_readme_states_the_conventions():
    text = read("README.md")
    m = re.search(r"^## Conventions\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "README.md needs a '## Conventions' section"
    section = m.group(1)
    for word in ("linear", "LOCAL_WORLD_ALIGNED", "qw", "gravity", "Ixx"):
        assert word in section, f"the Conventions section should state {word!r}"


# The checks themselves, on made-up input (so that a regex that matches nothing cannot pass).

def test_path_pattern_finds_what_it_should():
    text = ("see kernels/spatial/{se3,nope}.py, fastdyn/none.py and tests/x*.py; "
            "not https://example.org/kernels/gone.py nor ../kernels/gone.py nor a/kernels/b.py")
    found = [t for m in PATH.finditer(URL.sub(" ", text)) for t in expand(m.group(1))]
    assert found == ["kernels/spatial/se3.py", "kernels/spatial/nope.py", "fastdyn/none.py",
                     "tests/x*.py"]
    files = {"kernels/spatial/se3.py", "tests/xy.py"}
    assert [exists("README.md", f, files) for f in found] == [True, False, False, True]


def test_forbidden_patterns_match():
    for s in ("see ../" + "shared/x", "SEED" + " 004", "shared/" + "seeds/a.txt",
              "conventions" + ".md"):
        assert any(p.search(s) for p in FORBIDDEN), s
    assert not any(p.search("seed 1, seeds=(0, 1), random_tree(25, seed=2)") for p in FORBIDDEN)
