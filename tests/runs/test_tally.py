"""The compiled per-group sums of the headline tables (smsim.runs.tally), against pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from smsim.runs.tally import tally_nb
from smsim.stats import SUM_COLUMNS, cluster_sums


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 5), st.integers(1, 4))
def test_sums_and_cluster_sums_equal_those_pandas_computes(seed, games, players, groups):
    """Rows of whole games with random groups (several rows of a game may share a group: a
    cluster of more than one row); every sum equals the one pandas gives, the cluster sums those
    of stats.cluster_sums."""
    rng = np.random.default_rng(seed)
    game = np.repeat(np.arange(100, 100 + games), players)
    group = rng.integers(0, groups, len(game))
    values = rng.integers(-30, 200, (len(game), 4))
    values[:, 2] = rng.integers(0, 6, len(game))  # a column histogrammed into 6 bins
    figures = np.array([0, 1])
    count, sums, squares, hist, series, sides, cluster = tally_nb(
        group, game, values, figures, groups, 1, 40, 300, 2, 6, 3, 5
    )
    df = pd.DataFrame(values, columns=["a", "b", "c", "d"]).assign(g=group, game=game)
    by = df.groupby("g")
    for g in range(groups):
        rows = df[df.g == g]
        assert count[g] == len(rows)
        np.testing.assert_array_equal(sums[g], rows[["a", "b", "c", "d"]].sum().to_numpy())
        np.testing.assert_array_equal(squares[g], (rows[["a", "b"]] ** 2).sum().to_numpy())
        np.testing.assert_array_equal(hist[g], np.bincount(np.clip(rows["b"] + 40, 0, 299), minlength=300))
        np.testing.assert_array_equal(series[g], np.bincount(rows["c"].clip(0, 5), minlength=6))
        np.testing.assert_array_equal(sides[g], np.bincount(rows["d"].clip(0, 4), minlength=5))
    assert by.ngroups <= groups
    for j, name in enumerate(["a", "b"]):
        expected = cluster_sums([df["g"]], df[name], df["game"])
        for g in expected.index:
            got = [count[g], sums[g, figures[j]], squares[g, j], *cluster[g, j]]
            np.testing.assert_allclose(got, expected.loc[g, list(SUM_COLUMNS)].to_numpy(), rtol=0, atol=0)


def test_no_rows_gives_zeros():
    empty = np.zeros(0, dtype=np.int64)
    count, sums, *_ = tally_nb(empty, empty, np.zeros((0, 3), dtype=np.int64), np.array([0]), 2, 0, 0, 10, 1, 6, 2, 5)
    assert count.tolist() == [0, 0] and sums.shape == (2, 3) and not sums.any()
