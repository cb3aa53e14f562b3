"""What matters (``studies.matters``): a part's loss from hand-built blocks, the ranking and its
agreement, the study's figures on real games, bad plans refused in one line."""

import numpy as np
import pandas as pd
import pytest

from smsim.errors import MattersError
from smsim.studies.matters import cell_row, plan_matters, rank_agreement, ranked, what_matters


def blocks(shares, vp, others_vp):
    return pd.DataFrame({"block": np.arange(len(shares)), "share": shares, "vp": vp, "others_vp": others_vp})


def test_a_parts_loss_is_parity_minus_its_share_with_the_interval_of_the_blocks():
    shares = np.array([0.0, 0.5, 0.25, 0.25, 0.0, 0.5, 0.25, 0.0])  # 4 players: parity 0.25
    row = cell_row("balanced", 4, "walls", blocks(shares, np.full(8, 40.0), np.full(8, 42.5)))
    half = 1.959963984540054 * shares.std(ddof=1) / np.sqrt(8)
    assert row["loss"] == pytest.approx(0.25 - shares.mean())
    assert (row["loss_lo"], row["loss_hi"]) == pytest.approx((0.25 - shares.mean() - half, 0.25 - shares.mean() + half))
    assert row["vp_loss"] == pytest.approx(2.5) and row["games"] == 32 and row["blocks"] == 8
    assert row["verdict"] == "not settled"
    assert cell_row("b", 2, "p", blocks([0.3, 0.31, 0.29, 0.3], [1] * 4, [1] * 4))["verdict"] == "matters"
    assert cell_row("b", 2, "p", blocks([0.5, 0.501, 0.499, 0.5], [1] * 4, [1] * 4))["verdict"] == "can be ignored"
    assert cell_row("b", 2, "p", blocks([0.6, 0.61, 0.59, 0.6], [1] * 4, [1] * 4))["verdict"] == "better forgone"
    # judged against the 1-point margin: "little" only where the whole interval lies below it
    little = cell_row("b", 2, "p", blocks([0.495, 0.4952, 0.4948, 0.495], [1] * 4, [1] * 4))
    assert little["loss_lo"] > 0 and little["loss_hi"] < 0.01 and little["verdict"] == "matters, little"
    unsized = cell_row("b", 2, "p", blocks([0.484, 0.492, 0.486, 0.490], [1] * 4, [1] * 4))
    assert 0 < unsized["loss_lo"] < 0.01 < unsized["loss_hi"] and unsized["verdict"] == "matters, size not settled"


def test_parts_are_ranked_by_loss_and_rankings_compared_across_strengths():
    rows = [
        {"policy": pol, "players": 2, "part": part, "loss": loss}
        for pol, losses in (("a", [0.3, 0.1, 0.2]), ("b", [0.2, 0.05, 0.1]), ("c", [0.01, 0.3, 0.2]))
        for part, loss in zip(["churches", "walls", "logs"], losses)
    ]
    table = pd.DataFrame(rows)
    for column in (
        "games",
        "blocks",
        "share",
        "share_lo",
        "share_hi",
        "loss_lo",
        "loss_hi",
        "vp_loss",
        "vp_lo",
        "vp_hi",
        "verdict",
    ):
        table[column] = 0
    out = ranked(table)
    assert list(out[out["policy"] == "a"]["part"]) == ["churches", "logs", "walls"]
    assert list(out[out["policy"] == "a"]["rank"]) == [1, 2, 3]
    agree = rank_agreement(out).set_index(["policy", "against"])["spearman"]
    assert agree[("a", "b")] == pytest.approx(1.0) and agree[("a", "c")] == pytest.approx(-1.0)


def test_churches_matter_and_crates_do_not_to_balanced_the_same_for_any_thread_count():
    """balanced builds churches in most games and crates almost never (docs/feel.md); the table is a
    function of the seed alone."""
    one = what_matters(["balanced"], ["churches", "crates"], [2], games=600, seed=5, threads=1).table
    two = what_matters(["balanced"], ["churches", "crates"], [2], games=600, seed=5, threads=2).table
    pd.testing.assert_frame_equal(one, two)
    by = one.set_index("part")
    assert by.loc["churches", "loss_lo"] > 0.05 and by.loc["churches", "verdict"] == "matters"
    assert abs(by.loc["crates", "loss"]) < 0.02 and by.loc["churches", "rank"] == 1
    assert by.loc["churches", "games"] == 600


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"parts": ["dragons"]}, ["unknown part 'dragons'", "churches"]),
        ({"parts": []}, ["name at least one part"]),
        ({"policies": ["random"]}, ["'random' is a random policy", "heuristic or learned"]),
        ({"policies": ["rollout"]}, ["'rollout' is a rollout policy"]),
        ({"policies": ["nobody"]}, ["unknown policy 'nobody'"]),
        ({"policies": []}, ["name at least one policy"]),
        ({"players": [6]}, ["--players"]),
        ({"games": 1}, ["--games"]),
    ],
)
def test_bad_plans_are_refused_in_one_line(kwargs, words):
    with pytest.raises(MattersError) as err:
        plan_matters(**kwargs)
    assert all(w in str(err.value) for w in words) and "\n" not in str(err.value)


def test_a_study_folder_is_read_back_and_resumed_cell_by_cell(tmp_path):
    from smsim.studies.matters import read_matters

    out = tmp_path / "m"
    first = what_matters(["balanced"], ["nobles"], [2], games=200, seed=9, out=out, threads=1)
    cells = sorted((out / "cells").iterdir())
    assert [c.name for c in cells] == ["2p-balanced-without-nobles.parquet"]
    stamp = cells[0].stat().st_mtime_ns
    again = what_matters(["balanced"], ["nobles"], [2], games=200, seed=9, out=out, threads=2)
    assert cells[0].stat().st_mtime_ns == stamp  # read, not played again
    pd.testing.assert_frame_equal(first.table, again.table)
    read = read_matters(out)
    pd.testing.assert_frame_equal(read.table, first.table)
    assert read.table.attrs["seed"] == 9
    with pytest.raises(MattersError, match="different what-matters study"):
        what_matters(["balanced"], ["nobles"], [2], games=400, seed=9, out=out)
