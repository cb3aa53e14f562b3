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

Some compiled code goes only into the loops of line-ups that use it: the learned policy and the
search (``PARTS``). A loop compiled with one of them says so in its signature (a namedtuple type
of the part's own: ``LearnedMark`` in the seats, the ``Search`` scratch), so its own modules are
keyed apart: the directory is named after the rest (the *base*), and each compiled function's
entry in numba's index adds the hash of every part its signature or its module brings in
(``part_key``, read by ``engine/memory.py``'s cache). An edit of the learned policy then
recompiles what plays it and leaves a heuristic line-up's loop (and the search's) cached; an
edit of the search leaves the learned policy's own functions; an edit of the base, which every
loop contains, recompiles everything.

Parsing the package takes a few hundred milliseconds, so the module lists are remembered beside
the cache, keyed on every source file's size and modification time; a warm start only stats
the files and hashes the listed ones. Must run before numba is imported.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import sys
from pathlib import Path

from smsim.files import write_file

PACKAGE_DIR = Path(__file__).resolve().parent
COMPILERS = ("numba", "llvmlite")  # importing either means the module makes compiled code

# part -> (the name of the namedtuple type that marks it in a compiled signature, its own modules)
PARTS = {
    "learned": ("LearnedMark", ("policies/learned.py",)),
    "search": ("Search", ("play/search.py", "play/labels.py")),
}


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


@functools.lru_cache(maxsize=512)
def _parse(source: bytes, filename: str) -> ast.Module:
    """A module's syntax tree, parsed once a process for the same text (read only: never changed).
    ``configure_cache`` parses the package once; the key's checks and tests parse copies of it
    that differ in a file or two."""
    return ast.parse(source, filename=filename)


class _Module:
    """What the key needs of one module: the package modules it imports, where each imported
    name comes from, whether it imports a compiler, and the roots of its decorators."""

    def __init__(self, name: str, path: Path, modules: dict[str, Path]) -> None:
        tree = _parse(path.read_bytes(), path.name)
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


def _analyse(package_dir: Path) -> tuple[dict[str, Path], dict[str, _Module], set[str]]:
    """Every module by dotted name, what each imports, and the jit modules (see the docstring)."""
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
    return paths, info, jit


def _closure(start, info: dict[str, _Module], stop: set[str] = frozenset()) -> set[str]:
    """``start`` and every module it imports at its top level, transitively, never entering ``stop``."""
    keep, todo = set(), sorted(set(start) - stop)
    while todo:
        name = todo.pop()
        if name not in keep:
            keep.add(name)
            todo.extend(info[name].imports - keep - stop)
    return keep


def cache_layout(package_dir: Path = PACKAGE_DIR) -> dict:
    """What the cache key is made of, as paths relative to the package directory (POSIX, sorted):
    ``base``, the modules every compiled loop depends on (the jit modules and all they import,
    transitively, but the parts' own); ``parts``, per part of ``PARTS`` the modules it brings in
    beyond the base; ``reads``, per module with compiled code, the parts its own code reads (it
    is one, or imports one)."""
    paths, info, jit = _analyse(package_dir)
    rel = {name: path.relative_to(package_dir).as_posix() for name, path in paths.items()}
    by_rel = {r: name for name, r in rel.items()}
    own = {part: {by_rel[m] for m in modules if m in by_rel} for part, (_, modules) in PARTS.items()}
    held = set().union(*own.values())
    key = {f"{package_dir.name}._cache"}  # this module computes the key; it is no part of it
    base = _closure(jit - held - key, info, stop=held | key)
    parts = {part: _closure(mods, info, stop=base | (held - mods) | key) for part, mods in own.items()}
    reads = {}
    for name in sorted(base | set().union(*parts.values())):
        brings = _closure([name], info)
        found = sorted(part for part, mods in own.items() if brings & mods)
        if found:
            reads[rel[name]] = found
    return {
        "base": sorted(rel[n] for n in base),
        "parts": {part: sorted(rel[n] for n in mods) for part, mods in parts.items()},
        "reads": reads,
    }


def jit_modules(package_dir: Path = PACKAGE_DIR) -> list[str]:
    """The package's modules that compiled code can depend on, as paths relative to the package
    directory (POSIX, sorted): the jit modules and every package module they import, transitively
    (the base and every part of ``cache_layout``)."""
    layout = cache_layout(package_dir)
    return sorted(set(layout["base"]).union(*layout["parts"].values()))


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


def _memo_name(package_dir: Path) -> str:
    return f"jit-modules-{hashlib.sha256(str(package_dir).encode()).hexdigest()[:12]}.json"


def _remembered_layout(base: str, package_dir: Path) -> dict:
    """``cache_layout``, remembered in ``base`` while no source file of the package has changed
    size or modification time (a file per package directory: several checkouts share ``base``)."""
    stamp = {
        path.relative_to(package_dir).as_posix(): [(st := path.stat()).st_mtime_ns, st.st_size]
        for path in sorted(package_dir.rglob("*.py"))
    }
    memo = Path(base) / _memo_name(package_dir)
    try:
        saved = json.loads(memo.read_text(encoding="utf-8"))
        if saved["stamp"] == stamp and saved["parts"] == PARTS_SPEC:
            return saved["layout"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    layout = cache_layout(package_dir)
    try:  # written aside and renamed into place: a process reading it never sees half a file
        memo.parent.mkdir(parents=True, exist_ok=True)
        write_file(memo, json.dumps({"stamp": stamp, "parts": PARTS_SPEC, "layout": layout}))
    except OSError:
        pass  # an unwritable cache directory: parse again next time
    return layout


PARTS_SPEC = {part: [marker, list(modules)] for part, (marker, modules) in PARTS.items()}  # as JSON reads it back

# Set by ``configure_cache``: the hash of each part's modules, and the parts each module's code reads.
PART_HASHES: dict[str, str] = {}
MODULE_PARTS: dict[str, list[str]] = {}


def part_key(module: str, markers: set[str]) -> tuple[tuple[str, str], ...]:
    """What a compiled function's index entry adds to numba's key: (part, hash) of every part that
    its module (dotted name) reads or whose marker type (``PARTS``) its signature holds."""
    if not PART_HASHES:  # NUMBA_CACHE_DIR set before smsim was imported: configure_cache left them
        layout = _inherited_layout(os.environ.get("NUMBA_CACHE_DIR", ""))
        PART_HASHES.update({part: source_hash(PACKAGE_DIR, modules) for part, modules in layout["parts"].items()})
        MODULE_PARTS.update(layout["reads"])
    rel = module.removeprefix(f"{PACKAGE_DIR.name}.").replace(".", "/") + ".py"
    parts = set(MODULE_PARTS.get(rel, ())) | {part for part, (marker, _) in PARTS.items() if marker in markers}
    return tuple((part, PART_HASHES.get(part, "")) for part in sorted(parts))


def _inherited_layout(cache: str) -> dict:
    """``cache_layout`` for a ``NUMBA_CACHE_DIR`` set before smsim was imported. Most often it is
    smsim's own, set by an smsim process for the processes it starts (a study's parts, a local
    cluster's workers, a compile-ahead helper): its layout is then remembered beside it, and read
    (about a second of parsing the package saved in every such process). A directory of the
    user's own has no such memo beside it: the package is parsed, and nothing written there."""
    base = os.path.dirname(os.path.normpath(cache)) if cache else ""
    if base and (Path(base) / _memo_name(PACKAGE_DIR)).is_file():
        return _remembered_layout(base, PACKAGE_DIR)
    return cache_layout(PACKAGE_DIR)


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
    layout = _remembered_layout(base, PACKAGE_DIR)
    PART_HASHES.update({part: source_hash(PACKAGE_DIR, modules) for part, modules in layout["parts"].items()})
    MODULE_PARTS.update(layout["reads"])
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, source_hash(PACKAGE_DIR, layout["base"]))
    if "numba.core.config" in sys.modules:
        # numba was imported first (a notebook, a test module): it read its settings then, and
        # would put smsim's cache beside the sources, where the check of a cold engine
        # (``engine_compiled``) does not look
        sys.modules["numba.core.config"].reload_config()


def cache_dir() -> str:
    """The directory numba caches smsim's machine code in (``configure_cache`` has set it)."""
    return os.environ.get("NUMBA_CACHE_DIR", "")
