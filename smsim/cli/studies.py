"""Commands of the studies: ``compare``, ``skill``, ``bonus-value``, ``regret``, ``tune`` and ``fairness``
(``sweep`` has a module of its own, ``cli/sweep.py``)."""

from __future__ import annotations

import json
import sys

import click

from smsim import checks
from smsim.cli.common import (
    InputError,
    caps_of,
    check_cluster_option,
    check_folder_out,
    cli,
    cluster_option,
    count_of,
    engine_ready,
    fail,
    rules_from,
    with_rules,
)
from smsim.cli.progress import (
    CompareProgressBar,
    FairnessProgressBar,
    RegretProgressBar,
    SweepProgressBar,
    TuneProgressBar,
)


# -- compare ----------------------------------------------------------------------------------
@cli.command()
@click.argument("policies", nargs=-1, required=True)
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--games", "-n", type=str, default="20000", show_default=True, help="Most games to play.")
@click.option(
    "--precision",
    type=float,
    default=None,
    help="Stop once every win-share interval is narrower than this (e.g. 0.02).",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The run's seed.")
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--out", "-o", type=str, default=None, help="Directory for the games and the result tables.")
@cluster_option(needs_out=False)
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
    from smsim.report.terminal import print_comparison
    from smsim.studies.compare import ComparisonWriter, verify_compare
    from smsim.studies.compare import compare as run_compare

    rules = rules_from(rules_file, rule)
    n_games = count_of(games, "--games")
    checks.threads(threads, "--threads", error=InputError)
    names = [name for value in policies for name in value.split(",") if name]
    check_cluster_option(cluster, out, needs_out=False)
    _, _, specs, _ = verify_compare(names, players, n_games, precision)
    writer = None
    if out:  # made before any game is played: an unwritable output fails at once
        check_folder_out(out, "comparison")
        try:
            writer = ComparisonWriter(out)
        except OSError as exc:
            fail(f"cannot write to {out!r}: {exc.strerror}")
    try:
        engine_ready(players, specs, rules)
        with CompareProgressBar() as report:
            result = run_compare(
                names,
                players,
                n_games,
                seed,
                rules,
                precision=precision,
                threads=threads,
                on_progress=report,
                keep_games=False,
                on_games=writer.add if writer else None,
                cluster=cluster,
            )
    except (ValueError, OSError) as exc:  # every SmsimError is a ValueError: the partial output goes first
        if writer is not None:
            writer.abort()
        fail(f"cannot write to {out!r}: {exc.strerror}" if isinstance(exc, OSError) else str(exc))
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
            fail(f"cannot write to {out!r}: {exc.strerror}")
        click.echo(f"written: {out}")


@cli.command()
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option(
    "--levels",
    default="random,greedy,balanced,learned",
    show_default=True,
    help="The levels of the matrix, comma-separated policies (rollout-learned is L3).",
)
@click.option("--games", "-n", type=str, default="20000", show_default=True, help="Games per cell.")
@click.option(
    "--cap",
    multiple=True,
    metavar="LEVEL=GAMES",
    help="At most this many games in a cell with LEVEL (repeatable): for a slow level such as L3.",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The study's seed: every cell's dice.")
@click.option(
    "--vary",
    multiple=True,
    metavar="FIELD=V1,V2,...",
    help="The skill gap under these values of a rules field (as sweep; each field alone).",
)
@click.option(
    "--variant",
    "variant_files",
    multiple=True,
    metavar="NAME=FILE.toml",
    help="The skill gap under a variant: a shipped variant's name or NAME=FILE.toml (repeatable).",
)
@click.option("--out", "-o", type=str, required=True, help="Directory of the study (resumable, cell by cell).")
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
@with_rules
def skill(players, levels, games, cap, seed, vary, variant_files, out, threads, quiet, rules_file, rule) -> None:
    """How much skill matters: the win-rate matrix of levels of play (one seat of the row's
    level against the column's level in every other seat, every seat rotation on common
    dice), the skill gap (one learned seat against balanced, minus parity) and, with --vary or
    --variant, the skill gap under each rules variant beside the baseline's, paired on the same
    dice: whether a rule makes the game more a game of skill or of luck.

    \b
    Examples:
      smsim skill --players 4 --games 20000 --out runs/skill4
      smsim skill -p 2 --levels balanced,learned,rollout-learned --cap rollout-learned=400 -o runs/skill2
      smsim skill -p 4 --levels balanced,learned --variant free-rotation --vary side_defence=1,3 -o runs/gap4
    """
    from smsim.report.terminal import print_skill
    from smsim.studies.skill import plan_skill, run_skill
    from smsim.studies.sweep import plan_variants

    base = rules_from(rules_file, rule)
    n = count_of(games, "--games")
    checks.threads(threads, "--threads", error=InputError)
    caps = caps_of(cap, "LEVEL")
    try:
        variants = plan_variants(list(vary), list(variant_files), True, base) if vary or variant_files else []
        plan = plan_skill(players, [x.strip() for x in levels.split(",") if x.strip()], n, seed, caps, variants, base)
        check_folder_out(out, "skill", plan.identity())
        from smsim.policies.registry import resolve_policy

        engine_ready(plan.players, [resolve_policy(x) for x in plan.levels], base)

        def on_cell(k, total, cell):
            if not quiet:
                where = f" under {plan.variants[cell.variant].name}" if plan.variants else ""
                click.echo(
                    f"cell {k + 1}/{total}: one {cell.row} against {cell.col}{where}, {cell.games:,} games", err=True
                )

        result = run_skill(plan, out, threads, ["smsim", *sys.argv[1:]], on_cell=on_cell)
    except KeyboardInterrupt:
        click.echo(
            f"\ninterrupted: the cells already written in {out} are complete; run the same command to go on", err=True
        )
        sys.exit(130)
    print_skill(result)


@cli.command("bonus-value")
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option(
    "--policy",
    default="balanced",
    show_default=True,
    help="The policy in every seat, a level: balanced, learned (a file.py:function is code: docs/trust.md).",
)
@click.option("--games", "-n", type=str, default="20000", show_default=True, help="Games of each setup.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The study's seed: every setup's dice.")
@click.option("--out", "-o", type=str, required=True, help="Directory of the study (resumable, setup by setup).")
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@with_rules
def bonus_value(players, policy, games, seed, out, threads, quiet, rules_file, rule) -> None:
    """What each wall bonus is worth, by ablation: the same --games games of --seed played with
    one seat denied a side's bonus (rules field wall_bonus_seats), every seat in turn, beside the
    games with every bonus; the denied seat's win share (shared wins split) and final VP against
    the same seat in the same game on the same dice. Prints each side's value (with minus
    without) with 95% intervals over games. 1 + 4 x players setups of --games games each.

    \b
    Examples:
      smsim bonus-value --players 4 --policy balanced --games 20000 --seed 1 --out runs/bonus-4p-L1
      smsim bonus-value -p 2 --policy learned -n 5000 -o runs/bonus-2p-L2
    """
    from smsim.policies.registry import resolve_policy
    from smsim.report.terminal import print_bonus
    from smsim.studies.bonus import plan_bonus, run_bonus

    base = rules_from(rules_file, rule)
    n = count_of(games, "--games")
    checks.threads(threads, "--threads", error=InputError)
    plan = plan_bonus(players, policy, n, seed, base)
    check_folder_out(out, "bonus", plan.identity())
    engine_ready(plan.players, [resolve_policy(plan.policy)] * plan.players, base)
    try:
        with SweepProgressBar(plan.games * len(plan.setups()), quiet) as report:
            result = run_bonus(plan, out, threads, ["smsim", *sys.argv[1:]], on_progress=report)
    except KeyboardInterrupt:
        click.echo(
            f"\ninterrupted: the setups already written in {out} are complete; run the same command to go on", err=True
        )
        sys.exit(130)
    print_bonus(result)


@cli.command()
@click.argument("policies", nargs=-1, required=True)
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option("--games", "-n", type=str, default="2000", show_default=True, help="Games of each policy.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The study's seed: every policy's dice.")
@click.option(
    "--oracle",
    default="balanced",
    show_default=True,
    help="The stated value: a heuristic whose values of the uses the exact keep maximises.",
)
@click.option("--against", default=None, help="Judge one seat of each policy against this one [default: mirrors].")
@click.option("--out", "-o", type=str, default=None, help="Directory of the study (resumable, policy by policy).")
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@with_rules
def regret(policies, players, games, seed, oracle, against, out, threads, quiet, rules_file, rule) -> None:
    """Each policy's keep decisions judged against the exact keep: at every KEEP decision the
    turn's dice are solved exactly under the --oracle's values of the uses, and the keep played
    is charged the best keep's expected value minus its own (VP). Prints per policy the regret
    per game with its 95% interval, per keep decision, and the share of keeps losing more than
    0.1 VP (errors). Each policy plays a mirror, or one seat against --against, every seat in turn.

    \b
    Examples:
      smsim regret balanced learned greedy --players 4 --games 4000 --seed 1
      smsim regret rollout-learned --against learned -p 4 -n 200 -o runs/regret-search
    """
    from smsim.report.terminal import print_regret
    from smsim.studies.regret import RegretPlan, keep_regret, run_regret, verify_plan

    base = rules_from(rules_file, rule)
    n = count_of(games, "--games")
    checks.threads(threads, "--threads", error=InputError)
    plan = RegretPlan(players, tuple(policies), n, seed, oracle, against)
    verify_plan(plan)
    if out is not None:
        check_folder_out(out, "regret", plan.identity(base))
    try:
        with RegretProgressBar(quiet) as bar:
            if out is None:
                table = keep_regret(list(policies), players, n, seed, oracle, against, base, threads, bar.report)
            else:
                table = run_regret(plan, out, base, threads, ["smsim", *sys.argv[1:]], on_progress=bar.report)
    except KeyboardInterrupt:
        where = f": the policies already written in {out} are complete; run the same command to go on" if out else ""
        click.echo(f"\ninterrupted{where}", err=True)
        sys.exit(130)
    print_regret(table, plan)


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
def tune(
    base, against, players, games, budget, seed, only, held_out_games, out, force, threads, quiet, rules_file, rule
) -> None:
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
    from smsim.report.terminal import print_tune
    from smsim.studies.tune import check_out, verify_tune_input, write_weights
    from smsim.studies.tune import tune as run_tune

    rules = rules_from(rules_file, rule)
    n_games = count_of(games, "--games")
    n_budget = count_of(budget, "--budget")
    n_held = count_of(held_out_games, "--held-out-games") if held_out_games is not None else 4 * n_games
    checks.threads(threads, "--threads", error=InputError)
    field = [n.strip() for n in against.split(",") if n.strip()] if against else None
    names = [n.strip() for n in only.split(",") if n.strip()] if only else None
    verify_players(players)
    verify_tune_input(base, field, players, n_games, n_budget, names)
    path = check_out(out, force)
    command = (
        f"smsim tune --base {base} --against {','.join(field) if field else base} --players {players} "
        f"--games {n_games} --budget {n_budget} --seed {seed}"
        + (f" --only {','.join(names)}" if names else "")
        + f" --held-out-games {n_held} --out {out}"
    )
    try:
        with TuneProgressBar(quiet) as report:
            result = run_tune(
                base,
                field,
                players,
                n_games,
                n_budget,
                seed,
                names,
                n_held,
                rules=rules,
                threads=threads,
                on_progress=report,
            )
    except KeyboardInterrupt:
        click.echo("\ninterrupted: nothing written", err=True)
        sys.exit(130)
    print_tune(result, n_games, players, seed)
    try:
        write_weights(result, path, command)
    except OSError as exc:
        fail(f"cannot write {out!r}: {exc.strerror}")
    click.echo(f"written: {out} (use it as --policy {out})")


@cli.command()
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players, 2 to 5.")
@click.option(
    "--policy",
    default="balanced",
    show_default=True,
    help="The policy in every seat (a file.py:function is code and runs as you: docs/trust.md).",
)
@click.option("--by", default="coins", show_default=True, help="Compensate by coins (seat_coins) or vp (seat_vp).")
@click.option("--games", "-n", type=str, default="20000", show_default=True, help="Games per candidate.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The search games' seed.")
@click.option("--check-games", type=str, default=None, help="Games of the held-out check [default: --games].")
@click.option("--check-seed", type=int, default=None, help="Seed of the held-out check [default: seed + 1000003].")
@click.option(
    "--max",
    "max_compensation",
    type=int,
    default=6,
    show_default=True,
    help="Largest compensation of a seat (coins 0..max, VP -max..max).",
)
@click.option("--threads", type=int, default=None, help="Threads (default: every core).")
@click.option("--out", "-o", type=str, default=None, help="Directory for fairness.json and rules.toml.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (no progress).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@with_rules
def fairness(
    players,
    policy,
    by,
    games,
    seed,
    check_games,
    check_seed,
    max_compensation,
    threads,
    out,
    as_json,
    quiet,
    rules_file,
    rule,
) -> None:
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
    from smsim.report.terminal import print_fairness
    from smsim.studies.fairness import fairness as run_fairness

    rules = rules_from(rules_file, rule)
    n_games = count_of(games, "--games")
    n_check = count_of(check_games, "--check-games") if check_games is not None else None
    checks.threads(threads, "--threads", error=InputError)
    checks.whole(max_compensation, "--max", low=0, error=InputError)
    if out is not None:  # checked before the search: its result is written only at the end
        check_folder_out(out, "fairness")
    try:
        with FairnessProgressBar(quiet or as_json) as report:
            result = run_fairness(
                players,
                policy,
                by,
                n_games,
                seed,
                n_check,
                check_seed,
                max_compensation,
                rules=rules,
                threads=threads,
                on_step=report,
            )
        # the command with every default spelled out: it reruns this search
        result.command = [
            "smsim",
            "fairness",
            "--players",
            str(players),
            "--policy",
            policy,
            "--by",
            by,
            "--games",
            str(n_games),
            "--seed",
            str(seed),
            "--check-games",
            str(result.check_games),
            "--check-seed",
            str(result.check_seed),
            "--max",
            str(max_compensation),
        ]
        if rules_file:
            result.command += ["--rules", rules_file]
        for text in rule:
            result.command += ["--rule", text]
        if out is not None:
            result.write(out)
    except KeyboardInterrupt:
        click.echo("\ninterrupted: nothing written", err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps(result.to_dict()))
        return
    print_fairness(result)
    if out is not None:
        click.echo(f"written: {out}/fairness.json and {out}/rules.toml (use it as --rules {out}/rules.toml)")
