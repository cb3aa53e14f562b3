"""Key findings: the effect size against a hand computation, a planted effect found with the
numbers of an independent recomputation, nothing stated from a handful of games, sentences that
follow the data of another seed, and the rule that a stated finding's interval excludes its null."""

import re

import numpy as np
import pandas as pd
import pytest

from smsim.report import findings as F
from smsim.report import ladder as LA
from smsim.report.tables import read_report_data
from smsim.rules import Rules
from smsim.runs.batch import simulate_to
from smsim.intervals import Z_95, effect_size, wilson_interval


def test_effect_size_is_cohens_h_for_rates_and_d_for_other_figures():
    # rates: Cohen's h, whatever the interval (it does not grow with the games)
    h = 2 * np.arcsin(np.sqrt(0.30)) - 2 * np.arcsin(np.sqrt(0.25))
    assert F.effect(0.30, 0.26, 0.36, 0.25, "rate") == pytest.approx(h)
    assert F.effect(0.30, 0.29, 0.31, 0.25, "rate") == pytest.approx(h)
    # a difference of rates from a base rate: the two rates' h
    assert F.effect(0.05, 0.03, 0.07, 0.0, "points", 1000, base=0.25) == pytest.approx(h)
    # other figures: Cohen's d, the sd of one unit from the interval on the null's side
    se = 0.5 / Z_95  # the half-width towards the null, 2.0 - 1.5
    assert F.effect(2.0, 1.5, 3.0, 0.0, "vp", units=100) == pytest.approx(2.0 / (se * 10))
    # the same effect on four times the games: a narrower interval, the same size
    assert F.effect(2.0, 1.75, 2.25, 0.0, "vp", units=400) == pytest.approx(2.0 / (se * 10))
    assert np.isnan(F.effect(0.5, np.nan, 0.6, 0.4, "rate"))
    a, b = (10.0, 9.0, 11.0), (7.0, 6.0, 8.0)
    sd = np.sqrt(((1 / Z_95) ** 2 * 25 + (1 / Z_95) ** 2 * 25) / 2)
    assert effect_size(a, b, False, 25, 25)[0] == pytest.approx(-3.0 / sd)
    assert effect_size((0.3, 0.2, 0.4), (0.25, 0.2, 0.3), True)[0] == pytest.approx(-h)


def test_findings_and_the_ladder_take_one_effect_size():
    """The ladder's step judges the change that ``intervals.effect_size`` measures, the findings'
    effect is its size: one computation for both."""
    a, b = (2.0, 1.9, 2.1), (2.02, 1.92, 2.12)
    d, se = effect_size(a, b, False, 10_000, 10_000)
    assert F.effect(*b, a[0], "vp", 10_000) == pytest.approx(abs(effect_size(b, a[0], False, 10_000)[0]))
    assert (abs(d) + Z_95 * se < LA.MARGIN) == (LA.step(("vp", *a, 10_000), ("vp", *b, 10_000)) == "within")
    assert LA.step(("vp", *a, 10_000), ("vp", *b, 10_000)) == "within"
    assert LA.step(("vp", *a, 100), ("vp", *b, 100)) == "wide"  # the same figures from 100 games cannot tell


def test_a_finding_writes_its_figure_in_the_one_form():
    """A finding's figure is ``intervals.interval_text``'s form: the unit after the value, a rate in
    percent and a difference of rates in points to the decimals their interval needs."""
    from smsim.intervals import MISSING

    def short(value, lo, hi, unit):
        return F.Finding("k", "2 players", "", value, lo, hi, 0.0, "", unit, 1000, 0.0, True).short

    assert short(0.631, 0.62, 0.642, "rate") == "2 players: 63.1% [62.0, 64.2] (1,000 games)"
    assert short(0.05, 0.04, 0.06, "points") == "2 players: +5.0 points [+4.0, +6.0] (1,000 games)"
    assert short(0.0512, 0.0511, 0.0513, "points") == "2 players: +5.120 points [+5.110, +5.130] (1,000 games)"
    assert short(2.0, 1.5, 2.5, "vp") == "2 players: 2.00 VP [1.50, 2.50] (1,000 games)"
    assert short(np.nan, np.nan, np.nan, "vp") == f"2 players: {MISSING} (1,000 games)"
    assert F.rounds_words(-4.85, -4.88, -4.82) == "its games end 4.85 rounds [4.82, 4.88] sooner"
    assert F.rounds_words(0.01, -0.02, 0.04) == "its games last as long as the baseline's (+0.01 rounds [-0.02, +0.04])"


def _raw_seats(path) -> pd.DataFrame:
    return pd.concat([pd.read_parquet(f) for f in sorted((path / "seats").glob("*.parquet"))], ignore_index=True)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A 2-player mirror in which the start player gets 6 VP (``seat_vp``): its edge is plain."""
    root = tmp_path_factory.mktemp("findings")
    simulate_to(str(root / "edge"), 400, 2, ["balanced"], seed=21, rules=Rules(seat_vp=(6, 0)), batch=400)
    return root / "edge"


def test_a_planted_start_player_edge_is_found_with_its_numbers(planted):
    found = F.key_findings(read_report_data([str(planted)]))
    stated = {c.key: f for c, f, _ in found.stated}
    f = stated["start_edge"]
    seats = _raw_seats(planted)
    share = seats["won"] / seats.groupby("game")["won"].transform("sum")  # a shared win split between its winners
    first = share[seats["seat"] == 0]
    n = len(first)
    assert (f.value, f.games, f.null) == (pytest.approx(first.mean()), n, 0.5)
    lo, hi = wilson_interval(first.sum(), n)  # a share's rate interval (stats.grouped_share); one seat 0 a game
    assert (f.lo, f.hi) == (pytest.approx(lo), pytest.approx(hi))
    assert f"{100 * first.mean():.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" in f.sentence and f"{n:,} games" in f.sentence
    assert f.sentence.startswith("The start player wins more often than parity: at 2 players")


def test_stated_findings_exclude_their_null_and_come_in_order_of_effect(planted):
    found = F.key_findings(read_report_data([str(planted)]))
    effects = [f.effect for _, f, _ in found.stated]
    assert effects == sorted(effects, reverse=True) and len(effects) <= F.MAX_FINDINGS
    for c, f, others in found.stated:
        for g in (f, *others):
            assert g.stated and g.effect > 0
            if c.key == "wall_bonus":  # two figures side by side: their intervals apart
                continue
            assert not (g.lo <= g.null <= g.hi), g.sentence
    for _, f in found.cannot_tell:
        assert not f.stated
    keys = {c.key for c, *_ in found.stated} | {c.key for c, _ in found.cannot_tell}
    assert keys | {c.key for c in found.not_measured} == {c.key for c in F.CANDIDATES}
    assert {c.key for c in found.not_measured} == {"strongest_policy", "variant", "skill_gap", "skill_variant"}


def test_twenty_games_support_no_finding(tmp_path):
    simulate_to(str(tmp_path / "few"), 20, 4, ["balanced"], seed=22)
    found = F.key_findings(read_report_data([str(tmp_path / "few")]))
    assert found.stated == [] and found.more == []
    assert {c.key for c, _ in found.cannot_tell} >= {"start_edge", "cannons", "attacks"}


def test_the_sentences_follow_the_data(planted, tmp_path):
    simulate_to(str(tmp_path / "other"), 400, 2, ["balanced"], seed=23, rules=Rules(seat_vp=(6, 0)), batch=400)
    one = {c.key: f.sentence for c, f, _ in F.key_findings(read_report_data([str(planted)])).stated}
    two = {c.key: f.sentence for c, f, _ in F.key_findings(read_report_data([str(tmp_path / "other")])).stated}
    assert one["start_edge"] != two["start_edge"]
    # the same words around other numbers
    assert re.sub(r"[\d.,]+", "#", one["start_edge"]) == re.sub(r"[\d.,]+", "#", two["start_edge"])


def test_every_finding_carries_its_verdict_across_strengths(planted, tmp_path):
    """One level: every finding says no strength check was possible. With a second level, the
    start player's finding carries the ladder's verdict of seat 0's win rate at its player count,
    and says at which level its conclusion holds."""
    from smsim.report import ladder as LA

    one = F.key_findings(read_report_data([str(planted)]))
    assert one.stated
    for _, f, _ in one.stated:
        assert f.verdict == F.NO_CHECK and f.strength.startswith("No strength check was possible")
    simulate_to(str(tmp_path / "learned"), 400, 2, ["learned"], seed=24, rules=Rules(seat_vp=(6, 0)), batch=400)
    data = read_report_data([str(planted), str(tmp_path / "learned")])
    two = {c.key: f for c, f, _ in F.key_findings(data).stated}
    f = two["start_edge"]
    v = LA.ladder_verdicts(LA.ladder_table(data))
    row = v[(v["figure"] == "seat_win") & (v["item"] == "0")].iloc[0]
    assert f.verdict == row["verdict"] and f.verdict in F.FINDING_VERDICTS
    said = "holds" if row["L2_lo"] > 0.5 else "is not shown"
    assert f.strength.startswith(f"Across strengths of play, it {said} under `learned` ({LA.level_value(row, 2)})")
    assert {"stable": "is stable", "strength-dependent": "is strength-dependent",
            "not settled": "is not settled"}[f.verdict] in f.strength  # fmt: skip
