"""The strength ladder under the report's headline figures: each figure at every level of play it
was measured at, and a verdict per figure, by the size of its change.

A report's *levels* are mirror datasets (one policy in every seat) of the ladder's policies
(``studies.skill.LADDER``: ``balanced`` L1, ``learned`` L2, ``rollout-learned`` L3), one or more
per player count. Each headline figure (``tables.headline_figures``) is computed on each level's
games alone, with its 95% interval. Each *step* between adjacent levels, weakest first, is the
change of the figure with its 95% interval (``intervals.difference_interval``), judged against
the smallest change that matters for the figure's unit (``intervals.MARGINS``: 1 point of a rate
or a share, 0.5 VP, 0.25 rounds, 0.25 of a count; ``smsim report --margin UNIT=VALUE``) by
``intervals.margin_verdict``: *the same* where the interval lies inside the margin, *moves* where it
lies wholly beyond it, *not settled* otherwise. The figure is then

- **stable**: every step is the same: the data rule out any change that matters;
- **strength-dependent**: at least one step moves; ``direction`` comes from the steps that move
  alone: it rises, falls, or moves both ways (only where two moving steps disagree);
- **style-dependent**: the only steps that move are between two levels whose head-to-head holds
  parity (``studies.skill.ordered_levels``): the levels play differently, neither is shown to be
  the stronger, so the change is one of style, not of strength;
- **not settled**: no step moves and at least one is not settled (too few games, or a change
  near the margin);
- **one level**: the figure was measured at one level only: no strength check is possible.

A tiny change on a huge sample is *the same*: intervals that do not overlap are no verdict by
themselves. Parity plays no part: a seat's win rate that is clear of parity at one level and not at
the next, with a step inside the margin, has not changed in any way that matters.

>>> a = ("rate", 0.26, 0.258, 0.262, 1_000_000)
>>> step(a, ("rate", 0.262, 0.260, 0.264, 1_000_000))[0]   # apart, but by a fifth of a point
'the same'
>>> step(a, ("rate", 0.30, 0.29, 0.31, 100_000))[0]        # four points
'moves'
>>> step(a, ("rate", 0.27, 0.21, 0.33, 200))[0]            # 200 games cannot tell
'not settled'
>>> judge([a, ("rate", 0.30, 0.29, 0.31, 10**5), ("rate", 0.301, 0.26, 0.34, 800)])[:2]
('strength-dependent', 'rises with strength')
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pandas as pd

from smsim.intervals import MARGINS, MOVES, NOT_SETTLED, difference_interval, interval_text, margin_verdict
from smsim.report import tables as A
from smsim.studies.skill import STYLE_NOT_STRENGTH, UNSETTLED

VERDICTS = ("stable", "strength-dependent", "style-dependent", "not settled", "one level")
"""Every verdict a figure can get, in the order the report counts them."""

LEVEL_WORDS = {1: "under `{}`", 2: "under `{}`", 3: "under search with `{}`"}
"""How a sentence names play at a level of the ladder."""

UNIT_WORDS = {
    "rate": "a rate",
    "share": "a share of VP",
    "points": "a difference of rates",
    "vp": "",
    "rounds": "a game's length",
    "count": "a count per seat (cannons lost, sides completed)",
}
"""What each unit of ``intervals.MARGINS`` measures, for the sentence that states the margins (VP
say it themselves)."""


def level_words(level: int, policy: str) -> str:
    return LEVEL_WORDS.get(level, "under `{}`").format(policy)


def level_sources(data: A.ReportData) -> dict[int, dict[int, list[int]]]:
    """Per player count, per level (1 = L1), the sources of that level's mirror games."""
    out: dict[int, dict[int, list[int]]] = {}
    for i, src in enumerate(data.sources):
        if src.level and src.games:
            out.setdefault(src.players, {}).setdefault(src.level, []).append(i)
    return {p: dict(sorted(levels.items())) for p, levels in sorted(out.items())}


LADDER_COLUMNS = [
    "players",
    "level",
    "policy",
    "games",
    "planned",
    "figure",
    "item",
    "label",
    "unit",
    "section",
    "value",
    "lo",
    "hi",
    "n",
    "parity",
]


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
                own = f.figure == "wall_bonus"  # a wall bonus's value stands on its ablation's games, not the mirror's
                rows.append(
                    {
                        "players": players,
                        "level": level,
                        "policy": policy,
                        "games": f.n if own else sub.n_games,
                        "planned": f.n if own else planned,
                        "figure": f.figure,
                        "item": f.item,
                        "label": f.label,
                        "unit": f.unit,
                        "section": f.section,
                        "value": f.value,
                        "lo": f.lo,
                        "hi": f.hi,
                        "n": f.n,
                        "parity": f.parity,
                    }
                )
    return pd.DataFrame(rows, columns=LADDER_COLUMNS)


def margin_text(unit: str, margin: float) -> str:
    """A margin in the report's words: "1 point" (a rate, a share, points), "0.5 VP", "0.25 rounds", "0.25"."""
    if not np.isfinite(margin):
        return "no margin"
    if unit in ("rate", "share", "points"):
        return f"{100 * margin:g} point{'' if 100 * margin == 1 else 's'}"
    return f"{margin:g}" + {"vp": " VP", "rounds": " rounds"}.get(unit, "")


def margins_sentence(margins: dict[str, float] = MARGINS) -> str:
    """The margins a report judged by, in one sentence for the page (near the strength check).

    >>> margins_sentence().split(": ")[1].split(", 0.25 of")[0]
    "1 point of a rate or of a share of VP, 0.5 VP, 0.25 rounds of a game's length"
    """
    said, done = [], {"points"}  # points, a difference of rates, go with the rates
    for u, m in margins.items():
        if u in done:
            continue
        same = [u]
        if u in ("rate", "share"):  # a rate and a share of VP under one margin: said once
            same = [v for v in ("rate", "share") if v not in done and margins.get(v) == m]
        done.update(same)
        words = " or of ".join(UNIT_WORDS.get(v, v) for v in same)
        said.append(f"{margin_text(u, m)} of {words}" if words else margin_text(u, m))
    return (
        "A change counts where its 95% interval clears the smallest change that matters: "
        f"{', '.join(said)} (set with `smsim report --margin UNIT=VALUE`; docs/report.md argues the "
        "defaults)."
    )


def rule_text(margins: dict[str, float] = MARGINS) -> str:
    """The ladder's verdict rule in the page's words, ending with the margins it used
    (``margins_sentence``): the text under the strength check."""
    return (
        "Each headline figure is measured on the mirror games of each level of play (one policy in every seat: "
        "L1 `balanced`, L2 `learned`, L3 `rollout` over `learned`), and each step between adjacent levels is "
        "judged by its size: *the same* where the 95% interval of the change lies inside the smallest change "
        "that matters, *moves* where it lies wholly beyond it, *not settled* otherwise. A figure is *stable* "
        "where every step is the same, *strength-dependent* where a step moves (the direction from the steps "
        "that move), *style-dependent* where the only steps that move are between two levels whose head-to-head "
        "holds parity (a difference of style, not of strength), *not settled* otherwise, and *one level* "
        "where it was measured at one level only "
        f"(smsim/report/ladder.py). {margins_sentence(margins)}"
    )


def step(a: tuple, b: tuple, margins: dict[str, float] = MARGINS) -> tuple[str, float, float, float]:
    """Two adjacent levels' figure, each ``(unit, value, lo, hi, n)``: the change ``b - a`` with its
    95% interval, judged against ``margins[unit]`` (``intervals.margin_verdict``; a unit without a
    margin is never settled): ``(verdict, change, lo, hi)``."""
    d, lo, hi = difference_interval(a[1:4], b[1:4])
    return margin_verdict(lo, hi, margins.get(a[0], np.nan)), d, lo, hi


def _change_text(unit: str, d: float, lo: float, hi: float) -> str:
    return interval_text(d, lo, hi, **A.unit_form(unit, signed=True, words=True))


def judge(
    levels: list[tuple],
    margins: dict[str, float] = MARGINS,
    numbers: list[int] | None = None,
    ordered: list[bool | None] | None = None,
) -> tuple[str, str, str]:
    """A figure's verdict from its values at each level it was measured at, weakest first (each
    ``(unit, value, lo, hi, n)``): (verdict, direction, reason), by the steps between adjacent
    levels (``step``, module docstring). ``numbers``: the levels' numbers, for the reason's words
    (default 1, 2, ...: a figure measured at L1 and L3 alone has one step, "L1 → L3"). ``ordered``:
    per step, whether the upper level beat the lower in their head-to-head (False: level, or
    weaker; ``UNSETTLED``: their head-to-head is not settled; None: no head-to-head in the report).
    A step that moves between two levels shown level is a difference of style, not of strength:
    it sets no direction, and a figure that moves only there is *style-dependent*.

    A step on too few games sets neither the verdict nor the direction: one that moves between
    levels whose head-to-head is not settled (it cannot be told whether it is style or strength),
    and one not settled whose interval is wider than the margin each way (more games at the upper
    level, not a change, would settle it). The verdict comes from the other steps, and the reason
    says "too few games at Lk"; a figure with no other step is *not settled*."""
    numbers = list(numbers) if numbers is not None else list(range(1, len(levels) + 1))
    if len(levels) < 2:
        return "one level", "", "measured at one level only: no strength check is possible"
    unit = levels[0][0]
    margin = margins.get(unit, np.nan)
    steps = [(k + 1, *step(a, b, margins)) for k, (a, b) in enumerate(pairwise(levels))]
    said = {k: f"L{numbers[k - 1]} → L{numbers[k]} {v} ({_change_text(unit, d, lo, hi)})" for k, v, d, lo, hi in steps}
    ordered = list(ordered) if ordered is not None else [None] * len(steps)
    few = [
        k
        for k, v, _, lo, hi in steps
        if (v == MOVES and ordered[k - 1] == UNSETTLED) or (v == NOT_SETTLED and (hi - lo) / 2 > margin)
    ]
    thin = "; ".join(f"too few games at L{numbers[k]} ({said[k]})" for k in few)
    steps = [x for x in steps if x[0] not in few]
    styled = [k for k, v, *_ in steps if v == MOVES and ordered[k - 1] is False]
    moving = [(k, d) for k, v, d, _, _ in steps if v == MOVES and k not in styled]
    style = "; ".join(f"{said[k]}, {STYLE_NOT_STRENGTH}" for k in styled)
    if moving:
        ups = {d > 0 for _, d in moving}
        direction = (
            "moves both ways" if len(ups) > 1 else "rises with strength" if True in ups else "falls with strength"
        )
        parts = [*(said[k] for k, _ in moving), *([style] if style else []), *([thin] if thin else [])]
        return "strength-dependent", direction, "; ".join(parts)
    if styled:
        return "style-dependent", "", "; ".join([style, *([thin] if thin else [])])
    if not np.isfinite(margin):
        return "not settled", "", f"no smallest change that matters is declared for {unit!r}"
    if not steps:
        return "not settled", "", thin
    open_steps = [k for k, v, *_ in steps if v == NOT_SETTLED]
    if open_steps:
        return (
            "not settled",
            "",
            (
                f"{'; '.join(said[k] for k in open_steps)}: could still be a change of "
                f"{margin_text(unit, margin)} or more" + (f"; {thin}" if thin else "")
            ),
        )
    # every step the same
    return "stable", "", f"every step within {margin_text(unit, margin)}" + (f"; {thin}" if thin else "")


VERDICT_COLUMNS = [
    "players",
    "figure",
    "item",
    "label",
    "unit",
    "section",
    "parity",
    "levels",
    "margin",
    "verdict",
    "direction",
    "reason",
]


def ladder_verdicts(
    ladder: pd.DataFrame,
    margins: dict[str, float] = MARGINS,
    ordered: dict[int, dict[tuple[str, str], bool]] | None = None,
) -> pd.DataFrame:
    """One row per player count and headline figure: its value, interval and games at each level
    (``L1``, ``L1_lo``, ``L1_hi``, ``L1_games``, ...; NaN where not measured), its change from L1 at
    each higher level with that change's 95% interval (``L2_change``, ``L2_change_lo``,
    ``L2_change_hi``, ...; ``intervals.difference_interval``), the levels it was measured at, the
    margin it was judged by (``margins[unit]``) and its verdict (``judge``), direction and reason.
    ``ordered``: per player count, ``studies.skill.ordered_levels`` (whether each level beat the
    one below it head to head), where the report has the head-to-heads."""
    rows = []
    top = max([3, *ladder["level"].astype(int)]) if len(ladder) else 3
    for (players, figure, item), g in ladder.groupby(["players", "figure", "item"], sort=False):
        g = g.sort_values("level")
        first = g.iloc[0]
        parity = float(first["parity"])
        levels = [(r.unit, r.value, r.lo, r.hi, r.n) for r in g.itertuples()]
        policies = list(g["policy"])
        known = (ordered or {}).get(int(players), {})
        steps_ordered = [known.get((a, b)) for a, b in pairwise(policies)]
        verdict, direction, reason = judge(levels, margins, [int(k) for k in g["level"]], steps_ordered)
        row = {
            "players": players,
            "figure": figure,
            "item": item,
            "label": first["label"],
            "unit": first["unit"],
            "section": first["section"],
            "parity": parity,
            "levels": len(g),
            "margin": margins.get(first["unit"], np.nan),
            "verdict": verdict,
            "direction": direction,
            "reason": reason,
        }
        for k in range(1, top + 1):
            r = g[g["level"] == k]
            ok = len(r) == 1
            row[f"L{k}_policy"] = str(r["policy"].iloc[0]) if ok else ""
            for col, name in (("value", f"L{k}"), ("lo", f"L{k}_lo"), ("hi", f"L{k}_hi")):
                row[name] = float(r[col].iloc[0]) if ok else np.nan
            row[f"L{k}_games"] = int(r["games"].iloc[0]) if ok else 0
            row[f"L{k}_planned"] = int(r["planned"].iloc[0]) if ok else 0
        for k in range(2, top + 1):
            change = difference_interval(*((row[f"L{j}"], row[f"L{j}_lo"], row[f"L{j}_hi"]) for j in (1, k)))
            row.update(dict(zip((f"L{k}_change", f"L{k}_change_lo", f"L{k}_change_hi"), change)))
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
        rows.append(
            {
                "players": int(players),
                "levels": measured,
                "figures": len(g),
                **{v: int(counts.get(v, 0)) for v in VERDICTS},
            }
        )
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


def level_change(row, k: int) -> str:
    """A verdict row's change from L1 at level k with its 95% interval, in the figure's unit
    ("+1.2 points [+0.4, +2.0]", "-0.31 VP [-0.52, -0.10]"), as the ladder tables show it."""
    r = _fields(row)
    if k == 1 or not np.isfinite(r.get(f"L{k}_change", np.nan)):
        return "" if k == 1 else "not measured"
    return _change_text(r["unit"], r[f"L{k}_change"], r[f"L{k}_change_lo"], r[f"L{k}_change_hi"])


def values_text(row) -> str:
    """A verdict row's figure at every level it was measured at, each named by its play."""
    r = _fields(row)
    return ", ".join(f"{_value(r, k)} {level_words(k, r[f'L{k}_policy'])}" for k in measured_levels(r))


def verdict_sentence(row) -> str:
    """A verdict row in words: the verdict, then the values at every level and their direction,
    or why the data cannot settle it."""
    r = _fields(row)
    if r["verdict"] == "strength-dependent":
        return f"strength-dependent: it {r['direction']}: {r['reason']} ({values_text(r)})"
    if r["verdict"] == "one level":
        return f"one level: no strength check was possible ({values_text(r)})"
    return f"{r['verdict']}: {r['reason']} ({values_text(r)})"
