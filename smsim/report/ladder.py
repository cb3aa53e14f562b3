"""The strength ladder under the report's headline figures: each figure at every level of play it
was measured at, and a verdict per figure.

A report's *levels* are mirror datasets (one policy in every seat) of the ladder's policies
(``studies.skill.LADDER``: ``balanced`` L1, ``learned`` L2, ``rollout-learned`` L3), one or more
per player count. Each headline figure (``tables.headline_figures``) is computed on each level's
games alone, with its 95% interval; the verdict compares adjacent levels, weakest first:

- **strength-dependent**: two adjacent levels' intervals do not overlap; the figure moves with
  the strength of play (``direction`` says which way: it rises, falls, or moves both ways);
- **not settled**: no two adjacent levels are apart, but the data cannot rule out a change: a
  win rate by seat is clear of parity at one level and not at the next, or the difference
  between two adjacent levels could still be larger than ``MARGIN``;
- **stable**: no two adjacent levels are apart, each is on the same side of parity as the
  next (a win rate by seat), and the 95% interval of every adjacent difference lies within
  ``MARGIN``: the data rule out a change of more than a tenth of a standard deviation;
- **one level**: the figure was measured at one level only: no strength check is possible.

Differences are taken on the scale of effect sizes (``intervals.effect_size``, as in
``report.findings``): a rate (a share of seats, games or attacks) by its arcsine square root
(Cohen's h, well defined at 0 and 1), any other figure in units of its standard deviation per row
(Cohen's d, from its interval and the rows it averages), a share of VP (unit "share": shown in
percent, but no rate of yes-or-no rows) too. The margin of 0.1 is half of what is conventionally
a small effect (0.2): "stable" is an equivalence claim, not the absence of evidence, so a small
sample at a level says "not settled" rather than "stable".

>>> a = ("rate", 0.26, 0.255, 0.265, 100_000)
>>> step(a, ("rate", 0.261, 0.256, 0.266, 100_000))   # close and narrow: within the margin
'within'
>>> step(a, ("rate", 0.27, 0.21, 0.33, 200))          # overlapping, but 200 games cannot tell
'wide'
>>> step(a, ("rate", 0.30, 0.29, 0.31, 100_000))      # apart
'apart'
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from smsim.intervals import Z_95, effect_size, interval_text
from smsim.report import tables as A

MARGIN = 0.1
"""The largest change between adjacent levels a *stable* figure may still hide, as an effect size
(Cohen's h for a rate, d for anything else): half a small effect."""

VERDICTS = ("stable", "strength-dependent", "not settled", "one level")
"""Every verdict a figure can get, in the order the report counts them."""

LEVEL_WORDS = {1: "under `{}`", 2: "under `{}`", 3: "under search with `{}`"}
"""How a sentence names play at a level of the ladder."""


def level_words(level: int, policy: str) -> str:
    return LEVEL_WORDS.get(level, "under `{}`").format(policy)


def level_sources(data: A.ReportData) -> dict[int, dict[int, list[int]]]:
    """Per player count, per level (1 = L1), the sources of that level's mirror games."""
    out: dict[int, dict[int, list[int]]] = {}
    for i, src in enumerate(data.sources):
        if src.level and src.games:
            out.setdefault(src.players, {}).setdefault(src.level, []).append(i)
    return {p: dict(sorted(levels.items())) for p, levels in sorted(out.items())}


LADDER_COLUMNS = ["players", "level", "policy", "games", "planned", "figure", "item", "label", "unit", "section", "value", "lo",
                  "hi", "n", "parity"]  # fmt: skip


def ladder_table(data: A.ReportData) -> pd.DataFrame:
    """One row per player count, level and headline figure: the figure on that level's mirror
    games alone (``tables.headline_figures``), with its interval, the games and the rows behind
    it (``n``) and its parity (win rates by seat)."""
    rows = []
    for players, levels in level_sources(data).items():
        for level, sources in levels.items():
            sub = data.select(sources)
            policy = sub.sources[0].seat_policies[0]
            planned = sum(max(src.planned, src.games) for src in sub.sources)  # a resumable run stopped early
            for f in A.headline_figures(sub):
                rows.append({"players": players, "level": level, "policy": policy, "games": sub.n_games,
                             "planned": planned,
                             "figure": f.figure, "item": f.item, "label": f.label, "unit": f.unit,
                             "section": f.section, "value": f.value, "lo": f.lo, "hi": f.hi, "n": f.n,
                             "parity": f.parity})  # fmt: skip
    return pd.DataFrame(rows, columns=LADDER_COLUMNS)


def step(a: tuple, b: tuple) -> str:
    """Two adjacent levels' figure, each ``(unit, value, lo, hi, n)``: "apart" (the intervals do
    not overlap), "within" (the 95% interval of their difference lies within ``MARGIN``) or
    "wide" (neither: the data cannot tell)."""
    unit, va, loa, hia, na = a
    _, vb, lob, hib, nb = b
    if not all(np.isfinite(x) for x in (va, loa, hia, vb, lob, hib)):
        return "wide"
    if lob > hia or hib < loa:
        return "apart"
    d, se = effect_size((va, loa, hia), (vb, lob, hib), unit == "rate", na, nb)
    return "within" if abs(d) + Z_95 * se < MARGIN else "wide"


def _side(lo: float, hi: float, parity: float) -> str:
    return "above" if lo > parity else "below" if hi < parity else "level"


def judge(levels: list[tuple], parity: float = np.nan) -> tuple[str, str, str]:
    """A figure's verdict from its values at each level it was measured at, weakest first (each
    ``(unit, value, lo, hi, n)``): (verdict, direction, reason)."""
    if len(levels) < 2:
        return "one level", "", "measured at one level only: no strength check is possible"
    steps = [step(a, b) for a, b in zip(levels, levels[1:])]
    values = [x[1] for x in levels]
    if "apart" in steps:
        rising = all(b >= a for a, b in zip(values, values[1:]))
        falling = all(b <= a for a, b in zip(values, values[1:]))
        direction = "rises with strength" if rising else "falls with strength" if falling else "moves both ways"
        k = steps.index("apart")
        return "strength-dependent", direction, f"L{k + 1} and L{k + 2} are apart"
    if np.isfinite(parity) and len({_side(x[2], x[3], parity) for x in levels}) > 1:
        return "not settled", "", "clear of parity at one level and not at another"
    if "wide" in steps:
        return "not settled", "", f"too few games to rule out a change of {MARGIN} standard deviations"
    return "stable", "", f"every change between adjacent levels below {MARGIN} standard deviations"


VERDICT_COLUMNS = ["players", "figure", "item", "label", "unit", "section", "parity", "levels", "verdict",
                   "direction", "reason"]  # fmt: skip


def ladder_verdicts(ladder: pd.DataFrame) -> pd.DataFrame:
    """One row per player count and headline figure: its value, interval and games at each level
    (``L1``, ``L1_lo``, ``L1_hi``, ``L1_games``, ...; NaN where not measured), the levels it was
    measured at, and its verdict (``judge``), direction and reason."""
    rows = []
    top = max([3, *ladder["level"].astype(int)]) if len(ladder) else 3
    for (players, figure, item), g in ladder.groupby(["players", "figure", "item"], sort=False):
        g = g.sort_values("level")
        first = g.iloc[0]
        parity = float(first["parity"])
        levels = [(r.unit, r.value, r.lo, r.hi, r.n) for r in g.itertuples()]
        verdict, direction, reason = judge(levels, parity)
        row = {"players": players, "figure": figure, "item": item, "label": first["label"], "unit": first["unit"],
               "section": first["section"], "parity": parity, "levels": len(g), "verdict": verdict,
               "direction": direction, "reason": reason}  # fmt: skip
        for k in range(1, top + 1):
            r = g[g["level"] == k]
            ok = len(r) == 1
            row[f"L{k}_policy"] = str(r["policy"].iloc[0]) if ok else ""
            for col, name in (("value", f"L{k}"), ("lo", f"L{k}_lo"), ("hi", f"L{k}_hi")):
                row[name] = float(r[col].iloc[0]) if ok else np.nan
            row[f"L{k}_games"] = int(r["games"].iloc[0]) if ok else 0
            row[f"L{k}_planned"] = int(r["planned"].iloc[0]) if ok else 0
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=VERDICT_COLUMNS)
    order = list(A.HEADLINE_SECTIONS)
    out["_order"] = out["figure"].map(order.index)
    return out.sort_values(["_order", "players"], kind="stable").drop(columns="_order").reset_index(drop=True)


def verdict_counts(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Per player count: how many headline figures are stable, strength-dependent, not settled,
    or measured at one level, and the levels measured (with their games)."""
    rows = []
    for players, g in verdicts.groupby("players"):
        counts = g["verdict"].value_counts()
        levels = [k for k in range(1, 10) if f"L{k}_games" in g and g[f"L{k}_games"].max() > 0]
        measured = ", ".join(f"L{k} {next(p for p in g[f'L{k}_policy'] if p)}: {_games_of(g, k)}" for k in levels)
        rows.append({"players": int(players), "levels": measured, "figures": len(g),
                     **{v: int(counts.get(v, 0)) for v in VERDICTS}})  # fmt: skip
    return pd.DataFrame(rows, columns=["players", "levels", "figures", *VERDICTS])


def _games_of(g: pd.DataFrame, k: int) -> str:
    """The games of level k, and the games its run was started for where it stopped short."""
    games, planned = int(g[f"L{k}_games"].max()), int(g[f"L{k}_planned"].max())
    return f"{games:,} games" + (f" (of {planned:,} planned)" if planned > games else "")


def _fields(row) -> dict:
    return row._asdict() if hasattr(row, "_asdict") else dict(row)


def _value(r: dict, k: int) -> str:
    """A verdict row's figure at level k and its interval: a rate or share in percent."""
    return interval_text(r[f"L{k}"], r[f"L{k}_lo"], r[f"L{k}_hi"], **A.unit_form(r["unit"], fit=True))


def measured_levels(row) -> list[int]:
    """The levels a verdict row's figure was measured at."""
    r = _fields(row)
    return [k for k in range(1, 10) if f"L{k}" in r and np.isfinite(r[f"L{k}"])]


def level_value(row, k: int) -> str:
    """A verdict row's figure at level k as the page shows it: value, interval and games."""
    r = _fields(row)
    if not np.isfinite(r.get(f"L{k}", np.nan)):
        return "not measured"
    return f"{_value(r, k)}, {int(r[f'L{k}_games']):,} games"


def values_text(row) -> str:
    """A verdict row's figure at every level it was measured at, each named by its play."""
    r = _fields(row)
    return ", ".join(f"{_value(r, k)} {level_words(k, r[f'L{k}_policy'])}"
                     for k in measured_levels(r))  # fmt: skip


def verdict_sentence(row) -> str:
    """A verdict row in words: the verdict, then the values at every level and their direction,
    or why the data cannot settle it."""
    r = _fields(row)
    if r["verdict"] == "strength-dependent":
        return f"strength-dependent: it {r['direction']} ({values_text(r)})"
    if r["verdict"] == "one level":
        return f"one level: no strength check was possible ({values_text(r)})"
    return f"{r['verdict']}: {r['reason']} ({values_text(r)})"
