"""The intervals of single figures and their one printed form, in plain Python and numpy (no
pandas: ``smsim advise`` imports this and answers in under a second). Grouped and cluster-aware
intervals over tables are ``smsim.stats``.

>>> lo, hi = wilson_interval(50, 100)
>>> round(lo, 3), round(hi, 3)
(0.404, 0.596)
"""

from __future__ import annotations

import math
from numbers import Real

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


def check_margins(margins: dict[str, float]) -> dict[str, float]:
    """``MARGINS`` with ``margins`` over it; a unit it does not know, or a margin that is not a
    number of at least 0, refused in one line (``SmsimError``)."""
    for unit, m in dict(margins).items():
        if unit not in MARGINS:
            raise SmsimError(f"margin {unit!r}: not a unit; one of {', '.join(MARGINS)}")
        if isinstance(m, bool) or not isinstance(m, Real) or not (math.isfinite(m) and m >= 0):
            raise SmsimError(f"margin {unit}: must be a number of at least 0, not {m!r}")
    return {**MARGINS, **{u: float(m) for u, m in dict(margins).items()}}


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
    return _around_mean(values, lambda std, n: z * std / math.sqrt(n) if n > 1 else math.inf)


def _around_mean(values: np.ndarray, half_width) -> tuple[float, float, float, int]:
    """(mean, lo, hi, n) of the values that are not NaN, ``half_width(std, n)`` either side."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    n = len(v)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(v.mean())
    half = half_width(float(v.std(ddof=1)) if n > 1 else math.nan, n)
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


# -- anytime-valid intervals: a study that looks at its figures after every round and stops when they
# settle (``studies.study``) needs intervals that hold whenever it stops, not only at a count fixed
# in advance: a fixed 95% interval looked at after each of ten rounds calls a null effect a change
# about a fifth of the time (tests/test_intervals.py measures it).
DESIGN_GAMES = 20_000
"""Where a confidence sequence of ``cs_half_width`` is narrowest relative to a fixed interval: about
the games a study's figures settle in at the default margins (a few thousand to some hundred
thousand). It is fixed before any game is played, as the sequence's validity requires."""


def _mixture_rho(alpha: float, design: float) -> float:
    """The normal mixture's spread that makes the boundary tightest at ``design`` samples
    (Waudby-Smith et al. 2021, eq. (3); the same choice as Howard et al.'s normal mixture)."""
    return math.sqrt((-2 * math.log(alpha) + math.log(-2 * math.log(alpha) + 1)) / design)


def cs_half_width(std: float, n: int, alpha: float = 0.05, design: float = DESIGN_GAMES) -> float:
    """The half-width of a two-sided asymptotic confidence sequence for the mean of independent
    values with standard deviation ``std``, after ``n`` of them (Waudby-Smith, Arbour, Sinha,
    Kennedy and Ramdas, "Time-uniform central limit theory and asymptotic confidence sequences",
    2021: the normal-mixture boundary of Robbins, with the sample's own standard deviation): with
    probability at least 1 - ``alpha`` (asymptotically), the mean lies within this of the running
    mean at every n at once, so a study may look after every round and stop when it likes. About
    1.55 times the fixed 95% interval's half-width at ``design`` values, under 2 times from 2,000 to
    1,000,000: the price of looking as often as one likes (about 2.4 times the games for one width).

    >>> round(cs_half_width(1.0, 20_000) / (Z_95 / math.sqrt(20_000)), 2)
    1.55
    >>> cs_half_width(1.0, 1), cs_half_width(0.0, 500)
    (inf, 0.0)
    """
    if n < 2 or not np.isfinite(std):
        return math.inf
    rho2 = _mixture_rho(alpha, design) ** 2
    return std * math.sqrt(2 * (n * rho2 + 1) / (n * n * rho2) * math.log(math.sqrt(n * rho2 + 1) / alpha))


def cs_interval(
    values: np.ndarray, alpha: float = 0.05, design: float = DESIGN_GAMES
) -> tuple[float, float, float, int]:
    """(mean, lo, hi, n) of independent values (NaN ones left out) with the confidence sequence's
    bounds (``cs_half_width``): what a sequential study states of a figure."""
    return _around_mean(values, lambda std, n: cs_half_width(std, n, alpha, design))


def games_to_settle(value: float, std: float, n: int, margin: float, limit: int = 10**9) -> int:
    """About how many values in all the confidence sequence of a figure needs for ``margin_verdict``
    to settle, if its mean and spread stay at ``value`` and ``std``: its half-width must come under
    the distance from ``|value|`` to the margin (inside it: "the same"; beyond it: "moves"). ``limit``
    where the value sits on the margin (no count settles it) or past it; ``n`` where it is settled.

    >>> games_to_settle(0.0, 0.5, 1000, 0.01) > 1000, games_to_settle(0.01, 0.5, 1000, 0.01)
    (True, 1000000000)
    """
    need = abs(margin - abs(value))
    if not (np.isfinite(value) and np.isfinite(std)) or need <= 0:
        return limit
    if cs_half_width(std, n) < need:
        return n
    lo, hi = max(n, 2), 2 * max(n, 2)
    while cs_half_width(std, hi) >= need:
        lo, hi = hi, 2 * hi
        if hi > limit:
            return limit
    while hi - lo > max(1, lo // 100):  # to a percent: an estimate, not a promise
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if cs_half_width(std, mid) >= need else (lo, mid)
    return hi
