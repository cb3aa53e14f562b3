"""A property of the whole command line (issue 21): whatever arguments a command is given, it
exits 0 or 2 (``validate`` also 1, a broken rule), prints at most one ``Error:`` line and that
line last, never a traceback; a run it refuses (exit 2) leaves every file as it was, and no run
turns a dataset into another kind (``compare --out`` once wrote its manifest over a dataset's).

The argument lists are drawn from click's own description of ``smsim.cli``: every command of
the group, every parameter of each command, its option names, type, ``multiple`` and ``nargs``.
What a value means comes from the parameter's name where the name is known here (``games``,
``out``, ``policy``...: the same name means the same thing in every command), else from its
click type, so a new option is drawn without touching this file. Each parameter is given a
plausible good value (small: a run plays at most a few hundred games) or a plausible bad one:
numbers out of range or of the wrong type, unknown policies, rules fields and variants,
missing files, a path under a regular file (which no one, root included, can write), a foreign
dataset, datasets with a part cut in half, a manifest that is no text or says nothing but its
kind, a trace with its last line cut off, empty files, directories where files are expected; or
it is left out, given twice, or left without its value; unknown options and stray arguments are
added. ``variations`` starts from command lines that run and swaps a value or a dataset for a
broken one, so that the deeper paths (resuming a run, reading every part) are reached too.

Every example runs in a fresh copy of a workspace written once per module (``{ws}`` in a drawn
argument). The default profile is bounded and derandomized (no example database), so it is the
same on every run; ``test_any_arguments_long`` (``-m slow``) draws many more, from a seed that
``--hypothesis-seed`` sets.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from smsim.cli import cli
from tests.helpers import figures_left_blank

EXIT_OK = 0
EXIT_BAD_INPUT = 2
# exit statuses a command documents beyond 0 and 2 (its docstring says so)
EXTRA_EXITS = {"validate": {1}}  # "exit 1 at the first discrepancy"

# -- the workspace: files every example can be pointed at --------------------------------------

SETUP = [  # the workspace's datasets and files, written by the command line itself once per module
    ["simulate", "-n", "20", "-p", "2", "--policy", "random", "--seed", "1", "--batch", "10", "--out", "run", "-q"],
    ["compare", "balanced", "random", "-p", "2", "-n", "40", "--seed", "2", "--out", "cmp"],
    ["sweep", "--vary", "side_defence=1,2", "-n", "20", "-p", "2", "--batch", "10", "--out", "swp", "-q"],
    ["fairness", "-p", "2", "-n", "40", "--max", "1", "--out", "fair", "-q"],
    ["play", "-p", "2", "--seed", "3", "--trace", "trace.jsonl", "-q"],
    ["tune", "-p", "2", "-n", "20", "-b", "2", "--out", "tuned.toml", "--force", "-q"],
    ["skill", "-p", "2", "--levels", "greedy,random", "-n", "20", "--seed", "5", "--out", "skl", "-q"],
]
# commands that run, beside those of SETUP: the starting points of ``variations``
EXAMPLES = SETUP + [
    ["advise", "trace.jsonl", "-d", "5", "-k", "2"],
    ["advise", "-d", "3", "-p", "3", "--seed", "2", "--policy", "greedy", "-k", "2", "--json"],
    ["play", "-p", "3", "--seed", "4", "--advise", "keep,use", "--advise-playouts", "1", "--rule", "rotation_cost=0"],
    ["validate", "trace.jsonl"],
    ["score", "city.txt", "--rules", "variant.toml"],
    ["summary", "run", "--format", "markdown"],
    ["report", "run", "cmp", "fair", "skl", "--out", "rep"],
    [
        "skill",
        "-p",
        "3",
        "--levels",
        "random,greedy",
        "-n",
        "30",
        "--cap",
        "greedy=15",
        "--variant",
        "free-rotation",
        "--out",
        "skl2",
        "-q",
    ],
    ["report", "swp", "--out", "rep"],
    ["plot", "scores", "run", "cmp", "--out", "scores.svg"],
    ["simulate", "-n", "30", "-p", "3", "--policy", "tuned.toml,greedy,random", "--rules", "fair/rules.toml"],
    ["compare", "tuned.toml", "greedy", "-p", "3", "-n", "60", "--precision", "0.5"],
    ["sweep", "--variant", "free-rotation", "-n", "20", "-p", "2", "--format", "csv", "-q"],
    ["tune", "--base", "tuned.toml", "--only", "wall", "-n", "10", "-b", "1", "--out", "t2.toml", "-q"],
    ["fairness", "-p", "3", "--by", "vp", "-n", "30", "--max", "1", "--json"],
]
# each dataset of SETUP, and the file its broken copy ``NAME-cut`` has cut in half
CUT = {
    "run": "seats/part-000001.parquet",
    "cmp": "games.parquet",
    "swp": "variants/01-side_defence=1/seats/part-000001.parquet",
    "fair": "fairness.json",
    "skl": "cells/00-greedy-vs-random.parquet",
}
# each dataset of SETUP, and its manifest, which its copy ``NAME-junk`` holds as bytes that are no text
JUNK = {
    "run": "manifest.json",
    "cmp": "manifest.json",
    "swp": "sweep.json",
    "fair": "fairness.json",
    "skl": "skill.json",
}
BINARY = b"\x89PNG\r\n\x1a\n\x00\xff\xfe"
CITY = """\
+ # # # # # +
. C C 1 2 3 .
. C 1 5 . . .
. C . . . . .
. . . . . . .
. . . . . . .
+ . . . . . +
coins: 7
"""


# Each example copies the workspace (about 120 files) and removes it afterwards. On a disk that
# costs more than most commands do (66 ms to copy and 220 ms to remove, measured on the 2-core
# development machine under load), on a file system in memory a few ms: the workspaces go there
# where there is one with room. The examples, the files and the commands are the same either way.
SHM = Path("/dev/shm")


def _workspace_root(tmp_path_factory) -> Path:
    """A new directory for the template and the examples' workspaces: under /dev/shm where it is
    a writable directory with 1 GiB free, else pytest's temporary directory."""
    try:
        if SHM.is_dir() and os.access(SHM, os.W_OK) and shutil.disk_usage(SHM).free > 2**30:
            return Path(tempfile.mkdtemp(prefix="smsim-cli-props-", dir=SHM))
    except OSError:
        pass
    return tmp_path_factory.mktemp("cli-props")


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    root = _workspace_root(tmp_path_factory)
    try:
        write_template(root / "ws")
        yield root / "ws"
    finally:
        _remove(root)


def write_template(ws: Path) -> None:
    """The workspace every example starts from: real datasets of each kind, broken copies of
    them, and files of every kind a command might be handed."""
    from smsim.studies.sweep import named_variants

    ws.mkdir()
    runner, here = CliRunner(), os.getcwd()
    os.chdir(ws)
    try:
        for args in SETUP:
            result = runner.invoke(cli, args)
            assert result.exit_code == 0, (args, result.output, result.exception)
    finally:
        os.chdir(here)
    for name, cut in CUT.items():  # a copy of each dataset with one file cut in half, as by a full disk
        shutil.copytree(ws / name, ws / f"{name}-cut")
        part = ws / f"{name}-cut" / cut
        part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    for name, manifest in JUNK.items():  # a copy of each dataset whose manifest is not text
        shutil.copytree(ws / name, ws / f"{name}-junk")
        (ws / f"{name}-junk" / manifest).write_bytes(BINARY)
    for name, manifest in JUNK.items():  # and one whose manifest says what it is, and nothing else
        shutil.copytree(ws / name, ws / f"{name}-hollow")
        kept = {k: v for k, v in json.loads((ws / name / manifest).read_text()).items() if k in ("format", "kind")}
        (ws / f"{name}-hollow" / manifest).write_text(json.dumps(kept))
    lines = (ws / "trace.jsonl").read_text().splitlines(keepends=True)
    (ws / "cut.jsonl").write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    (ws / "notes").mkdir()  # a directory that holds something, but no dataset
    (ws / "notes" / "notes.txt").write_text("not a dataset\n")
    (ws / "dir").mkdir()
    (ws / "file").write_text("not a dataset\n")
    (ws / "empty").write_bytes(b"")
    (ws / "bin").write_bytes(BINARY)
    (ws / "bin.toml").write_bytes(BINARY)
    (ws / "bin.jsonl").write_bytes(BINARY)
    (ws / "bad.toml").write_text("wall = [unclosed\n")
    (ws / "city.txt").write_text(CITY)
    variant = next(iter(named_variants().values()))[0]
    shutil.copy(variant, ws / "variant.toml")
    (ws / "ro").mkdir()  # unwritable, but not for root: {ws}/file/... is unwritable for everyone


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (None) under ``root``, by relative path."""
    out: dict[str, bytes | None] = {}
    for base, dirs, files in os.walk(root):
        for name in dirs:
            out[os.path.relpath(os.path.join(base, name), root)] = None
        for name in files:
            path = os.path.join(base, name)
            out[os.path.relpath(path, root)] = Path(path).read_bytes() if os.path.isfile(path) else b"<special>"
    return out


# the files that say what a directory holds, and their field that says it
MARKERS = dict.fromkeys(("manifest.json", "sweep.json", "skill.json", "fairness.json", "learn.json"), "kind")


def kinds(files: dict[str, bytes | None]) -> dict[str, dict[str, str | None]]:
    """What each directory of a snapshot holds, by its MARKERS: {directory: {marker: its kind}};
    None for a marker that cannot be read."""
    out: dict[str, dict[str, str | None]] = {}
    for rel, data in files.items():
        name = os.path.basename(rel)
        if data is None or name not in MARKERS:
            continue
        try:
            kind = json.loads(data).get(MARKERS[name])
        except (ValueError, AttributeError):
            kind = None
        out.setdefault(os.path.dirname(rel), {})[name] = kind
    return out


# -- values, by what a parameter means ----------------------------------------------------------


def _policy_names() -> tuple[list[str], list[str]]:
    """Built-in policies that play fast (no search) and every weight name."""
    from smsim.policies.heuristics import PARAM_NAMES
    from smsim.policies.registry import POLICIES, any_search

    return [name for name, spec in POLICIES.items() if not any_search([spec])], list(PARAM_NAMES)


FAST_POLICIES, WEIGHTS = _policy_names()

HUGE_INTS = ["1000000", str(2**31), str(2**63 - 1), str(2**63), str(2**64), str(10**30)]
NOT_INTS = ["abc", "", " ", "3.5", "1e3", "nan", "inf", "--", "-", "0x10"]
COUNTS_BAD = [
    "0",
    "-5",
    "ten",
    "2.5",
    "1e99",
    "1e308",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "",
    " ",
    "10_000_000_001",
    "0x10",
    "1,5.5",
    "_",
    "1e-3",
]
FLOATS_BAD = ["nan", "inf", "-inf", "1e308", "-1e308", "0", "-1", "abc", "", "1e-320"]
BAD_PATHS = [
    "{ws}/missing",
    "{ws}/missing/deeper",
    "{ws}/file/sub",
    "{ws}/file",
    "{ws}/empty",
    "{ws}/dir",
    "{ws}/notes",
    "{ws}/bin",
    "{ws}/ro/sub",
    "",
    "-",
    "{ws}/a\nb",
]
DATASETS = ["{ws}/run", "{ws}/cmp", "{ws}/swp", "{ws}/fair", "{ws}/skl"]
BROKEN_DATASETS = [
    *(f"{{ws}}/{name}-cut" for name in CUT),
    *(f"{{ws}}/{name}-junk" for name in JUNK),
    *(f"{{ws}}/{name}-hollow" for name in JUNK),
    "{ws}/run/seats",
    "{ws}/trace.jsonl",
    *BAD_PATHS,
]
TRACES = ["{ws}/trace.jsonl"]
BAD_TRACES = ["{ws}/cut.jsonl", "{ws}/bin.jsonl", "{ws}/city.txt", "{ws}/tuned.toml", "{ws}/run", *BAD_PATHS]
POLICIES_BAD = [
    "genius",
    "",
    ",",
    " , ",
    "rollout,",
    "{ws}/bad.toml",
    "{ws}/bin.toml",
    "{ws}/fair/rules.toml",
    "{ws}/missing.toml",
    "{ws}/file",
    "{ws}/empty",
    "{ws}/variant.toml",
    "{ws}/city.txt",
    "{ws}/dir",
    "x.py:f",
    "{ws}/file:f",
    "{ws}/trace.jsonl:f",
    "greedy,genius",
    "a\nb",
    "balanced," * 6,
]
RULES_GOOD = ["allow_pass=true", "rotation_cost=1", "side_defence=2"]
RULES_BAD = [
    "speed=3",
    "allow_pass",
    "=",
    "rotation_cost=-1",
    "rotation_cost=abc",
    "rotation_cost=1e308",
    "rotation_cost=nan",
    "church_series_vp=[1,2]",
    "start_crates=[[3,9]]",
    "pirate_boxes_per_player=0",
    "allow_pass=maybe",
    "side_defence=" + "9" * 40,
    "rotation_cost=[",
    "a\nb=1",
]
VARY_GOOD = ["side_defence=1,2", "rotation_cost=0,1", "allow_pass=true,false"]
VARY_BAD = [
    "no_such_field=1,2",
    "side_defence=",
    "side_defence",
    "side_defence=a,b",
    "rotation_cost=-1,2",
    "=1",
    "side_defence=1,1",
    "pirate_strengths=[1,2];[",
    "side_defence=" + ",".join(["1"] * 3),
]
VARIANTS_GOOD = ["gentle-last-attacks", "free-rotation", "mine={ws}/variant.toml"]
VARIANTS_BAD = [
    "nope",
    "x={ws}/missing.toml",
    "x={ws}/bad.toml",
    "{ws}/bin.toml",
    "={ws}/variant.toml",
    "x=",
    "x={ws}/dir",
    "x={ws}/city.txt",
    "{ws}/variant.toml",
    "baseline={ws}/variant.toml",
]
OUTS_GOOD = [
    "{ws}/new",
    "{ws}/new.png",
    "{ws}/new.svg",
    "{ws}/new.toml",
    "{ws}/dir",
    "{ws}/deep/er/new",
    "memory://{ws}/new",
]
OUTS_BAD = [
    *DATASETS,
    *BROKEN_DATASETS,
    "{ws}/tuned.toml",
    "nosuch://x/run",
    "s3://smsim-no-bucket/run",
    "{ws}/new.txt",
]


def _ints(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.integers(lo, hi).map(str)


def _pick(values: list[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(values)


def _count(hi: int) -> st.SearchStrategy[str]:
    """A small count, as a command line might spell it."""
    return st.one_of(_ints(1, hi), st.sampled_from([f"{hi // 10 or 1}", "1e1", "1_0", "2e1", " 5 "]))


def _plot_kinds() -> list[str]:
    from smsim.report.plots import PLOTS  # loads matplotlib: only once a figure kind is drawn

    return list(PLOTS)


def _lineup() -> st.SearchStrategy[str]:
    return st.lists(_pick(FAST_POLICIES), min_size=1, max_size=5).map(",".join)


# parameter name -> (good values, bad values); the same name means the same in every command;
# None: no good value is drawn
BY_NAME: dict[str, tuple[st.SearchStrategy[str] | None, st.SearchStrategy[str]]] = {
    "players": (_ints(2, 5), _pick(["0", "1", "6", "-1", *HUGE_INTS, *NOT_INTS])),
    "seed": (
        st.one_of(_ints(0, 2**31), _pick([str(2**63 - 1), str(2**64 - 1)])),
        _pick(["-1", str(2**64), str(10**30), *NOT_INTS]),
    ),
    "check_seed": (_ints(0, 2**31), _pick(["-1", str(2**64), str(10**30), *NOT_INTS])),
    "game": (_ints(0, 5), _pick(["-1", *HUGE_INTS, *NOT_INTS])),
    "decision": (_ints(0, 40), _pick(["-1", "100000", *HUGE_INTS, *NOT_INTS])),
    "games": (_count(200), _pick(COUNTS_BAD)),
    "batch": (_count(100), _pick(COUNTS_BAD)),
    "check_games": (_count(200), _pick(COUNTS_BAD)),
    "held_out_games": (_count(100), _pick(COUNTS_BAD)),
    "budget": (_count(3), _pick(COUNTS_BAD)),
    "playouts": (_ints(1, 6), _pick(["0", "-1", *HUGE_INTS[3:], *NOT_INTS])),
    "min_playouts": (_ints(1, 6), _pick(["0", "-1", *NOT_INTS])),
    "advise_playouts": (_ints(1, 3), _pick(["0", "-1", *HUGE_INTS[3:], *NOT_INTS])),
    "threads": (_ints(1, 2), _pick(["0", "-1", *HUGE_INTS, *NOT_INTS])),
    "max_compensation": (_ints(0, 2), _pick(["-1", *HUGE_INTS[3:], *NOT_INTS])),
    "precision": (_pick(["0.5", "0.2", "0.1"]), _pick([*FLOATS_BAD, "3", "1", "0.0001"])),
    "policy": (st.one_of(_pick(FAST_POLICIES), _lineup(), _pick(["{ws}/tuned.toml"])), _pick(POLICIES_BAD)),
    "policies": (st.one_of(_pick(FAST_POLICIES), _pick(["{ws}/tuned.toml"])), _pick(POLICIES_BAD)),
    "base": (st.one_of(_pick(FAST_POLICIES), _pick(["{ws}/tuned.toml"])), _pick(POLICIES_BAD)),
    "against": (_lineup(), _pick(POLICIES_BAD)),
    "only": (st.lists(_pick(WEIGHTS), min_size=1, max_size=3).map(",".join), _pick(["nope", ",", "", "wall,nope"])),
    "by": (_pick(["coins", "vp"]), _pick(["seats", "", "VP"])),
    "rule": (_pick(RULES_GOOD), _pick(RULES_BAD)),
    "rules_file": (
        _pick(["{ws}/variant.toml", "{ws}/empty", "{ws}/fair/rules.toml"]),
        _pick(["{ws}/bad.toml", "{ws}/bin.toml", "{ws}/tuned.toml", "{ws}/city.txt", *BAD_PATHS]),
    ),
    "vary": (_pick(VARY_GOOD), _pick(VARY_BAD)),
    "variant_files": (_pick(VARIANTS_GOOD), _pick(VARIANTS_BAD)),
    "advise_kinds": (_pick(["use", "keep", "use,keep", "place"]), _pick(["nope", "", ",", "USE,nope"])),
    "cluster": (
        None,
        _pick(
            [
                "nonsense",
                "local",
                "local:0",
                "local:x",
                "local:-1",
                "tcp://",
                "tcp://h:0",
                "tcp://h:99999",
                "",
                "local:" + "9" * 30,
            ]
        ),
    ),  # no real cluster: it starts processes
    "out": (_pick(OUTS_GOOD), _pick(OUTS_BAD)),
    "trace_file": (_pick(TRACES), _pick(BAD_TRACES)),
    "city_file": (_pick(["{ws}/city.txt"]), _pick(["{ws}/trace.jsonl", "{ws}/bad.toml", *BAD_PATHS])),
    "dataset": (_pick(DATASETS), _pick(BROKEN_DATASETS)),
    "datasets": (_pick(DATASETS), _pick(BROKEN_DATASETS)),
    "levels": (
        _pick(["greedy,random", "random,greedy,balanced", "balanced,greedy"]),
        _pick(["balanced", "greedy,greedy", "greedy,genius", "", ",", "rollout,", "{ws}/bad.toml,greedy"]),
    ),
    "cap": (_pick(["greedy=10", "random=5"]), _pick(["greedy=0", "walls=3", "greedy", "=3", "greedy=x", "greedy=-1"])),
    "title": (
        st.text(st.characters(exclude_characters="\x00"), max_size=12),  # no NUL: argv cannot hold one
        _pick(["", "a\nb", "<script>", "*" * 300]),
    ),
    "kind": (st.deferred(lambda: _pick(_plot_kinds())), _pick(["no-such-kind", "", "SCORES"])),
}

# the costly parameters: each is always given a small value, never left at its large default
ALWAYS_GIVEN = {"games", "budget", "playouts"}


def _by_type(param: click.Parameter) -> tuple[st.SearchStrategy[str], st.SearchStrategy[str]]:
    """Values of a parameter this module does not know by name, from its click type."""
    kind = param.type
    if isinstance(kind, click.Choice):
        return _pick([str(c) for c in kind.choices]), _pick(["bogus", "", str(kind.choices[0]).upper()])
    if isinstance(kind, click.types.IntParamType):
        return _ints(0, 3), _pick(["-1", *HUGE_INTS, *NOT_INTS])
    if isinstance(kind, click.types.FloatParamType):
        return _pick(["0.5", "1"]), _pick(FLOATS_BAD)
    if isinstance(kind, click.Path):
        return _pick(["{ws}/new", *DATASETS, *TRACES]), _pick(BAD_PATHS)
    everything = [*DATASETS, *TRACES, *OUTS_GOOD, *FAST_POLICIES, "1", "20"]
    return _pick(everything), _pick([*BAD_PATHS, *COUNTS_BAD, *POLICIES_BAD])


def values(param: click.Parameter) -> tuple[st.SearchStrategy[str] | None, st.SearchStrategy[str]]:
    """(good values, bad values) of a parameter: by its name, else by its type."""
    return BY_NAME[param.name] if param.name in BY_NAME else _by_type(param)


EXTRA = ["--bogus", "-Z", "--players", "--out", "stray", "--", "-q", "--json", "--games=20", "--seed=x"]


@st.composite
def parameter_tokens(draw, param: click.Parameter, bad: bool) -> list[list[str]]:
    """The command-line pieces of one parameter: groups of tokens (an option and its value) for
    an option, one group of values for an argument. A bad parameter gets a bad value, or is left
    out, given twice, or given without its value."""
    good, wrong = values(param)
    if good is None and not bad:
        return []  # no good value is drawn (a Dask cluster): left out
    value = wrong if bad else good
    if isinstance(param, click.Argument):
        if param.nargs == -1:
            n = draw(st.integers(0 if bad else 1, 3))
            return [[draw(value) for _ in range(n)]] if n else []
        if (bad or not param.required) and draw(st.booleans()):
            return []  # left out
        return [[draw(value)]]
    if getattr(param, "is_flag", False):
        name = draw(st.sampled_from([None, *param.opts, *param.secondary_opts]))
        return [[name]] if name else []
    forms = ["give", "give", "give", "omit", "twice", "bare"] if bad else ["give", "omit"]
    if getattr(param, "_flag_needs_value", False):  # a value of its own when given bare (--advise [KINDS])
        forms.append("bare")
    how = draw(st.sampled_from(forms))
    if how == "omit" and param.name in ALWAYS_GIVEN:
        how = "give"
    if how == "omit":
        return []
    if how == "bare":
        return [[draw(st.sampled_from(param.opts))]]
    if how == "twice":
        groups = [[draw(st.sampled_from(param.opts)), draw(v)] for v in (wrong if good is None else good, wrong)]
        return draw(st.permutations(groups))
    n = draw(st.integers(1, 3)) if param.multiple else 1
    return [[draw(st.sampled_from(param.opts)), draw(value)] for _ in range(n)]


@st.composite
def argument_lists(draw) -> list[str]:
    """A command and its arguments, ``{ws}`` standing for the example's workspace."""
    names = sorted(cli.commands)
    name = draw(st.sampled_from(names + ["frobnicate"]))
    if name not in cli.commands:
        return [name]
    command = cli.commands[name]
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    bad = draw(st.sets(st.sampled_from([p.name for p in params]), max_size=2)) if params else set()
    options, arguments = [], []
    for param in params:
        groups = draw(parameter_tokens(param, param.name in bad))
        (arguments if isinstance(param, click.Argument) else options).extend(groups)
    options = draw(st.permutations(options))
    extra = draw(st.lists(st.sampled_from(EXTRA), max_size=1 if bad else 0))
    flat_options = [token for group in options for token in group]
    flat_arguments = [token for group in arguments for token in group]
    head = flat_arguments + flat_options if draw(st.booleans()) else flat_options + flat_arguments
    return [name, *head, *extra]


def value_params(args: list[str]) -> dict[int, click.Parameter]:
    """Where each value of a command line is (its index in ``args``), and whose value it is:
    the token after a value-taking option, and the positional arguments in order."""
    command = cli.commands[args[0]]
    by_opt = {opt: p for p in command.params if isinstance(p, click.Option) for opt in p.opts + p.secondary_opts}
    positional = [p for p in command.params if isinstance(p, click.Argument)]
    out, i = {}, 1
    while i < len(args):
        param = by_opt.get(args[i])
        if param is not None and not param.is_flag:
            out[i + 1] = param
            i += 2
            continue
        if param is None and positional:
            out[i] = positional[0] if positional[0].nargs == -1 else positional.pop(0)
        i += 1
    return out


# each dataset kind's broken copies, named after it
BROKEN = {name: [f"{name}-cut", f"{name}-junk", f"{name}-hollow"] for name in CUT}
BROKEN["trace.jsonl"] = ["cut.jsonl", "bin.jsonl"]


@st.composite
def variations(draw) -> list[str]:
    """A command that runs (EXAMPLES: those of SETUP, which wrote the workspace, and more) with
    one of its datasets or traces, read or written, perhaps swapped for a broken copy of it (the
    same run: it resumes, or is refused), and one or two of its values drawn afresh."""
    args = list(draw(st.sampled_from(EXAMPLES)))
    at = value_params(args)
    for i in at:
        if args[i] in BROKEN and draw(st.booleans()):
            args[i] = draw(st.sampled_from(BROKEN[args[i]]))
    for i in draw(st.lists(st.sampled_from(sorted(at)), max_size=2, unique=True)):
        good, wrong = values(at[i])
        args[i] = draw(wrong if good is None or draw(st.booleans()) else good)
    return args


# -- the property -------------------------------------------------------------------------------


def check(args: list[str], ws: Path) -> click.testing.Result:
    """Run ``smsim ARGS`` in ``ws`` (its working directory) and assert the property."""
    before = snapshot(ws)
    here = os.getcwd()
    os.chdir(ws)
    try:
        result = CliRunner().invoke(cli, args, catch_exceptions=True)
    finally:
        os.chdir(here)
    command = args[0] if args else ""
    shown = f"smsim {' '.join(repr(a) for a in args)}\n{result.output}"
    assert "Traceback (most recent call last)" not in result.output, shown
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        raise AssertionError(shown + "\n" + "".join(traceback.format_exception(*result.exc_info)))
    allowed = {EXIT_OK, EXIT_BAD_INPUT} | EXTRA_EXITS.get(command, set())
    assert result.exit_code in allowed, shown
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error:")]
    assert len(errors) <= 1, shown
    after = snapshot(ws)
    if result.exit_code == EXIT_BAD_INPUT:
        assert errors and lines[-1] == errors[0], shown  # one line, the last: nothing after it
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k, 0) != after.get(k, 0))
        assert not changed, f"{shown}\nrefused, but changed: {changed}"
    else:
        assert not errors, shown
    was, now = kinds(before), kinds(after)
    for folder, held in was.items():  # each dataset is still what it was, or damaged as it was
        same = now.get(folder, {}).keys() == held.keys() and all(
            v is None or now[folder][k] == v for k, v in held.items()
        )
        assert same, f"{shown}\n{folder or '.'} held {held}, now {now.get(folder)}"
    return result


def _workspace(template: Path) -> Path:
    ws = Path(tempfile.mkdtemp(prefix="ws-", dir=template.parent))
    shutil.copytree(template, ws, dirs_exist_ok=True, symlinks=True)
    (ws / "ro").chmod(stat.S_IRUSR | stat.S_IXUSR)
    return ws


def _remove(ws: Path) -> None:
    for base, dirs, _ in os.walk(ws):
        for name in dirs:
            os.chmod(os.path.join(base, name), 0o700)
    shutil.rmtree(ws, ignore_errors=True)


def run_example(template: Path, args: list[str]) -> int:
    """Check ``smsim ARGS`` in a fresh copy of the workspace; its exit status."""
    ws = _workspace(template)
    try:
        return check([a.replace("{ws}", str(ws)) for a in args], ws).exit_code
    finally:
        _remove(ws)


SETTINGS = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))


@settings(max_examples=60, derandomize=True, **SETTINGS)
@given(args=st.one_of(argument_lists(), variations()))
def test_any_arguments(template, args):
    """Any drawn argument list: exit 0 or 2, at most one Error line, no traceback, nothing
    changed by a refused run, no dataset turned into another kind (the default suite: a fixed
    set of examples). A report's figures are left blank: what is checked is the command's exit
    and what it leaves on disk, not the drawing (the report tests draw)."""
    with figures_left_blank():
        event(f"{args[0]}: exit {run_example(template, args)}")


@pytest.mark.slow
@settings(max_examples=3000, **SETTINGS)
@given(args=st.one_of(argument_lists(), variations()))
def test_any_arguments_long(template, args):
    """The same property over many more examples, drawn afresh each run (``--hypothesis-seed``)."""
    with figures_left_blank():
        event(f"{args[0]}: exit {run_example(template, args)}")


# -- the checker can fail -------------------------------------------------------------------------


def test_the_checker_catches_a_traceback_two_errors_and_a_changed_dataset(template, monkeypatch):
    """A command that raises, one that prints two Error lines, one that exits 2 after writing
    into the dataset it was given, one that exits 1, and one that succeeds after writing another
    kind's manifest into it: each fails the property; the real command passes."""
    command = cli.commands["summary"]

    def raises(dataset, fmt):
        raise RuntimeError("boom")

    def two_errors(dataset, fmt):
        click.echo("Error: one", err=True)
        raise click.UsageError("two")

    def writes(dataset, fmt):
        (Path(dataset) / "manifest.json").write_text("{}")
        raise click.UsageError("refused")

    def exits_1(dataset, fmt):
        raise SystemExit(1)

    def mixes(dataset, fmt):
        (Path(dataset) / "fairness.json").write_text('{"kind": "smsim-fairness"}')

    for callback in (raises, two_errors, writes, exits_1, mixes):
        monkeypatch.setattr(command, "callback", callback)
        with pytest.raises(AssertionError):
            run_example(template, ["summary", "{ws}/run"])
    monkeypatch.undo()
    assert run_example(template, ["summary", "{ws}/run"]) == EXIT_OK
