"""``smsim ladder``: the rungs of the ladder of play shown ordered, and the game's depth
(``smsim.studies.ladder``), a thin layer over the study and its printing."""

from __future__ import annotations

import sys

import click

from smsim import checks
from smsim.cli.common import (
    InputError,
    caps_of,
    check_folder_out,
    cli,
    comma_names,
    count_of,
    engine_ready,
    fail,
    player_counts,
    rules_from,
    with_rules,
)


@cli.command("ladder")
@click.option(
    "--rungs",
    default=None,
    help="The rungs, weakest first, comma-separated policies (a search such as rollout-learned is asked "
    "for by name, with --cap) [default: random, greedy-noise-80, -60, -45, -30, -15, greedy, balanced, "
    "learned].",
)
@click.option("--players", "-p", type=str, default="2,4", show_default=True, help="Player counts, comma-separated.")
@click.option("--games", "-n", type=str, default="2000", show_default=True, help="Games per cell.")
@click.option(
    "--cap",
    multiple=True,
    metavar="RUNG=GAMES",
    help="At most this many games in a cell with RUNG (repeatable; a rung given as a file by its path or its "
    "name): for a costly search rung.",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The ladder's seed: every cell's dice.")
@click.option(
    "--field",
    "field_names",
    default=None,
    help="The fixed field of heuristics each rung also meets (default: churches, walls, merchant, builder, "
    "jugglers, balanced).",
)
@click.option(
    "--no-field",
    is_flag=True,
    help="Measure every step head to head only, no field (its figures read 'no data'): half a costly rung's "
    "games, where only the head to head is asked (choosing a top rung).",
)
@click.option(
    "--check",
    "check",
    type=int,
    default=0,
    show_default=True,
    help="Add the top rung's search at this many times its budget as a rung above it (0: none).",
)
@click.option(
    "--check-field/--no-check-field",
    default=True,
    show_default=True,
    help="Whether the check rung also meets the field (--no-check-field: head to head only, the costly "
    "rung's games halved).",
)
@click.option("--hours", type=float, default=None, help="Start no chunk after this many hours (the rest on a rerun).")
@click.option("--out", "-o", type=str, default=None, help="Directory of the ladder (resumable, chunk by chunk).")
@click.option("--read", "read_dir", type=str, default=None, help="Print a ladder directory's tables; play nothing.")
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
@with_rules
def ladder(
    rungs,
    players,
    games,
    cap,
    seed,
    field_names,
    no_field,
    check,
    check_field,
    hours,
    out,
    read_dir,
    threads,
    quiet,
    rules_file,
    rule,
) -> None:
    """The ladder of play shown ordered: each rung's step over the rung below, at each player
    count, head to head (one seat of the upper rung, the lower in every other seat, every
    rotation, common dice: its win share above parity and VP difference) and against a fixed
    field of heuristics (the upper and the lower rung in the same seat on the same games: the
    paired difference of its win share), each with a 95% interval and a verdict; and the depth,
    the number of 60%-steps (2 players, head to head) from the lowest rung to the top.

    \b
    Examples:
      smsim ladder --players 2 --games 400 --out runs/ladder
      smsim ladder --rungs random,greedy,balanced,learned,rollout-learned --cap rollout-learned=1000 --check 4 \\
          --players 2,4 --games 4000 --hours 6 --out runs/ladder-top
      smsim ladder --read runs/ladder
    """
    from smsim.studies.ladder import DEFAULT_RUNGS, FIELD, plan_ladder, read_ladder, run_ladder

    if read_dir is not None:
        if out is not None:
            fail("give --out DIR to play a ladder or --read DIR to print one, not both")
        print_ladder(read_ladder(read_dir))
        return
    if out is None:
        fail("give --out DIR: the ladder's directory (or --read DIR to print one)")
    base = rules_from(rules_file, rule)
    n = count_of(games, "--games")
    counts = player_counts(players)
    checks.threads(threads, "--threads", error=InputError)
    if hours is not None:
        checks.positive(hours, "--hours", error=InputError)
    caps = caps_of(cap, "RUNG")
    try:
        names = list(DEFAULT_RUNGS) if rungs is None else comma_names(rungs)
        if no_field and field_names is not None:
            fail("give --field NAMES or --no-field, not both")
        field = [] if no_field else comma_names(field_names) if field_names is not None else list(FIELD)
        if not no_field and not field:
            fail("--field: give at least one policy (or --no-field: head to head only)")
        plan = plan_ladder(names, counts, n, seed, caps, field, check, base, check_field)
        check_folder_out(out, "ladder", plan.identity())
        specs = plan.specs()
        for p in plan.players:
            engine_ready(p, specs, base)

        def on_chunk(progress) -> None:
            if not quiet:
                c = progress.cell
                what = f"{c.rung} over {c.lower}" if c.lower else f"{c.rung} against the field"
                last = progress.first + progress.blocks - 1
                click.echo(
                    f"{progress.done:,}/{progress.total:,} games: {c.players}p {what}, blocks "
                    f"{progress.first:,}-{last:,} ({progress.seconds:,.1f} core-s)",
                    err=True,
                )

        result = run_ladder(plan, out, threads, ["smsim", *sys.argv[1:]], hours=hours, on_chunk=on_chunk)
    except KeyboardInterrupt:
        click.echo(
            f"\ninterrupted: the chunks already written in {out} are complete; run the same command to go on", err=True
        )
        sys.exit(130)
    print_ladder(result)


def _points(value: float, lo: float, hi: float) -> str:
    from smsim.intervals import MARGINS, interval_text

    margin = MARGINS["share"]  # the verdicts' thresholds: a rounded bound never crosses them
    return interval_text(value, lo, hi, digits=1, scale=100, signed=True, guard=(-margin, 0.0, margin))


def print_ladder(result) -> None:
    """A ladder's steps table, its depth and what was played (``studies.ladder.LadderResult``)."""
    from rich.console import Console
    from rich.table import Table

    from smsim.intervals import MISSING, interval_text
    from smsim.studies.ladder import FIELD_CELL, HEAD

    console = Console(width=max(150, Console().width))
    t = Table(
        title="Each rung over the rung below [95% intervals]. Head to head: the upper seat's win share above "
        "parity (points) and VP over the lower seats. Against the field: the seat's win share with the "
        "upper rung minus with the lower (points, paired)"
    )
    for col in ("players", "step", "head to head", "VP diff", "games", "verdict", "field", "games", "verdict"):
        t.add_column(col, justify="right")
    for r in result.steps.itertuples():
        verdict = r.verdict
        if r.clear_by > 0:
            verdict += f" (low end {100 * r.clear_by:+.1f})"
        t.add_row(
            str(r.players),
            f"{r.lower} → {r.upper}" + (" (check)" if r.check else ""),
            _points(r.edge, r.edge_lo, r.edge_hi),
            interval_text(r.vp_diff, r.vp_lo, r.vp_hi, signed=True),
            f"{r.head_games:,}",
            verdict,
            _points(r.field_diff, r.field_lo, r.field_hi),
            f"{r.field_games:,}",
            r.field_verdict,
        )
    console.print(t)
    d = result.depth
    if len(d):
        t = Table(
            title="Depth: 60%-steps at 2 players, head to head (logit(p) / logit(0.6); delta-method 95% "
            "interval, steps taken as independent)"
        )
        for col in ("step", "win share", "games", "60%-steps"):
            t.add_column(col, justify="right")
        for r in d.itertuples():
            steps = (
                f"at least {r.steps_lo:.2f}"
                if r.bound == "at least"
                else f"at most {r.steps_hi:.2f}"
                if r.bound == "at most"
                else MISSING
                if r.bound == "unbounded"
                else interval_text(r.steps, r.steps_lo, r.steps_hi, digits=2)
            )
            label = "" if r.row == "step" else "measured part " if r.row == "measured part" else "depth "
            t.add_row(
                f"{label}{r.lower} → {r.upper}",
                "" if r.row != "step" else interval_text(r.share, r.lo, r.hi, scale=100, unit="%"),
                f"{r.games:,}",
                steps,
            )
        console.print(t)
    cells = result.cells
    played, planned = int(cells["played"].sum()), int(cells["games"].sum())
    # a rung's cost: one seat of it against heuristics; with no field, a step's (the lower seats' too)
    field = cells[(cells["kind"] == FIELD_CELL) & (cells["played"] > 0)]
    costs, whose = (
        (field, "one seat of each rung against the field")
        if len(field)
        else (
            cells[(cells["kind"] == HEAD) & (cells["played"] > 0)],
            "one seat of each upper rung among the lower",
        )
    )
    for players, rows in costs.groupby("players"):
        console.print(
            f"core-seconds a game, {whose}, {players} players: "
            + ", ".join(f"{r.rung} {r.core_seconds_per_game:.3g}" for r in rows.itertuples())
        )
    if played < planned:
        console.print(f"{played:,} of {planned:,} games played: run the same command to go on")
    console.print(f"ladder: {result.path}")
