"""The findings: a designer's order on constructed tables, a planted start player's edge found with
the numbers of an independent recomputation, sentences that follow the data of another seed, the
margin rule's wording, mechanical effects left out, variants ranked on their quantity's scale and
named with their default, and the levels of play shown with the style-not-strength rule."""

import math
import re

import numpy as np
import pandas as pd
import pytest

from smsim.report import findings as F
from smsim.report.tables import read_report_data
from smsim.rules import Rules
from smsim.runs.batch import simulate_to


def test_a_finding_writes_its_figure_in_the_one_form():
    """A finding's figure is ``intervals.interval_text``'s form: the unit after the value, a
    difference of rates in points to the decimals its interval needs."""
    assert F.rounds_words(-4.85, -4.88, -4.82) == "its games end 4.85 rounds [4.82, 4.88] sooner"
    assert F.rounds_words(0.01, -0.02, 0.04) == "its games last as long as the baseline's (+0.01 rounds [-0.02, +0.04])"
    said, verdict = F.judged(0.0512, 0.0511, 0.0513, "points", F.MARGINS, "at 2 players")
    assert said == "at 2 players +5.120 points [+5.110, +5.130]" and verdict == F.MOVES


def _raw_seats(path) -> pd.DataFrame:
    return pd.concat([pd.read_parquet(f) for f in sorted((path / "seats").glob("*.parquet"))], ignore_index=True)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A 2-player mirror in which the start player gets 6 VP (``seat_vp``): its edge is plain (and no
    game of seed 22 is a shared win, so a win rate is the same split or not)."""
    root = tmp_path_factory.mktemp("findings")
    simulate_to(str(root / "edge"), 400, 2, ["balanced"], seed=22, rules=Rules(seat_vp=(6, 0)), batch=400)
    return root / "edge"


def test_a_planted_start_player_edge_is_found_with_its_numbers(planted):
    found = {f.key: f for f in F.report_findings(read_report_data([str(planted)]))}
    f = found["start_edge"]
    seats = _raw_seats(planted)
    first = seats[seats["seat"] == 0]
    n = len(first)
    winners = seats.groupby("game")["won"].sum()  # a win shared by k counts 1/k to each
    assert winners.max() == 1
    share = float(first["won"].sum())
    said = re.search(r"at 2 players ([+-][\d.]+) points \[([+-][\d.]+), ([+-][\d.]+)\] \(([\d,]+) games\)", f.sentence)
    value, lo, hi = (float(x) / 100 for x in said.groups()[:3])
    assert value == pytest.approx(
        share / n - 0.5, abs=5.1e-4
    )  # written to 0.1 point and int(said.group(4).replace(",", "")) == n
    half = 1.96 * np.sqrt(0.25 / n)  # no wider than a rate's widest interval, no narrower than half of it
    assert lo < value < hi and half / 2 < (hi - lo) / 2 < half * 1.05 and f.verdict == F.MOVES
    assert f.sentence.startswith("The start player's edge (its win share minus parity): at 2 players +")


def test_the_sentences_follow_the_data(planted, tmp_path):
    simulate_to(str(tmp_path / "other"), 400, 2, ["balanced"], seed=23, rules=Rules(seat_vp=(6, 0)), batch=400)
    one = {f.key: f.sentence for f in F.report_findings(read_report_data([str(planted)]))}
    two = {f.key: f.sentence for f in F.report_findings(read_report_data([str(tmp_path / "other")]))}
    assert one["start_edge"] != two["start_edge"]
    # the same words around other numbers
    assert re.sub(r"[\d.,+-]+", "#", one["start_edge"]) == re.sub(r"[\d.,+-]+", "#", two["start_edge"])


# -- the findings in a designer's order, on constructed tables ----------------------------------------
from smsim.intervals import MARGINS, MOVES, NOT_SETTLED, SAME, Z_95  # noqa: E402
from smsim.studies.fairness import FairnessResult  # noqa: E402
from smsim.studies.skill import UNSETTLED, SkillResult, ordered_levels  # noqa: E402
from smsim.studies.sweep import Variant, VariantSet  # noqa: E402


def _glance(edge: tuple[float, float, float], players: int = 2, changed=(0.15, 0.14, 0.16)) -> pd.DataFrame:
    p = 1.0 / players
    return pd.DataFrame(
        [
            {
                "players": players,
                "games": 10_000,
                "field": "simulate: balanced, balanced",
                "start_win": p + edge[0],
                "start_win_lo": p + edge[1],
                "start_win_hi": p + edge[2],
                "last_win": np.nan,
                "last_win_lo": np.nan,
                "last_win_hi": np.nan,
                "parity": p,
                "changed": changed[0],
                "changed_lo": changed[1],
                "changed_hi": changed[2],
                "rounds": 20.0,
                "rounds_lo": 19.9,
                "rounds_hi": 20.1,
            }
        ]
    )


def _matrix(players: int, cells: dict[tuple[str, str], tuple[float, float, float]], games: int = 200) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "players": players,
                "row": r,
                "col": c,
                "share": v,
                "lo": lo,
                "hi": hi,
                "blocks": games // players,
                "games": games,
                "parity": 1.0 / players,
            }
            for (r, c), (v, lo, hi) in cells.items()
        ]
    )


def _skill(players: int, cells: dict, gaps: pd.DataFrame | None = None, variants: list = ()) -> SkillResult:
    from smsim.studies.skill import GAP_COLUMNS

    gaps = gaps if gaps is not None else pd.DataFrame(columns=GAP_COLUMNS)
    return SkillResult("skill", players, 1, tuple(F.A.LADDER), _matrix(players, cells), gaps, list(variants), "")


def _variant_set(
    rows: list[tuple[str, dict, str, str, float, float, float]], players: int = 4, policy: str = "balanced"
) -> tuple[VariantSet, pd.DataFrame]:
    """A sweep's table from (variant, varied, metric, unit, diff, diff_lo, diff_hi) rows, each
    metric's baseline a mean of 0.5 over 10,000 games with a per-game sd of 0.5 (a rate's)."""
    names = {"baseline": {}, **{r[0]: r[1] for r in rows}}
    variants = [Variant(n, v, Rules.from_dict(v)) for n, v in names.items()]
    vs = VariantSet("sweep", players, [policy] * players, 10_000, 1, True, variants, {}, [])
    half = Z_95 * 0.5 / np.sqrt(10_000)
    table = []
    for metric, unit in {(r[2], r[3]) for r in rows}:
        table.append(
            {
                "variant": "baseline",
                "metric": metric,
                "label": metric,
                "unit": unit,
                "value": 0.5,
                "lo": 0.5 - half,
                "hi": 0.5 + half,
                "games": 10_000,
                "diff": np.nan,
                "diff_lo": np.nan,
                "diff_hi": np.nan,
            }
        )
    for name, _, metric, unit, d, lo, hi in rows:
        table.append(
            {
                "variant": name,
                "metric": metric,
                "label": metric,
                "unit": unit,
                "value": 0.5 + d,
                "lo": np.nan,
                "hi": np.nan,
                "games": 10_000,
                "diff": d,
                "diff_lo": lo,
                "diff_hi": hi,
            }
        )
    return vs, pd.DataFrame(table)


def test_the_findings_come_in_a_designers_order():
    """Whatever the data hold, the findings come in the order a designer asks them, a finding
    without data saying so rather than dropping out."""
    none = F.design_findings(_glance((0.0, -0.001, 0.001)).iloc[:0])
    assert [f.key for f in none] == list(F.DESIGN_ORDER)
    assert all(f.verdict == F.NOT_MEASURED for f in none)
    skills = [_skill(2, {("learned", "balanced"): (0.65, 0.64, 0.66)})]
    sets = [_variant_set([("rotation_cost=1", {"rotation_cost": 1}, "rounds", "rounds", -1.2, -1.3, -1.1)])]
    found = F.design_findings(_glance((0.03, 0.02, 0.04)), skills=skills, variant_sets=sets)
    assert [f.key for f in found] == list(F.DESIGN_ORDER)
    assert [f.verdict for f in found][:2] == [MOVES, MOVES] and found[3].verdict == MOVES
    assert found[0].sentence.startswith("The start player's edge") and "+3.0 points [+2.0, +4.0]" in found[0].sentence
    assert "rotation cost 2 → 1" in found[4].sentence


@pytest.mark.parametrize(
    "edge, words, verdict",
    [
        ((0.002, -0.004, 0.008), "no larger than the margin of 1 point", SAME),
        ((0.03, 0.02, 0.04), "at 2 players +3.0 points [+2.0, +4.0]", MOVES),
        ((0.012, 0.004, 0.02), "not settled", NOT_SETTLED),
    ],
)
def test_an_effect_is_worded_by_its_margin(edge, words, verdict):
    """Inside the margin: "no larger than"; clear of it: the effect stated; across it: not settled,
    though this interval excludes zero (the margin decides, not the null)."""
    f = F.start_edge_finding(_glance(edge))
    assert words in f.sentence and f.verdict == verdict
    if verdict == MOVES:
        assert "no larger" not in f.sentence and "not settled" not in f.sentence
    # a wider margin turns the stated edge into one no larger than it
    wide = F.start_edge_finding(_glance((0.03, 0.02, 0.04)), margins={**MARGINS, "points": 0.05})
    assert "no larger than the margin of 5 points" in wide.sentence and wide.verdict == SAME


def test_a_mechanical_effect_is_left_out():
    """A side defending 1 instead of 2 loses more cannons by its own arithmetic: the largest effect
    of the sweep, it is not a finding; the smaller effect on the length is."""
    assert F.mechanical({"side_defence": 1}, "cannons_lost") and F.mechanical(
        {"pirate_strengths": [1]}, "attack_6_held"
    )
    assert F.mechanical({"cannon_penalty": 3}, "vp_cannon_vp") and not F.mechanical(
        {"rotation_cost": 1}, "cannons_lost"
    )
    sets = [
        _variant_set(
            [
                ("side_defence=1", {"side_defence": 1}, "cannons_lost", "count", 3.0, 2.9, 3.1),
                ("side_defence=1", {"side_defence": 1}, "sides_completed", "count", 0.4, 0.3, 0.5),
            ]
        )
    ]
    found = {f.key: f for f in F.design_findings(_glance((0, -0.001, 0.001)).iloc[:0], variant_sets=sets)}
    assert "cannons_lost" not in found["remaining"].sentence
    assert "sides_completed" in found["remaining"].sentence and "side defence 2 → 1" in found["remaining"].sentence
    assert "1 of 1 effects clear their margin" in found["remaining"].sentence


def test_variants_rank_in_a_designers_units_not_by_the_spread():
    """The issue's example: coins left +2.26 VP on a quantity that varies little per game ranked
    first by change over spread, while church VP moved by -22.6; in margins (a change over the
    smallest change that matters in its unit) church VP comes first. A share's change is stated on
    its numerator (church VP), never on its denominator's account (the church VP share)."""
    rows = [
        ("side_defence=1", {"side_defence": 1}, "vp_coins_vp", "vp", 2.26, 2.2, 2.3),
        ("rotation_cost=0", {"rotation_cost": 0}, "vp_church_vp", "vp", -22.6, -23.0, -22.2),
        ("side_defence=1", {"side_defence": 1}, "church_vp_share", "rate", 0.118, 0.11, 0.126),
    ]
    vs, t = _variant_set(rows)
    t.loc[(t["variant"] == "baseline") & (t["metric"] == "vp_coins_vp"), ["lo", "hi"]] = [0.5 - 1e-4, 0.5 + 1e-4]
    f = F.remaining_finding([(vs, t)])
    assert f.sentence.index("rotation cost 2 → 0") < f.sentence.index("side defence 2 → 1")
    assert "church_vp_share" not in f.sentence and f.line.startswith("rotation cost 2 → 0")


def test_an_effect_is_judged_across_the_bots_that_measured_it():
    """The same variants under two bots on common dice: an effect both move the same way beyond the
    margin is stated with both figures (the range first); one they move in opposite directions is
    bot-dependent, set apart and never stated as the game's (free rotation's pirates: +4.7 points
    under one bot, -14.4 under the other)."""
    free = ("rotation_cost=0", {"rotation_cost": 0})
    one = _variant_set(
        [(*free, "cannons_changed_winner", "rate", 0.047, 0.03, 0.06), (*free, "rounds", "rounds", -6.0, -6.2, -5.8)],
        policy="learned",
    )
    two = _variant_set(
        [
            (*free, "cannons_changed_winner", "rate", -0.144, -0.16, -0.13),
            (*free, "rounds", "rounds", -3.77, -3.9, -3.6),
        ]
    )
    f = F.variants_finding([one, two], [])
    assert "rotation cost 2 → 0 (free rotation) moves the game's length by -6.00 to -3.77 rounds" in f.sentence
    assert "every bot: -6.00 rounds [-6.20, -5.80] with L2 `learned` in every seat, -3.77 rounds" in f.sentence
    dependent = f.sentence.split("Bot-dependent, so not the game's: ")[1]
    assert "the games the pirates decide +4.7 points [+3.0, +6.0] with L2 `learned` in every seat" in dependent
    assert "-14.4 points [-16.0, -13.0] with L1 `balanced` in every seat" in dependent
    assert "pirates decide by" not in f.sentence  # not stated as the game's
    assert "1 of 2 effects clear their margin under every bot that measured them, 1 is bot-dependent" in f.sentence
    assert "(2 bots agree)" in f.line and "1 bot-dependent" in f.line
    # the same rules under the same bot in a second sweep (a shipped variant beside the same --vary
    # value, on the same seed): one effect per bot, not two
    twice = F.variants_finding([one, two, two], [])
    assert twice.sentence == f.sentence
    # one bot alone: said to hold for that bot only
    alone = F.variants_finding([two], [])
    assert "(L1 `balanced` in every seat only)" in alone.line


def test_a_compensation_that_flips_the_edge_is_said_to_overshoot():
    """Catch-up coins move the start player's edge from +1.5 to -3.4 points and widen the widest gap
    between two seats from 2.9 to 8.2 points: the finding says it overshoots, and by how much."""
    vs, t = _variant_set([("catch-up", {"seat_coins": [0, 1, 2, 3]}, "start_edge", "points", -0.049, -0.06, -0.038)])
    t.loc[(t["variant"] == "baseline") & (t["metric"] == "start_edge"), "value"] = 0.015
    seats = {"baseline": (0.265, 0.25, 0.249, 0.236), "catch-up": (0.216, 0.21, 0.29, 0.286)}
    extra = [
        {
            "variant": v,
            "metric": f"win_seat_{k}",
            "label": "",
            "unit": "rate",
            "value": x,
            "lo": x,
            "hi": x,
            "games": 10_000,
        }
        | {"diff": np.nan, "diff_lo": np.nan, "diff_hi": np.nan}
        for v, xs in seats.items()
        for k, x in enumerate(xs)
    ]
    t = pd.concat([t, pd.DataFrame(extra)], ignore_index=True)
    f = F.variants_finding([(vs, t)], [])
    assert "it overshoots: the edge goes from +1.5 to -3.4 points" in f.sentence
    assert "the widest gap between two seats from 2.9 to 8.0 points (wider: not fairer)" in f.sentence
    assert "overshoots" in f.line


def test_an_overshooting_compensation_is_said_even_when_larger_effects_lead():
    """Three variants moving the game's length by many margins lead the finding; the compensation
    that turns the start player's edge into a deficit is still said to overshoot, in the sentence
    and on the first screen's line."""
    big = [(f"cost{k}", {"rotation_cost": 3 + k}, "rounds", "rounds", -3.0 - k, -3.1 - k, -2.9 - k) for k in range(3)]
    rows = [*big, ("catch-up", {"seat_coins": [0, 1, 2, 3]}, "start_edge", "points", -0.049, -0.06, -0.038)]
    vs, t = _variant_set(rows)
    t.loc[(t["variant"] == "baseline") & (t["metric"] == "start_edge"), "value"] = 0.015
    f = F.variants_finding([(vs, t)], [])
    catch_up = "seat coins [0, 0, 0, 0] → [0, 1, 2, 3] (catch up)"
    assert f.sentence.count("moves the game's length") == 3 and f"{catch_up} moves" not in f.sentence
    assert (
        f"A compensation that overshoots: {catch_up} (4 players; it overshoots: the edge goes from +1.5" in f.sentence
    )
    assert f.line.endswith(f"; {catch_up} overshoots")


def test_every_variant_is_named_with_its_default():
    """Every rules field a variant may change is named with the printed value and the new one."""
    base = Rules().to_dict()
    for name, value in base.items():
        said = F.variant_words({name: value})
        assert f"{name.replace('_', ' ')} ".lower() in said.lower() and " → " in said
    assert F.variant_words({"side_defence": 1}) == "side defence 2 → 1"
    assert F.variant_words({"rotation_cost": 0}, "free-rotation") == "rotation cost 2 → 0 (free rotation)"
    assert F.variant_words({"seat_coins": [0, 1]}) == "seat coins [0, 0] → [0, 1]"
    sets = [_variant_set([("cannon_penalty=7", {"cannon_penalty": 7}, "rounds", "rounds", 0.6, 0.5, 0.7)])]
    assert "cannon penalty 5 → 7 moves the game's length" in F.variants_finding(sets, []).sentence


def test_levels_level_in_a_head_to_head_differ_in_style_not_strength():
    """L3 against L2 with parity inside its interval: not ordered, and said to be a difference of
    style; L2 against L1 clear above parity: ordered, the stronger."""
    cells = {
        ("learned", "balanced"): (0.64, 0.63, 0.65),
        ("balanced", "learned"): (0.36, 0.35, 0.37),
        ("rollout-learned", "learned"): (0.49, 0.43, 0.55),
        ("learned", "rollout-learned"): (0.51, 0.45, 0.57),
    }
    skills = [_skill(2, cells)]
    assert ordered_levels(skills, 2) == {("balanced", "learned"): True, ("learned", "rollout-learned"): UNSETTLED}
    lines = F.levels_lines(skills)
    assert len(lines) == 3 and lines[0].startswith("L1 `balanced`: ")
    wide = "49.0% [43.0, 55.0] (parity 50.0%, 200 games): not settled: neither shown stronger nor level (about 7,200"
    assert wide in lines[2]
    assert "L2 `learned` is the stronger" in lines[1]
    assert "not settled: neither shown stronger nor level" in F.skill_finding(skills).sentence
    said = F.levels_sentence(skills)
    assert "L3 is not settled against L2 at 2 players (too few games: about 7,200 would settle it)" in said
    assert "level with" not in said  # a few hundred games do not make two levels level
    # inside parity ± the margin: level, a difference of style
    narrow = [
        _skill(
            2,
            {
                **cells,
                ("rollout-learned", "learned"): (0.50, 0.496, 0.504),
                ("learned", "rollout-learned"): (0.50, 0.496, 0.504),
            },
        )
    ]
    assert ordered_levels(narrow, 2)[("learned", "rollout-learned")] is False
    assert "L3 is level with L2 at 2 players (a difference of style, not of strength)" in F.levels_sentence(narrow)
    assert "level (a difference of style, not of strength)" in F.levels_lines(narrow)[2]
    # only the lower level's seat played (4 players): read the other way
    four = [_skill(4, {("learned", "rollout-learned"): (0.15, 0.12, 0.18)})]
    assert ordered_levels(four, 4) == {("learned", "rollout-learned"): True}
    clear = [_skill(2, {**cells, ("rollout-learned", "learned"): (0.6, 0.55, 0.65)})]
    assert ordered_levels(clear, 2)[("learned", "rollout-learned")]
    assert "style" not in F.levels_lines(clear)[2]


def test_the_wall_bonus_finding_reads_the_ablation_and_says_when_there_is_none():
    none = F.wall_bonus_finding(None)
    assert none.verdict == F.NOT_MEASURED and "no wall-bonus ablation" in none.sentence
    t = pd.DataFrame(
        [
            {
                "players": 4,
                "policy": p,
                "side": s,
                "bonus": b,
                "face_vp": 1.0,
                "games": 1000,
                "win_change": w,
                "win_change_lo": w - 0.005,
                "win_change_hi": w + 0.005,
                "vp_change": v,
                "vp_change_lo": v - 0.1,
                "vp_change_hi": v + 0.1,
            }
            for p in ("learned", "balanced")
            for s, b, w, v in (("top", "1 person", 0.03, 1.5), ("right", "2 coins", 0.002, 0.2))
        ]
    )
    f = F.wall_bonus_finding(t)
    assert f.verdict == MOVES and "`balanced` in every seat" in f.sentence and "learned" not in f.sentence
    # win share first, VP second
    assert (
        "the top side's 1 person +3.0 points [+2.5, +3.5] of win share at 4 players (+1.50 VP [+1.40, +1.60])"
        in f.sentence
    )
    assert "(no larger than the margin of 0.5 VP (+0.20 VP [+0.10, +0.30]))" in f.sentence
    assert f.line.startswith("top (1 person) +3.0 points [+2.5, +3.5] of win share")
    assert "A VP is worth" not in f.sentence  # no bonus of plain VP: no exchange rate
    # every player count judged, the fewest and the most said; two sides with one bonus compared
    t = [
        pd.DataFrame(
            [
                {
                    "players": n,
                    "policy": "balanced",
                    "side": s,
                    "bonus": b,
                    "face_vp": 1.0,
                    "games": 1000,
                    "win_change": 0.05,
                    "win_change_lo": 0.04,
                    "win_change_hi": 0.06,
                    "vp_change": v + n / 10,
                    "vp_change_lo": v + n / 10 - 0.05,
                    "vp_change_hi": v + n / 10 + 0.05,
                }
                for n in (2, 3, 5)
                for s, b, v in (("right", "2 coins", 1.0), ("left", "2 coins", d))
            ]
        )
        for d in (1.0, 2.0)
    ]
    same, apart = (F.wall_bonus_finding(x) for x in t)
    assert "of win share at 2 players to +5.0 points [+4.0, +6.0] of win share at 5 players" in same.sentence
    assert "(+1.20 VP [+1.15, +1.25] to +1.50 VP [+1.45, +1.55])" in same.sentence
    assert "at 3 players" not in same.sentence and "(2 to 5 players)" in same.line
    assert "(left - right) agree at every player count" in same.sentence
    assert "(left - right) differ" in apart.sentence and "+1.00 VP" in apart.sentence


def test_the_exchange_rate_of_a_vp_comes_from_the_bonus_of_plain_vp():
    rows = [
        {"players": n, "policy": "balanced", "side": s, "bonus": b, "face_vp": 3.0, "games": 1000}
        | {"win_change": w, "win_change_lo": w - 0.002, "win_change_hi": w + 0.002}
        | {"vp_change": v, "vp_change_lo": v - 0.02, "vp_change_hi": v + 0.02}
        for n, s, b, w, v in (
            (2, "top", "a person of up to 3 heads", 0.161, 2.69),
            (2, "bottom", "3 VP", 0.087, 2.89),
            (5, "top", "a person of up to 3 heads", 0.108, 3.43),
            (5, "bottom", "3 VP", 0.069, 2.85),
        )
    ]
    f = F.wall_bonus_finding(pd.DataFrame(rows))
    assert (
        "A VP is worth about 3.0 points at 2 players (the bottom side's 3 VP: +8.7 points for +2.89 VP), " in f.sentence
    )
    assert "2.4 points at 5 players" in f.sentence
    # the person, worth less VP than the bottom's 3 VP, is said first by its larger win share
    assert f.sentence.index("+16.1 points") < f.sentence.index("+2.69 VP")


def test_the_compensation_that_removes_the_edge():
    table = pd.DataFrame(
        {
            "seat": [0, 1],
            "compensation": [0, 1],
            "before": [0.53, 0.47],
            "before_lo": [0.52, 0.46],
            "before_hi": [0.54, 0.48],
            "after": [0.501, 0.499],
            "after_lo": [0.495, 0.493],
            "after_hi": [0.507, 0.505],
            "distinguishable": [False, False],
        }
    )
    r = FairnessResult(2, "balanced", "coins", 1000, 1, 5000, 2, 6, (0, 1), Rules(seat_coins=(0, 1)), table, [], {})
    f = F.start_edge_finding(_glance((0.03, 0.02, 0.04)), [r])
    assert (
        "seat coins [0, 0] → [0, 1] leaves every seat within the margin of 1 point of parity (5,000 held-out games)"
    ) in f.sentence


def test_a_variant_spells_out_its_largest_effects_and_counts_the_rest():
    """A variant moving many figures names its ``MOST_EFFECTS`` largest, largest first, and counts
    the others, so that a finding stays one readable sentence."""
    rows = [
        (
            "rotation_cost=3",
            {"rotation_cost": 3},
            f"attack_{k}_held",
            "rate",
            0.01 * (k + 2),
            0.01 * (k + 1.5),
            0.01 * (k + 2.5),
        )
        for k in range(1, 7)
    ]  # six attacks held more often, each beyond 1 point
    f = F.remaining_finding([_variant_set(rows)])
    assert f.verdict == MOVES
    named = [k for k in range(1, 7) if f'attack_{k}_held" by' in f.sentence]
    assert named == [4, 5, 6]
    assert f.sentence.index("attack_6_held") < f.sentence.index("attack_5_held") < f.sentence.index("attack_4_held")
    assert f"{6 - F.MOST_EFFECTS} more figures beyond their margins" in f.sentence


def test_each_finding_says_whether_it_holds_under_stronger_play():
    """The start player's edge, the pirates and the wall bonuses, stated at L1, carry the ladder's
    verdict across levels of the figure they state, per player count, with each level's value;
    a level with too few games is named as such, and sets nothing."""
    row = {"unit": "rate", "section": "Outcomes", "parity": 0.5, "levels": 3, "margin": 0.01, "direction": ""}
    verdicts = pd.DataFrame(
        [
            row
            | {"players": 2, "figure": "seat_win", "item": "0", "label": "Seat 1", "verdict": "stable"}
            | {"reason": "every step within 1 point; too few games at L3 (L2 → L3 not settled (...))"}
            | {"L1": 0.520, "L2": 0.523, "L3": 0.49},
            row
            | {"players": 2, "figure": "cannons_changed_winner", "item": "", "label": "Cannons"}
            | {"verdict": "strength-dependent", "direction": "rises with strength", "reason": "L1 → L2 moves"}
            | {"L1": 0.108, "L2": 0.129, "L3": np.nan},
            *(
                row
                | {"players": 2, "figure": "wall_bonus", "item": side, "label": side, "unit": "vp"}
                | {"verdict": v, "reason": "", "L1": 2.0, "L2": 2.1, "L3": np.nan}
                for side, v in (("top", "stable"), ("right", "stable"), ("bottom", "not settled"), ("left", "stable"))
            ),
        ]
    )
    found = F.design_findings(_glance((0.02, 0.01, 0.03)))
    told = {f.key: f for f in F.with_strength(found, verdicts)}
    said = "at 2 players stable (L1 52.0%, L2 52.3%, L3 49.0%; too few games at L3)."
    assert told["start_edge"].sentence.endswith(f"Under stronger play (the ladder's levels): {said}")
    assert "at 2 players strength-dependent, rises with strength (L1 10.8%, L2 12.9%)" in told["pirates"].sentence
    assert told["wall_bonus"].sentence == found[2].sentence  # no ablation: nothing stated, nothing told
    assert told["start_edge"].line == found[0].line and told["skill"] == found[3]
    assert F.with_strength(found, verdicts.iloc[:0]) == found


def test_a_skill_gap_measured_over_a_bot_its_adapted_bot_beats_is_not_the_games():
    """Free rotation's skill gap (+29 points, one L2 seat among L1) is measured with an L1 tuned for a
    2-coin rotation, which the bot adapted to free rotation beats in 91.5% of games: the effect is
    bot-dependent, said with that reason, never "more a game of skill"; a variant whose adapted bot
    found nothing keeps its own verdict."""
    from smsim.studies.skill import GAP_COLUMNS

    gaps = pd.DataFrame(
        [
            {"variant": "baseline", "gap": 0.15, "gap_lo": 0.14, "gap_hi": 0.16, "diff": np.nan},
            {"variant": "free-rotation", "gap": 0.44, "gap_lo": 0.43, "gap_hi": 0.45, "diff": 0.29},
            {"variant": "rotation_cost=1", "gap": 0.17, "gap_lo": 0.16, "gap_hi": 0.18, "diff": 0.02},
        ],
        columns=GAP_COLUMNS,
    ).assign(
        diff_lo=lambda d: d["diff"] - 0.005,
        diff_hi=lambda d: d["diff"] + 0.005,
        blocks=1_000,
        rounds=21.3,
        rounds_diff=np.nan,
        unpaired_lo=lambda d: d["diff"] - 0.01,
        unpaired_hi=lambda d: d["diff"] + 0.01,
    )
    skill = _skill(
        4,
        {("learned", "balanced"): (0.40, 0.39, 0.41)},
        gaps,
        [
            {"name": "baseline", "varied": {}, "rules": Rules().to_dict()},
            {"name": "free-rotation", "varied": {"rotation_cost": 0}},
            {"name": "rotation_cost=1", "varied": {"rotation_cost": 1}},
        ],
    )
    vs, t = _variant_set(
        [
            ("free-rotation", {"rotation_cost": 0}, "rounds", "rounds", -3.77, -3.9, -3.6),
            ("rotation_cost=1", {"rotation_cost": 1}, "rounds", "rounds", -1.1, -1.2, -1.0),
        ]
    )
    vs.bots = [
        {"variant": "free-rotation", "share": 0.915, "share_lo": 0.896, "share_hi": 0.934, "parity": 0.5},
        {"variant": "rotation_cost=1", "share": 0.5, "share_lo": 0.5, "share_hi": 0.5, "parity": 0.5},
    ]
    f = F.variants_finding([(vs, t)], [skill])
    dependent = f.sentence.split("Bot-dependent, so not the game's: ")[1]
    assert "rotation cost 2 → 0 (free rotation): the skill gap +29.0 points" in dependent
    assert "(L1 `balanced` is not adapted to it: the bot adapted to it wins 91.5% [89.6, 93.4] of games" in dependent
    kept = F.across_effects(F._variant_effects([(vs, t)], [skill], F.MARGINS))
    rc1 = next(g for g in kept if g.first.metric == "skill_gap" and g.first.variant.startswith("rotation cost 2 → 1"))
    assert rc1.verdict == F.ONE_BOT and not rc1.first.unfit
    # the skill section says the same: its verdict, its sentence, and its summary leaves it out
    from smsim.report.studies import skill_section, unadapted_of

    assert unadapted_of([vs]) == {"rotation cost 2 → 0 (free rotation)": "91.5% [89.6, 93.4]"}
    section, glance = skill_section([skill], unadapted=unadapted_of([vs]))
    table = next(b for b in section.blocks if b.name == "skill_4p_variants").shown.set_index("variant")
    assert table.loc["rotation cost 2 → 0 (free rotation)", "verdict"] == (
        "bot-dependent: L1 not adapted (its adapted bot wins 91.5% [89.6, 93.4])"
    )
    assert table.loc["rotation cost 2 → 1", "verdict"] == "more skill"
    said = next(b for b in section.blocks if b.text == "What each variant does to the skill gap").items
    assert said[0].startswith("rotation cost 2 → 0 (free rotation): bot-dependent, not the game's")
    assert "more a game of skill" not in said[0] and "most: rotation cost 2 → 1" in glance[-1]


def test_the_variants_summary_says_a_fix_overshoots():
    """The section's line "In short" names the variant that moves the start player's edge most and,
    where it turns the edge into a deficit, says so with the widest seat gap before and after."""
    from smsim.report.studies import _largest

    rows = [
        ("catch-up", {"seat_coins": [0, 1, 2, 3]}, "start_edge", "points", -0.049, -0.06, -0.038),
        ("catch-up", {"seat_coins": [0, 1, 2, 3]}, "seat_gap", "points", 0.053, 0.045, 0.062),
    ]
    _, t = _variant_set(rows)
    t.loc[(t["variant"] == "baseline") & (t["metric"] == "start_edge"), "value"] = 0.015
    t.loc[(t["variant"] == "baseline") & (t["metric"] == "seat_gap"), "value"] = 0.029
    t.loc[(t["variant"] == "catch-up") & (t["metric"] == "seat_gap"), "value"] = 0.082
    t.loc[(t["variant"] == "catch-up") & (t["metric"] == "start_edge"), "value"] = -0.034
    said = _largest(t, "start_edge")
    assert "(-4.9 points [-6.0, -3.8]), overshooting: the edge goes from +1.5 to -3.4 points" in said
    assert said.endswith("and the widest gap between two seats from 2.9 to 8.2")
    t.loc[(t["variant"] == "baseline") & (t["metric"] == "start_edge"), "value"] = 0.08  # +8.0 to +3.1: no flip
    assert "overshooting" not in _largest(t, "start_edge")


def test_the_depth_is_said_from_greedy_in_classes_beside_a_published_depth():
    from smsim.studies import ladder as D

    row = dict(zip(D.STEP_COLUMNS, [np.nan] * len(D.STEP_COLUMNS)))
    chain = [(lower, upper, share, share - 0.01, share + 0.01)
             for lower, upper, share in [("random", "greedy-noise-50", 0.9), ("greedy-noise-50", "greedy", 0.85),
                                         ("greedy", "balanced", 0.88), ("balanced", "learned", 0.64)]]  # fmt: skip
    steps = pd.DataFrame([
        row | {"players": 2, "lower": lo, "upper": up, "check": False, "head_share": p, "head_lo": a, "head_hi": b,
               "head_blocks": 2000, "head_games": 4000}
        for lo, up, p, a, b in chain
    ])  # fmt: skip
    depth = D.depth_table(steps).assign(seed=7)
    a = depth.set_index("row").loc[D.FROM_ANCHOR_ROW]
    # by hand: logit(0.88) + logit(0.64) over logit(0.6); a class of 200 Elo points is a 76.0% score
    assert a.steps == pytest.approx((math.log(0.88 / 0.12) + math.log(0.64 / 0.36)) / math.log(1.5))
    assert pytest.approx(0.7597, abs=1e-4) == F.CLASS_SCORE
    assert pytest.approx(math.log(10) / 2 / math.log(1.5)) == F.CLASS_IN_STEPS
    lines = F.depth_line(depth)
    assert len(lines) == 2 and lines[0].startswith("Depth: from `random` to L2 `learned`")
    said = f"From `greedy`, the rung that takes the most VP each turn, it is {a.steps:.2f} ["
    assert lines[1].startswith(said), lines[1]
    assert f"{a.steps / F.CLASS_IN_STEPS:.1f} [" in lines[1] and F.PUBLISHED_DEPTH in lines[1]
    assert "chess about 31 of them" in lines[1]
    # a ladder without greedy says no such line
    assert len(F.depth_line(depth[depth["row"] != D.FROM_ANCHOR_ROW])) == 1
