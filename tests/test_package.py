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

    code = (
        "import sys, smsim.play.referee\n"
        "print(' '.join(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite')\n"
        "      or m.startswith(('smsim.engine', 'smsim.policies', 'smsim.play.trace', 'smsim.play.loop'))\n"
        "      and m != 'smsim.play.tracefile'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)},
    )
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


# Every command of the smsim group -> the public names (``smsim.NAME``) of the Python functions its
# body calls: the command line is a thin layer over these. A name with a dot is reached through a
# submodule of the package (``warmup.warmup``: ``smsim.warmup`` is a module, so no lazy name can
# carry its function). A new command without an entry here fails the test below.
COMMAND_API = {
    "simulate": ("simulate_summary", "simulate_to"),
    "summary": ("summarise_dataset",),
    "warmup": ("warmup.warmup",),
    "play": ("play_game", "annotate_game"),
    "advise": ("advise", "advise_trace"),
    "validate": ("check_trace",),
    "replay": ("read_jsonl", "games_of", "replay_game", "replay_page"),
    "score": ("parse_position", "score_city"),
    "compare": ("compare",),
    "sweep": ("sweep",),
    "skill": ("skill",),
    "bonus-value": ("bonus_value",),
    "regret": ("keep_regret",),
    "tune": ("tune",),
    "fairness": ("fairness",),
    "learn": ("learn", "LearnPlan"),
    "ladder": ("ladder",),
    "winprob": ("fit_winprob", "WinProbModel"),
    "shape": ("game_shape",),
    "luck": ("luck_match", "LuckPlan"),
    "matters": ("what_matters",),
    "study": ("plan_study", "run_study", "write_study_report"),
    "report": ("make_report",),
    "plot": ("PLOTS", "read_report_data"),
    "policies": ("POLICIES",),
    "variants": ("named_variants",),
}


def public(dotted: str):
    """``smsim.<dotted>``: a lazy name, or a name reached through a submodule of the package."""
    import importlib

    head, _, rest = dotted.partition(".")
    if not rest:
        return getattr(smsim, head)
    return getattr(importlib.import_module(f"smsim.{head}"), rest)


def test_every_command_has_its_python_api():
    from smsim.cli import cli

    assert set(COMMAND_API) == set(cli.commands), "a command without a public Python entry, or one gone"


def test_every_command_s_api_names_resolve_to_what_the_command_calls():
    """Each name is public (a lazy name is in ``__all__``) and is what the command calls: the
    function's (or the table's) own name appears in the command's body, or in a function of its
    module that the body calls (``replay``'s ``write_replay``)."""
    import inspect
    import re
    import sys

    from smsim.cli import cli

    for command, names in COMMAND_API.items():
        callback = inspect.unwrap(cli.commands[command].callback)
        source = inspect.getsource(callback)
        module = sys.modules[callback.__module__]
        helpers = [
            f
            for k, f in vars(module).items()
            if inspect.isfunction(f) and f.__module__ == module.__name__ and re.search(rf"\b{k}\(", source)
        ]
        source += "".join(inspect.getsource(f) for f in helpers)
        for name in names:
            target = public(name)
            if "." not in name:
                assert name in smsim._LAZY and name in smsim.__all__, name
            own = getattr(target, "__name__", name.rsplit(".", 1)[-1])
            assert re.search(rf"\b{re.escape(own)}\b", source), (command, name, own)


def test_the_package_docstring_names_every_lazy_entry():
    missing = [name for name in smsim._LAZY if f"smsim.{name}``" not in smsim.__doc__]
    assert not missing, missing
