"""Commands about one game: ``play`` (with its trace and advice), ``advise``, ``validate`` (the
referee) and ``score`` (one written city)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from smsim import checks
from smsim.cli.common import (
    EXIT_DISCREPANCY,
    InputError,
    check_file_out,
    cli,
    fail,
    lineup,
    policy_names,
    policy_option,
    rules_from,
    with_rules,
)
from smsim.errors import BoardError
from smsim.files import writing


# -- play -------------------------------------------------------------------------------------
@cli.command()
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The run's seed.")
@click.option("--game", "-g", type=int, default=0, show_default=True, help="Game index within the run.")
@policy_option
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), help="Write the JSON-lines trace here.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the final scores.")
@click.option(
    "--advise",
    "advise_kinds",
    is_flag=False,
    flag_value="use",
    default=None,
    metavar="[KINDS]",
    help="Mark the decisions whose pick is significantly worse than the best move (docs/advise.md); "
    "KINDS: comma-separated decision kinds, e.g. keep,use [default: use].",
)
@click.option("--advise-playouts", type=int, default=None, help="Playouts per candidate for --advise [default: 128].")
@click.option(
    "--html", "html_file", type=str, default=None, help="Also write the game's replay page here (smsim replay)."
)
@click.option(
    "--values",
    type=click.Choice(["search", "learned"]),
    default=None,
    help="With --html: every USE and PLACE decision's moves valued (smsim replay --values).",
)
@with_rules
def play(
    players, seed, game, policy, trace_file, quiet, advise_kinds, advise_playouts, html_file, values, rules_file, rule
) -> None:
    """Play one game and tell it turn by turn, cities drawn in the board text format.

    With --advise, each turn is followed by the decisions where the policy's pick was
    significantly worse than the best move found by playouts (``smsim advise``), with the
    estimated cost in win probability.

    \b
    Examples:
      smsim play --players 3 --seed 7 --game 2
      smsim play -p 4 --policy greedy,random,greedy,random --trace game.jsonl
      smsim play -p 4 --seed 7 --advise use
      smsim play -p 4 --seed 7 --html game.html    # the replay page (smsim replay)
    """
    from smsim.play.api import play_game
    from smsim.play.tracefile import write_jsonl

    rules = rules_from(rules_file, rule)
    kinds = _advise_kinds(advise_kinds, advise_playouts)
    lineup(players, policy)
    if trace_file:
        check_file_out(trace_file, "trace")
    if html_file:
        check_file_out(html_file, "page")
    elif values:
        fail("--values values the decisions of the replay page: give --html FILE")
    traced = play_game(players, seed, game, policy_names(policy), rules)
    notes = None
    if kinds:
        from smsim.studies.advise import ANNOTATE_PLAYOUTS, annotate_game

        _, notes, _ = annotate_game(
            players, seed, game, policy_names(policy), rules, kinds, advise_playouts or ANNOTATE_PLAYOUTS
        )
    if trace_file:
        try:
            with writing(trace_file) as tmp, open(tmp, "w", encoding="utf-8") as fh:  # whole or not at all
                write_jsonl(traced.records, fh)
        except OSError as exc:
            fail(f"cannot write trace {trace_file!r}: {exc.strerror}")
    from smsim.play.narrate import narrate

    click.echo(narrate(traced.records, quiet=quiet, notes=notes))
    if html_file:
        click.echo(
            "page: "
            + write_replay(traced.records, html_file, None, "the game", values=values, playouts=advise_playouts)
        )


def _advise_kinds(value: str | None, playouts: int | None) -> tuple[str, ...]:
    """The decision kinds ``play --advise`` evaluates (upper-case ``layout.Decision`` names)."""
    from smsim.layout import Decision
    from smsim.play.loop import MAX_PLAYOUTS

    if value is None:
        if playouts is not None:
            fail("--advise-playouts needs --advise")
        return ()
    if playouts is not None:
        checks.whole(playouts, "--advise-playouts", low=1, high=MAX_PLAYOUTS, error=InputError)
    kinds = tuple(dict.fromkeys(k.strip().upper() for k in value.split(",") if k.strip()))
    unknown = [k for k in kinds if k not in Decision.__members__]
    if unknown or not kinds:
        known = ", ".join(d.name.lower() for d in Decision)
        fail(f"--advise: unknown decision kind {unknown[0].lower() if unknown else value!r}; known: {known}")
    return kinds


# -- advise -----------------------------------------------------------------------------------
@cli.command()
@click.argument("trace_file", required=False, type=str)
@click.option("--decision", "-d", type=int, required=True, help="The decision's number (docs/trace.md), from 0.")
@click.option("--players", "-p", type=int, default=None, help="Players, 2 to 5 [default: 4].")
@click.option("--seed", "-s", type=int, default=None, help="The run's seed [default: 0].")
@click.option("--game", "-g", type=int, default=None, help="Game index within the run [default: 0].")
@policy_option
@click.option("--playouts", "-k", type=int, default=None, help="Continuations for the leading moves [default: 200].")
@click.option(
    "--min-playouts",
    type=int,
    default=None,
    help="Continuations every move gets before the worse are dropped [default: 32; = --playouts: all alike].",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_rules
def advise(
    trace_file, decision, players, seed, game, policy, playouts, min_playouts, as_json, rules_file, rule
) -> None:
    """The best move at one decision of a game: every legal candidate valued by playouts to the
    end (common dice; each seat's base policy plays on), with its win probability and mean final
    VP and their 95% intervals, best first, the policy's own pick marked (docs/advise.md). Moves
    that gave identical results on every playout are one row; the worse moves are dropped by
    sequential halving, so each row says how many playouts it has.

    The game is game --game of --seed with those --policy and rules, or the first game of
    TRACE_FILE (``smsim play --trace``). Decision numbers are in the trace's turn lines.

    \b
    Examples:
      smsim advise --players 4 --seed 7 --game 0 --decision 41
      smsim play --seed 7 --trace game.jsonl && smsim advise game.jsonl --decision 41 --json
    """
    from smsim.studies.advise import (
        DEFAULT_MIN_PLAYOUTS,
        DEFAULT_PLAYOUTS,
        MAX_DECISION,
        MAX_PLAYOUTS,
        advise_trace,
    )
    from smsim.studies.advise import advise as run_advise

    playouts = DEFAULT_PLAYOUTS if playouts is None else playouts
    checks.whole(playouts, "--playouts", low=1, high=MAX_PLAYOUTS, error=InputError)
    min_playouts = DEFAULT_MIN_PLAYOUTS if min_playouts is None else min_playouts
    checks.whole(min_playouts, "--min-playouts", low=1, error=InputError)
    checks.whole(decision, "--decision", low=0, high=MAX_DECISION, error=InputError)
    if trace_file is not None:
        given = [
            name
            for name, value in (
                ("--players", players),
                ("--seed", seed),
                ("--game", game),
                ("--policy", policy or None),
                ("--rules", rules_file),
                ("--rule", rule or None),
            )
            if value is not None
        ]
        if given:
            fail(f"{', '.join(given)} cannot be given with a trace file: the trace says its game")
        if not Path(trace_file).is_file():
            fail(f"no trace file {trace_file!r}")
        result = advise_trace(trace_file, decision, playouts, min_playouts=min_playouts)
    else:
        rules = rules_from(rules_file, rule)
        lineup(4 if players is None else players, policy)
        result = run_advise(
            4 if players is None else players,
            0 if seed is None else seed,
            0 if game is None else game,
            decision,
            policy_names(policy),
            playouts,
            rules,
            min_playouts=min_playouts,
        )
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
        fail(f"no trace file {trace_file!r}")
    n_games, problems = check_trace(path)
    if n_games == 0:  # nothing to check: not a trace at all, which is bad input, not a broken rule
        why = problems[0].message.replace("\n", " ") if problems else "no game line"
        fail(f"{trace_file!r} is not a trace (docs/trace.md): {why}")
    if problems:
        for problem in problems:
            click.echo(str(problem))
        click.echo(f"{len(problems)} of {n_games} games broke a rule")
        sys.exit(EXIT_DISCREPANCY)
    click.echo(f"{n_games} games checked: every move legal, every gain and score right")


# -- replay -----------------------------------------------------------------------------------
def write_replay(
    records: list[dict],
    html_file: str,
    game: int | None,
    where: str,
    winprob: str | None = None,
    values: str | None = None,
    playouts: int | None = None,
    branch: tuple[int, int] | None = None,
) -> str:
    """The replay page of the game ``game`` of ``records`` (None: the only one) written to
    ``html_file`` whole or not at all, with each seat's win probability under the model at
    ``winprob`` and, with ``values`` "search", every USE and PLACE decision valued by playouts
    (``studies.advise.game_values``); with ``branch`` (decision, row), the game played again from
    that decision with that move, on the same dice (``studies.advise.branch_game``), both games'
    outcomes side by side; returns what was written, for the message."""
    from smsim.errors import TraceError
    from smsim.play.replay import games_of, replay_game
    from smsim.report.replay import replay_page

    games = games_of(records)
    if not games:
        raise TraceError(f"{where} holds no game line (docs/trace.md)")
    chosen = [g for g in games if game is None or g[0].get("game") == game]
    if game is None and len(games) > 1:
        found = ", ".join(str(g[0].get("game")) for g in games)
        raise TraceError(f"{where} holds {len(games)} games ({found}): name one with --game")
    if not chosen:
        found = ", ".join(str(g[0].get("game")) for g in games)
        raise TraceError(f"{where} holds no game {game} (it holds {found})")
    model = None
    if winprob is not None:
        from smsim.studies.winprob import WinProbModel

        model = WinProbModel.load(winprob)
        model.coef_for(int(chosen[0][0].get("players", 0)))  # a model of another player count: one line
    data = replay_game(chosen[0], where)  # the referee first: a broken trace is refused before any playout
    other = None
    if branch is not None:
        from smsim.studies.advise import branch_game

        other = branch_game(chosen[0][0], chosen[0][1:], *branch)
        played, data = data, replay_game(other.records, f"{where} played again from decision {branch[0]}")
        other = {
            "decision": other.decision,
            "move": other.move,
            "pick": other.pick,
            "played": played["end"]["scores"],
            "step": next(
                (
                    k
                    for k, st in enumerate(data["steps"])
                    if st["turn"] and st["turn"]["decisions"][0] <= other.decision < st["turn"]["decisions"][1]
                ),
                0,
            ),
        }
    valued = None
    if values is not None:
        from smsim.cli.progress import GamesProgressBar
        from smsim.studies.advise import ANNOTATE_PLAYOUTS, game_values, keep_values, learned_values

        with GamesProgressBar() as report:
            if values == "search":
                valued = game_values(
                    chosen[0][0],
                    chosen[0][1:],
                    playouts=playouts or ANNOTATE_PLAYOUTS,
                    on_decision=lambda d, total: report(d + 1, total),
                )
            else:
                valued = learned_values(chosen[0][0], chosen[0][1:], on_decision=lambda d, total: report(d + 1, total))
            valued.update(keep_values(chosen[0][0], chosen[0][1:]))  # the keeps, by the exact keep
    page = replay_page(data, model, Path(winprob).name if winprob else "", valued, other)
    try:
        with writing(html_file) as tmp:
            Path(tmp).write_text(page, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write page {html_file!r}: {exc.strerror}")
    return f"{html_file} ({len(page.encode()) / 1024:,.0f} KiB)"


@cli.command()
@click.argument("trace_file", type=str)
@click.option("--html", "html_file", required=True, type=str, help="Write the game's replay page here (one HTML file).")
@click.option("--game", "-g", type=int, default=None, help="The game to show, where the trace holds several.")
@click.option(
    "--winprob",
    type=str,
    default=None,
    metavar="MODEL",
    help="A win-probability model (smsim winprob --out): each seat's chance round by round beside its score.",
)
@click.option(
    "--values",
    type=click.Choice(["search", "learned"]),
    default=None,
    help="Every USE and PLACE decision's legal moves valued, the costliest picks listed first: search, by "
    "playouts as smsim advise values them (about 20 s a 4-player game of balanced on 2 cores); learned, "
    "by the learned policy's model at once; either way each keep judged by the exact keep under "
    "balanced's values (smsim regret's oracle). The game is played again with the policies the trace "
    "names: a policy file it names is code (docs/trust.md).",
)
@click.option("--playouts", type=int, default=None, help="Playouts a move at most, for --values [default: 128].")
@click.option(
    "--from",
    "from_decision",
    type=int,
    default=None,
    metavar="N",
    help="Play the game again from decision N (docs/trace.md's numbers) with --move forced there, on the "
    "same dice, and show that game beside the one played (with the policies the trace names: a policy "
    "file it names is code, docs/trust.md).",
)
@click.option(
    "--move",
    "move_row",
    type=int,
    default=None,
    metavar="M",
    help="With --from: the candidate row to force (smsim advise TRACE --decision N --json lists each move's rows).",
)
def replay(
    trace_file: str,
    html_file: str,
    game: int | None,
    winprob: str | None,
    values: str | None,
    playouts: int | None,
    from_decision: int | None,
    move_row: int | None,
) -> None:
    """A game you can watch: the trace of one game as one self-contained HTML page, every turn's
    dice, use and placements, every seat's city drawn as the board is, the pirate track and the
    game's course; step with the arrow keys or buttons, jump with the slider, share a position by
    its address (#step-N); with --winprob, each seat's chance of winning round by round. The
    trace is replayed by the independent referee first: one that does not parse or breaks a rule
    gets one line and no page (docs/replay.md).

    \b
    Example:
      smsim play -p 4 --seed 7 --trace game.jsonl && smsim replay game.jsonl --html game.html
      smsim replay game.jsonl --html game.html --winprob winprob-balanced.json
      smsim replay game.jsonl --html other.html --from 41 --move 3   # the same dice, another choice
    """
    from smsim.play.tracefile import read_jsonl

    path = Path(trace_file)
    if not path.is_file():
        fail(f"no trace file {trace_file!r}")
    check_file_out(html_file, "page")
    if playouts is not None:
        checks.whole(playouts, "--playouts", low=1, high=100_000)
    if (from_decision is None) != (move_row is None):
        fail("--from N and --move M go together: the decision to play again from and the move forced there")
    if from_decision is not None and values is not None:
        fail("--values values the game as played; give it without --from")
    branch = None if from_decision is None else (from_decision, move_row)
    click.echo(
        "page: " + write_replay(read_jsonl(path), html_file, game, repr(trace_file), winprob, values, playouts, branch)
    )


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
    from smsim.play.api import score_city
    from smsim.play.board import parse_position

    rules = rules_from(rules_file, rule)
    try:
        text = Path(city_file).read_text(encoding="utf-8")
    except OSError as exc:
        fail(f"cannot read city file {city_file!r}: {exc.strerror}")
    except UnicodeDecodeError:
        fail(f"city file {city_file!r} is not text")
    try:
        city, extra = parse_position(text)
    except BoardError as exc:
        fail(f"{city_file}: {exc}")
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
