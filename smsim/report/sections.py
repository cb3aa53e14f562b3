"""The sections on the game: church series, wall bonuses, pirate losses, outcomes and the
heuristics compared. Each topic shows its figure (``report.plots``), then the headline rows of each
of its tables (``report.tables``: the at-a-glance games), the whole table folded below them."""

from __future__ import annotations

import pandas as pd

from smsim.intervals import MARGINS, MOVES, SAME, interval_text
from smsim.report import plots as P
from smsim.report import tables as A
from smsim.report.render import MAX_COLUMNS, MAX_SHORT_ROWS, Block, Section, display_table, topic
from smsim.runs.dataset import VP_SOURCES


def _doc(fn) -> str:
    """A table's docstring on one line: what it shows and, where it has one, its method."""
    return " ".join((fn.__doc__ or "").split()).replace("``", "`")


OWN_STUDY = {"bonus_value": "L1 `balanced`, the level of the at-a-glance games, from its own ablation games"}
"""Tables measured on studies of their own (not on the report's datasets pooled): what their
headline rows are."""


def _table(data: A.ReportData, name: str, title: str) -> Block:
    """A table of the report: its headline rows computed on the at-a-glance games alone (the
    mirror of each player count the glance table describes), and the whole table, pooled over
    every dataset of the report, folded below them and labelled as pooled where it holds more."""
    fn = A.TABLES[name]
    t = fn(data)
    if t.empty:
        return Block("missing", text=f"{title}: not in these data (no rows).", name=name)
    glance = A.glance_data(data)
    pooled = len(glance.sources) < len(data.sources)
    at_glance = fn(glance) if pooled and glance.n_games else None
    short = _short_table(data, name, at_glance if at_glance is not None else t)
    if not pooled and display_table(short).shape == display_table(t).shape:
        short = None  # the headline is the whole table: shown once
    text = f"{title}. {_doc(fn)}"
    if pooled and name in OWN_STUDY:
        text += f" Headline rows: {OWN_STUDY[name]}; the whole table below"
    elif pooled:
        text += (
            f" Headline rows: the at-a-glance games ({_glance_words(glance)}); the whole table pools all "
            f"{len(data.sources)} datasets of the report, every line-up together"
        )
    return Block(
        "table",
        text=text,
        name=name,
        table=t,
        short=short,
        pooled=f"pooled over all {len(data.sources)} datasets" if pooled else "",
        # the headline rows' numbers where the whole table's CSV does not hold them (pooled over more games)
        headline=at_glance if short is not None and at_glance is not None and name not in OWN_STUDY else None,
    )


def _glance_words(glance: A.ReportData) -> str:
    fields = sorted({A.short_field(src.field) for src in glance.sources})
    return f"{'; '.join(fields)}, {glance.n_games:,} games"


def bonus_agreement(data: A.ReportData) -> list[Block]:
    """A line per player count and policy of the wall-bonus ablation: whether the sides with the
    same bonus (right and left, 2 coins) are worth the same, judged by size against the VP margin
    (``tables.sides_agree``), and where their interval excludes no difference, why that can be."""
    items = []
    for r in A.sides_agree(A.bonus_value(data)).itertuples():
        vp = interval_text(r.vp_diff, r.vp_diff_lo, r.vp_diff_hi, **A.unit_form("vp", signed=True, words=True))
        win = interval_text(r.win_diff, r.win_diff_lo, r.win_diff_hi, **A.POINTS_SAID)
        first = f"{r.players} players, `{r.policy}`: {r.sides} ({vp}; win share {win})"
        why = (
            " The sides are not alike in play: the printed crates stand at the top left and the bots break ties "
            "between equally advanced sides in board order, so one side is completed earlier or more often than "
            "the other (see Sides completed)."
        )
        margin = f"the margin of {MARGINS['vp']:g} VP"
        if r.verdict == SAME:
            items.append(
                f"{first}: worth the same on both sides, within {margin}"
                + (
                    "."
                    if r.agree
                    else " (its interval stops short of no difference by a fraction of the margin)." + why
                )
            )
        elif r.verdict == MOVES:
            items.append(f"{first}: the same bonus is worth more on one side, by more than {margin}." + why)
        else:
            items.append(f"{first}: not settled against {margin}: more games would tell.")
    return [Block("list", text="Sides with the same bonus, second minus first", items=items)] if items else []


def figure_block(data: A.ReportData, kind: str, missing: str) -> Block:
    made = P.PLOTS[kind](data)
    if made is None:
        return Block("missing", text=f"Figure {kind}: {missing}", name=kind)
    fig, caption = made
    return Block("figure", text=caption, name=kind, figure=fig)


SHORT_COLUMNS = {
    "church_series": ["players", "policy", "seats", "church_vp", "churches", "series", "longest_mean"],
    "series_lengths": ["players", "policy", "seats", *(f"series_{k}" for k in A.SIZES)],
    "church_sizes": ["players", "policy", *(f"size_{k}_built" for k in A.SIZES)],
    "priests": ["players", "policy", "seats", "priest_vp", "priest_scored"],
    "sides": ["players", "policy", "side", "bonus", "completed", "round_mean"],
    "bonus_value": ["players", "policy", "side", "bonus", "face_vp", "win_change", "vp_change"],
    "wall_defence": ["players", "policy", "attack", "strength", "held", "walls_carried"],
    "attacks_per_game": ["players", "games", "attacks"],
    "attacks": ["players", "attack", "strength", "came", "round_mean"],
    "cannons": ["players", "policy", "seats", "cannons_lost", "cannon_vp", "lost_any"],
    "defence_vs_strength": ["players", "attack", "strength", "defence_mean", "defence_p50", "held"],
    "cannons_changed_winner": ["players", "games", "changed"],
    "scores": ["players", "policy", "seats", "vp", "vp_p10", "vp_p90", "win"],
    "seat_advantage": ["players", "field", "seat", "win", "parity", "vp"],
    "game_length": ["players", "games", "rounds", "rounds_p10", "rounds_p50", "rounds_p90"],
    "vp_by_source": ["players", "policy", *VP_SOURCES, "total"],  # every source: the row adds up to its total
    "game_end": ["players", "field", "games", "several_full", "aborted_share"],
}
"""The headline columns of each table, shown above its full version (``x`` brings ``x_lo``/``x_hi``)."""

SHORT_PIVOT = {
    "attacks": ("came", ["attack", "strength"]),
    "defence_vs_strength": ("held", ["attack", "strength"]),
    "wall_defence": ("walls_carried", ["attack", "strength"]),
}
"""Tables whose headline rows are too many: one figure of theirs, player counts as columns."""


def _short_table(data: A.ReportData, name: str, t: pd.DataFrame) -> pd.DataFrame:
    """A table's headline rows and columns from ``t`` (computed on the at-a-glance games): the
    rows of their line-up, or their policy where the table is by policy, its ``SHORT_COLUMNS``."""
    glance = [data.sources[i] for i in A.glance_sources(data).values()]
    rows = t
    if "field" in t.columns:
        rows = t[t["field"].astype(str).isin({src.field for src in glance})]
    elif "policy" in t.columns:
        policies = {src.seat_policies[0] for src in glance if len(set(src.seat_policies)) == 1}
        rows = t[t["policy"].astype(str).isin(policies)]
    if rows.empty:
        rows = t
    if name in SHORT_PIVOT and len(rows) > MAX_SHORT_ROWS and rows.groupby("players").ngroups > 1:
        value, index = SHORT_PIVOT[name]
        shown = display_table(rows[["players", *index, value, f"{value}_lo", f"{value}_hi"]])
        label = next(c for c in shown.columns if c.startswith(value.replace("_", " ")))
        keys = [i.replace("_", " ") for i in index]
        wide = shown.pivot(index=keys, columns="players", values=label)
        wide.columns = [f"{label}, {p} players" for p in wide.columns]
        return wide.reset_index().head(MAX_SHORT_ROWS)
    keep = [c for c in SHORT_COLUMNS.get(name, list(t.columns)) if c in t.columns]
    cols = [c for c in t.columns if c in keep or (c[-3:] in ("_lo", "_hi") and c[:-3] in keep)]
    if "field" in cols:  # one line-up per player count: the long names say nothing the caption does not
        rows = rows.assign(field=[A.short_field(str(f)) for f in rows["field"]])
    if (
        "policy" in cols
        and rows["policy"].nunique() == 1
        and len(display_table(rows[cols].head(1)).columns) > MAX_COLUMNS
    ):
        cols.remove("policy")  # one policy, named in the caption: the row keeps its figures on one table
    return rows[cols].head(MAX_SHORT_ROWS).reset_index(drop=True)


def game_sections(data: A.ReportData) -> list[Section]:
    """The sections on the game, in the order of the page."""
    out = []
    s = Section(
        "Church series",
        "Churches score by series: a series is 1, 1-2, 1-2-3 ... of church sizes "
        "(docs/rules.md §4). How long the series get, how many churches of each size are built, what "
        "church series are worth and what priests earned.",
    )
    s.blocks += topic(
        "The longest series",
        figure_block(data, "church-series", "no seats in these data."),
        _table(data, "church_series", "Church VP, churches built and the longest series"),
        _table(data, "series_lengths", "Series of each length"),
    )
    s.blocks += topic(
        "Church VP, churches and priests",
        figure_block(data, "church-vp", "no seats in these data."),
        _table(data, "church_sizes", "Churches of each size"),
        _table(data, "priests", "What priests earned"),
    )
    out.append(s)
    s = Section(
        "Wall bonuses",
        "Completing the five walls of a side gives its bonus and defence. How often each "
        "side is completed and when, what its bonus is worth, and how often walls rather than soldiers "
        "held off the pirates.",
    )
    s.blocks += topic(
        "Sides completed",
        figure_block(data, "sides", "no seats in these data."),
        figure_block(data, "side-rounds", "no side was completed in these data."),
        _table(data, "sides", "Sides completed"),
    )
    s.blocks += topic(
        "What each bonus is worth",
        figure_block(
            data,
            "bonus-value",
            "no wall-bonus ablation among these data (`smsim bonus-value --out DIR`, then give DIR to `smsim report`).",
        ),
        _table(data, "bonus_value", "What each bonus is worth, by ablation"),
        *bonus_agreement(data),
    )
    s.blocks += topic(
        "Walls or soldiers",
        figure_block(data, "wall-defence", "no attack came in these data."),
        _table(data, "wall_defence", "Walls or soldiers"),
    )
    out.append(s)
    s = Section(
        "Pirate losses",
        "Each full row of the pirate track attacks every city; a city whose defence is "
        "below the strength loses a cannon. When the attacks come, what they cost, how defence meets them, "
        "and how often the cannons decided the winner.",
    )
    s.blocks += topic(
        "When the attacks come",
        figure_block(data, "attack-rounds", "no attack came in these data."),
        _table(data, "attacks_per_game", "Attacks per game"),
        _table(data, "attacks", "When each attack comes"),
    )
    s.blocks += topic(
        "Cannons lost",
        figure_block(data, "cannons", "no seats in these data."),
        _table(data, "cannons", "Cannons lost"),
        _table(data, "cannons_changed_winner", "Did the cannons change the winner?"),
    )
    s.blocks += topic(
        "Defence against strength",
        figure_block(data, "defence", "no attack came in these data."),
        _table(data, "defence_vs_strength", "Defence against strength"),
    )
    out.append(s)
    s = Section(
        "Outcomes", "Scores, the start player's advantage, game length, where the VP come from and how games end."
    )
    s.blocks += topic(
        "Final scores",
        figure_block(data, "scores", "no seats in these data."),
        _table(data, "scores", "Final scores and win rates"),
    )
    s.blocks += topic(
        "Win rate by seat",
        figure_block(data, "seat-advantage", "no seats in these data."),
        _table(
            data,
            "seat_advantage",
            "Win rate by seat (seat 1 is the start player; the CSV counts seats from 0, as the datasets do)",
        ),
    )
    s.blocks += topic(
        "Game length and how games end",
        figure_block(data, "game-length", "no games in these data."),
        _table(data, "game_length", "Game length"),
        _table(data, "game_end", "How the game ended"),
    )
    s.blocks += topic(
        "Where the VP come from",
        figure_block(data, "vp-sources", "no seats in these data."),
        _table(data, "vp_by_source", "VP by source"),
    )
    out.append(s)
    s = Section(
        "Heuristics compared",
        "From `smsim compare`: every policy in every seat equally, each seat "
        "arrangement on the same dice, intervals over independent blocks, and Plackett-Luce ratings fitted "
        "to the final rankings.",
    )
    compared = [src for src in data.sources if src.kind == "compare"]
    if not compared:
        s.blocks.append(
            Block(
                "missing",
                text="No comparison among these data: run `smsim compare ... --out DIR` "
                "and give DIR to `smsim report`.",
            )
        )
    else:
        s.blocks.append(figure_block(data, "ratings", "no ratings saved with the comparison."))
    for i, src in enumerate(compared):
        s.blocks.append(Block("heading", text=f"{src.players} players"))
        for name, title in (
            ("policies", "Win share, mean VP and rating by policy"),
            ("pairs", "Mean VP difference of each pair of policies in the same blocks"),
        ):
            t = src.comparison.get(name)
            if t is None:
                s.blocks.append(Block("missing", text=f"{src.path}: no {name}.csv"))
                continue
            if name == "policies":  # the compare tables' own names, in the report's convention
                t = t.reset_index().rename(columns={"win_share": "win", "vp_mean": "vp"})
                short = t[
                    [
                        c
                        for c in ("policy", "blocks", "seats", "win", "win_lo", "win_hi", "vp", "vp_lo", "vp_hi", "elo")
                        if c in t.columns
                    ]
                ].sort_values("win", ascending=False)
            else:
                t = t.rename(columns={"lo": "vp_diff_lo", "hi": "vp_diff_hi"})
                short = None  # every pair: the full table alone
            s.blocks.append(
                Block(
                    "table",
                    text=f"{title} ({src.players} players, {src.games:,} games).",
                    name=f"compare_{i}_{name}",
                    table=t,
                    short=short,
                )
            )
    out.append(s)
    return out
