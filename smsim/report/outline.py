"""The outline of the report: which sections, in which order, under which titles; the at-a-glance
section, the key findings with the notes under them, the line that says what the report stands on
and the "Data and rules" tables. ``page`` builds the whole :class:`~smsim.report.render.Page`;
``report.write`` draws and writes it."""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from smsim import __version__
from smsim.errors import DatasetError
from smsim.intervals import MARGINS, MISSING, interval_text
from smsim.policies.exact_keep import ERROR_VP
from smsim.report import findings as F
from smsim.report import ladder as LA
from smsim.report import plots as P
from smsim.report import tables as A
from smsim.report.inputs import Context, Inputs
from smsim.report.inputs import sections as study_sections
from smsim.report.render import Block, Page, Section
from smsim.report.sections import figure_block, game_sections
from smsim.report.strength import ladder_blocks, strength_blocks
from smsim.studies.ladder import AT_LEAST, AT_MOST, FIELD, STEP_ROW, UNBOUNDED
from smsim.studies.skill import level_name, step_order

GLANCE_HEADINGS = {
    "players": "players",
    "games": "games",
    "field": "at the table",
    "start_win": "start player wins [95% CI]",
    "last_win": "last seat wins [95% CI]",
    "parity": "parity",
    "changed": "cannons change the winner [95% CI]",
    "rounds": "rounds [95% CI]",
}

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
    d = pd.DataFrame(
        {
            "players": t["players"].astype(int),
            "games": [f"{int(g):,}" for g in t["games"]],
            "field": [A.short_field(str(f)) for f in t["field"]],
        }
    )
    for name in ("start_win", "last_win"):
        d[name] = [
            interval_text(v, lo, hi, **A.RATE) if np.isfinite(v) else f"{MISSING} (seats and policies confounded)"
            for v, lo, hi in zip(t[name], t[f"{name}_lo"], t[f"{name}_hi"])
        ]
    d["parity"] = [f"{100 * p:.1f}%" for p in t["parity"]]
    d["changed"] = [
        interval_text(v, lo, hi, **A.RATE) for v, lo, hi in zip(t["changed"], t["changed_lo"], t["changed_hi"])
    ]
    d["rounds"] = [interval_text(v, lo, hi, digits=2) for v, lo, hi in zip(t["rounds"], t["rounds_lo"], t["rounds_hi"])]
    return d.rename(columns=GLANCE_HEADINGS)


@dataclass(frozen=True)
class SeeAlso:
    """Another report of smsim to read with this one, linked from its first screen: its title, its
    folder relative to this report's (``href``) and the sections it has that this one has not."""

    title: str
    href: str
    sections: tuple[str, ...]


def see_also_of(folder: str | Path, out: str | Path) -> SeeAlso:
    """The report written in ``folder`` (its ``report.md``, as ``render.markdown_page`` writes it),
    linked from a report written in ``out``, with every section it has."""
    md = Path(folder) / "report.md"
    try:
        lines = md.read_text(encoding="utf-8").splitlines()
    except OSError:
        raise DatasetError(f"--see-also {str(folder)!r}: no report there (no report.md)") from None
    if not lines or not lines[0].startswith("# "):
        raise DatasetError(f"--see-also {str(folder)!r}: its report.md is not a report of smsim (no title)")
    sections = [x[3:].strip() for x in lines if x.startswith("## ")]
    href = os.path.relpath(Path(folder).resolve(), Path(out).resolve()).replace(os.sep, "/")
    return SeeAlso(lines[0][2:].strip(), href, tuple(sections))


def opening(
    found: list,
    skills: list,
    glance: pd.DataFrame,
    rules,
    steps: pd.DataFrame | None = None,
    feel: list[tuple[str, list[str]]] = (),
    see_also: list[SeeAlso] = (),
) -> Section:
    """The first screen: the reports to read with this one (``see_also``), the design verdicts a
    line each (``findings.first_screen_lines``), the answers of the sections on how the game feels
    (``feel``: each section's title and its at-a-glance lines), the levels of play in a sentence,
    and one picture of the game (``plots.median_game_figure``: at 4 players where the report has
    them, else at its largest player count)."""
    counts = [int(p) for p in glance["players"]]
    players = 4 if 4 in counts or not counts else max(counts)
    fig, caption = P.median_game_figure(players, A.LADDER[0], rules=rules)
    lines = F.first_screen_lines(found, skills, steps)
    return Section(
        F.FIRST_SCREEN_TITLE,
        "The answers of the key findings below, a line each; where an effect is "
        "within its margin (the smallest change that matters) the line says so. Every bracket [low, high] "
        "on this page, in a sentence or a table, is a 95% interval.",
        [
            *(Block("link", text=s.title, name=s.href, items=list(s.sections)) for s in see_also),
            Block("list", text="Design verdicts", items=lines[:-1]),
            *(Block("list", text=title, items=items) for title, items in feel if items),
            Block("text", text=lines[-1]),
            Block("figure", text=caption, name="median-game", figure=fig),
        ],
    )


LEVELS_INTRO = (
    f"The report measures the game at three strengths of play ({F.POLICIES_DOC}). Each level is set "
    "against the one below head to head (`smsim skill`: one seat of the upper level among the lower in "
    "every other seat, every seat rotation on common dice). Where that interval holds parity, the two "
    f"levels are not ordered: the report calls a difference between them {F.strength_words(False)}."
)
"""The section's opening without a ladder."""

LADDER_HEADINGS = {
    "players": "players",
    "step": "step",
    "head": "one upper seat wins [95% CI]",
    "edge": "above parity, points [95% CI]",
    "head_games": "games",
    "field": "against the field, paired points [95% CI]",
    "field_games": "field games",
    "verdicts": "verdict: head to head; field",
}


def ladder_shown(t: pd.DataFrame) -> pd.DataFrame:
    """The ladder's steps (``tables.ladder_steps``) as the page shows them: a row per step and
    player count, both ways, each with its interval, games and verdict."""
    return pd.DataFrame(
        {
            "players": t["players"].astype(int),
            "step": [
                f"{level_name(r.lower)} → {level_name(r.upper)}" + (" (check)" if r.check else "")
                for r in t.itertuples()
            ],
            "head": [
                interval_text(v, lo, hi, **A.RATE) for v, lo, hi in zip(t["head_share"], t["head_lo"], t["head_hi"])
            ],
            "edge": [interval_text(v, lo, hi, **A.POINTS) for v, lo, hi in zip(t["edge"], t["edge_lo"], t["edge_hi"])],
            "head_games": [f"{int(g):,}" for g in t["head_games"]],
            "field": [
                interval_text(v, lo, hi, **A.POINTS) for v, lo, hi in zip(t["field_diff"], t["field_lo"], t["field_hi"])
            ],
            "field_games": [f"{int(g):,}" for g in t["field_games"]],
            "verdicts": [f"{a}; {b}" for a, b in zip(t["verdict"], t["field_verdict"])],
        }
    ).rename(columns=LADDER_HEADINGS)


def depth_shown(d: pd.DataFrame) -> pd.DataFrame:
    """The depth table (``tables.ladder_depth``) as the page shows it: a bound where a step was never lost."""
    steps = [
        f"at least {r.steps_lo:.2f}"
        if r.bound == AT_LEAST
        else f"at most {r.steps_hi:.2f}"
        if r.bound == AT_MOST
        else MISSING
        if r.bound == UNBOUNDED
        else interval_text(r.steps, r.steps_lo, r.steps_hi, digits=2)
        for r in d.itertuples()
    ]
    return pd.DataFrame(
        {
            "what": [
                f"{'' if r.row == STEP_ROW else r.row + ': '}{level_name(r.lower)} → {level_name(r.upper)}"
                for r in d.itertuples()
            ],
            "win share at 2 players [95% CI]": [
                interval_text(r.share, r.lo, r.hi, **A.RATE) if r.row == STEP_ROW else "" for r in d.itertuples()
            ],
            "games": [f"{int(g):,}" for g in d["games"]],
            "60%-steps [95% CI]": steps,
        }
    )


def levels_section(
    skills: list, steps: pd.DataFrame | None = None, depth: pd.DataFrame | None = None, margin: float = MARGINS["share"]
) -> Section:
    """What each level of play is and how strong, each against the one below (``findings.levels_lines``):
    with a ladder (``steps``: ``tables.ladder_steps``, ``depth``: ``tables.ladder_depth``), each step
    both ways, the depth and the check rung's step, and the steps' table; without one, the skill
    studies' head-to-heads. ``margin``: what the steps' verdicts were judged against."""
    if steps is None:
        return Section("Levels of play", LEVELS_INTRO, [Block("list", text="The levels", items=F.levels_lines(skills))])
    named = dict.fromkeys(x for f in steps["field"] if isinstance(f, str) for x in f.split(", "))
    named = named or dict.fromkeys(FIELD)
    fields = ", ".join(f"`{x}`" for x in named)
    intro = (
        f"The report measures the game at three strengths of play ({F.POLICIES_DOC}), and the ladder of play "
        "(`smsim ladder`) shows them ordered: each rung's step over the rung below it, at each player count, "
        "measured two ways on common dice. Head to head: one seat of the upper rung among the lower in every "
        "other seat, every seat rotation, its win share (a shared win split) with the normal 95% interval over "
        "independent blocks. Against a fixed mixed field of heuristics "
        f"({fields}), so that a step is not only self-play: the upper and the "
        "lower rung in the same seat on the same games, the paired difference of its win share. A step is "
        f"*ordered* where its interval's low end clears parity by {LA.margin_text('share', margin)} or more, "
        "*ordered, small* where it lies above parity and below that margin, *ordered, size not settled* where it "
        "lies above parity and reaches past the margin, *level* where it lies inside parity ± that margin "
        f"({F.strength_words(False)}), *not settled* or *reversed* otherwise; the field's difference is judged "
        "the same way against 0. Where a skill study measured a step head to head on more games than the "
        "ladder, the sentences below state the skill study's figure, the one the findings use (the table keeps "
        "the ladder's own)."
    )
    blocks = [Block("list", text="The levels", items=F.levels_lines(skills, steps, depth, margin))]
    if len(steps):
        made = P.ladder_steps_figure(steps, margin)
        if made is not None:
            blocks.append(Block("figure", text=made[1], name="ladder-steps", figure=made[0]))
        seeds = ", ".join(str(x) for x in dict.fromkeys(steps["seed"]))
        blocks.append(
            Block(
                "table",
                text=f"Each rung over the rung below, at each player count, head to head and "
                f"against the field (paired), with 95% intervals (seed {seeds})",
                name="ladder_steps",
                table=steps,
                shown=ladder_shown(steps),
            )
        )
    if depth is not None and len(depth):
        blocks.append(
            Block(
                "table",
                text="Depth: each 2-player step in 60%-steps (logit of its win share over "
                "logit(0.6)), the chain from the lowest rung to the top, and where that is a bound the "
                "part measured",
                name="ladder_depth",
                table=depth,
                shown=depth_shown(depth),
            )
        )
    return Section("Levels of play", intro, blocks)


DICE_TITLE = "Dice decisions"
REGRET_HEADINGS = {
    "players": "players",
    "level": "policy",
    "lineup": "line-up",
    "seat_games": "seat-games",
    "regret": "keep regret, VP a game [95% CI]",
    "per_keep": "VP a keep",
    "keeps": "keeps a game",
    "error_rate": "error rate",
}


def regret_shown(t: pd.DataFrame) -> pd.DataFrame:
    """The keep-regret table (``tables.keep_regret``) as the page shows it."""
    return pd.DataFrame(
        {
            "players": t["players"].astype(int),
            "level": t["level"],
            "lineup": ["mirror" if not a else f"one seat among {level_name(a)}" for a in t["against"]],
            "seat_games": [f"{int(g):,}" for g in t["seat_games"]],
            "regret": [
                interval_text(v, lo, hi, digits=2)
                for v, lo, hi in zip(t["regret_per_game"], t["regret_lo"], t["regret_hi"])
            ],
            "per_keep": [f"{v:.3f}" for v in t["regret_per_keep"]],
            "keeps": [f"{v:.1f}" for v in t["keeps_per_game"]],
            "error_rate": [f"{100 * v:.1f}%" for v in t["error_rate"]],
        }
    ).rename(columns=REGRET_HEADINGS)


def dice_section(regret: pd.DataFrame) -> Section:
    """The section "Dice decisions": per policy judged (the levels of play first, ``tables.keep_regret``),
    the regret of its keep-or-reroll decisions against the exact keep under a stated value, per
    game with its interval and per keep, and its error rate; a sentence says what the stated value is."""
    oracles = ", ".join(f"`{o}`" for o in dict.fromkeys(regret["oracle"])) or "`balanced`"
    intro = (
        f"The keep-or-reroll decisions judged by an oracle (`smsim regret`): at every keep decision the turn's "
        "dice are solved exactly, by dynamic programming over face counts, with each final roll valued by the "
        f"stated value, {oracles}'s values of the uses of the dice; a policy's *keep regret* is the VP of that "
        "value its keeps lose per game against the exact keep (the normal 95% interval over seat-games), and "
        f"a keep that loses more than {ERROR_VP:g} VP is an error. `balanced-exact` keeps exactly by that value, "
        "so its regret is 0 by construction. The stated value is a yardstick, not the truth: a policy stronger "
        "than `balanced` can still lose VP of it (`learned`'s keeps are its base heuristic's)."
    )
    if set(regret["oracle"]) - {"balanced"}:  # balanced-exact keeps by balanced's values: 0 against those alone
        intro = intro.replace(" `balanced-exact` keeps exactly by that value, so its regret is 0 by construction.", "")
    s = Section(DICE_TITLE, intro)
    if not len(regret):
        s.blocks.append(Block("missing", text="The keep-regret study holds no policy judged yet."))
        return s
    for p in sorted(set(regret["players"])):
        at = regret[(regret["players"] == p) & regret["policy"].isin(A.LADDER)]
        if len(at):
            said = "; ".join(
                f"{F.rung_name(r.policy)} "
                f"{interval_text(r.regret_per_game, r.regret_lo, r.regret_hi, digits=2)} VP a game "
                f"({100 * r.error_rate:.1f}% of its keeps errors"
                + (f"; one seat among {F.rung_name(r.against)}" if r.against else "")
                + ")"
                for r in at.itertuples()
            )
            s.blocks.append(
                Block("text", text=f"At {p} players the levels' keeps lose, against the exact keep: {said}.")
            )
    seeds = ", ".join(str(x) for x in dict.fromkeys(regret["seed"]))
    s.blocks.append(
        Block(
            "table",
            text=f"Keep regret per policy: VP of the stated value lost a game by its keeps "
            f"against the exact keep, per keep decision, and the share of keeps that are errors (seed "
            f"{seeds})",
            name="keep_regret",
            table=regret,
            shown=regret_shown(regret),
        )
    )
    return s


def games_line(
    data: A.ReportData,
    variants: list,
    compensations: list,
    skills: list = (),
    steps: pd.DataFrame | None = None,
    regret: pd.DataFrame | None = None,
) -> str:
    """What the report stands on, honestly counted: the games of the main sections, the mirror
    games of the ladder's upper levels, the variants', the skill studies', the fairness searches',
    the ladder's (``steps``) and the keep-regret studies' (``regret``: seat-games judged)."""
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
        parts.append(
            f"a baseline and {len(vs.variants) - 1} rules variants of {vs.games:,} games each "
            f"({vs.players} players, {', '.join(dict.fromkeys(vs.policies))})"
        )
    if skills:
        games = sum(int(r.matrix["games"].sum()) + int((r.gaps["blocks"].iloc[1:] * r.players).sum()) for r in skills)
        parts.append(f"{len(skills)} skill studies ({games:,} games)")
    if steps is not None and len(steps):
        parts.append(
            f"a ladder of play of {len(steps)} steps ({int(steps['head_games'].sum()):,} games head to head "
            f"and {int(steps['field_games'].sum()):,} against the field)"
        )
    if regret is not None and len(regret):
        parts.append(
            f"the keep decisions of {len(regret)} policies judged ({int(regret['seat_games'].sum()):,} seat-games)"
        )
    if compensations:
        sizes = sorted({(int(r.games), int(r.check_games)) for r in compensations})
        each = "; ".join(f"{g:,} search games, checked on {c:,} held-out games" for g, c in sizes)
        parts.append(f"{len(compensations)} seat-compensation searches ({each} each)")
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


INTERVALS_NOTE = (
    "Intervals are 95%: Wilson intervals for rates, normal intervals for means, treating seats and "
    "games as independent (the games of one comparison block share their dice; the comparison's own "
    "tables use block intervals)."
)
"""The page's last words."""


def page(
    data: A.ReportData,
    inputs: Inputs | None = None,
    title: str = "Saint Malo balance report",
    margins: dict[str, float] = MARGINS,
    see_also: list[SeeAlso] = (),
) -> Page:
    """The whole report, in the order of the page: the first screen (``opening``), the key findings
    in a designer's order (``findings.report_findings``), the levels of play, the at-a-glance table,
    the strength check and the headline figure, then the sections on the game, each opening with its
    ladder (``report.ladder``), then the section of each kind of study in ``inputs`` (declared in
    ``report.inputs.DECLARED``, in its order), then the data and rules. ``margins``: the smallest
    change that matters per unit (``intervals.MARGINS``), which every verdict by size judges against.
    Of the inputs, ladders (``studies.ladder.LadderResult``s) show the levels ordered, each step both
    ways, with the depth and the check rung (``tables.ladder_steps``), and decide which levels are
    ordered where they measured the step; keep-regret studies make the section "Dice decisions"
    (``tables.keep_regret``); rule variants, skill studies and compensations feed the findings too;
    the lines "In short" of the sections on how the game feels, luck, what matters and studies of rule
    changes are on the first screen too. ``see_also``: other reports linked from the first screen,
    each with the sections it has that this page has not."""
    inputs = inputs or Inputs()
    variants, compensations = inputs.results("variants"), inputs.results("fairness")
    skills, ladders, regrets = inputs.results("skill"), inputs.results("ladder"), inputs.results("regret")
    steps = A.ladder_steps(ladders, margins["share"]) if ladders else None
    depth = A.ladder_depth(ladders) if ladders else None
    regret = A.keep_regret(regrets) if regrets else None
    variant_tables = [vs.table() for vs in variants]
    main = data.main()
    ladder = LA.ladder_table(data)
    # the ladder's steps where it measured them, else the skill studies'
    standing = F.standings(skills, steps, margins["share"])
    ordered = {
        int(p): {(r.lower, r.upper): step_order(r.standing) for r in standing[standing["players"] == p].itertuples()}
        for p in ladder["players"].unique()
    }
    verdicts = LA.ladder_verdicts(ladder, margins, ordered)  # once: the ladders read it
    found = F.report_findings(data, variants, variant_tables, skills, compensations, margins=margins, steps=steps)
    found = F.with_strength(found, verdicts)  # each finding says whether it holds under stronger play
    glance = F.glance_table(main)

    s = Section(
        "At a glance",
        "One row per player count, from one dataset each (the mirror of `balanced`, L1, "
        "where there is one; else the one measuring the seats alone with the most games): every number of a "
        "row stands on the games it gives, and so do the headline rows of every table below.",
    )
    s.blocks.append(figure_block(main, "seat-parity", "no dataset measures the seats alone here."))
    if len(glance):
        s.blocks.append(
            Block("table", text="At a glance", name="at_a_glance", table=glance, shown=glance_shown(glance))
        )
    else:
        s.blocks.append(Block("missing", text="No games in these data."))
    s.blocks += strength_blocks(verdicts)
    s.blocks.append(Block("text", text=LA.rule_text(margins)))
    dice = [dice_section(regret)] if regret is not None else []  # right after the levels: the dice at each level
    secs = [levels_section(skills, steps, depth, margins["share"]), *dice, s, *game_sections(main)]
    for sec in secs:
        if sec.title in A.HEADLINE_SECTIONS.values():
            sec.blocks[:0] = ladder_blocks(verdicts, sec.title)
    feel = []  # the lines "In short" of the sections whose answers the first screen gives too
    for sec, short, first_screen in study_sections(inputs, Context(dict(margins), variants, variant_tables)):
        if short:
            sec.blocks.insert(0, Block("list", text="In short", items=short))
        secs.append(sec)
        if first_screen:
            feel.append((sec.title, short))

    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    stands_on = games_line(data, variants, compensations, skills, steps, regret)
    made = f"Made by smsim {__version__} on {now} from {stands_on}."
    titles = {x.title for x in secs}
    own = {F.FIRST_SCREEN_TITLE, "Key findings", "Data and rules", *titles}
    linked = [SeeAlso(x.title, x.href, tuple(t for t in x.sections if t not in own)) for x in see_also]
    items = [(f.sentence, f.section(titles)) for f in found]
    shown = A.naming_root([s.path for s in data.sources])
    datasets = pd.DataFrame(
        [
            {
                "dataset": shown(s.path),
                "kind": s.kind + (f" (level L{s.level})" if s.level else ""),
                "players": s.players,
                "games": s.games,
                "seed": s.seed,
                "at the table": s.field,
                "command": shown(s.command),
            }
            for s in data.sources
        ]
    )
    rules = pd.DataFrame([{"rule": k, "value": str(v)} for k, v in data.rules.to_dict().items()])
    return Page(
        title=title,
        made=made,
        findings=items,
        notes=[],
        findings_rule=FINDINGS_RULE,
        sections=secs,
        datasets=datasets,
        rules=rules,
        closing=INTERVALS_NOTE,
        opening=[opening(found, skills, glance, data.rules, steps, feel, linked)],
    )
