"""Intervals against known values."""

import math

from smsim.stats import mean_interval, wilson_interval


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
