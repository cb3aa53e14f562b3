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

from smsim.errors import SmsimError

Z_95 = 1.959963984540054


MISSING = "–"
"""How smsim writes a figure it does not have (NaN, infinite, None), in the report, the terminal's
tables and the studies' printouts alike: the en dash, the typographic mark of an empty cell."""


def interval_text(
    value: float | None,
    lo: float | None = None,
    hi: float | None = None,
    digits: int | None = 1,
    signed: bool = False,
    scale: float = 1.0,
    unit: str = "",
    guard: tuple[float, ...] = (),
) -> str:
    """A figure and its interval, written one way wherever smsim prints one: ``63.1% [62.0, 64.2]``,
    ``+5.2 points [+4.9, +5.5]`` (``signed``: a difference, every number with its sign), never a
    half-width. ``scale`` multiplies all three (100 for a rate in percent); ``unit`` follows the
    value ("%", " points", " VP"); ``digits`` decimals, or None: as many as the interval's width
    needs (after ``scale``: 1 where it spans 0.2 or more, 2 where 0.02, else 3). Without ``lo``
    and ``hi``, the value alone. A missing value or bound is ``MISSING``. ``guard``: thresholds a
    verdict judges the interval against (0 and ± the margin, unscaled): a bound that would round
    onto or across one of them gets the decimals it needs (up to 4) to stay on its own side, so that
    a rounded bound never contradicts the verdict beside it.

    >>> interval_text(0.631, 0.62, 0.642, scale=100, unit="%")
    '63.1% [62.0, 64.2]'
    >>> interval_text(0.005, -0.009, 0.019, scale=100, signed=True, unit=" points")
    '+0.5 points [-0.9, +1.9]'
    >>> interval_text(0.25, 0.2496, 0.2504, digits=None, scale=100, unit="%"), interval_text(0.25, scale=100, unit="%")
    ('25.00% [24.96, 25.04]', '25.0%')
    >>> interval_text(float("nan"), 0, 1), interval_text(2.0, 1.5, float("nan"), digits=2)
    ('–', '2.00 [1.50, –]')
    >>> interval_text(0.005, -0.0001, 0.00998, scale=100, signed=True, guard=(-0.01, 0, 0.01))
    '+0.500 [-0.010, +0.998]'
    """
    if value is None or not np.isfinite(value):
        return MISSING
    if digits is None:
        width = abs(hi - lo) * scale if lo is not None and hi is not None else math.nan
        digits = 1 if not np.isfinite(width) or width >= 0.2 else 2 if width >= 0.02 else 3
    if guard and lo is not None and hi is not None:
        digits = max(_guarded_digits(x, digits, scale, guard) for x in (lo, hi))
    spec = f"{'+' if signed else ''}.{digits}f"
    text = f"{format(scale * value, spec)}{unit}"
    if lo is None and hi is None:
        return text
    bounds = ", ".join(MISSING if x is None or not np.isfinite(x) else format(scale * x, spec) for x in (lo, hi))
    return f"{text} [{bounds}]"


def _guarded_digits(x: float | None, digits: int, scale: float, guard: tuple[float, ...]) -> int:
    """The decimals that keep ``x``, rounded, on its own side of every threshold of ``guard`` (a
    bound within 0.00005 of a threshold, after ``scale``, is on it: shown as it)."""
    if x is None or not np.isfinite(x):
        return digits
    for d in range(digits, 5):
        shown = round(scale * x, d)
        if all(abs(scale * (x - t)) < 5e-5 or (shown - scale * t) * (x - t) > 0 for t in guard):
            return d
    return 4


MARGINS: dict[str, float] = {"rate": 0.01, "share": 0.01, "points": 0.01, "vp": 0.5, "rounds": 0.25, "count": 0.25}
"""The smallest change that matters, per unit of a figure (docs/report.md argues each): a rate, a
share or a difference of rates (as fractions: 0.01 is 1 point), VP, rounds, and counts per seat
(cannons lost, sides completed). The report's verdicts judge every difference against these."""

SAME, MOVES, NOT_SETTLED = "the same", "moves", "not settled"
"""What the 95% interval of a difference says against a margin (``margin_verdict``)."""


def margin_verdict(lo: float, hi: float, margin: float) -> str:
    """A difference judged by its size: ``SAME`` where its 95% interval ``[lo, hi]`` lies inside
    ``(-margin, margin)`` (any change is smaller than what matters), ``MOVES`` where it lies wholly
    beyond the margin on one side (a change at least that large), ``NOT_SETTLED`` otherwise (the
    interval straddles the margin; a missing bound too).

    >>> margin_verdict(-0.002, 0.003, 0.01), margin_verdict(0.012, 0.02, 0.01), margin_verdict(-0.005, 0.02, 0.01)
    ('the same', 'moves', 'not settled')
    """
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return NOT_SETTLED
    if -margin < lo and hi < margin:
        return SAME
    if lo >= margin or hi <= -margin:
        return MOVES
    return NOT_SETTLED


HOLDS, BOT_DEPENDENT = "holds for every bot", "bot-dependent"
"""What the intervals of one effect measured under several bots say together (``across_bots``)."""


def across_bots(intervals: list[tuple[float, float, float]], margin: float) -> tuple[str, float, float]:
    """One verdict for an effect measured under several bots on common dice, each ``(value, lo,
    hi)`` with its 95% interval, and the range of its values over the bots (the size to state).

    - ``HOLDS``: every bot's change lies beyond the margin on the same side, or every one is
      within it (``margin_verdict``: every one ``MOVES`` the same way, or every one is ``SAME``);
    - ``BOT_DEPENDENT``: one bot's change moves where another's is the same, or one moves one way
      while another's interval lies wholly on the other side of 0;
    - ``NOT_SETTLED`` otherwise: some bot's interval straddles the margin and no two disagree.

    A bot-dependent effect is never the game's: it is a property of who plays.

    >>> across_bots([(0.05, 0.03, 0.07), (0.04, 0.02, 0.06)], 0.01)[0]
    'holds for every bot'
    >>> across_bots([(0.047, 0.03, 0.06), (-0.144, -0.16, -0.13)], 0.01)
    ('bot-dependent', -0.144, 0.047)
    >>> moves = (0.05, 0.03, 0.07)
    >>> across_bots([moves, (0.0, -0.004, 0.004)], 0.01)[0], across_bots([moves, (0.0, -0.03, 0.03)], 0.01)[0]
    ('bot-dependent', 'not settled')
    """
    if not intervals:
        raise ValueError("an effect across bots needs at least one bot's interval")
    values = [v for v, _, _ in intervals]
    low, high = (min(values), max(values)) if all(np.isfinite(values)) else (math.nan, math.nan)
    said = [margin_verdict(lo, hi, margin) for _, lo, hi in intervals]
    up = any(v == MOVES and lo > 0 for v, (_, lo, _) in zip(said, intervals))
    down = any(v == MOVES and hi < 0 for v, (_, _, hi) in zip(said, intervals))
    above = any(np.isfinite(lo) and lo > 0 for _, lo, _ in intervals)
    below = any(np.isfinite(hi) and hi < 0 for _, _, hi in intervals)
    if (MOVES in said and SAME in said) or (up and below) or (down and above):
        return BOT_DEPENDENT, low, high
    if all(v == SAME for v in said) or (all(v == MOVES for v in said) and up != down):
        return HOLDS, low, high
    return NOT_SETTLED, low, high


def difference_interval(a: tuple[float, float, float], b: tuple[float, float, float]) -> tuple[float, float, float]:
    """``b`` minus ``a`` for two figures of independent samples, each ``(value, lo, hi)`` with its
    95% interval: ``(d, lo, hi)``, the standard errors (each interval's half-width over 1.96)
    combined in quadrature. NaN where a number is missing.

    >>> [round(x, 3) for x in difference_interval((0.5, 0.49, 0.51), (0.52, 0.51, 0.53))]
    [0.02, 0.006, 0.034]
    """
    if not all(np.isfinite(x) for x in (*a, *b)):
        return math.nan, math.nan, math.nan
    d = b[0] - a[0]
    half = math.hypot((a[2] - a[1]) / 2, (b[2] - b[1]) / 2)
    return d, d - half, d + half


def parse_margins(texts, error: type[Exception] = SmsimError) -> dict[str, float]:
    """``MARGINS`` with the user's ``UNIT=VALUE`` items applied (VALUE in the unit's own terms: a
    rate, share or points in percentage points, so ``rate=2`` is 0.02). A unit not in ``MARGINS``, a
    value that is not a number, or a negative one is refused with ``error`` in one line.

    >>> parse_margins(["vp=0.3", "rate=2"])["vp"], parse_margins(["rate=2"])["rate"]
    (0.3, 0.02)
    """
    out = dict(MARGINS)
    for text in texts:
        unit, sep, value = str(text).partition("=")
        unit = unit.strip().lower()
        if not sep or unit not in MARGINS:
            raise error(f"margin {text!r}: expected UNIT=VALUE with UNIT one of {', '.join(MARGINS)}")
        try:
            number = float(value)
        except ValueError:
            raise error(f"margin {text!r}: {value.strip()!r} is not a number") from None
        if not math.isfinite(number) or number < 0:
            raise error(f"margin {text!r}: must be a number of at least 0, not {value.strip()}")
        out[unit] = number / 100 if unit in ("rate", "share", "points") else number
    return out


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
