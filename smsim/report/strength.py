"""Across strengths of play on the page: the ladder that opens each section on the game (each
headline figure at every level, its verdict, ``report.ladder``) and the count of verdicts per player
count at a glance."""

from __future__ import annotations

import numpy as np
import pandas as pd

from smsim.intervals import interval_text
from smsim.report import ladder as LA
from smsim.report import plots as P
from smsim.report import tables as A
from smsim.report.render import Block, slug, topic
from smsim.studies.skill import level_name


def _level_games(rows: pd.DataFrame, levels: list[int]) -> dict[int, dict[int, int]]:
    """Per level, per player count, the mirror games behind its figures (0: not measured)."""
    return {k: {int(p): int(g[f"L{k}_games"].max()) for p, g in rows.groupby("players")} for k in levels}


def _games_said(games: dict[int, dict[int, int]]) -> str:
    """The games behind each level, once (not in every cell): per player count where they differ."""
    parts = []
    for k, per in games.items():
        measured = {p: n for p, n in per.items() if n}
        if len(set(measured.values())) == 1:
            parts.append(
                f"L{k} {next(iter(measured.values())):,} games"
                + (f" ({', '.join(str(p) for p in measured)} players)" if len(measured) < len(per) else "")
            )
        else:
            parts.append(f"L{k} " + ", ".join(f"{n:,} games at {p} players" for p, n in measured.items()))
    return "; ".join(parts)


def _ladder_shown(rows: pd.DataFrame, levels: list[int]) -> pd.DataFrame:
    """A section's ladder as the page shows it: a figure per row, its value at every level (the
    games behind a level are said once, in the table's caption: ``_games_said``)."""
    shown = {
        "players": rows["players"].astype(int).tolist(),
        "figure": [
            f"{r.label} (parity {100 * r.parity:.1f}%)" if np.isfinite(r.parity) else r.label for r in rows.itertuples()
        ],
    }
    for k in levels:
        names = [p for p in rows[f"L{k}_policy"] if p]
        shown[f"L{k} {names[0] if names else ''} [95% CI]".replace("  ", " ")] = [
            interval_text(
                getattr(r, f"L{k}"), getattr(r, f"L{k}_lo"), getattr(r, f"L{k}_hi"), **A.unit_form(r.unit, fit=True)
            )
            if np.isfinite(getattr(r, f"L{k}"))
            else "not measured"
            for r in rows.itertuples()
        ]
    for k in levels[1:] if levels and levels[0] == 1 else ():
        shown[f"L{k} change from L1 [95% CI]"] = [LA.level_change(r, k) for r in rows.itertuples()]
    shown["verdict"] = [
        r.verdict
        + (f": {r.direction}" if r.direction else "")
        + (f": {r.reason}" if r.verdict == "not settled" else "")
        for r in rows.itertuples()
    ]
    return pd.DataFrame(shown)


def ladder_blocks(verdicts: pd.DataFrame, section: str) -> list[Block]:
    """The topic "Across strengths of play" that opens a section: its ladder figure and the table
    of its headline figures at every level, with their verdicts."""
    rows = verdicts[verdicts["section"] == section] if len(verdicts) else verdicts
    name = f"ladder_{slug(section).replace('-', '_')}"
    if rows.empty:
        return topic(
            "Across strengths of play",
            Block(
                "missing",
                text=(
                    "No strength check was possible: these data hold no mirror games of the ladder's levels "
                    f"({', '.join(level_name(p) for p in A.LADDER)}) to measure this section's figures on."
                ),
                name=name,
            ),
        )
    levels = sorted({k for k in range(1, 10) if f"L{k}" in rows and rows[f"L{k}"].notna().any()})
    blocks = []
    if len(levels) < 2:
        blocks.append(
            Block(
                "missing",
                text=(
                    f"No strength check was possible: these data hold the mirror games of one level of play only "
                    f"({level_name(rows['L1_policy'].iloc[0] or A.LADDER[0]) if levels == [1] else 'one level'}); "
                    "every "
                    "figure below is measured at that level alone."
                ),
            )
        )
    made = P.ladder_figure(rows, section)
    if made is not None:
        blocks.append(Block("figure", text=made[1], name=f"ladder-{slug(section)}", figure=made[0]))
    counts = rows["verdict"].value_counts()
    tally = ", ".join(f"{counts[v]} {v}" for v in LA.VERDICTS if v in counts)
    blocks.append(
        Block(
            "table",
            text=f"{section} across strengths of play: {len(rows)} headline figures, {tally}. "
            "Each figure on the mirror games of each level alone, with its 95% interval, its change "
            "from L1 with that change's interval, and its verdict by size (the margins at the top of the "
            f"page); the games behind each level: {_games_said(_level_games(rows, levels))}",
            name=name,
            table=rows,
            shown=_ladder_shown(rows, levels),
            fold=False,
        )
    )
    return topic("Across strengths of play", *blocks)


def strength_blocks(verdicts: pd.DataFrame) -> list[Block]:
    """The at-a-glance count of stable, strength-dependent and unsettled figures per player count,
    and where no player count has two levels, the sentence that says no strength check was possible."""
    if verdicts.empty:
        return [
            Block(
                "missing",
                text="No strength check was possible: these data hold no mirror games of the "
                f"ladder's levels ({', '.join(level_name(p) for p in A.LADDER)}).",
            )
        ]
    counts = LA.verdict_counts(verdicts)
    shown = counts.rename(columns={"levels": "levels measured (mirror games)", "figures": "headline figures"})
    blocks = []
    if (verdicts["verdict"] == "one level").all():
        blocks.append(
            Block(
                "missing",
                text=f"No strength check was possible: these data hold the mirror games of one "
                f"level of play only at each player count ({'; '.join(counts['levels'])}), so every "
                "figure is measured at that level alone.",
            )
        )
    blocks.append(
        Block(
            "table",
            text="Across strengths of play: the headline figures of each player count by verdict "
            "(each section opens with its own)",
            name="strength_check",
            table=counts,
            shown=shown,
        )
    )
    return blocks
