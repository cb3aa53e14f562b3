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
from smsim.report import tables as A
from smsim.report.render import Block, Page, Section
from smsim.report.sections import figure_block, game_sections
from smsim.report.strength import ladder_blocks, strength_blocks
from smsim.report.studies import compensation_section, skill_section, variants_section

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
    """The whole report, in the order of the page: the key findings (``findings.key_findings``,
    each with its verdict across strengths of play), the at-a-glance table, the strength check and
    the headline figure, then the sections on the game, each opening with its ladder
    (``report.ladder``), then the sections on the studies, then the data and rules. ``margins``:
    the smallest change that matters per unit (``intervals.MARGINS``), which every verdict by size
    judges against."""
    variants, compensations, skills = list(variants), list(compensations), list(skills)
    variant_tables = [vs.table() for vs in variants]
    main = data.main()
    verdicts = LA.ladder_verdicts(LA.ladder_table(data), margins)  # once: the findings and the ladders read it
    found = F.key_findings(data, variants, variant_tables, skills, verdicts)
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
    secs = [s, *game_sections(main)]
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
    items, notes = findings_lines(found, main.n_games)
    datasets = pd.DataFrame([{"dataset": s.path, "kind": s.kind + (f" (level L{s.level})" if s.level else ""),
                              "players": s.players, "games": s.games, "seed": s.seed, "at the table": s.field,
                              "command": s.command}
                             for s in data.sources])  # fmt: skip
    rules = pd.DataFrame([{"rule": k, "value": str(v)} for k, v in data.rules.to_dict().items()])
    return Page(title=title, made=made, findings=items, notes=notes, findings_rule=FINDINGS_RULE, sections=secs,
                datasets=datasets, rules=rules, closing=INTERVALS_NOTE)  # fmt: skip
