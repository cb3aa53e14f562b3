"""Package boundaries (STYLE §1): the jitted layers never import pandas, matplotlib or click; the
layers themselves are held by tests/test_layers.py."""

import ast
import os
from pathlib import Path

import smsim

PACKAGE = Path(smsim.__file__).parent
FORBIDDEN = {"pandas", "matplotlib", "click", "rich", "pyarrow"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_and_policies_import_no_pandas_matplotlib_or_click():
    for sub in ("engine", "policies"):
        for path in (PACKAGE / sub).glob("*.py"):
            assert not imported_modules(path) & FORBIDDEN, path


def test_referee_does_not_use_the_jitted_core():
    names = imported_modules(PACKAGE / "play" / "referee.py")
    assert "numba" not in names
    text = (PACKAGE / "play" / "referee.py").read_text()
    assert "smsim.engine" not in text and "smsim.policies" not in text


def test_importing_the_referee_loads_no_jitted_code():
    """Nor through what it imports (the trace reader, play/tracefile.py, included)."""
    import subprocess
    import sys

    code = ("import sys, smsim.play.referee\n"
            "print(' '.join(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite')\n"
            "      or m.startswith(('smsim.engine', 'smsim.policies', 'smsim.play.trace', 'smsim.play.loop'))\n"
            "      and m != 'smsim.play.tracefile'))\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)})  # fmt: skip
    assert done.stdout.split() == []


def test_every_lazy_entry_point_resolves():
    """smsim.NAME is the documented function, even after its module was imported directly (a
    submodule of the same name would replace the function on the package)."""
    import importlib

    for name, (module, attr) in smsim._LAZY.items():
        target = getattr(importlib.import_module(module), attr)
        assert getattr(smsim, name) is target, name
        assert getattr(smsim, name) is target, name  # and still after the first access
        assert name in smsim.__all__
