"""Package boundaries (STYLE §1): the jitted layers never import pandas, matplotlib or click."""

import ast
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
    names = imported_modules(PACKAGE / "referee.py")
    assert "numba" not in names
    text = (PACKAGE / "referee.py").read_text()
    assert "smsim.engine" not in text and "smsim.policies" not in text


def test_every_lazy_entry_point_resolves():
    """smsim.NAME is the documented function, even after its module was imported directly (a
    submodule of the same name would replace the function on the package)."""
    import importlib

    for name, (module, attr) in smsim._LAZY.items():
        target = getattr(importlib.import_module(module), attr)
        assert getattr(smsim, name) is target, name
        assert getattr(smsim, name) is target, name  # and still after the first access
        assert name in smsim.__all__


def full_imports(path: Path) -> set[str]:
    """Every smsim module a file imports, by its dotted name (``from smsim import x`` counted as
    ``smsim.x``)."""
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return {n for n in names if n.startswith("smsim")}


def test_layers_read_top_to_bottom():
    """engine/ (the rules) knows neither the bots nor the loop; policies/ (who decides) does not
    know the loop; the loop (smsim.play.loop) stands above both."""
    for path in (PACKAGE / "engine").glob("*.py"):
        above = {n for n in full_imports(path) if n.startswith(("smsim.policies", "smsim.play.loop"))}
        assert not above, f"{path.name} imports {above}"
    for path in (PACKAGE / "policies").glob("*.py"):
        above = {n for n in full_imports(path) if n.startswith("smsim.play.loop")}
        assert not above, f"{path.name} imports {above}"


def test_the_layer_test_sees_a_forbidden_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from smsim.policies import heuristics\nfrom smsim import play\n")
    assert {"smsim.policies", "smsim.policies.heuristics", "smsim.play.loop"} <= full_imports(bad)
