"""The intervals of single figures and their one printed form, in plain Python and numpy (no
pandas: ``smsim advise`` imports this and answers in under a second). Grouped and cluster-aware
intervals over tables are ``smsim.stats``.

>>> lo, hi = wilson_interval(50, 100)
>>> round(lo, 3), round(hi, 3)
(0.404, 0.596)
"""

from __future__ import annotations

import math

import numpy as np

Z_95 = 1.959963984540054


def interval_text(value: float, lo: float, hi: float, digits: int = 1, signed: bool = False, scale: float = 1.0,
                  unit: str = "") -> str:  # fmt: skip
    """A figure and its interval, written one way wherever smsim prints one: ``63.1% [62.0, 64.2]``,
    ``+5.2 [+4.9, +5.5]`` (``signed``: a difference, every number with its sign), never a
    half-width. ``scale`` multiplies all three (100 for a rate in percent); ``unit`` follows the
    value ("%", " pts").

    >>> interval_text(0.631, 0.62, 0.642, scale=100, unit="%")
    '63.1% [62.0, 64.2]'
    >>> interval_text(0.005, -0.009, 0.019, scale=100, signed=True, unit=" pts")
    '+0.5 pts [-0.9, +1.9]'
    >>> interval_text(float("nan"), 0, 1)
    '-'
    """
    if not np.isfinite(value):
        return "-"
    spec = f"{'+' if signed else ''}.{digits}f"
    bounds = ", ".join("-" if not np.isfinite(x) else format(scale * x, spec) for x in (lo, hi))
    return f"{format(scale * value, spec)}{unit} [{bounds}]"

def wilson_interval(successes: float, n: float, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a binomial rate (good near 0 and 1, unlike the normal one)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(mean: float, std: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Normal-approximation interval of a mean: mean +- z * std / sqrt(n)."""
    if n <= 1:
        return (math.nan, math.nan)
    half = z * std / math.sqrt(n)
    return (mean - half, mean + half)


def mean_and_interval(values: np.ndarray, z: float = Z_95) -> tuple[float, float, float, int]:
    """Mean of independent values (NaN ones left out), its normal interval and how many values
    there were: (mean, lo, hi, n). With one value the interval is infinite. What ``compare``
    computes over blocks."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    n = len(v)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(v.mean())
    half = z * float(v.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return mean, mean - half, mean + half, n


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X chi-square with ``dof`` (a whole number >= 1) degrees of freedom: the
    regularised upper incomplete gamma Q(dof / 2, x / 2), built up from Q(1, y) = exp(-y) or
    Q(1/2, y) = erfc(sqrt(y)) by Q(a + 1, y) = Q(a, y) + y^a exp(-y) / Gamma(a + 1).

    >>> round(chi2_sf(3.841458820694124, 1), 6), round(chi2_sf(9.487729036781154, 4), 6)
    (0.05, 0.05)
    """
    if dof < 1:
        raise ValueError(f"dof must be >= 1, got {dof}")
    if not x > 0:
        return 1.0
    y = x / 2
    a, q = (1.0, math.exp(-y)) if dof % 2 == 0 else (0.5, math.erfc(math.sqrt(y)))
    while a < dof / 2:
        q += math.exp(a * math.log(y) - y - math.lgamma(a + 1))
        a += 1
    return min(1.0, q)
