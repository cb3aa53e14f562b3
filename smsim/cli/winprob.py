"""The command ``winprob``: a win-probability model fitted on round snapshots, and its
calibration (``studies.winprob``)."""

from __future__ import annotations

from pathlib import Path

import click

from smsim.cli.common import cli, fail


@cli.command()
@click.argument("datasets", nargs=-1, required=True)
@click.option("--out", "-o", type=str, default=None, help="Fit a model on DATASETS and write it here (JSON).")
@click.option("--model", "model_path", type=str, default=None, help="Read this model and show its calibration on DATASETS.")
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
@click.option("--out", "-o", type=str, default=None, help="Also write the figures as CSV here.")
def shape(datasets, model_path, out) -> None:
    """The shape of the games of DATASETS: lead changes, comebacks, when a game is decided, how
    close it ends, each with its 95% interval over games.

    Each DATASET is written with `smsim simulate --rounds`; the win probabilities are the
    --model's (smsim winprob). Lead changes are counted by VP (the seat with the most VP if the
    game ended then) and by win probability, from round 1 to the end; a comeback is a winner
    that was last by VP, or below 10% to win, at some round; a game is decided at the round from
    which its winner stays above 90% (docs/feel.md).

    \b
    Example:
      smsim shape runs/bal2 runs/bal4 --model winprob-balanced.json
    """
    import pandas as pd

    from smsim.report.terminal import print_shape
    from smsim.studies.shape import game_shape
    from smsim.studies.winprob import WinProbModel

    if out is not None and not Path(out).parent.is_dir():
        fail(f"--out {out!r}: no directory {str(Path(out).parent)!r}")
    model = WinProbModel.load(model_path)
    results = [game_shape(model, path) for path in datasets]
    print_shape(results)
    if out is not None:
        from smsim.files import write_file

        write_file(out, pd.concat([r.figures for r in results], ignore_index=True).to_csv(index=False))
        click.echo(f"figures: {out}")
