"""The ``smsim`` command: a thin click layer over the Python API.

Bad input ends with one line ``Error: ...`` on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from smsim import __version__
from smsim.errors import BoardError
from smsim.errors import PolicyError
from smsim.rules import Rules, load_rules
from smsim.errors import RulesError

EXIT_BAD_INPUT = 2
EXIT_DISCREPANCY = 1


class InputError(click.ClickException):
    """Bad input: one line, exit status 2."""

    exit_code = EXIT_BAD_INPUT


def _fail(message: str) -> None:
    raise InputError(message)


def _rules(rules_file: str | None, rule: tuple[str, ...]) -> Rules:
    try:
        return load_rules(rules_file, list(rule))
    except RulesError as exc:
        _fail(str(exc))
        raise  # unreachable


def _policies(values: tuple[str, ...]) -> list[str] | None:
    """``--policy a --policy b`` or ``--policy a,b``."""
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    return names or None


def _lineup(players: int, values: tuple[str, ...]) -> list:
    """The policy of every seat (``sim.verify_lineup``), checked before the engine is compiled."""
    from smsim.play.api import verify_lineup
    from smsim.errors import SimulationError

    try:
        return verify_lineup(players, _policies(values))[1]
    except (SimulationError, PolicyError) as exc:
        _fail(str(exc))
        raise  # unreachable


def _check_file_out(path: str, what: str) -> None:
    """An output file that could not be written is refused before any game is played."""
    from smsim.runs.storage import unwritable

    if Path(path).is_dir():
        _fail(f"{what} {path!r} is a directory")
    why = unwritable(Path(path))
    if why is not None:
        _fail(f"cannot write {what} {path!r}: {why}")


rules_options = [
    click.option("--rules", "rules_file", type=str, default=None, help="A variant: TOML file of rules fields."),
    click.option("--rule", multiple=True, metavar="FIELD=VALUE", help="Override one rules field (repeatable)."),
]


def with_rules(f):
    for option in reversed(rules_options):
        f = option(f)
    return f


class SmsimGroup(click.Group):
    """click's own usage errors become one line ``Error: ...`` with exit status 2."""

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


# -- play -------------------------------------------------------------------------------------
@cli.command()
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The run's seed.")
@click.option("--game", "-g", type=int, default=0, show_default=True, help="Game index within the run.")
@click.option("--policy", multiple=True, help="One for all seats, or one per seat (repeat or comma-separate).")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), help="Write the JSON-lines trace here.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the final scores.")
@click.option("--advise", "advise_kinds", is_flag=False, flag_value="use", default=None, metavar="[KINDS]",
              help="Mark the decisions whose pick is significantly worse than the best move (docs/advise.md); "
                   "KINDS: comma-separated decision kinds, e.g. keep,use [default: use].")  # fmt: skip
@click.option("--advise-playouts", type=int, default=None, help="Playouts per candidate for --advise [default: 128].")
@with_rules
def play(players, seed, game, policy, trace_file, quiet, advise_kinds, advise_playouts, rules_file, rule) -> None:
    """Play one game and tell it turn by turn, cities drawn in the board text format.

    With --advise, each turn is followed by the decisions where the policy's pick was
    significantly worse than the best move found by playouts (``smsim advise``), with the
    estimated cost in win probability.

    \b
    Examples:
      smsim play --players 3 --seed 7 --game 2
      smsim play -p 4 --policy greedy,random,greedy,random --trace game.jsonl
      smsim play -p 4 --seed 7 --advise use
    """
    from smsim.play.api import play_game
    from smsim.errors import SimulationError
    from smsim.play.tracefile import write_jsonl

    rules = _rules(rules_file, rule)
    if game < 0:
        _fail(f"--game must be >= 0, got {game}")
    kinds = _advise_kinds(advise_kinds, advise_playouts)
    _lineup(players, policy)
    if trace_file:
        _check_file_out(trace_file, "trace")
    try:
        traced = play_game(players, seed, game, _policies(policy), rules)
    except (SimulationError, PolicyError) as exc:
        _fail(str(exc))
    notes = None
    if kinds:
        from smsim.studies.advise import ANNOTATE_PLAYOUTS, annotate_game
        from smsim.errors import AdviseError

        try:
            _, notes, _ = annotate_game(players, seed, game, _policies(policy), rules, kinds,
                                        advise_playouts or ANNOTATE_PLAYOUTS)  # fmt: skip
        except AdviseError as exc:
            _fail(str(exc))
    if trace_file:
        try:
            with open(trace_file, "w", encoding="utf-8") as fh:
                write_jsonl(traced.records, fh)
        except OSError as exc:
            _fail(f"cannot write trace {trace_file!r}: {exc.strerror}")
    from smsim.play.narrate import narrate

    click.echo(narrate(traced.records, quiet=quiet, notes=notes))


def _advise_kinds(value: str | None, playouts: int | None) -> tuple[str, ...]:
    """The decision kinds ``play --advise`` evaluates (upper-case ``layout.Decision`` names)."""
    from smsim.layout import Decision

    if value is None:
        if playouts is not None:
            _fail("--advise-playouts needs --advise")
        return ()
    if playouts is not None and playouts < 1:
        _fail(f"--advise-playouts must be >= 1, got {playouts}")
    kinds = tuple(dict.fromkeys(k.strip().upper() for k in value.split(",") if k.strip()))
    unknown = [k for k in kinds if k not in Decision.__members__]
    if unknown or not kinds:
        known = ", ".join(d.name.lower() for d in Decision)
        _fail(f"--advise: unknown decision kind {unknown[0].lower() if unknown else value!r}; known: {known}")
    return kinds


# -- advise -----------------------------------------------------------------------------------
@cli.command()
@click.argument("trace_file", required=False, type=str)
@click.option("--decision", "-d", type=int, required=True, help="The decision's number (docs/trace.md), from 0.")
@click.option("--players", "-p", type=int, default=None, help="Players, 2 to 5 [default: 4].")
@click.option("--seed", "-s", type=int, default=None, help="The run's seed [default: 0].")
@click.option("--game", "-g", type=int, default=None, help="Game index within the run [default: 0].")
@click.option("--policy", multiple=True, help="One for all seats, or one per seat (repeat or comma-separate).")
@click.option("--playouts", "-k", type=int, default=None, help="Continuations per candidate [default: 200].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_rules
def advise(trace_file, decision, players, seed, game, policy, playouts, as_json, rules_file, rule) -> None:
    """The best move at one decision of a game: every legal candidate valued by playouts to the
    end (common dice; each seat's base policy plays on), with its win probability and mean final
    VP and their 95% intervals, best first, the policy's own pick marked (docs/advise.md).

    The game is game --game of --seed with those --policy and rules, or the first game of
    TRACE_FILE (``smsim play --trace``). Decision numbers are in the trace's turn lines.

    \b
    Examples:
      smsim advise --players 4 --seed 7 --game 0 --decision 41
      smsim play --seed 7 --trace game.jsonl && smsim advise game.jsonl --decision 41 --json
    """
    from smsim.studies.advise import DEFAULT_PLAYOUTS, advise_trace
    from smsim.errors import AdviseError
    from smsim.studies.advise import advise as run_advise

    playouts = DEFAULT_PLAYOUTS if playouts is None else playouts
    if playouts < 1:
        _fail(f"--playouts must be >= 1, got {playouts}")
    if decision < 0:
        _fail(f"--decision must be >= 0, got {decision}")
    try:
        if trace_file is not None:
            given = [name for name, value in (("--players", players), ("--seed", seed), ("--game", game),
                                              ("--policy", policy or None), ("--rules", rules_file),
                                              ("--rule", rule or None)) if value is not None]  # fmt: skip
            if given:
                _fail(f"{', '.join(given)} cannot be given with a trace file: the trace says its game")
            if not Path(trace_file).is_file():
                _fail(f"no trace file {trace_file!r}")
            result = advise_trace(trace_file, decision, playouts)
        else:
            rules = _rules(rules_file, rule)
            if game is not None and game < 0:
                _fail(f"--game must be >= 0, got {game}")
            _lineup(4 if players is None else players, policy)
            result = run_advise(4 if players is None else players, 0 if seed is None else seed,
                                0 if game is None else game, decision, _policies(policy), playouts, rules)  # fmt: skip
    except AdviseError as exc:
        _fail(str(exc))
    click.echo(result.to_json() if as_json else result.text())


# -- validate ---------------------------------------------------------------------------------
@cli.command()
@click.argument("trace_file", type=str)
def validate(trace_file: str) -> None:
    """Replay a trace with the independent referee; exit 1 at the first discrepancy (exit 2 for
    a file that holds no game at all).

    \b
    Example:
      smsim play --seed 3 --trace game.jsonl && smsim validate game.jsonl
    """
    from smsim.play.referee import check_trace

    path = Path(trace_file)
    if not path.is_file():
        _fail(f"no trace file {trace_file!r}")
    n_games, problems = check_trace(path)
    if n_games == 0:  # nothing to check: not a trace at all, which is bad input, not a broken rule
        why = problems[0].message.replace("\n", " ") if problems else "no game line"
        _fail(f"{trace_file!r} is not a trace (docs/trace.md): {why}")
    if problems:
        for problem in problems:
            click.echo(str(problem))
        click.echo(f"{len(problems)} of {n_games} games broke a rule")
        sys.exit(EXIT_DISCREPANCY)
    click.echo(f"{n_games} games checked: every move legal, every gain and score right")


# -- score ------------------------------------------------------------------------------------
@cli.command()
@click.argument("city_file", type=str)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_rules
def score(city_file: str, as_json: bool, rules_file, rule) -> None:
    """End-of-game score of a written city: each part in VP, beside the count it comes from.

    CITY_FILE is the board text (docs/rules.md §8), then optional lines ``coins: N``, ``logs: N``,
    ``cannons: N`` (lost) and ``vp: N`` (earned during play). With --json, ``coins``, ``logs``,
    ``cannons`` are the VP they score and ``coins_left``, ``logs_left``, ``cannons_lost`` the counts.

    \b
    Example:
      smsim score city.txt --json
    """
    from smsim.play.board import parse_position
    from smsim.play.api import score_city

    rules = _rules(rules_file, rule)
    try:
        text = Path(city_file).read_text(encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot read city file {city_file!r}: {exc.strerror}")
    except UnicodeDecodeError:
        _fail(f"city file {city_file!r} is not text")
    try:
        city, extra = parse_position(text)
    except BoardError as exc:
        _fail(f"{city_file}: {exc}")
    result = score_city(city, extra["coins"], extra["logs"], extra["cannons"], extra["vp"], rules)
    if as_json:  # coins, logs, cannons are VP (as in the dataset's *_vp columns); *_left, *_lost are counts
        click.echo(json.dumps(result))
        return
    series = ", ".join(f"{n} ({rules.church_series_vp[n - 1]} VP)" for n in result["series"]) or "none"
    rows = [  # (what, count or "", VP)
        ("churches", sum(result["churches"]), result["church_vp"]),
        ("earned during play", "", result["earned"]),
        ("coins left", result["coins_left"], result["coins"]),
        ("logs left", result["logs_left"], result["logs"]),
        ("cannons lost", result["cannons_lost"], result["cannons"]),
        ("full city", "", result["full_city"]),
        ("total", "", result["total"]),
    ]
    lines = [
        f"churches by size 1-5  {' '.join(str(n) for n in result['churches'])}",
        f"church series         {series}",
        f"{'':<20}  {'count':>5}  {'VP':>4}",
        *(f"{what:<20}  {count:>5}  {vp:>4}" for what, count, vp in rows),
    ]
    click.echo("\n".join(lines))


# -- simulate ---------------------------------------------------------------------------------
def _engine_ready(players: int, specs: list, rules: Rules) -> None:
    """The first run on a machine compiles the engine (once): say so on standard error, and
    compile it with one game of each policy first, so that the progress and the games per second
    printed afterwards are the playing rate, not the compiler's. Called once every argument has
    been checked: bad input never waits for the compiler."""
    import time

    from smsim._cache import cache_dir, engine_compiled
    from smsim.policies.registry import any_search
    from smsim.runs.batch import simulate_summary
    from smsim.warmup import compiling

    if engine_compiled(search=any_search(specs)):
        return
    click.echo(f"smsim: compiling the game engine for this machine, first run only (cached in "
               f"{cache_dir()}; `smsim warmup` compiles ahead) ...", err=True)  # fmt: skip
    start = time.perf_counter()
    with compiling():
        for spec in {s.name: s for s in specs}.values():  # a command's path: the play loop and the headline sums
            simulate_summary(1, players, [spec], 0, rules, threads=1)
    click.echo(f"smsim: compiled in {time.perf_counter() - start:.0f} s", err=True)


@cli.command()
@click.option("--search", is_flag=True, help="Also the loop of line-ups with the search policy (rollout).")
@click.option("--all", "everything", is_flag=True, help="Every part: the play loop, search, traces, advise.")
def warmup(search: bool, everything: bool) -> None:
    """Compile the engine now, ahead of the first run (for cluster workers and CI images).

    \b
    Compiles what simulate, compare, sweep, tune and fairness need with every policy but the
    search policy; --search adds line-ups with a rollout seat, --all also `smsim play` and
    `smsim advise`. The machine code goes to the on-disk cache, once per machine and engine
    version; when it is there already, warmup only says so."""
    from smsim._cache import cache_dir
    from smsim.warmup import ALL
    from smsim.warmup import warmup as compile_parts

    parts = ALL if everything else ("play", "search") if search else ("play",)
    cache = cache_dir()
    done = compile_parts(parts)
    for part in done:
        how = "compiled" if part.compiled else "already compiled, loaded"
        click.echo(f"{part.name:<7} {how} in {part.seconds:.1f} s: {part.description}")
    if any(part.compiled for part in done):
        click.echo(f"compiled in {sum(p.seconds for p in done):.1f} s; cached in {cache}")
    else:
        click.echo(f"already compiled: nothing to do (cache {cache})")


def _count(text: str, what: str) -> int:
    """A whole number of games from 1 to ``sim.MAX_GAMES``, such as 10000, 10_000 or 1e6."""
    from smsim.runs.spec import MAX_GAMES

    cleaned = text.replace("_", "").replace(",", "").strip()
    try:
        value = int(cleaned)
    except ValueError:
        try:
            as_float = float(cleaned)
        except ValueError:
            _fail(f"{what} must be a whole number, got {text!r}")
        if as_float == float("inf"):
            value = MAX_GAMES + 1
        elif not as_float.is_integer():
            _fail(f"{what} must be a whole number, got {text!r}")
        else:
            value = int(as_float)
    if value < 1:
        _fail(f"{what} must be >= 1, got {text!r}")
    if value > MAX_GAMES:  # a game index is an int64; a run stops far below that (sim.MAX_GAMES)
        _fail(f"{what} must be at most {MAX_GAMES:,} (1e10), got {text!r}")
    return value


@cli.command()
@click.option("--games", "-n", type=str, default="10000", show_default=True, help="Games to play (1 to 1e10).")
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--policy", multiple=True, help="One for all seats, or one per seat (repeat or comma-separate).")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The run's seed.")
@click.option("--out", "-o", type=str, default=None,
              help="Dataset directory to write (resumable): a path, or a URL such as s3://bucket/run.")
@click.option("--batch", type=str, default=None, help="Games per part file (default: by run size).")
@click.option("--threads", type=int, default=None, help="Threads (default: every core, or SMSIM_THREADS).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play on a Dask cluster (with --out): local:N worker processes, or tcp://host:8786.")
@with_rules
def simulate(games, players, policy, seed, out, batch, threads, quiet, cluster, rules_file, rule) -> None:
    """Play many games; print win rates and scores by policy and by seat.

    Games are played a chunk at a time and only running sums are kept, so memory stays flat
    however many games are played. With --out DIR the games are written as a dataset (Parquet, one row per player per game and
    one per game, plus a manifest) part by part. Interrupt it at any moment (Ctrl-C, or kill) and
    run the same command again: only the missing games are played, and the dataset ends up
    identical to an uninterrupted run's. A directory written by a different command is refused.

    \b
    Examples:
      smsim simulate --games 100000 --players 4 --policy balanced --policy random
      smsim simulate -n 1e7 -p 3 --policy balanced,greedy,walls --seed 7 --out runs/three
      smsim simulate -n 50000 -p 2 --policy greedy --rule allow_pass=true
      smsim simulate -n 1e8 --policy balanced --out /shared/runs/big --cluster tcp://scheduler:8786

    With --cluster the parts are played on a Dask distributed cluster (docs/cluster.md): each
    worker writes its parts into --out, which every worker must see; --threads is then the
    threads of one part on its worker. The dataset is the same as without --cluster.
    """
    import time

    from smsim.errors import ClusterError
    from smsim.errors import DatasetError
    from smsim.runs.batch import simulate_summary, simulate_to
    from smsim.errors import SimulationError
    from smsim.report.terminal import print_tables

    rules = _rules(rules_file, rule)
    n_games = _count(games, "--games")
    batch_size = _count(batch, "--batch") if batch is not None else None
    if threads is not None and threads < 1:
        _fail(f"--threads must be >= 1, got {threads}")
    _check_cluster(cluster, out)
    _check_out(out)
    specs = _lineup(players, policy)
    if out is not None:
        _check_run_out(out, n_games, players, specs, seed, rules, batch_size)
    try:
        _engine_ready(players, specs, rules)
        if out is None:
            start = time.perf_counter()
            with _progress(n_games, quiet) as report:
                result = simulate_summary(n_games, players, _policies(policy), seed, rules, threads=threads,
                                          on_progress=report)  # fmt: skip
            print_tables(result.tables, elapsed=time.perf_counter() - start)
            return
        start = time.perf_counter()
        with _progress(n_games, quiet) as report:
            result = simulate_to(out, n_games, players, _policies(policy), seed, rules, batch=batch_size,
                                 threads=threads, command=["smsim", *sys.argv[1:]], on_progress=report,
                                 cluster=cluster)  # fmt: skip
        elapsed = time.perf_counter() - start
        print_tables(result.tables)
        click.echo(f"dataset: {out} ({result.games:,} games; {result.played:,} played now in {elapsed:.1f} s)")
    except (SimulationError, PolicyError, DatasetError, ClusterError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        if out is None:
            click.echo("\ninterrupted", err=True)
        else:
            click.echo(f"\ninterrupted: the parts already written in {out} are complete; run the same command "
                       f"to play only the missing games", err=True)  # fmt: skip
        sys.exit(130)


def _check_cluster(cluster: str | None, out: str | None, needs_out: bool = True) -> None:
    """A bad --cluster, or one without --out, or without Dask installed: one line, exit 2
    (smsim.runs.executors.dask imports Dask only inside its functions)."""
    from smsim.runs.executors.dask import check
    from smsim.errors import ClusterError

    if cluster is None:
        return
    try:
        check(cluster)
    except ClusterError as exc:
        _fail(str(exc))
    if out is None and needs_out:
        _fail("--cluster needs --out DIR: the workers write the dataset there (a directory every worker sees)")


def _check_run_out(out: str, games: int, players: int, specs: list, seed: int, rules: Rules,
                   batch: int | None) -> None:
    """``simulate --out``: a directory that holds another run, or cannot be written, is refused
    before the engine is compiled (``dataset.check_run``; the run itself checks again)."""
    from smsim.runs.dataset import check_run, run_identity
    from smsim.errors import DatasetError
    from smsim.runs.spec import verify_batch
    from smsim.errors import SimulationError
    from smsim.runs.storage import location

    try:
        identity = run_identity(games, players, specs, seed, rules, verify_batch(batch, games))
        check_run(location(out), identity)
    except (DatasetError, SimulationError) as exc:
        _fail(str(exc))


def _check_out(out: str | None) -> None:
    """An --out URL that cannot be opened (no fsspec, or its scheme's package missing): one line,
    exit 2, before the engine is compiled or anything written (smsim.runs.storage)."""
    from smsim.errors import DatasetError
    from smsim.runs.storage import is_url, location

    if out is not None and is_url(out):
        try:
            location(out)
        except DatasetError as exc:
            _fail(str(exc))


class _progress:
    """A rich progress display fed by simulate_to's reports; it appears with the first report,
    so input refused up front prints nothing but its one line (nothing at all when quiet). Its
    last column is ``note``: the leading policy's win rate here."""

    stderr = False  # where the bar is drawn: standard error keeps standard output for the results

    def __init__(self, total: int, quiet: bool):
        self.total, self.quiet, self.bar = total, quiet, None

    def __enter__(self):
        return self.report

    def note(self, p) -> str:
        if not p.leader:
            return ""
        return f"leader {p.leader}: {100 * p.leader_rate:.1f}% [{100 * p.leader_lo:.1f}, {100 * p.leader_hi:.1f}]"

    def report(self, p) -> None:
        if self.quiet:
            return
        if self.bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[speed]}"),
                TimeRemainingColumn(), TextColumn("{task.fields[note]}"),
                **({"console": Console(stderr=True)} if self.stderr else {}),
            )  # fmt: skip
            self.bar.__enter__()
            self.task = self.bar.add_task("games", total=self.total, speed="", note="")
        speed = f"{p.games_per_second:,.0f} games/s" + (f" on {p.workers} workers" if p.workers else "")
        self.bar.update(self.task, completed=p.done, speed=speed, note=self.note(p))

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


class _compare_progress:
    """A progress display for ``smsim compare`` on standard error, gone when it ends: games
    played and the widest win-share interval so far."""

    def __enter__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            TextColumn("{task.fields[width]}"), console=Console(stderr=True), transient=True)  # fmt: skip
        self.bar.__enter__()
        self.task = None
        return self.report

    def report(self, done: int, total: int, width: float) -> None:
        if self.task is None:
            self.task = self.bar.add_task("games", total=total, width="")
        self.bar.update(self.task, completed=done, width=f"widest win-share interval {100 * width:.2f} points")

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)
        return False


# -- compare ----------------------------------------------------------------------------------
@cli.command()
@click.argument("policies", nargs=-1, required=True)
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--games", "-n", type=str, default="20000", show_default=True, help="Most games to play.")
@click.option("--precision", type=float, default=None,
              help="Stop once every win-share interval is narrower than this (e.g. 0.02).")  # fmt: skip
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The run's seed.")
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--out", "-o", type=str, default=None, help="Directory for the games and the result tables.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play on a Dask cluster: local:N worker processes, or tcp://host:8786.")
@with_rules
def compare(policies, players, games, precision, seed, threads, out, cluster, rules_file, rule) -> None:
    """Compare policies free of seat bias: every policy in every seat equally, each seat
    arrangement played on the same dice (common random numbers). Prints win shares and mean VP
    with 95% intervals computed over independent blocks, mean VP differences for every pair, and
    Plackett-Luce ratings fitted to the final rankings.

    \b
    Examples:
      smsim compare balanced greedy walls random --players 4 --games 48000
      smsim compare balanced my_weights.toml --players 2 --precision 0.02 --games 1e6
      smsim compare balanced greedy --players 2 --games 1e7 --cluster tcp://scheduler:8786

    With --cluster the rounds of blocks are played on a Dask distributed cluster
    (docs/cluster.md); workers send each round's games back, so --out need not be shared.
    """
    from smsim.errors import ClusterError
    from smsim.studies.compare import compare as run_compare
    from smsim.errors import SimulationError
    from smsim.report.terminal import print_comparison

    rules = _rules(rules_file, rule)
    n_games = _count(games, "--games")
    if threads is not None and threads < 1:
        _fail(f"--threads must be >= 1, got {threads}")
    names = [name for value in policies for name in value.split(",") if name]
    _check_cluster(cluster, out, needs_out=False)
    from smsim.studies.compare import verify_compare

    try:
        _, _, specs, _ = verify_compare(names, players, n_games, precision)
    except (SimulationError, PolicyError) as exc:
        _fail(str(exc))
    writer = None
    if out:  # made before any game is played: an unwritable output fails at once
        from smsim.studies.compare import ComparisonWriter
        from smsim.runs.storage import is_url

        if is_url(out):  # else a local directory named like the URL
            _fail(f"compare --out {out!r}: a comparison is written to a local directory (URLs are for simulate "
                  "and sweep --out)")  # fmt: skip
        try:
            writer = ComparisonWriter(out)
        except OSError as exc:
            _fail(f"cannot write to {out!r}: {exc.strerror}")
    try:
        _engine_ready(players, specs, rules)
        with _compare_progress() as report:
            result = run_compare(names, players, n_games, seed, rules, precision=precision, threads=threads,
                                 on_progress=report, keep_games=False, on_games=writer.add if writer else None,
                                 cluster=cluster)  # fmt: skip
    except (SimulationError, PolicyError, ValueError, OSError, ClusterError) as exc:
        if writer is not None:
            writer.abort()
        _fail(f"cannot write to {out!r}: {exc.strerror}" if isinstance(exc, OSError) else str(exc))
    except KeyboardInterrupt:
        if writer is not None:
            writer.abort()
        click.echo("\ninterrupted", err=True)
        sys.exit(130)
    print_comparison(result)
    if writer is not None:
        try:
            writer.finish(result, command=["smsim", *sys.argv[1:]], seed=seed, rules=rules)
        except OSError as exc:
            writer.abort()
            _fail(f"cannot write to {out!r}: {exc.strerror}")
        click.echo(f"written: {out}")


# -- sweep ------------------------------------------------------------------------------------
@cli.command()
@click.option("--games", "-n", type=str, default="10000", show_default=True, help="Games per variant (1 to 1e10).")
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--policy", multiple=True, help="One for all seats, or one per seat (repeat or comma-separate).")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The sweep's seed: every variant's dice.")
@click.option("--vary", multiple=True, metavar="FIELD=V1,V2,...",
              help="Values of one rules field (repeatable: a full grid; lists separated by ';').")
@click.option("--variant", "variant_files", multiple=True, metavar="NAME=FILE.toml",
              help="A named variant from a rules file (repeatable).")
@click.option("--one-at-a-time", is_flag=True, help="Vary each --vary field alone around the base rules, not a grid.")
@click.option("--out", "-o", type=str, default=None, help="Sweep directory to write (resumable); else in memory.")
@click.option("--batch", type=str, default=None, help="Games per part file (default: by run size).")
@click.option("--threads", type=int, default=None, help="Threads (default: every core, or SMSIM_THREADS).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv"]), default="table", show_default=True,
              help="table: the headline metrics; csv: every metric of every variant (the tidy table).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play on a Dask cluster (with --out): local:N worker processes, or tcp://host:8786.")
@with_rules
def sweep(games, players, policy, seed, vary, variant_files, one_at_a_time, out, batch, threads, fmt, quiet,
          cluster, rules_file, rule) -> None:  # fmt: skip
    """Play the same games under several rules variants (common dice) and compare them with
    paired intervals. The base rules (docs/rules.md, or --rules/--rule) are always the first
    variant, "baseline". With --out the games are written as one dataset per variant plus a
    manifest (resumable like simulate; `smsim report DIR` writes the variants report).

    \b
    Examples:
      smsim sweep --vary side_defence=1,2,3 --games 20000 --out runs/defence
      smsim sweep --vary side_defence=1,3 --vary rotation_cost=0,1 --one-at-a-time -n 20000
      smsim sweep --vary 'pirate_strengths=[1,3,6,8,10,12];[1,3,5,7,9,11]' -n 20000
      smsim sweep --variant gentle-last-attacks --variant mine=my-rules.toml -n 20000 -o runs/gentle
    """
    from smsim.errors import ClusterError
    from smsim.errors import DatasetError
    from smsim.errors import SimulationError
    from smsim.report.terminal import print_sweep
    from smsim.runs.spec import verify_batch
    from smsim.runs.storage import location
    from smsim.studies.sweep import check_sweep, plan_variants, play_sweep, run_sweep, sweep_identity
    from smsim.errors import SweepError

    base = _rules(rules_file, rule)
    n_games = _count(games, "--games")
    batch_size = _count(batch, "--batch") if batch is not None else None
    if threads is not None and threads < 1:
        _fail(f"--threads must be >= 1, got {threads}")
    if not vary and not variant_files:
        _fail("give the variants: --vary FIELD=V1,V2,... or --variant NAME=FILE.toml")
    _check_cluster(cluster, out)
    _check_out(out)
    specs = _lineup(players, policy)
    try:
        variants = plan_variants(list(vary), list(variant_files), one_at_a_time, base)
        if out is not None:  # a directory holding another sweep is refused before the compile
            check_sweep(location(out), sweep_identity(variants, n_games, players, specs, seed,
                                                      verify_batch(batch_size, n_games)))  # fmt: skip
        _engine_ready(players, specs, base)
        with _sweep_progress(n_games * len(variants), quiet) as report:
            if out is None:
                result = play_sweep(variants, n_games, players, _policies(policy), seed, threads, on_progress=report)
            else:
                result = run_sweep(out, variants, n_games, players, _policies(policy), seed, batch_size, threads,
                                   command=["smsim", *sys.argv[1:]], on_progress=report, cluster=cluster)  # fmt: skip
    except (SweepError, SimulationError, PolicyError, DatasetError, ClusterError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        where = f": the parts already written in {out} are complete; run the same command to go on" if out else ""
        click.echo(f"\ninterrupted{where}", err=True)
        sys.exit(130)
    if fmt == "csv":
        click.echo(result.table.to_csv(index=False), nl=False)
        return
    print_sweep(result.table, n_games)
    if out is not None:
        click.echo(f"sweep: {out} ({len(variants)} variants; {result.played:,} games played now)")


class _sweep_progress(_progress):
    """One progress display for a whole sweep: games of every variant, and the variant playing."""

    stderr = True

    def note(self, p) -> str:
        return f"variant {p.variant_index + 1}/{p.variants}: {p.variant}"


# -- summary ----------------------------------------------------------------------------------
@cli.command()
@click.argument("dataset", type=str)
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json", "markdown"]), default="table",
              show_default=True, help="table: rich tables for the terminal; the others for machines.")  # fmt: skip
def summary(dataset: str, fmt: str) -> None:
    """Headline tables of a dataset: win rate by policy and by seat with 95% intervals, VP mean
    and percentiles, VP by source, cannons lost, church series, sides completed.

    \b
    Examples:
      smsim summary runs/three
      smsim summary runs/three --format markdown > results.md
    """
    from smsim.errors import DatasetError
    from smsim.report.terminal import print_tables
    from smsim.runs.summary import summarise_dataset

    try:
        tables, done, planned = summarise_dataset(dataset)
    except DatasetError as exc:
        _fail(str(exc))
    except (OSError, ValueError) as exc:  # a part that pyarrow cannot read
        _fail(f"{dataset!r}: a part cannot be read ({exc})")
    if done == 0:
        _fail(f"{dataset!r} holds no finished games yet")
    if fmt == "table":
        print_tables(tables)
        if done < planned:
            click.echo(f"(incomplete: {done:,} of {planned:,} games; resume with the command in its manifest)")
        return
    if fmt == "json":
        click.echo(json.dumps({name: json.loads(t.to_json(orient="index")) for name, t in tables.items()}, indent=1))
    else:
        for name, t in tables.items():
            if fmt == "csv":
                click.echo(f"# {name}")
                click.echo(t.to_csv())
            else:
                click.echo(f"\n## {name}\n")
                click.echo(_markdown(t))


def _markdown(t) -> str:
    """A Markdown table (whole numbers as such, others to 4 significant digits)."""
    cols = [str(c) for c in t.columns]
    cells = {}
    for c in t.columns:
        integral = t[c].dtype.kind in "iub"
        cells[c] = [str(v) if integral else f"{v:.4g}" for v in t[c]]
    lines = ["| " + " | ".join([t.index.name or "", *cols]) + " |", "|" + "---|" * (len(cols) + 1)]
    for i, key in enumerate(t.index):
        lines.append("| " + " | ".join([str(key), *(cells[c][i] for c in t.columns)]) + " |")
    return "\n".join(lines)


# -- report and plot --------------------------------------------------------------------------
@cli.command("report")
@click.argument("datasets", nargs=-1, required=True, type=str)
@click.option("--out", "-o", required=True, type=str, help="Directory for report.md, report.html, figures/, tables/.")
@click.option("--title", default="Saint Malo balance report", show_default=True)
@click.option("--stronger", multiple=True, type=str,
              help="A mirror dataset of a stronger policy (e.g. rollout in every seat), set beside the balanced "
                   "mirror of its player count in the section 'Under stronger play' and kept out of the others.")
def report_cmd(datasets: tuple[str, ...], out: str, title: str, stronger: tuple[str, ...]) -> None:
    """Write a balance report of one or more datasets (``simulate --out``, ``compare --out``):
    church series, wall bonuses, pirate losses, outcomes, for comparisons the heuristics
    compared, and, with --stronger, whether the headline figures hold under stronger play;
    sweeps (``sweep --out``) and datasets with other rules add the rule variants, results of
    ``fairness --out`` the seat compensation. Markdown and self-contained HTML, figures as PNG
    and SVG, tables as CSV.

    \b
    Examples:
      smsim report runs/four --out reports/four
      smsim report runs/p2 runs/p3 runs/p4 runs/p5 runs/compare4 --out reports/all
      smsim report runs/p4 --stronger runs/rollout4 --out reports/stronger
      smsim report runs/defence-sweep --out reports/defence
      smsim report runs/p4 runs/fair4 --out reports/fair
    """
    from smsim.errors import FairnessError
    from smsim.errors import DatasetError
    from smsim.report.page import report

    try:
        path = report(list(datasets), out, title, list(stronger))
    except (DatasetError, FairnessError) as exc:
        _fail(str(exc))
    click.echo(f"written: {path} and {path.with_suffix('.html')}")


class _PlotKind(click.ParamType):
    """A figure kind of ``smsim.report.plots.PLOTS``, looked up only when the plot command runs, so
    that no other command pays for loading matplotlib."""

    name = "kind"

    def convert(self, value, param, ctx):
        from smsim.report.plots import PLOTS

        if value not in PLOTS:
            self.fail(f"{value!r} is not a figure kind; choose from {', '.join(PLOTS)}", param, ctx)
        return value


class _PlotCommand(click.Command):
    """The plot command, whose help lists the figure kinds (loaded for the help alone)."""

    def format_epilog(self, ctx, formatter) -> None:
        from smsim.report.plots import PLOTS

        kinds = list(PLOTS)
        with formatter.section("Kinds"):
            for i in range(0, len(kinds), 5):  # whole names: the text wrapper would break them at hyphens
                formatter.write(" " * formatter.current_indent + ", ".join(kinds[i:i + 5]) + "\n")


@cli.command("plot", cls=_PlotCommand)
@click.argument("kind", type=_PlotKind())
@click.argument("datasets", nargs=-1, required=True, type=str)
@click.option("--out", "-o", type=str, default=None, help="File to write (.png, .svg or .pdf) [default: KIND.png].")
def plot_cmd(kind: str, datasets: tuple[str, ...], out: str | None) -> None:
    """Draw one of the report's figures on its own, e.g. for slides; prints its caption.

    \b
    Examples:
      smsim plot seat-advantage runs/p2 runs/p3 runs/p4 --out seats.svg
      smsim plot cannons runs/four
    """
    from smsim.report.tables import read_report_data
    from smsim.errors import DatasetError
    from smsim.report.plots import PLOTS

    out = out or f"{kind}.png"
    suffix = out.rsplit(".", 1)[-1].lower() if "." in out else ""
    if suffix not in ("png", "svg", "pdf"):
        _fail(f"--out {out!r}: the file name must end in .png, .svg or .pdf")
    try:
        made = PLOTS[kind](read_report_data(list(datasets)))
    except DatasetError as exc:
        _fail(str(exc))
    if made is None:
        _fail(f"nothing to draw for {kind!r} in these data")
    fig, caption = made
    try:
        fig.savefig(out, dpi=150)
    except OSError as exc:
        _fail(f"cannot write {out!r}: {exc.strerror}")
    click.echo(f"written: {out}")
    click.echo(caption)


# -- tune -------------------------------------------------------------------------------------
class _tune_progress:
    """Progress of ``smsim tune`` on standard error: a bar gone when it ends where stderr is a
    terminal, otherwise a plain line at each new best and every tenth candidate."""

    def __init__(self, quiet: bool) -> None:
        self.quiet, self.bar, self.task = quiet, None, None

    def __enter__(self):
        if not self.quiet and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("[bold]{task.fields[phase]}"), BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), TextColumn("{task.fields[best]}"),
                                console=Console(stderr=True), transient=True)  # fmt: skip
            self.bar.__enter__()
        self.last_best = None
        return self.report

    def report(self, p) -> None:
        if self.quiet:
            return
        best = f"best {100 * p.best:.1f}% [{100 * p.best_lo:.1f}, {100 * p.best_hi:.1f}] (parity {100 * p.parity:.1f}%)"
        if self.bar is not None:
            if self.task is None:
                self.task = self.bar.add_task("tune", total=p.budget, phase="candidates", best="")
            phase = "candidates" if p.phase == "tuning" else "held-out games"
            self.bar.update(self.task, completed=p.done, phase=phase, best=best)
            return
        if p.phase == "held-out":
            click.echo("held-out games: the best candidate against the base on fresh dice", err=True)
        elif p.best != self.last_best or p.done % 10 == 0 or p.done == p.budget:
            click.echo(f"candidate {p.done}/{p.budget} (generation {p.generation}): {100 * p.score:.1f}%; {best}",
                       err=True)  # fmt: skip
        self.last_best = p.best

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


@cli.command()
@click.option("--base", default="balanced", show_default=True, help="Weights to start from: a preset or a .toml file.")
@click.option("--against", default=None, help="The field: comma-separated policies [default: the base].")
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--games", "-n", type=str, default="2000", show_default=True, help="Most games per candidate.")
@click.option("--budget", "-b", type=str, default="60", show_default=True, help="Candidates to score.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The tuning seed.")
@click.option("--only", default=None, help="Comma-separated weights to search [default: all].")
@click.option("--held-out-games", type=str, default=None, help="Games of the held-out check [default: 4 x --games].")
@click.option("--out", "-o", required=True, type=str, help="The weights file to write (.toml).")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@with_rules
def tune(base, against, players, games, budget, seed, only, held_out_games, out, force, threads, quiet,
         rules_file, rule) -> None:  # fmt: skip
    """Search the heuristic's weights with CMA-ES and write the best as a weights file.

    Every candidate plays the field (--against, default the base) in `smsim compare`'s seat
    arrangements on the same dice (seed --seed), scored by its win share. The best candidate then
    plays the base on held-out dice it never tuned on; that result, with its 95% interval, is
    printed and recorded in the file's description. The file is a policy: --policy tuned.toml.

    \b
    Examples:
      smsim tune --players 4 --games 4000 --budget 120 --seed 1 --out tuned.toml
      smsim tune --base walls --against balanced,builder --only wall,wall_progress --out walls2.toml
    """
    from smsim.play.api import verify_players
    from smsim.errors import SimulationError
    from smsim.studies.tune import check_out, verify_tune_input, write_weights
    from smsim.errors import TuneError
    from smsim.studies.tune import tune as run_tune

    rules = _rules(rules_file, rule)
    n_games = _count(games, "--games")
    n_budget = _count(budget, "--budget")
    n_held = _count(held_out_games, "--held-out-games") if held_out_games is not None else 4 * n_games
    if threads is not None and threads < 1:
        _fail(f"--threads must be >= 1, got {threads}")
    field = [n.strip() for n in against.split(",") if n.strip()] if against else None
    names = [n.strip() for n in only.split(",") if n.strip()] if only else None
    try:
        verify_players(players)
        verify_tune_input(base, field, players, n_games, n_budget, names)
        path = check_out(out, force)
    except (SimulationError, PolicyError, TuneError) as exc:
        _fail(str(exc))
    command = (f"smsim tune --base {base} --against {','.join(field) if field else base} --players {players} "
               f"--games {n_games} --budget {n_budget} --seed {seed}" + (f" --only {','.join(names)}" if names else "")
               + f" --held-out-games {n_held} --out {out}")  # fmt: skip
    try:
        with _tune_progress(quiet) as report:
            result = run_tune(base, field, players, n_games, n_budget, seed, names, n_held, rules=rules,
                              threads=threads, on_progress=report)  # fmt: skip
    except (SimulationError, PolicyError, TuneError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        click.echo("\ninterrupted: nothing written", err=True)
        sys.exit(130)
    share, lo, hi = result.held_out_share
    parity = result.held_out_parity
    verdict = ("the base itself scored best on the tuning dice: nothing better was found" if not result.changed else
               "better than the base (the interval excludes parity)" if lo > parity else
               "worse than the base (the interval excludes parity)" if hi < parity else
               "not shown to differ from the base (the interval holds parity)")  # fmt: skip
    base_w = result.base.weights()
    changed = ", ".join(f"{k} {base_w[k]:g} -> {v:g}" for k, v in result.changed.items()) or "none"
    click.echo(f"tuned {len(result.searched)} weight(s) of {result.base.name}: {len(result.history)} candidates of "
               f"{n_games:,} games, {players} players, against {', '.join(result.field)}, seed {seed}")  # fmt: skip
    click.echo(f"best on the tuning dice: {100 * result.score:.1f}% [{100 * result.score_lo:.1f}, "
               f"{100 * result.score_hi:.1f}] (the base {100 * result.base_score:.1f}%, parity {100 * result.parity:.1f}%)")  # fmt: skip
    played = result.held_out.blocks * result.held_out.games_per_block
    click.echo(f"held out ({played:,} games on seed {result.held_out_seed}): tuned against {result.base.name} "
               f"{100 * share:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] (parity {100 * parity:.1f}%): {verdict}")  # fmt: skip
    click.echo(f"changed: {changed}")
    try:
        write_weights(result, path, command)
    except OSError as exc:
        _fail(f"cannot write {out!r}: {exc.strerror}")
    click.echo(f"written: {out} (use it as --policy {out})")


# -- fairness ---------------------------------------------------------------------------------
class _fairness_progress:
    """Progress of ``smsim fairness`` on standard error: one line per step of the search, and a
    status line (gone when it ends) while candidates are played."""

    def __init__(self, quiet: bool) -> None:
        self.quiet, self.status = quiet, None

    def __enter__(self):
        return self.report

    def report(self, p: dict) -> None:
        if self.quiet:
            return
        if self.status is None:  # at the first report: input refused up front prints only its one line
            from rich.console import Console

            self.console = Console(stderr=True)
            self.status = self.console.status("searching")
            self.status.__enter__()
        wins = " ".join(f"{100 * w:.1f}%" for w in p["win"])
        line = f"{list(p['compensation'])}: objective {p['objective']:.2e}, win shares {wins}"
        if p["what"] == "candidate":
            self.status.update(f"candidate {p['evaluated']}: {line}")
        elif p["what"] == "check":
            self.status.update("held-out check: without and with the compensation")
        else:
            label = {"start": "start", "step": "step", "done": "best"}[p["what"]]
            self.console.print(f"{label:>5} {line} (candidates played: {p['evaluated']})")

    def __exit__(self, *exc):
        if self.status is not None:
            self.status.__exit__(*exc)
        return False


@cli.command()
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--policy", default="balanced", show_default=True, help="The policy in every seat.")
@click.option("--by", default="coins", show_default=True, help="Compensate by coins (seat_coins) or vp (seat_vp).")
@click.option("--games", "-n", type=str, default="20000", show_default=True, help="Games per candidate.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The search games' seed.")
@click.option("--check-games", type=str, default=None, help="Games of the held-out check [default: --games].")
@click.option("--check-seed", type=int, default=None, help="Seed of the held-out check [default: seed + 1000003].")
@click.option("--max", "max_compensation", type=int, default=6, show_default=True,
              help="Largest compensation of a seat (coins 0..max, VP -max..max).")  # fmt: skip
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--out", "-o", type=str, default=None, help="Directory for fairness.json and rules.toml.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (no progress).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@with_rules
def fairness(players, policy, by, games, seed, check_games, check_seed, max_compensation, threads, out, as_json,
             quiet, rules_file, rule) -> None:  # fmt: skip
    """Find per-seat compensation that makes every seat win equally often.

    With --policy in every seat, searches the extra start coins (--by coins, 0..--max) or VP
    (--by vp, -max..max) of seats 1.. (seat 0, the start player, gets none) that bring every
    seat's win share closest to 1/players, every candidate on the same --games games of --seed.
    The compensation found is then checked on held-out games (--check-seed): win share per seat
    without and with it, with 95% intervals. --out DIR writes DIR/fairness.json and
    DIR/rules.toml, the compensated rules (use them as --rules DIR/rules.toml).

    \b
    Examples:
      smsim fairness --players 4 --policy balanced --by coins --games 20000 --seed 1
      smsim fairness -p 2 --by vp --max 4 --games 50000 --out runs/fair2 --json
    """
    from smsim.studies.fairness import print_result
    from smsim.errors import FairnessError
    from smsim.studies.fairness import fairness as run_fairness
    from smsim.errors import SimulationError

    rules = _rules(rules_file, rule)
    n_games = _count(games, "--games")
    n_check = _count(check_games, "--check-games") if check_games is not None else None
    if threads is not None and threads < 1:
        _fail(f"--threads must be >= 1, got {threads}")
    if by not in ("coins", "vp"):
        _fail(f"--by must be coins or vp, got {by!r}")
    if max_compensation < 0:
        _fail(f"--max must be >= 0, got {max_compensation}")
    if out is not None:  # checked before the search: its result is written only at the end
        from smsim.runs.storage import unwritable

        if Path(out).exists() and not Path(out).is_dir():
            _fail(f"--out {out!r} exists and is not a directory")
        why = unwritable(Path(out))
        if why is not None:
            _fail(f"cannot write to {out!r}: {why}")
    try:
        with _fairness_progress(quiet or as_json) as report:
            result = run_fairness(players, policy, by, n_games, seed, n_check, check_seed, max_compensation,
                                  rules=rules, threads=threads, on_step=report)  # fmt: skip
        # the command with every default spelled out: it reruns this search
        result.command = ["smsim", "fairness", "--players", str(players), "--policy", policy, "--by", by,
                          "--games", str(n_games), "--seed", str(seed), "--check-games", str(result.check_games),
                          "--check-seed", str(result.check_seed), "--max", str(max_compensation)]  # fmt: skip
        if rules_file:
            result.command += ["--rules", rules_file]
        for text in rule:
            result.command += ["--rule", text]
        if out is not None:
            result.write(out)
    except (FairnessError, SimulationError, PolicyError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        click.echo("\ninterrupted: nothing written", err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps(result.to_dict()))
        return
    print_result(result)
    if out is not None:
        click.echo(f"written: {out}/fairness.json and {out}/rules.toml (use it as --rules {out}/rules.toml)")


# -- policies ---------------------------------------------------------------------------------
@cli.command("policies")
@click.option("--weights/--no-weights", default=True, show_default=True, help="Show each preset's weights.")
def list_policies(weights: bool) -> None:
    """List the built-in policies: name, one-line description, weights.

    Any of them, a TOML weights file (``base = "balanced"`` plus weights by name) or a jitted
    function ``file.py:name`` can be given to ``--policy`` (docs/policies.md).

    \b
    Example:
      smsim policies --no-weights
    """
    from smsim.policies.heuristics import PARAM_NAMES
    from smsim.policies.registry import POLICIES

    width = max(len(name) for name in POLICIES)
    for name, spec in POLICIES.items():
        click.echo(f"{name:<{width}}  {spec.description}")
        if weights and spec.weights():
            shown = ", ".join(f"{k}={v:g}" for k, v in spec.weights().items() if v != 0.0)
            click.echo(f"{'':<{width}}  weights: {shown}")
    if weights:
        click.echo(f"\nweights (in VP): {', '.join(PARAM_NAMES)}")


@cli.command("variants")
def list_variants() -> None:
    """List the rules variants smsim ships: name, what it changes, and the fields it sets.

    Give one to ``smsim sweep --variant NAME`` (or its file to ``--rules``).

    \b
    Example:
      smsim sweep --variant gentle-last-attacks --variant free-rotation -n 20000
    """
    import tomllib

    from smsim.studies.sweep import named_variants

    shipped = named_variants()
    width = max(len(name) for name in shipped)
    for name, (path, description) in shipped.items():
        fields = tomllib.loads(path.read_text(encoding="utf-8"))
        click.echo(f"{name:<{width}}  {description}")
        click.echo(f"{'':<{width}}  {', '.join(f'{k} = {v}' for k, v in fields.items())}  ({path.name})")


def main(argv: list[str] | None = None) -> Any:
    """The console script ``smsim``."""
    return cli.main(args=argv, prog_name="smsim")


if __name__ == "__main__":  # pragma: no cover
    main()
