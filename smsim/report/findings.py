"""The report's findings, in a designer's order, and the levels of play they stand on.

A designer asks, in this order (``DESIGN_ORDER``): is the start fair and what makes it fair, how
often do the pirates decide the winner, what is each wall bonus worth, how much does skill matter,
which rules move the game's outcomes, and what else moves. Each answer is one sentence with its
sizes and 95% intervals (``design_findings``), and a line on the first screen. What a finding calls
an effect is decided by the margin rule (``intervals.margin_verdict`` with ``intervals.MARGINS``):
an effect is stated where its interval clears the smallest change that matters, said to be *no
larger than the margin* where the interval lies inside it, and *not settled* otherwise, whatever
the interval says of zero.

A rules variant is named by its change from the default rules (``variant_words``: "side defence
2 → 1"). Its effect on the count its own rule changes is mechanical and left out (``MECHANICAL``).
Variants are ranked by effect size on the scale of the quantity each effect describes: the change
over the standard deviation of the per-game value (a game's length, a seat's win), so rates, VP
and rounds rank together.

The levels of play are shown, not assumed (``levels_lines``): what each is, and each against the
one below head to head (``studies.skill.head_to_heads``); two levels whose head-to-head interval
holds parity differ in style, not in strength (``studies.skill.ordered_levels``). The intervals
are the report's own (the analysis tables, the studies' block and paired intervals): nothing here
computes one.

>>> variant_words({"side_defence": 1})
'side defence 2 → 1'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from smsim.intervals import (
    BOT_DEPENDENT,
    HOLDS,
    MARGINS,
    MOVES,
    NOT_SETTLED,
    SAME,
    across_bots,
    interval_text,
    margin_verdict,
)
from smsim.report import tables as A
from smsim.report.tables import glance_sources  # which games the headline describes
from smsim.rules import Rules
from smsim.studies.ladder import (
    AT_LEAST,
    DEPTH_ROW,
    ESTIMATE,
    FROM_ANCHOR_ROW,
    MEASURED_ROW,
    SIXTY,
    STEP_ROW,
    step_verdict,
)
from smsim.studies.skill import (
    PARITY,
    STRONGER,
    STYLE_NOT_STRENGTH,
    UNSETTLED,
    WEAKER,
    games_to_settle,
    head_to_heads,
    standing_of,
)
from smsim.studies.sweep import BASELINE, variant_name


def _fmt(v: float, lo: float, hi: float, unit: str, signed: bool = False) -> str:
    """A figure in a finding's sentence (``intervals.interval_text``): its unit in words, a
    percentage to the decimals its interval needs (``tables.unit_form``; one decimal where the
    interval is a point, as a step never lost is: 100.0% [100.0, 100.0])."""
    return interval_text(v, lo, hi, **A.unit_form(unit, signed, words=True, fit=bool(lo != hi)))


# -- which games stand behind the headline -----------------------------------------------------
def glance_table(data: A.ReportData) -> pd.DataFrame:
    """One row per player count (``glance_sources``): the games, who sat at the table, the start
    player's and the last seat's win rate with their intervals beside parity (NaN where seat and
    policy are confounded), how often the cannons changed the winner and the mean game length."""
    rows = []
    for players, i in glance_sources(data).items():
        sub = data.select([i])
        src = data.sources[i]
        row = {"players": players, "games": sub.n_games, "field": src.field}
        seats = A.seat_advantage(sub)
        for name, seat in (("start_win", 0), ("last_win", players - 1)):
            r = seats[seats["seat"] == seat]
            ok = src.fair_seating and len(r)
            for suffix in ("", "_lo", "_hi"):
                row[name + suffix] = float(r[f"win{suffix}"].iloc[0]) if ok else np.nan
        row["parity"] = 1.0 / players
        changed = A.cannons_changed_winner(sub)
        length = A.game_length(sub)
        for suffix in ("", "_lo", "_hi"):
            row["changed" + suffix] = float(changed[f"changed{suffix}"].iloc[0]) if len(changed) else np.nan
            row["rounds" + suffix] = float(length[f"rounds{suffix}"].iloc[0]) if len(length) else np.nan
        rows.append(row)
    cols = [
        "players",
        "games",
        "field",
        "start_win",
        "start_win_lo",
        "start_win_hi",
        "last_win",
        "last_win_lo",
        "last_win_hi",
        "parity",
        "changed",
        "changed_lo",
        "changed_hi",
        "rounds",
        "rounds_lo",
        "rounds_hi",
    ]
    return pd.DataFrame(rows, columns=cols)


def rounds_words(d: float, lo: float, hi: float) -> str:
    """A paired change of game length in words: "its games end 4.85 rounds [4.82, 4.88] sooner"."""
    if not all(np.isfinite(x) for x in (d, lo, hi)):
        return "its game length is not measured"
    if lo <= 0 <= hi:
        return f"its games last as long as the baseline's ({_fmt(d, lo, hi, 'rounds', signed=True)})"
    way, (a, b) = ("sooner", (-hi, -lo)) if d < 0 else ("later", (lo, hi))
    return f"its games end {_fmt(abs(d), a, b, 'rounds')} {way}"


# -- the findings ------------------------------------------------------------------------------------
NOT_MEASURED = "not measured"
"""A finding whose data the report does not hold (its sentence says what would measure it)."""

DESIGN_ORDER = ("start_edge", "pirates", "wall_bonus", "skill", "variants", "remaining")
"""The findings in the order a designer asks them (``design_findings``)."""

QUESTIONS = {
    "start_edge": "Is the start fair?",
    "pirates": "Do the pirates decide the winner?",
    "wall_bonus": "What is each wall bonus worth?",
    "skill": "How much does skill matter?",
    "variants": "Which rules move the game?",
    "remaining": "What else moves?",
}
"""Each finding's question: the first screen's box asks them."""

SECTIONS = {
    "start_edge": ("At a glance", "Seat compensation"),
    "pirates": ("Pirate losses",),
    "wall_bonus": ("Wall bonuses",),
    "skill": ("How much skill matters",),
    "variants": ("Rule variants", "How much skill matters"),
    "remaining": ("Rule variants",),
}
"""The report sections that hold each finding's data, the first a finding links to first."""

FALLBACK_SECTION = "At a glance"
"""Where a finding links when its own section is not in the report (no variants, no compensation)."""

OUTCOMES = {
    "start_edge": "the start player's edge",
    "seat_gap": "the widest gap between two seats",
    "skill_gap": "the skill gap",
    "cannons_changed_winner": "the games the pirates decide",
    "rounds": "the game's length",
}
"""The game's outcomes a rules variant is judged by (finding 5), by the metric that measures each:
a sweep's per-game metrics (``studies.sweep.metrics_for``) and a skill study's gap."""

MECHANICAL: dict[str, frozenset[str]] = {
    # a defence rule moves the defence and the cannons lost by its own arithmetic
    # (and the VP those cannons cost, in the total too)
    "side_defence": frozenset({"cannons_lost", "attack_held", "vp_cannon_vp", "vp_total"}),
    "soldier_defence": frozenset({"cannons_lost", "attack_held", "vp_cannon_vp", "vp_total"}),
    "pirate_strengths": frozenset({"cannons_lost", "attack_held", "vp_cannon_vp", "vp_total"}),
    # the price of a cannon is the cannon VP, and the games decided are those its VP decides
    "cannon_penalty": frozenset({"vp_cannon_vp", "vp_total", "cannons_changed_winner"}),
    # a scoring rule moves the VP it scores
    "full_city_vp": frozenset({"vp_full_city_vp", "vp_total"}),
    "church_series_vp": frozenset({"vp_church_vp", "vp_total", "church_vp_share"}),
    "coins_per_vp": frozenset({"vp_coins_vp", "vp_total"}),
    "vp_per_log": frozenset({"vp_logs_vp", "vp_total"}),
    "seat_vp": frozenset({"vp_seat_vp", "vp_total", "start_edge", "win_seat"}),
    "start_coins": frozenset({"vp_coins_vp"}),
    "seat_coins": frozenset({"vp_coins_vp"}),
    "start_logs": frozenset({"vp_logs_vp"}),
    # a wall bonus's rules move the sides completed only by what the bonus pays for
    "wall_bonus_kind": frozenset({"vp_earned", "vp_total"}),
    "wall_bonus_amount": frozenset({"vp_earned", "vp_total"}),
    "max_rounds": frozenset({"rounds"}),
}
"""Per rules field, the metrics it moves *mechanically*: the count its rule changes, by the rule's
own arithmetic (a side defending 1 instead of 2 loses more cannons; a cannon costing 3 VP instead
of 5 moves the cannon VP). Such an effect says nothing a designer did not write into the rule, so
the findings leave it out. A metric family is named by its stem: ``attack_held`` covers
``attack_3_held``, ``win_seat`` every seat's win rate."""


def _stem(metric: str) -> str:
    if metric.startswith("attack_") and metric.endswith("_held"):
        return "attack_held"
    if metric.startswith("win_seat_"):
        return "win_seat"
    return metric


def mechanical(varied: dict, metric: str) -> bool:
    """Whether a variant changing the fields ``varied`` moves ``metric`` by its rule's own arithmetic
    (``MECHANICAL``)."""
    return any(_stem(metric) in MECHANICAL.get(name, ()) or metric in MECHANICAL.get(name, ()) for name in varied)


def variant_words(varied: dict, name: str = "") -> str:
    """A rules variant named by its change from the default rules (``studies.sweep.variant_name``,
    the one namer of the report and the terminal): ``side defence 2 → 1``, ``rotation cost 2 → 0
    (free rotation)``; the default itself is "the printed rules"."""
    if not varied and (not name or name == BASELINE):
        return "the printed rules"
    return variant_name(varied, Rules(), name or None)


@dataclass
class DesignFinding:
    """One answer of the findings: its sentence (sizes and intervals), the first screen's line, the
    margin verdict of what it says (``intervals`` SAME, MOVES, NOT_SETTLED, or ``NOT_MEASURED``)."""

    key: str  # ``DESIGN_ORDER``
    sentence: str
    line: str
    verdict: str

    @property
    def question(self) -> str:
        return QUESTIONS[self.key]

    def section(self, titles) -> str:
        """The section of the page (of ``titles``) the finding links to: its own, else ``FALLBACK_SECTION``."""
        return next((t for t in SECTIONS[self.key] if t in titles), FALLBACK_SECTION)


def _overall(verdicts: list[str]) -> str:
    """A finding's verdict from its parts': it states an effect where one part moves, says the same
    where every part is the same, else not settled."""
    if not verdicts:
        return NOT_MEASURED
    if MOVES in verdicts:
        return MOVES
    return SAME if all(v == SAME for v in verdicts) else NOT_SETTLED


def _margin_text(unit: str, margins: dict) -> str:
    m = margins[_margin_unit(unit)]
    return (
        f"{100 * m:g} point{'s' if m != 0.01 else ''}"
        if unit in ("rate", "share", "points")
        else f"{m:g}{' VP' if unit == 'vp' else ' rounds' if unit == 'rounds' else ''}"
    )


def _margin_unit(unit: str) -> str:
    return unit if unit in MARGINS else "count"


def judged(value: float, lo: float, hi: float, unit: str, margins: dict, what: str) -> tuple[str, str]:
    """``what`` ("the start player's edge at 2 players") with its change and interval, in the
    margin rule's words: stated where it clears the margin, "no larger than the margin" where its
    interval lies inside, "not settled" otherwise; and the verdict. ``unit`` "rate" or "points"
    is a difference of rates, written in signed points."""
    verdict = margin_verdict(lo, hi, margins[_margin_unit(unit)])
    shown = "points" if unit in ("rate", "share") else unit
    figure = _fmt(value, lo, hi, shown, signed=True)
    if verdict == MOVES:
        return f"{what} {figure}", verdict
    if verdict == SAME:
        return f"{what} no larger than the margin of {_margin_text(unit, margins)} ({figure})", verdict
    return f"{what} not settled ({figure})", verdict


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


# -- 1. the start player's edge and the compensation that removes it --------------------------------
def _compensation(results: list, players: int, margins: dict) -> str:
    """The whole-number compensation that brings every seat closest to parity at ``players``
    players (``studies.fairness``, coins first), with what it leaves on the held-out games."""
    best = None
    for r in sorted((r for r in results if r.players == players), key=lambda r: r.by != "coins"):
        t = r.table
        parity = 1.0 / r.players
        verdicts = [
            margin_verdict(lo - parity, hi - parity, margins["points"]) for lo, hi in zip(t["after_lo"], t["after_hi"])
        ]
        rank = (not any(r.compensation), sum(v == MOVES for v in verdicts), sum(v == NOT_SETTLED for v in verdicts))
        if best is None or rank < best[0]:
            best = (rank, r, verdicts)
    if best is None:
        return ""
    _, r, verdicts = best
    if not any(r.compensation):
        return f"no whole-number compensation of coins or VP beats none ({r.check_games:,} held-out games)"
    said = variant_words({r.rules_field: list(r.compensation)})
    left = sum(v == MOVES for v in verdicts)
    unsure = sum(v == NOT_SETTLED for v in verdicts)
    if not left and not unsure:
        leaves = f"leaves every seat within the margin of {_margin_text('points', margins)} of parity"
    elif left:
        leaves = f"still leaves {left} of {r.players} seats beyond the margin of parity"
    else:
        leaves = f"leaves {unsure} of {r.players} seats not settled against the margin of parity"
    return f"{said} {leaves} ({r.check_games:,} held-out games)"


def start_edge_finding(glance: pd.DataFrame, compensations: list = (), margins: dict = MARGINS) -> DesignFinding:
    """The start player's edge per player count (its win share minus parity, the at-a-glance rows)
    and the compensation that removes it (the fairness searches)."""
    parts, lines, verdicts = [], [], []
    for r in glance.itertuples():
        if not np.isfinite(r.start_win):
            continue
        e = (r.start_win - r.parity, r.start_win_lo - r.parity, r.start_win_hi - r.parity)
        said, v = judged(*e, "points", margins, f"at {r.players} players")
        comp = _compensation(list(compensations), int(r.players), margins)
        parts.append(f"{said} ({int(r.games):,} games){'; ' + comp if comp and v != SAME else ''}")
        lines.append(f"{r.players}p {_short(e, 'points', v)}")
        verdicts.append(v)
    if not parts:
        return DesignFinding(
            "start_edge",
            "The start player's edge is not measured here: no dataset has one policy "
            "in every seat (or a comparison's every arrangement).",
            "not measured",
            NOT_MEASURED,
        )
    return DesignFinding(
        "start_edge",
        f"The start player's edge (its win share minus parity): {'; '.join(parts)}.",
        "Start player's edge: " + "; ".join(lines),
        _overall(verdicts),
    )


def _short(e: tuple[float, float, float], unit: str, verdict: str) -> str:
    """A part of a first-screen line: the figure where it moves, else what the margin says."""
    shown = "points" if unit in ("rate", "share") else unit
    text = _fmt(*e, shown, signed=True)
    return text if verdict == MOVES else f"{text}, {'within the margin' if verdict == SAME else 'not settled'}"


# -- 2. how often the pirates decide the winner -----------------------------------------------------
def pirates_finding(glance: pd.DataFrame, margins: dict = MARGINS) -> DesignFinding:
    """The share of games whose winner would differ without the VP lost for cannons, per player count."""
    parts, lines, verdicts = [], [], []
    for r in glance.itertuples():
        if not np.isfinite(r.changed_lo):
            continue
        v = margin_verdict(r.changed_lo, r.changed_hi, margins["rate"])
        figure = _fmt(r.changed, r.changed_lo, r.changed_hi, "rate")
        if v == SAME:
            figure = f"no more than the margin of {_margin_text('rate', margins)} ({figure})"
        elif v == NOT_SETTLED:
            figure = f"a share not settled against the margin of {_margin_text('rate', margins)} ({figure})"
        parts.append(f"{figure} of {int(r.games):,} games at {r.players} players")
        lines.append(f"{r.players}p {_fmt(r.changed, r.changed_lo, r.changed_hi, 'rate')}")
        verdicts.append(v)
    if not parts:
        return DesignFinding(
            "pirates", "How often the pirates decide the winner is not measured here.", "not measured", NOT_MEASURED
        )
    return DesignFinding(
        "pirates",
        f"The pirates decide the winner (it would differ without the VP lost for cannons) in {_join(parts)}.",
        "Games the pirates decide: " + "; ".join(lines),
        _overall(verdicts),
    )


# -- 3. what each wall bonus is worth ---------------------------------------------------------------
ABLATION_COLUMNS = (
    "players",
    "policy",
    "side",
    "bonus",
    "face_vp",
    "games",
    "win_change",
    "win_change_lo",
    "win_change_hi",
    "vp_change",
    "vp_change_lo",
    "vp_change_hi",
)
"""The wall-bonus ablation table the finding reads (``report.tables``): per player count, policy
and side, what the side's bonus is worth to its seats, the same games played with and without it
on common dice: ``win_change`` (win share, a difference of rates) and ``vp_change`` (VP)."""

ABLATION_SIGN = 1.0
"""The sign that makes an ablation change the bonus's worth (with it minus without it): 1 where the
table's changes are the bonus's gain, -1 where they are what removing it does."""


def _signed(value: float, lo: float, hi: float) -> tuple[float, float, float]:
    """An ablation change as the bonus's worth (``ABLATION_SIGN``), its bounds in order."""
    a, b = sorted((ABLATION_SIGN * lo, ABLATION_SIGN * hi))
    return ABLATION_SIGN * value, a, b


def wall_bonus_finding(ablation: pd.DataFrame | None, margins: dict = MARGINS) -> DesignFinding:
    """Each wall bonus's worth by ablation at the weakest level of play measured, side by side in
    board order: its VP at the fewest and the most players measured (every player count in
    between is in the section's table), its win share likewise, each judged against its margin,
    and whether the sides with the same bonus agree (``tables.sides_agree``)."""
    if ablation is None or not len(ablation):
        return DesignFinding(
            "wall_bonus",
            "What each wall bonus is worth is not measured here: these data hold no "
            "wall-bonus ablation (the same games played with and without a side's bonus).",
            "not measured (no ablation in these data)",
            NOT_MEASURED,
        )
    t = ablation.copy()
    t["level"] = [A.LADDER.index(p) if p in A.LADDER else len(A.LADDER) for p in t["policy"]]
    t = t[t["level"] == t["level"].min()]
    policy = str(t["policy"].iloc[0])
    ends = sorted({int(t["players"].min()), int(t["players"].max())})
    parts, lines, verdicts = [], [], []
    for side, sub in t.groupby("side", sort=False, observed=True):
        sub = sub.set_index("players")
        vps, wins, short = [], [], []
        for players in sub.index:  # every player count judged, the ends said
            r = sub.loc[players]
            vp = _signed(r.vp_change, r.vp_change_lo, r.vp_change_hi)
            win = _signed(r.win_change, r.win_change_lo, r.win_change_hi)
            said_vp, v_vp = judged(*vp, "vp", margins, "")
            said_win, v_win = judged(*win, "points", margins, "")
            verdicts += [v_vp, v_win]
            if players in ends:
                wins.append(f"{said_win.strip()} of win share at {players} players")
                vps.append(said_vp.strip())
                short.append(_fmt(*win, "points", signed=True))
        bonus = str(sub["bonus"].iloc[0])
        parts.append(f"the {side} side's {bonus} {' to '.join(wins)} ({' to '.join(vps)})")
        lines.append(f"{side} ({bonus}) {' to '.join(short)} of win share")
    agree = A.sides_agree(t, margins)
    if len(agree):
        pairs = sorted({str(x) for x in agree["sides"]})
        said = (
            "agree"
            if agree["agree"].all()
            else ("are worth the same within the margin" if (agree["verdict"] == SAME).all() else "differ")
        )
        most = agree.loc[agree["vp_diff"].abs().idxmax()]
        agreement = (
            f" The sides with the same bonus ({', '.join(pairs)}) {said} at every player count (the largest "
            f"difference {_fmt(most.vp_diff, most.vp_diff_lo, most.vp_diff_hi, 'vp', signed=True)}, "
            f"{int(most.players)} players)."
        )
    else:
        agreement = ""
    games = int(t["games"].min())
    span = f"{ends[0]} to {ends[-1]} players" if len(ends) > 1 else f"{ends[0]} players"
    return DesignFinding(
        "wall_bonus",
        "Each wall bonus is worth, to a seat that takes it rather than going without "
        f"(the same games on common dice, `{policy}` in every seat, at least {games:,} games a side, "
        f"{span}), in win share first, then in VP: {'; '.join(parts)}.{agreement}{exchange_rate(t, ends)}",
        f"{'; '.join(lines)} ({span})",
        _overall(verdicts),
    )


def exchange_rate(ablation: pd.DataFrame, players: list[int]) -> str:
    """What a VP is worth in win share at each of ``players``, from the ablation's own bonus of
    plain VP (its win share's change over its VP's change): one sentence, empty where no side's
    bonus is VP alone. A bonus's VP and its win share differ because a person or coins also buy
    what comes after; a bonus of VP buys only the VP."""
    plain = ablation[ablation["bonus"].astype(str).str.fullmatch(r"\d+ VP")]
    said = []
    for p in players:
        row = plain[plain["players"] == p]
        if not len(row) or not row["vp_change"].iloc[0] > 0:
            continue
        r = row.iloc[0]
        said.append(
            f"{100 * r.win_change / r.vp_change:.1f} points at {p} players (the {r.side} side's {r.bonus}: "
            f"{100 * r.win_change:+.1f} points for {r.vp_change:+.2f} VP)"
        )
    if not said:
        return ""
    return (
        " A VP is worth about " + ", ".join(said) + " of win share: a bonus worth more win share than its VP "
        "buys at that rate is worth more than its face, by what it lets a seat build after."
    )


# -- the levels of play: what each is, and how strong -------------------------------------------------
POLICIES_DOC = "docs/policies.md"
"""Where the levels of play are described at length."""

LEVEL_TEXT = {
    "balanced": "the built-in heuristic: it values each move by the VP it earns now plus weighted values of "
    "what it builds toward (coins, crates, walls, churches, persons)",
    "learned": "a small model fitted to the search's values of moves, scoring the moves inside the play loop "
    "at heuristic speed (a sixth of `balanced`'s)",
    "rollout-learned": "the search: it values the moves it is unsure of by playing the game out many times from "
    "each, `learned` playing the continuations (one seat about 0.5 core-seconds a game at 2 players and 1 at 4, "
    "thousands of times `learned`'s cost)",
}
"""Each level of the ladder in a sentence (``POLICIES_DOC`` says more)."""


def strength_words(ordered: bool) -> str:
    """What a difference between two levels is, by ``ordered_levels``."""
    return "a difference of strength" if ordered else STYLE_NOT_STRENGTH


def _level(policy: str) -> str:
    return f"L{A.LADDER.index(policy) + 1} `{policy}`"


def head_to_head_text(r) -> str:
    """One head-to-head in words: "L3 `rollout-learned` against L2 `learned` at 2 players: 49.2%
    [43.1, 55.4] (parity 50.0%, 200 games), a difference of style, not of strength"."""
    who = (
        f"one {_level(r.upper)} seat among {_level(r.lower)} wins"
        if r.seat == "upper"
        else f"one {_level(r.lower)} seat among {_level(r.upper)} wins"
    )
    said = {
        STRONGER: f"{_level(r.upper)} is the stronger",
        PARITY: f"level ({strength_words(False)})",
        WEAKER: f"{_level(r.lower)} is the stronger",
        UNSETTLED: f"not settled: neither shown stronger nor level (about {r.settle:,} games would settle it)",
    }[r.standing]
    return (
        f"at {r.players} players {who} {_fmt(r.share, r.lo, r.hi, 'rate')} (parity {100 * r.parity:.1f}%, "
        f"{r.games:,} games): {said}"
    )


def rung_name(policy: str) -> str:
    """A rung of a ladder in words: a level of play by its level ("L1 `balanced`"), any other
    policy by its name."""
    return _level(policy) if policy in A.LADDER else f"`{policy}`"


def standings(skills: list, steps: pd.DataFrame | None = None, margin: float = MARGINS["share"]) -> pd.DataFrame:
    """Each level of play against the one below it, per player count (the columns of
    ``studies.skill.head_to_heads``): from the ladder (``tables.ladder_steps``: one seat of the
    upper level among the lower, every rotation, common dice) or from the skill studies'
    matrices, whichever measured that step on more games (the ladder where they tie; a step with
    no interval yet counts as not measured). ``standing``: ``STRONGER`` where the interval lies
    above parity (the ladder's ``ordered`` or ``ordered, small``), ``WEAKER`` below it
    (``reversed``), ``PARITY`` inside parity ± ``margin`` (``level``: a difference of style, not
    of strength), else ``UNSETTLED``, with the games that would settle it (``settle``)."""
    t = head_to_heads(skills, margin)
    if steps is None or not len(steps):
        return t
    pairs = set(zip(A.LADDER, A.LADDER[1:]))
    rows = [
        {
            "players": int(r.players),
            "lower": r.lower,
            "upper": r.upper,
            "seat": "upper",
            "share": r.head_share,
            "lo": r.head_lo,
            "hi": r.head_hi,
            "games": int(r.head_games),
            "parity": r.parity,
            "standing": standing_of(r.head_lo, r.head_hi, r.parity, margin),
            "settle": games_to_settle(r.head_lo, r.head_hi, int(r.head_games), margin),
        }
        for r in steps.itertuples()
        if not r.check and (r.lower, r.upper) in pairs and np.isfinite([r.head_share, r.head_lo, r.head_hi]).all()
    ]
    skill_games = {(int(p), u): int(g) for p, u, g in zip(t["players"], t["upper"], t["games"])}
    rows = [x for x in rows if x["games"] >= skill_games.get((x["players"], x["upper"]), 0)]
    measured = {(x["players"], x["upper"]) for x in rows}
    rest = t[np.array([(int(p), u) not in measured for p, u in zip(t["players"], t["upper"])], dtype=bool)]
    # only frames that hold rows: pandas deprecates an empty frame's dtypes taking part in a concat
    parts = [f for f in (pd.DataFrame(rows, columns=t.columns), rest) if len(f)]
    both = pd.concat(parts, ignore_index=True) if parts else rest
    return both.sort_values(["players"], kind="stable", ignore_index=True)


def ladder_step_text(r, skill=None, margin: float = MARGINS["share"]) -> str:
    """One step of the ladder (a row of ``tables.ladder_steps``) in words, both ways: "at 2 players,
    one L2 `learned` seat among L1 `balanced` wins 64.2% [63.0, 65.4] (+14.2 points [+13.0, +15.4]
    above parity, 4,000 games): ordered; against the fixed field, in the same seat on the same dice,
    it wins +11.0 points [+9.4, +12.6] more than L1 `balanced` (paired, 3,996 games): ordered".
    ``skill``: a skill study's head-to-head of the same step on more games (a row of
    ``studies.skill.head_to_heads``): its figure is the one stated, so that the page gives one value
    per quantity (the skill gap of the findings), named as the skill study's."""
    share, lo, hi, games, source, verdict = r.head_share, r.head_lo, r.head_hi, r.head_games, "", r.verdict
    if skill is not None:
        share, lo, hi, games, source = skill.share, skill.lo, skill.hi, skill.games, " of the skill study"
        verdict = step_verdict(share - skill.parity, lo - skill.parity, hi - skill.parity, margin)
    edge, edge_lo, edge_hi = share - r.parity, lo - r.parity, hi - r.parity
    clear = f", its low end {100 * edge_lo:+.1f} points above parity" if edge_lo > 0 else ""
    return (
        f"at {r.players} players, one {rung_name(r.upper)} seat among {rung_name(r.lower)} wins "
        f"{_fmt(share, lo, hi, 'rate')} ({_fmt(edge, edge_lo, edge_hi, 'points')} "
        f"above parity, {games:,} games{source}): {verdict}{clear}; against the fixed field, in the same seat on "
        f"the same dice, it wins {_fmt(r.field_diff, r.field_lo, r.field_hi, 'points')} more than "
        f"{rung_name(r.lower)} (paired, {r.field_games:,} games): {r.field_verdict}"
    )


def _more_games(t: pd.DataFrame, r):
    """The skill studies' head-to-head of a ladder step (``r``) where it has more games, else None."""
    if not len(t):
        return None
    same = t[(t["players"] == r.players) & (t["lower"] == r.lower) & (t["upper"] == r.upper) & (t["seat"] == "upper")]
    same = same[same["games"] > r.head_games]
    return next(same.itertuples(), None)


# A published depth to set Saint Malo's beside: László Mérő (Ways of Thinking, 1990) counted a game's
# depth in class units from a typical adult beginner to the world champion, chess 11 (up to 2800
# Elo), as K. W. Regan recalls it ("The New Chess World Champion", Gödel's Lost Letter and P=NP,
# 2014-12-28), with backgammon 10 and Go 25 "if I recall correctly". A class is 200 Elo points, an
# expected score of 76%: logit(0.76) / logit(0.6) = 2.84 of smsim's 60%-steps.
CLASS_SCORE = 1 / (1 + 10 ** (-200 / 400))
CLASS_IN_STEPS = math.log(CLASS_SCORE / (1 - CLASS_SCORE)) / SIXTY
PUBLISHED_DEPTH = (
    "For scale: László Mérő counted chess 11 classes deep from an adult beginner to the world champion "
    "(backgammon 10, Go 25; Ways of Thinking, 1990, as K. W. Regan recalls it), a class being 200 Elo points, "
    f"a 76% score, {CLASS_IN_STEPS:.2f} 60%-steps: chess about {11 * CLASS_IN_STEPS:.0f} of them. The two counts "
    "are not the same ladder: Mérő's climbs from a person who has just learned the game to the best person, "
    "smsim's from a rung of its own (random dice, or greedy) to its strongest bot, which is not the best play"
)


def depth_line(depth: pd.DataFrame) -> list[str]:
    """Saint Malo's depth in a sentence per ladder (``tables.ladder_depth``): the 60%-steps (2
    players, head to head) from the lowest rung to the top with their interval; "at least" where a
    step was never lost (it counts only by the lower end of its win share, which more games raise),
    with the part of the ladder measured; then the same from ``greedy`` (``FROM_ANCHOR_ROW``) in
    60%-steps and in classes of 200 Elo points, beside a published depth (``PUBLISHED_DEPTH``)."""
    out = []
    for seed in dict.fromkeys(depth["seed"]):
        d = depth[depth["seed"] == seed]
        whole = d[d["row"] == DEPTH_ROW]
        if not len(whole):
            continue
        w = whole.iloc[0]
        what = (
            f"Depth: from {rung_name(w.lower)} to {rung_name(w.upper)}, at 2 players head to head, in "
            "60%-steps (each step's logit(win share) over logit(0.6), summed; delta-method interval, the steps "
            "taken as independent): "
        )
        part = d[d["row"] == MEASURED_ROW]
        if w.bound == ESTIMATE:
            out.append(f"{what}{interval_text(w.steps, w.steps_lo, w.steps_hi, digits=2)} ({w.games:,} games).")
        elif w.bound != AT_LEAST:
            out.append(f"{what}not measured: a step of the chain holds a win share of 0 or reaches both ends.")
        else:
            never = d[(d["row"] == STEP_ROW) & (d["bound"] == AT_LEAST)]
            names = ", ".join(f"{rung_name(r.lower)} → {rung_name(r.upper)}" for r in never.itertuples())
            measured = (
                ""
                if not len(part)
                else (
                    f"; the part measured, {rung_name(part.iloc[0].lower)} → {rung_name(part.iloc[0].upper)}, is "
                    f"{interval_text(part.iloc[0].steps, part.iloc[0].steps_lo, part.iloc[0].steps_hi, digits=2)}"
                )
            )
            out.append(
                f"{what}at least {w.steps_lo:.2f} ({w.games:,} games): {names} never lost, so "
                f"{'it counts' if len(never) == 1 else 'they count'} only by the lower end of "
                f"{'its' if len(never) == 1 else 'their'} win share, which more games raise{measured}."
            )
        anchored = d[d["row"] == FROM_ANCHOR_ROW]
        if len(anchored) and anchored.iloc[0].bound == ESTIMATE:
            a = anchored.iloc[0]
            said = len(part) and part.iloc[0].lower == a.lower  # the part measured is this same chain
            counted = (
                "That part is"
                if said
                else f"From {rung_name(a.lower)}, the rung that takes the most VP each turn, it is "
                f"{interval_text(a.steps, a.steps_lo, a.steps_hi, digits=2)} 60%-steps:"
            )
            out.append(
                f"{counted} {a.steps / CLASS_IN_STEPS:.1f} [{a.steps_lo / CLASS_IN_STEPS:.1f}, "
                f"{a.steps_hi / CLASS_IN_STEPS:.1f}] classes of 200 Elo points (a 76% score). {PUBLISHED_DEPTH}."
            )
    return out


def check_line(steps: pd.DataFrame) -> str:
    """Has the ladder converged? The check rung's step over the top rung (``tables.ladder_steps``,
    ``check``) in a sentence: "one more step of strength still gains X [lo, hi]" at each player
    count, head to head and against the field; where the ladder holds no check rung, it says so."""
    top = steps[steps["check"].astype(bool)]
    if not len(top):
        return (
            "Whether one more step of strength still gains is not measured: the ladder holds no check rung "
            "(`smsim ladder --check 4`: the top rung's search at four times its budget)."
        )
    r0 = top.iloc[0]
    parts = [
        f"{_fmt(r.edge, r.edge_lo, r.edge_hi, 'points')} above parity head to head at {r.players} players "
        f"({r.head_games:,} games: {r.verdict})"
        + (
            f" and {_fmt(r.field_diff, r.field_lo, r.field_hi, 'points')} against the field (paired, "
            f"{r.field_games:,} games: {r.field_verdict})"
            if r.field_games
            else " (against the field not played: `smsim ladder --no-check-field`)"
        )
        for r in top.itertuples()
    ]
    return (
        f"One more step of strength ({rung_name(r0.upper)}, the top rung's search at a larger budget, over "
        f"{rung_name(r0.lower)}) still gains {'; '.join(parts)}."
    )


def levels_lines(
    skills: list, steps: pd.DataFrame | None = None, depth: pd.DataFrame | None = None, margin: float = MARGINS["share"]
) -> list[str]:
    """The levels of play near the top of the report: what each is (a sentence each, after
    ``POLICIES_DOC``) and how strong. Where a ladder was given (``steps``: ``tables.ladder_steps``,
    ``depth``: ``tables.ladder_depth``), each level's step over the rung below it at each player
    count, head to head and against the fixed field, then the depth and the check rung's step;
    a level the ladder does not reach, and every level without a ladder, against the one below
    head to head in the skill studies (``studies.skill.head_to_heads``). Where a skill study
    measured a ladder step head to head on more games, its figure is the one stated."""
    t = head_to_heads(skills)
    ladder = steps[~steps["check"].astype(bool)] if steps is not None else None
    out = []
    for k, policy in enumerate(A.LADDER):
        text = f"{_level(policy)}: {LEVEL_TEXT[policy]}."
        climbed = ladder[ladder["upper"] == policy] if ladder is not None else ()
        if len(climbed):
            below = ", ".join(dict.fromkeys(rung_name(x) for x in climbed["lower"]))
            text += (
                f" Over {below}, the rung below it in the ladder: "
                + "; ".join(ladder_step_text(r, _more_games(t, r), margin) for r in climbed.itertuples())
                + "."
            )
        elif k:
            steps_k = t[t["upper"] == policy]
            if len(steps_k):
                text += (
                    f" Against {_level(A.LADDER[k - 1])}: "
                    + "; ".join(head_to_head_text(r) for r in steps_k.itertuples())
                    + "."
                )
            else:
                text += f" No head-to-head against {_level(A.LADDER[k - 1])} in these data."
        out.append(text)
    if steps is not None:
        out += depth_line(depth if depth is not None else pd.DataFrame(columns=["seed"]))
        out.append(check_line(steps))
    return out


def levels_sentence(skills: list, steps: pd.DataFrame | None = None) -> str:
    """The levels in one sentence, for the first screen (``standings``: the ladder's steps where
    given, else the skill studies')."""
    t = standings(skills, steps)
    said = []
    for k in range(1, len(A.LADDER)):
        steps_k = t[t["upper"] == A.LADDER[k]]
        if not len(steps_k):
            said.append(f"L{k + 1} against L{k} is not measured")
            continue
        at = {
            s: ", ".join(str(p) for p in steps_k[steps_k["standing"] == s]["players"])
            for s in (STRONGER, PARITY, WEAKER, UNSETTLED)
        }
        settle = ", ".join(f"{r.settle:,}" for r in steps_k.itertuples() if r.standing == UNSETTLED)
        bits = [
            f"stronger than L{k} at {at[STRONGER]} players" if at[STRONGER] else "",
            f"level with L{k} at {at[PARITY]} players ({strength_words(False)})" if at[PARITY] else "",
            f"weaker than L{k} at {at[WEAKER]} players" if at[WEAKER] else "",
            (
                f"not settled against L{k} at {at[UNSETTLED]} players (too few games: about {settle} would settle it)"
                if at[UNSETTLED]
                else ""
            ),
        ]
        said.append(f"L{k + 1} is " + " and ".join(b for b in bits if b))
    names = ", ".join(_level(p) for p in A.LADDER)
    return f"Levels of play ({POLICIES_DOC}): {names}; {'; '.join(said)}."


# -- 4. how much skill matters -------------------------------------------------------------------------
def skill_finding(skills: list, margins: dict = MARGINS, steps: pd.DataFrame | None = None) -> DesignFinding:
    """The skill gap per player count (one L2 seat among L1, minus parity) against its margin, and
    whether the search (L3) is stronger than L2 where their head-to-head was played (``standings``:
    the ladder's step where ``steps`` holds it, else the skill studies')."""
    parts, lines, verdicts = [], [], []
    for res in sorted(skills, key=lambda r: r.players):
        gap = res.gap()
        if gap is None:
            continue
        g, lo, hi, games = gap
        said, v = judged(g, lo, hi, "points", margins, f"at {res.players} players")
        parts.append(f"{said} ({games:,} games)")
        lines.append(f"{res.players}p {_short((g, lo, hi), 'points', v)}")
        verdicts.append(v)
    played = standings(skills, steps, margins["share"])
    top = played[played["upper"] == A.LADDER[-1]]
    search = (
        ("; the search against it: " + "; ".join(head_to_head_text(r) for r in top.itertuples())) if len(top) else ""
    )
    if not parts:
        return DesignFinding(
            "skill",
            "How much skill matters is not measured here: no skill study plays one `learned` seat against `balanced`.",
            "not measured",
            NOT_MEASURED,
        )
    return DesignFinding(
        "skill",
        f"The skill gap (one {_level(A.LADDER[1])} seat among {_level(A.LADDER[0])}, its "
        f"win share minus parity): {'; '.join(parts)}{search}.",
        "Skill gap (L2 among L1): " + "; ".join(lines),
        _overall(verdicts),
    )


# -- 5 and 6. the rules variants that move the game -----------------------------------------------------
@dataclass
class Effect:
    """One variant's paired change of one metric under one bot (a sweep's line-up), with the
    metric's smallest change that matters (its margin: the scale effects are ranked on)."""

    variant: str  # named with its change from the default (``variant_words``)
    metric: str
    label: str  # the metric in words
    unit: str
    diff: float
    lo: float
    hi: float
    margin: float  # the smallest change that matters in this unit (``MARGINS``)
    where: str  # "4 players, `balanced` in every seat"
    verdict: str = ""
    base: float = math.nan  # the baseline's value of the metric
    seat_gap: tuple[float, float] = (math.nan, math.nan)  # the widest gap between two seats, before and after
    unfit: str = ""  # where a bot that measured it is beaten on the variant by the bot adapted to it: how much

    @property
    def size(self) -> float:
        """The change in margins: a designer's units (points, rounds, VP) on one scale."""
        return abs(self.diff) / self.margin if self.margin > 0 else math.inf if self.diff else 0.0

    @property
    def players(self) -> str:
        return self.where.split(", ", 1)[0]

    @property
    def bot(self) -> str:
        return self.where.split(", ", 1)[-1]


def _seat_gap(t: pd.DataFrame, variant: str) -> float:
    """The widest gap between two seats' win rates in a sweep's table (its point estimates)."""
    seats = t[(t["variant"] == variant) & t["metric"].str.fullmatch(r"win_seat_\d+")]["value"]
    return float(seats.max() - seats.min()) if len(seats) > 1 else math.nan


def _variant_effects(variant_sets: list, skills: list, margins: dict) -> list[Effect]:
    """Every variant's effect on every headline metric of every sweep (and of the adapted bots'
    sweep beside it, ``sweep --adapt``) and on the skill gap of every skill study, with its margin
    verdict, less the mechanical ones (``MECHANICAL``) and the shares whose change comes from
    their denominator (``DENOMINATOR``: reported on their numerator)."""
    out = []
    pairs = []
    beaten = {}  # variant -> how its adapted bot beats balanced: balanced's figures there are not the game's
    for vs, t in variant_sets:
        pairs.append((vs, t, None))
        fields_of = {v.name: v.varied for v in vs.variants}
        for note in vs.bots:
            if note["share_lo"] > note["parity"]:
                said = interval_text(note["share"], note["share_lo"], note["share_hi"], **A.RATE)
                beaten[variant_words(fields_of.get(note["variant"], {}), note["variant"])] = said
        if vs.adapted is not None:
            pairs.append((vs.adapted, vs.adapted.table(), "balanced adapted to each variant"))
    for vs, t, who in pairs:
        varied = {v.name: (v.varied, v.name) for v in vs.variants}
        base = t[t["variant"] == BASELINE].set_index("metric")
        policy = vs.policies[0] if len(set(vs.policies)) == 1 else None
        where = f"{vs.players} players, " + (
            who
            if who
            else f"{_level(policy) if policy in A.LADDER else f'`{policy}`'} in every seat"
            if policy
            else "mixed seats"
        )
        base_gap = _seat_gap(t, BASELINE)
        for r in t[t["variant"] != BASELINE].itertuples():
            fields, name = varied.get(r.variant, ({}, r.variant))
            if r.metric.startswith("win_share_") or r.metric == "win_seat_0" or mechanical(fields, r.metric):
                continue
            if r.metric in DENOMINATOR or r.metric not in base.index or not np.isfinite(r.diff_lo):
                continue
            b = base.loc[r.metric]
            out.append(
                Effect(
                    variant_words(fields, name),
                    r.metric,
                    OUTCOMES.get(r.metric, f'"{r.label}"'),
                    r.unit,
                    float(r.diff),
                    float(r.diff_lo),
                    float(r.diff_hi),
                    margins[_margin_unit(r.unit)],
                    where,
                    base=float(b.value),
                    seat_gap=(base_gap, _seat_gap(t, r.variant)),
                )
            )
    for res in skills:
        g = res.gaps
        if len(g) < 2:
            continue
        named = {v["name"]: v.get("varied", {}) for v in res.variants}
        for r in g.iloc[1:].itertuples():
            fields = named.get(r.variant, {})
            if not np.isfinite(r.diff_lo) or mechanical(fields, "skill_gap"):
                continue
            out.append(
                Effect(
                    variant_words(fields, r.variant),
                    "skill_gap",
                    OUTCOMES["skill_gap"],
                    "points",
                    float(r.diff),
                    float(r.diff_lo),
                    float(r.diff_hi),
                    margins["points"],
                    f"{res.players} players, one {_level(A.LADDER[1])} seat among {_level(A.LADDER[0])}",
                )
            )
            won = beaten.get(out[-1].variant)
            if won:  # the skill gap over an L1 that plays this variant badly: not the game's
                out[
                    -1
                ].unfit = (
                    f"{_level(A.LADDER[0])} is not adapted to it: the bot adapted to it wins {won} of games against it"
                )
    for e in out:
        e.verdict = margin_verdict(e.lo, e.hi, e.margin)
    return out


DENOMINATOR = {"church_vp_share": "vp_church_vp"}
"""Shares whose change under a variant may come from their denominator (every VP) rather than their
numerator: a variant's effect is stated on the numerator, its own metric."""

MOST_EFFECTS = 3
"""How many variants a finding names, and how many of a variant's effects it spells out (the rest
counted)."""

ONE_BOT = "one bot"
"""The verdict of an effect measured under one bot alone: it may hold for that bot only."""


@dataclass
class Across:
    """One variant's effect on one metric at one player count under every bot that measured it, and
    one verdict across them (``intervals.across_bots``: ``MOVES`` where every bot's change moves the
    same way, ``SAME`` where every one is within the margin, ``BOT_DEPENDENT``, ``NOT_SETTLED``;
    with one bot, ``ONE_BOT`` where it moves)."""

    effects: list[Effect]
    verdict: str
    low: float
    high: float

    @property
    def first(self) -> Effect:
        return self.effects[0]

    @property
    def size(self) -> float:
        """What every bot agrees on: the smallest change, in margins."""
        return min(e.size for e in self.effects)


def across_effects(effects: list[Effect]) -> list[Across]:
    """The effects grouped by variant, metric and player count, each group judged across its bots."""
    groups: dict[tuple[str, str, str], list[Effect]] = {}
    for e in effects:
        group = groups.setdefault((e.variant, e.metric, e.players), [])
        if all(e.where != other.where for other in group):  # the same rules under the same bot in two sweeps: once
            group.append(e)
    out = []
    for group in groups.values():
        values = [e.diff for e in group]
        if any(e.unfit for e in group):  # measured with a bot the variant's adapted bot beats
            verdict = BOT_DEPENDENT
        elif len(group) == 1:
            e = group[0]
            verdict = ONE_BOT if e.verdict == MOVES else e.verdict
        else:
            said, _, _ = across_bots([(e.diff, e.lo, e.hi) for e in group], group[0].margin)
            verdict = (MOVES if all(e.verdict == MOVES for e in group) else SAME) if said == HOLDS else said
        out.append(Across(group, verdict, min(values), max(values)))
    return out


def _figure(e: Effect) -> str:
    return _fmt(e.diff, e.lo, e.hi, "points" if e.unit in ("rate", "share") else e.unit, signed=True)


def _range(a: Across) -> str:
    """An effect under every bot: its figure where one bot measured it, else the range of the bots'
    values ("-6.00 to -3.77 rounds")."""
    if len(a.effects) == 1:
        return _figure(a.first)
    unit = "points" if a.first.unit in ("rate", "share") else a.first.unit
    low, high = (interval_text(x, **A.unit_form(unit, True, words=True)) for x in (a.low, a.high))
    return f"{low.rsplit(' ', 1)[0] if ' ' in low else low} to {high}"


def _bots(a: Across) -> str:
    if len(a.effects) == 1:
        return f"{a.first.bot} only"
    return "every bot: " + ", ".join(f"{_figure(e)} with {e.bot}" for e in a.effects)


def overshoots(before: float, after: float, margin: float) -> bool:
    """Whether a change of the start player's edge from ``before`` to ``after`` turns it into its
    opposite by at least the margin: a compensation that overshoots (one rule for the findings and
    the variants section's summary)."""
    return bool(np.sign(after) != np.sign(before) and abs(after) >= margin)


def _overshoot(a: Across) -> str:
    """Where a variant turns the start player's edge into a deficit (or back), by how much, and the
    widest gap between two seats before and after: a compensation that overshoots is not fairer."""
    e = a.first
    if e.metric != "start_edge" or not np.isfinite(e.base):
        return ""
    after = e.base + e.diff
    if not overshoots(e.base, after, e.margin):
        return ""
    gap = ""
    if all(np.isfinite(e.seat_gap)):
        gap = (
            f", the widest gap between two seats from {100 * e.seat_gap[0]:.1f} to {100 * e.seat_gap[1]:.1f} points"
            f" ({'wider: not fairer' if e.seat_gap[1] > e.seat_gap[0] else 'narrower'})"
        )
    return f"; it overshoots: the edge goes from {100 * e.base:+.1f} to {100 * after:+.1f} points{gap}"


def _variant_text(top: Across, groups: list[Across]) -> str:
    """One variant's effects that clear their margin for every bot at the player count of its
    largest, largest first (``MOST_EFFECTS`` of them, the others counted), with the bots that
    measured each: "rotation cost 2 → 1 moves the game's length by -1.22 to -1.10 rounds (4 players;
    every bot: ... with L1 `balanced` in every seat, ... with L2 `learned` in every seat)"."""
    mine = sorted(
        (
            g
            for g in groups
            if g.first.variant == top.first.variant
            and g.first.players == top.first.players
            and g.verdict in (MOVES, ONE_BOT)
        ),
        key=lambda g: g.size,
        reverse=True,
    )
    rest = len(mine) - MOST_EFFECTS
    moved = _join(
        [f"{g.first.label} by {_range(g)}" for g in mine[:MOST_EFFECTS]]
        + ([f"{rest} more figure{'s' if rest > 1 else ''} beyond their margins"] if rest > 0 else [])
    )
    return f"{top.first.variant} moves {moved} ({top.first.players}; {_bots(top)}{_overshoot(top)})"


def _effects_finding(key: str, effects: list[Effect], what: str) -> DesignFinding:
    """The variants with the largest effects that clear their margin under every bot that measured
    them, ranked in margins (a designer's units on one scale: points, rounds, VP), each variant
    once; the bot-dependent ones apart, never stated as the game's; and the tally of all."""
    if not effects:
        return DesignFinding(
            key,
            f"How the rules variants move {what} is not measured here: no rules variants in these data.",
            "not measured",
            NOT_MEASURED,
        )
    groups = across_effects(effects)
    moves = sorted((g for g in groups if g.verdict in (MOVES, ONE_BOT)), key=lambda g: g.size, reverse=True)
    depends = sorted((g for g in groups if g.verdict == BOT_DEPENDENT), key=lambda g: g.high - g.low, reverse=True)
    count = {v: sum(g.verdict == v for g in groups) for v in (SAME, NOT_SETTLED)}
    tally = (
        f"{len(moves)} of {len(groups)} effects clear their margin under every bot that measured them, "
        f"{len(depends)} {'is' if len(depends) == 1 else 'are'} bot-dependent, {count[SAME]} "
        f"{'is' if count[SAME] == 1 else 'are'} no larger than it, {count[NOT_SETTLED]} "
        f"{'is' if count[NOT_SETTLED] == 1 else 'are'} not settled"
    )
    dependent = ""
    if depends:
        dependent = (
            " Bot-dependent, so not the game's: "
            + "; ".join(
                f"{g.first.variant}: {g.first.label.strip(chr(34))} "
                + ", ".join(f"{_figure(e)} with {e.bot}" + (f" ({e.unfit})" if e.unfit else "") for e in g.effects)
                + f" ({g.first.players})"
                for g in depends[:MOST_EFFECTS]
            )
            + "."
        )
    over = [g for g in groups if g.verdict in (MOVES, ONE_BOT) and _overshoot(g)]  # fixes that overshoot: always said
    seen_over: set[str] = set()
    overshoots = ""
    for g in over:
        if g.first.variant not in seen_over:
            seen_over.add(g.first.variant)
            overshoots += f" A compensation that overshoots: {g.first.variant} ({g.first.players}{_overshoot(g)})."
    dependent += overshoots
    if not moves:
        return DesignFinding(
            key,
            f"No rules variant moves {what} by more than its margin under every bot ({tally}).{dependent}",
            f"no variant beyond the margin under every bot ({len(groups)} effects"
            + (f", {len(depends)} bot-dependent)" if depends else ")"),
            SAME if not count[NOT_SETTLED] and not depends else NOT_SETTLED,
        )
    shown, seen = [], set()
    for g in moves:  # each variant once, by its largest effect
        if g.first.variant not in seen:
            seen.add(g.first.variant)
            shown.append(g)
    shown = shown[:MOST_EFFECTS]
    line = "; ".join(
        f"{g.first.variant}: {g.first.label.strip(chr(34))} {_range(g)}"
        + (f" ({len(g.effects)} bots agree)" if len(g.effects) > 1 else f" ({g.first.bot} only)")
        + ("; overshoots" if _overshoot(g) else "")
        for g in shown[:2]
    )
    if depends:
        line += f"; {len(depends)} bot-dependent"
    line += "".join(f"; {v} overshoots" for v in seen_over if v not in {g.first.variant for g in shown[:2]})
    return DesignFinding(
        key,
        f"The rules variants that move {what} most (in margins: each change over the smallest change that "
        f"matters in its unit): {'; '.join(_variant_text(g, groups) for g in shown)} ({tally}).{dependent}",
        line,
        MOVES,
    )


def variants_finding(variant_sets: list, skills: list, margins: dict = MARGINS) -> DesignFinding:
    """The variants that move the game's outcomes most (``OUTCOMES``), mechanical effects left out."""
    effects = [e for e in _variant_effects(variant_sets, skills, margins) if e.metric in OUTCOMES]
    return _effects_finding("variants", effects, "the game's outcomes (" + ", ".join(OUTCOMES.values()) + ")")


def remaining_finding(variant_sets: list, margins: dict = MARGINS) -> DesignFinding:
    """The largest remaining effects: the variants' effects on every other headline figure."""
    effects = [e for e in _variant_effects(variant_sets, [], margins) if e.metric not in OUTCOMES]
    return _effects_finding("remaining", effects, "the rest of the game's figures")


# -- all of them --------------------------------------------------------------------------------------
def design_findings(
    glance: pd.DataFrame,
    compensations: list = (),
    ablation: pd.DataFrame | None = None,
    skills: list = (),
    variant_sets: list = (),
    margins: dict = MARGINS,
    steps: pd.DataFrame | None = None,
) -> list[DesignFinding]:
    """The findings in a designer's order (``DESIGN_ORDER``) from the report's tables: the
    at-a-glance rows (``glance_table``), the fairness results, the wall-bonus ablation table
    (``ABLATION_COLUMNS``), the skill studies and the variant sets with their tables, as
    ``(VariantSet, table)`` pairs; ``steps``: the ladder's (``tables.ladder_steps``), where given."""
    skills, variant_sets = list(skills), list(variant_sets)
    return [
        start_edge_finding(glance, compensations, margins),
        pirates_finding(glance, margins),
        wall_bonus_finding(ablation, margins),
        skill_finding(skills, margins, steps),
        variants_finding(variant_sets, skills, margins),
        remaining_finding(variant_sets, margins),
    ]


def report_findings(
    data: A.ReportData,
    variants: list = (),
    variant_tables: list | None = None,
    skills: list = (),
    compensations: list = (),
    ablation: pd.DataFrame | None = None,
    margins: dict = MARGINS,
    steps: pd.DataFrame | None = None,
) -> list[DesignFinding]:
    """``design_findings`` of a report's data: its at-a-glance rows from ``data``'s main sources,
    and its wall-bonus ablations (``tables.bonus_value``) unless ``ablation`` is given; ``steps``:
    the ladder's (``tables.ladder_steps``), where given."""
    if ablation is None:
        ablation = A.bonus_value(data)
    if variant_tables is None:
        variant_tables = [vs.table() for vs in variants]
    return design_findings(
        glance_table(data.main()), compensations, ablation, skills, list(zip(variants, variant_tables)), margins, steps
    )


STRENGTH_FIGURES = {
    "start_edge": ("seat_win", "0"),
    "pirates": ("cannons_changed_winner", None),
    "wall_bonus": ("wall_bonus", None),
}
"""The ladder's figure each finding states at the weakest level (``ladder.ladder_verdicts``): the
start player's win rate, the games the cannons decide, each side's bonus."""


def _level_values(r) -> str:
    """A ladder row's value at each level that has one, weakest first: "L1 52.0%, L2 52.3%"."""
    out = []
    for k in range(1, 10):
        if f"L{k}" not in r or not np.isfinite(r[f"L{k}"]):
            continue
        unit = "rate" if r["unit"] in ("rate", "share") else r["unit"]
        out.append(f"L{k} {interval_text(r[f'L{k}'], **A.unit_form(unit, words=True))}")
    return ", ".join(out)


def with_strength(found: list[DesignFinding], verdicts: pd.DataFrame) -> list[DesignFinding]:
    """Each finding stated at the weakest level, told whether it holds under stronger play: the
    ladder's verdict across levels (``ladder.ladder_verdicts``: stable, strength-dependent with its
    direction, style-dependent, not settled, with "too few games at Lk" where a level has too few)
    of the figure it states, per player count, in its sentence. A finding with no such figure in
    the ladder is left as it is."""
    if verdicts is None or not len(verdicts):
        return found
    out = []
    for f in found:
        figure, item = STRENGTH_FIGURES.get(f.key, (None, None))
        rows = verdicts[verdicts["figure"] == figure]
        if item is not None:
            rows = rows[rows["item"].astype(str) == item]
        if figure is None or not len(rows) or f.verdict == NOT_MEASURED:
            out.append(f)
            continue
        if item is None and rows["item"].astype(str).nunique() > 1:  # a figure per side: counted
            counts = rows["verdict"].value_counts()
            said = ", ".join(f"{n} {v}" for v, n in counts.items())
            note = f" Under stronger play (the ladder's levels): of its {len(rows)} figures, {said}."
        else:
            parts = []
            for r in rows.sort_values("players").to_dict("records"):
                few = dict.fromkeys(re.findall(r"too few games at L\d+", str(r["reason"])))
                thin = "".join(f"; {x}" for x in few)
                how = f"{r['verdict']}{', ' + r['direction'] if r['direction'] else ''}"
                parts.append(f"at {r['players']} players {how} ({_level_values(r)}{thin})")
            note = " Under stronger play (the ladder's levels): " + "; ".join(parts) + "."
        out.append(DesignFinding(f.key, f.sentence + note, f.line, f.verdict))
    return out


FIRST_SCREEN_TITLE = "The game in a minute"


def first_screen_lines(found: list[DesignFinding], skills: list = (), steps: pd.DataFrame | None = None) -> list[str]:
    """The first screen's box: each design question these data answer with its answer in a line,
    one line naming the questions they do not answer (none where every one is answered), then the
    levels of play in a sentence (``steps``: the ladder's, ``tables.ladder_steps``, where given)."""
    answered = [f"{f.question} {f.line}" for f in found if f.verdict != NOT_MEASURED]
    unanswered = [f for f in found if f.verdict == NOT_MEASURED]
    if unanswered:
        answered.append("Not answered by these data: " + " ".join(f.question for f in unanswered))
    return answered + [levels_sentence(list(skills), steps)]
