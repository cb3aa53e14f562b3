"""Intervals against known values, and the cluster-aware path every table takes."""

import numpy as np
import pandas as pd
import pytest

from smsim.intervals import mean_interval, wilson_interval
from smsim.stats import (
    SUM_COLUMNS,
    add_cluster_sums,
    cluster_sums,
    clustered_mean,
    grouped_mean,
    grouped_rate,
)


# -- clusters -------------------------------------------------------------------------------------
def _frame(values, clusters, group=None) -> pd.DataFrame:
    return pd.DataFrame({"g": group or [0] * len(values), "y": values, "cluster": clusters})


def test_rows_each_their_own_cluster_get_the_plain_wilson_and_normal_intervals():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    df = _frame(y, np.arange(200))
    rate = grouped_rate(df, ["g"], df["y"] == 1, "won").iloc[0]
    assert (rate["won_lo"], rate["won_hi"]) == pytest.approx(wilson_interval(int(y.sum()), 200), rel=1e-12)
    vp = rng.normal(40, 10, 200)
    df = _frame(vp, np.arange(200))
    m = grouped_mean(df, ["g"], df["y"], "vp").iloc[0]
    assert (m["vp_lo"], m["vp_hi"]) == pytest.approx(mean_interval(vp.mean(), vp.std(ddof=1), 200), rel=1e-12)


def test_copies_within_a_cluster_add_no_information():
    # every row repeated 4 times in its cluster: the interval is that of the 50 distinct rows
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 50)
    once = _frame(y, np.arange(50))
    four = _frame(np.repeat(y, 4), np.repeat(np.arange(50), 4))
    r1 = grouped_rate(once, ["g"], once["y"] == 1, "w").iloc[0]
    r4 = grouped_rate(four, ["g"], four["y"] == 1, "w").iloc[0]
    # n deflated by the design effect: 200 rows count as 50 (up to the c / (c - 1) correction)
    assert r4["w_hi"] - r4["w_lo"] == pytest.approx(r1["w_hi"] - r1["w_lo"], rel=0.02)
    assert r4["w_hi"] - r4["w_lo"] > r1["w_hi"] - r1["w_lo"]
    v = rng.normal(0, 1, 50)
    m1 = grouped_mean(_frame(v, np.arange(50)), ["g"], pd.Series(v), "v").iloc[0]
    f4 = _frame(np.repeat(v, 4), np.repeat(np.arange(50), 4))
    m4 = grouped_mean(f4, ["g"], f4["y"], "v").iloc[0]
    assert m4["v_hi"] - m4["v_lo"] == pytest.approx(m1["v_hi"] - m1["v_lo"], rel=0.02)


def _sums_by_hand(df: pd.DataFrame, keys: list[str], cluster: str | None) -> pd.DataFrame:
    """SUM_COLUMNS group by group and cluster by cluster, the slow plain way: rows with a missing
    key or cluster left out."""
    rows = df.dropna(subset=[*keys, *([cluster] if cluster else [])])
    out = {}
    for key, grp in rows.groupby(keys, observed=True):
        y = grp["y"].to_numpy(np.float64)
        per = grp.groupby(cluster)["y"] if cluster else None
        totals = per.sum().to_numpy(np.float64) if cluster else y
        sizes = per.size().to_numpy(np.float64) if cluster else np.ones(len(y))
        out[key] = [len(y), y.sum(), (y * y).sum(), len(totals), (totals**2).sum(), (totals * sizes).sum()]
        out[key] += [(sizes**2).sum(), sizes.max()]
    return pd.DataFrame.from_dict(out, orient="index", columns=list(SUM_COLUMNS))


@pytest.mark.parametrize("whole", [True, False])
def test_cluster_sums_equal_sums_by_hand_whatever_the_keys(whole):
    """Keys of several kinds (numbers with gaps, text, categories some unobserved, missing keys and
    clusters): the groups are pandas' groups, in its order, and every sum is the plain one, exact
    for whole numbers."""
    rng = np.random.default_rng(11)
    for _ in range(8):
        n = int(rng.integers(1, 120))
        df = pd.DataFrame(
            {
                "g": rng.choice([0.0, 3.0, 7.0, np.nan], n, p=[0.4, 0.3, 0.2, 0.1]),
                "h": rng.choice(["x", "y"], n),
                "c": pd.Categorical(rng.choice(["b", "a"], n), categories=["c", "a", "b"]),
                "cluster": rng.choice([*range(n // 3 + 1), np.nan], n),
                "y": rng.integers(-5, 60, n) if whole else rng.choice([0.0, 1.0, 0.5, 1 / 3], n),
            },
            index=rng.permutation(n) + 1000,
        )
        for keys in (["g"], ["h", "g"], ["c"], ["c", "h"]):
            for cl in ("cluster", None):
                got = cluster_sums([df[k] for k in keys], df["y"], df[cl] if cl else None)
                want = _sums_by_hand(df, keys, cl)
                assert [tuple(np.atleast_1d(i)) for i in got.index] == [tuple(np.atleast_1d(i)) for i in want.index]
                if whole:
                    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
                else:
                    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12)


def test_cluster_sums_of_chunks_add_up_to_those_of_all_rows():
    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {"g": rng.integers(0, 3, n), "y": rng.integers(-20, 80, n), "cluster": np.repeat(np.arange(100), 4)}
    )
    whole = cluster_sums([df["g"]], df["y"], df["cluster"])
    a, b = df.iloc[:200], df.iloc[200:]  # chunks of whole clusters
    parts = add_cluster_sums(cluster_sums([a["g"]], a["y"], a["cluster"]), cluster_sums([b["g"]], b["y"], b["cluster"]))
    pd.testing.assert_frame_equal(parts, whole, check_exact=True)
    assert (clustered_mean(parts, "y") == grouped_mean(df, ["g"], df["y"], "y")).all().all()
