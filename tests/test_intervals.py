"""The intervals of single figures against known values (smsim/intervals.py)."""

import math
import subprocess
import sys

from smsim.intervals import chi2_sf, interval_text, mean_and_interval, mean_interval, wilson_interval


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
    mean, lo, hi, n = mean_and_interval([1.0, 2.0, 3.0, float("nan")])
    assert (mean, n) == (2.0, 3) and math.isclose(hi - mean, 1.959963984540054 / math.sqrt(3), rel_tol=1e-12)
    assert math.isclose(chi2_sf(3.841458820694124, 1), 0.05, abs_tol=1e-9)
    assert math.isclose(chi2_sf(11.070497693516351, 5), 0.05, abs_tol=1e-9)
    assert interval_text(0.5, 0.4, 0.6, scale=100, unit="%") == "50.0% [40.0, 60.0]"


def test_importing_the_intervals_loads_no_pandas():
    """``smsim advise`` answers in about a second: its intervals must not pull in pandas."""
    code = "import sys, smsim.intervals, smsim.studies.advise; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
