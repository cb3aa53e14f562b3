"""The command ``learn``: a learned policy distilled from ``rollout`` (``studies.learn``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from smsim import checks
from smsim.cli.common import InputError, cli, count_of, fail, rules_from, with_rules


def knobs_of(values: tuple[str, ...]) -> dict[str, float]:
    """``--knob budget=256`` (repeatable): the teacher's rollout knobs, checked by the plan."""
    knobs: dict[str, float] = {}
    for text in values:
        key, sep, value = text.partition("=")
        try:
            if not sep:
                raise ValueError
            knobs[key.strip()] = float(value)
        except ValueError:
            fail(f"--knob must be KEY=NUMBER (a rollout knob, docs/policies.md), got {text!r}")
    return knobs


@cli.command()
@click.option(
    "--out", "-o", required=True, type=str, help="Label directory (resumable): labels and each round's model."
)
@click.option(
    "--model", "model_path", type=str, default=None, help="The model file to write [default: OUT/model.json]."
)
@click.option(
    "--decisions",
    "-n",
    type=str,
    default="20000",
    show_default=True,
    help="Labelled decisions fitted on per round (held-out ones are labelled beside them).",
)
@click.option(
    "--iterations",
    "-k",
    type=int,
    default=1,
    show_default=True,
    help="Rounds of expert iteration: round k+1's teacher searches over round k's student.",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The games' and the labels' seed.")
@click.option(
    "--players",
    "-p",
    type=str,
    default="2,3,4,5",
    show_default=True,
    help="Player counts, comma-separated: game g is played at the (g mod count)-th.",
)
@click.option("--base", default="balanced", show_default=True, help="Round 1's student: a heuristic or a model file.")
@click.option(
    "--from",
    "from_model",
    default=None,
    metavar="MODEL",
    help="Go on from a committed model (a model file, or learned): round 1's student, by its digest.",
)
@click.option(
    "--labels-from",
    "labels_from",
    multiple=True,
    metavar="DIR",
    help="Fit on the labels of an earlier learn folder's ended rounds too (repeatable): rounds taught over "
    "earlier students, aggregated with this run's (each model's recipe records theirs).",
)
@click.option(
    "--rate", type=float, default=0.25, show_default=True, help="Share of each game's decisions offered to the teacher."
)
@click.option(
    "--hidden", type=int, default=16, show_default=True, help="Rectified units per decision kind (0: linear)."
)
@click.option("--epochs", type=int, default=60, show_default=True, help="Passes over the labels when fitting.")
@click.option("--knob", "knob", multiple=True, metavar="KEY=VALUE", help="A teacher rollout knob, e.g. budget=256.")
@click.option(
    "--until-gain",
    type=float,
    default=None,
    help="Stop before --iterations once two rounds in a row gain fewer points than this against the field.",
)
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@with_rules
def learn(
    out,
    model_path,
    decisions,
    iterations,
    seed,
    players,
    base,
    from_model,
    labels_from,
    rate,
    hidden,
    epochs,
    knob,
    until_gain,
    threads,
    quiet,
    rules_file,
    rule,
) -> None:
    """Distil rollout into a learned policy by expert iteration, and write its model file.

    Each round the student (round 1: --base) plays games in every seat; a share (--rate) of their
    decisions is searched by the teacher, rollout over the student; every candidate it weighs
    becomes a label: the move's features and its value in the search, with its standard error.
    A score per decision kind (linear plus --hidden rectified units) is fitted to all rounds'
    labels. On held-out labels (every tenth part) each round prints, per decision kind, the
    student's agreement with the teacher's pick and its mean regret, beside the base policy's, and
    its gain over the student before it, one seat against three of the base heuristic on the same
    20,000 games (--until-gain stops once two rounds in a row gain less). Labels are a resumable
    Parquet dataset in --out: rerun the command after an interruption and it goes on where it
    stopped. --from MODEL goes on from a committed model: its next round, taught over it, and
    --labels-from DIR fits on the labels of the rounds before it too, kept in their own folders.

    Each round's model records its recipe (the seed, the decisions, the teacher's knobs in full,
    the student it was taught over by its digest, the smsim that made it): the command and the
    recipe make it again. The model file is data (JSON): --policy FILE.json plays it, in any
    command.

    \b
    Examples:
      smsim learn --out runs/learn --decisions 20000 --iterations 2 --seed 1
      smsim learn --from learned --out runs/round-3 --decisions 30000 --knob budget=576
      smsim learn --from runs/round-3/model.json --out runs/round-4 --labels-from runs/round-3
      smsim compare runs/learn/model.json balanced --players 2 --games 20000
    """
    from smsim.layout import PolicyKind
    from smsim.policies.registry import resolve_policy
    from smsim.studies.learn import MAX_DECISIONS, LearnPlan, verify_plan

    rules = rules_from(rules_file, rule)
    if from_model is not None:
        if base != "balanced":
            fail("give --from or --base, not both: --from MODEL is round 1's student")
        if resolve_policy(from_model).kind != PolicyKind.LEARNED:
            fail(f"--from must name a learned model (a model file, or learned), not {from_model!r}")
        base = from_model
    n_decisions = count_of(decisions, "--decisions", MAX_DECISIONS)
    checks.threads(threads, "--threads", error=InputError)
    counts = tuple(checks.int_or_text(p) for p in players.split(","))  # checked by the plan
    plan = LearnPlan(
        decisions=n_decisions,
        iterations=iterations,
        seed=seed,
        players=counts,
        base=base,
        rate=rate,
        hidden=hidden,
        epochs=epochs,
        teacher=knobs_of(knob),
        labels_from=tuple(labels_from),
    )
    target = Path(model_path) if model_path else Path(out) / "model.json"
    verify_plan(plan)
    if until_gain is not None:
        checks.positive(until_gain, "--until-gain", error=InputError)
    if target.suffix != ".json":
        fail(f"--model must name a .json file, got {str(target)!r}")
    if target.exists() and target.is_dir():
        fail(f"--model {str(target)!r} is a directory")
    if model_path and not target.parent.is_dir():
        fail(f"--model {str(target)!r}: no directory {str(target.parent)!r}")
    _run(plan, out, target, rules, threads, quiet, None if until_gain is None else until_gain / 100)


def _run(plan, out, target, rules, threads, quiet, until_gain) -> None:
    from smsim.cli.progress import LearnProgress
    from smsim.report.terminal import print_learn_round
    from smsim.studies.learn import check_out_dir, learn

    check_out_dir(out, plan, rules)
    try:
        with LearnProgress(quiet) as progress:
            result = learn(
                plan,
                out,
                rules=rules,
                threads=threads,
                on_progress=progress,
                on_round=print_learn_round,
                command=["smsim", *sys.argv[1:]],
                until_gain=until_gain,
            )
    except KeyboardInterrupt:
        click.echo("\ninterrupted: the labels written so far are kept; run the command again to go on", err=True)
        sys.exit(130)
    try:
        result.model.save(target)
    except OSError as exc:
        fail(f"cannot write {str(target)!r}: {exc.strerror}")
    click.echo(
        f"labelled {sum(result.decisions):,} decisions in {len(result.decisions)} round(s), "
        f"{result.cpu_seconds / 3600:.3f} core-hours this run"
    )
    click.echo(f"written: {target} (use it as --policy {target})")
