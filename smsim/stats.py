"""Grouped intervals for the rates and means smsim reports, over pandas tables: one path for
``smsim summary``, ``smsim report`` and the analysis tables (the intervals of single figures,
and their printed form, are ``smsim.intervals``).

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

import numpy as np
import pandas as pd

from smsim.intervals import Z_95, wilson_interval

SUM_COLUMNS = ("n", "total", "total_sq", "clusters", "cluster_sq", "cluster_cross", "cluster_n_sq", "cluster_max")
"""The cluster sums of a group: rows, sum and sum of squares of the values; clusters, sum over
clusters of (cluster total)^2, (cluster total x cluster rows) and (cluster rows)^2, and the most
rows in one cluster."""


# -- clusters -------------------------------------------------------------------------------------
def cluster_sums(keys: list[pd.Series], values: pd.Series, cluster: pd.Series | None) -> pd.DataFrame:
    """Per group of ``keys``, the cluster sums (``SUM_COLUMNS``) of ``values``; without
    ``cluster`` every row is its own cluster.

    The groups are pandas' grouping of ``keys`` (its order and index; a row with a missing key or
    cluster left out, as pandas leaves it), found once; the sums are numpy's over integer codes,
    row by row in the rows' order, then cluster by cluster in the clusters' sorted order: several
    times faster than pandas grouping again by the keys and the cluster, and exact, as any order
    is, where the values are whole numbers (a sum of fractions may differ in its last bit)."""
    y = values.to_numpy(np.float64)
    grouped = pd.Series(y, index=values.index).groupby(keys, observed=True)
    groups = grouped.size().index
    group = grouped.ngroup().to_numpy(np.float64, na_value=np.nan)
    kept = ~np.isnan(group)
    if cluster is not None:
        codes, _ = pd.factorize(cluster, sort=True)  # sorted, as pandas groups them; -1: missing
        kept &= codes >= 0
    g, y = group[kept].astype(np.int64), y[kept]
    size = len(groups)
    if cluster is None:
        n = np.bincount(g, minlength=size).astype(np.float64)
        total, total_sq = np.bincount(g, y, size), np.bincount(g, y * y, size)
        out = {"n": n, "total": total, "total_sq": total_sq, "clusters": n, "cluster_sq": total_sq}
        out |= {"cluster_cross": total, "cluster_n_sq": n, "cluster_max": np.ones(size)}
        return pd.DataFrame(out, index=groups)[list(SUM_COLUMNS)]
    width = int(codes.max()) + 1
    pairs, pair = np.unique(g * width + codes[kept], return_inverse=True)  # (group, cluster), sorted
    of = pairs // width  # each cluster's group
    rows = np.bincount(pair, minlength=len(pairs)).astype(np.float64)
    sums = np.bincount(pair, y, len(pairs))
    out = {
        "n": np.bincount(of, rows, size),
        "total": np.bincount(of, sums, size),
        "total_sq": np.bincount(g, y * y, size),
        "clusters": np.bincount(of, minlength=size).astype(np.float64),
        "cluster_sq": np.bincount(of, sums * sums, size),
        "cluster_cross": np.bincount(of, sums * rows, size),
        "cluster_n_sq": np.bincount(of, rows * rows, size),
        "cluster_max": np.zeros(size),
    }
    np.maximum.at(out["cluster_max"], of, rows)
    present = out["clusters"] > 0  # a group whose every row has a missing cluster: none, as pandas
    return pd.DataFrame(out, index=groups)[list(SUM_COLUMNS)][present]


def add_cluster_sums(a: pd.DataFrame | None, b: pd.DataFrame) -> pd.DataFrame:
    """The cluster sums of two sets of rows whose clusters are disjoint (two chunks of games),
    group by group."""
    if a is None or a.empty:
        return b.copy()
    a, b = a.align(b, join="outer", fill_value=0.0)
    out = a + b
    out["cluster_max"] = np.maximum(a["cluster_max"], b["cluster_max"])
    return out


def _columns(sums: pd.DataFrame) -> dict[str, np.ndarray]:
    return {k: sums[k].to_numpy(np.float64) for k in SUM_COLUMNS}


def _variance(s: dict[str, np.ndarray]) -> np.ndarray:
    n, c = s["n"], s["clusters"]
    mean = s["total"] / n
    ss = s["cluster_sq"] - 2 * mean * s["cluster_cross"] + mean * mean * s["cluster_n_sq"]
    var = np.maximum(ss, 0.0) * c / np.maximum(c - 1, 1) / n**2
    return np.where(s["cluster_max"] > 1, var, np.nan)


# The three below compute on numpy arrays, not pandas columns: the same operations in the same
# order (the same numbers, bit for bit), at a fraction of the cost for the report's small tables.
def clustered_variance(sums: pd.DataFrame) -> pd.Series:
    """Per group, the cluster-robust (sandwich) variance of the mean: c / (c - 1) times the sum
    over the c clusters of (cluster total - mean x cluster rows)^2, over n^2. NaN where no
    cluster holds two rows (rows independent: the plain variance applies)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.Series(_variance(_columns(sums)), index=sums.index)


def clustered_rate(sums: pd.DataFrame, name: str) -> pd.DataFrame:
    """n, count, rate and 95% Wilson interval per group from the cluster sums of a 0/1 flag.
    Where rows share a cluster, n is deflated by the design effect (cluster-robust over binomial
    variance, at least 1) before the Wilson interval is taken, so shared dice never make an
    interval too narrow."""
    s = _columns(sums)
    n = s["n"]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s["total"] / n
        binomial = p * (1 - p) / n
        deff = np.where(binomial > 0, _variance(s) / binomial, np.nan)
        n_eff = n / np.maximum(np.where(np.isnan(deff), 1.0, deff), 1.0)
    bounds = [wilson_interval(pi * m, m) for pi, m in zip(p.tolist(), n_eff.tolist())]
    out = pd.DataFrame(
        {"n": n.astype(np.int64), f"{name}_count": np.round(s["total"]).astype(np.int64), name: p}, index=sums.index
    )
    out[f"{name}_lo"] = [b[0] for b in bounds]
    out[f"{name}_hi"] = [b[1] for b in bounds]
    return out


def clustered_mean(sums: pd.DataFrame, name: str) -> pd.DataFrame:
    """Mean and normal 95% interval per group from the cluster sums; where rows share a cluster,
    the standard error is the larger of the independent and the cluster-robust one."""
    s = _columns(sums)
    n = s["n"]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = s["total"] / n
        plain = np.where(n > 1, np.maximum(s["total_sq"] - n * mean * mean, 0.0) / (n - 1), np.nan) / n
        variance = _variance(s)
        var = np.maximum(plain, np.where(np.isnan(variance), 0.0, variance))
        half = Z_95 * np.sqrt(var)
    return pd.DataFrame({name: mean, f"{name}_lo": mean - half, f"{name}_hi": mean + half}, index=sums.index)


def _cluster_of(df: pd.DataFrame) -> pd.Series | None:
    return df.get("cluster")


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


def grouped_share(df: pd.DataFrame, by: list[str], values: pd.Series, name: str) -> pd.DataFrame:
    """n, count (rounded), mean and 95% interval of ``values`` in [0, 1] per group of ``df[by]``:
    a share such as a seat's part of a shared win (1/k of a win shared by k). The interval is the
    rate's (``clustered_rate``: Wilson, n deflated by the design effect where rows share a cluster):
    a value in [0, 1] varies at most as a yes-or-no one of the same mean (its variance is at most
    p(1 - p)), so the interval is never too narrow, and unlike a normal interval it stays honest
    for a handful of games whose values are all 0 or all 1."""
    sums = cluster_sums([df[b] for b in by], values.astype(np.float64), _cluster_of(df))
    return clustered_rate(sums, name)
