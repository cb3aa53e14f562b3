"""Commands that run many games or read them back: ``simulate``, ``summary`` and ``warmup``."""

from __future__ import annotations

import json
import sys

import click

from smsim import checks
from smsim.cli.common import (
    InputError,
    check_cluster_option,
    check_out,
    check_run_out,
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
from smsim.cli.progress import RunProgressBar
from smsim.errors import SmsimError


@cli.command()
@click.option("--learned", is_flag=True, help="Also the loop of line-ups with the learned policy.")
@click.option("--search", is_flag=True, help="Also the loop of line-ups with the search policy (rollout).")
@click.option("--all", "everything", is_flag=True, help="Every part: the play loop, learned, search, traces, advise.")
def warmup(learned: bool, search: bool, everything: bool) -> None:
    """Compile the engine now, ahead of the first run (for cluster workers and CI images).

    \b
    Compiles what simulate, compare, sweep, tune and fairness need with heuristic, weights-file
    and user policies; --learned adds line-ups with a learned seat, --search line-ups with a
    rollout seat, --all also `smsim play` and `smsim advise`. Each part is compiled the first time
    a run needs it anyway; warmup does it ahead. The machine code goes to the on-disk cache, once
    per machine and engine version; when it is there already, warmup only says so."""
    from smsim._cache import cache_dir
    from smsim.warmup import ALL
    from smsim.warmup import warmup as compile_parts

    parts = ALL if everything else ("play", *(("learned",) if learned else ()), *(("search",) if search else ()))
    cache = cache_dir()
    done = compile_parts(parts)
    for part in done:
        how = "compiled" if part.compiled else "already compiled, loaded"
        click.echo(f"{part.name:<7} {how} in {part.seconds:.1f} s: {part.description}")
    if any(part.compiled for part in done):
        click.echo(f"compiled in {sum(p.seconds for p in done):.1f} s; cached in {cache}")
    else:
        click.echo(f"already compiled: nothing to do (cache {cache})")


@cli.command()
@run_options("Games to play (1 to 1e10).", "The run's seed.")
@click.option(
    "--out",
    "-o",
    type=str,
    default=None,
    help="Dataset directory to write (resumable): a path, or a URL such as s3://bucket/run.",
)
@click.option("--batch", type=str, default=None, help="Games per part file (default: by run size).")
@click.option(
    "--rounds",
    is_flag=True,
    help="Also record every player's position at the start of every round and at the end (a third "
    "table, rounds/, for win probabilities; needs --out).",
)
@click.option("--threads", type=int, default=None, help="Threads (default: every core, or SMSIM_THREADS).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@cluster_option(needs_out=True)
@with_rules
def simulate(games, players, policy, seed, out, batch, rounds, threads, quiet, cluster, rules_file, rule) -> None:
    """Play many games; print win rates and scores by policy and by seat.

    Games are played a chunk at a time and only running sums are kept, so memory stays flat
    however many games are played. With --out DIR the games are written as a dataset (Parquet, one
    row per player per game and one per game, plus a manifest) part by part; with --rounds also one
    row per player at the start of every round and at the end (smsim.load_rounds reads them).
    Interrupt it at any moment (Ctrl-C, or kill) and run the same command again: only the missing
    games are played, and the dataset ends up identical to an uninterrupted run's. A directory
    written by a different command is refused.

    \b
    Examples:
      smsim simulate --games 100000 --players 2 --policy balanced --policy random
      smsim simulate -n 1e7 -p 3 --policy balanced,greedy,walls --seed 7 --out runs/three
      smsim simulate -n 50000 -p 2 --policy greedy --rule allow_pass=true
      smsim simulate -n 100000 -p 4 --policy balanced --rounds --out runs/positions
      smsim simulate -n 1e8 --policy balanced --out /shared/runs/big --cluster tcp://scheduler:8786

    With --cluster the parts are played on a Dask distributed cluster (docs/cluster.md): each
    worker writes its parts into --out, which every worker must see; --threads is then the
    threads of one part on its worker. The dataset is the same as without --cluster.
    """
    import time

    from smsim.report.terminal import print_tables
    from smsim.runs.batch import simulate_summary, simulate_to

    rules = rules_from(rules_file, rule)
    run = run_of(games, players, policy, seed, rules)
    batch_size = count_of(batch, "--batch") if batch is not None else None
    checks.threads(threads, "--threads", error=InputError)
    check_cluster_option(cluster, out)
    check_out(out)
    if rounds and out is None:
        fail("--rounds records a table of the dataset: give --out DIR")
    if out is not None:
        check_run_out(out, run, batch_size, rounds)
    try:
        engine_ready(run.players, run.lineup, run.rules, rounds)
        if out is None:
            start = time.perf_counter()
            with RunProgressBar(run.games, quiet) as report:
                result = simulate_summary(
                    run.games, run.players, run.lineup, run.seed, run.rules, threads=threads, on_progress=report
                )
            print_tables(result.tables, elapsed=time.perf_counter() - start)
            return
        start = time.perf_counter()
        with RunProgressBar(run.games, quiet) as report:
            result = simulate_to(
                out,
                run.games,
                run.players,
                run.lineup,
                run.seed,
                run.rules,
                batch=batch_size,
                threads=threads,
                command=["smsim", *sys.argv[1:]],
                on_progress=report,
                cluster=cluster,
                rounds=rounds,
            )
        elapsed = time.perf_counter() - start
        print_tables(result.tables)
        click.echo(f"dataset: {out} ({result.games:,} games; {result.played:,} played now in {elapsed:.1f} s)")
    except KeyboardInterrupt:
        if out is None:
            click.echo("\ninterrupted", err=True)
        else:
            click.echo(
                f"\ninterrupted: the parts already written in {out} are complete; run the same command "
                f"to play only the missing games",
                err=True,
            )
        sys.exit(130)


# -- summary ----------------------------------------------------------------------------------
@cli.command()
@click.argument("dataset", type=str)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json", "markdown"]),
    default="table",
    show_default=True,
    help="table: rich tables for the terminal; the others for machines.",
)
def summary(dataset: str, fmt: str) -> None:
    """Headline tables of a dataset: win rate by policy and by seat with 95% intervals, VP mean
    and percentiles, VP by source, cannons lost, church series, sides completed.

    \b
    Examples:
      smsim summary runs/three
      smsim summary runs/three --format markdown > results.md
    """
    from smsim.report.terminal import print_tables
    from smsim.runs.summary import summarise_dataset

    try:
        tables, done, planned = summarise_dataset(dataset)
    except SmsimError:  # says itself (the command group prints it)
        raise
    except (OSError, ValueError) as exc:  # a part that pyarrow cannot read
        fail(f"{dataset!r}: a part cannot be read ({exc})")
    if done == 0:
        fail(f"{dataset!r} holds no finished games yet")
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
