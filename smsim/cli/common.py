"""What every command shares: the ``smsim`` group, one-line errors (exit status 2), and the checks
of arguments, rules, line-ups and outputs that run before the engine is compiled or loaded."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from smsim import __version__, checks
from smsim.checks import int_or_text, whole
from smsim.errors import SmsimError
from smsim.rules import Rules, load_rules

if TYPE_CHECKING:
    from smsim.runs.spec import RunSpec

EXIT_BAD_INPUT = 2


EXIT_DISCREPANCY = 1


class InputError(click.ClickException):
    """Bad input: one line, exit status 2."""

    exit_code = EXIT_BAD_INPUT


def fail(message: str) -> None:
    raise InputError(message)


def rules_from(rules_file: str | None, rule: tuple[str, ...]) -> Rules:
    return load_rules(rules_file, list(rule))


def policy_names(values: tuple[str, ...]) -> list[str] | None:
    """``--policy a --policy b`` or ``--policy a,b``."""
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    return names or None


def lineup(players: int, values: tuple[str, ...]) -> list:
    """The policy of every seat (``play.api.verify_lineup``), checked before the engine is compiled."""
    from smsim.play.api import verify_lineup

    return verify_lineup(players, policy_names(values))[1]


def run_of(games: str, players: int, policy: tuple[str, ...], seed: int, rules: Rules) -> RunSpec:
    """A run's inputs from the command line (``--games`` as text, ``--policy`` as given), checked
    once (``spec.verify_run``) before the engine is compiled; the command passes this on."""
    from smsim.runs.spec import verify_run

    return verify_run(count_of(games, "--games"), players, policy_names(policy), seed, rules)


def check_file_out(path: str, what: str) -> None:
    """An output file that could not be written is refused before any game is played."""
    from smsim.runs.storage import unwritable

    if Path(path).is_dir():
        fail(f"{what} {path!r} is a directory")
    why = unwritable(Path(path))
    if why is not None:
        fail(f"cannot write {what} {path!r}: {why}")


# the trust boundaries (docs/trust.md), said where an option takes code or data from someone else
POLICY_HELP = (
    "One for all seats, or one per seat (repeat or comma-separate). A policy file.py:function is "
    "code and runs as you (docs/trust.md)."
)
TRUST_CLUSTER = "; a scheduler without TLS runs whatever its clients send (docs/trust.md)."


def policy_option(f):
    return click.option("--policy", multiple=True, help=POLICY_HELP)(f)


def run_options(games_help: str, seed_help: str):
    """The options of a run of many games: --games, --players, --policy, --seed (simulate, sweep)."""

    def wrap(f):
        f = click.option("--seed", "-s", type=int, default=0, show_default=True, help=seed_help)(f)
        f = policy_option(f)
        f = click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")(f)
        return click.option("--games", "-n", type=str, default="10000", show_default=True, help=games_help)(f)

    return wrap


def cluster_option(needs_out: bool):
    where = " (with --out)" if needs_out else ""
    return click.option(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help=f"Play on a Dask cluster{where}: local:N worker processes, or tcp://host:8786" + TRUST_CLUSTER,
    )


rules_options = [
    click.option(
        "--rules",
        "rules_file",
        type=str,
        default=None,
        help="A variant: TOML file of rules fields (data, never executed).",
    ),
    click.option("--rule", multiple=True, metavar="FIELD=VALUE", help="Override one rules field (repeatable)."),
]


def with_rules(f):
    for option in reversed(rules_options):
        f = option(f)
    return f


class SmsimGroup(click.Group):
    """Bad input becomes one line ``Error: ...`` with exit status 2: click's own usage errors, and
    every ``SmsimError`` a command raises (smsim.errors: each names what is wrong), so no command
    catches them one class at a time."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            click.echo(f"Error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code if isinstance(exc, InputError) else EXIT_BAD_INPUT)
        except SmsimError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(EXIT_BAD_INPUT)


@click.group(cls=SmsimGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="smsim")
def cli() -> None:
    """smsim: Monte Carlo strategy analysis of the dice game Saint Malo.

    \b
    Examples:
      smsim play --players 3 --seed 7
      smsim simulate --games 100000 --players 4 --policy greedy --policy random
      smsim score city.txt --json
      smsim validate game.jsonl
      smsim tune --games 4000 --budget 120 --out tuned.toml
      smsim advise game.jsonl --decision 41
      smsim sweep --vary side_defence=1,2,3 --games 20000 --out runs/defence
      smsim fairness --players 4 --by coins --games 20000
    """


# -- simulate ---------------------------------------------------------------------------------
def engine_ready(players: int, specs: list, rules: Rules, rounds: bool = False) -> None:  # the line-up: RunSpec.lineup
    """The first run on a machine compiles the engine (once): say so on standard error, and
    compile it with one game of each policy first, so that the progress and the games per second
    printed afterwards are the playing rate, not the compiler's. ``rounds``: the loop that records
    round snapshots too. Called once every argument has been checked: bad input never waits for
    the compiler."""
    import time

    from smsim._cache import cache_dir
    from smsim.runs.batch import run_games, simulate_summary
    from smsim.runs.runner import kernel_compiled
    from smsim.warmup import compiling

    if kernel_compiled(players, specs, rules) and (not rounds or kernel_compiled(players, specs, rules, rounds)):
        return
    click.echo(
        f"smsim: compiling the game engine for this machine, first run only (cached in "
        f"{cache_dir()}; `smsim warmup` compiles ahead) ...",
        err=True,
    )
    start = time.perf_counter()
    with compiling():
        for spec in {s.name: s for s in specs}.values():  # a command's path: the play loop and the headline sums
            simulate_summary(1, players, [spec], 0, rules, threads=1)
            if rounds:
                run_games(1, players, [spec], 0, rules, threads=1, rounds=True)
    click.echo(f"smsim: compiled in {time.perf_counter() - start:.0f} s", err=True)


def count_of(text: str, what: str, high: int | None = None) -> int:
    """A whole number from 1 to ``high`` (default ``runs.spec.MAX_GAMES``), such as 10000, 10_000
    or 1e6, checked as the Python API checks it (``smsim.checks.whole``)."""
    from smsim.runs.spec import MAX_GAMES

    value = int_or_text(text.replace("_", "").replace(",", "").strip())
    if isinstance(value, str) and _is_number(value):  # 1e6 is a whole number; 2.5, inf and nan are refused
        number = float(value)
        value = int(number) if number.is_integer() else number
    return whole(value, what, low=1, high=MAX_GAMES if high is None else high, error=InputError)


def caps_of(values: tuple[str, ...], what: str) -> dict[str, int]:
    """``--cap NAME=GAMES`` (repeatable): at most GAMES games in a cell with NAME (a level, a rung)."""
    caps = {}
    for text in values:
        name, sep, value = (x.strip() for x in text.partition("="))
        if not sep or not name:
            fail(f"--cap {text!r}: expected {what}=GAMES")
        caps[name] = count_of(value, f"--cap {name}")
    return caps


def comma_names(text: str | None) -> list[str]:
    """The names of a comma-separated option, blanks left out."""
    return [x.strip() for x in (text or "").split(",") if x.strip()]


def player_counts(text: str) -> list[int]:
    """``--players 2,4``: player counts, each 2 to 5; anything else refused in one line."""
    values = comma_names(text)
    if not values:
        fail(f"--players {text!r}: expected player counts, such as 2,4")
    return [checks.whole(checks.int_or_text(v), "--players", low=2, high=5, error=InputError) for v in values]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:  # a word: whole() refuses the text as it was written
        return False
    return True


def check_cluster_option(cluster: str | None, out: str | None, needs_out: bool = True) -> None:
    """A bad --cluster, or one without --out, or without Dask installed: one line, exit 2
    (smsim.runs.executors.dask imports Dask only inside its functions)."""
    from smsim.runs.executors.dask import check

    if cluster is None:
        return
    check(cluster)
    if out is None and needs_out:
        fail("--cluster needs --out DIR: the workers write the dataset there (a directory every worker sees)")


def check_run_out(out: str, run: RunSpec, batch: int | None, rounds: bool = False) -> None:
    """``simulate --out``: a directory that holds another run, or cannot be written, is refused
    before the engine is compiled (``folder.check_out``; the run itself checks again)."""
    from smsim.runs.dataset import run_identity
    from smsim.runs.spec import verify_batch

    identity = run_identity(
        run.games, run.players, run.lineup, run.seed, run.rules, verify_batch(batch, run.games), rounds
    )
    check_folder_out(out, "dataset", identity)


def check_folder_out(out: str, kind: str, inputs: dict | None = None) -> None:
    """An --out folder that ``kind``'s run may not write is refused before any game (``folder.check_out``)."""
    from smsim.runs.folder import check_out as check_folder

    check_folder(out, kind, inputs)


def check_out(out: str | None) -> None:
    """An --out URL that cannot be opened (no fsspec, or its scheme's package missing): one line,
    exit 2, before the engine is compiled or anything written (smsim.runs.storage)."""
    from smsim.runs.storage import is_url, location

    if out is not None and is_url(out):
        location(out)
