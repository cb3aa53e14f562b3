"""smsim summary's headline tables: the same intervals as smsim report for the same figure."""

import numpy as np
import pytest

from smsim.intervals import mean_interval, wilson_interval
from smsim.report.tables import report_tables
from smsim.runs.batch import simulate
from smsim.runs.summary import summarise_dataset, summary_tables


@pytest.mark.parametrize("name", ["four", "two"])
def test_summary_and_report_give_the_same_interval_for_the_same_figure(report_datasets, name):
    # "two" is balanced in both seats, in two parts: the seats of a game are one cluster, and the
    # summary accumulates the cluster sums part by part
    tables, _, _ = summarise_dataset(report_datasets[name])
    report = report_tables([report_datasets[name]])
    by_policy = tables["by_policy"]
    scores = report["scores"].set_index("policy").loc[by_policy.index]
    for mine, theirs in (
        ("win_rate", "win"),
        ("win_lo", "win_lo"),
        ("win_hi", "win_hi"),
        ("vp_mean", "vp"),
        ("vp_lo", "vp_lo"),
        ("vp_hi", "vp_hi"),
    ):
        np.testing.assert_allclose(by_policy[mine].to_numpy(float), scores[theirs].to_numpy(float), rtol=1e-12)
    by_seat = tables["by_seat"]
    seats = report["seat_advantage"].set_index("seat").loc[by_seat.index]
    for mine, theirs in (
        ("win_rate", "win"),
        ("win_lo", "win_lo"),
        ("win_hi", "win_hi"),
        ("vp_lo", "vp_lo"),
        ("vp_hi", "vp_hi"),
    ):
        np.testing.assert_allclose(by_seat[mine].to_numpy(float), seats[theirs].to_numpy(float), rtol=1e-12)


def test_seats_of_one_game_count_as_one_cluster():
    # both seats of every game given the first seat's result: 2n seats that carry the information
    # of n, and the interval must be that of n (as smsim report computes it), not of 2n
    seats, games = simulate(300, 2, ["balanced"], seed=11)
    first = seats[seats["seat"] == 0].set_index("game")
    for col in ("won", "total"):
        seats[col] = first.loc[seats["game"], col].to_numpy()
    row = summary_tables(seats, games)["by_policy"].loc["balanced"]
    assert row["seats"] == 600
    # both seats win or neither: half a win each, 300 games' worth; never narrower than that (a share's
    # interval is the rate's, which bounds its variance: stats.grouped_share)
    lo, hi = wilson_interval(row["wins"] / 2, 300)
    assert row["win_hi"] - row["win_lo"] >= (hi - lo) / 2
    vp = first["total"]
    lo, hi = mean_interval(vp.mean(), vp.std(ddof=1), 300)
    assert row["vp_hi"] - row["vp_lo"] == pytest.approx(hi - lo, rel=0.01)


def test_seat_win_rates_split_shared_wins_and_add_up_to_one():
    """The summary (the tables `smsim simulate` prints) splits a shared win between its winners,
    as the report does: the seats' win rates add up to 100% and the wins are still counted whole."""
    from smsim.rules import Rules

    seats, games = simulate(300, 3, ["random"], seed=3, rules=Rules().with_overrides(["max_rounds=1"]))
    assert (games["winners"] > 1).sum() > 30  # about a game in four is a tie
    tables = summary_tables(seats, games)
    by_seat = tables["by_seat"]
    assert by_seat["win_rate"].sum() == pytest.approx(1.0, abs=1e-12)
    assert by_seat["wins"].sum() == int(seats["won"].sum()) > 300  # whole wins: a shared one for every winner
    assert tables["by_policy"].loc["random", "win_rate"] == pytest.approx(1 / 3, abs=1e-12)
    share = seats["won"] / seats.groupby("game")["won"].transform("sum")
    lo, hi = wilson_interval(share[seats["seat"] == 0].sum(), 300)  # a share's rate interval (stats.grouped_share)
    assert (by_seat.loc[0, "win_lo"], by_seat.loc[0, "win_hi"]) == pytest.approx((lo, hi), rel=1e-9)
