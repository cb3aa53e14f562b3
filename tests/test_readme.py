"""The README's example commands work: every ``smsim ...`` line of its ```sh blocks is parsed by the
command line (the command exists and click accepts its arguments, without running it), and the
cheap ones are run, in the README's order, in a temporary directory, in this process.

Each command is listed here by the README's own words, as run (``RUN``) or only parsed
(``PARSE_ONLY``, with the reason), so a command added to the README, or changed, fails until it is
placed in one list. A run command that plays many games is run with its game count replaced by a
small one (``RUN``'s value names the option and the count), which is the one thing that differs
from the README's line; the rest run as written. Only parsed: what compiles another loop of the
engine (learned, search, exact keeps, round snapshots, restricted play: each a first compile of
half a minute to a minute and a half on a cold cache), what needs a Dask cluster, or what needs
files the README does not make (a win-probability model, datasets of other player counts).
"""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

# README line -> None (run as written) or (option, count): run with that option's value replaced
RUN: dict[str, tuple[str, str] | None] = {
    "smsim --help": None,
    "smsim play --players 3 --seed 7 --game 2": None,
    "smsim play --players 4 --seed 7 --trace game.jsonl --quiet": None,
    "smsim validate game.jsonl": None,
    "smsim replay game.jsonl --html game.html": None,
    "smsim score city.txt --json": None,  # city.txt: CITY below, written first (the README shows none)
    "smsim simulate --games 100000 --players 2 --policy balanced --policy random --seed 1": ("--games", "200"),
    "smsim simulate -n 1e7 -p 3 --policy balanced,greedy,walls --seed 7 --out runs/three": ("-n", "300"),
    "smsim summary runs/three": None,
    "smsim policies": None,
    "smsim compare balanced greedy walls random --players 4 --games 48000": ("--games", "96"),
    "smsim study --variant milder-cannons --players 2 --levels balanced,greedy --time 2m --out runs/milder": (
        "--time",
        "2s",
    ),
    "smsim variants": None,
    "smsim sweep --vary side_defence=1,2,3 --games 20000 --out runs/defence": ("--games", "100"),
    "smsim sweep --variant free-rotation --games 20000 --adapt --out runs/free": ("--games", "100"),
    "smsim fairness --players 4 --by coins --games 20000 --out runs/fair4": ("--games", "40"),
    "smsim bonus-value --players 4 --policy balanced --games 20000 --out runs/bonus4": ("--games", "40"),
    "smsim report runs/three --out reports/mine": None,
    "smsim plot seat-advantage runs/three --out seats.svg": None,
}

SEARCH = "plays the search (rollout): its own first compile, and seconds a game"
LEARNED = "plays learned: the learned loop's own first compile"
FEEL = "needs the folders the feel commands write"
PARSE_ONLY: dict[str, str] = {
    "smsim study my-rules.toml --players 4 --time 10m --out runs/my-rules": LEARNED + "; needs a rules file of yours",
    "smsim advise game.jsonl --decision 41": SEARCH,
    "smsim advise --players 4 --seed 7 --decision 41 --json": SEARCH,
    "smsim play --players 4 --seed 7 --advise": SEARCH,
    "smsim simulate -n 1e6 --policy balanced --out runs/big --cluster local:2": "starts a Dask cluster",
    "smsim warmup --all": "compiles every loop of the engine (minutes on a cold cache)",
    "smsim compare rollout balanced balanced balanced --players 4 --games 4000 --seed 6200": SEARCH,
    "smsim tune --players 4 --games 4000 --budget 120 --seed 1 --out tuned.toml": "runs for its --budget of 120 s",
    "smsim learn --out runs/learn --decisions 20000 --iterations 2 --seed 1": SEARCH + " (the teacher)",
    "smsim compare runs/learn/model.json learned --players 2 --games 20000": LEARNED + "; needs learn's model",
    "smsim skill --players 4 --games 20000 --variant free-rotation --out runs/skill4": LEARNED,
    "smsim regret balanced learned greedy --players 4 --games 4000": "the exact keep's own compile; " + LEARNED,
    "smsim ladder --players 2,4 --games 4000 --out runs/ladder": SEARCH,
    "smsim simulate -n 100000 -p 4 --policy balanced --rounds --out runs/bal4": "the round snapshots' own compile",
    "smsim winprob runs/bal2 runs/bal4 --out winprob.json": "needs --rounds datasets at 2 and 4 players",
    "smsim shape runs/bal2 runs/bal4 --model winprob.json": "needs a win-probability model",
    "smsim luck learned balanced --players 4 --games 2000 --model winprob.json": "needs a model; " + LEARNED,
    "smsim matters --players 2 --players 4 --games 10000": "restricted play's own compile; " + LEARNED,
    "smsim report runs/bal2 runs/bal4 runs/luck4 runs/matters --winprob winprob.json --out reports/feel": FEEL,
}

# a position for `smsim score city.txt` (docs/rules.md §8): the start city with a church, a wall,
# persons and a house, and what was left and lost
CITY = """\
+ . . . . . +
. C C . . . #
. C 3 3 3 . .
. C . . . . .
. . s p . . .
. H H . . . .
+ . . . . . +
coins: 3
logs: 2
cannons: 1
vp: 7
"""


def readme_commands(text: str) -> list[str]:
    """Every ``smsim ...`` command of the ```sh blocks of ``text``, in order, its comment dropped
    (``  # ...``) and a line of several (``a && b``) split into each."""
    found, in_sh = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_sh = line.strip() == "```sh"
            continue
        if not in_sh:
            continue
        code = re.sub(r"\s+#.*$", "", line).strip()
        for part in (p.strip() for p in code.split("&&")):
            if part == "smsim" or part.startswith("smsim "):
                found.append(part)
    return found


def scaled(command: str, change: tuple[str, str] | None) -> list[str]:
    """The arguments of ``command`` (after ``smsim``), with ``change``'s option given its count."""
    args = shlex.split(command)[1:]
    if change is None:
        return args
    option, count = change
    assert option in args, f"{command!r} has no {option}: RUN's scaling must name an option it gives"
    args[args.index(option) + 1] = count
    return args


COMMANDS = readme_commands(README.read_text(encoding="utf-8"))


def test_the_extraction_reads_sh_blocks_only_and_splits_chains():
    text = (
        "```sh\nsmsim play -p 2   # a game\nmake test\nsmsim play --trace t.jsonl && smsim validate t.jsonl\n```\n"
        "```\nsmsim compare a b   (output, not a command)\n```\n"
    )
    assert readme_commands(text) == ["smsim play -p 2", "smsim play --trace t.jsonl", "smsim validate t.jsonl"]
    assert scaled("smsim simulate -n 1e7 -p 3", ("-n", "300")) == ["simulate", "-n", "300", "-p", "3"]


def test_every_readme_command_is_run_or_said_to_be_only_parsed():
    assert len(COMMANDS) > 30  # an extraction that found nothing would prove nothing
    assert not set(RUN) & set(PARSE_ONLY)
    unplaced = [c for c in COMMANDS if c not in RUN and c not in PARSE_ONLY]
    assert not unplaced, "README commands neither in RUN nor in PARSE_ONLY:\n" + "\n".join(unplaced)
    gone = [c for c in (*RUN, *PARSE_ONLY) if c not in COMMANDS]
    assert not gone, "listed here, but no longer in the README:\n" + "\n".join(gone)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_readme_command_parses(command):
    """The command exists and click accepts its arguments and their types (nothing runs)."""
    import click

    from smsim.cli import cli

    args = shlex.split(command)[1:]
    if args == ["--help"]:
        return
    name, rest = args[0], args[1:]
    assert name in cli.commands, f"{command!r}: no command {name!r}"
    try:
        with cli.commands[name].make_context(name, rest):
            pass
    except click.ClickException as exc:  # a usage error: an unknown option, a bad value
        pytest.fail(f"{command!r}: {exc.format_message()}")


def test_the_cheap_readme_commands_run(run, tmp_path, monkeypatch, figures_blank):
    """The commands of ``RUN``, in the README's order (the trace before the referee reads it, the
    dataset before its summary and report), in one temporary directory; the reports' figures are
    left blank (the drawn reports are the session's and the report tests')."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "city.txt").write_text(CITY, encoding="utf-8")
    ran = []
    for command in COMMANDS:
        if command not in RUN:
            continue
        start = time.perf_counter()
        result = run(*scaled(command, RUN[command]))
        print(f"{time.perf_counter() - start:6.2f} s  {command}")
        assert result.exit_code == 0, f"{command!r} exited {result.exit_code}:\n{result.output}"
        ran.append(command)
    assert ran == [c for c in COMMANDS if c in RUN] and len(ran) == len(RUN)
    assert (tmp_path / "game.html").is_file() and (tmp_path / "reports" / "mine" / "report.html").is_file()
