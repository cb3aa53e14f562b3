"""The sections on the studies: how much skill matters (``smsim skill``), rule variants (sweeps
and datasets under other rules) and seat compensation (``smsim fairness``), each with its
at-a-glance lines."""

from __future__ import annotations

import numpy as np
import pandas as pd

from smsim.intervals import MARGINS, MISSING, MOVES, interval_text, margin_verdict
from smsim.report import findings as F
from smsim.report import ladder as LA
from smsim.report import plots as P
from smsim.report import tables as A
from smsim.report.render import Block, Section
from smsim.rules import Rules
from smsim.studies.skill import GAP, gap_verdict, level_name
from smsim.studies.sweep import (
    BASELINE,
    HEADLINE,
    SWEEP_HEADINGS,
    effects_across_bots,
    named_variants,
    variance_reduction,
    variant_name,
    variant_sentence,
)


# -- how much skill matters ---------------------------------------------------------------------
def _matrix_shown(res) -> pd.DataFrame:
    cells = {(r.row, r.col): r for r in res.matrix.itertuples()}
    shown = {"one seat of": [level_name(x) for x in res.levels]}
    for col in res.levels:
        shown[f"against {level_name(col)}"] = [
            MISSING
            if row == col
            else interval_text(cells[row, col].share, cells[row, col].lo, cells[row, col].hi, **A.RATE)
            if (row, col) in cells
            else "not measured"
            for row in res.levels
        ]
    return pd.DataFrame(shown)


def skill_section(
    skills: list, margin: float = MARGINS["points"], unadapted: dict[str, str] | None = None
) -> tuple[Section, list[str]]:
    """The section "How much skill matters" (``studies.skill.SkillResult``s) and its at-a-glance lines;
    a variant's change of the skill gap judged by size against ``margin`` (``studies.skill.gap_verdict``).
    ``unadapted`` (``unadapted_of``): the variants whose adapted bot beats L1, with its win share:
    there the gap is over an L1 that plays the variant badly, so its change is bot-dependent, not the game's."""
    unadapted = unadapted or {}
    s = Section(
        "How much skill matters",
        "Levels of play against one another (`smsim skill`): one seat of the row's "
        "level against the column's level in every other seat, every seat rotation on the same dice, its win "
        "share (a shared win split) with the normal 95% interval over independent blocks; parity is one "
        "share in the number of players. The *skill gap* is one `learned` (L2) seat against `balanced` (L1) "
        "minus parity: how much a better player gains. Under a rules variant the same games are played on "
        "the same dice, so the gap's change is paired, block by block: a gap that grows makes the game more "
        "a game of skill, one that shrinks more a game of luck, where the change's interval lies wholly "
        f"beyond {LA.margin_text('points', margin)} (the smallest change that matters; "
        "inside it: no change). `learned` was trained under the printed rules; under a variant it plays "
        "with the same model.",
    )
    glance: list[str] = []
    skills = sorted(skills, key=lambda r: r.players)
    if not skills:
        s.blocks.append(
            Block(
                "missing",
                text="No skill study among these data: run `smsim skill --players N --out "
                "DIR` and give DIR to `smsim report`.",
            )
        )
        return s, glance
    gaps = [(r.players, *r.gap()) for r in skills if r.gap() is not None]
    if gaps:
        t = pd.DataFrame(gaps, columns=["players", "gap", "gap_lo", "gap_hi", "games"])
        t["parity"] = 1.0 / t["players"]
        made = P.skill_gap_figure(t)
        if made is not None:
            s.blocks.append(Block("figure", text=made[1], name="skill-gap", figure=made[0]))
        shown = pd.DataFrame(
            {
                "players": t["players"],
                "games": [f"{g:,}" for g in t["games"]],
                "one learned seat wins [95% CI]": [
                    interval_text(p + g, p + lo, p + hi, **A.RATE)
                    for p, g, lo, hi in zip(t["parity"], t["gap"], t["gap_lo"], t["gap_hi"])
                ],
                "parity": [f"{100 * p:.1f}%" for p in t["parity"]],
                "skill gap, points [95% CI]": [
                    interval_text(g, lo, hi, **A.POINTS) for g, lo, hi in zip(t["gap"], t["gap_lo"], t["gap_hi"])
                ],
            }
        )
        s.blocks.append(
            Block(
                "table",
                text=f"The skill gap per player count: one `{GAP[0]}` seat against `{GAP[1]}` "
                "in every other seat, minus parity",
                name="skill_gap",
                table=t,
                shown=shown,
            )
        )
        glance.append(
            "The skill gap (one `learned` seat among `balanced`, minus parity): "
            + "; ".join(f"{p} players {interval_text(g, lo, hi, **A.POINTS_SAID)}" for p, g, lo, hi, _ in gaps)
            + "."
        )
    for res in skills:
        s.blocks.append(Block("heading", text=f"{res.players} players"))
        games = sorted(set(res.matrix["games"]))
        span = f"{games[0]:,} games a cell" if len(games) == 1 else f"{games[0]:,} to {games[-1]:,} games a cell"
        s.blocks.append(
            Block(
                "table",
                text=f"The win-rate matrix, {res.players} players: the share of one seat of "
                f"the row's level against the column's in every other seat (parity "
                f"{100 / res.players:.1f}%; {span}; seed {res.seed})",
                name=f"skill_{res.players}p_matrix",
                table=res.matrix,
                shown=_matrix_shown(res),
            )
        )
        if len(res.gaps) > 1:
            g = res.gaps.copy()
            base_rules = Rules.from_dict(res.variants[0]["rules"])
            names = {
                v["name"]: v["name"]
                if v["name"] == BASELINE
                else variant_name(v.get("varied", {}), base_rules, v["name"])
                for v in res.variants
            }  # every variant named by its change from the baseline's rules
            g["variant"] = [names.get(v, v) for v in g["variant"]]  # a shipped variant's rules carry its name
            shown = pd.DataFrame(
                {
                    "variant": g["variant"],
                    "skill gap, points [95% CI]": [
                        interval_text(a, b, c, **A.POINTS) for a, b, c in zip(g["gap"], g["gap_lo"], g["gap_hi"])
                    ],
                    "change, paired [95% CI]": [
                        interval_text(a, b, c, **A.POINTS) for a, b, c in zip(g["diff"], g["diff_lo"], g["diff_hi"])
                    ],
                    "unpaired CI": [
                        interval_text(a, b, c, **A.POINTS)
                        for a, b, c in zip(g["diff"], g["unpaired_lo"], g["unpaired_hi"])
                    ],
                    "rounds, change [95% CI]": [
                        f"{r:.2f}"
                        if not np.isfinite(d)
                        else f"{r:.2f}, {interval_text(d, lo, hi, digits=2, signed=True)}"
                        for r, d, lo, hi in zip(g["rounds"], g["rounds_diff"], g["rounds_diff_lo"], g["rounds_diff_hi"])
                    ],
                    "verdict": [
                        ""
                        if not np.isfinite(d)
                        else f"bot-dependent: L1 not adapted (its adapted bot wins {unadapted[v]})"
                        if v in unadapted
                        else gap_verdict(d, lo, hi, margin)
                        for v, d, lo, hi in zip(g["variant"], g["diff"], g["diff_lo"], g["diff_hi"])
                    ],
                }
            )
            s.blocks.append(
                Block(
                    "table",
                    text=f"The skill gap under each rules variant, {res.players} players, "
                    f"{int(g['blocks'].iloc[0]) * res.players:,} games each on the same dice: its change "
                    "from the baseline with the paired 95% interval, beside the unpaired one",
                    name=f"skill_{res.players}p_variants",
                    table=g,
                    shown=shown,
                )
            )
            made = P.skill_variants_figure(g, res.players, margin)
            if made is not None:
                s.blocks.append(Block("figure", text=made[1], name=f"skill-variants-{res.players}p", figure=made[0]))
            s.blocks.append(
                Block(
                    "list",
                    text="What each variant does to the skill gap",
                    items=[
                        skill_variant_sentence(r, margin, unadapted.get(r.variant)) for r in g.iloc[1:].itertuples()
                    ],
                )
            )
            rest = g.iloc[1:]
            moved = [
                v not in unadapted and gap_verdict(d, lo, hi, margin) in ("more skill", "more luck")
                for v, d, lo, hi in zip(rest["variant"], rest["diff"], rest["diff_lo"], rest["diff_hi"])
            ]
            clear = rest[moved]
            if len(clear):
                most = clear.loc[clear["diff"].abs().idxmax()]
                glance.append(
                    f"Rule variants and skill ({res.players} players): {len(clear)} of {len(g) - 1} variants "
                    f"move the skill gap by more than {LA.margin_text('points', margin)}; most: {most.variant} "
                    f"({interval_text(most['diff'], most.diff_lo, most.diff_hi, **A.POINTS_SAID)}, "
                    f"{gap_verdict(most['diff'], most.diff_lo, most.diff_hi, margin)})."
                )
            else:
                glance.append(
                    f"Rule variants and skill ({res.players} players): no variant moves the skill gap by "
                    f"more than {LA.margin_text('points', margin)} ({len(g) - 1} variants)."
                )
    return s, glance


def skill_variant_sentence(r, margin: float = MARGINS["points"], beaten: str | None = None) -> str:
    """One variant's effect on the skill gap, judged by size against ``margin`` (``gap_verdict``),
    with what it does to the game's length; ``beaten``: the win share of the bot adapted to the
    variant against L1, where it beats L1 (the change is then bot-dependent, not the game's)."""
    points = LA.margin_text("points", margin)
    if beaten:
        return (
            f"{r.variant}: bot-dependent, not the game's: the gap changes by "
            f"{interval_text(r.diff, r.diff_lo, r.diff_hi, **A.POINTS_SAID)} on the same dice, but over an L1 "
            f"`balanced` not adapted to this variant (the bot adapted to it wins {beaten} of its games against "
            "L1): a better L1 would narrow the gap by an amount not measured here."
        )
    said = {
        "more skill": "more a game of skill",
        "more luck": "more a game of luck",
        "no change": f"no change of the skill gap that matters (inside {points})",
        "not settled": f"whether the skill gap changes by {points} or more is not settled",
        "no data": "no data",
    }
    rounds = f"; {F.rounds_words(r.rounds_diff, r.rounds_diff_lo, r.rounds_diff_hi)}"
    return (
        f"{r.variant}: {said[gap_verdict(r.diff, r.diff_lo, r.diff_hi, margin)]}, the gap "
        f"{interval_text(r.gap, r.gap_lo, r.gap_hi, **A.POINTS_SAID)} against the baseline's, a change "
        f"of "
        f"{interval_text(r.diff, r.diff_lo, r.diff_hi, **A.POINTS_SAID)} on the same dice{rounds}."
    )


def unadapted_of(sets: list) -> dict[str, str]:
    """The variants (named as the page names them) whose bot adapted to them (``sweep --adapt``)
    beats `balanced` on held-out games, with its win share and 95% interval."""
    out = {}
    for vs in sets:
        names = _variant_names(vs)
        for note in vs.bots:
            if note["share_lo"] > note["parity"]:
                said = interval_text(note["share"], note["share_lo"], note["share_hi"], **A.RATE)
                out[names.get(note["variant"], note["variant"])] = said
    return out


# -- rule variants -------------------------------------------------------------------------------
VARIANT_GROUPS = {
    "seats": "Seats",
    "pirates": "Pirates",
    "vp": "Victory points",
    "city": "The city",
    "game": "Game length",
    "policies": "Policies",
}


def _largest(t, key: str, margins: dict[str, float] = MARGINS) -> str | None:
    """The variant that moves ``key`` most, among those whose paired interval lies wholly beyond the
    smallest change that matters for its unit (``intervals.margin_verdict``: it *moves*)."""
    rows = t[(t["metric"] == key) & (t["variant"] != "baseline")]
    clear = rows[
        [
            margin_verdict(lo, hi, margins.get(u, np.nan)) == MOVES
            for lo, hi, u in zip(rows["diff_lo"], rows["diff_hi"], rows["unit"])
        ]
    ]
    if clear.empty:
        return None
    r = clear.loc[clear["diff"].abs().idxmax()]
    said = f"{r.variant} ({interval_text(r['diff'], r.diff_lo, r.diff_hi, **A.unit_form(r.unit, True, words=True))})"
    base = t[(t["metric"] == key) & (t["variant"] == "baseline")]
    if key == "start_edge" and len(base):  # a fix that turns the edge into a deficit is not a fix
        was = float(base["value"].iloc[0])
        now = was + float(r["diff"])
        if F.overshoots(was, now, margins.get(r.unit, 0.0)):
            said += f", overshooting: the edge goes from {100 * was:+.1f} to {100 * now:+.1f} points"
            gap = t[(t["metric"] == "seat_gap") & (t["variant"].isin(["baseline", r.variant]))].set_index("variant")
            if len(gap) == 2:
                before, after = (100 * float(gap.loc[v, "value"]) for v in ("baseline", r.variant))
                said += f" and the widest gap between two seats from {before:.1f} to {after:.1f}"
    return said


def _set_heading(vs) -> str:
    """A set of variants in words, never a folder: "Rule variants, 4 players, balanced", then what
    the set holds where it says more (the shipped variants; one rule at a time; datasets under other
    rules, unpaired)."""
    policies = ", ".join(dict.fromkeys(vs.policies))
    others = vs.variants[1:]
    shipped = named_variants()
    what = (
        "the shipped variants"
        if others and all(v.name in shipped for v in others)
        else "one rule at a time"
        if others and all(len(v.varied) == 1 for v in others)
        else ""
    )
    if not vs.paired:
        what = ", ".join(x for x in (what, "datasets under other rules, unpaired") if x)
    return f"Rule variants, {vs.players} players, {policies}" + (f": {what}" if what else "")


def _across_bots_block(
    vs, bots: dict[str, pd.DataFrame], names: dict[str, str], margins: dict[str, float], name: str
) -> Block:
    """Each variant's headline effects under every bot that played the sweep's variants on its dice
    (``bots``: label -> its table, variants named by ``names``; the bot asked for first, then the
    bot adapted to each variant, ``sweep --adapt``, then the sweeps of other bots on the same seed),
    with one verdict across them (``sweep.effects_across_bots``)."""
    across = effects_across_bots(bots, margins)
    across = across[across["metric"].isin(HEADLINE)]
    text = (
        "Who plays: each effect under every bot that played these variants on the same dice (the bot asked for, "
        "the bot adapted to each variant: the table above, docs/variants.md; and the other levels' sweeps of the "
        "same seed), with one verdict across them: *holds for every bot* where all move the same way beyond the "
        "margin or all stay within it, *bot-dependent* where they disagree (an effect of who plays, not of the "
        "rule), *not settled* otherwise"
    )
    shown = pd.DataFrame(
        {
            "variant": across["variant"],
            "effect": [SWEEP_HEADINGS[m] for m in across["metric"]],
            **{
                f"{bot} [95% CI]": [
                    interval_text(r[bot], r[f"{bot} lo"], r[f"{bot} hi"], **A.unit_form(r["unit"], True))
                    for _, r in across.iterrows()
                ]
                for bot in bots
            },
            "across bots": across["verdict"],
        }
    )
    return Block("table", text=text, name=name, table=across, shown=shown)


def _adapted_bots_block(vs, names: dict[str, str], name: str) -> Block:
    """What each adapted bot (``sweep --adapt``) cost and gained: its tuning time and its win share
    above parity against `balanced` on held-out games under the variant's rules, and whether it
    plays the variant's adapted games (it does only where it beats `balanced` there)."""
    t = pd.DataFrame(vs.bots)
    t = t.assign(variant=[names.get(v, v) for v in t["variant"]])
    shown = pd.DataFrame(
        {
            "variant": t["variant"],
            "against balanced, held out: win share above parity [95% CI]": [
                interval_text(s - p, lo - p, hi - p, **A.POINTS)
                for s, lo, hi, p in zip(t["share"], t["share_lo"], t["share_hi"], t["parity"])
            ],
            "held-out games": [f"{int(n['plan']['held_out_games']):,}" for n in vs.bots],
            "what the tuner found": [
                "beats balanced: it plays the variant" if lo > p else "nothing better: balanced plays the variant"
                for lo, p in zip(t["share_lo"], t["parity"])
            ],
            "tuning, s": [f"{x:.0f}" for x in t["seconds"]],
        }
    )
    plan = vs.bots[0]["plan"]
    return Block(
        "table",
        text=f"The bots adapted to each variant: balanced's weights tuned by CMA-ES on the variant's rules "
        f"({plan['budget']} candidates of {plan['games']:,} games at {plan['players']} players), then played against "
        "balanced on held-out dice under the same rules; where they do not beat it there, balanced itself plays "
        "the variant's adapted games",
        name=name,
        table=t.drop(columns=["plan", "rules", "changed"], errors="ignore"),
        shown=shown,
    )


ADAPTED_LABEL = "adapted to each variant"
"""The column of the bots adapted to each variant (``sweep --adapt``) in the table across bots."""


def _bot_label(vs) -> str:
    """A sweep's bot as a column names it: its level and policy where one policy plays every seat."""
    policies = list(dict.fromkeys(vs.policies))
    if len(policies) != 1:
        return ", ".join(policies)
    return level_name(policies[0])


def _variant_names(vs) -> dict[str, str]:
    """Every variant of a set named by its change from the baseline's rules (the name it was run
    under beside it)."""
    base_rules = vs.variants[0].rules
    return {v.name: v.name if v.name == BASELINE else variant_name(v.varied, base_rules, v.name) for v in vs.variants}


def _named_table(vs, table: pd.DataFrame | None) -> pd.DataFrame:
    """A set's table (``table`` where already computed) with its variants named as the page names them."""
    names = _variant_names(vs)
    return (vs.table() if table is None else table).assign(variant=lambda d: d["variant"].map(names))


def _same_dice(a, b) -> bool:
    """Two sweeps whose variants met the same dice: paired, one seed, the same players and variants."""
    return (
        a.paired
        and b.paired
        and a.seed is not None
        and a.seed == b.seed
        and a.players == b.players
        and [v.varied for v in a.variants] == [v.varied for v in b.variants]
    )


def variants_section(
    sets: list, tables: list | None = None, margins: dict[str, float] = MARGINS
) -> tuple[Section, list[str]]:
    """The section "Rule variants" (``sweep.VariantSet``s; ``tables``: their ``table()``s, where
    already computed) and its at-a-glance lines; each difference judged by size against the margin
    of its unit (``margins``: the same, moves, not settled)."""

    s = Section(
        "Rule variants",
        "What changes when a rule changes. Each variant plays the same games as its "
        "baseline; where they also meet the same dice (a sweep, or datasets of one seed and line-up) a "
        "difference is measured game by game, and its *paired* 95% interval (the normal interval of the mean "
        "of per-game differences) is set beside the interval two independent samples of the same size would "
        "give. A difference is shown as variant minus baseline; rates in percentage points. Its verdict is by "
        "size: *moves* where its interval lies wholly beyond the smallest change that matters, *the same* "
        "where it lies inside it, *not settled* otherwise (the margins at the top of the page).",
    )
    glance = []
    headings = [_set_heading(vs) for vs in sets]
    headings = [
        h + (f", set {headings[:k].count(h) + 1}" if headings.count(h) > 1 else "") for k, h in enumerate(headings)
    ]
    for k, vs in enumerate(sets):
        base_rules = vs.variants[0].rules
        names = _variant_names(vs)
        t = (tables[k] if tables is not None else vs.table()).assign(variant=lambda d: d["variant"].map(names))  # noqa: B023 (called at once)
        first = len(s.blocks)
        head = (
            f"{'A sweep' if vs.paired else 'Datasets under other rules'}: {vs.players} players, "
            f"{', '.join(dict.fromkeys(vs.policies))} at the table, "
            f"{vs.games:,} games per variant"
            + (f", seed {vs.seed}" if vs.seed is not None else "")
            + (
                ", every variant on the same dice (paired)"
                if vs.paired
                else ", not on the same dice: differences have unpaired intervals"
            )
        )
        listing = pd.DataFrame(
            {
                "variant": [names[v.name] for v in vs.variants],
                "what it changes": [
                    "The rules the variants are measured against." if v.name == BASELINE
                    else variant_sentence(v.varied, base_rules, v.name)
                    for v in vs.variants
                ],
                "run as": [v.name for v in vs.variants],
                "dataset": vs.shown_dirs(),
            }
        )  # fmt: skip
        s.blocks.append(
            Block(
                "table",
                text=f"{head}. The variants, each named by its change from the baseline's rules",
                name=f"variants_{k}_list",
                table=listing,
            )
        )
        rows = t.set_index(["variant", "metric"])
        shown = {"variant": [names[v.name] for v in vs.variants]}
        for key in HEADLINE:
            cells = []
            for v in vs.variants:
                r = rows.loc[(names[v.name], key)]
                cells.append(
                    interval_text(r.value, r.lo, r.hi, **A.unit_form(r.unit))
                    if v.name == BASELINE
                    else interval_text(r["diff"], r.diff_lo, r.diff_hi, **A.unit_form(r.unit, True))
                )
            shown[SWEEP_HEADINGS[key]] = cells
        headline = t[t["metric"].isin(HEADLINE)]
        s.blocks.append(
            Block(
                "table",
                text="Which rule moves the balance most: the baseline's headline figures, and "
                "each variant's difference from them with its 95% interval",
                name=f"variants_{k}_headline",
                table=headline,
                shown=pd.DataFrame(shown),
            )
        )
        if vs.adapted is not None:
            bots = {_bot_label(vs): t, ADAPTED_LABEL: _named_table(vs.adapted, None)}
            for j, other in enumerate(sets):  # the other bots' sweeps of the same variants on the same dice
                if j != k and _same_dice(vs, other) and _bot_label(other) not in bots:
                    bots[_bot_label(other)] = _named_table(other, tables[j] if tables is not None else None)
            if vs.bots:
                s.blocks.append(_adapted_bots_block(vs, names, f"variants_{k}_adapted_bots"))
            s.blocks.append(_across_bots_block(vs, bots, names, margins, f"variants_{k}_across_bots"))
        made = P.variant_differences(t, headings[k])
        if made is not None:
            s.blocks.append(Block("figure", text=made[1], name=f"variants_{k}_differences", figure=made[0]))
        single = {names[v.name]: next(iter(v.varied.items())) for v in vs.variants[1:] if len(v.varied) == 1}
        for fld, (fig, caption) in P.variant_effects(t, single, base_rules.to_dict(), headings[k]):
            s.blocks.append(Block("figure", text=caption, name=f"variants_{k}_{fld}", figure=fig))
        vr = variance_reduction(t)
        if vs.paired and len(vr):
            median = float(vr["narrower"].median())
            s.blocks.append(
                Block(
                    "table",
                    text=(
                        f"What the common dice bought: over {len(vr)} metrics the paired interval of a difference "
                        "is a median "
                        f"{median:.2f}x narrower than the unpaired one (from {vr['narrower'].min():.2f}x to "
                        f"{vr['narrower'].max():.2f}x), as precise as {median**2:.1f}x the games played independently. "
                        "Measured on these games: per metric, the median over the variants"
                    ),
                    name=f"variants_{k}_pairing",
                    table=vr,
                    shown=pd.DataFrame(
                        {
                            "metric": vr["label"],
                            "paired interval narrower": [f"{x:.2f}x" for x in vr["narrower"]],
                            "games equivalent": [f"{x:.1f}x" for x in vr["games_factor"]],
                        }
                    ),
                )
            )
        for group, title in VARIANT_GROUPS.items():
            g = t[t["group"] == group]
            if g.empty:
                continue
            shown_g = pd.DataFrame(
                {
                    "metric": g["label"],
                    "variant": g["variant"],
                    "value [95% CI]": [
                        interval_text(r.value, r.lo, r.hi, **A.unit_form(r.unit)) for r in g.itertuples()
                    ],
                    "difference [paired 95% CI]": [
                        interval_text(r.diff, r.diff_lo, r.diff_hi, **A.unit_form(r.unit, True)) for r in g.itertuples()
                    ],
                    "unpaired 95% CI": [
                        interval_text(r.diff, r.unpaired_lo, r.unpaired_hi, **A.unit_form(r.unit, True))
                        for r in g.itertuples()
                    ],
                    "verdict": [
                        ""
                        if r.variant == "baseline"
                        else margin_verdict(r.diff_lo, r.diff_hi, margins.get(r.unit, np.nan))
                        for r in g.itertuples()
                    ],
                }
            )
            s.blocks.append(
                Block("table", text=f"{title}: every variant", name=f"variants_{k}_{group}", table=g, shown=shown_g)
            )
        # figures first, then the tables, under a heading per set of variants
        blocks = s.blocks[first:]
        del s.blocks[first:]
        lead = [f"variants_{k}_differences", f"variants_{k}_headline", f"variants_{k}_list"]
        blocks.sort(key=lambda b: (lead.index(b.name) if b.name in lead else len(lead), b.kind != "figure"))
        s.blocks += [Block("heading", text=headings[k]), *blocks]
        moves = [
            (label, _largest(t, key, margins))
            for key, label in (
                ("start_edge", "the start player's edge"),
                ("cannons_changed_winner", "how often cannons change the winner"),
                ("vp_total", "the mean final VP"),
            )
        ]
        said = "; ".join(
            f"{label} most: {who}" if who else f"{label}: no variant by more than the margin" for label, who in moves
        )
        glance.append(
            f"Rule variants ({vs.players} players, {', '.join(dict.fromkeys(vs.policies))} at the table, "
            f"{len(vs.variants) - 1} variants, {vs.games:,} games each): "
            f'moving {said} (section "Rule variants").'
        )
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
    return (
        f"one {unit} more for the last seat moved its win share from {100 * before:.1f}% to {100 * after:.1f}% "
        f"({100 * (after - before):+.1f} points) on the search games"
    )


def compensation_section(results: list) -> tuple[Section, list[str]]:
    """The section "Seat compensation" (``smsim fairness`` results) and its at-a-glance lines."""
    s = Section(
        "Seat compensation",
        "How much should the later seats get so that every seat wins equally often? "
        "`smsim fairness` searches, on common dice, the whole number of extra start coins (`seat_coins`) or "
        "of VP (`seat_vp`) per seat that brings every seat's win share (a shared win split) closest to "
        "parity, the start player's (seat 1) fixed at 0, then plays held-out games it never searched on "
        "without and with that "
        "compensation (docs/fairness.md). A seat's remaining unfairness is *distinguishable* where its "
        "interval after compensation excludes parity.",
    )
    glance = []
    results = sorted(results, key=lambda r: (r.players, r.by))
    made = P.fairness_figure(results)
    if made is not None:
        s.blocks.append(Block("figure", text=made[1], name="seat-compensation", figure=made[0]))
    for r in results:
        t = r.table
        shown = pd.DataFrame(
            {
                "seat": [f"{int(x) + 1}{' (start)' if x == 0 else ''}" for x in t["seat"]],  # people count from 1
                f"{r.rules_field}": t["compensation"].astype(int),
                "win share before [95% CI]": [
                    interval_text(v, lo, hi, **A.RATE) for v, lo, hi in zip(t["before"], t["before_lo"], t["before_hi"])
                ],
                "after [95% CI]": [
                    interval_text(v, lo, hi, **A.RATE) for v, lo, hi in zip(t["after"], t["after_lo"], t["after_hi"])
                ],
                "still unfair": ["yes" if d else "no" for d in t["distinguishable"]],
            }
        )
        c = r.check
        line = (
            f"largest gap from parity {100 * c.get('before_max_deviation', np.nan):.1f} points before, "
            f"{100 * c.get('after_max_deviation', np.nan):.1f} after; all seats equal (chi-square): p = "
            f"{c.get('p_before', np.nan):.2g} before, {c.get('p_after', np.nan):.2g} after"
        )
        unit = _one_unit(r)
        head = (
            f"{r.players} players, `{r.policy}` in every seat, by {r.by}: found {r.rules_field} = "
            f"{list(r.compensation)} ({r.games:,} search games on seed {r.seed}; checked on {r.check_games:,} "
            f"held-out games on seed {r.check_seed}); {line}" + (f"; {unit}" if unit else "")
        )
        s.blocks.append(Block("table", text=head, name=f"compensation_{r.players}p_{r.by}", table=t, shown=shown))
        if any(r.compensation):
            left = int(t["distinguishable"].sum())
            verdict = (
                "no seat remains distinguishable from parity"
                if not left
                else f"it narrows the gap, but {left} of {r.players} seats remain distinguishable from parity"
            )
            glance.append(
                f"{r.players} players, by {r.by}: the best whole-number compensation is {r.rules_field} = "
                f"{list(r.compensation)}; {verdict} ({r.check_games:,} held-out games; {line})."
            )
        else:
            glance.append(
                f"{r.players} players, by {r.by}: no whole-number compensation beats none "
                f"({unit or 'one unit overshoots the seats differences'}); {line}."
            )
    return s, glance
