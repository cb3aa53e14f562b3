"""The package reads from the ground up (docs/architecture.md): every import, at the top of a
module or inside a function, runs downward through the layers, never in a circle, and never
takes a private name from another module. Function-level smsim imports are kept to the command
line (which stays light to start) and the lazy package ``__init__``."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import smsim

PACKAGE = Path(smsim.__file__).parent

# from the ground up; a module belongs to the layer of its longest matching prefix
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "facts",
        (
            "smsim.errors",
            "smsim.layout",
            "smsim.rules",
            "smsim.stats",
            "smsim.intervals",
            "smsim._cache",
            "smsim.checks",
            "smsim.files",
        ),
    ),
    ("engine", ("smsim.engine",)),
    ("policies", ("smsim.policies",)),
    ("play", ("smsim.play",)),
    ("runs", ("smsim.runs",)),
    ("studies", ("smsim.studies",)),
    ("report", ("smsim.report",)),
    ("tools", ("smsim.warmup",)),
    ("cli", ("smsim.cli",)),
]
ROOT = "smsim"  # the package's __init__: loads only the facts, and the public API lazily (importlib)
EXECUTORS = "smsim.runs.executors"  # know nothing of what they run: the facts only
MAX_TOP_MODULES = 10
MAX_CLI_LINES = 600


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the smsim module imported
    name: str | None  # the name taken from it (from X import name), if any
    in_function: bool
    line: int


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _top_level(tree: ast.Module) -> set[int]:
    """The import statements that run when the module loads (under if/try/with too)."""
    top, todo = set(), list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top.add(id(node))
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.ExceptHandler)):
            todo.extend(ast.iter_child_nodes(node))
    return top


def imports(package: Path = PACKAGE) -> list[Import]:
    mods = modules(package)
    root = package.name
    out = []
    for module, path in mods.items():
        tree = ast.parse(path.read_text())
        top = _top_level(tree)
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [(a.name, None) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                targets = [(f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base, a.name) for a in node.names]
            else:
                continue
            for target, name in targets:
                if target != root and not target.startswith(root + "."):
                    continue
                while target not in mods:
                    target = target.rpartition(".")[0]
                if target != module:
                    out.append(Import(module, target, name, id(node) not in top, node.lineno))
    return out


def layer(module: str) -> int:
    if module == ROOT:
        return 0
    best, length = None, -1
    for k, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = k, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def problems(package: Path = PACKAGE) -> list[str]:
    """Every breach of the layering, one line each (empty: the package reads from the ground up)."""
    found = []
    all_imports = imports(package)
    edges: dict[str, set[str]] = {}
    for imp in all_imports:
        edges.setdefault(imp.module, set()).add(imp.target)
        where = f"{imp.module}:{imp.line}"
        if layer(imp.target) > layer(imp.module):
            found.append(f"{where} imports {imp.target}, a higher layer ({LAYERS[layer(imp.target)][0]})")
        if imp.module.startswith(EXECUTORS) and not imp.target.startswith(EXECUTORS) and layer(imp.target) > 0:
            found.append(f"{where}: an executor imports {imp.target}; executors know only the tasks they are handed")
        if imp.name and imp.name.startswith("_") and not imp.name.startswith("__"):
            found.append(f"{where} takes the private name {imp.name} from {imp.target}")
        if imp.in_function and not (imp.module == ROOT or imp.module.startswith("smsim.cli")):
            found.append(f"{where} imports {imp.target} inside a function")
    for component in circles(edges):
        found.append("a circle: " + ", ".join(component))
    return found


def test_imports_run_only_downward_without_circles_or_private_names():
    assert problems() == []


def test_at_most_ten_modules_at_the_top():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top


def test_no_command_line_module_is_long():
    for path in (PACKAGE / "cli").glob("*.py"):
        assert len(path.read_text().splitlines()) <= MAX_CLI_LINES, path.name


def test_every_subpackage_says_what_it_is_and_what_it_may_import():
    for init in PACKAGE.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc, init
        if init.parent != PACKAGE:
            assert "May import" in doc, init


@pytest.fixture
def sample(tmp_path):
    """A tiny package with one of each breach, to show the checks can fail."""
    pkg = tmp_path / "smsim"
    for sub in ("engine", "play", "runs", "runs/executors", "cli"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text('"""x"""\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "layout.py").write_text("X = 1\n")
    (pkg / "engine" / "game.py").write_text("from smsim.play import loop\n")  # upward
    (pkg / "play" / "loop.py").write_text("from smsim.engine.game import _secret\n")  # private, circle
    (pkg / "runs" / "executors" / "local.py").write_text("from smsim.engine import game\n")  # executor
    (pkg / "runs" / "batch.py").write_text("def f():\n    from smsim import layout\n")  # in a function
    (pkg / "cli" / "main.py").write_text("def f():\n    from smsim.runs import batch\n")  # allowed
    return pkg


def test_the_checks_see_each_kind_of_breach(sample):
    found = "\n".join(problems(sample))
    assert "smsim.engine.game:1 imports smsim.play.loop, a higher layer (play)" in found
    assert "takes the private name _secret" in found
    assert "a circle: smsim.engine.game, smsim.play.loop" in found
    assert "an executor imports smsim.engine.game" in found
    assert "smsim.runs.batch:2 imports smsim.layout inside a function" in found
    assert "smsim.cli" not in found
