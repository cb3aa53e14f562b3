"""The intervals of single figures against known values (smsim/intervals.py)."""

import math
import subprocess
import sys

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from smsim.intervals import (
    BOT_DEPENDENT,
    HOLDS,
    MARGINS,
    MISSING,
    NOT_SETTLED,
    across_bots,
    chi2_sf,
    interval_text,
    margin_verdict,
    mean_and_interval,
    mean_interval,
    wilson_interval,
)
from smsim.report.tables import unit_form


def test_wilson_known_values():
    # Wilson 95% interval for 0 of 10 is [0, 0.2775]; for 8 of 10, [0.4902, 0.9433]
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and math.isclose(hi, 0.27753, abs_tol=1e-4)
    lo, hi = wilson_interval(8, 10)
    assert math.isclose(lo, 0.49016, abs_tol=1e-4) and math.isclose(hi, 0.94331, abs_tol=1e-4)


def test_wilson_narrows_like_one_over_root_n():
    w1 = wilson_interval(500, 1000)
    w2 = wilson_interval(50000, 100000)
    assert math.isclose((w1[1] - w1[0]) / (w2[1] - w2[0]), 10.0, rel_tol=0.01)


def test_mean_interval():
    lo, hi = mean_interval(10.0, 2.0, 100)
    assert math.isclose(lo, 10 - 1.959964 * 0.2, rel_tol=1e-6) and math.isclose(hi, 10 + 1.959964 * 0.2, rel_tol=1e-6)
    assert all(math.isnan(x) for x in mean_interval(1.0, 1.0, 1))


def test_mean_and_interval_and_chi2_against_known_values():
    mean, _lo, hi, n = mean_and_interval([1.0, 2.0, 3.0, float("nan")])
    assert (mean, n) == (2.0, 3) and math.isclose(hi - mean, 1.959963984540054 / math.sqrt(3), rel_tol=1e-12)
    assert math.isclose(chi2_sf(3.841458820694124, 1), 0.05, abs_tol=1e-9)
    assert math.isclose(chi2_sf(11.070497693516351, 5), 0.05, abs_tol=1e-9)
    assert interval_text(0.5, 0.4, 0.6, scale=100, unit="%") == "50.0% [40.0, 60.0]"


def test_one_form_for_a_figure_with_its_interval():
    # a value with its interval: the value, then its bounds in brackets, never a half-width
    assert interval_text(2.0, 1.5, 2.5) == "2.0 [1.5, 2.5]"
    assert interval_text(2.0, 1.5, 2.5, digits=2, unit=" VP") == "2.00 VP [1.50, 2.50]"
    # a rate in percent: scale and unit, the unit after the value only
    assert interval_text(0.631, 0.62, 0.642, scale=100, unit="%") == "63.1% [62.0, 64.2]"
    # a difference: every number signed, zero too
    assert interval_text(0.0, -0.004, 0.004, signed=True, scale=100) == "+0.0 [-0.4, +0.4]"
    assert interval_text(-1.25, -2.0, -0.5, digits=2, signed=True) == "-1.25 [-2.00, -0.50]"
    # decimals as the interval needs them: one, two or three of a percentage
    fit = {"digits": None, "scale": 100, "unit": "%"}
    assert interval_text(0.25, 0.24, 0.26, **fit) == "25.0% [24.0, 26.0]"
    assert interval_text(0.25, 0.2496, 0.2504, **fit) == "25.00% [24.96, 25.04]"
    assert interval_text(0.25, 0.24996, 0.25004, **fit) == "25.000% [24.996, 25.004]"
    assert interval_text(0.25, math.nan, math.nan, **fit) == f"25.0% [{MISSING}, {MISSING}]"
    # the value alone, without an interval
    assert interval_text(0.25, scale=100, unit="%") == "25.0%"


def test_a_missing_figure_is_written_one_way():
    assert MISSING == "–"  # the en dash, not a hyphen
    for missing in (math.nan, math.inf, None, float("-inf")):
        assert interval_text(missing, 0.1, 0.2) == MISSING
        assert interval_text(missing, scale=100, unit="%", signed=True) == MISSING
    # a bound that is missing (a single block: no interval) keeps the value and marks the bound
    assert interval_text(1.0, -math.inf, math.inf, signed=True) == f"+1.0 [{MISSING}, {MISSING}]"
    assert interval_text(1.0, None, 2.0) == f"1.0 [{MISSING}, 2.0]"


def test_importing_the_intervals_loads_no_pandas():
    """``smsim advise`` answers in about a second: its intervals must not pull in pandas."""
    code = "import sys, smsim.intervals, smsim.studies.advise; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_margin_verdict_by_size():
    from smsim.intervals import MOVES, SAME

    # a tiny difference measured on a huge sample: the same, however narrow its interval
    assert margin_verdict(-0.0002, -0.0001, 0.01) == SAME
    # a large one beyond the margin on either side: moves
    assert margin_verdict(0.03, 0.05, 0.01) == MOVES and margin_verdict(-0.05, -0.011, 0.01) == MOVES
    # a wide one straddling the margin: not settled
    assert margin_verdict(-0.04, 0.04, 0.01) == NOT_SETTLED
    assert margin_verdict(0.005, 0.015, 0.01) == NOT_SETTLED
    assert margin_verdict(float("nan"), 0.0, 0.01) == NOT_SETTLED


def test_difference_interval_adds_the_errors_in_quadrature():
    from smsim.intervals import difference_interval

    d, lo, hi = difference_interval((1.0, 0.7, 1.3), (2.0, 1.6, 2.4))
    assert d == pytest.approx(1.0) and hi - d == pytest.approx(0.5) and d - lo == pytest.approx(0.5)
    assert all(math.isnan(x) for x in difference_interval((1.0, float("nan"), 1.3), (2.0, 1.6, 2.4)))


@pytest.mark.parametrize("text", ["vp=-1", "vp=abc", "bogus=1", "vp", "rounds=inf"])
def test_parse_margins_refuses_bad_input(text):
    from smsim.intervals import parse_margins

    with pytest.raises(ValueError) as e:
        parse_margins([text])
    assert "\n" not in str(e.value) and text.split("=")[0] in str(e.value)


M = 0.01  # a margin of 1 point


@pytest.mark.parametrize(
    "effects, verdict",
    [
        # every bot's change beyond the margin, the same way
        ([(0.05, 0.03, 0.07), (0.04, 0.02, 0.06), (0.08, 0.06, 0.10)], HOLDS),
        ([(-0.05, -0.07, -0.03), (-0.02, -0.03, -0.011)], HOLDS),
        # every bot's change within the margin
        ([(0.002, -0.004, 0.008), (-0.001, -0.005, 0.003)], HOLDS),
        # opposite directions, both beyond the margin (free rotation's pirates: +4.7 and -14.4 points)
        ([(0.047, 0.03, 0.06), (-0.144, -0.16, -0.13)], BOT_DEPENDENT),
        # one inside the margin, one beyond it
        ([(0.05, 0.03, 0.07), (0.0, -0.004, 0.004)], BOT_DEPENDENT),
        # one moves up, another's interval lies wholly below 0 though it reaches inside the margin
        ([(0.05, 0.03, 0.07), (-0.01, -0.02, -0.002)], BOT_DEPENDENT),
        # wide: one bot's interval straddles the margin, none disagree
        ([(0.05, 0.03, 0.07), (0.02, -0.01, 0.05)], NOT_SETTLED),
        ([(0.0, -0.03, 0.03), (0.001, -0.004, 0.006)], NOT_SETTLED),
        # a missing bound settles nothing
        ([(0.05, 0.03, 0.07), (math.nan, math.nan, math.nan)], NOT_SETTLED),
    ],
)
def test_an_effect_across_bots_holds_depends_on_the_bot_or_is_not_settled(effects, verdict):
    assert across_bots(effects, M)[0] == verdict


def test_an_effect_across_bots_states_the_range_of_its_values():
    _, low, high = across_bots([(0.047, 0.03, 0.06), (-0.144, -0.16, -0.13), (0.01, 0.0, 0.02)], M)
    assert (low, high) == (-0.144, 0.047)
    assert across_bots([(0.05, 0.03, 0.07)], M) == (HOLDS, 0.05, 0.05)  # one bot: its own verdict
    with pytest.raises(ValueError, match="at least one"):
        across_bots([], M)


def test_across_bots_agrees_with_margin_verdict_for_a_single_bot():
    for lo, hi in [(-0.002, 0.003), (0.012, 0.02), (-0.005, 0.02), (-0.03, -0.02)]:
        alone = margin_verdict(lo, hi, M)
        assert across_bots([((lo + hi) / 2, lo, hi)], M)[0] == (NOT_SETTLED if alone == NOT_SETTLED else HOLDS)


@given(
    st.floats(-0.05, 0.05, allow_nan=False),
    st.floats(0, 0.03, allow_nan=False),
    st.sampled_from(["points", "vp", "rounds"]),
)
@example(-0.000001, 0.00998, "points")
@example(0.010001, 0.005, "points")
@example(-0.00495, 0.00008, "vp")
def test_a_rounded_bound_never_contradicts_the_verdict_beside_it(lo, width, unit):
    """A difference written with its unit's form (``tables.unit_form``) keeps each bound, rounded,
    on the side of 0 and of ± the margin that the bound itself is on: the page never shows
    [-0.0, +1.0] beside "the same" (a 1-point margin) or +0.5 beside a low end of 0.498."""
    scale = 1 if unit == "points" else 50
    lo, hi = lo * scale, (lo + width) * scale
    form = unit_form(unit, signed=True)
    text = interval_text((lo + hi) / 2, lo, hi, **form)
    shown = [float(x) / form.get("scale", 1) for x in text.split("[")[1].rstrip("]").split(", ")]
    margin = MARGINS[unit]
    near = [abs(b - t) * form.get("scale", 1) for b in (lo, hi) for t in (-margin, 0.0, margin)]
    assume(all(d == 0 or d >= 5e-5 for d in near))  # within 4 decimals of a threshold: as close as it is written
    for bound, said in zip((lo, hi), shown):
        for t in (-margin, 0.0, margin):
            assert bound == t or (said - t) * (bound - t) > 0, (text, bound, t)


# -- confidence sequences: valid whenever a study stops ----------------------------------------------
from smsim.intervals import (  # noqa: E402
    Z_95,
    cs_half_width,
    cs_interval,
    games_to_settle,
)


def test_the_confidence_sequence_is_wider_than_a_fixed_interval_by_its_known_factor():
    # Waudby-Smith et al. (2021), eq. (3)'s boundary with rho tuned at 20,000: at n = 20,000 and
    # sigma = 1 it is sqrt(2 (n rho^2 + 1) / (n^2 rho^2) log(sqrt(n rho^2 + 1) / 0.05)), computed here by hand
    rho2 = (-2 * math.log(0.05) + math.log(-2 * math.log(0.05) + 1)) / 20_000
    n = 20_000
    by_hand = math.sqrt(2 * (n * rho2 + 1) / (n * n * rho2) * math.log(math.sqrt(n * rho2 + 1) / 0.05))
    assert cs_half_width(1.0, n) == pytest.approx(by_hand)
    assert 1.5 < cs_half_width(1.0, n) / (Z_95 / math.sqrt(n)) < 1.6
    for n in (2_000, 50_000, 1_000_000):  # never narrower than a fixed interval, never twice as wide
        assert 1.0 < cs_half_width(1.0, n) / (Z_95 / math.sqrt(n)) < 2.0
    assert cs_half_width(2.0, 5_000) == pytest.approx(2 * cs_half_width(1.0, 5_000))


def test_cs_interval_of_values_and_games_to_settle():
    v = [0.0, 1.0] * 500
    mean, lo, hi, n = cs_interval(v + [math.nan])
    assert (mean, n) == (0.5, 1000)
    assert hi - mean == pytest.approx(cs_half_width(float(__import__("numpy").std(v, ddof=1)), 1000))
    assert lo == pytest.approx(2 * mean - hi)
    # a figure 0 with spread 0.5 needs a half-width under the margin 0.01: found where the width crosses it
    need = games_to_settle(0.0, 0.5, 1000, 0.01)
    assert cs_half_width(0.5, need) < 0.01 <= cs_half_width(0.5, int(need * 0.98))
    # beyond the margin by 0.005: the half-width must come under 0.005 (more games than inside it by 0.01)
    assert games_to_settle(0.015, 0.5, 1000, 0.01) > need
    assert games_to_settle(0.01, 0.5, 1000, 0.01, limit=123) == 123  # on the margin: no count settles it


def _looks(rng, mean: float, margin: float, half_width, first=2_000, unit=100, most=2_000_000) -> str:
    """One sequential study of one figure, as smsim study plays it (studies.study.next_games between
    looks), on paired per-game differences in {-1, 0, +1} (like a seat's win share under two rules)
    with P(+1) - P(-1) = mean: its verdict when it stops (settled, or at ``most`` games)."""
    from smsim.intervals import margin_verdict
    from smsim.studies.study import next_games

    p_up, p_down = 0.15 + mean / 2, 0.15 - mean / 2
    n = total = squares = 0
    target = first
    while True:
        up, down, _ = rng.multinomial(target - n, [p_up, p_down, 1 - p_up - p_down])
        n, total, squares = target, total + up - down, squares + up + down
        m = total / n
        std = math.sqrt(max(squares / n - m * m, 0.0) * n / (n - 1))
        half = half_width(std, n)
        said = margin_verdict(m - half, m + half, margin)
        if said != NOT_SETTLED or n >= most:
            return said
        target = next_games(games_to_settle(m, std, n, margin), n, unit, most)


@pytest.mark.parametrize("mean, margin, wrong", [(0.0, 0.0, "moves"), (0.01, 0.01, "the same")])
def test_the_stopping_rule_holds_its_error_rate_where_fixed_intervals_do_not(mean, margin, wrong):
    """The study's stopping rule on a null effect (margin 0: "moves" says the interval left 0 behind)
    and on an effect exactly at the margin (where "the same" is the error), 2,000 studies each: the
    confidence sequence errs at most 5% of the time (a Wilson 99% interval's low end above 5% fails);
    fixed 95% intervals looked at as often err clearly more (so the test can tell)."""
    import numpy as np

    rng = np.random.default_rng(2026)
    reps = 2_000
    cs = [_looks(rng, mean, margin, cs_half_width) for _ in range(reps)]
    fixed = [_looks(rng, mean, margin, lambda s, n: Z_95 * s / math.sqrt(n)) for _ in range(reps)]
    z99 = 2.5758293035489
    cs_low, _ = wilson_interval(cs.count(wrong), reps, z=z99)
    fixed_low, _ = wilson_interval(fixed.count(wrong), reps, z=z99)
    assert cs_low < 0.05, f"{cs.count(wrong)} of {reps} studies said {wrong!r}"
    assert fixed_low > 0.05, f"fixed intervals: {fixed.count(wrong)} of {reps}"
