"""The report of a study (``smsim study``): what a rules configuration changes from the printed
rules, figure by figure, each change with its verdict, at every player count and level of play.

The first screen names the rules file and the printed rules it is compared with, gives the design
verdicts a line each (the levels of play together: ``intervals.across_bots``) and names what is not
settled with about the games it needs. Then one section per topic (the seats, the pirates, the
length, the wall bonuses, skill, the church series and walls), each a figure of the changes with
their margins and a table; then how the study was played (its rounds) and the two rules side by
side. Built on the report's one renderer (``report.render``) and written by ``write.write_page``.
"""

from __future__ import annotations

import datetime as _dt
import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from smsim import __version__
from smsim.intervals import BOT_DEPENDENT, HOLDS, MISSING, MOVES, NOT_SETTLED, SAME, across_bots, interval_text
from smsim.report.render import Block, Page, Section
from smsim.report.studies import compensation_section
from smsim.rules import FIELD_MEANING, Rules
from smsim.studies.fairness import read_fairness
from smsim.studies.study import (
    ADAPT,
    OUT_OF_TIME,
    PLAYING,
    SETTLED,
    STUDY,
    StudyResult,
    fairness_folders,
    rules_named,
    settling,
)

TOPICS = (  # section title, its figures, what it answers
    (
        "The seats and the start player",
        ("start_edge", *(f"win_seat_{s}" for s in range(5))),
        "Is the start player advantaged, and how do the seats fare?",
    ),
    (
        "The pirates",
        ("cannons_changed_winner", "cannons_lost", "vp_cannon_vp"),
        "How often do the pirates decide a game, and what do they cost?",
    ),
    ("Game length", ("rounds",), "How long does a game last?"),
    ("Wall bonuses", ("bonus_top", "bonus_right", "bonus_bottom", "bonus_left"), "What is each wall bonus worth?"),
    ("Skill", ("skill_gap",), "How much does the stronger level win by?"),
    (
        "Church series and walls",
        ("vp_total", "vp_church_vp", "church_vp_share", "longest_series", "sides_completed"),
        "How are the points made?",
    ),
)
FIRST_SCREEN = "What these rules change"
FIRST_SCREEN_PRINTED = "The printed rules in a minute"  # the first screen's title with nothing to compare
PLAYED_TITLE = "How the study was played"
STOPPED_WORDS = {
    SETTLED: "every headline verdict settled",
    OUT_OF_TIME: "its time was spent",
    "max games": "an arm reached its most games (--max-games)",
    PLAYING: "it was stopped inside a round",
}
RULE = (
    "Every bracket [low, high] on this page is a 95% confidence sequence (intervals.cs_interval): it holds "
    "whenever the study stopped, so the study could look after every round. A change is *the same* where its "
    "bracket lies inside ± the smallest change that matters (1 point of a rate, 0.5 VP, 0.25 rounds: docs/report.md), "
    "*moves* where it lies wholly beyond it, *not settled* otherwise; with levels of play together, *holds for every "
    "bot*, *bot-dependent* where one level's change moves and another's does not (intervals.across_bots)."
)


def _scale(unit: str) -> dict:
    """How a figure of ``unit`` is written: rates and points in points, VP, rounds, counts."""
    if unit in ("rate", "points", "share"):
        return {"scale": 100.0, "unit": " points", "digits": 1}
    if unit == "vp":
        return {"scale": 1.0, "unit": " VP", "digits": 2}
    if unit == "rounds":
        return {"scale": 1.0, "unit": " rounds", "digits": 2}
    return {"scale": 1.0, "unit": "", "digits": 2}


def _text(row, tag: str, signed: bool) -> str:
    s = _scale(row["unit"])
    guard = (-row["margin"], 0.0, row["margin"]) if signed else ()
    return interval_text(row[tag], row[f"{tag}_lo"], row[f"{tag}_hi"], signed=signed, guard=guard, **s)


def _value_text(row, tag: str) -> str:
    """A value under one rules: a rate in percent, the rest as ``_scale`` writes it."""
    if row["unit"] == "rate":
        return interval_text(row[tag], row[f"{tag}_lo"], row[f"{tag}_hi"], scale=100.0, unit="%")
    signed = row["figure"] in ("start_edge", "skill_gap") or row["figure"].startswith("bonus_")
    return interval_text(row[tag], row[f"{tag}_lo"], row[f"{tag}_hi"], signed=signed, **_scale(row["unit"]))


def _level(result: StudyResult, level: str) -> str:
    plan = result.plan
    if level == plan.adapted_level:
        return f"L1 adapted ({plan.levels[0]} tuned on these rules)"
    k = list(plan.levels).index(level) if level in plan.levels else -1
    return f"L{k + 1} {level}" if k >= 0 else level


def extra_sections(result: StudyResult) -> list[Section]:
    """The sections of the study's optional parts: the adapted bot (``--adapt``) and the seat
    compensation (``--fairness``, the balance report's own section)."""
    out = []
    plan = result.plan
    if plan.adapt:
        bot = result.bot
        sec = Section(
            "The bot adapted to these rules",
            f"{plan.levels[0]}'s weights tuned again on these rules (smsim/studies/adapt.py: CMA-ES, "
            f"{ADAPT.budget} candidates of {ADAPT.games:,} games against {plan.levels[0]}), then checked against "
            f"{plan.levels[0]} on {ADAPT.held_out_games:,} held-out games. Where it beats {plan.levels[0]} it is "
            "played as a level of its own, each rules by the bot tuned for it (the printed rules by "
            f"{plan.levels[0]}), so that each change is also judged for players who know the rules.",
        )
        if bot is None:
            sec.blocks.append(Block("missing", text="Not tuned: these are the printed rules, or the study stopped."))
        else:
            sec.blocks.append(Block("text", text=bot.sentence() + "."))
        out.append(sec)
    folders = fairness_folders(plan, Path(result.path))
    found = [read_fairness(f) for f in folders if (f / "fairness.json").is_file()]
    if found:
        sec, short = compensation_section(found)
        if short:
            sec.blocks.insert(0, Block("list", text="In short", items=short))
        out.append(sec)
    return out


def verdict_lines(result: StudyResult) -> list[tuple[str, str, str]]:
    """One line per headline figure and player count, the levels together: (line, verdict across
    the levels, topic). The verdict is ``across_bots``' (one level: its own, ``holds`` for settled)."""
    t = result.table
    head = t[t["headline"]]
    out = []
    for (p, key, kind), rows in head.groupby(["players", "figure", "kind"], sort=False):
        change = kind == "change"
        judged = "change" if change else "study"
        first = rows.iloc[0]
        intervals = [(r[judged], r[f"{judged}_lo"], r[f"{judged}_hi"]) for _, r in rows.iterrows()]
        said, _, _ = across_bots(intervals, float(first["margin"]))
        parts = [f"{_text(r, judged, True)} ({_level(result, r['level'])})" for _, r in rows.iterrows()]
        what = first["label"].split(" (")[0]
        if said == NOT_SETTLED:
            more = max(
                int(r["games_needed"]) - int(r["games"]) for _, r in rows.iterrows() if r["verdict"] == NOT_SETTLED
            )
            verdict = f"not settled (about {_games(more)} more games)"
        elif said == BOT_DEPENDENT:
            verdict = "bot-dependent: the levels of play disagree (one beyond the margin where another is within it or "
            verdict += "on the other side of 0)"
        else:
            verdict = _settled_words(rows["verdict"].iloc[0], bool(change), len(rows))
        out.append(
            (f"{what} at {p} players{', change' if change else ''}: {'; '.join(parts)}: {verdict}.", said, _topic(key))
        )
    return out


def _settled_words(verdict: str, change: bool, levels: int) -> str:
    return _verdict_word(verdict, "change" if change else "value") + (" for every level of play" if levels > 1 else "")


def _verdict_word(verdict: str, kind: str) -> str:
    """A change is the same or moves; a value (a bonus's worth, the edge of the printed rules alone)
    lies within the margin of nothing or beyond it."""
    if kind == "change" or verdict == NOT_SETTLED:
        return verdict
    return "within the margin" if verdict == SAME else "beyond the margin"


def _games(n: int) -> str:
    """About how many games: two significant figures (an estimate from the spread so far)."""
    if n >= 10_000_000:
        return "more than 10,000,000"
    return f"{int(float(f'{n:.2g}')):,}"


def _topic(key: str) -> str:
    return next((title for title, keys, _ in TOPICS if key in keys), TOPICS[-1][0])


def changes_figure(rows: pd.DataFrame, title: str, compares: bool) -> tuple[Figure, str] | None:
    """The figures of one topic, a panel each: every player count and level a row, its change (or
    value) with its bracket, the margin shaded around 0."""
    judged = "change" if compares else "study"
    rows = rows[rows["kind"] == ("change" if compares else "value")]
    keys = list(dict.fromkeys(rows["figure"]))
    if rows.empty or rows[judged].isna().all():
        return None
    fig = Figure(figsize=(max(3.6 * len(keys), 6.0), 1.4 + 0.35 * len(rows) / max(1, len(keys))), layout="constrained")
    axes = fig.subplots(1, len(keys), squeeze=False)[0]
    fig.suptitle(title)
    for ax, key in zip(axes, keys):
        r = rows[rows["figure"] == key]
        scale = _scale(r["unit"].iloc[0])["scale"]
        labels = [f"{p}p {lv}" for p, lv in zip(r["players"], r["level"])]
        y = np.arange(len(r))[::-1]
        x = r[judged].to_numpy(float) * scale
        err = np.vstack([x - r[f"{judged}_lo"] * scale, r[f"{judged}_hi"] * scale - x])
        margin = float(r["margin"].iloc[0]) * scale
        ax.axvspan(-margin, margin, color="#dddddd", zorder=0)
        ax.axvline(0, color="grey", ls="--", lw=0.8)
        ax.errorbar(x, y, xerr=np.nan_to_num(np.clip(err, 0, None)), fmt="o", capsize=3, color="#4c72b0")
        ax.set_yticks(y, labels, fontsize="small")
        ax.set_title(r["label"].iloc[0].split(" (")[0], fontsize="small")
        unit = _scale(r["unit"].iloc[0])["unit"].strip() or "per seat"
        ax.set_xlabel(("change from the printed rules" if compares else "value") + f" ({unit})", fontsize="small")
    what = "change from the printed rules" if compares else "value"
    return fig, (
        f"Each figure's {what} with its 95% confidence sequence, a row per player count and level of play; the "
        "grey band is ± the smallest change that matters, the dashed line no change."
    )


def _one_row_each(rows: pd.DataFrame) -> pd.DataFrame:
    """A figure judged both as a value and as a change (a bonus's value, the skill gap) holds the
    same numbers twice: the table shows the headline row."""
    key = ["players", "level", "figure"]
    return rows.sort_values("headline", ascending=False, kind="stable").drop_duplicates(key).sort_index()


def _shown(rows: pd.DataFrame, result: StudyResult) -> pd.DataFrame:
    compares = result.plan.compares
    out = pd.DataFrame(
        {
            "players": rows["players"].astype(int).to_numpy(),
            "level": [_level(result, lv) for lv in rows["level"]],
            "figure": [lb.split(" (")[0] for lb in rows["label"]],
        }
    )
    out["these rules"] = [_value_text(r, "study") for _, r in rows.iterrows()]
    if compares:
        out["printed rules"] = [_value_text(r, "printed") for _, r in rows.iterrows()]
        out["change"] = [_text(r, "change", True) for _, r in rows.iterrows()]
    out["games"] = [f"{int(g):,}" for g in rows["games"]]
    out["verdict"] = [
        _verdict_word(v, k) + ("" if v != NOT_SETTLED else f" (about {_games(int(n) - int(g))} more games)")
        if h
        else ""
        for v, k, n, g, h in zip(rows["verdict"], rows["kind"], rows["games_needed"], rows["games"], rows["headline"])
    ]
    return out


def _rules_table(result: StudyResult) -> pd.DataFrame:
    mine, printed = result.rules.to_dict(), Rules().to_dict()
    rows = []
    for k in dict.fromkeys([*printed, *mine]):
        row = {"rule": k, "these rules": str(mine.get(k, "")), "printed rules": str(printed.get(k, ""))}
        row["changed"] = "yes" if mine.get(k) != printed.get(k) else ""
        row["what it is"] = FIELD_MEANING.get(k, "")
        rows.append(row)
    return pd.DataFrame(rows)


def _arms_table(result: StudyResult) -> pd.DataFrame:
    """Every arm with the games it holds (read from its chunks, not from the rounds' plans)."""
    arms = result.plan.arms()
    return pd.DataFrame(
        [
            {
                "dataset": a.key,
                "kind": a.kind,
                "players": a.players,
                "level": a.level if a.kind != "skill" else f"{a.level} among {a.lower}",
                "rules": "these rules" if a.rules == STUDY else "printed rules",
                "games": int(result.arm_games.get(a.key, 0)),
                "seed": result.plan.seed,
            }
            for a in arms
        ]
    )


def study_page(result: StudyResult, title: str | None = None) -> Page:
    """The study's page (module docstring)."""
    plan = result.plan
    name = result.source or plan.name or rules_named(plan.rules)
    changed = rules_named(plan.rules)
    title = title or (
        f"Saint Malo: {name} against the printed rules" if plan.compares else "Saint Malo: the printed rules"
    )
    lines = verdict_lines(result)
    t = result.table
    compares_line = (
        f"These rules ({name}: {changed}) are compared with the printed rules (docs/rules.md) on the same dice, "
        "game by game."
        if plan.compares
        else "The printed rules (docs/rules.md) alone: nothing to compare with, so the verdicts judge each figure "
        "itself against its margin."
    )
    unsettled = [ln for ln, said, _ in lines if said == NOT_SETTLED]
    stopped = STOPPED_WORDS.get(result.stopped, result.stopped)
    levels = ", ".join(_level(result, lv) for lv in plan.played_levels)
    opening = Section(
        FIRST_SCREEN if plan.compares else FIRST_SCREEN_PRINTED,
        f"{compares_line} Levels of play: {levels}. The study stopped because {stopped}. "
        "Every bracket [low, high] on this page is a 95% confidence sequence.",
        [Block("list", text="Design verdicts", items=[ln for ln, said, _ in lines if said != NOT_SETTLED])],
    )
    if unsettled:
        opening.blocks.append(Block("list", text="Not settled", items=unsettled))
    sections = []
    for topic, keys, question in TOPICS:
        rows = t[t["figure"].isin(keys)]
        if rows.empty:
            continue
        slug = topic.lower().replace(" ", "-")
        sec = Section(topic, question)
        made = changes_figure(rows, topic, plan.compares)
        if made is not None:
            sec.blocks.append(Block("figure", text=made[1], name=f"study-{slug}", figure=made[0]))
        rows = _one_row_each(rows)
        sec.blocks.append(
            Block("table", text=topic, name=f"study_{slug.replace('-', '_')}", table=rows, shown=_shown(rows, result))
        )
        sections.append(sec)
    sections += extra_sections(result)
    played = Section(
        PLAYED_TITLE,
        "The study played in rounds: each round gave games only to the arms of the figures not yet settled, about the "
        "games each needed, at most four times what it had (smsim/studies/study.py). The same command plays the same "
        "rounds on any machine; a stopped study resumes inside its round.",
    )
    if len(result.rounds):
        per_round = result.rounds.groupby("round", as_index=False)["games"].sum()
        played.blocks.append(Block("table", text="Games a round", name="study_rounds", table=per_round))
        took = settling(result)
        if len(took):
            shown = pd.DataFrame(
                {
                    "players": took["players"],
                    "level": [_level(result, lv) for lv in took["level"]],
                    "figure": took["figure"] + [" (change)" if k == "change" else "" for k in took["kind"]],
                    "settled after round": [MISSING if r is None or r != r else int(r) for r in took["round"]],
                    "games": [MISSING if g != g else f"{int(g):,}" for g in took["games"]],
                    "verdict": took["verdict"],
                }
            )
            played.blocks.append(
                Block(
                    "table",
                    text="The games each headline figure took to settle",
                    name="study_settling",
                    table=took,
                    shown=shown,
                )
            )
    sections.append(played)
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    seconds = result.seconds if math.isfinite(result.seconds) else 0.0
    minutes = "–" if not seconds else f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} minutes"
    made = (
        f"Made by smsim {__version__} on {now} from {result.games:,} games in {result.rounds['round'].nunique()} "
        f"rounds ({minutes} of play in the last sitting): `{result.command or 'smsim.studies.study.run_study'}`."
    )
    findings = [(ln, topic) for ln, _, topic in lines]
    return Page(
        title=title,
        made=made,
        findings=findings,
        notes=[],
        findings_rule=RULE,
        sections=sections,
        datasets=_arms_table(result),
        rules=_rules_table(result),
        closing="Brackets are 95% confidence sequences over independent games (intervals.cs_interval).",
        opening=[opening],
    )


STUDIES_TITLE = "Rule changes studied"
PRINTED_STUDIED_TITLE = "The printed rules, played until settled"


def study_section(results: list[StudyResult]) -> tuple[Section, list[str]]:
    """The balance report's section on studies of rule changes (``smsim study`` folders given to
    ``smsim report``): each study's design verdicts and its headline table, and its lines "In short"
    (what each changes, and how many of its verdicts settled)."""
    sec = Section(
        STUDIES_TITLE,
        "Rules files studied against the printed rules with `smsim study` (on common dice, until every headline "
        "verdict settled or the time was up; brackets are 95% confidence sequences). Each study's own report "
        "has every figure.",
    )
    if not any(r.plan.compares for r in results):  # the printed rules' own study (make report)
        sec.title = PRINTED_STUDIED_TITLE
        sec.intro = (
            "The printed rules' headline figures played with `smsim study` until their verdicts settled or the time "
            "was up (the start player's edge, each wall bonus's value, the skill gap; brackets are 95% confidence "
            "sequences)."
            + (" The wall bonuses' values above are its bonus arms' games." if any(r.balance for r in results) else "")
        )
    short = []
    for k, result in enumerate(results):
        name = result.source or result.plan.name or rules_named(result.rules)
        lines = verdict_lines(result)
        settled = sum(1 for _, said, _ in lines if said != NOT_SETTLED)
        changes = rules_named(result.rules)
        short.append(f"{name}{'' if name == changes else f' ({changes})'}: {settled} of {len(lines)} verdicts settled.")
        sec.blocks.append(Block("list", text=name, items=[ln for ln, _, _ in lines]))
        head = _one_row_each(result.table[result.table["headline"]])
        sec.blocks.append(
            Block(
                "table",
                text=f"{name}: the headline figures",
                name=f"study_{k}_headline",
                table=head,
                shown=_shown(head, result),
            )
        )
    return sec, short


__all__ = ["HOLDS", "MOVES", "study_page", "study_section", "verdict_lines"]
