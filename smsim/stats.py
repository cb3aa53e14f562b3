"""Intervals for the rates and means smsim reports.

>>> lo, hi = wilson_interval(50, 100)
>>> round(lo, 3), round(hi, 3)
(0.404, 0.596)
"""

from __future__ import annotations

import math

Z_95 = 1.959963984540054


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
