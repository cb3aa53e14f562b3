"""studies.regret: keep decisions judged against the exact keep, per policy, resumable by policy,
whatever the thread count."""

import pandas as pd
import pytest

from smsim.errors import RegretError
from smsim.studies.regret import RegretPlan, judge_policy, keep_regret, read_regret, run_regret, verify_plan


def test_a_mirror_judges_every_seat_of_every_game_alike_on_any_thread_count():
    plan = RegretPlan(3, ("balanced",), games=24, seed=8)
    one = judge_policy(plan, "balanced", threads=1)
    two = judge_policy(plan, "balanced", threads=2)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 24 * 3 and list(one["game"].unique()) == list(range(24))
    assert (one["keeps"] >= 1).all() and (one["keep_regret"] >= 0).all()
    assert (one["keep_errors"] <= one["keeps"]).all()


def test_against_rotates_the_measured_seat_and_judges_it_alone():
    plan = RegretPlan(2, ("greedy",), games=10, seed=8, against="balanced-exact")
    rows = judge_policy(plan, "greedy", threads=1)
    assert len(rows) == 10 and sorted(rows["seat"].value_counts().to_dict().items()) == [(0, 5), (1, 5)]
    assert rows["keep_regret"].sum() > 0  # greedy always rolls again: no exact keeper
    # the same games with the exact keeper measured instead cost nothing
    again = judge_policy(RegretPlan(2, ("balanced-exact",), 10, 8, against="greedy"), "balanced-exact", threads=1)
    assert again["keep_regret"].sum() == 0.0


def test_the_table_is_the_games_summed_and_its_interval_brackets_the_mean():
    table = keep_regret(["balanced"], players=2, games=40, seed=3, threads=1)
    rows = judge_policy(RegretPlan(2, ("balanced",), 40, 3), "balanced", threads=1)
    r = table.iloc[0]
    assert r.seat_games == 80
    assert r.regret_per_game == pytest.approx(rows["keep_regret"].mean())
    assert r.regret_lo < r.regret_per_game < r.regret_hi
    assert r.regret_per_keep == pytest.approx(rows["keep_regret"].sum() / rows["keeps"].sum())
    assert r.error_rate == pytest.approx(rows["keep_errors"].sum() / rows["keeps"].sum())


def test_a_study_resumes_policy_by_policy_to_the_same_table(tmp_path):
    plan = RegretPlan(2, ("balanced", "greedy"), games=12, seed=4)
    whole = run_regret(plan, tmp_path / "a", threads=1)
    part = tmp_path / "b"
    run_regret(plan, part, threads=1)
    (part / "games" / "01-greedy.parquet").unlink()
    (part / "regret.csv").unlink()
    assert list(read_regret(part)["policy"]) == ["balanced"]  # what is on disk so far
    again = run_regret(plan, part, threads=1)
    pd.testing.assert_frame_equal(whole, again)
    assert (part / "regret.csv").read_text() == (tmp_path / "a" / "regret.csv").read_text()
    with pytest.raises(RegretError, match="holds a different keep-regret study"):
        run_regret(RegretPlan(2, ("balanced", "greedy"), games=12, seed=5), part, threads=1)


@pytest.mark.parametrize(
    "plan, message",
    [
        (RegretPlan(1, ("balanced",)), "--players"),
        (RegretPlan(2, ()), "at least one policy"),
        (RegretPlan(2, ("balanced",), games=0), "--games"),
        (RegretPlan(2, ("balanced",), oracle="random"), "--oracle must be a heuristic"),
    ],
)
def test_bad_plans_are_refused_in_one_line(plan, message):
    with pytest.raises(RegretError, match=message):
        verify_plan(plan)
