"""The sections on how the game feels: "How the game feels" (the win probability round by round,
comebacks, when a game is decided, how close it ends: ``studies.shape`` under a ``studies.winprob``
model) and "What matters" (each part of the game forbidden to one seat: ``studies.matters``), each
with its figures first and its at-a-glance lines."""

from __future__ import annotations

import pandas as pd

from smsim.intervals import interval_text
from smsim.report import plots as P
from smsim.report import tables as A
from smsim.report.render import Block, Section
from smsim.studies.shape import FIGURE

FEEL_TITLE, LUCK_TITLE, MATTERS_TITLE = "How the game feels", "Luck against skill", "What matters"

FORMS = {"count": dict(digits=2), "rounds": dict(digits=1), "vp": dict(digits=1), "rate": A.RATE, "prob": A.RATE}
"""How each unit of a shape figure is written (``studies.shape.ShapeFigure.unit``)."""

DIFFERENCE_FORMS = {
    "count": dict(digits=2, signed=True),
    "rounds": dict(digits=1, signed=True),
    "vp": dict(digits=1, signed=True),
    "rate": A.POINTS,
    "prob": A.POINTS,
}
"""How a paired difference of a shape figure is written: rates and probabilities in points."""


def _section(title: str, intro: str, measured: bool, missing: str) -> Section:
    """A section opening with ``intro``; where nothing was ``measured``, it says ``missing`` and no more."""
    s = Section(title, intro)
    if not measured:
        s.blocks.append(Block("missing", text=missing))
    return s


def _figure(made: P.Plot | None, name: str, missing: str) -> Block:
    if made is None:
        return Block("missing", text=missing, name=name)
    return Block("figure", text=made[1], name=name, figure=made[0])


def shape_table(shapes: list) -> pd.DataFrame:
    """Every shape figure of every dataset, one row each (``studies.shape.ShapeResult.figures``)."""
    shown = A.naming_root([r.source for r in shapes])  # by folder under the runs directory, never a machine's path
    return pd.concat([r.figures.assign(dataset=shown(r.source)) for r in shapes], ignore_index=True)


def shape_shown(t: pd.DataFrame) -> pd.DataFrame:
    """The shape figures as the page shows them: a row a figure, a column a dataset."""
    columns = {}
    for (players, policy), at in t.groupby(["players", "policy"], sort=False):
        rows = at.set_index("figure")
        columns[f"{players} players, {policy}"] = [
            interval_text(rows.loc[f, "value"], rows.loc[f, "lo"], rows.loc[f, "hi"], **FORMS[FIGURE[f].unit])
            if f in rows.index
            else ""
            for f in FIGURE
        ]
    return pd.DataFrame({"figure": [FIGURE[f].label for f in FIGURE], **columns})


def calibration_shown(summaries: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "players": [s["players"] for s in summaries],
            "policy": [s.get("policy", "") for s in summaries],
            "held-out positions": [f"{s['positions']:,}" for s in summaries],
            "games": [f"{s['games']:,}" for s in summaries],
            "Brier score": [f"{s['brier']:.4f}" for s in summaries],
            "knowing nothing (1/P)": [f"{s['brier_uniform']:.4f}" for s in summaries],
            "calibration error (points)": [f"{s['ece_points']:.2f}" for s in summaries],
        }
    )


def variants_shown(t: pd.DataFrame) -> pd.DataFrame:
    """Rules variants' shapes minus their base's (``shape.shape_difference`` rows with ``variant``):
    a row a figure, a column a variant and player count; rates in points."""
    columns = {}
    for (players, variant), at in t.groupby(["players", "variant"], sort=False):
        rows = at.set_index("figure")
        columns[f"{variant}, {players} players"] = [
            interval_text(
                rows.loc[f, "value"], rows.loc[f, "lo"], rows.loc[f, "hi"], **DIFFERENCE_FORMS[FIGURE[f].unit]
            )
            if f in rows.index
            else ""
            for f in FIGURE
        ]
    return pd.DataFrame({"figure": [FIGURE[f].label for f in FIGURE], **columns})


def feel_section(
    shapes: list, calibration: list[dict], variants: pd.DataFrame | None = None
) -> tuple[Section, list[str]]:
    """The section "How the game feels": the win-probability fan and the comeback curves, then the
    shape table, each rules variant's change of it (``variants``: paired on the same games), and the
    model's calibration on the games held out; and its at-a-glance lines."""
    s = _section(
        FEEL_TITLE,
        "From every seat's position at the start of every round (`simulate --rounds`) and a "
        "model of each seat's chance of winning from there (`smsim winprob`, fitted on mirror games apart "
        "from these): how soon the winner's chance rises, how often a winner came back, when a game is "
        "decided and how close it ends (`smsim shape`, docs/feel.md). Every figure with its 95% interval "
        "over games.",
        bool(shapes),
        "No dataset here records round snapshots: write mirror games with "
        "`smsim simulate --rounds` and give `smsim report` a model with --winprob.",
    )
    glance: list[str] = []
    if not shapes:
        return s, glance
    s.blocks.append(_figure(P.winprob_fan(shapes), "winprob-fan", "No round reached by enough games to draw."))
    s.blocks.append(_figure(P.comeback_curves(shapes), "comebacks", "No game with a single winner."))
    t = shape_table(shapes)
    s.blocks.append(
        Block(
            "table",
            text="The shape of the games: lead changes, comebacks, when a game is decided, how close it ends",
            name="game_shape",
            table=t,
            shown=shape_shown(t),
            fold=False,
        )
    )
    if variants is not None and len(variants):
        s.blocks.append(
            Block(
                "table",
                text="Each rules variant's shape minus the printed rules', on the same games "
                "(the same seed, so the same dice), paired game by game",
                name="game_shape_variants",
                table=variants,
                shown=variants_shown(variants),
                fold=False,
            )
        )
    if calibration:
        s.blocks.append(
            Block(
                "table",
                text="The win-probability model's calibration on the held-out games (one in "
                "five) of these datasets: Brier score beside that of knowing nothing, and the expected "
                "calibration error in points",
                name="winprob_calibration",
                table=pd.DataFrame([{k: v for k, v in c.items() if k != "reliability"} for c in calibration]),
                shown=calibration_shown(calibration),
            )
        )
    for r in shapes:
        f = r.figures.set_index("figure")
        glance.append(
            f"{r.players} players, `{r.policy}`: {f.loc['lead_changes_vp', 'value']:.1f} lead changes a game "
            f"by VP; the winner fell below 10% and came back in "
            f"{interval_text(f.loc['comeback', 'value'], f.loc['comeback', 'lo'], f.loc['comeback', 'hi'], **A.RATE)}"
            f" of games; decided {f.loc['decided_before_end', 'value']:.1f} rounds before the end; "
            f"{100 * f.loc['close', 'value']:.0f}% of games won by 2 VP or less."
        )
    return s, glance


def matters_shown(t: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "players": t["players"].astype(int),
            "policy": t["policy"],
            "part": t["part"],
            "games": [f"{int(g):,}" for g in t["games"]],
            "win share lost, points [95% CI]": [
                interval_text(v, lo, hi, **A.POINTS) for v, lo, hi in zip(t["loss"], t["loss_lo"], t["loss_hi"])
            ],
            "VP behind [95% CI]": [
                interval_text(v, lo, hi, signed=True) for v, lo, hi in zip(t["vp_loss"], t["vp_lo"], t["vp_hi"])
            ],
            "verdict": t["verdict"],
            "rank": t["rank"].astype(int),
        }
    )


def matters_section(results: list) -> tuple[Section, list[str]]:
    """The section "What matters" (``studies.matters.read_matters`` results): the ranking figure, the
    table, and how far the rankings of the strengths agree; and its at-a-glance lines."""
    s = _section(
        MATTERS_TITLE,
        "Each part of the game a player may forgo (churches, walls, crates, logs, turning "
        "dice, each person type), forbidden to one seat of a policy against the same policy unrestricted in "
        "every other seat, every seat rotation on the same dice (`smsim matters`): the win share the seat "
        "loses against the fair share, in points, and its VP behind the others, with 95% intervals over "
        "blocks. A part's worth is its worth to the policy measured, the rest of its play unchanged "
        "(docs/feel.md).",
        bool(results),
        "No what-matters study among these data: run `smsim matters --out DIR` and give DIR to `smsim report`.",
    )
    glance: list[str] = []
    if not results:
        return s, glance
    t = pd.concat([r.table for r in results], ignore_index=True)
    agree = pd.concat([r.agreement for r in results], ignore_index=True)
    s.blocks.append(_figure(P.matters_figure(t), "what-matters", "No part measured."))
    seeds = ", ".join(str(r.table.attrs["seed"]) for r in results if "seed" in r.table.attrs)
    s.blocks.append(
        Block(
            "table",
            text=f"Each part's worth, ranked per strength and player count (seed {seeds})",
            name="what_matters",
            table=t,
            shown=matters_shown(t),
        )
    )
    for (players, policy), at in t.groupby(["players", "policy"], sort=False):
        top = at.sort_values("rank").head(3)
        cheap = at[at["verdict"].isin(["can be ignored", "matters, little"])]["part"].tolist()
        glance.append(
            f"{players} players, `{policy}`: most worth "
            + ", ".join(f"{r.part} ({100 * r.loss:+.1f} points)" for r in top.itertuples())
            + (f"; worth under the 1-point margin: {', '.join(cheap)}" if cheap else "")
            + "."
        )
    for r in agree.itertuples():
        glance.append(
            f"{r.players} players: the parts ranked by `{r.policy}` and by `{r.against}` agree with "
            f"Spearman's rho {r.spearman:.2f} over {r.parts} parts."
        )
    return s, glance


def luck_shown(results: list) -> pd.DataFrame:
    rows = []
    for r in results:
        f = r.table.set_index("figure")
        rows.append(
            {
                "players": r.plan.players,
                "match": f"{r.plan.policy} against {r.plan.against}",
                "blocks": f"{r.table.attrs['blocks']:,}",
                "as played [95% CI]": interval_text(
                    f.loc["gap", "value"], f.loc["gap", "lo"], f.loc["gap", "hi"], signed=True, scale=100
                ),
                "luck taken out": interval_text(
                    f.loc["gap_adjusted", "value"],
                    f.loc["gap_adjusted", "lo"],
                    f.loc["gap_adjusted", "hi"],
                    signed=True,
                    scale=100,
                ),
                "narrower": f"{f.loc['narrower', 'value']:.2f} x",
                "games alone": f"{f.loc['narrower_games', 'value']:.2f} x",
                "luck explains": f"{100 * f.loc['explained', 'value']:.1f}%",
                "own rolls": f"{100 * f.loc['explained_own', 'value']:.1f}%",
                "leads with 95% after": f"{f.loc['games_to_lead', 'value']:,.0f} games "
                f"({f.loc['games_to_lead_adjusted', 'value']:,.0f} adjusted)",
                "endgame": f"under {r.plan.endgame} empty spaces" if r.plan.endgame else "none (the model's)",
            }
        )
    return pd.DataFrame(rows)


def luck_section(results: list) -> tuple[Section, list[str]]:
    """The section "Luck against skill" (``studies.luck.read_luck`` results): the figure, then the
    table of each match; and its at-a-glance lines."""
    s = _section(
        LUCK_TITLE,
        "How much of a result is the dice (`smsim luck`): one seat of a policy against another "
        "in the other seats, every seat rotation on the same dice, every turn's luck measured as each seat's "
        "expected win credit after the turn against before it, the mean of plays by the same policies with "
        "other dice to the round's end (read by the win-probability model) or, in the game's endgame, to its "
        "end. The skill gap is the seat's win share above parity, as played and with its luck taken out (a "
        "control variate: the two agree, the second with a narrower interval); the share of a seat's result "
        "its luck explains is a lower bound, the share the model misses outside the endgame left out "
        "(docs/feel.md).",
        bool(results),
        "No luck match among these data: run `smsim luck ... --out DIR` and give DIR to `smsim report`.",
    )
    glance: list[str] = []
    if not results:
        return s, glance
    s.blocks.append(_figure(P.luck_figure(results), "luck", "No luck match."))
    shown = luck_shown(results)
    table = pd.concat(
        [r.table.assign(players=r.plan.players, policy=r.plan.policy, against=r.plan.against) for r in results],
        ignore_index=True,
    )
    s.blocks.append(
        Block(
            "table",
            text="Each match's skill gap as played and with the luck taken out, in points",
            name="luck",
            table=table,
            shown=shown,
            fold=False,
        )
    )
    for r, row in zip(results, shown.itertuples(index=False)):
        glance.append(
            f"{r.plan.players} players, `{r.plan.policy}` against `{r.plan.against}`: the dice explain "
            f"{row[7]} of a seat's result ({row[8]} its own rolls); the gap {row[3]} points as played, "
            f"{row[4]} with the luck taken out ({row[5]} narrower)."
        )
    return s, glance
