"""The report's headline: the key findings, generated from the data, and the at-a-glance table.

A *finding* is one number with its 95% interval, the games behind it and the null it is tested
against; it is *stated* only where its interval excludes that null, otherwise the report says the
data cannot tell. The candidates are a fixed list (``CANDIDATES``), each a family of instances
(one per player count, attack, variant ...); a family is stated by its strongest instance.

Effect size, the order of the findings: how large the effect is, not how many games show it, so
that a small effect measured on a million games does not outrank a large one measured on
thousands. A rate against its null (a rate, or a second rate set beside it) is compared by
Cohen's h, ``|2 asin sqrt(p) - 2 asin sqrt(p0)|``; any other figure (VP, rounds, a margin) by
Cohen's d, ``|value - null| / sd``, with the standard deviation of one independent unit (a game,
a block of a comparison) recovered from the interval, ``sd = se x sqrt(units)``, ``se`` being the
half-width of the 95% interval on the null's side over 1.96 (Wilson intervals are not symmetric).
Both are unit-free, so win rates, VP and rounds rank together; h = 0.2 is conventionally a small
effect, 0.5 a medium one, as d. A finding that sets two figures side by side (the most against
the least valuable wall bonus, stronger play against the reference) uses the distance between
them over the root of their mean squared standard deviation, and is stated only where the two
intervals do not overlap (the rule of ``report.tables.VERDICT_RULE``). Whether a finding is stated at
all depends only on its interval; the effect size only orders the stated ones. The intervals are
the report's own (``smsim.stats`` through the analysis tables, a comparison's block intervals, a
sweep's paired ones): nothing here computes an interval.

>>> round(float(effect(0.55, 0.53, 0.57, 0.5, "rate")), 3)   # 5 points above parity: Cohen's h
0.1
>>> round(float(effect(2.0, 1.5, 2.5, 0.0, "vp", units=100)), 2)   # 2 VP, sd 2.55 VP per game: Cohen's d
0.78
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from smsim.intervals import effect_size, interval_text
from smsim.report import ladder as LA
from smsim.report import tables as A
from smsim.report.tables import glance_data, glance_sources  # which games the headline describes
from smsim.studies.sweep import HEADLINE

MAX_FINDINGS = 6
"""At most this many findings open the report (the strongest by effect size)."""

NEVER, ALWAYS = 0.01, 0.99
"""An attack is *never held* where the interval of the share of seats holding it lies below 1%,
*always held* where it lies above 99%."""

CANNON_SHARE = 0.10
"""The null for cannons changing the winner: one game in ten. Zero would be no test (a single
changed game excludes it), so the finding says whether the cannons decide more, or fewer, than
one game in ten."""


NO_CHECK = "no strength check"
"""The verdict of a finding no ladder measures: one level of play only, or a comparison of policies."""

FINDING_VERDICTS = ("stable", "strength-dependent", "not settled", NO_CHECK)
"""Every verdict a key finding can carry: the ladder's (``report.ladder.VERDICTS``), one level
counting as no strength check."""


@dataclass
class Finding:
    """One candidate finding: its sentence and the numbers behind it."""

    key: str  # the candidate family (``CANDIDATES``)
    where: str  # which instance: "4 players", "attack 6 at 2 players", ...
    sentence: str  # the whole finding, with its value, interval and games
    value: float
    lo: float
    hi: float
    null: float  # what it is tested against
    null_text: str  # the null in words, with its interval where it is another figure's
    unit: str  # "rate", "points", "vp", "rounds" ...
    games: int
    effect: float  # effect size against the null: Cohen's h or d (module docstring)
    stated: bool  # the interval excludes the null
    verdict: str = NO_CHECK  # across strengths of play: a ladder verdict (``report.ladder``), or NO_CHECK
    strength: str = ""  # that verdict in its own sentence

    @property
    def short(self) -> str:
        return f"{self.where}: {_fmt(self.value, self.lo, self.hi, self.unit)} ({_games(self.games)})"


def _games(n: int) -> str:
    return f"{n:,} game{'s' if n != 1 else ''}"


def effect(value: float, lo: float, hi: float, null: float, unit: str, units: int = 0, base: float | None = None) -> float:
    """The effect size of ``value`` against ``null`` (module docstring, ``intervals.effect_size``):
    Cohen's h for a rate, Cohen's d for anything else, with the standard deviation of one of
    ``units`` independent units from the interval. A difference of rates (unit "points") from
    ``base`` is the rate ``base + value`` against ``base``. NaN where there is no interval."""
    if unit == "points" and base is not None and np.isfinite(base):
        value, lo, hi, null, unit = base + value, base + lo, base + hi, base + null, "rate"
    return abs(effect_size((value, lo, hi), null, unit == "rate", units)[0])


def _fmt(v: float, lo: float, hi: float, unit: str, signed: bool = False) -> str:
    """A figure in a finding's sentence (``intervals.interval_text``): its unit in words, a
    percentage to the decimals its interval needs (``tables.unit_form``)."""
    return interval_text(v, lo, hi, **A.unit_form(unit, signed, words=True, fit=True))


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
    cols = ["players", "games", "field", "start_win", "start_win_lo", "start_win_hi", "last_win", "last_win_lo",
            "last_win_hi", "parity", "changed", "changed_lo", "changed_hi", "rounds", "rounds_lo", "rounds_hi"]
    return pd.DataFrame(rows, columns=cols)


def _who(field: str) -> str:
    kind, _, names = field.partition(": ")
    names = names.replace(" (every seat arrangement)", "").split(", ")
    if kind == "compare":
        return f"{len(names)} policies in every seat arrangement"
    return f"`{names[0]}` in every seat" if len(set(names)) == 1 else "mixed seats"


# -- the candidates ----------------------------------------------------------------------------
@dataclass
class Context:
    """What the candidates read: the report's data (the ladder's upper levels included), its
    variant sets and their tables, the ladder's verdicts and the skill studies."""

    data: A.ReportData  # every source, the mirrors of the ladder's upper levels included
    variants: list = ()
    variant_tables: list = ()
    verdicts: pd.DataFrame | None = None  # ``ladder.ladder_verdicts``
    skills: list = ()  # ``studies.skill.SkillResult``


def _holds(value: float, lo: float, hi: float, null: float, above: bool) -> str:
    """Whether a level's interval supports a conclusion that the figure lies above (or below) its
    null: "holds", "is not shown" (the interval holds the null) or "is reversed"."""
    if not all(np.isfinite(x) for x in (lo, hi)):
        return "is not measured"
    if (lo > null) if above else (hi < null):
        return "holds"
    if (hi < null) if above else (lo > null):
        return "is reversed"
    return "is not shown"


def _levels_said(row: dict, null: float, above: bool) -> str:
    """The conclusion at each level above the first, in words: "it holds under `learned` (x) and
    under search (`rollout-learned`, y)"."""
    parts = []
    for k in LA.measured_levels(row)[1:]:
        said = _holds(row[f"L{k}"], row[f"L{k}_lo"], row[f"L{k}_hi"], null, above)
        value = LA.level_value(row, k)
        parts.append(f"{said} {LA.level_words(k, row[f'L{k}_policy'])} ({value})")
    if not parts:
        return ""
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"it {joined}"


def strength_check(ctx: Context, players: int, figure: str, item: str, null: float, above: bool) -> tuple[str, str]:
    """A finding's verdict across strengths of play and its sentence, from the ladder's verdict of
    its figure at its player count (``report.ladder``) and whether its conclusion (the figure above,
    or below, ``null``) holds at each level above the first."""
    v = ctx.verdicts
    row = None
    if v is not None and len(v):
        match = v[(v["players"] == players) & (v["figure"] == figure) & (v["item"] == item)]
        row = match.iloc[0].to_dict() if len(match) else None
    if row is None or row["verdict"] == "one level":
        return NO_CHECK, ("No strength check was possible: these data measure it under one level of play only "
                          f"(`{row['L1_policy'] if row else A.LADDER[0]}`).")  # fmt: skip
    return row["verdict"], _across(_levels_said(row, null, above), "the figure", row["verdict"], row["direction"],
                                   row["reason"])  # fmt: skip


def _across(said: str, subject: str, verdict: str, direction: str, reason: str) -> str:
    """A verdict across strengths of play in its sentence: what holds at each level, then what the
    verdict says of ``subject`` ("the figure", "its value", "its size")."""
    what = {"stable": f"{subject} is stable across strengths of play",
            "strength-dependent": f"{subject} is strength-dependent: it {direction}",
            "not settled": f"whether {subject} moves with strength is not settled ({reason})"}[verdict]
    return f"Across strengths of play, {said}; {what}."


def _glance_rows(ctx: Context, column: str) -> list:
    """The at-a-glance rows (one per player count) where ``column`` was measured."""
    return [r for r in glance_table(ctx.data.main()).itertuples() if np.isfinite(getattr(r, column))]


def _start_edge(ctx: Context) -> list[Finding]:
    out = []
    for r in _glance_rows(ctx, "start_win"):
        e = effect(r.start_win, r.start_win_lo, r.start_win_hi, r.parity, "rate")
        stated = not (r.start_win_lo <= r.parity <= r.start_win_hi)
        way = "wins more often than" if r.start_win > r.parity else "wins less often than"
        verdict, strength = strength_check(ctx, r.players, "seat_win", "0", r.parity, r.start_win > r.parity)
        out.append(Finding("start_edge", f"{r.players} players",
                           f"The start player {way} parity: at {r.players} players seat 0 wins "
                           f"{_fmt(r.start_win, r.start_win_lo, r.start_win_hi, 'rate')} of {r.games:,} games against "
                           f"parity {100 * r.parity:.1f}% ({_who(r.field)}); the last seat wins "
                           f"{_fmt(r.last_win, r.last_win_lo, r.last_win_hi, 'rate')}.",
                           r.start_win, r.start_win_lo, r.start_win_hi, r.parity, f"parity {100 * r.parity:.1f}%",
                           "rate", int(r.games), e, stated, verdict, strength))  # fmt: skip
    return out


def _cannons(ctx: Context) -> list[Finding]:
    out = []
    for r in _glance_rows(ctx, "changed_lo"):
        stated = not (r.changed_lo <= CANNON_SHARE <= r.changed_hi)
        way = "more" if r.changed > CANNON_SHARE else "fewer"
        verdict, strength = strength_check(ctx, r.players, "cannons_changed_winner", "", CANNON_SHARE,
                                           r.changed > CANNON_SHARE)  # fmt: skip
        out.append(Finding("cannons", f"{r.players} players",
                           f"Cannon losses decide {way} than one game in ten: at {r.players} players the winner would "
                           f"differ without them in {_fmt(r.changed, r.changed_lo, r.changed_hi, 'rate')} of "
                           f"{r.games:,} games ({_who(r.field)}).",
                           r.changed, r.changed_lo, r.changed_hi, CANNON_SHARE, "one game in ten (10%)", "rate",
                           int(r.games), effect(r.changed, r.changed_lo, r.changed_hi, CANNON_SHARE, "rate"), stated,
                           verdict, strength))  # fmt: skip
    return out


def _attacks(ctx: Context) -> list[Finding]:
    out = []
    sub = glance_data(ctx.data.main())
    t = A.defence_vs_strength(sub)
    who = {src.players: _who(src.field) for src in sub.sources}
    for r in t.itertuples():
        never = r.held < 0.5
        null = NEVER if never else ALWAYS
        stated = r.held_hi < NEVER if never else r.held_lo > ALWAYS
        games = int(r.n) // int(r.players)  # every seat meets every attack that comes
        eff = effect(r.held, r.held_lo, r.held_hi, null, "rate")  # negative: on the far side of the threshold
        words = "never held" if never else "always held"
        verdict, strength = strength_check(ctx, int(r.players), "attack_held", str(r.attack), null, not never)
        out.append(Finding("attacks", f"attack {r.attack} at {r.players} players",
                           f"Attack {r.attack} (strength {r.strength}) is {words} with {who.get(r.players, 'these seats')}: "
                           f"at {r.players} players {_fmt(r.held, r.held_lo, r.held_hi, 'rate')} of {int(r.n):,} seats "
                           f"held it, in the {games:,} games it came ({'below 1%' if never else 'above 99%'} of seats).",
                           r.held, r.held_lo, r.held_hi, null, f"{100 * null:.0f}% of seats", "rate", games,
                           eff if (r.held < null) == never else -eff, bool(stated), verdict, strength))  # fmt: skip
    return out


def _wall_bonus(ctx: Context) -> list[Finding]:
    """Per player count, the most against the least valuable wall bonus on the at-a-glance games."""
    out = []
    main = ctx.data.main()
    for players, i in glance_sources(main).items():
        sub = main.select([i])
        t = A.bonus_value(sub).dropna(subset=["vp_difference_lo"])
        if len(t) < 2:
            continue
        most, least = t.loc[t["vp_difference"].idxmax()], t.loc[t["vp_difference"].idxmin()]
        a = (most.vp_difference, most.vp_difference_lo, most.vp_difference_hi)
        b = (least.vp_difference, least.vp_difference_lo, least.vp_difference_hi)
        stated = a[1] > b[2]
        verdict, strength = _wall_check(ctx, players, str(most.side))
        out.append(Finding("wall_bonus", f"the {most.side} side at {players} players",
                           f"The most valuable wall bonus is the {most.side} side's ({most.bonus}): at {players} players "
                           f"seats that complete it end {_fmt(*a, 'vp', signed=True)} ahead of seats that do not, "
                           f"against {_fmt(*b, 'vp', signed=True)} for the least valuable, the {least.side} side's "
                           f"({least.bonus}) ({sub.n_games:,} games, {_who(sub.sources[0].field)}; an association, "
                           "not a cause).",
                           *a, b[0], f"the {least.side} side's {_fmt(*b, 'vp', signed=True)}", "vp", sub.n_games,
                           abs(effect_size(a, b, False, int(most.completers), int(least.completers))[0]), bool(stated),
                           verdict, strength))  # fmt: skip
    return out


def _wall_check(ctx: Context, players: int, side: str) -> tuple[str, str]:
    """The most valuable side across strengths of play: whether it is the most valuable at every
    level, and the ladder's verdict of its value."""
    verdict, said_once = strength_check(ctx, players, "wall_bonus", side, 0.0, True)
    v = ctx.verdicts
    if verdict == NO_CHECK:
        return verdict, said_once
    rows = v[(v["players"] == players) & (v["figure"] == "wall_bonus")]
    row = rows[rows["item"] == side].iloc[0].to_dict()
    said = []
    for k in LA.measured_levels(row)[1:]:
        values = rows.set_index("item")[f"L{k}"].dropna()
        top = str(values.idxmax()) if len(values) else ""
        value = LA.level_value(row, k)
        if top == side:
            said.append(f"{LA.level_words(k, row[f'L{k}_policy'])} the {side} side's is the most valuable too ({value})")
        else:
            other = rows[rows["item"] == top].iloc[0].to_dict()
            said.append(f"{LA.level_words(k, row[f'L{k}_policy'])} the {top} side's is the most valuable "
                        f"({LA.level_value(other, k)}), the {side} side's worth {value}")  # fmt: skip
    return verdict, _across(" and ".join(said), "its value", verdict, row["direction"], row["reason"])


def _strongest_policy(ctx: Context) -> list[Finding]:
    out = []
    for src in ctx.data.main().sources:
        pol, pairs = src.comparison.get("policies"), src.comparison.get("pairs")
        if src.kind != "compare" or pol is None or pairs is None or len(pol) < 2:
            continue
        ranked = pol.reset_index().sort_values("win_share", ascending=False)
        best, second = ranked.iloc[0], ranked.iloc[1]
        a, b = str(best["policy"]), str(second["policy"])
        row = pairs[(pairs["a"] == a) & (pairs["b"] == b)]
        sign = 1.0
        if row.empty:
            row, sign = pairs[(pairs["a"] == b) & (pairs["b"] == a)], -1.0
        if row.empty:
            continue
        d, lo, hi = (sign * float(row[c].iloc[0]) for c in ("vp_diff", "lo", "hi"))
        lo, hi = min(lo, hi), max(lo, hi)
        out.append(Finding("strongest_policy", f"{src.players} players",
                           f"`{a}` is the strongest heuristic at {src.players} players: its seats win "
                           f"{_fmt(best.win_share, best.win_lo, best.win_hi, 'rate')} of their games, and their VP "
                           f"margin over the runner-up `{b}` in the same blocks is {_fmt(d, lo, hi, 'vp', signed=True)} "
                           f"per game ({_games(src.games)}, every seat arrangement on shared dice).",
                           d, lo, hi, 0.0, "no difference (0 VP)", "vp", src.games,
                           effect(d, lo, hi, 0.0, "vp", int(row["blocks"].iloc[0])),
                           not (lo <= 0.0 <= hi), NO_CHECK,
                           "No strength check applies: it compares heuristics with one another, not a figure of the "
                           "game at one strength of play (section \"How much skill matters\" sets the levels "
                           "against each other)."))  # fmt: skip
    return out


def _ladder_sets(ctx: Context) -> dict[tuple[int, str], tuple[int, object, pd.DataFrame]]:
    """The variant sets played with a ladder policy in every seat, by (players, policy): (level, set, table)."""
    out = {}
    for vs, t in zip(ctx.variants, ctx.variant_tables):
        names = set(vs.policies)
        if len(names) == 1 and next(iter(names)) in A.LADDER:
            out[vs.players, next(iter(names))] = (A.LADDER.index(next(iter(names))) + 1, vs, t)
    return out


def _variant_check(ctx: Context, vs, variant: str, metric: str, diff: float, unit: str) -> tuple[str, str]:
    """A variant's effect across strengths of play: the same variant's effect on the same metric in
    a sweep of another ladder level (same players), judged as the ladder judges a figure."""
    policy = vs.policies[0] if len(set(vs.policies)) == 1 else None
    sets = _ladder_sets(ctx)
    if policy not in A.LADDER or not any(p == vs.players and q != policy for p, q in sets):
        return NO_CHECK, (f"No strength check was possible: the variants were played with `{vs.policies[0]}` "
                          "alone." if policy else "No strength check was possible: the variants were played with "
                          "mixed seats.")  # fmt: skip
    levels: list[tuple[int, str, tuple]] = []
    for (p, q), (level, other, t) in sorted(sets.items(), key=lambda x: x[1][0]):
        if p != vs.players:
            continue
        r = t[(t["variant"] == variant) & (t["metric"] == metric)]
        if len(r):
            levels.append((level, q, (unit if unit != "points" else "vp", float(r["diff"].iloc[0]),
                                      float(r["diff_lo"].iloc[0]), float(r["diff_hi"].iloc[0]), other.games)))  # fmt: skip
    if len(levels) < 2:
        return NO_CHECK, "No strength check was possible: no sweep of another level plays this variant."
    verdict, direction, reason = LA.judge([x[2] for x in levels])
    above = diff > 0
    parts = [f"{_holds(x[1], x[2], x[3], 0.0, above)} {LA.level_words(k, q)} ({_fmt(x[1], x[2], x[3], unit, signed=True)})"
             for k, q, x in levels[1:]]  # fmt: skip
    return verdict, _across(f"the effect {' and '.join(parts)}", "its size", verdict, direction, reason)


def _variant(ctx: Context) -> list[Finding]:
    """Per variant, its largest effect on a headline figure (its paired difference from the baseline)."""

    out = []
    for vs, t in zip(ctx.variants, ctx.variant_tables):
        base = t[t["variant"] == "baseline"].set_index("metric")
        rows = t[t["metric"].isin(HEADLINE) & (t["variant"] != "baseline")]
        who = f"`{vs.policies[0]}` in every seat" if len(set(vs.policies)) == 1 else "mixed seats"
        for variant, rv in rows.groupby("variant", sort=False):
            found = []
            for r in rv.itertuples():
                if not np.isfinite(r.diff_lo):
                    continue
                b = base.loc[r.metric]
                verdict, strength = _variant_check(ctx, vs, variant, r.metric, r.diff, r.unit)
                found.append(Finding("variant", f"{variant} ({vs.policies[0]})",
                                     f"The rule variant with the largest effect is {variant}: it moves \"{r.label}\" "
                                     f"by {_fmt(r.diff, r.diff_lo, r.diff_hi, r.unit, signed=True)} from the "
                                     f"baseline's {_fmt(b.value, b.lo, b.hi, r.unit)} ({vs.players} players, {who}, "
                                     f"{vs.games:,} games of each of {len(vs.variants) - 1} variants"
                                     f"{', on the same dice' if vs.paired else ''}).",
                                     r.diff, r.diff_lo, r.diff_hi, 0.0, "no difference from the baseline", r.unit,
                                     int(vs.games), effect(r.diff, r.diff_lo, r.diff_hi, 0.0, r.unit,
                                                           int(vs.games), float(b.value)),
                                     not (r.diff_lo <= 0.0 <= r.diff_hi), verdict, strength))  # fmt: skip
            if found:
                out.append(max(found, key=lambda f: (f.stated, _rank(f))))
    return out


def rounds_words(d: float, lo: float, hi: float) -> str:
    """A paired change of game length in words: "its games end 4.85 rounds [4.82, 4.88] sooner"."""
    if not all(np.isfinite(x) for x in (d, lo, hi)):
        return "its game length is not measured"
    if lo <= 0 <= hi:
        return f"its games last as long as the baseline's ({_fmt(d, lo, hi, 'rounds', signed=True)})"
    way, (a, b) = ("sooner", (-hi, -lo)) if d < 0 else ("later", (lo, hi))
    return f"its games end {_fmt(abs(d), a, b, 'rounds')} {way}"


SKILL_NOTE = ("No strength check applies: the skill gap is itself a comparison of two strengths of play (one "
              "`learned` seat against `balanced`).")  # fmt: skip


def _skill_gap(ctx: Context) -> list[Finding]:
    """Per player count, the skill gap: one L2 seat against L1 in every other seat, minus parity."""
    out = []
    for res in ctx.skills:
        gap = res.gap()
        if gap is None:
            continue
        g, lo, hi, games = gap
        parity = 1.0 / res.players
        out.append(Finding("skill_gap", f"{res.players} players",
                           f"Skill matters: at {res.players} players one `learned` seat among `balanced` wins "
                           f"{_fmt(parity + g, parity + lo, parity + hi, 'rate')} against parity "
                           f"{100 * parity:.1f}%, a skill gap of {_fmt(g, lo, hi, 'points', signed=True)} "
                           f"({games:,} games, every seat rotation on shared dice).",
                           g, lo, hi, 0.0, "no gap (parity)", "points", games,
                           effect(g, lo, hi, 0.0, "points", games, base=parity), not (lo <= 0.0 <= hi), NO_CHECK,
                           SKILL_NOTE))  # fmt: skip
    return out


def _skill_variant(ctx: Context) -> list[Finding]:
    """Per variant of a skill study, its paired change of the skill gap."""
    out = []
    for res in ctx.skills:
        t = res.gaps
        if len(t) < 2:
            continue
        base = t.iloc[0]
        parity = 1.0 / res.players
        for r in t.iloc[1:].itertuples():
            if not np.isfinite(r.diff_lo):
                continue
            more = "more" if r.diff > 0 else "less"
            rounds = f"; {rounds_words(r.rounds_diff, r.rounds_diff_lo, r.rounds_diff_hi)}"
            out.append(Finding("skill_variant", f"{r.variant} at {res.players} players",
                               f"The rule variant that moves the skill gap most is {r.variant} ({r.changes}): it makes "
                               f"the game {more} a game of skill, moving the gap by "
                               f"{_fmt(r.diff, r.diff_lo, r.diff_hi, 'points', signed=True)} from the baseline's "
                               f"{_fmt(base.gap, base.gap_lo, base.gap_hi, 'points', signed=True)} ({res.players} "
                               f"players, {int(r.blocks) * res.players:,} games per variant on the same dice{rounds}).",
                               r.diff, r.diff_lo, r.diff_hi, 0.0, "no change of the skill gap", "points",
                               int(r.blocks) * res.players,
                               effect(r.diff, r.diff_lo, r.diff_hi, 0.0, "points", int(r.blocks), base=parity + base.gap),
                               not (r.diff_lo <= 0.0 <= r.diff_hi), NO_CHECK, SKILL_NOTE))  # fmt: skip
    return out


@dataclass(frozen=True)
class Candidate:
    key: str
    title: str  # what the family asks, for the "cannot tell" lines
    section: str  # the report section that holds its data
    find: Callable[[Context], list[Finding]]


CANDIDATES: tuple[Candidate, ...] = (
    Candidate("start_edge", "the start player's edge", "At a glance", _start_edge),
    Candidate("cannons", "how often cannon losses change the winner", "Pirate losses", _cannons),
    Candidate("attacks", "attacks never or always held", "Pirate losses", _attacks),
    Candidate("wall_bonus", "the most and the least valuable wall bonus", "Wall bonuses", _wall_bonus),
    Candidate("strongest_policy", "the strongest heuristic and its margin", "Heuristics compared", _strongest_policy),
    Candidate("variant", "a rule variant's largest effect", "Rule variants", _variant),
    Candidate("skill_gap", "how much skill matters", "How much skill matters", _skill_gap),
    Candidate("skill_variant", "a rule variant's effect on the skill gap", "How much skill matters", _skill_variant),
)
"""The fixed list of candidate findings, in no particular order: the report orders them by effect."""


@dataclass
class Findings:
    """The outcome: the stated findings in order (at most ``MAX_FINDINGS``), the further stated ones
    left out by the cap, per family the strongest instance that is not stated (the data cannot
    tell), and the families these data do not measure."""

    stated: list[tuple[Candidate, Finding, list[Finding]]]  # (family, strongest, the other stated instances)
    more: list[tuple[Candidate, Finding]]
    cannot_tell: list[tuple[Candidate, Finding]]
    not_measured: list[Candidate]


def _rank(f: Finding) -> float:
    return f.effect if np.isfinite(f.effect) else -1.0


def key_findings(data: A.ReportData, variants: list = (), variant_tables: list | None = None,
                 skills: list = (), verdicts: pd.DataFrame | None = None) -> Findings:  # fmt: skip
    """Every candidate family evaluated on these data, the stated ones ordered by effect size, each
    with its verdict across strengths of play (``verdicts``: ``ladder.ladder_verdicts`` of these
    data, computed here where not given)."""
    if variant_tables is None:
        variant_tables = [vs.table() for vs in variants]
    if verdicts is None:
        verdicts = LA.ladder_verdicts(LA.ladder_table(data))
    ctx = Context(data, list(variants), list(variant_tables), verdicts, list(skills))
    stated, cannot, missing = [], [], []
    for c in CANDIDATES:
        found = c.find(ctx)
        if not found:
            missing.append(c)
            continue
        yes = sorted([f for f in found if f.stated], key=_rank, reverse=True)
        if yes:
            stated.append((c, yes[0], yes[1:]))
        else:
            cannot.append((c, max(found, key=_rank)))
    stated.sort(key=lambda s: _rank(s[1]), reverse=True)
    return Findings(stated[:MAX_FINDINGS], [(c, f) for c, f, _ in stated[MAX_FINDINGS:]], cannot, missing)
