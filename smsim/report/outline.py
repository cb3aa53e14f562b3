"""The outline of the report: which sections, in which order, under which titles; the at-a-glance
section, the key findings with the notes under them, the line that says what the report stands on
and the "Data and rules" tables. ``page`` builds the whole :class:`~smsim.report.render.Page`;
``report.write`` draws and writes it."""

from __future__ import annotations

import datetime as _dt

import numpy as np
import pandas as pd

from smsim import __version__
from smsim.intervals import MARGINS, MISSING, interval_text
from smsim.report import findings as F
from smsim.report import ladder as LA
from smsim.report import plots as P
from smsim.report import tables as A
from smsim.report.render import Block, Page, Section
from smsim.report.sections import figure_block, game_sections
from smsim.report.strength import ladder_blocks, strength_blocks
from smsim.report.studies import compensation_section, skill_section, variants_section
from smsim.studies.skill import ordered_levels

GLANCE_HEADINGS = {"players": "players", "games": "games", "field": "at the table",
                   "start_win": "start player wins [95% CI]", "last_win": "last seat wins [95% CI]",
                   "parity": "parity", "changed": "cannons change the winner [95% CI]",
                   "rounds": "rounds [95% CI]"}  # fmt: skip

FINDINGS_RULE = (
    "The findings answer a designer's questions in the order asked, each in one sentence with its sizes and 95% "
    "intervals. An effect is stated only where its interval clears the smallest change that matters (1 point of a "
    "rate, 0.5 VP, 0.25 rounds: docs/report.md), said to be no larger than that margin where its interval lies "
    "inside it, and not settled otherwise. A variant's effect on the count its own rule changes is mechanical and "
    "left out; variants are ranked by their change over the spread of the per-game quantity it describes "
    "(smsim/report/findings.py). Every sentence here is generated from the data."
)


def glance_shown(t: pd.DataFrame) -> pd.DataFrame:
    """The at-a-glance table as the page shows it."""
    d = pd.DataFrame({"players": t["players"].astype(int), "games": [f"{int(g):,}" for g in t["games"]],
                      "field": [A.short_field(str(f)) for f in t["field"]]})  # fmt: skip
    for name in ("start_win", "last_win"):
        d[name] = [interval_text(v, lo, hi, **A.RATE) if np.isfinite(v) else
                   f"{MISSING} (seats and policies confounded)"
                   for v, lo, hi in zip(t[name], t[f"{name}_lo"], t[f"{name}_hi"])]  # fmt: skip
    d["parity"] = [f"{100 * p:.1f}%" for p in t["parity"]]
    d["changed"] = [interval_text(v, lo, hi, **A.RATE)
                    for v, lo, hi in zip(t["changed"], t["changed_lo"], t["changed_hi"])]
    d["rounds"] = [interval_text(v, lo, hi, digits=2) for v, lo, hi in zip(t["rounds"], t["rounds_lo"], t["rounds_hi"])]
    return d.rename(columns=GLANCE_HEADINGS)


def opening(found: list, skills: list, glance: pd.DataFrame, rules) -> Section:
    """The first screen: the design verdicts a line each (``findings.first_screen_lines``), the
    levels of play in a sentence, and one picture of the game (``plots.median_game_figure``: at 4
    players where the report has them, else at its largest player count)."""
    counts = [int(p) for p in glance["players"]]
    players = 4 if 4 in counts or not counts else max(counts)
    fig, caption = P.median_game_figure(players, A.LADDER[0], rules=rules)
    return Section(F.FIRST_SCREEN_TITLE, "The answers of the key findings below, a line each; where an effect is "
                   "within its margin (the smallest change that matters) the line says so.", [
                       Block("list", text="Design verdicts", items=F.first_screen_lines(found, skills)[:-1]),
                       Block("text", text=F.first_screen_lines(found, skills)[-1]),
                       Block("figure", text=caption, name="median-game", figure=fig)])  # fmt: skip


def levels_section(skills: list) -> Section:
    """What each level of play is and how strong, each against the one below (``findings.levels_lines``)."""
    return Section("Levels of play", f"The report measures the game at three strengths of play ({F.POLICIES_DOC}). "
                   "Each level is set against the one below head to head (`smsim skill`: one seat of the upper "
                   "level among the lower in every other seat, every seat rotation on common dice). Where that "
                   "interval holds parity, the two levels are not ordered: the report calls a difference between "
                   f"them {F.strength_words(False)}.", [Block("list", text="The levels", items=F.levels_lines(skills))])  # fmt: skip


def games_line(data: A.ReportData, variants: list, compensations: list, skills: list = ()) -> str:
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


INTERVALS_NOTE = ("Intervals are 95%: Wilson intervals for rates, normal intervals for means, treating seats and "
                  "games as independent (the games of one comparison block share their dice; the comparison's own "
                  "tables use block intervals).")  # fmt: skip
"""The page's last words."""


def page(data: A.ReportData, title: str = "Saint Malo balance report", variants: list = (),
         compensations: list = (), skills: list = (), margins: dict[str, float] = MARGINS) -> Page:  # fmt: skip
    """The whole report, in the order of the page: the first screen (``opening``), the key findings
    in a designer's order (``findings.report_findings``), the levels of play, the at-a-glance table, the strength check and
    the headline figure, then the sections on the game, each opening with its ladder
    (``report.ladder``), then the sections on the studies, then the data and rules. ``margins``:
    the smallest change that matters per unit (``intervals.MARGINS``), which every verdict by size
    judges against."""
    variants, compensations, skills = list(variants), list(compensations), list(skills)
    variant_tables = [vs.table() for vs in variants]
    main = data.main()
    ladder = LA.ladder_table(data)
    ordered = {int(p): ordered_levels(skills, int(p)) for p in ladder["players"].unique()}
    verdicts = LA.ladder_verdicts(ladder, margins, ordered)  # once: the ladders read it
    found = F.report_findings(data, variants, variant_tables, skills, compensations, margins=margins)
    glance = F.glance_table(main)

    s = Section("At a glance", "One row per player count, from one dataset each (the mirror of `balanced`, L1, "
                "where there is one; else the one measuring the seats alone with the most games): every number of a "
                "row stands on the games it gives, and so do the headline rows of every table below.")  # fmt: skip
    s.blocks.append(figure_block(main, "seat-parity", "no dataset measures the seats alone here."))
    if len(glance):
        s.blocks.append(Block("table", text="At a glance", name="at_a_glance", table=glance,
                              shown=glance_shown(glance)))  # fmt: skip
    else:
        s.blocks.append(Block("missing", text="No games in these data."))
    s.blocks += strength_blocks(verdicts)
    s.blocks.append(Block("text", text=LA.rule_text(margins)))
    secs = [levels_section(skills), s, *game_sections(main)]
    for sec in secs:
        if sec.title in A.HEADLINE_SECTIONS.values():
            sec.blocks[:0] = ladder_blocks(verdicts, sec.title)
    skill, skill_glance = skill_section(skills, margins["points"])
    if skill_glance:
        skill.blocks.insert(0, Block("list", text="In short", items=skill_glance))
    secs.append(skill)
    if variants:
        varied, variant_glance = variants_section(variants, variant_tables, margins)
        varied.blocks.insert(0, Block("list", text="In short", items=variant_glance))
        secs.append(varied)
    if compensations:
        compensation, compensation_glance = compensation_section(compensations)
        compensation.blocks.insert(0, Block("list", text="In short", items=compensation_glance))
        secs.append(compensation)

    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    made = f"Made by smsim {__version__} on {now} from {games_line(data, variants, compensations, skills)}."
    titles = {x.title for x in secs}
    items = [(f.sentence, f.section(titles)) for f in found]
    datasets = pd.DataFrame([{"dataset": s.path, "kind": s.kind + (f" (level L{s.level})" if s.level else ""),
                              "players": s.players, "games": s.games, "seed": s.seed, "at the table": s.field,
                              "command": s.command}
                             for s in data.sources])  # fmt: skip
    rules = pd.DataFrame([{"rule": k, "value": str(v)} for k, v in data.rules.to_dict().items()])
    return Page(title=title, made=made, findings=items, notes=[], findings_rule=FINDINGS_RULE, sections=secs,
                datasets=datasets, rules=rules, closing=INTERVALS_NOTE,
                opening=[opening(found, skills, glance, data.rules)])  # fmt: skip
