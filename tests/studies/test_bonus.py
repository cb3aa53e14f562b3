"""The wall-bonus ablation: its setups, the same dice as the standard rules' games, independence
of threads, resumption, the values recomputed from its files with plain pandas, a denied seat
losing VP, and identical bonuses agreeing."""

import numpy as np
import pandas as pd
import pytest

from smsim.errors import BonusError, PolicyError, SimulationError
from smsim.intervals import Z_95, difference_interval
from smsim.report.tables import sides_agree
from smsim.rules import Rules
from smsim.runs.batch import run_games
from smsim.studies import bonus as B

SIDES = ("top", "right", "bottom", "left")


def test_setups_withhold_one_sides_bonus_from_one_seat_each():
    plan = B.plan_bonus(3, "greedy", games=10, seed=1)
    setups = plan.setups()
    assert len(setups) == 1 + 4 * 3 and setups[0].name == "baseline" and plan.rules_of(setups[0]) == Rules()
    assert [s.name for s in setups[4:7]] == ["right-seat0", "right-seat1", "right-seat2"]
    assert plan.rules_of(setups[5]).wall_bonus_seats == (31, 31 - 2, 31, 31)
    assert plan.rules_of(setups[12]).wall_bonus_seats == (31, 31, 31, 31 - 4)
    assert len({s.file() for s in setups}) == len(setups)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"players": 6}, SimulationError, "players"),
        ({"games": 0}, SimulationError, "games"),
        ({"policy": "genius"}, PolicyError, "genius"),
        ({"seed": 1.5}, BonusError, "seed"),
        (
            {"rules": Rules(wall_bonus_seats=(31, 31, 30, 31))},
            BonusError,
            "already leave seats out of the bottom bonus",
        ),
    ],
)
def test_a_bad_plan_is_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        B.plan_bonus(**{"players": 2, "policy": "balanced", "games": 10, "seed": 1, **kwargs})


def test_bits_of_seats_beyond_the_table_do_not_count_as_withheld():
    assert B.plan_bonus(2, games=10, rules=Rules(wall_bonus_seats=(3, 3, 3, 3))).players == 2


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """Two-player balanced ablations: seed 31 (300 games, played on 2 threads) and seed 32."""
    root = tmp_path_factory.mktemp("bonus")
    one = B.plan_bonus(2, "balanced", games=300, seed=31)
    two = B.plan_bonus(2, "balanced", games=300, seed=32)
    return {
        "root": root,
        "one": (one, B.run_bonus(one, root / "one", threads=2, command=["smsim", "bonus-value"])),
        "two": (two, B.run_bonus(two, root / "two", threads=2)),
    }


def test_the_baseline_is_the_standard_rules_games_of_the_seed(studies):
    """Common random numbers: the baseline's rows are games 0.. of the seed under the printed
    rules, exactly as a plain run plays them."""
    plan, _result = studies["one"]
    base = pd.read_parquet(studies["root"] / "one" / "games" / "00-baseline.parquet")
    from smsim import layout as L

    score, _player, _ = run_games(plan.games, 2, ["balanced"], plan.seed, Rules(), threads=1)
    assert (base["vp"].to_numpy() == score[:, :, L.S_TOTAL].ravel()).all()
    won = score[:, :, L.S_WON].astype(float)
    assert np.allclose(base["share"].to_numpy(), (won / won.sum(axis=1, keepdims=True)).ravel())
    assert np.isclose(base.groupby("game")["share"].sum(), 1.0).all()  # shared wins split: a game's shares add to 1


def test_the_same_study_on_one_thread_and_in_memory_gives_the_same_rows(studies):
    plan, _result = studies["one"]
    setups = [plan.setups()[0], plan.setups()[5]]
    alone = B.play_setups(plan, setups, threads=1)
    for s in setups:
        on_disk = pd.read_parquet(studies["root"] / "one" / "games" / s.file())
        pd.testing.assert_frame_equal(alone[s.name], on_disk)


def test_a_rerun_resumes_and_plays_only_missing_setups(studies, tmp_path):
    import shutil

    plan, result = studies["one"]
    out = tmp_path / "again"
    shutil.copytree(studies["root"] / "one", out)
    missing = out / "games" / plan.setups()[3].file()
    missing.unlink()
    (out / "values.csv").unlink()
    again = B.run_bonus(plan, out, threads=1)
    assert missing.is_file()
    pd.testing.assert_frame_equal(again.table, result.table)
    assert (out / "values.csv").read_text() == (studies["root"] / "one" / "values.csv").read_text()
    with pytest.raises(BonusError, match="holds a different wall-bonus ablation"):
        B.run_bonus(B.plan_bonus(2, "balanced", games=300, seed=99), out, threads=1)


def test_the_values_equal_a_recomputation_from_the_files(studies):
    """Per side: for each game, the baseline seat minus the same seat denied the bonus, averaged
    over the seats; the mean over games with mean +- z * sd / sqrt(games)."""
    _plan, result = studies["one"]
    folder = studies["root"] / "one" / "games"
    base = pd.read_parquet(folder / "00-baseline.parquet")
    assert list(result.table["side"]) == list(SIDES) and (result.table["games"] == 300).all()
    for side in SIDES:
        denied = pd.concat([pd.read_parquet(next(folder.glob(f"*-{side}-seat{s}.parquet"))) for s in range(2)])
        both = base.merge(denied, on=["game", "seat"], suffixes=("_with", "_without"))
        assert len(both) == 600
        row = result.table.set_index("side").loc[side]
        for col, key in (("share", "win_change"), ("vp", "vp_change")):
            per_game = (both[f"{col}_with"] - both[f"{col}_without"]).groupby(both["game"]).mean()
            half = Z_95 * per_game.std(ddof=1) / np.sqrt(len(per_game))
            assert row[key] == pytest.approx(per_game.mean())
            assert (row[f"{key}_lo"], row[f"{key}_hi"]) == (
                pytest.approx(per_game.mean() - half),
                pytest.approx(per_game.mean() + half),
            )
        assert row["completed"] == pytest.approx(base[f"{side}_completed"].mean())
        assert row["completed_denied"] == pytest.approx(denied[f"{side}_completed"].mean())
        per_game = denied.groupby("game")[f"{side}_completed"].mean()
        half = Z_95 * per_game.std(ddof=1) / np.sqrt(len(per_game))
        assert row["completed_denied_hi"] == pytest.approx(per_game.mean() + half)
        seats = result.seats[result.seats["side"] == side]
        assert list(seats["seat"]) == [0, 1] and seats["vp_change"].mean() == pytest.approx(row["vp_change"])
    assert list(result.table["face_vp"].iloc[1:]) == [1.0, 3.0, 1.0] and np.isnan(result.table["face_vp"].iloc[0])
    assert list(result.table["bonus"]) == ["a person of up to 3 heads", "2 coins", "3 VP", "2 coins"]


def test_a_seat_denied_a_vp_or_coins_bonus_loses_vp_on_average(studies):
    for key in ("one", "two"):
        t = studies[key][1].table.set_index("side")
        for side in ("right", "bottom", "left"):
            assert t.loc[side, "vp_change_lo"] > 0 and t.loc[side, "win_change_lo"] > 0, (key, side)
        # 3 VP is worth about its face: nothing else is lost, and a seat denied it still walls for defence
        assert t.loc["bottom", "vp_change_lo"] < 3 + 1 and t.loc["bottom", "vp_change_hi"] > 3 - 1


def test_the_same_bonus_measured_twice_agrees(studies):
    """The issue's check: one bonus measured under two seeds (independent games) has one value
    within the intervals, for every side; and the printed game's two 2-coin sides (right, left),
    measured on the same games, agree within their intervals and within 1 VP."""
    one, two = studies["one"][1].table.set_index("side"), studies["two"][1].table.set_index("side")
    for side in SIDES:
        for key in ("win_change", "vp_change"):
            d, lo, hi = difference_interval(*(tuple(t.loc[side, [key, f"{key}_lo", f"{key}_hi"]]) for t in (one, two)))
            assert lo <= 0 <= hi, (side, key, d, lo, hi)
    for key in ("one", "two"):
        agree = sides_agree(studies[key][1].table)
        assert list(agree["sides"]) == ["left - right"] and bool(agree["agree"].iloc[0]), agree
        assert abs(agree["vp_diff"].iloc[0]) < 1.0


def test_identical_bonuses_on_every_side_agree_where_the_sides_are_alike():
    """Give every side 2 VP: each side's value is near its face (the bonus alone is lost), and
    sides_agree compares each pair of sides with the same bonus."""
    rules = Rules(wall_bonus_kind=("vp",) * 4, wall_bonus_amount=(2,) * 4)
    plan = B.plan_bonus(2, "walls", games=200, seed=5, rules=rules)
    table, _ = B.ablation_tables(plan, B.play_setups(plan, plan.setups(), threads=2))
    assert (table["bonus"] == "2 VP").all() and (table["vp_change_lo"] > 0).all()
    agree = sides_agree(table)
    assert len(agree) == 6 and agree["agree"].all(), agree
