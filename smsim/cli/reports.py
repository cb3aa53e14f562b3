"""Commands that write for people: ``report`` (the balance report) and ``plot`` (one figure)."""

from __future__ import annotations

import click

from smsim.cli.common import (
    cli,
    fail,
)
from smsim.files import writing


# -- report and plot --------------------------------------------------------------------------
@cli.command("report")
@click.argument("datasets", nargs=-1, required=True, type=str)
@click.option("--out", "-o", required=True, type=str, help="Directory for report.md, report.html, figures/, tables/.")
@click.option("--title", default="Saint Malo balance report", show_default=True)
@click.option(
    "--margin",
    "margins",
    multiple=True,
    metavar="UNIT=VALUE",
    help="The smallest change that matters for figures of UNIT (rate, share, points, vp, rounds, count; "
    "a rate's, a share's and points' in percentage points: rate=2 is 2 points); repeatable. Defaults: "
    "rate, share, points 1, vp 0.5, rounds 0.25, count 0.25 (docs/report.md).",
)
@click.option(
    "--winprob",
    "winprob",
    type=str,
    multiple=True,
    metavar="MODEL",
    help="A win-probability model (smsim winprob --out): the datasets recorded with --rounds make the "
    "section How the game feels. Repeat it for a model a level: each dataset is read under the "
    "model fitted on its own policy's games.",
)
@click.option(
    "--see-also",
    "see_also",
    type=str,
    multiple=True,
    metavar="DIR",
    help="Another report (a folder smsim report wrote) to read with this one: linked from the first "
    "screen with the sections it adds. Repeatable.",
)
def report_cmd(
    datasets: tuple[str, ...],
    out: str,
    title: str,
    margins: tuple[str, ...],
    winprob: tuple[str, ...],
    see_also: tuple[str, ...],
) -> None:
    """Write a balance report of one or more datasets (``simulate --out``, ``compare --out``):
    church series, wall bonuses, pirate losses, outcomes, for comparisons the heuristics
    compared. Mirror datasets of the strengths of play (``balanced``, ``learned``,
    ``rollout-learned`` in every seat) set every headline figure at each level with a verdict
    (stable, strength-dependent, not settled), each step between levels judged by its size against
    the smallest change that matters (``--margin``); skill studies (``skill --out``) say how much skill
    matters; a ladder (``ladder --out``) shows the levels of play ordered (each step head to head and
    against a fixed field, the depth, the check rung); keep-regret studies (``regret --out``) judge
    each policy's dice decisions against the exact keep; sweeps (``sweep --out``) and datasets with
    other rules add the rule variants, results of ``fairness --out`` the seat compensation;
    with --winprob, datasets recorded with ``simulate --rounds`` how the game feels (the
    win-probability fan, comebacks, the games' shape); what-matters studies (``matters --out``)
    what each part of the game is worth.
    Markdown and self-contained HTML, figures as PNG and SVG, tables as CSV.

    \b
    Examples:
      smsim report runs/four --out reports/four
      smsim report runs/p2 runs/p3 runs/p4 runs/p5 runs/compare4 --out reports/all
      smsim report runs/bal4 runs/learned4 runs/search4 runs/skill4 --out reports/ladder
      smsim report runs/bal4 runs/ladder runs/regret-4p --out reports/levels
      smsim report runs/defence-sweep --out reports/defence
      smsim report runs/p4 runs/fair4 --out reports/fair
      smsim report runs/bal4 runs/learned4 --margin vp=0.25 --margin rate=2 --out reports/ladder
      smsim report runs/bal2 runs/bal4 runs/matters --winprob winprob.json --out reports/feel
      smsim report runs/bal4 runs/variants --see-also reports/feel --out reports/baseline
    """
    from smsim.intervals import parse_margins
    from smsim.report.write import report

    chosen = parse_margins(margins)  # before any data is read: a bad margin is refused at once
    path = report(list(datasets), out, title, margins=chosen, winprob=list(winprob) or None, see_also=list(see_also))
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
                formatter.write(" " * formatter.current_indent + ", ".join(kinds[i : i + 5]) + "\n")


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
    from smsim.report.plots import PLOTS
    from smsim.report.tables import read_report_data

    out = out or f"{kind}.png"
    suffix = out.rsplit(".", 1)[-1].lower() if "." in out else ""
    if suffix not in ("png", "svg", "pdf"):
        fail(f"--out {out!r}: the file name must end in .png, .svg or .pdf")
    made = PLOTS[kind](read_report_data(list(datasets)))
    if made is None:
        fail(f"nothing to draw for {kind!r} in these data")
    fig, caption = made
    try:
        with writing(out) as tmp:  # whole or not at all
            fig.savefig(tmp, dpi=150, format=suffix)
    except OSError as exc:
        fail(f"cannot write {out!r}: {exc.strerror}")
    click.echo(f"written: {out}")
    click.echo(caption)
