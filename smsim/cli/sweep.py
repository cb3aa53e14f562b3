"""The command ``sweep``: rule variants on common dice, and with ``--adapt`` bots adapted to each."""

from __future__ import annotations

import sys

import click

from smsim import checks
from smsim.cli.common import (
    InputError,
    check_cluster_option,
    check_folder_out,
    check_out,
    cli,
    cluster_option,
    count_of,
    engine_ready,
    fail,
    rules_from,
    run_of,
    run_options,
    with_rules,
)
from smsim.cli.progress import SweepProgressBar


# -- sweep ------------------------------------------------------------------------------------
@cli.command()
@run_options("Games per variant (1 to 1e10).", "The sweep's seed: every variant's dice.")
@click.option(
    "--vary",
    multiple=True,
    metavar="FIELD=V1,V2,...",
    help="Values of one rules field (repeatable: a full grid; lists separated by ';').",
)
@click.option(
    "--variant",
    "variant_files",
    multiple=True,
    metavar="NAME=FILE.toml",
    help="A named variant from a rules file (repeatable).",
)
@click.option("--one-at-a-time", is_flag=True, help="Vary each --vary field alone around the base rules, not a grid.")
@click.option("--out", "-o", type=str, default=None, help="Sweep directory to write (resumable); else in memory.")
@click.option("--batch", type=str, default=None, help="Games per part file (default: by run size).")
@click.option("--threads", type=int, default=None, help="Threads (default: every core, or SMSIM_THREADS).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv"]),
    default="table",
    show_default=True,
    help="table: the headline metrics; csv: every metric of every variant (the tidy table).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option(
    "--adapt",
    is_flag=True,
    help="Also play each variant with a bot adapted to it: the line-up's balanced seats given weights tuned "
    "on the variant's rules (CMA-ES; stored in the sweep folder, reused when present; needs --out).",
)
@click.option("--adapt-budget", type=str, default="24", show_default=True, help="Candidates tuned per variant.")
@click.option("--adapt-games", type=str, default="400", show_default=True, help="Games per tuning candidate.")
@cluster_option(needs_out=True)
@with_rules
def sweep(
    games,
    players,
    policy,
    seed,
    vary,
    variant_files,
    one_at_a_time,
    out,
    batch,
    threads,
    fmt,
    quiet,
    adapt,
    adapt_budget,
    adapt_games,
    cluster,
    rules_file,
    rule,
) -> None:
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
    from smsim.report.terminal import print_adapted, print_sweep
    from smsim.runs.spec import verify_batch
    from smsim.runs.storage import location
    from smsim.studies.adapt import AdaptPlan
    from smsim.studies.sweep import check_adapt, plan_variants, play_sweep, run_sweep, sweep_identity

    def tuning_note(variant: str, progress) -> None:
        if progress is None:
            click.echo(f"adapted bot for {variant}: ready", err=True)
        elif progress.phase == "tuning" and progress.done in (1, progress.budget):
            click.echo(f"adapting to {variant}: candidate {progress.done} of {progress.budget}", err=True)

    base = rules_from(rules_file, rule)
    run = run_of(games, players, policy, seed, base)
    batch_size = count_of(batch, "--batch") if batch is not None else None
    checks.threads(threads, "--threads", error=InputError)
    if not vary and not variant_files:
        fail("give the variants: --vary FIELD=V1,V2,... or --variant NAME=FILE.toml")
    check_cluster_option(cluster, out)
    check_out(out)
    plan = None
    if adapt:
        if out is None:
            fail("--adapt needs --out DIR: the adapted bots' weights and games are kept there")
        plan = AdaptPlan(
            players=run.players,
            games=count_of(adapt_games, "--adapt-games"),
            budget=count_of(adapt_budget, "--adapt-budget", high=10_000),
            seed=run.seed,
            held_out_games=4 * count_of(adapt_games, "--adapt-games"),
        )
    elif adapt_budget != "24" or adapt_games != "400":
        fail("--adapt-budget and --adapt-games size the adapted bots: give --adapt too")
    try:
        variants = plan_variants(list(vary), list(variant_files), one_at_a_time, base)
        if out is not None:  # a directory holding another sweep is refused before the compile
            check_folder_out(
                out,
                "sweep",
                sweep_identity(
                    variants, run.games, run.players, run.lineup, run.seed, verify_batch(batch_size, run.games)
                ),
            )
        if plan is not None:
            check_adapt(plan, run.lineup, location(out))
        engine_ready(run.players, run.lineup, base)
        with SweepProgressBar(run.games * len(variants), quiet) as report:
            if out is None:
                result = play_sweep(variants, run.games, run.players, run.lineup, run.seed, threads, on_progress=report)
            else:
                result = run_sweep(
                    out,
                    variants,
                    run.games,
                    run.players,
                    run.lineup,
                    run.seed,
                    batch_size,
                    threads,
                    command=["smsim", *sys.argv[1:]],
                    on_progress=report,
                    cluster=cluster,
                    adapt=plan,
                    on_adapt=None if quiet else tuning_note,
                )
    except KeyboardInterrupt:
        where = f": the parts already written in {out} are complete; run the same command to go on" if out else ""
        click.echo(f"\ninterrupted{where}", err=True)
        sys.exit(130)
    if fmt == "csv":
        click.echo(result.table.to_csv(index=False), nl=False)
        return
    print_sweep(result.table, run.games, variants=result.variants)
    if result.adapted_table is not None:
        print_adapted(result.adapted, result.table, result.adapted_table, variants=result.variants)
    if out is not None:
        click.echo(f"sweep: {out} ({len(variants)} variants; {result.played:,} games played now)")
