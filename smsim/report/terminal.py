"""The terminal's tables (rich): a run's headline tables, a comparison, a sweep, a skill study, a
seat-compensation search, a tuning run and a round of ``smsim learn``, with every interval written
one way (``intervals.interval_text``).
The numbers are ``runs.summary``'s and the studies' DataFrames; nothing here computes a figure.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table

from smsim.intervals import MISSING, Z_95, interval_text
from smsim.policies.heuristic_layout import PARAM_NAMES
from smsim.report.tables import POINTS, POINTS_SAID, RATE, sides_agree, unit_form
from smsim.rules import Rules
from smsim.runs.dataset import VP_LABELS, vp_sources
from smsim.studies.fairness import FairnessResult
from smsim.studies.ratings import elo_points
from smsim.studies.skill import gap_verdict, level_name
from smsim.studies.sweep import (
    BASELINE,
    HEADLINE,
    SWEEP_HEADINGS,
    effects_across_bots,
    variance_reduction,
    variant_name,
)


def print_tables(tables: dict[str, pd.DataFrame], elapsed: float | None = None, console: Console | None = None) -> None:
    """Print the headline tables for the terminal."""
    console = console or Console(width=max(100, Console().width))
    g = tables["games"].iloc[0]
    n_games = int(g["games"])
    speed = f", {n_games / elapsed:,.0f} games/s" if elapsed else ""
    console.print(
        f"[bold]{n_games:,} games[/], {int(g['players'])} players{speed}; mean {g['rounds_mean']:.1f} rounds, "
        f"{int(g['aborted'])} aborted, {int(g['shared_wins'])} with a shared win"
    )
    t = Table(title="Results by policy (a shared win split between its winners; [95% interval])")
    for col in ("policy", "seats", "win rate", "mean VP", "VP p10/p50/p90", "cannons lost"):
        t.add_column(col, justify="right")
    for key, row in tables["by_policy"].iterrows():
        t.add_row(
            str(key),
            f"{int(row.seats):,}",
            interval_text(row.win_rate, row.win_lo, row.win_hi, **RATE),
            interval_text(row.vp_mean, row.vp_lo, row.vp_hi),
            f"{row.vp_p10:.0f} / {row.vp_p50:.0f} / {row.vp_p90:.0f}",
            f"{row.cannons_lost:.2f}",
        )
    console.print(t)
    if fixed_seats(tables):
        names = " ".join(str(k) for k in tables["by_policy"].index)
        console.print(
            f"Each policy sat in one seat only, so these rates mix the policy's strength with its seat's "
            f"edge; `smsim compare {names}` plays every policy in every seat on the same dice."
        )
    t = Table(title="Mean VP by source")
    sources = vp_sources(bool((tables["vp_by_source"]["seat_vp"] != 0).any()))
    for col in ("policy", *(VP_LABELS[c] for c in sources), "total"):
        t.add_column(col, justify="right")
    for key, row in tables["vp_by_source"].iterrows():
        t.add_row(str(key), *(f"{row[c]:.1f}" for c in sources), f"{row.total:.1f}")
    console.print(t)
    t = Table(title="Longest church series (share of seats) and sides completed")
    for col in ("policy", *(f"series {k}" for k in range(6)), "mean sides"):
        t.add_column(col, justify="right")
    for key, row in tables["church_series"].iterrows():
        t.add_row(
            str(key),
            *(interval_text(row[f"longest_{k}"], **RATE) for k in range(6)),
            f"{tables['sides_completed'].loc[key, 'mean']:.2f}",
        )
    console.print(t)
    if fixed_seats(tables):  # the seat table would repeat the policy table row for row
        return
    t = Table(title="Results by seat (seat 1 is the start player; a shared win split; [95% interval])")
    for col in ("seat", "seats", "win rate", "mean VP"):
        t.add_column(col, justify="right")
    for key, row in tables["by_seat"].iterrows():  # the data count seats from 0, people from 1
        t.add_row(
            str(int(key) + 1),
            f"{int(row.seats):,}",
            interval_text(row.win_rate, row.win_lo, row.win_hi, **RATE),
            interval_text(row.vp_mean, row.vp_lo, row.vp_hi),
        )
    console.print(t)


def fixed_seats(tables: dict[str, pd.DataFrame]) -> bool:
    """Whether every policy of the run sat in one seat only (a line-up of distinct policies):
    then its policy rates are its seat's, and by-seat rows say nothing more."""
    by_policy, by_seat = tables["by_policy"], tables["by_seat"]
    return len(by_policy) > 1 and len(by_policy) == len(by_seat)


def print_comparison(result, console: Console | None = None) -> None:
    """Print a comparison's tables (``smsim.studies.compare.Comparison``) for the terminal: per
    policy, then the mean VP difference of every pair."""
    console = console or Console(width=max(100, Console().width))
    played = result.blocks * result.games_per_block
    console.print(
        f"[bold]{played:,} games[/], {result.players} players: {result.blocks:,} blocks of "
        f"{result.games_per_block} seat arrangements on the same dice. Every policy sat in every seat "
        f"equally often, so its win share is its own, free of the seats' edge."
    )
    t = Table(title="Policies ([95% interval] over blocks; shared wins split)")
    for col in ("policy", "win share", "mean VP", "cannons lost", "rating (Elo scale)"):
        t.add_column(col, justify="right")
    order = list(result.table.sort_values("win_share", ascending=False).index)
    for name in order:
        row = result.table.loc[name]
        half = elo_points(Z_95 * row.log_strength_se)
        t.add_row(
            name,
            interval_text(row.win_share, row.win_lo, row.win_hi, **RATE),
            interval_text(row.vp_mean, row.vp_lo, row.vp_hi),
            f"{row.cannons_lost:.2f}",
            interval_text(row.elo, row.elo - half, row.elo + half, digits=0),
        )
    console.print(t)
    t = Table(title="Mean VP difference, row minus column, in the same blocks (95% CI)")
    t.add_column("")
    for b in order:
        t.add_column(b, justify="right")
    pairs = result.pairs.set_index(["a", "b"])
    for a in order:
        cells = []
        for b in order:
            if a == b:
                cells.append("")
            else:
                r = pairs.loc[(a, b)]
                cells.append(interval_text(r.vp_diff, r.lo, r.hi, signed=True))
        t.add_row(a, *cells)
    console.print(t)


def print_sweep(table: pd.DataFrame, games: int, console: Console | None = None, variants: list = ()) -> None:
    """Print a sweep's headline metrics (``sweep.variant_table``) for the terminal: the baseline's
    value, then each variant's paired difference from it with its 95% interval, and how much the
    common dice narrowed those intervals. ``variants`` (``sweep.Variant``s, the baseline first):
    each row named by its change from the baseline's rules (``sweep.variant_name``)."""

    console = console or Console(width=max(140, Console().width))
    names = {v.name: variant_name(v.varied, variants[0].rules, v.name) for v in variants[1:]}
    variants = list(dict.fromkeys(table["variant"]))
    console.print(
        f"[bold]{len(variants)} variants[/] x {games:,} games on common dice (game g has the same dice "
        "in every variant)"
    )
    t = Table(
        title="The baseline's values; each variant's paired difference from the baseline [95% interval] "
        "(rates in points)"
    )
    t.add_column("variant", no_wrap=True)
    rows = table.set_index(["variant", "metric"])
    for key in HEADLINE:
        t.add_column(SWEEP_HEADINGS[key], justify="right")
    for v in variants:
        cells = []
        for key in HEADLINE:
            r = rows.loc[(v, key)]
            if v == BASELINE:
                cells.append(interval_text(r.value, **unit_form(r.unit)) + (" pts" if r.unit == "points" else ""))
            else:
                cells.append(interval_text(r["diff"], r.diff_lo, r.diff_hi, **unit_form(r.unit, True)))
        t.add_row(names.get(v, v), *cells)
    console.print(t)
    vr = variance_reduction(table)
    if len(vr):
        median = float(vr["narrower"].median())
        console.print(
            f"Paired intervals are {median:.2f}x narrower than two independent samples would give "
            f"(median over {len(vr)} metrics; as many games as {median**2:.1f}x more unpaired)."
        )


def print_adapted(
    bots: list, table: pd.DataFrame, adapted: pd.DataFrame, console: Console | None = None, variants: list = ()
) -> None:
    """Print what the adapted bots (``studies.adapt``) found and each headline effect under the bot
    asked for beside the bot adapted to each variant, with one verdict across the two
    (``sweep.effects_across_bots``): an effect that holds for one bot and not the other is a
    property of who plays, not of the rules."""
    console = console or Console(width=max(140, Console().width))
    names = {v.name: variant_name(v.varied, variants[0].rules, v.name) for v in variants[1:]}
    console.print("[bold]Adapted bots[/]: balanced's weights tuned on each variant's own rules")
    for bot in bots:
        console.print("  " + bot.sentence().replace(bot.variant, names.get(bot.variant, bot.variant), 1))
    across = effects_across_bots({"asked": table, "adapted": adapted})
    across = across[across["metric"].isin(HEADLINE)]
    t = Table(title="Each variant's effect under the bot asked for and under the bot adapted to it [95% interval]")
    for heading in ("variant", "effect", "bot asked for", "adapted bot", "across bots"):
        t.add_column(heading, justify="left" if heading in ("variant", "effect", "across bots") else "right")
    for _, r in across.iterrows():
        form = unit_form(r["unit"], True)
        t.add_row(
            names.get(r["variant"], r["variant"]),
            SWEEP_HEADINGS[r["metric"]],
            interval_text(r["asked"], r["asked lo"], r["asked hi"], **form),
            interval_text(r["adapted"], r["adapted lo"], r["adapted hi"], **form),
            r["verdict"],
        )
    console.print(t)


def print_skill(result, console: Console | None = None) -> None:
    """A skill study (``studies.skill.SkillResult``): the matrix, the skill gap, and the gap under
    each variant with its paired change from the baseline."""
    console = console or Console(width=max(100, Console().width))
    m = result.matrix
    cells = {(r.row, r.col): r for r in m.itertuples()}
    t = Table(
        title=f"One seat of the row's level against the column's in every other seat, {result.players} players: "
        f"its win share [95% interval]; parity {interval_text(1 / result.players, **RATE)}"
    )
    t.add_column("row \\ column", justify="left")
    for col in result.levels:
        t.add_column(level_name(col), justify="right")
    for row in result.levels:
        t.add_row(
            level_name(row),
            *(
                (
                    MISSING
                    if row == col
                    else "not played"
                    if (row, col) not in cells
                    else interval_text(cells[row, col].share, cells[row, col].lo, cells[row, col].hi, **RATE)
                )
                for col in result.levels
            ),
        )
    console.print(t)
    gap = result.gap()
    if gap is not None:
        console.print(
            f"skill gap (one learned seat against balanced, minus parity): "
            f"{interval_text(*gap[:3], **POINTS_SAID)} "
            f"({gap[3]:,} games)"
        )
    if len(result.gaps) > 1:
        t = Table(
            title="The skill gap under each variant (points above parity) and its change from the baseline, "
            "paired on the same dice"
        )
        for col in ("variant", "skill gap", "change [paired]", "rounds change", "verdict"):
            t.add_column(col, justify="right")
        base_rules = Rules.from_dict(result.variants[0]["rules"])
        names = {v["name"]: variant_name(v.get("varied", {}), base_rules, v["name"]) for v in result.variants[1:]}
        for r in result.gaps.itertuples():
            base = r.variant == BASELINE
            t.add_row(
                names.get(r.variant, r.variant),
                interval_text(r.gap, r.gap_lo, r.gap_hi, **POINTS),
                "" if base else interval_text(r.diff, r.diff_lo, r.diff_hi, **POINTS),
                "" if base else interval_text(r.rounds_diff, r.rounds_diff_lo, r.rounds_diff_hi, signed=True),
                "" if base else gap_verdict(r.diff, r.diff_lo, r.diff_hi),
            )
        console.print(t)
    console.print(f"skill study: {result.path}")


def print_fairness(result: FairnessResult, console: Console | None = None) -> None:
    """A seat-compensation search (``studies.fairness.FairnessResult``): its held-out check's table
    and its overall line."""
    console = console or Console(width=max(100, Console().width))
    unit = "coins" if result.by == "coins" else "VP"
    c = result.check
    console.print(
        f"[bold]{result.players} players, {result.policy} in every seat[/]: compensation by {unit} "
        f"{list(result.compensation)} ({result.rules_field}), found in {len(result.search)} candidates of "
        f"{result.games:,} games on seed {result.seed}; objective {c['search_objective']:.2e} "
        f"(at zero {c['search_objective_zero']:.2e})"
    )
    t = Table(
        title=f"Held-out check: {result.check_games:,} games on seed {result.check_seed}, without and with "
        f"the compensation (win share; 95% intervals; parity "
        f"{interval_text(result.parity, **RATE)})"
    )
    for col in ("seat", unit, "before [95% interval]", "after [95% interval]", "after differs from parity?"):
        t.add_column(col, justify="right")
    for r in result.table.itertuples():
        who = " (start)" if r.seat == 0 else ""  # the data count seats from 0, people from 1
        t.add_row(
            f"{r.seat + 1}{who}",
            f"{r.compensation:+d}" if r.compensation else "0",
            interval_text(r.before, r.before_lo, r.before_hi, **RATE),
            interval_text(r.after, r.after_lo, r.after_hi, **RATE),
            "yes" if r.distinguishable else "no",
        )
    console.print(t)
    console.print(
        f"largest |win share - parity|: before {100 * c['before_max_deviation']:.1f} points, after "
        f"{100 * c['after_max_deviation']:.1f}; all seats equal (chi-square, {c['dof']} dof): before "
        f"{c['chi2_before']:.1f}, p = {c['p_before']:.2g}; after {c['chi2_after']:.1f}, "
        f"p = {c['p_after']:.2g}"
    )


def print_tune(result, games: int, players: int, seed: int, console: Console | None = None) -> None:
    """What ``smsim tune`` found: the best candidate on the tuning dice, then the held-out check
    against the base, with its verdict."""
    console = console or Console(highlight=False)
    say = partial(console.print, soft_wrap=True, markup=False)  # lines as they are, never folded at the width
    share, lo, hi = result.held_out_share
    parity = result.held_out_parity
    verdict = (
        "the base itself scored best on the tuning dice: nothing better was found"
        if not result.changed
        else "better than the base (the interval excludes parity)"
        if lo > parity
        else "worse than the base (the interval excludes parity)"
        if hi < parity
        else "not shown to differ from the base (the interval holds parity)"
    )
    # every weight as the base plays it: weights() leaves out a later weight at its neutral value
    # (exact_keep 0, say), which --only may still tune
    base_w = dict(zip(PARAM_NAMES, map(float, result.base.params)))
    changed = ", ".join(f"{k} {base_w[k]:g} -> {v:g}" for k, v in result.changed.items()) or "none"
    say(
        f"tuned {len(result.searched)} weight(s) of {result.base.name}: {len(result.history)} candidates "
        f"of {games:,} games, {players} players, against {', '.join(result.field)}, seed {seed}"
    )
    say(
        f"best on the tuning dice: {interval_text(result.score, result.score_lo, result.score_hi, **RATE)} "
        f"(the base {interval_text(result.base_score, **RATE)}, parity {interval_text(result.parity, **RATE)})"
    )
    played = result.held_out.blocks * result.held_out.games_per_block
    say(
        f"held out ({played:,} games on seed {result.held_out_seed}): tuned against {result.base.name} "
        f"{interval_text(share, lo, hi, **RATE)} (parity {interval_text(parity, **RATE)}): {verdict}"
    )
    say(f"changed: {changed}")


def print_learn_round(
    round_no: int,
    table: pd.DataFrame,
    shares: list[float],
    gain: dict[str, float] | None = None,
    console: Console | None = None,
) -> None:
    """One round of ``smsim learn``: agreement and regret of the student on held-out decisions, beside
    the base's, then the selection games' share of each fit, and the round's gain against the field."""
    console = console or Console()
    view = Table(
        title=f"round {round_no}: held-out decisions (teacher: rollout over the "
        f"{'base' if round_no == 1 else 'round ' + str(round_no - 1) + ' student'})"
    )
    for name in ("kind", "decisions", "agreement", "regret", "base agreement", "base regret"):
        view.add_column(name, justify="right")
    for row in table.itertuples():
        view.add_row(
            row.kind,
            f"{row.decisions:,}",
            interval_text(row.agreement, **RATE),
            f"{row.regret:.4f}",
            interval_text(row.base_agreement, **RATE),
            f"{row.base_regret:.4f}",
        )
    console.print(view)
    if shares:
        picked = max(range(len(shares)), key=shares.__getitem__)
        console.print(
            "fits from seeded starts, one seat against three of the base (4 players, selection games): "
            f"{', '.join(interval_text(x, **RATE) for x in shares)}; kept fit {picked + 1}"
        )
    if gain is not None:
        console.print(
            f"round {round_no}'s student, one seat against three of the base (4 players, its own games): "
            f"{interval_text(gain['share'], **RATE)}; gain over the student before it on the same games "
            f"{interval_text(gain['gain'], gain['gain_lo'], gain['gain_hi'], **POINTS_SAID)}"
        )


def print_bonus(result, console: Console | None = None) -> None:
    """A wall-bonus ablation (``studies.bonus.BonusResult``): each side's value, with minus without,
    in win share and VP, and whether the sides with the same bonus agree (``tables.sides_agree``)."""
    console = console or Console(width=max(100, Console().width))
    t = Table(
        title=f"What each wall bonus is worth at {result.players} players under {result.policy}: the same seat "
        "in the same game with it minus without it [95% interval]"
    )
    for col in ("side", "bonus", "face VP", "games", "win share, points", "VP", "completed with / without"):
        t.add_column(col, justify="right")
    for r in result.table.itertuples():
        t.add_row(
            r.side,
            r.bonus,
            interval_text(r.face_vp, digits=2),
            f"{int(r.games):,}",
            interval_text(r.win_change, r.win_change_lo, r.win_change_hi, **POINTS),
            interval_text(r.vp_change, r.vp_change_lo, r.vp_change_hi, **unit_form("vp", signed=True)),
            f"{interval_text(r.completed, **RATE)} / {interval_text(r.completed_denied, **RATE)}",
        )
    console.print(t)
    for r in sides_agree(result.table).itertuples():
        said = "agree" if r.agree else "do not agree"
        console.print(
            f"sides with the same bonus ({r.sides}) {said}: "
            f"VP {interval_text(r.vp_diff, r.vp_diff_lo, r.vp_diff_hi, **unit_form('vp', signed=True))}, "
            f"win share {interval_text(r.win_diff, r.win_diff_lo, r.win_diff_hi, **POINTS_SAID)}"
        )
    console.print(f"wall-bonus ablation: {result.path}")


def print_regret(table: pd.DataFrame, plan, console: Console | None = None) -> None:
    """A keep-regret study (``studies.regret``): per policy, its keep decisions' regret against
    the exact keep under the plan's stated value."""
    console = console or Console(width=max(100, Console().width))
    how = f"one seat against {plan.against}" if plan.against else "mirrors"
    t = Table(
        title=f"Keep decisions against the exact keep under {plan.oracle}'s values, {plan.players} players, "
        f"{how}: expected VP lost [95% interval]"
    )
    for col in (
        "policy",
        "seat-games",
        "keeps a game",
        "regret a game, VP",
        "a keep, VP",
        "errors a game",
        "error rate",
    ):
        t.add_column(col, justify="right", no_wrap=True)
    for r in table.itertuples():
        t.add_row(
            r.policy,
            f"{int(r.seat_games):,}",
            f"{r.keeps_per_game:.1f}",
            interval_text(r.regret_per_game, r.regret_lo, r.regret_hi, digits=2),
            f"{r.regret_per_keep:.3f}",
            f"{r.errors_per_game:.2f}",
            interval_text(r.error_rate, **RATE),
        )
    console.print(t)
    console.print("an error: a keep that loses more than 0.1 VP of the stated value's expectation")


def print_calibration(summaries: list[dict], console: Console | None = None) -> None:
    """A win-probability model's calibration on held-out games (``studies.winprob``): per player
    count its Brier score beside that of knowing nothing, the expected calibration error and the
    reliability table."""
    console = console or Console(width=max(100, Console().width))
    for c in summaries:
        t = Table(
            title=f"Win probability, {c['players']} players: {c['positions']:,} held-out positions of "
            f"{c['games']:,} games; Brier {c['brier']:.4f} (1/{c['players']} each: "
            f"{c['brier_uniform']:.4f}), calibration error {c['ece_points']:.2f} points"
        )
        for col in ("predicted", "seat-positions", "mean predicted", "won [95% interval]"):
            t.add_column(col, justify="right", no_wrap=True)
        for r in c["reliability"]:
            t.add_row(
                r["bin"],
                f"{r['n']:,}",
                f"{r['predicted']:.1%}",
                interval_text(r["observed"], r["observed_lo"], r["observed_hi"], **RATE),
            )
        console.print(t)


def print_shape(results: list, console: Console | None = None) -> None:
    """The shape of the games (``studies.shape``): one column a dataset, one row a figure."""
    console = console or Console(width=max(60 + 24 * len(results), Console().width))
    t = Table(title="The shape of the games [95% intervals over games]")
    t.add_column("figure", no_wrap=True)
    for r in results:
        t.add_column(f"{r.players}p {r.policy}", justify="right", no_wrap=True)
    forms = {
        "count": dict(digits=2),
        "rounds": dict(digits=1),
        "vp": dict(digits=1, unit=" VP"),
        "rate": RATE,
        "prob": RATE,
    }
    first = results[0].figures
    for i, row in first.iterrows():
        cells = []
        for r in results:
            f = r.figures.iloc[i]
            cells.append(interval_text(f["value"], f["lo"], f["hi"], **forms[f["unit"]]))
        t.add_row(row["label"], *cells)
    console.print(t)
    console.print("winner's figures: games with a single winner (a shared win has none)")


def print_luck(result, console: Console | None = None) -> None:
    """A match with the dice's luck measured (``studies.luck``)."""
    console = console or Console(width=max(100, Console().width))
    plan, t = result.plan, result.table.set_index("figure")
    title = (
        f"{plan.policy} in one seat against {plan.against}, {plan.players} players, {t.attrs['blocks']:,} blocks of "
        f"every rotation on the same dice; each value the mean of {plan.samples} plays, "
        + (f"to the game's end under {plan.endgame} empty spaces" if plan.endgame else "the model's to the end")
        + " [95% intervals]"
    )
    table = Table(title=title)
    table.add_column("figure")  # wraps, so that a value is never cut
    table.add_column("value", justify="right", no_wrap=True)
    for name in t.index:
        row = t.loc[name]
        if name in ("gap", "gap_adjusted", "luck_mean"):
            text = interval_text(row["value"], row["lo"], row["hi"], **POINTS)
        elif name in ("explained", "explained_own"):
            text = f"{row['value']:.1%}"
        elif name in ("narrower", "narrower_games"):
            text = f"{row['value']:.2f} x"
        else:
            text = f"{row['value']:,.0f}" if np.isfinite(row["value"]) else MISSING
        table.add_row(row["label"], text)
    console.print(table)


def print_shape_difference(table: pd.DataFrame, base: str, console: Console | None = None) -> None:
    """Each dataset's shape minus the base's, paired game by game (``studies.shape.shape_difference``)."""
    datasets = list(dict.fromkeys(table["dataset"]))
    console = console or Console(width=max(60 + 26 * len(datasets), Console().width))
    t = Table(title=f"The shape of the games minus {base}'s, on the same games [95% intervals, paired]")
    t.add_column("figure", no_wrap=True)
    for d in datasets:
        t.add_column(d, justify="right", no_wrap=True)
    forms = {
        "count": dict(digits=2),
        "rounds": dict(digits=1),
        "vp": dict(digits=1, unit=" VP"),
        "rate": POINTS,
        "prob": POINTS,
    }
    for label, rows in table.groupby("label", sort=False):
        cells = [
            interval_text(r.value, r.lo, r.hi, signed=True, **{k: v for k, v in forms[r.unit].items() if k != "signed"})
            for r in rows.itertuples()
        ]
        t.add_row(label, *cells)
    console.print(t)


def print_matters(result, console: Console | None = None) -> None:
    """What matters (``studies.matters``): per player count, each part's loss to the seat that
    forgoes it, at each strength, ranked by the first strength's loss; then the rankings' agreement."""
    table = result.table
    policies = list(dict.fromkeys(table["policy"]))
    console = console or Console(width=max(20 + 62 * len(policies), Console().width))
    for players, at in table.groupby("players"):
        first = at[at["policy"] == policies[0]].sort_values("rank")
        games = ", ".join(f"{p} {int(at.loc[at['policy'] == p, 'games'].max()):,}" for p in policies)
        t = Table(
            title=f"What matters at {players} players: the win share a seat loses forgoing each part, against the "
            f"same policy in the other seats, every rotation on the same dice (games: {games}) "
            "[95% intervals]"
        )
        t.add_column("part", no_wrap=True)
        for p in policies:
            t.add_column(f"{p}: loss, points", justify="right", no_wrap=True)
            t.add_column("VP behind", justify="right", no_wrap=True)
            t.add_column("verdict (rank)", no_wrap=True)
        for part in first["part"]:
            cells = []
            for p in policies:
                row = at[(at["policy"] == p) & (at["part"] == part)]
                if row.empty:
                    cells += [MISSING] * 3
                    continue
                r = row.iloc[0]
                cells += [
                    interval_text(r["loss"], r["loss_lo"], r["loss_hi"], **unit_form("points")),
                    interval_text(r["vp_loss"], r["vp_lo"], r["vp_hi"], signed=True),
                    f"{r['verdict']} ({int(r['rank'])})",
                ]
            t.add_row(part, *cells)
        console.print(t)
    for r in result.agreement.itertuples():
        console.print(
            f"{r.players} players: the parts ranked by {r.policy} and by {r.against} agree with "
            f"Spearman's rho {r.spearman:.2f} over {r.parts} parts (1: the same order)"
        )
