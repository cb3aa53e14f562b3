"""The numba cache key covers exactly the sources compiled code can depend on (smsim/_cache.py)."""

import importlib
import os
import shutil
import sys
import types
from pathlib import Path

import pytest

from smsim import _cache
from smsim._cache import PACKAGE_DIR, cache_layout, jit_modules, source_hash
from smsim.engine.memory import cached_njit


@pytest.fixture
def package(tmp_path) -> Path:
    """A scratch copy of the package's sources, to edit."""
    copy = tmp_path / "smsim"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_key_covers_the_engine_and_policies_and_not_the_reporting():
    modules = set(jit_modules())
    for needed in (
        "engine/game.py",
        "engine/city.py",
        "engine/dice.py",
        "engine/memory.py",
        "engine/scoring.py",
        "play/loop.py",
        "play/search.py",
        "policies/features.py",
        "policies/heuristic_layout.py",
        "policies/heuristics.py",
        "policies/interface.py",
        "layout.py",
        "rules.py",
    ):
        assert needed in modules, needed
    for left_out in (
        "report/write.py",
        "cli/__init__.py",
        "report/tables.py",
        "report/plots.py",
        "runs/summary.py",
        "play/narrate.py",
        "_cache.py",
        "__init__.py",
    ):
        assert left_out not in modules, left_out


def test_a_comment_in_the_report_keeps_the_key(package):
    before = source_hash(package)
    with open(package / "report" / "write.py", "a") as fh:
        fh.write("# a comment\n")
    (package / "cli" / "__init__.py").write_text((package / "cli" / "__init__.py").read_text() + "\nX = 1\n")
    assert source_hash(package) == before


@pytest.mark.parametrize(
    "module", ["engine/game.py", "engine/memory.py", "layout.py", "rules.py", "policies/heuristics.py"]
)
def test_a_change_to_what_jitted_code_reads_changes_the_key(package, module):
    before = source_hash(package)
    with open(package / module, "a") as fh:
        fh.write("# a comment\n")
    assert source_hash(package) != before


def test_new_modules_join_the_key_by_what_they_import(package):
    """A play loop that only uses ``hot_njit``, a module it imports, and a policy module split
    out and imported by a policy module join the key; a new reporting module does not."""
    (package / "play" / "loop.py").write_text(
        "from smsim.engine.memory import hot_njit\nfrom smsim import tables\n\n\n"
        "@hot_njit\ndef play_nb(x):\n    return x + tables.ONE\n"
    )
    (package / "tables.py").write_text("ONE = 1\n")
    (package / "policies" / "features.py").write_text("TWO = 2\n")
    heuristics = package / "policies" / "heuristics.py"
    heuristics.write_text("from .features import TWO\n" + heuristics.read_text())
    (package / "charts.py").write_text("from smsim.engine.game import play_games_nb\nimport numpy\n")
    modules = set(jit_modules(package))
    assert {"play/loop.py", "tables.py", "policies/features.py"} <= modules
    assert "charts.py" not in modules
    before = source_hash(package)
    (package / "tables.py").write_text("ONE = 2\n")
    assert source_hash(package) != before


@cached_njit
def marked_by_parts(mark, x):
    """A cached function whose signature may carry the learned policy's mark (as the loop's seats do)."""
    return x + 1


def _smsim_module_of(value) -> str | None:
    if isinstance(value, types.ModuleType):
        name = value.__name__
    else:
        name = getattr(value, "__module__", None)
        if not isinstance(name, str):
            return None
    return name if name == "smsim" or name.startswith("smsim.") else None


def test_every_module_with_compiled_code_and_what_it_reads_is_covered():
    """Checked on the loaded modules, independently of the source scan: every smsim module that
    defines a numba dispatcher or intrinsic is in the key, and so is every smsim module whose
    objects a covered module holds as globals."""
    from numba.core.dispatcher import Dispatcher

    importlib.import_module("smsim.runs.batch")  # loads the engine and the policies
    covered = {".".join(["smsim", *Path(rel).with_suffix("").parts]).removesuffix(".__init__") for rel in jit_modules()}
    loaded = {name: mod for name, mod in sys.modules.items() if name.startswith("smsim.")}
    with_jit = {
        name
        for name, mod in loaded.items()
        if any(isinstance(v, Dispatcher) and v.py_func.__module__ == name for v in vars(mod).values())
    }
    assert with_jit and with_jit <= covered, with_jit - covered
    read = {
        dep
        for name in covered
        if name in loaded
        for v in vars(loaded[name]).values()
        if (dep := _smsim_module_of(v)) is not None and dep != "smsim._cache"
    }
    assert read <= covered, read - covered


def test_the_remembered_layout_follows_the_sources(package, tmp_path):
    base = tmp_path / "cache"
    first = _cache._remembered_layout(str(base), package)
    assert first == cache_layout(package)
    assert list(base.glob("jit-modules-*.json"))
    (package / "compiled.py").write_text("import numba\n")  # a new file: the layout is made again
    assert "compiled.py" in _cache._remembered_layout(str(base), package)["base"]


def test_a_cache_directory_set_by_an_smsim_process_is_read_from_its_memo(monkeypatch, tmp_path):
    """A process started by smsim inherits its NUMBA_CACHE_DIR (a study's parts, a cluster's
    workers): the parts' hashes come from the layout remembered beside it, not from parsing the
    package again; a directory of the user's own is parsed, and nothing is written beside it."""
    want = {part: source_hash(PACKAGE_DIR, modules) for part, modules in cache_layout()["parts"].items()}
    base = tmp_path / "smsim-cache"
    _cache._remembered_layout(str(base), PACKAGE_DIR)  # what configure_cache left beside smsim's own
    parsed = []
    real = _cache.cache_layout
    monkeypatch.setattr(_cache, "cache_layout", lambda *a: parsed.append(1) or real(*a))
    for cache, parses in ((base / "0123abcd", 0), (tmp_path / "mine" / "numba", 1)):
        monkeypatch.setattr(_cache, "PART_HASHES", {})
        monkeypatch.setattr(_cache, "MODULE_PARTS", {})
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
        parsed.clear()
        assert _cache.part_key("smsim.play.search", set()) == (("search", want["search"]),)
        assert want == _cache.PART_HASHES and len(parsed) == parses, cache
    assert not (tmp_path / "mine").exists()


def test_the_learned_policy_and_the_search_are_keyed_apart_from_the_base():
    """The directory is named after the base; each part's own modules are keyed apart, and the
    modules whose code reads a part are known (their functions' entries add its hash)."""
    layout = cache_layout()
    assert layout["parts"] == {
        "learned": ["policies/learned.py"],
        "search": ["play/labels.py", "play/search.py", "policies/rollout.py"],
    }
    base = set(layout["base"])
    assert {"play/loop.py", "policies/heuristics.py", "policies/learned_layout.py"} <= base
    assert not base & {"policies/learned.py", "play/search.py", "_cache.py"}
    assert layout["reads"] == {
        "play/labels.py": ["learned", "search"],
        "play/search.py": ["search"],
        "policies/learned.py": ["learned"],
    }


@pytest.mark.parametrize(
    ("module", "changes"),
    [("policies/learned.py", "learned"), ("play/search.py", "search"), ("policies/heuristics.py", "base")],
)
def test_an_edit_changes_the_key_of_what_holds_it_alone(package, module, changes):
    """An edit of the learned policy changes its part's hash, not the base's (the directory a
    heuristic line-up's loop is cached in) nor the search's; an edit of the base changes the
    directory, as every loop holds it."""

    def hashes():
        layout = cache_layout(package)
        return {
            "base": source_hash(package, layout["base"]),
            **{part: source_hash(package, mods) for part, mods in layout["parts"].items()},
        }

    before = hashes()
    with open(package / module, "a") as fh:
        fh.write("# a comment\n")
    after = hashes()
    assert {k for k in before if before[k] != after[k]} == {changes}


def test_a_compiled_signature_is_keyed_on_the_parts_it_holds(monkeypatch):
    """numba's index entry of a signature that carries the learned policy's mark goes stale when
    the policy's sources change; one without it stays (a heuristic line-up's loop), and neither
    depends on the search's sources."""
    from numba import typeof, types

    from smsim.engine.memory import on_disk
    from smsim.policies.learned_layout import LEARNED

    marked_by_parts(LEARNED, 1)
    marked_by_parts(None, 1)
    with_mark, without = (typeof(LEARNED), types.int64), (types.none, types.int64)
    assert on_disk(marked_by_parts, with_mark) and on_disk(marked_by_parts, without)
    monkeypatch.setitem(_cache.PART_HASHES, "search", "an edit")
    assert on_disk(marked_by_parts, with_mark) and on_disk(marked_by_parts, without)
    monkeypatch.setitem(_cache.PART_HASHES, "learned", "an edit")
    assert not on_disk(marked_by_parts, with_mark) and on_disk(marked_by_parts, without)


def test_a_heuristic_line_ups_loop_outlives_an_edit_of_the_learned_policy(monkeypatch):
    """The play loop of a heuristic line-up, once compiled, is found in the on-disk cache under
    its key whatever the learned policy's or the search's sources (what ``kernel_compiled``
    reads before a command decides whether it compiles)."""
    from smsim.engine.memory import on_disk
    from smsim.play.loop import play_games_nb
    from smsim.policies.registry import resolve_policies
    from smsim.rules import Rules
    from smsim.runs.batch import run_games
    from smsim.runs.runner import kernel_compiled

    run_games(1, 2, ["balanced", "greedy"], 0, Rules(), threads=1)
    assert kernel_compiled(2, resolve_policies(["balanced", "greedy"], 2), Rules())
    sigs = [sig for sig in play_games_nb.overloads if not _marked(sig)]
    assert sigs and all(on_disk(play_games_nb, sig) for sig in sigs)
    monkeypatch.setitem(_cache.PART_HASHES, "learned", "an edit")
    monkeypatch.setitem(_cache.PART_HASHES, "search", "an edit")
    assert all(on_disk(play_games_nb, sig) for sig in sigs)


def _marked(sig) -> bool:
    from smsim.engine.memory import markers_of

    return bool(markers_of(sig) & {marker for marker, _ in _cache.PARTS.values()})


def test_a_cold_engine_is_announced_and_compiled_before_the_timed_run(monkeypatch):
    """The first run says on standard error that it compiles, and how long that took, so that the
    games per second it prints afterwards are the playing rate (the engine is compiled already
    here; the check of the cache is what is made to say cold)."""
    from click.testing import CliRunner

    import smsim.runs.runner
    from smsim.cli import cli

    monkeypatch.setattr(smsim.runs.runner, "kernel_compiled", lambda *args: False)
    r = CliRunner().invoke(cli, ["simulate", "-n", "20", "-p", "3", "-q"])
    assert r.exit_code == 0, r.output
    assert "compiling the game engine for this machine" in r.output and "compiled in" in r.output
    r = CliRunner().invoke(cli, ["simulate", "-n", "20", "-p", "7"])
    assert r.exit_code == 2 and "players must be a whole number from 2 to 5" in r.output


def test_the_cache_is_smsims_even_when_numba_was_imported_first(tmp_path):
    """A notebook or a test module may import numba before smsim: numba has read its settings
    then, and smsim's compiled code must still go to smsim's cache, where ``kernel_compiled``
    looks for it."""
    import subprocess

    code = (
        "import numba, os\nimport smsim\nfrom smsim.play.loop import play_games_nb\n"
        "print(os.environ['NUMBA_CACHE_DIR']); print(play_games_nb._cache._cache_path)"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SMSIM_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    cache_dir, path = out.stdout.split()
    assert cache_dir.startswith(str(tmp_path)) and path.startswith(cache_dir)


def test_a_blank_cache_variable_is_an_empty_one(monkeypatch):
    """Spaces alone count as empty (the end-to-end test below runs the empty value)."""
    for value, said in (("", None), ("   ", None), ("\t\n", None), (" /x ", "/x")):
        monkeypatch.setenv("SMSIM_CACHE_DIR", value)
        assert _cache._setting("SMSIM_CACHE_DIR") == said
    monkeypatch.delenv("SMSIM_CACHE_DIR")
    assert _cache._setting("SMSIM_CACHE_DIR") is None


@pytest.mark.parametrize("empty", [""])
def test_an_empty_cache_variable_counts_as_unset(tmp_path, empty):
    """CI systems and containers often leave NUMBA_CACHE_DIR or SMSIM_CACHE_DIR defined but empty:
    smsim's own cache is used then, and the status line names it."""
    import subprocess

    code = (
        "import os, smsim\nfrom smsim._cache import cache_dir\nfrom smsim.play.loop import play_games_nb\n"
        "print(cache_dir()); print(play_games_nb._cache._cache_path)"
    )
    base = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "SMSIM_CACHE_DIR", "XDG_CACHE_HOME")}
    for env, where in (
        ({"NUMBA_CACHE_DIR": empty, "SMSIM_CACHE_DIR": str(tmp_path / "a")}, tmp_path / "a"),
        (
            {"NUMBA_CACHE_DIR": empty, "SMSIM_CACHE_DIR": empty, "XDG_CACHE_HOME": str(tmp_path / "x")},
            tmp_path / "x" / "smsim",
        ),
    ):
        out = subprocess.run(
            [sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True, check=True
        ).stdout.split()
        assert len(out) == 2, out
        cache, path = out
        assert Path(cache).parent == where and len(Path(cache).name) == 16  # <base>/<source hash>
        assert path.startswith(cache)


def test_the_status_line_names_the_real_cache(monkeypatch, tmp_path):
    from click.testing import CliRunner

    import smsim.runs.runner
    from smsim.cli import cli

    monkeypatch.setattr(smsim.runs.runner, "kernel_compiled", lambda *args: False)
    r = CliRunner().invoke(cli, ["simulate", "-n", "5", "-p", "2", "-q"])
    assert r.exit_code == 0, r.output
    assert f"(cached in {os.environ['NUMBA_CACHE_DIR']};" in r.output and os.environ["NUMBA_CACHE_DIR"]
    r = CliRunner().invoke(cli, ["warmup"])
    assert (
        f"cache {os.environ['NUMBA_CACHE_DIR']})" in r.output
        or f"cached in {os.environ['NUMBA_CACHE_DIR']}" in r.output
    )


def test_a_copy_of_the_package_elsewhere_loads_what_the_first_compiled(tmp_path):
    """A fresh clone, a reinstall or a venv elsewhere: the same sources at another path (and with
    other modification times) find the machine code an earlier copy compiled in the same cache
    (engine/memory.py's ``PackageCacheLocator``), in a subdirectory named after the module's
    folder within the package (a copy whose jit sources differ gets a cache of its own: the key's
    tests above)."""
    import subprocess

    code = (
        "import sys, smsim\n"
        "from smsim.engine.memory import is_cached\n"
        "from smsim.play.winprob import stage_of\n"
        "before = is_cached(stage_of, (3,)); stage_of(3)\n"
        "print(before, smsim.__file__.startswith(sys.argv[1]), stage_of._cache._cache_path)\n"
    )
    copies = [tmp_path / name for name in ("first", "second")]
    for copy in copies:
        shutil.copytree(PACKAGE_DIR, copy / "smsim", ignore=shutil.ignore_patterns("__pycache__"))
    (copies[1] / "smsim" / "play" / "winprob.py").touch()  # a later modification time: the same content
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SMSIM_CACHE_DIR"] = str(tmp_path / "cache")
    said = []
    for copy in copies:
        out = subprocess.run(
            [sys.executable, "-c", code, str(copy)],
            env={**env, "PYTHONPATH": str(copy)},
            cwd=tmp_path,  # not the checkout: its own smsim would come first
            capture_output=True,
            text=True,
            check=True,
        )
        said.append(out.stdout.split())
    assert [s[:2] for s in said] == [["False", "True"], ["True", "True"]]
    assert said[0][2] == said[1][2] and said[0][2].endswith(os.path.join("", "smsim_play"))
