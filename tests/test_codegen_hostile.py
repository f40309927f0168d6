"""Generated modules are imported as Python, so nothing an attacker controls may become their
code: not a name read from a model file, not a file planted in a cache directory someone else
can write, and a damaged compiled module is discarded rather than trusted or fatal.

Each probe uses a model no other test generates (a unique mass), so its module is imported here
for the first time in this process, and nothing is compiled: importing defines the kernels,
numba compiles them only on a first call."""

import hashlib
import importlib.util
import os
import py_compile
import sys
import warnings
from importlib import _bootstrap_external

import numpy as np
import pytest

import fastdyn as fd
from fastdyn import codegen
from fastdyn.kernels._jit import CacheWarning, UnsafeCacheDirError

FOREIGN_UID = 12345

# Each closes the string or docstring it would land in and runs code if it reached the source.
HOSTILE = [
    '"""\nimport os; open(os.environ["FASTDYN_PWNED"], "w").close()\n"""',
    "'''\nimport os; open(os.environ['FASTDYN_PWNED'], 'w').close()\n'''",
    '\\"\nimport os; open(os.environ["FASTDYN_PWNED"], "w").close()  #',
    "x\r\n__import__('os').system('touch \"$FASTDYN_PWNED\"')\r\n",
    "\u2028\x00\x0c{nq}{0}%s",
]


def _unique_model(mass: float) -> fd.Model:
    """The double pendulum with a mass of its own: a module no other test imports."""
    return fd.samples.double_pendulum().with_inertia(1, mass=mass)


def _renamed(model: fd.Model, name: str) -> fd.Model:
    """``model`` with ``name`` in its own name and in every joint's and frame's."""
    return fd.Model(model.jnt, model.prm, model.frm,
                    [name + str(i) for i in range(model.njoints)],
                    [name + "f" + str(i) for i in range(model.nframes)], name)


@pytest.mark.parametrize("name", HOSTILE)
def test_no_name_reaches_the_generated_source(name, tmp_path, monkeypatch):
    """The model's, joints' and frames' names change nothing in the source (so none can change
    the code), and generating and importing the module runs nothing of theirs."""
    pwned = tmp_path / "pwned"
    monkeypatch.setenv("FASTDYN_PWNED", str(pwned))
    plain = _unique_model(1.0 + HOSTILE.index(name) / 64)
    hostile = _renamed(plain, name)
    assert hostile.name == name and hostile.joint_names[1] == name + "1"
    assert codegen.source(hostile) == codegen.source(plain)
    g = codegen.generate(hostile, ("rnea",), directory=str(tmp_path / "gen"))
    assert name not in open(g.path, encoding="utf-8").read()
    assert not pwned.exists()


def _planted_pyc(py_path: str, marker: str) -> str:
    """A .pyc that Python takes for py_path's (its header names py_path's mtime and size) and
    that creates ``marker`` when imported: what a writer of the directory could plant."""
    st = os.stat(py_path)
    code = compile(f"open({marker!r}, 'w').close()\n", py_path, "exec")
    pyc = importlib.util.cache_from_source(py_path)
    os.makedirs(os.path.dirname(pyc), exist_ok=True)
    with open(pyc, "wb") as fh:
        fh.write(_bootstrap_external._code_to_timestamp_pyc(code, int(st.st_mtime),
                                                            st.st_size))
    return pyc


def _make_unsafe(directory, how):
    if how == "world_writable":
        os.chmod(directory, 0o777)
        return "mode 0777"
    if how == "group_writable_pycache":
        os.chmod(os.path.join(directory, "__pycache__"), 0o775)
        return "mode 0775"
    if os.getuid() != 0:
        pytest.skip("giving a directory to another user needs root")
    os.chown(directory, FOREIGN_UID, FOREIGN_UID)
    return f"owned by uid {FOREIGN_UID}"


@pytest.mark.parametrize("how", ["world_writable", "group_writable_pycache", "foreign_owner"])
@pytest.mark.parametrize("named_by", ["setting", "argument"])
def test_a_codegen_directory_others_can_write_is_refused(how, named_by, tmp_path, monkeypatch):
    """A directory set by FASTDYN_CODEGEN_DIR (or passed as directory=) that holds the genuine
    module and a planted .pyc: refused with the directory, the reason and the remedy named,
    and the planted code never runs."""
    index = ["world_writable", "group_writable_pycache", "foreign_owner"].index(how)
    model = _unique_model(2.0 + index / 8 + (named_by == "setting") / 64)
    gen = tmp_path / "shared"
    gen.mkdir(mode=0o755)
    text = codegen.source(model, ("rnea",))
    py = gen / f"fastdyn_generated_{hashlib.sha256(text.encode()).hexdigest()[:20]}.py"
    py.write_text(text, encoding="utf-8")
    marker = tmp_path / "planted_code_ran"
    pyc = _planted_pyc(str(py), str(marker))
    problem = _make_unsafe(gen, how)
    if named_by == "setting":
        monkeypatch.setenv("FASTDYN_CODEGEN_DIR", str(gen))
        call = lambda: codegen.generate(model, ("rnea",))  # noqa: E731
        setting = "FASTDYN_CODEGEN_DIR"
    else:
        call = lambda: codegen.generate(model, ("rnea",), directory=str(gen))  # noqa: E731
        setting = "directory="
    with pytest.raises(UnsafeCacheDirError) as e:
        call()
    message = str(e.value)
    assert problem in message and setting in message and "remove it" in message, message
    assert str(gen) in message
    assert not marker.exists()
    assert os.path.exists(pyc)  # refused, not "repaired": the directory is not ours to edit


def test_a_private_codegen_directory_named_by_the_setting_is_used(tmp_path, monkeypatch):
    """The check refuses only what others can write: a fresh setting's directory is made
    writable by its owner alone and used, through a symbolic link too."""
    real = tmp_path / "real"
    link = tmp_path / "link"
    real.mkdir(mode=0o755)
    link.symlink_to(real)
    monkeypatch.setenv("FASTDYN_CODEGEN_DIR", str(link / "generated"))
    g = codegen.generate(_unique_model(3.0), ("rnea",))
    assert g.path.startswith(str(link / "generated"))
    assert os.stat(real / "generated").st_mode & 0o022 == 0


@pytest.mark.parametrize("damage", ["truncated", "garbled"])
def test_a_damaged_compiled_module_is_discarded_and_rebuilt(damage, tmp_path):
    """A .pyc cut short (``EOFError: marshal data too short``) or garbled: one CacheWarning
    naming it, the module compiled again from its source, and the next process is clean."""
    model = _unique_model(4.0 + (damage == "garbled") / 8)
    directory = str(tmp_path / "gen")
    first = codegen.generate(model, ("rnea",), directory=directory)
    modname = os.path.splitext(os.path.basename(first.path))[0]
    pyc = importlib.util.cache_from_source(first.path)
    py_compile.compile(first.path, cfile=pyc, doraise=True)
    data = open(pyc, "rb").read()
    with open(pyc, "wb") as fh:  # the 16-byte header stays valid, the code object does not
        fh.write(data[:len(data) // 2] if damage == "truncated"
                 else data[:16] + b"\xff" * (len(data) - 16))
    del sys.modules[modname]  # as in a later process
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        again = codegen.generate(model, ("rnea",), directory=directory)
    [w] = [w for w in seen if issubclass(w.category, CacheWarning)]
    assert pyc in str(w.message) and first.path in str(w.message)
    assert not os.path.exists(pyc) or open(pyc, "rb").read() != data[:len(data) // 2]
    q = np.array([0.3, -0.4])
    tau = again.rnea(model.create_data(), q, np.zeros(2), np.zeros(2))
    assert np.allclose(tau, fd.rnea(model, model.create_data(), q, np.zeros(2), np.zeros(2)),
                       rtol=0, atol=1e-12)


def test_a_module_that_cannot_be_imported_names_its_file(tmp_path):
    """Damage that no recompilation mends (the source itself edited by hand into nonsense,
    while its name still matches): an ImportError naming the file and the way out."""
    model = _unique_model(5.0)
    directory = tmp_path / "gen"
    text = codegen.source(model, ("rnea",))
    first = codegen.generate(model, ("rnea",), directory=str(directory))
    modname = os.path.splitext(os.path.basename(first.path))[0]
    del sys.modules[modname]
    original = codegen._write  # the check that the file's text is the source, bypassed
    try:
        codegen._write = lambda d, f, t: os.path.join(d, f)
        with open(first.path, "w", encoding="utf-8") as fh:
            fh.write(text.replace("def rnea(", "def rnea((", 1))
        with pytest.raises(ImportError, match="could not be imported") as e:
            codegen.generate(model, ("rnea",), directory=str(directory))
    finally:
        codegen._write = original
    assert first.path in str(e.value) and "delete it" in str(e.value)
    assert modname not in sys.modules


def test_fuzzed_names_never_change_the_source():
    """A seeded fuzz of the generated-source surface: 200 names drawn from the characters that
    end strings, comments and lines in Python (quotes, backslashes, CR/LF, U+2028, NUL, braces
    and format specifiers), on the model, its joints and frames; the source stays the plain
    model's, byte for byte."""
    rng = np.random.default_rng(34)
    alphabet = list("\"'\\\r\n\t\x00\x0c{}%#;()=:") + ["\u2028", "\u0085", "import os", "\"\"\""]
    plain = _unique_model(6.0)
    reference = codegen.source(plain)
    for _ in range(200):
        name = "".join(rng.choice(alphabet, size=rng.integers(1, 12)))
        assert codegen.source(_renamed(plain, name)) == reference, repr(name)
