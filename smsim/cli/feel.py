"""How the game feels: ``winprob`` (a win-probability model fitted on round snapshots, and its
calibration: ``studies.winprob``), ``shape`` (lead changes, comebacks, when a game is decided:
``studies.shape``), ``luck`` (how much of a result is the dice: ``studies.luck``) and ``matters``
(what each part of the game is worth, by forbidding it: ``studies.matters``)."""

from __future__ import annotations

from pathlib import Path

import click

from smsim.cli.common import cli, count_of, fail


@cli.command()
@click.argument("datasets", nargs=-1, required=True)
@click.option("--out", "-o", type=str, default=None, help="Fit a model on DATASETS and write it here (JSON).")
@click.option(
    "--model", "model_path", type=str, default=None, help="Read this model and show its calibration on DATASETS."
)
def winprob(datasets, out, model_path) -> None:
    """Every seat's probability of winning from a position, fitted on mirror games, and how well
    it is calibrated on the games held out (one in five, never fitted on).

    Each DATASET is written with `smsim simulate --rounds` (its round snapshots: every seat's
    position at the start of every round), one a player count. --out fits a conditional logit
    over the seats per player count and stage of the game and writes it as a data file; --model
    reads one and shows its calibration on DATASETS instead. Either prints, per player count,
    the held-out positions, the Brier score beside that of knowing nothing (1/P each), the
    expected calibration error in points and the reliability table (docs/feel.md).

    \b
    Examples:
      smsim simulate -n 100000 -p 4 --policy balanced --rounds --out runs/bal4
      smsim winprob runs/bal2 runs/bal4 --out winprob-balanced.json
      smsim winprob runs/bal4-seed2 --model winprob-balanced.json
    """
    from smsim.report.terminal import print_calibration
    from smsim.studies.winprob import WinProbModel, calibration_summary, fit_winprob, read_positions

    if (out is None) == (model_path is None):
        fail("give --out FILE (fit a model) or --model FILE (check one), one of them")
    if out is not None:
        target = Path(out)
        if target.suffix != ".json" or target.is_dir():
            fail(f"--out must name a .json file, got {out!r}")
        if not target.parent.is_dir():
            fail(f"--out {out!r}: no directory {str(target.parent)!r}")
    if model_path is not None:
        model = WinProbModel.load(model_path)
        summaries = [calibration_summary(model, read_positions(path)) for path in datasets]
    else:
        model = fit_winprob(list(datasets))
        model.save(out)
        summaries = model.training["calibration"]
    print_calibration(summaries)
    if out is not None:
        click.echo(f"model: {out} (fitted in {model.training['cpu_seconds']:.0f} core-s)")


@cli.command()
@click.argument("datasets", nargs=-1, required=True)
@click.option("--model", "model_path", type=str, required=True, help="The win-probability model (smsim winprob --out).")
@click.option(
    "--against",
    "base",
    type=str,
    default=None,
    help="A dataset of the same games played otherwise (same seed, players and games: a rules variant's "
    "base): print each DATASET's figures minus its, paired game by game.",
)
@click.option("--out", "-o", type=str, default=None, help="Also write the figures as CSV here.")
def shape(datasets, model_path, base, out) -> None:
    """The shape of the games of DATASETS: lead changes, comebacks, when a game is decided, how
    close it ends, each with its 95% interval over games.

    Each DATASET is written with `smsim simulate --rounds`; the win probabilities are the
    --model's (smsim winprob). Lead changes are counted by VP (the seat with the most VP if the
    game ended then) and by win probability, from round 1 to the end; a comeback is a winner
    that was last by VP, or below 10% to win, at some round; a game is decided at the round from
    which its winner stays above 90% (docs/feel.md).

    \b
    With --against BASE each figure is DATASET's minus BASE's on the same games (the same seed,
    so the same dice): how a rules variant changes the game's shape, with paired intervals.

    \b
    Examples:
      smsim shape runs/bal2 runs/bal4 --model winprob-balanced.json
      smsim simulate -n 100000 -p 4 --policy balanced --rounds --rule side_defence=3 --out runs/def3
      smsim shape runs/def3 --against runs/bal4 --model winprob-balanced.json
    """
    import pandas as pd

    from smsim.report.terminal import print_shape
    from smsim.studies.shape import game_shape
    from smsim.studies.winprob import WinProbModel

    if out is not None and not Path(out).parent.is_dir():
        fail(f"--out {out!r}: no directory {str(Path(out).parent)!r}")
    model = WinProbModel.load(model_path)
    results = [game_shape(model, path) for path in datasets]
    if base is None:
        print_shape(results)
        table = pd.concat([r.figures for r in results], ignore_index=True)
    else:
        from smsim.report.terminal import print_shape_difference
        from smsim.studies.shape import shape_difference

        against = game_shape(model, base)
        table = pd.concat([shape_difference(against, r).assign(dataset=r.source) for r in results], ignore_index=True)
        print_shape_difference(table, base)
    if out is not None:
        from smsim.files import write_file

        write_file(out, table.to_csv(index=False))
        click.echo(f"figures: {out}")


@cli.command()
@click.argument("measured", metavar="POLICY")
@click.argument("against")
@click.option("--players", "-p", type=int, default=2, show_default=True, help="Players, 2 to 5.")
@click.option(
    "--games",
    "-n",
    type=str,
    default="2000",
    show_default=True,
    help="Blocks: each the same dice with POLICY in every seat in turn (players x blocks games).",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The match's seed.")
@click.option("--model", "model_path", type=str, required=True, help="The win-probability model (smsim winprob --out).")
@click.option(
    "--samples", type=int, default=16, show_default=True, help="Plays with other dice that each value is the mean of."
)
@click.option(
    "--endgame",
    type=int,
    default=None,
    help="The endgame: once the fullest city has fewer empty spaces, values are the game's outcome played "
    "out, not the model's (default: about the last half of a game, 25; 0: the model's to the last "
    "round; longer: more explained, slower).",
)
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option(
    "--out",
    "-o",
    type=str,
    default=None,
    help="A folder for the match: its rows and figures (a rerun reads them); smsim report reads it.",
)
def luck(measured, against, players, games, seed, model_path, samples, endgame, threads, out) -> None:
    """How much of a match's result is the dice: POLICY in one seat against AGAINST in the others,
    every seat rotation on the same dice, with every turn's luck measured.

    A turn's luck, for every seat, is its value after the turn minus its value before it: its win
    credit expected at the round's end (read by --model), or in the --endgame at the game's end,
    the mean over --samples plays from there by the same policies with other dice. It has mean 0
    whatever the seats play, so POLICY's share with its luck taken out estimates the same gap with
    less noise. Prints the gap as played and adjusted, how
    much narrower the interval is (and would be on games not paired on common dice), the share of
    a seat's result its luck explains, and the games after which the better policy leads with 95%
    chance (docs/feel.md). A policy that searches is refused. A policy given as a Python file is code, run as it is
    (docs/trust.md).

    \b
    Example:
      smsim luck learned balanced --players 4 --games 2000 --model winprob-balanced.json
    """
    from smsim.report.terminal import print_luck
    from smsim.studies.luck import LuckPlan, luck_match, verify_plan
    from smsim.studies.winprob import WinProbModel

    plan = LuckPlan(
        measured,
        against,
        players,
        count_of(games, "--games"),
        seed,
        samples,
        **({} if endgame is None else {"endgame": endgame}),
    )
    verify_plan(plan)
    model = WinProbModel.load(model_path)
    model.coef_for(players)
    import sys

    print_luck(luck_match(plan, model, threads=threads, out=out, command=["smsim", *sys.argv[1:]]))
    if out is not None:
        click.echo(f"match: {out}")


@cli.command()
@click.option(
    "--policy",
    "policies",
    multiple=True,
    default=("balanced", "learned"),
    show_default=True,
    help="A strength to measure at (repeat it): a heuristic or learned policy, or its weights file "
    "(a policy file is code, docs/trust.md).",
)
@click.option(
    "--part",
    "parts",
    multiple=True,
    help="A part to forbid (repeat it; default: every one): churches, walls, crates, logs, rotations, "
    "citizens, soldiers, priests, architects, merchants, jugglers, nobles.",
)
@click.option(
    "--players",
    "-p",
    "players",
    type=int,
    multiple=True,
    default=(2, 4),
    show_default=True,
    help="Player counts (repeat it).",
)
@click.option(
    "--games",
    "-n",
    type=str,
    default="2000",
    show_default=True,
    help="Games a part, policy and player count (whole blocks of every seat rotation).",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The dice's seed, the same for every part.")
@click.option(
    "--out",
    "-o",
    type=str,
    default=None,
    help="A folder for the study: each part's games as it ends (a rerun resumes), the table as CSV; "
    "smsim report reads it.",
)
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
def matters(policies, parts, players, games, seed, out, threads) -> None:
    """What each part of the game is worth: each part forbidden to one seat of a policy, against
    the same policy in the other seats, every seat rotation on the same dice.

    The seat that forgoes a part never plays it (its moves are masked where the rules let it
    choose; where every legal move uses the part, it must) and its keeps value those uses at
    nothing (POLICY-without-PART, a policy like any other). A part's worth is that seat's loss:
    the fair share 1/P minus its win share, in points, and its VP behind the others, with 95%
    intervals over blocks; ranked per strength and player count, with the rankings' agreement
    across strengths (Spearman's rho). A loss within 1 point is a part a player can ignore
    (docs/feel.md).

    \b
    Examples:
      smsim matters --players 4 --games 4000 --out runs/matters
      smsim matters --policy balanced --part churches --part walls -p 2 -p 3 -p 4 -p 5
      smsim compare balanced-without-churches balanced balanced balanced --players 4
    """
    import sys

    from smsim.cli.progress import GamesProgressBar
    from smsim.report.terminal import print_matters
    from smsim.studies.matters import plan_matters, what_matters

    plan = plan_matters(policies, parts or None, players, count_of(games, "--games"), seed)
    with GamesProgressBar() as report:
        result = what_matters(
            plan.policies,
            plan.parts,
            plan.players,
            plan.games,
            plan.seed,
            threads=threads,
            out=out,
            command=["smsim", *sys.argv[1:]],
            on_progress=report,
        )
    print_matters(result)
    if out is not None:
        click.echo(f"study: {out} (table: {Path(out) / 'matters.csv'})")
