"""Point numba's on-disk cache at a directory named after a hash of the sources jitted code reads.

numba invalidates a cached function only when its own file changes, not when a jitted callee or
a constant in another file does (NUMBA_NOTES.md). So the cache directory is named after a hash
of every module compiled code can depend on, and an edit to any of them starts a fresh cache;
an edit anywhere else (the report, the command line) keeps the compiled engine.

Those modules are found in the source, not listed by hand, so a new module joins by itself:

- a *jit module* imports numba or llvmlite at its top level, or decorates a function with
  something imported from a jit module (``hot_njit`` from ``engine/memory.py``);
- the key covers every jit module and every smsim module they import at their top level,
  transitively (imports inside functions run no jitted code's globals).

Parsing the package takes a few hundred milliseconds, so the module list is remembered beside
the cache, keyed on every source file's size and modification time; a warm start only stats
the files and hashes the listed ones. Must run before numba is imported.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
COMPILERS = ("numba", "llvmlite")  # importing either means the module makes compiled code


def _sources(package_dir: Path) -> dict[str, Path]:
    """Every module of the package by dotted name (``smsim.engine.game``; a package by its own name)."""
    name = package_dir.name
    out = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join([name, *parts])] = path
    return out


def _top_level_imports(tree: ast.Module):
    """Import statements run when the module loads: at its top level, or under a top-level
    ``if``/``try``/``with``, never inside a function or class."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            todo.extend(ast.iter_child_nodes(node))
        elif isinstance(node, ast.ExceptHandler):
            todo.extend(node.body)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module name of a ``from X import ...`` (relative imports included)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


class _Module:
    """What the key needs of one module: the package modules it imports, where each imported
    name comes from, whether it imports a compiler, and the roots of its decorators."""

    def __init__(self, name: str, path: Path, modules: dict[str, Path]) -> None:
        tree = ast.parse(path.read_bytes(), filename=str(path))
        is_package = path.name == "__init__.py"
        self.imports: set[str] = set()
        self.origin: dict[str, str] = {}  # local name -> module it was imported from
        self.compiler = False
        for node in _top_level_imports(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.compiler |= alias.name.split(".")[0] in COMPILERS
                    if alias.name in modules:
                        self.imports.add(alias.name)
                        self.origin[alias.asname or alias.name.split(".")[0]] = alias.name
                continue
            source = _resolve(name, is_package, node)
            self.compiler |= source.split(".")[0] in COMPILERS
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                target = sub if sub in modules else source  # a submodule, or a name defined in source
                if target in modules:
                    self.imports.add(target)
                self.origin[alias.asname or alias.name] = target
        self.decorators: set[str] = set()  # the local names decorators start from
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for dec in node.decorator_list:
                    while isinstance(dec, (ast.Call, ast.Attribute)):
                        dec = dec.func if isinstance(dec, ast.Call) else dec.value
                    if isinstance(dec, ast.Name):
                        self.decorators.add(dec.id)


def jit_modules(package_dir: Path = PACKAGE_DIR) -> list[str]:
    """The package's modules that compiled code can depend on, as paths relative to the package
    directory (POSIX, sorted): the jit modules and every package module they import, transitively."""
    paths = _sources(package_dir)
    info = {name: _Module(name, path, paths) for name, path in paths.items()}
    jit = {name for name, m in info.items() if m.compiler}
    grew = True
    while grew:  # a decorator imported from a jit module (or from numba itself) makes a jit module
        grew = False
        for name, m in info.items():
            if name not in jit and any(
                m.origin.get(d, "").split(".")[0] in COMPILERS or m.origin.get(d) in jit for d in m.decorators
            ):
                jit.add(name)
                grew = True
    keep, todo = set(), sorted(jit)
    while todo:
        name = todo.pop()
        if name not in keep:
            keep.add(name)
            todo.extend(info[name].imports - keep)
    return sorted(paths[name].relative_to(package_dir).as_posix() for name in keep)


def source_hash(package_dir: Path = PACKAGE_DIR, modules: list[str] | None = None) -> str:
    """A hash of the names and bytes of ``modules`` (default: ``jit_modules(package_dir)``)."""
    digest = hashlib.sha256()
    for rel in modules if modules is not None else jit_modules(package_dir):
        digest.update(rel.encode() + b"\0")
        digest.update((package_dir / rel).read_bytes())
    return digest.hexdigest()[:16]


def package_hash(package_dir: Path = PACKAGE_DIR) -> str:
    """``source_hash`` of every module of the package, not only the jit ones: two installs with
    the same hash run the same Python too (how a part is written, not only how it is played).
    The Dask executor compares it between the client and each worker."""
    return source_hash(package_dir, sorted(p.relative_to(package_dir).as_posix() for p in package_dir.rglob("*.py")))


def _remembered_jit_modules(base: str, package_dir: Path) -> list[str]:
    """``jit_modules``, remembered in ``base`` while no source file of the package has changed
    size or modification time (a file per package directory: several checkouts share ``base``)."""
    stamp = {
        path.relative_to(package_dir).as_posix(): [(st := path.stat()).st_mtime_ns, st.st_size]
        for path in sorted(package_dir.rglob("*.py"))
    }
    memo = Path(base) / f"jit-modules-{hashlib.sha256(str(package_dir).encode()).hexdigest()[:12]}.json"
    try:
        saved = json.loads(memo.read_text(encoding="utf-8"))
        if saved["stamp"] == stamp:
            return list(saved["modules"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    modules = jit_modules(package_dir)
    try:  # written aside and renamed into place: a process reading it never sees half a file
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f"{memo.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"stamp": stamp, "modules": modules}), encoding="utf-8")
        os.replace(tmp, memo)
    except OSError:
        pass  # an unwritable cache directory: parse again next time
    return modules


def _setting(name: str) -> str | None:
    """An environment variable's value, or None where it is unset or empty: CI systems and
    container set-ups often leave a variable defined but empty, and that must mean "not set"."""
    value = os.environ.get(name, "").strip()
    return value or None


def configure_cache() -> None:
    """Set ``NUMBA_CACHE_DIR`` (unless the user set it) to ``$SMSIM_CACHE_DIR/<hash>``, or
    ``$XDG_CACHE_HOME/smsim/<hash>``, or ``~/.cache/smsim/<hash>``; an empty variable counts as unset."""
    if _setting("NUMBA_CACHE_DIR"):
        return
    base = _setting("SMSIM_CACHE_DIR") or os.path.join(
        _setting("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "smsim"
    )
    modules = _remembered_jit_modules(base, PACKAGE_DIR)
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, source_hash(PACKAGE_DIR, modules))
    if "numba.core.config" in sys.modules:
        # numba was imported first (a notebook, a test module): it read its settings then, and
        # would put smsim's cache beside the sources, where the check of a cold engine
        # (``engine_compiled``) does not look
        sys.modules["numba.core.config"].reload_config()


ENGINE_ENTRY = "loop.play_games_nb-*.nbi"
"""The cache index of the play loop every batch of games runs: present once the engine is compiled."""
SEARCH_ENTRY = "search.rollout_nb-*.nbi"
"""The search policy's decision, compiled into the play loop for line-ups with a searching seat."""


def cache_dir() -> str:
    """The directory numba caches smsim's machine code in (``configure_cache`` has set it)."""
    return os.environ.get("NUMBA_CACHE_DIR", "")


def engine_compiled(search: bool = False) -> bool:
    """Whether the engine's play loop (with ``search``, the loop of line-ups with a searching
    seat too) is in the on-disk cache, so that a run will not compile it (a first run on a
    machine, or after an edit of the engine, compiles for a while)."""
    cache = cache_dir()
    entries = (ENGINE_ENTRY, SEARCH_ENTRY) if search else (ENGINE_ENTRY,)
    return bool(cache) and all(any(Path(cache).rglob(entry)) for entry in entries)
