"""``smsim study``: a rules file against the printed rules, played until its verdicts settle or
its time is up, and its report (``smsim.studies.study``, ``smsim.report.study``)."""

from __future__ import annotations

import re
import sys

import click

from smsim import checks
from smsim.cli.common import (
    InputError,
    check_cluster_option,
    check_folder_out,
    cli,
    cluster_option,
    comma_names,
    count_of,
    fail,
    player_counts,
)

_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([smh]?)\s*")


def seconds_of(text: str, what: str = "--time") -> float:
    """A duration as ``90s``, ``15m``, ``1.5h`` or plain seconds; anything else refused in one line.

    >>> seconds_of("15m"), seconds_of("1.5h"), seconds_of("90")
    (900.0, 5400.0, 90.0)
    """
    m = _DURATION.fullmatch(str(text))
    if not m or float(m[1]) <= 0:
        raise InputError(f"{what} {text!r}: expected a duration above 0, such as 90s, 15m or 2h")
    return float(m[1]) * {"": 1, "s": 1, "m": 60, "h": 3600}[m[2]]


@cli.command("study")
@click.argument("rules_path", metavar="[RULES]", required=False)
@click.option("--variant", default=None, help="A shipped variant by name (smsim variants) instead of a RULES file.")
@click.option("--rule", multiple=True, metavar="FIELD=VALUE", help="Change one rules field (repeatable).")
@click.option("--out", "-o", required=True, help="Directory of the study (resumable) and its report (OUT/report).")
@click.option("--players", "-p", default="2,3,4,5", show_default=True, help="Player counts, comma-separated.")
@click.option(
    "--levels",
    default="balanced,learned",
    show_default=True,
    help="Levels of play, weakest first (policies); the skill gap is the second among the first.",
)
@click.option("--time", "time_text", default=None, help="Stop after this long (90s, 15m, 2h), compile included.")
@click.option(
    "--max-games",
    default="2000000",
    show_default=True,
    help="Most games of any one arm (a rules, level and setup).",
)
@click.option(
    "--first-games",
    default="2000",
    show_default=True,
    help="Games of every arm in the first round (--first-games N --max-games N: a fixed count, one round).",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The study's seed: every arm's dice.")
@click.option(
    "--margin",
    multiple=True,
    metavar="UNIT=VALUE",
    help="The smallest change that matters, per unit (rate, share and points in points; vp, rounds, count).",
)
@click.option("--bonus/--no-bonus", default=True, show_default=True, help="Value each wall bonus by ablation.")
@click.option("--skill/--no-skill", default=True, show_default=True, help="Measure the skill gap.")
@click.option(
    "--adapt",
    is_flag=True,
    help="Also tune L1's weights on these rules and play the tuned bot as a level where it beats L1.",
)
@click.option("--fairness", is_flag=True, help="Also search L1's seat compensation in coins at each player count.")
@click.option(
    "--balance",
    is_flag=True,
    help="Also play the balance report's studies of these rules (mirrors, heuristics compared, skill matrix, "
    "sweeps, compensation, keep regret, ladder, the search's mirrors): the report is the whole balance report.",
)
@click.option(
    "--balance-scale",
    type=float,
    default=1.0,
    show_default=True,
    help="With --balance: the fraction of the committed baseline's game counts (a rehearsal: 0.01).",
)
@click.option("--report", "report_out", default=None, help="Where the report goes [OUT/report].")
@click.option("--title", default=None, help="The report's title.")
@click.option(
    "--see-also", multiple=True, metavar="DIR", help="With --balance: a report to link from the first screen."
)
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@cluster_option(needs_out=True)
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def study(
    rules_path,
    variant,
    rule,
    out,
    players,
    levels,
    time_text,
    max_games,
    first_games,
    seed,
    margin,
    bonus,
    skill,
    adapt,
    fairness,
    balance,
    balance_scale,
    report_out,
    title,
    see_also,
    threads,
    cluster,
    quiet,
) -> None:
    """Your rules against the printed rules, in one command: at each player count and level of
    play, on the same dice, the start player's edge, the games the pirates decide, the game's
    length, each wall bonus's value (by ablation) and the skill gap, with the church series, walls
    and pirate losses; played in rounds until every headline verdict is settled (the same, moves),
    the --time is spent or an arm reaches --max-games. Every interval is an anytime-valid 95%
    confidence sequence. Writes OUT/report (report.md, report.html, figures, tables) and prints
    the verdicts; rerun the same command to resume a stopped study.

    \b
    Examples:
      smsim study my-rules.toml --players 4 --time 10m --out runs/my-rules
      smsim study --variant milder-cannons --out runs/milder
      smsim study --rule cannon_penalty=3 --players 2,4 --time 15m --out runs/cannons-3
      smsim study my-rules.toml --players 4 --adapt --fairness --out runs/my-rules-more
      smsim study --out runs/printed --players 4     # the printed rules alone
      smsim study my-rules.toml --balance --time 3h --out runs/my-rules-all   # and their balance report

    With --balance the study also plays, after its rounds and in the time left, every study the
    balance report reads, at the committed baseline's game counts (docs/study.md); `make report`
    is this command for the printed rules.
    """
    from smsim.intervals import parse_margins
    from smsim.report.outline import see_also_of
    from smsim.report.write import write_study_report
    from smsim.rules import load_rules
    from smsim.runs.folder import KINDS, kind_of
    from smsim.studies.study import plan_study, run_study
    from smsim.studies.sweep import named_variants

    if rules_path and variant:
        fail("give a RULES file or --variant NAME, not both")
    source = rules_path or ""
    if variant:
        shipped = named_variants()
        if variant not in shipped:
            fail(f"--variant {variant!r}: no such variant; one of {', '.join(sorted(shipped))}")
        rules_path, source = str(shipped[variant][0]), variant
    rules = load_rules(rules_path, list(rule))  # an unknown field or a bad value: one line, before any game
    if rule:
        source = f"{source} with {', '.join(rule)}" if source else ", ".join(rule)
    counts = player_counts(players)
    names = comma_names(levels)
    seconds = seconds_of(time_text) if time_text is not None else None
    most = count_of(max_games, "--max-games")
    first = count_of(first_games, "--first-games")
    checks.threads(threads, "--threads", error=InputError)
    check_cluster_option(cluster, out)
    margins = parse_margins(margin, InputError)
    if balance and not 0 < balance_scale <= 1:
        fail(f"--balance-scale {balance_scale:g}: expected a fraction above 0 and at most 1")
    if see_also and not balance:
        fail("--see-also links a report from a balance report: give it with --balance")
    for folder in see_also:  # a wrong one refused now, not after hours of play
        see_also_of(folder, report_out or f"{out}/report")
    if report_out and (held := kind_of(report_out)) is not None:
        fail(f"--report {report_out!r} holds {KINDS[held].a}; write the report into another directory")
    plan = plan_study(
        rules,
        counts,
        names,
        seed,
        bonus,
        skill,
        margins,
        source,
        first,
        adapt,
        fairness,
        balance_scale if balance else 0,
    )
    check_folder_out(out, "study", plan.identity())

    last = [None]

    def on_progress(p) -> None:
        if quiet:
            return
        if last[0] != p.round:
            last[0] = p.round
            left = ", ".join(p.unsettled[:4]) + (f" and {len(p.unsettled) - 4} more" if len(p.unsettled) > 4 else "")
            click.echo(
                f"round {p.round}: {p.total:,} games for {len(p.unsettled)} unsettled figures ({left})", err=True
            )
        if p.done == p.total:
            click.echo(f"round {p.round}: done at {p.seconds:,.0f} s", err=True)

    def on_step(words: str) -> None:
        if not quiet:
            click.echo(f"{words} ...", err=True)

    try:
        result = run_study(
            plan, out, seconds, most, threads, cluster, ["smsim", *sys.argv[1:]], source, on_progress, on_step
        )
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted: the games written in {out} are kept; run the same command to go on", err=True)
        sys.exit(130)
    path = write_study_report(result, report_out or f"{out}/report", title, list(see_also))
    print_study(result)
    click.echo(f"report: {path}")


def print_study(result) -> None:
    """The headline verdicts of a study (``report.study.verdict_lines``) and why it stopped."""
    from smsim.report.study import STOPPED_WORDS, verdict_lines

    click.echo(f"{result.games:,} games; stopped because {STOPPED_WORDS.get(result.stopped, result.stopped)}")
    for line, _, _ in verdict_lines(result):
        click.echo(f"- {line}")
