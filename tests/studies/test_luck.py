"""The luck of the dice (play/loop.py's Luck, studies/luck.py): measuring it leaves the games as
played, a turn's luck sums to 0 over the seats and has mean 0, its expectation converges as the
samples grow, a game judged against its outcome all along sums its luck to its result, the
endgame explains more, and a mirror's gap is 0 with or without it."""

import numpy as np
import pytest

from smsim import layout as L
from smsim.errors import LuckError
from smsim.play.loop import LUCK_FIELDS
from smsim.policies.registry import resolve_policy
from smsim.rules import Rules
from smsim.runs.runner import DiceLuck, engine_arrays, kernel
from smsim.studies import luck as LK
from smsim.studies.winprob import fit_winprob


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    from smsim.runs.batch import simulate_to

    path = str(tmp_path_factory.mktemp("luck") / "bal2")
    simulate_to(path, 2000, 2, ["balanced"], seed=61, rounds=True)
    return fit_winprob([path])


def lucky_games(
    model, players: int, games: int, samples: int, policy: str = "balanced", seed: int = 5, endgame: int = 0
):
    specs = [resolve_policy(policy)] * players
    score, player, game_out = engine_arrays(games, players)
    play = kernel(players, specs, seed, Rules(), DiceLuck(model.coef_for(players), samples, endgame))
    lucky = play(0, score, player, game_out)
    assert lucky.shape == (games, players, len(LUCK_FIELDS))
    return score, player, game_out, lucky


@pytest.mark.parametrize("endgame", [0, 25])
def test_measuring_luck_leaves_the_games_as_played(model, endgame):
    score, player, game_out, _lucky = lucky_games(model, 2, 60, 8, endgame=endgame)
    plain = engine_arrays(60, 2)
    kernel(2, [resolve_policy("balanced")] * 2, 5, Rules())(0, *plain)
    for mine, theirs in zip((score, player, game_out), plain):
        np.testing.assert_array_equal(mine, theirs)


def test_judged_against_its_outcome_all_along_a_seats_luck_sums_to_its_result(model):
    """With the whole game its endgame, every value is the mean of the game played out to its end:
    a round's turns' luck telescopes, and the last value is the outcome, so a seat's result minus
    its luck is its value at the start, the mean of ``samples`` outcomes: its mean the seat's win
    share, its spread that of a mean of 16 (sd about 0.5 / 4)."""
    score, _, _, lucky = lucky_games(model, 2, 80, 16, endgame=L.N_SPACES + 1)
    won = score[:, :, L.S_WON].astype(float)
    credit = won / won.sum(axis=1, keepdims=True)
    start = credit - lucky[:, :, 0]
    assert ((start >= -1e-9) & (start <= 1 + 1e-9)).all()  # a mean of outcomes, not a model's guess
    np.testing.assert_allclose(start.sum(axis=1), 1.0)
    assert 0.06 < start[:, 0].std() < 0.18 and abs(start[:, 0].mean() - credit[:, 0].mean()) < 0.15
    np.testing.assert_allclose(start * 32, np.round(start * 32), atol=1e-6)  # 16 outcomes of 0, 1/2 or 1


def test_a_turns_luck_sums_to_0_over_the_seats_and_each_seat_counts_its_own_turns(model):
    """The seats' win probabilities sum to 1 after the turn and after every other turn, so their
    luck sums to 0; every seat plays one turn a round."""
    _, _, game_out, lucky = lucky_games(model, 2, 60, 8)
    np.testing.assert_allclose(lucky[:, :, 0].sum(axis=1), 0.0, atol=1e-9)
    np.testing.assert_array_equal(lucky[:, :, 2], np.repeat(game_out[:, [L.G_ROUNDS]], 2, axis=1))
    assert (np.abs(lucky[:, :, 1]) <= np.abs(lucky[:, :, 0]) + 10).all() and lucky[:, :, 1].std() > 0.05


@pytest.mark.slow  # 4,500 games' luck, each turn judged against up to 64 plays (~15 s)
def test_luck_has_mean_0_and_its_expectation_converges_with_more_other_turns(model):
    """Over 1,500 games a seat's luck has mean 0; judged against 4 other turns it strays further
    from the luck judged against 64 than judged against 16 does (the expectation's sampling noise
    shrinks as 1 / samples)."""
    luck = {k: lucky_games(model, 2, 1500, k, seed=9)[3][:, 0, 0] for k in (4, 16, 64)}
    for k, x in luck.items():
        assert abs(x.mean()) < 3 * x.std() / np.sqrt(len(x)), k
    far, near = np.std(luck[4] - luck[64]), np.std(luck[16] - luck[64])
    assert near < 0.75 * far


@pytest.mark.slow  # a statistical claim over 600 blocks (~8 s); the mirror test keeps the measure in the default suite
def test_luck_has_mean_0_and_taking_it_out_narrows_a_gap_without_moving_it(model):
    """greedy against balanced: the gap as played and with the luck taken out agree (their
    intervals overlap), the second narrower; the measured policy's luck has mean 0."""
    result = LK.luck_match(LK.LuckPlan("greedy", "balanced", 2, 600, seed=62), model, threads=2)
    t = result.table.set_index("figure")
    assert t.loc["luck_mean", "lo"] < 0 < t.loc["luck_mean", "hi"]
    assert t.loc["gap", "hi"] < 0 and t.loc["gap_adjusted", "hi"] < 0  # greedy is the weaker
    assert max(t.loc["gap", "lo"], t.loc["gap_adjusted", "lo"]) < min(t.loc["gap", "hi"], t.loc["gap_adjusted", "hi"])
    assert t.loc["narrower", "value"] > 1.25 and t.loc["narrower_games", "value"] > 1.3  # 1.47 and 1.55 measured
    rows = result.rows
    assert len(rows) == 600 * 2 * 2 and set(rows["rotation"]) == {0, 1}
    assert np.allclose(rows.groupby(["block", "rotation"])["credit"].sum(), 1.0)
    assert (rows["turns"] > 0).all()


def test_a_mirror_has_no_gap_as_played_or_with_the_luck_taken_out_and_the_endgame_explains_more(model):
    """A policy against itself on every rotation of the same dice plays the same games: its share
    is exactly parity, and the adjustment (fitted to a constant) leaves it there. There the luck
    explains a good part of a seat's result, its own rolls' luck less of it than every seat's; on
    the same games, judged in an endgame of the last half (no model there), far more of it than
    judged by the model to the last round."""
    explained = {}
    for endgame in (0, 25):
        plan = LK.LuckPlan("balanced", "balanced", 2, 300, seed=3, endgame=endgame)
        t = LK.luck_match(plan, model, threads=1).table.set_index("figure")
        assert t.loc["gap", "value"] == pytest.approx(0.0, abs=1e-12)
        assert t.loc["gap_adjusted", "value"] == pytest.approx(0.0, abs=1e-9)
        assert 0.05 < t.loc["explained_own", "value"] < t.loc["explained", "value"]
        explained[endgame] = t.loc["explained", "value"]
    assert 0.3 < explained[0] < 0.7 and explained[25] > explained[0] + 0.15 and explained[25] < 0.97


def test_cross_fitting_never_weighs_a_row_with_coefficients_fitted_on_it():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 2))
    y = 0.5 + x @ np.array([0.3, -0.2]) + rng.normal(scale=0.1, size=400)
    adjusted, coefs = LK.cross_fitted(y, x)
    assert coefs.shape == (2, 2) and np.allclose(coefs, [[0.3, -0.2]] * 2, atol=0.05)
    first = np.arange(400) < 200
    np.testing.assert_allclose(adjusted[first], y[first] - x[first] @ coefs[1])
    assert adjusted.std() < 0.12 and abs(adjusted.mean() - 0.5) < 0.02  # the noise left, sd 0.1


def test_bad_plans_are_refused_in_one_line(model):
    with pytest.raises(LuckError, match="--samples must be a whole number from 2"):
        LK.verify_plan(LK.LuckPlan("balanced", "greedy", samples=1))
    with pytest.raises(LuckError, match="'rollout' searches"):
        LK.verify_plan(LK.LuckPlan("rollout", "greedy"))
    with pytest.raises(LuckError, match="--players"):
        LK.verify_plan(LK.LuckPlan("balanced", "greedy", players=6))
    with pytest.raises(LuckError, match="--endgame must be a whole number from 0 to 46"):
        LK.verify_plan(LK.LuckPlan("balanced", "greedy", endgame=-1))
    from smsim.errors import WinProbError

    with pytest.raises(WinProbError, match="fitted on 2 players, not on 3"):
        LK.play_match(LK.LuckPlan("balanced", "greedy", players=3, blocks=2), model)


def test_a_match_folder_is_read_back_and_not_played_again(model, tmp_path):
    plan = LK.LuckPlan("greedy", "balanced", players=2, blocks=60, seed=8, samples=4)
    first = LK.luck_match(plan, model, threads=1, out=tmp_path / "m")
    stamp = (tmp_path / "m" / "rows.parquet").stat().st_mtime_ns
    again = LK.luck_match(plan, model, threads=2, out=tmp_path / "m")
    assert (tmp_path / "m" / "rows.parquet").stat().st_mtime_ns == stamp
    read = LK.read_luck(tmp_path / "m")
    for other in (again, read):
        assert other.plan == plan
        np.testing.assert_array_equal(other.table["value"].to_numpy(), first.table["value"].to_numpy())
    with pytest.raises(LuckError, match="not to a URL"):
        LK.luck_match(plan, model, out="memory://" + str(tmp_path / "u"))
    with pytest.raises(LuckError, match="different luck match"):
        LK.luck_match(
            LK.LuckPlan("greedy", "balanced", players=2, blocks=60, seed=9, samples=4), model, out=tmp_path / "m"
        )
