"""Balance reports: a Markdown page and the same as one self-contained HTML page (``smsim report``).

A report is a list of sections; each holds text, tables from :mod:`smsim.report.tables` and figures
from :mod:`smsim.report.plots`. What is written:

- ``report.md`` and ``report.html`` (figures embedded, so the HTML file travels alone);
- ``figures/KIND.png`` and ``figures/KIND.svg`` (for print);
- ``tables/NAME.csv``: every table of the report, unrounded, for checking and re-use.

Numbers shown are rounded; rates are percentages with their 95% interval in brackets, means are
followed by theirs. A section or table with nothing to show says so instead of failing.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd

from smsim import __version__
from smsim.errors import DatasetError
from smsim.files import write_file
from smsim.intervals import MARGINS, MISSING, interval_text
from smsim.report import findings as F
from smsim.report import ladder as LA
from smsim.report import plots as P
from smsim.report import tables as A
from smsim.report.terminal import SWEEP_HEADINGS
from smsim.runs.folder import KINDS, kind_of
from smsim.studies.fairness import read_fairness
from smsim.studies.skill import GAP, gap_verdict, level_name, read_skill, shipped_as
from smsim.studies.sweep import HEADLINE, variance_reduction

# columns shown as percentages (with their intervals, when the table has them)
PERCENT = {
    "win", "held", "walls_held", "walls_carried", "completed", "came", "lost_any", "priest_scored", "changed",
    "several_full", "aborted_share", "wall_share_of_defence", "parity", "church_vp_share",
    *(f"size_{k}_built" for k in range(1, 6)), *(f"longest_{k}" for k in range(6)),
    *(f"share_{k}" for k in range(13)), *(f"seat_{k}" for k in range(5)),
}  # fmt: skip


MAX_COLUMNS = 8
"""No table on the page has more columns: eight fit a 1,400 px window with intervals in their cells.
A wider table is split into several that repeat its key columns (``split_columns``)."""

MAX_SHORT_ROWS = 16
"""A table with more rows shows its headline rows, the whole of it folded below (``<details>``)."""

KEYS = ("players", "policy", "field", "seat", "side", "attack", "variant", "metric", "figure", "a", "b", "rule",
        "dataset")  # fmt: skip
"""Columns that name a row: a split table repeats the leading ones."""


@dataclass
class Block:
    kind: str  # "heading", "list", "table", "figure", "missing"
    text: str = ""
    name: str = ""
    table: pd.DataFrame | None = None  # written to tables/NAME.csv unrounded
    figure: object = None
    shown: pd.DataFrame | None = None  # a table's cells as the page shows them, where not display_table's
    items: list[str] = field(default_factory=list)  # a list's lines
    short: pd.DataFrame | None = None  # a table's headline rows and columns, shown above the folded whole
    png: bytes = b""  # a figure, once drawn
    pooled: str = ""  # a table whose whole is pooled over line-ups: the words that say so
    fold: bool = True  # a long table folds below its headline rows; a ladder is shown whole

    @property
    def full(self) -> pd.DataFrame:
        """A table's cells as the page shows them whole."""
        return self.table if self.shown is None else self.shown

    @property
    def folded(self) -> bool:
        """Whether the whole table folds below its headline rows (both pages alike)."""
        full = self.full
        return self.fold and (self.short is not None or len(full) > MAX_SHORT_ROWS
                              or len(display_table(full).columns) > MAX_COLUMNS)  # fmt: skip


@dataclass
class Section:
    title: str
    intro: str
    blocks: list[Block] = field(default_factory=list)


# -- formatting ----------------------------------------------------------------------------------
def _number(v, percent: bool) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return MISSING
    if isinstance(v, str):  # a cell already written for the page
        return v
    if percent:
        return f"{100 * float(v):.1f}%"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if v.is_integer() and abs(v) >= 100:
            return f"{int(v):,}"
        return f"{v:.2f}" if abs(v) < 10 else f"{v:.1f}"
    return str(v)


def display_table(t: pd.DataFrame) -> pd.DataFrame:
    """Strings for the page: ``x [lo, hi]`` where the table has ``x_lo`` and ``x_hi``, percentages
    for rates, counts of successes left out (the rate and n say it)."""
    cols: dict[str, list[str]] = {}
    for c in t.columns:
        name = str(c)
        if name.endswith(("_lo", "_hi")) and name[:-3] in t.columns:
            continue
        if name.endswith("_count") and name[: -len("_count")] in t.columns:
            continue
        pct = name in PERCENT
        values = [_number(v, pct) for v in t[c]]
        if f"{name}_lo" in t.columns and f"{name}_hi" in t.columns:  # a figure with its interval: interval_text
            values = [interval_text(v, lo, hi, digits=1 if pct or abs(v) >= 10 else 2, scale=100 if pct else 1,
                                    unit="%" if pct else "") if _number(lo, pct) != MISSING and not isinstance(v, str)
                      else text for text, v, lo, hi in zip(values, t[c], t[f"{name}_lo"], t[f"{name}_hi"])]  # fmt: skip
            name = f"{name} [95% CI]"
        cols[name.replace("_", " ")] = values
    return pd.DataFrame(cols)


def markdown_table(t: pd.DataFrame) -> str:
    d = display_table(t)
    esc = lambda s: str(s).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(esc(c) for c in d.columns) + " |", "|" + "---|" * len(d.columns)]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in d.itertuples(index=False)]
    return "\n".join(lines)


def html_table(t: pd.DataFrame) -> str:
    d = display_table(t)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in d.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
                   for row in d.itertuples(index=False))  # fmt: skip
    return f"<div class='wide'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def split_columns(t: pd.DataFrame, limit: int = MAX_COLUMNS) -> list[pd.DataFrame]:
    """A table as the page shows it (``display_table``) cut into tables of at most ``limit``
    columns, each repeating the leading key columns (``KEYS``, at most 3)."""
    d = display_table(t)
    if len(d.columns) <= limit:
        return [d]
    names = {k.replace("_", " ") for k in KEYS}
    keys = []
    for c in d.columns[:3]:
        if c not in names:
            break
        keys.append(c)
    rest = [c for c in d.columns if c not in keys]
    step = max(1, limit - len(keys))
    return [d[keys + rest[i:i + step]] for i in range(0, len(rest), step)]


def slug(title: str) -> str:
    """A heading's anchor, as GitHub and the HTML page both make it: lower case, letters, digits,
    spaces as hyphens."""
    return "-".join("".join(ch for ch in title.lower() if ch.isalnum() or ch in " -").split(" "))


# -- content -------------------------------------------------------------------------------------
def _doc(fn) -> str:
    """A table's docstring on one line: what it shows and, where it has one, its method."""
    return " ".join((fn.__doc__ or "").split()).replace("``", "`")


def _table(data: A.ReportData, name: str, title: str) -> Block:
    """A table of the report: its headline rows computed on the at-a-glance games alone (the
    mirror of each player count the glance table describes), and the whole table, pooled over
    every dataset of the report, folded below them and labelled as pooled where it holds more."""
    fn = A.TABLES[name]
    t = fn(data)
    if t.empty:
        return Block("missing", text=f"{title}: not in these data (no rows).", name=name)
    glance = F.glance_data(data)
    pooled = len(glance.sources) < len(data.sources)
    short = _short_table(data, name, fn(glance) if pooled and glance.n_games else t)
    if not pooled and display_table(short).shape == display_table(t).shape:
        short = None  # the headline is the whole table: shown once
    text = f"{title}. {_doc(fn)}"
    if pooled:
        text += (f" Headline rows: the at-a-glance games ({_glance_words(glance)}); the whole table pools all "
                 f"{len(data.sources)} datasets of the report, every line-up together")  # fmt: skip
    return Block("table", text=text, name=name, table=t, short=short,
                 pooled=f"pooled over all {len(data.sources)} datasets" if pooled else "")  # fmt: skip


def _glance_words(glance: A.ReportData) -> str:
    fields = sorted({P._short(src.field) for src in glance.sources})
    return f"{'; '.join(fields)}, {glance.n_games:,} games"


def _figure(data: A.ReportData, kind: str, missing: str) -> Block:
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
    "bonus_value": ["side", "bonus", "face_vp", "completers", "vp_difference"],
    "wall_defence": ["players", "policy", "attack", "strength", "held", "walls_carried"],
    "attacks_per_game": ["players", "games", "attacks"],
    "attacks": ["players", "attack", "strength", "came", "round_mean"],
    "cannons": ["players", "policy", "seats", "cannons_lost", "cannon_vp", "lost_any"],
    "defence_vs_strength": ["players", "attack", "strength", "defence_mean", "defence_p50", "held"],
    "cannons_changed_winner": ["players", "games", "changed"],
    "scores": ["players", "policy", "seats", "vp", "vp_p10", "vp_p90", "win"],
    "seat_advantage": ["players", "field", "seat", "win", "parity", "vp"],
    "game_length": ["players", "games", "rounds", "rounds_p10", "rounds_p50", "rounds_p90"],
    "vp_by_source": ["players", "policy", "earned", "church_vp", "full_city_vp", "cannon_vp", "total"],
    "game_end": ["players", "field", "games", "several_full", "aborted_share"],
}
"""The headline columns of each table, shown above its full version (``x`` brings ``x_lo``/``x_hi``)."""

SHORT_PIVOT = {"attacks": ("came", ["attack", "strength"]), "defence_vs_strength": ("held", ["attack", "strength"]),
               "wall_defence": ("walls_carried", ["attack", "strength"])}  # fmt: skip
"""Tables whose headline rows are too many: one figure of theirs, player counts as columns."""


def _short_table(data: A.ReportData, name: str, t: pd.DataFrame) -> pd.DataFrame:
    """A table's headline rows and columns from ``t`` (computed on the at-a-glance games): the
    rows of their line-up, or their policy where the table is by policy, its ``SHORT_COLUMNS``."""
    glance = [data.sources[i] for i in F.glance_sources(data).values()]
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
        rows = rows.assign(field=[P._short(str(f)) for f in rows["field"]])
    return rows[cols].head(MAX_SHORT_ROWS).reset_index(drop=True)


def _topic(title: str, *blocks: Block) -> list[Block]:
    """A sub-heading, then the figures, then the tables: the page shows a figure before its numbers."""
    order = {"missing": 0, "figure": 1, "text": 2, "table": 2, "list": 2}
    return [Block("heading", text=title), *sorted(blocks, key=lambda b: order[b.kind])]


def sections(data: A.ReportData) -> list[Section]:
    """The report's sections, in the order of the page."""
    out = []
    s = Section("Church series", "Churches score by series: a series is 1, 1-2, 1-2-3 ... of church sizes "
                "(docs/rules.md §4). How long the series get, how many churches of each size are built, what "
                "church series are worth and what priests earned.")  # fmt: skip
    s.blocks += _topic("The longest series", _figure(data, "church-series", "no seats in these data."),
                       _table(data, "church_series", "Church VP, churches built and the longest series"),
                       _table(data, "series_lengths", "Series of each length"))  # fmt: skip
    s.blocks += _topic("Church VP, churches and priests", _figure(data, "church-vp", "no seats in these data."),
                       _table(data, "church_sizes", "Churches of each size"),
                       _table(data, "priests", "What priests earned"))  # fmt: skip
    out.append(s)
    s = Section("Wall bonuses", "Completing the five walls of a side gives its bonus and defence. How often each "
                "side is completed and when, what its bonus is worth, and how often walls rather than soldiers "
                "held off the pirates.")  # fmt: skip
    s.blocks += _topic("Sides completed", _figure(data, "sides", "no seats in these data."),
                       _figure(data, "side-rounds", "no side was completed in these data."),
                       _table(data, "sides", "Sides completed"))  # fmt: skip
    s.blocks += _topic("What each bonus is worth",
                       _figure(data, "bonus-value", "too few seats with and without each side to compare."),
                       _table(data, "bonus_value", "What each bonus is worth"))  # fmt: skip
    s.blocks += _topic("Walls or soldiers", _figure(data, "wall-defence", "no attack came in these data."),
                       _table(data, "wall_defence", "Walls or soldiers"))  # fmt: skip
    out.append(s)
    s = Section("Pirate losses", "Each full row of the pirate track attacks every city; a city whose defence is "
                "below the strength loses a cannon. When the attacks come, what they cost, how defence meets them, "
                "and how often the cannons decided the winner.")  # fmt: skip
    s.blocks += _topic("When the attacks come", _figure(data, "attack-rounds", "no attack came in these data."),
                       _table(data, "attacks_per_game", "Attacks per game"),
                       _table(data, "attacks", "When each attack comes"))  # fmt: skip
    s.blocks += _topic("Cannons lost", _figure(data, "cannons", "no seats in these data."),
                       _table(data, "cannons", "Cannons lost"),
                       _table(data, "cannons_changed_winner", "Did the cannons change the winner?"))  # fmt: skip
    s.blocks += _topic("Defence against strength", _figure(data, "defence", "no attack came in these data."),
                       _table(data, "defence_vs_strength", "Defence against strength"))  # fmt: skip
    out.append(s)
    s = Section("Outcomes", "Scores, the start player's advantage, game length, where the VP come from and how "
                "games end.")  # fmt: skip
    s.blocks += _topic("Final scores", _figure(data, "scores", "no seats in these data."),
                       _table(data, "scores", "Final scores and win rates"))  # fmt: skip
    s.blocks += _topic("Win rate by seat", _figure(data, "seat-advantage", "no seats in these data."),
                       _table(data, "seat_advantage", "Win rate by seat (seat 0 starts)"))  # fmt: skip
    s.blocks += _topic("Game length and how games end", _figure(data, "game-length", "no games in these data."),
                       _table(data, "game_length", "Game length"),
                       _table(data, "game_end", "How the game ended"))  # fmt: skip
    s.blocks += _topic("Where the VP come from", _figure(data, "vp-sources", "no seats in these data."),
                       _table(data, "vp_by_source", "VP by source"))  # fmt: skip
    out.append(s)
    s = Section("Heuristics compared", "From `smsim compare`: every policy in every seat equally, each seat "
                "arrangement on the same dice, intervals over independent blocks, and Plackett-Luce ratings fitted "
                "to the final rankings.")  # fmt: skip
    compared = [src for src in data.sources if src.kind == "compare"]
    if not compared:
        s.blocks.append(Block("missing", text="No comparison among these data: run `smsim compare ... --out DIR` "
                              "and give DIR to `smsim report`."))  # fmt: skip
    else:
        s.blocks.append(_figure(data, "ratings", "no ratings saved with the comparison."))
    for i, src in enumerate(compared):
        s.blocks.append(Block("heading", text=f"{src.players} players"))
        for name, title in (("policies", "Win share, mean VP and rating by policy"),
                            ("pairs", "Mean VP difference of each pair of policies in the same blocks")):  # fmt: skip
            t = src.comparison.get(name)
            if t is None:
                s.blocks.append(Block("missing", text=f"{src.path}: no {name}.csv"))
                continue
            if name == "policies":  # the compare tables' own names, in the report's convention
                t = t.reset_index().rename(columns={"win_share": "win", "vp_mean": "vp"})
                short = t[[c for c in ("policy", "blocks", "seats", "win", "win_lo", "win_hi", "vp", "vp_lo", "vp_hi",
                                       "elo") if c in t.columns]].sort_values("win", ascending=False)  # fmt: skip
            else:
                t = t.rename(columns={"lo": "vp_diff_lo", "hi": "vp_diff_hi"})
                short = None  # every pair: the full table alone
            s.blocks.append(Block("table", text=f"{title} ({src.players} players, {src.games:,} games).",
                                  name=f"compare_{i}_{name}", table=t, short=short))  # fmt: skip
    out.append(s)
    return out


# -- across strengths of play -------------------------------------------------------------------
LADDER_RULE = (
    "Each headline figure is measured on the mirror games of each level of play (one policy in every seat: "
    "L1 `balanced`, L2 `learned`, L3 `rollout` over `learned`) and judged level against level: "
    "*strength-dependent* where two adjacent levels' 95% intervals do not overlap (the direction says which way "
    "it moves); *not settled* where none are apart but the data cannot rule out a change (a seat's win rate clear "
    f"of parity at one level and not the next, or a difference that could still exceed {LA.MARGIN} standard "
    "deviations: Cohen's h or d, half a small effect); *stable* where every adjacent difference lies within "
    f"{LA.MARGIN} standard deviations; *one level* where the figure was measured at one level only, so that no "
    "strength check was possible (smsim/report/ladder.py, docs/report.md)."
)


def _ladder_shown(rows: pd.DataFrame, levels: list[int]) -> pd.DataFrame:
    """A section's ladder as the page shows it: a figure per row, its value at every level."""
    shown = {"players": rows["players"].astype(int).tolist(),
             "figure": [f"{r.label} (parity {100 * r.parity:.1f}%)" if np.isfinite(r.parity) else r.label
                        for r in rows.itertuples()]}  # fmt: skip
    for k in levels:
        names = [p for p in rows[f"L{k}_policy"] if p]
        shown[f"L{k} {names[0] if names else ''} [95% CI], games".replace("  ", " ")] = [
            LA.level_value(r, k) for r in rows.itertuples()]
    shown["verdict"] = [r.verdict + (f": {r.direction}" if r.direction else "") +
                        (f": {r.reason}" if r.verdict == "not settled" else "") for r in rows.itertuples()]
    return pd.DataFrame(shown)


def ladder_blocks(verdicts: pd.DataFrame, section: str) -> list[Block]:
    """The topic "Across strengths of play" that opens a section: its ladder figure and the table
    of its headline figures at every level, with their verdicts."""
    rows = verdicts[verdicts["section"] == section] if len(verdicts) else verdicts
    name = f"ladder_{slug(section).replace('-', '_')}"
    if rows.empty:
        return _topic("Across strengths of play", Block("missing", text=(
            "No strength check was possible: these data hold no mirror games of the ladder's levels "
            f"({', '.join(level_name(p) for p in A.LADDER)}) to measure this section's figures on."), name=name))
    levels = sorted({k for k in range(1, 10) if f"L{k}" in rows and rows[f"L{k}"].notna().any()})
    blocks = []
    if len(levels) < 2:
        blocks.append(Block("missing", text=(
            f"No strength check was possible: these data hold the mirror games of one level of play only "
            f"({level_name(rows['L1_policy'].iloc[0] or A.LADDER[0]) if levels == [1] else 'one level'}); every "
            "figure below is measured at that level alone.")))  # fmt: skip
    made = P.ladder_figure(rows, section)
    if made is not None:
        blocks.append(Block("figure", text=made[1], name=f"ladder-{slug(section)}", figure=made[0]))
    counts = rows["verdict"].value_counts()
    tally = ", ".join(f"{counts[v]} {v}" for v in LA.VERDICTS if v in counts)
    blocks.append(Block("table", text=f"{section} across strengths of play: {len(rows)} headline figures, {tally}. "
                        "Each figure on the mirror games of each level alone, with its 95% interval and the games "
                        "behind it, and its verdict", name=name, table=rows, shown=_ladder_shown(rows, levels), fold=False))
    return _topic("Across strengths of play", *blocks)


def strength_blocks(verdicts: pd.DataFrame) -> list[Block]:
    """The at-a-glance count of stable, strength-dependent and unsettled figures per player count,
    and where no player count has two levels, the sentence that says no strength check was possible."""
    if verdicts.empty:
        return [Block("missing", text="No strength check was possible: these data hold no mirror games of the "
                      f"ladder's levels ({', '.join(level_name(p) for p in A.LADDER)}).")]  # fmt: skip
    counts = LA.verdict_counts(verdicts)
    shown = counts.rename(columns={"levels": "levels measured (mirror games)", "figures": "headline figures"})
    blocks = []
    if (verdicts["verdict"] == "one level").all():
        blocks.append(Block("missing", text=f"No strength check was possible: these data hold the mirror games of one "
                            f"level of play only at each player count ({'; '.join(counts['levels'])}), so every "
                            "figure is measured at that level alone."))  # fmt: skip
    blocks.append(Block("table", text="Across strengths of play: the headline figures of each player count by verdict "
                        "(each section opens with its own)", name="strength_check", table=counts, shown=shown))  # fmt: skip
    return blocks


# -- how much skill matters ---------------------------------------------------------------------
def _matrix_shown(res) -> pd.DataFrame:
    cells = {(r.row, r.col): r for r in res.matrix.itertuples()}
    shown = {"one seat of": [level_name(x) for x in res.levels]}
    for col in res.levels:
        shown[f"against {level_name(col)}"] = [
            MISSING if row == col else interval_text(cells[row, col].share, cells[row, col].lo, cells[row, col].hi,
                                                     **A.RATE)
            if (row, col) in cells else "not measured" for row in res.levels]  # fmt: skip
    return pd.DataFrame(shown)


def skill_section(skills: list) -> tuple[Section, list[str]]:
    """The section "How much skill matters" (``studies.skill.SkillResult``s) and its at-a-glance lines."""
    s = Section("How much skill matters", "Levels of play against one another (`smsim skill`): one seat of the row's "
                "level against the column's level in every other seat, every seat rotation on the same dice, its win "
                "share (a shared win split) with the normal 95% interval over independent blocks; parity is one "
                "share in the number of players. The *skill gap* is one `learned` (L2) seat against `balanced` (L1) "
                "minus parity: how much a better player gains. Under a rules variant the same games are played on "
                "the same dice, so the gap's change is paired, block by block: a gap that grows makes the game more "
                "a game of skill, one that shrinks more a game of luck. `learned` was trained under the printed "
                "rules; under a variant it plays with the same model.")  # fmt: skip
    glance: list[str] = []
    skills = sorted(skills, key=lambda r: r.players)
    if not skills:
        s.blocks.append(Block("missing", text="No skill study among these data: run `smsim skill --players N --out "
                              "DIR` and give DIR to `smsim report`."))  # fmt: skip
        return s, glance
    gaps = [(r.players, *r.gap()) for r in skills if r.gap() is not None]
    if gaps:
        t = pd.DataFrame(gaps, columns=["players", "gap", "gap_lo", "gap_hi", "games"])
        t["parity"] = 1.0 / t["players"]
        made = P.skill_gap_figure(t)
        if made is not None:
            s.blocks.append(Block("figure", text=made[1], name="skill-gap", figure=made[0]))
        shown = pd.DataFrame({"players": t["players"], "games": [f"{g:,}" for g in t["games"]],
                              "one learned seat wins [95% CI]": [interval_text(p + g, p + lo, p + hi, **A.RATE)
                                                                 for p, g, lo, hi in
                                                                 zip(t["parity"], t["gap"], t["gap_lo"], t["gap_hi"])],
                              "parity": [f"{100 * p:.1f}%" for p in t["parity"]],
                              "skill gap, points [95% CI]": [interval_text(g, lo, hi, **A.POINTS) for g, lo, hi in
                                                             zip(t["gap"], t["gap_lo"], t["gap_hi"])]})  # fmt: skip
        s.blocks.append(Block("table", text=f"The skill gap per player count: one `{GAP[0]}` seat against `{GAP[1]}` "
                              "in every other seat, minus parity", name="skill_gap", table=t, shown=shown))  # fmt: skip
        glance.append("The skill gap (one `learned` seat among `balanced`, minus parity): " + "; ".join(
            f"{p} players {interval_text(g, lo, hi, **A.POINTS_SAID)}"
            for p, g, lo, hi, _ in gaps) + ".")  # fmt: skip
    for res in skills:
        s.blocks.append(Block("heading", text=f"{res.players} players"))
        games = sorted(set(res.matrix["games"]))
        span = f"{games[0]:,} games a cell" if len(games) == 1 else f"{games[0]:,} to {games[-1]:,} games a cell"
        s.blocks.append(Block("table", text=f"The win-rate matrix, {res.players} players: the share of one seat of "
                              f"the row's level against the column's in every other seat (parity "
                              f"{100 / res.players:.1f}%; {span}; seed {res.seed})", name=f"skill_{res.players}p_matrix",
                              table=res.matrix, shown=_matrix_shown(res)))  # fmt: skip
        if len(res.gaps) > 1:
            g = res.gaps.copy()
            also = shipped_as(res.variants)
            g["changes"] = [c + (f" (shipped: {', '.join(also[v])})" if also.get(v) else "")
                            for v, c in zip(g["variant"], g["changes"])]  # fmt: skip
            shown = pd.DataFrame({
                "variant": g["variant"], "changes": [c or "(the base rules)" for c in g["changes"]],
                "skill gap, points [95% CI]": [interval_text(a, b, c, **A.POINTS)
                        for a, b, c in zip(g["gap"], g["gap_lo"], g["gap_hi"])],
                "change, paired [95% CI]": [interval_text(a, b, c, **A.POINTS)
                        for a, b, c in zip(g["diff"], g["diff_lo"], g["diff_hi"])],
                "unpaired CI": [interval_text(a, b, c, **A.POINTS)
                        for a, b, c in zip(g["diff"], g["unpaired_lo"], g["unpaired_hi"])],
                "rounds, change [95% CI]": [f"{r:.2f}" if not np.isfinite(d) else
                                            f"{r:.2f}, {interval_text(d, lo, hi, digits=2, signed=True)}"
                                            for r, d, lo, hi in zip(g["rounds"], g["rounds_diff"], g["rounds_diff_lo"],
                                                                    g["rounds_diff_hi"])],
                "verdict": ["" if not np.isfinite(d) else gap_verdict(d, lo, hi)
                            for d, lo, hi in zip(g["diff"], g["diff_lo"], g["diff_hi"])]})  # fmt: skip
            s.blocks.append(Block("table", text=f"The skill gap under each rules variant, {res.players} players, "
                                  f"{int(g['blocks'].iloc[0]) * res.players:,} games each on the same dice: its change "
                                  "from the baseline with the paired 95% interval, beside the unpaired one",
                                  name=f"skill_{res.players}p_variants", table=g, shown=shown))  # fmt: skip
            made = P.skill_variants_figure(g, res.players)
            if made is not None:
                s.blocks.append(Block("figure", text=made[1], name=f"skill-variants-{res.players}p", figure=made[0]))
            s.blocks.append(Block("list", text="What each variant does to the skill gap",
                                  items=[skill_variant_sentence(r) for r in g.iloc[1:].itertuples()]))  # fmt: skip
            clear = g.iloc[1:][(g["diff_lo"].iloc[1:] > 0) | (g["diff_hi"].iloc[1:] < 0)]
            if len(clear):
                most = clear.loc[clear["diff"].abs().idxmax()]
                glance.append(f"Rule variants and skill ({res.players} players): {len(clear)} of {len(g) - 1} variants "
                              f"move the skill gap distinguishably; most: {most.variant} "
                              f"({interval_text(most['diff'], most.diff_lo, most.diff_hi, **A.POINTS_SAID)}, "
                              f"{gap_verdict(most['diff'], most.diff_lo, most.diff_hi)}).")  # fmt: skip
            else:
                glance.append(f"Rule variants and skill ({res.players} players): no variant moves the skill gap "
                              f"distinguishably ({len(g) - 1} variants).")  # fmt: skip
    return s, glance


def skill_variant_sentence(r) -> str:
    """One variant's effect on the skill gap, with what it does to the game's length."""
    said = {"more skill": "more a game of skill", "more luck": "more a game of luck",
            "no change shown": "no distinguishable change of the skill gap", "no data": "no data"}  # fmt: skip
    rounds = f"; {F.rounds_words(r.rounds_diff, r.rounds_diff_lo, r.rounds_diff_hi)}"
    return (f"{r.variant} ({r.changes}): {said[gap_verdict(r.diff, r.diff_lo, r.diff_hi)]}, the gap "
            f"{interval_text(r.gap, r.gap_lo, r.gap_hi, **A.POINTS_SAID)} against the baseline's, a change "
            f"of "
            f"{interval_text(r.diff, r.diff_lo, r.diff_hi, **A.POINTS_SAID)} on the same dice{rounds}.")  # fmt: skip


# -- rule variants -------------------------------------------------------------------------------
VARIANT_GROUPS = {"seats": "Seats", "pirates": "Pirates", "vp": "Victory points", "city": "The city",
                  "game": "Game length", "policies": "Policies"}  # fmt: skip


def _varied_text(varied: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in varied.items()) or "(the base rules)"


def _largest(t, key: str) -> str | None:
    """The variant that moves ``key`` most, where its paired interval excludes no difference."""
    rows = t[(t["metric"] == key) & (t["variant"] != "baseline")]
    clear = rows[(rows["diff_lo"] > 0) | (rows["diff_hi"] < 0)]
    if clear.empty:
        return None
    r = clear.loc[clear["diff"].abs().idxmax()]
    return f"{r.variant} ({interval_text(r['diff'], r.diff_lo, r.diff_hi, **A.unit_form(r.unit, True, words=True))})"


def variants_section(sets: list, tables: list | None = None) -> tuple[Section, list[str]]:
    """The section "Rule variants" (``sweep.VariantSet``s; ``tables``: their ``table()``s, where
    already computed) and its at-a-glance lines."""

    s = Section("Rule variants", "What changes when a rule changes. Each variant plays the same games as its "
                "baseline; where they also meet the same dice (a sweep, or datasets of one seed and line-up) a "
                "difference is measured game by game, and its *paired* 95% interval (the normal interval of the mean "
                "of per-game differences) is set beside the interval two independent samples of the same size would "
                "give. A difference is shown as variant minus baseline; rates in percentage points.")  # fmt: skip
    glance = []
    for k, vs in enumerate(sets):
        t = tables[k] if tables is not None else vs.table()
        first = len(s.blocks)
        head = (f"{vs.label}: {vs.players} players, {', '.join(dict.fromkeys(vs.policies))} at the table, "
                f"{vs.games:,} games per variant" + (f", seed {vs.seed}" if vs.seed is not None else "") +
                (", every variant on the same dice (paired)" if vs.paired else
                 ", not on the same dice: differences have unpaired intervals"))  # fmt: skip
        listing = pd.DataFrame({"variant": [v.name for v in vs.variants],
                                "changes": [_varied_text(v.varied) for v in vs.variants],
                                "dataset": vs.dirs})  # fmt: skip
        s.blocks.append(Block("table", text=f"{head}. The variants", name=f"variants_{k}_list", table=listing))
        rows = t.set_index(["variant", "metric"])
        shown = {"variant": [v.name for v in vs.variants]}
        for key in HEADLINE:
            cells = []
            for v in vs.variants:
                r = rows.loc[(v.name, key)]
                cells.append(interval_text(r.value, r.lo, r.hi, **A.unit_form(r.unit)) if v.name == "baseline" else
                             interval_text(r["diff"], r.diff_lo, r.diff_hi, **A.unit_form(r.unit, True)))  # fmt: skip
            shown[SWEEP_HEADINGS[key]] = cells
        headline = t[t["metric"].isin(HEADLINE)]
        s.blocks.append(Block("table", text="Which rule moves the balance most: the baseline's headline figures, and "
                              "each variant's difference from them with its 95% interval", name=f"variants_{k}_headline",
                              table=headline, shown=pd.DataFrame(shown)))  # fmt: skip
        made = P.variant_differences(t, f"Rule variants, {vs.players} players")
        if made is not None:
            s.blocks.append(Block("figure", text=made[1], name=f"variants_{k}_differences", figure=made[0]))
        single = {v.name: next(iter(v.varied.items())) for v in vs.variants[1:] if len(v.varied) == 1}
        base_rules = vs.variants[0].rules.to_dict()
        for fld, (fig, caption) in P.variant_effects(t, single, base_rules, f"Rule variants, {vs.players} players"):
            s.blocks.append(Block("figure", text=caption, name=f"variants_{k}_{fld}", figure=fig))
        vr = variance_reduction(t)
        if vs.paired and len(vr):
            median = float(vr["narrower"].median())
            s.blocks.append(Block("table", text=(
                f"What the common dice bought: over {len(vr)} metrics the paired interval of a difference is a median "
                f"{median:.2f}x narrower than the unpaired one (from {vr['narrower'].min():.2f}x to "
                f"{vr['narrower'].max():.2f}x), as precise as {median ** 2:.1f}x the games played independently. "
                "Measured on these games: per metric, the median over the variants"),
                name=f"variants_{k}_pairing", table=vr,
                shown=pd.DataFrame({"metric": vr["label"], "paired interval narrower": [f"{x:.2f}x" for x in vr["narrower"]],
                                    "games equivalent": [f"{x:.1f}x" for x in vr["games_factor"]]})))  # fmt: skip
        for group, title in VARIANT_GROUPS.items():
            g = t[t["group"] == group]
            if g.empty:
                continue
            shown_g = pd.DataFrame({
                "metric": g["label"], "variant": g["variant"],
                "value [95% CI]": [interval_text(r.value, r.lo, r.hi, **A.unit_form(r.unit)) for r in g.itertuples()],
                "difference [paired 95% CI]": [interval_text(r.diff, r.diff_lo, r.diff_hi, **A.unit_form(r.unit, True))
                                               for r in g.itertuples()],
                "unpaired 95% CI": [interval_text(r.diff, r.unpaired_lo, r.unpaired_hi, **A.unit_form(r.unit, True))
                                    for r in g.itertuples()],
            })  # fmt: skip
            s.blocks.append(Block("table", text=f"{title}: every variant", name=f"variants_{k}_{group}",
                                  table=g, shown=shown_g))  # fmt: skip
        # figures first, then the tables, under a heading per set of variants
        blocks = s.blocks[first:]
        del s.blocks[first:]
        lead = [f"variants_{k}_differences", f"variants_{k}_headline", f"variants_{k}_list"]
        blocks.sort(key=lambda b: (lead.index(b.name) if b.name in lead else len(lead), b.kind != "figure"))
        s.blocks += [Block("heading", text=f"{vs.players} players: {vs.label}"), *blocks]
        moves = [(label, _largest(t, key)) for key, label in (("start_edge", "the start player's edge"),
                                                            ("cannons_changed_winner", "how often cannons change the winner"),
                                                            ("vp_total", "the mean final VP"))]  # fmt: skip
        said = "; ".join(f"{label} most: {who}" if who else f"{label}: no variant distinguishably" for label, who in moves)
        glance.append(f"Rule variants ({vs.players} players, {', '.join(dict.fromkeys(vs.policies))} at the table, "
                      f"{len(vs.variants) - 1} variants, {vs.games:,} games each): "
                      f"moving {said} (section \"Rule variants\").")  # fmt: skip
    return s, glance


# -- seat compensation ---------------------------------------------------------------------------
def _one_unit(result) -> str | None:
    """What one unit for the last seat did on the search games: its win share without and with it."""
    zero = tuple([0] * result.players)
    one = tuple([0] * (result.players - 1) + [1])
    found = {ev.compensation: ev for ev in result.search}
    if zero not in found or one not in found or not found[zero].win or not found[one].win:
        return None
    before, after = found[zero].win[-1], found[one].win[-1]
    unit = "coin" if result.by == "coins" else "VP"
    return (f"one {unit} more for the last seat moved its win share from {100 * before:.1f}% to {100 * after:.1f}% "
            f"({100 * (after - before):+.1f} points) on the search games")  # fmt: skip


def compensation_section(results: list) -> tuple[Section, list[str]]:
    """The section "Seat compensation" (``smsim fairness`` results) and its at-a-glance lines."""
    s = Section("Seat compensation", "How much should the later seats get so that every seat wins equally often? "
                "`smsim fairness` searches, on common dice, the whole number of extra start coins (`seat_coins`) or "
                "of VP (`seat_vp`) per seat that brings every seat's win share (a shared win split) closest to "
                "parity, seat 0 fixed at 0, then plays held-out games it never searched on without and with that "
                "compensation (docs/fairness.md). A seat's remaining unfairness is *distinguishable* where its "
                "interval after compensation excludes parity.")  # fmt: skip
    glance = []
    results = sorted(results, key=lambda r: (r.players, r.by))
    made = P.fairness_figure(results)
    if made is not None:
        s.blocks.append(Block("figure", text=made[1], name="seat-compensation", figure=made[0]))
    for r in results:
        t = r.table
        shown = pd.DataFrame({
            "seat": [f"{int(x)}{' (start)' if x == 0 else ''}" for x in t["seat"]],
            f"{r.rules_field}": t["compensation"].astype(int),
            "win share before [95% CI]": [interval_text(v, lo, hi, **A.RATE) for v, lo, hi in
                                          zip(t["before"], t["before_lo"], t["before_hi"])],
            "after [95% CI]": [interval_text(v, lo, hi, **A.RATE)
                               for v, lo, hi in zip(t["after"], t["after_lo"], t["after_hi"])],
            "still unfair": ["yes" if d else "no" for d in t["distinguishable"]],
        })  # fmt: skip
        c = r.check
        line = (f"largest gap from parity {100 * c.get('before_max_deviation', np.nan):.1f} points before, "
                f"{100 * c.get('after_max_deviation', np.nan):.1f} after; all seats equal (chi-square): p = "
                f"{c.get('p_before', np.nan):.2g} before, {c.get('p_after', np.nan):.2g} after")  # fmt: skip
        unit = _one_unit(r)
        head = (f"{r.players} players, `{r.policy}` in every seat, by {r.by}: found {r.rules_field} = "
                f"{list(r.compensation)} ({r.games:,} search games on seed {r.seed}; checked on {r.check_games:,} "
                f"held-out games on seed {r.check_seed}); {line}" + (f"; {unit}" if unit else ""))  # fmt: skip
        s.blocks.append(Block("table", text=head, name=f"compensation_{r.players}p_{r.by}", table=t, shown=shown))
        if any(r.compensation):
            left = int(t["distinguishable"].sum())
            verdict = ("no seat remains distinguishable from parity" if not left else
                       f"it narrows the gap, but {left} of {r.players} seats remain distinguishable from parity")
            glance.append(f"{r.players} players, by {r.by}: the best whole-number compensation is {r.rules_field} = "
                          f"{list(r.compensation)}; {verdict} ({r.check_games:,} held-out games; {line}).")  # fmt: skip
        else:
            glance.append(f"{r.players} players, by {r.by}: no whole-number compensation beats none "
                          f"({unit or 'one unit overshoots the seats differences'}); {line}.")  # fmt: skip
    return s, glance


# -- writing -------------------------------------------------------------------------------------
def _fig_bytes(fig, fmt: str) -> bytes:
    """The figure as PNG or SVG, without a date and with fixed SVG ids, so that regenerating a
    report from the same data changes no file."""
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "smsim"}):
        fig.savefig(buf, format=fmt, dpi=110 if fmt == "png" else None, metadata={"Date": None})
    return buf.getvalue()


CSS = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:0 auto;padding:0 1em 2em;color:#222}
nav.toc{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:0.4em 0;z-index:1;font-size:0.9em}
nav.toc a{margin-right:1em;text-decoration:none;white-space:nowrap}h2,h3{scroll-margin-top:3em}
h2{border-bottom:2px solid #4c72b0;padding-bottom:0.2em;margin-top:2em}
ol.findings li{margin:0.5em 0;line-height:1.4}.wide{overflow-x:auto}
table{border-collapse:collapse;font-size:0.82em;margin:0.5em 0 1em}th,td{border:1px solid #ccc;padding:2px 6px;
text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}figure{margin:1em 0 1.5em}
figcaption{font-size:0.9em;color:#444}img{max-width:100%}.missing{color:#8a6d3b;font-style:italic}
details{margin:0 0 1.5em}summary{cursor:pointer;color:#4c72b0}.note{font-size:0.9em;color:#444}
code,pre{background:#f6f6f6}pre{padding:0.5em;overflow-x:auto}"""

GLANCE_HEADINGS = {"players": "players", "games": "games", "field": "at the table",
                   "start_win": "start player wins [95% CI]", "last_win": "last seat wins [95% CI]",
                   "parity": "parity", "changed": "cannons change the winner [95% CI]",
                   "rounds": "rounds [95% CI]"}  # fmt: skip

FINDINGS_RULE = (
    "Each finding is one figure with its 95% interval and the games behind it, tested against a null: parity "
    "for a seat's win rate, one game in ten for the cannons changing the winner, 1% and 99% of seats for an "
    "attack never or always held, no difference for a policy's margin or a variant's effect, and the other "
    "figure's interval where two are set side by side (stated where the intervals do not overlap). A finding "
    "is stated only where its interval excludes its null, and the findings are ordered by effect size, how "
    "large the effect is whatever the games behind it: Cohen's h for a rate, Cohen's d for other figures "
    "(smsim/report/findings.py, docs/report.md). Every sentence here is generated from the data."
)


def glance_shown(t: pd.DataFrame) -> pd.DataFrame:
    """The at-a-glance table as the page shows it."""
    d = pd.DataFrame({"players": t["players"].astype(int), "games": [f"{int(g):,}" for g in t["games"]],
                      "field": [P._short(str(f)) for f in t["field"]]})  # fmt: skip
    for name in ("start_win", "last_win"):
        d[name] = [interval_text(v, lo, hi, **A.RATE) if np.isfinite(v) else
                   f"{MISSING} (seats and policies confounded)"
                   for v, lo, hi in zip(t[name], t[f"{name}_lo"], t[f"{name}_hi"])]  # fmt: skip
    d["parity"] = [f"{100 * p:.1f}%" for p in t["parity"]]
    d["changed"] = [interval_text(v, lo, hi, **A.RATE)
                    for v, lo, hi in zip(t["changed"], t["changed_lo"], t["changed_hi"])]
    d["rounds"] = [interval_text(v, lo, hi, digits=2) for v, lo, hi in zip(t["rounds"], t["rounds_lo"], t["rounds_hi"])]
    return d.rename(columns=GLANCE_HEADINGS)


def _also(others: list[F.Finding], most: int = 3) -> str:
    """The other stated instances of a finding's family, named."""
    if not others:
        return ""
    names = [o.where for o in others[:most]]
    more = f" and {len(others) - most} more" if len(others) > most else ""
    return f" Also distinguishable from its null: {', '.join(names)}{more}."


def findings_lines(found: F.Findings, n_games: int) -> tuple[list[tuple[str, str]], list[str]]:
    """The findings as (sentence, section) pairs, and the notes under them: the further stated
    findings the cap left out, what the data cannot tell, what they do not measure."""
    items = [(f"{f.sentence} {f.strength}{_also(others)}".replace("  ", " "), c.section)
             for c, f, others in found.stated]
    notes = []
    if not found.stated:
        notes.append(f"These data cannot support any finding: no interval excludes the null it is tested against "
                     f"({n_games:,} games). More games would tell.")  # fmt: skip
    if found.more:
        notes.append("Also distinguishable, with smaller effects: " + "; ".join(
            f"{c.title} ({f.short})" for c, f in found.more) + ".")  # fmt: skip
    notes += [f"The data cannot tell {c.title}: the closest is {f.short}, whose interval does not exclude "
              f"{f.null_text}." for c, f in found.cannot_tell]  # fmt: skip
    if found.not_measured:
        notes.append("Not measured in these data: " + ", ".join(c.title for c in found.not_measured) + ".")
    return items, notes


def _html_text(text: str) -> str:
    """Text for the page: escaped, with `code` as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _md_block(b: Block, out: Path) -> list[str]:
    if b.kind == "heading":
        return [f"### {b.text}", ""]
    if b.kind == "missing":
        return [f"*{b.text}*", ""]
    if b.kind == "text":
        return [b.text, ""]
    if b.kind == "list":
        return [f"**{b.text}**", ""] + [f"- {item}" for item in b.items] + [""]
    if b.kind == "figure":
        return [f"![{b.name}](figures/{b.name}.png)", "", f"*{b.text}* ([SVG](figures/{b.name}.svg))", ""]
    full = b.full
    lines = [f"**{b.text}** ([CSV](tables/{b.name}.csv))", ""]
    if b.short is not None:
        lines += _md_tables(b.short)
    if b.folded:
        lines += ["<details><summary>The whole table" + (f", {b.pooled}" if b.pooled else "") +
                  f": {len(full):,} rows</summary>", ""]
        lines += _md_tables(full) + ["</details>", ""]
    else:
        lines += _md_tables(full)
    return lines


def _md_tables(t: pd.DataFrame) -> list[str]:
    out = []
    for part in split_columns(t):
        out += [markdown_table(part), ""]
    return out


def _html_tables(t: pd.DataFrame) -> str:
    return "".join(html_table(part) for part in split_columns(t))


def _html_block(b: Block) -> str:
    if b.kind == "heading":
        return f'<h3 id="{slug(b.text)}">{html.escape(b.text)}</h3>'
    if b.kind == "missing":
        return f'<p class="missing">{_html_text(b.text)}</p>'
    if b.kind == "text":
        return f"<p>{_html_text(b.text)}</p>"
    if b.kind == "list":
        return (f"<p><b>{_html_text(b.text)}</b></p><ul>" + "".join(f"<li>{_html_text(i)}</li>" for i in b.items)
                + "</ul>")  # fmt: skip
    if b.kind == "figure":
        png = base64.b64encode(b.png).decode()
        return (f'<figure><img alt="{b.name}" src="data:image/png;base64,{png}"><figcaption>{_html_text(b.text)}'
                "</figcaption></figure>")  # fmt: skip
    full = b.full
    head = f'<p><b>{_html_text(b.text)}</b> (<a href="tables/{b.name}.csv">CSV</a>)</p>'
    if not b.folded:
        return head + _html_tables(full)
    short = _html_tables(b.short) if b.short is not None else ""
    label = f"The whole table{', ' + b.pooled if b.pooled else ''}: {len(full):,} rows"
    return head + short + f"<details><summary>{html.escape(label)}</summary>{_html_tables(full)}</details>"


def _games_line(data: A.ReportData, variants: list, compensations: list, skills: list = ()) -> str:
    """What the report stands on, honestly counted: the games of the main sections, the mirror
    games of the ladder's upper levels, the variants', the skill studies' and the fairness searches'."""
    main = data.main()
    parts = [f"{main.n_games:,} games in the sections on the standard heuristics"]
    upper: dict[str, list[int]] = {}
    for src in data.sources:
        if src.upper_level:
            n = upper.setdefault(src.seat_policies[0], [0, 0, src.level])
            n[0] += src.games
            n[1] += max(src.planned, src.games)
    for policy, (games, planned, level) in upper.items():
        of = f"; of {planned:,} planned" if planned > games else ""
        parts.append(f"{games:,} mirror games of `{policy}` (L{level}{of})")
    for vs in variants:
        parts.append(f"a baseline and {len(vs.variants) - 1} rules variants of {vs.games:,} games each "
                     f"({vs.players} players, {', '.join(dict.fromkeys(vs.policies))})")  # fmt: skip
    if skills:
        games = sum(int(r.matrix["games"].sum()) + int((r.gaps["blocks"].iloc[1:] * r.players).sum()) for r in skills)
        parts.append(f"{len(skills)} skill studies ({games:,} games)")
    if compensations:
        sizes = sorted({(int(r.games), int(r.check_games)) for r in compensations})
        each = "; ".join(f"{g:,} search games, checked on {c:,} held-out games" for g, c in sizes)
        parts.append(f"{len(compensations)} seat-compensation searches ({each} each)")
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def write_report(data: A.ReportData, out: str | Path, title: str = "Saint Malo balance report",
                 variants: list = (), compensations: list = (), skills: list = (),
                 margins: dict[str, float] = MARGINS) -> Path:  # fmt: skip
    """Write the report into ``out`` (created if needed); returns the path of report.md.

    The page: the key findings (``findings.key_findings``, each with its verdict across strengths
    of play), the at-a-glance table, the strength check and the headline figure, then the
    sections; each of the four on the game opens with its ladder (``report.ladder``), and each
    topic shows its figure first, then the headline rows of each table (the at-a-glance games),
    the whole table folded below it and written as CSV."""
    out = Path(out)
    if (held := kind_of(out)) is not None:
        raise DatasetError(f"{str(out)!r} holds {KINDS[held].a}; write the report into another directory")
    try:
        (out / "figures").mkdir(parents=True, exist_ok=True)
        (out / "tables").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"cannot write to {str(out)!r}: {exc.strerror}") from None
    variants, compensations, skills = list(variants), list(compensations), list(skills)
    variant_tables = [vs.table() for vs in variants]
    main = data.main()
    verdicts = LA.ladder_verdicts(LA.ladder_table(data), margins)  # once: the findings and the ladders read it
    found = F.key_findings(data, variants, variant_tables, skills, verdicts)
    glance = F.glance_table(main)

    s = Section("At a glance", "One row per player count, from one dataset each (the mirror of `balanced`, L1, "
                "where there is one; else the one measuring the seats alone with the most games): every number of a "
                "row stands on the games it gives, and so do the headline rows of every table below.")  # fmt: skip
    s.blocks.append(_figure(main, "seat-parity", "no dataset measures the seats alone here."))
    if len(glance):
        s.blocks.append(Block("table", text="At a glance", name="at_a_glance", table=glance,
                              shown=glance_shown(glance)))  # fmt: skip
    else:
        s.blocks.append(Block("missing", text="No games in these data."))
    s.blocks += strength_blocks(verdicts)
    s.blocks.append(Block("text", text=LADDER_RULE))
    secs = [s, *sections(main)]
    for sec in secs:
        if sec.title in A.HEADLINE_SECTIONS.values():
            sec.blocks[:0] = ladder_blocks(verdicts, sec.title)
    skill, skill_glance = skill_section(skills)
    if skill_glance:
        skill.blocks.insert(0, Block("list", text="In short", items=skill_glance))
    secs.append(skill)
    if variants:
        varied, variant_glance = variants_section(variants, variant_tables)
        varied.blocks.insert(0, Block("list", text="In short", items=variant_glance))
        secs.append(varied)
    if compensations:
        compensation, compensation_glance = compensation_section(compensations)
        compensation.blocks.insert(0, Block("list", text="In short", items=compensation_glance))
        secs.append(compensation)
    titles = ["Key findings", *(x.title for x in secs), "Data and rules"]

    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    made = f"Made by smsim {__version__} on {now} from {_games_line(data, variants, compensations, skills)}."
    md = [f"# {title}", "", made, "", "Contents: " + " · ".join(f"[{t}](#{slug(t)})" for t in titles), ""]
    nav = " ".join(f'<a href="#{slug(t)}">{html.escape(t)}</a>' for t in titles)
    body = [f'<nav class="toc">{nav}</nav>', f"<h1>{html.escape(title)}</h1>", f"<p>{_html_text(made)}</p>"]

    items, notes = findings_lines(found, main.n_games)
    md += ["## Key findings", ""] + [f"{k}. {text} ([{sec}](#{slug(sec)}))" for k, (text, sec) in
                                     enumerate(items, 1)] + ([""] if items else [])  # fmt: skip
    md += [note + "\n" for note in notes] + [f"*{FINDINGS_RULE}*", ""]
    body.append('<h2 id="key-findings">Key findings</h2>')
    if items:
        body.append('<ol class="findings">' + "".join(
            f'<li>{_html_text(text)} (<a href="#{slug(sec)}">{html.escape(sec)}</a>)</li>' for text, sec in items)
            + "</ol>")  # fmt: skip
    body += [f"<p>{_html_text(note)}</p>" for note in notes] + [f'<p class="note">{html.escape(FINDINGS_RULE)}</p>']

    for sec in secs:
        md += [f"## {sec.title}", "", sec.intro, ""]
        body += [f'<h2 id="{slug(sec.title)}">{html.escape(sec.title)}</h2>', f"<p>{_html_text(sec.intro)}</p>"]
        for b in sec.blocks:
            if b.kind == "table":
                write_file(out / "tables" / f"{b.name}.csv", b.table.to_csv(index=False))
            elif b.kind == "figure":
                b.png = _fig_bytes(b.figure, "png")
                write_file(out / "figures" / f"{b.name}.png", b.png)
                write_file(out / "figures" / f"{b.name}.svg", _fig_bytes(b.figure, "svg"))
            md += _md_block(b, out)
            body.append(_html_block(b))

    md += ["## Data and rules", ""]
    body.append('<h2 id="data-and-rules">Data and rules</h2>')
    src_table = pd.DataFrame([{"dataset": s.path, "kind": s.kind + (f" (level L{s.level})" if s.level else ""),
                               "players": s.players, "games": s.games, "seed": s.seed, "at the table": s.field,
                               "command": s.command}
                              for s in data.sources])  # fmt: skip
    md += ["**Datasets.**", "", markdown_table(src_table), ""]
    body += ["<p><b>Datasets.</b></p>", html_table(src_table)]
    rules = pd.DataFrame([{"rule": k, "value": str(v)} for k, v in data.rules.to_dict().items()])
    md += ["**Rules configuration** (every field; docs/rules.md §7).", "", markdown_table(rules), ""]
    body += ["<p><b>Rules configuration</b> (every field; docs/rules.md §7).</p>", html_table(rules)]
    md += ["Intervals are 95%: Wilson intervals for rates, normal intervals for means, treating seats and games "
           "as independent (the games of one comparison block share their dice; the comparison's own tables use "
           "block intervals).", ""]  # fmt: skip

    page = (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>{''.join(body)}<p>{html.escape(md[-2])}</p></body></html>\n")  # fmt: skip
    write_file(out / "report.html", page)
    write_file(out / "report.md", "\n".join(md))
    return out / "report.md"


def report(paths: list[str], out: str, title: str = "Saint Malo balance report",
           margins: dict[str, float] = MARGINS) -> Path:
    """Read datasets and write their report (the Python side of ``smsim report``). Mirror datasets
    of the ladder's levels (``balanced``, ``learned``, ``rollout-learned`` in every seat) make the
    strength ladders; sweep directories, and datasets whose rules differ from the others', are
    compared in the section "Rule variants" (``report.tables.split_variants``); results of
    ``smsim fairness --out`` make the section "Seat compensation" and skill studies (``smsim skill
    --out``) the section "How much skill matters"."""

    kinds = A.kinds_of(paths)  # asked once a path
    compensations = [read_fairness(p) for p in paths if kinds[str(p)] == "fairness"]
    skills = [read_skill(p) for p in paths if kinds[str(p)] == "skill"]
    rest = [p for p in paths if kinds[str(p)] not in ("fairness", "skill")]
    if not rest:
        raise DatasetError("no dataset given beside the fairness results and skill studies")
    main, variants = A.split_variants(rest, kinds)
    return write_report(A.read_report_data(main, kinds=kinds), out, title, variants, compensations, skills, margins)
