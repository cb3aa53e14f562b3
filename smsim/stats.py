"""Intervals for the rates and means smsim reports: one path for ``smsim summary``, ``smsim
report`` and the analysis tables.

>>> lo, hi = wilson_interval(50, 100)
>>> round(lo, 3), round(hi, 3)
(0.404, 0.596)

Rows often come in *clusters* that are not independent: the P seats of one game share its dice
and its winner, and in a ``compare`` dataset all the games of one block share their dice. Every
grouped interval therefore starts from a group's cluster sums (``cluster_sums``): the rows' count,
sum and sum of squares, and over its clusters the count, the sum of (cluster total)^2, of
(cluster total x cluster size) and of (cluster size)^2. From them follow the cluster-robust
(sandwich) variance of the group's mean (``clustered_variance``), a rate's Wilson interval with n
deflated by the design effect (``clustered_rate``) and a mean's normal interval with the larger
of the independent and the cluster-robust standard error (``clustered_mean``). Where every row is
its own cluster these are the plain Wilson and normal intervals. The sums add up over chunks of
games (``add_cluster_sums``), so a summary accumulated a chunk at a time gets exactly the interval
the report computes from every row at once.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

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

SUM_COLUMNS = ("n", "total", "total_sq", "clusters", "cluster_sq", "cluster_cross", "cluster_n_sq", "cluster_max")
"""The cluster sums of a group: rows, sum and sum of squares of the values; clusters, sum over
clusters of (cluster total)^2, (cluster total x cluster rows) and (cluster rows)^2, and the most
rows in one cluster."""


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


# -- clusters -------------------------------------------------------------------------------------
def cluster_sums(keys: list[pd.Series], values: pd.Series, cluster: pd.Series | None) -> pd.DataFrame:
    """Per group of ``keys``, the cluster sums (``SUM_COLUMNS``) of ``values``; without
    ``cluster`` every row is its own cluster."""
    y = pd.Series(values.to_numpy(np.float64), index=values.index)
    if cluster is None:
        g = y.groupby(keys, observed=True)
        out = pd.DataFrame({"n": g.size().astype(np.float64), "total": g.sum(),
                            "total_sq": (y * y).groupby(keys, observed=True).sum()})
        out["clusters"] = out["n"]
        out["cluster_sq"] = out["total_sq"]
        out["cluster_cross"] = out["total"]
        out["cluster_n_sq"] = out["n"]
        out["cluster_max"] = 1.0
        return out[list(SUM_COLUMNS)]
    rows = pd.DataFrame({"y": y, "y2": y * y, "n": 1.0}).groupby([*keys, cluster], observed=True).sum()
    levels = list(range(len(keys)))
    g = rows.groupby(level=levels, observed=True)
    cl = pd.DataFrame({"sq": rows["y"] ** 2, "cross": rows["y"] * rows["n"], "n_sq": rows["n"] ** 2, "n": rows["n"]})
    gc = cl.groupby(level=levels, observed=True)
    out = pd.DataFrame({"n": g["n"].sum(), "total": g["y"].sum(), "total_sq": g["y2"].sum(),
                        "clusters": gc.size().astype(np.float64), "cluster_sq": gc["sq"].sum(),
                        "cluster_cross": gc["cross"].sum(), "cluster_n_sq": gc["n_sq"].sum(),
                        "cluster_max": gc["n"].max()})  # fmt: skip
    return out[list(SUM_COLUMNS)]


def add_cluster_sums(a: pd.DataFrame | None, b: pd.DataFrame) -> pd.DataFrame:
    """The cluster sums of two sets of rows whose clusters are disjoint (two chunks of games),
    group by group."""
    if a is None or a.empty:
        return b.copy()
    a, b = a.align(b, join="outer", fill_value=0.0)
    out = a + b
    out["cluster_max"] = np.maximum(a["cluster_max"], b["cluster_max"])
    return out


def clustered_variance(sums: pd.DataFrame) -> pd.Series:
    """Per group, the cluster-robust (sandwich) variance of the mean: c / (c - 1) times the sum
    over the c clusters of (cluster total - mean x cluster rows)^2, over n^2. NaN where no
    cluster holds two rows (rows independent: the plain variance applies)."""
    n, mean, c = sums["n"], sums["total"] / sums["n"], sums["clusters"]
    ss = sums["cluster_sq"] - 2 * mean * sums["cluster_cross"] + mean * mean * sums["cluster_n_sq"]
    var = ss.clip(lower=0.0) * c / (c - 1).clip(lower=1) / n**2
    return var.where(sums["cluster_max"] > 1)


def clustered_rate(sums: pd.DataFrame, name: str) -> pd.DataFrame:
    """n, count, rate and 95% Wilson interval per group from the cluster sums of a 0/1 flag.
    Where rows share a cluster, n is deflated by the design effect (cluster-robust over binomial
    variance, at least 1) before the Wilson interval is taken, so shared dice never make an
    interval too narrow."""
    n = sums["n"]
    out = pd.DataFrame({"n": n.astype(np.int64), f"{name}_count": sums["total"].round().astype(np.int64)})
    p = sums["total"] / n
    out[name] = p
    binomial = p * (1 - p) / n
    deff = (clustered_variance(sums) / binomial).where(binomial > 0).fillna(1.0).clip(lower=1.0)
    n_eff = n / deff
    bounds = [wilson_interval(pi * m, m) for pi, m in zip(p, n_eff)]
    out[f"{name}_lo"] = [b[0] for b in bounds]
    out[f"{name}_hi"] = [b[1] for b in bounds]
    return out


def clustered_mean(sums: pd.DataFrame, name: str) -> pd.DataFrame:
    """Mean and normal 95% interval per group from the cluster sums; where rows share a cluster,
    the standard error is the larger of the independent and the cluster-robust one."""
    n = sums["n"]
    mean = sums["total"] / n
    plain = ((sums["total_sq"] - n * mean * mean).clip(lower=0.0) / (n - 1)).where(n > 1) / n
    var = np.maximum(plain, clustered_variance(sums).fillna(0.0))
    half = Z_95 * np.sqrt(var)
    return pd.DataFrame({name: mean, f"{name}_lo": mean - half, f"{name}_hi": mean + half})


def _cluster_of(df: pd.DataFrame) -> pd.Series | None:
    return df["cluster"] if "cluster" in df else None


def grouped_rate(df: pd.DataFrame, by: list[str], flag: pd.Series, name: str) -> pd.DataFrame:
    """n, count, rate and 95% interval of a boolean ``flag`` per group of ``df[by]``, with rows
    of one ``df["cluster"]`` (when present) treated as correlated (``clustered_rate``)."""
    sums = cluster_sums([df[b] for b in by], flag.astype(np.int64), _cluster_of(df))
    return clustered_rate(sums, name)


def grouped_mean(df: pd.DataFrame, by: list[str], values: pd.Series, name: str) -> pd.DataFrame:
    """Mean and 95% interval of ``values`` per group of ``df[by]``, with rows of one
    ``df["cluster"]`` (when present) treated as correlated (``clustered_mean``)."""
    sums = cluster_sums([df[b] for b in by], values, _cluster_of(df))
    return clustered_mean(sums, name)
