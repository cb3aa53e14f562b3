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
    ``cluster`` every row is its own cluster."""
    y = pd.Series(values.to_numpy(np.float64), index=values.index)
    if cluster is None:
        g = y.groupby(keys, observed=True)
        out = pd.DataFrame(
            {"n": g.size().astype(np.float64), "total": g.sum(), "total_sq": (y * y).groupby(keys, observed=True).sum()}
        )
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
    out = pd.DataFrame(
        {
            "n": g["n"].sum(),
            "total": g["y"].sum(),
            "total_sq": g["y2"].sum(),
            "clusters": gc.size().astype(np.float64),
            "cluster_sq": gc["sq"].sum(),
            "cluster_cross": gc["cross"].sum(),
            "cluster_n_sq": gc["n_sq"].sum(),
            "cluster_max": gc["n"].max(),
        }
    )
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
