"""Seat-bias-free comparisons with common random numbers."""

import numpy as np
import pandas as pd
import pytest

from smsim.errors import SimulationError
from smsim.intervals import mean_and_interval
from smsim.rules import Rules
from smsim.studies.compare import arrangements, compare


def test_arrangements_put_every_policy_in_every_seat_equally():
    for k, players in [(2, 2), (3, 3), (2, 4), (3, 4), (5, 3), (4, 4), (2, 5)]:
        arrs = np.array(arrangements([f"p{i}" for i in range(k)], players))
        for seat in range(players):
            counts = np.bincount(arrs[:, seat], minlength=k)
            per_policy = np.bincount(arrs.reshape(-1), minlength=k)
            # each policy's seats are spread evenly over the seats
            assert np.allclose(counts / per_policy, 1 / players), (k, players, seat)
    assert len(arrangements(["a", "b", "c"], 3)) == 6  # every permutation when K == P


def test_identical_policies_split_every_block_exactly(tmp_path):
    """Common random numbers: a policy against an identical copy of itself, in both seats on the
    same dice, splits each block's win and VP exactly."""
    copy = tmp_path / "greedy_copy.toml"
    copy.write_text('base = "greedy"\n')
    result = compare(["greedy", str(copy)], 2, 400, seed=3)
    assert result.table.loc["greedy", "win_share"] == pytest.approx(0.5, abs=1e-12)
    assert result.table.loc["greedy", "win_lo"] == pytest.approx(0.5, abs=1e-12)  # zero spread over blocks
    pair = result.pairs.set_index(["a", "b"]).loc[("greedy", "greedy_copy")]
    assert pair.vp_diff == 0 and pair.lo == 0 and pair.hi == 0


def test_stronger_policy_wins_with_intervals_and_ratings():
    result = compare(["balanced", "random", "greedy"], 3, 1200, seed=1)
    t = result.table
    assert t.loc["balanced", "win_lo"] > t.loc["greedy", "win_hi"] > 0
    assert t.loc["random", "win_share"] < 0.01
    assert t["win_share"].sum() == pytest.approx(1.0)
    assert t.loc["balanced", "strength"] > t.loc["greedy", "strength"] > t.loc["random", "strength"]
    assert result.blocks * result.games_per_block <= 1200
    seats = result.seats
    assert (seats.groupby(["policy", "seat"], observed=True).size().unstack() == result.blocks * 2).all().all()


def test_precision_stops_early():
    result = compare(["balanced", "random"], 2, 100_000, seed=2, precision=0.1)
    assert result.max_width() < 0.1
    assert result.blocks * result.games_per_block < 100_000


def block_stats_of_every_game(seats: pd.DataFrame, n_policies: int) -> tuple[np.ndarray, np.ndarray]:
    """Per block and policy, from the seat table of every game with pandas (independent of the
    arrays compare uses): the policy's share of the win in the games it sat in, and its mean VP."""
    won = seats["won"].to_numpy(float)
    winners = seats.groupby("game_id")["won"].transform("sum").to_numpy(float)
    seats = seats.assign(credit=np.where(winners > 0, won / np.maximum(winners, 1), 0.0))
    per_game = seats.groupby(["block", "policy_index", "game_id"], observed=True)["credit"].sum()
    credit = per_game.groupby(["block", "policy_index"]).mean().unstack(fill_value=np.nan)
    vp = seats.groupby(["block", "policy_index"], observed=True)["total"].mean().unstack()
    full = pd.RangeIndex(n_policies)
    return credit.reindex(columns=full).to_numpy(), vp.reindex(columns=full).to_numpy()


def test_rounds_of_blocks_give_the_tables_of_all_games_at_once():
    """Blocks come in rounds, and compare keeps only each block's statistics and a tally of the
    rankings; its tables must be those computed from every game at once: intervals over blocks,
    seats and cannons lost per policy, and the Plackett-Luce fit to every game's ranking."""
    from smsim.studies.ratings import fit_plackett_luce

    names = ["greedy", "walls", "random"]
    reports = []
    result = compare(
        names, 3, 6 * 700, seed=4, precision=1e-6, on_progress=lambda done, total, width: reports.append((done, width))
    )
    assert result.blocks == 700 and len(reports) == 4  # rounds of 200, 200, 200 and 100 blocks
    seats = result.seats
    credit, vp = block_stats_of_every_game(seats, 3)
    for i, name in enumerate(names):
        row = result.table.loc[name]
        assert (row.win_share, row.win_lo, row.win_hi, row.blocks) == pytest.approx(
            mean_and_interval(credit[:, i]), rel=1e-12
        )
        assert (row.vp_mean, row.vp_lo, row.vp_hi) == pytest.approx(mean_and_interval(vp[:, i])[:3], rel=1e-12)
        mine = seats["policy_index"] == i
        assert row.seats == mine.sum() and row.cannons_lost == seats.loc[mine, "cannons_lost"].mean()
    ranks = pd.DataFrame({"game": seats["game_id"], "policy": seats["policy"].astype(str), "rank": seats["rank"]})
    pd.testing.assert_frame_equal(result.ratings.table, fit_plackett_luce(ranks).table, check_exact=True)
    assert reports[-1][1] == result.max_width()


def test_games_streamed_to_a_writer_instead_of_kept(tmp_path):
    """keep_games=False keeps no rows; on_games sees every game, and ComparisonWriter writes
    them as the kept games would be, with the tables and the manifest."""
    from smsim.studies.compare import ComparisonWriter, save_comparison

    kept = compare(["greedy", "random"], 2, 2 * 30, seed=9)
    writer = ComparisonWriter(tmp_path / "c")
    flat = compare(["greedy", "random"], 2, 2 * 30, seed=9, keep_games=False, on_games=writer.add)
    assert flat.seats is None and flat.games is None
    pd.testing.assert_frame_equal(flat.table, kept.table)
    assert list(tmp_path.glob("c/.*.tmp-*"))  # written under temporary names until finished
    writer.finish(flat, ["smsim", "compare"], 9, Rules())
    assert not list(tmp_path.glob("c/.*"))
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "c" / "seats.parquet"), kept.seats)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "c" / "games.parquet"), kept.games)
    with pytest.raises(ValueError, match="kept no games"):
        save_comparison(flat, str(tmp_path / "d"), [], 9, Rules())
    broken = ComparisonWriter(tmp_path / "e")
    broken.add(kept.seats, kept.games)
    broken.abort()
    assert list((tmp_path / "e").iterdir()) == []


def test_a_saved_comparison_reads_back_as_written(tmp_path):
    from smsim.errors import DatasetError
    from smsim.runs.folder import kind_of
    from smsim.studies.compare import read_comparison, save_comparison

    result = compare(["greedy", "random"], 2, 2 * 20, seed=4)
    save_comparison(result, str(tmp_path / "c"), ["smsim", "compare", "greedy", "random"], 4, Rules())
    saved = read_comparison(tmp_path / "c")
    pd.testing.assert_frame_equal(saved.seats, result.seats)
    pd.testing.assert_frame_equal(saved.games, result.games)
    assert set(saved.tables) == {"policies", "pairs", "ratings"}
    pd.testing.assert_frame_equal(saved.tables["policies"], result.table, check_names=False)
    pd.testing.assert_frame_equal(saved.tables["pairs"], result.pairs)
    assert saved.manifest["policies"] == ["greedy", "random"] and saved.manifest["blocks"] == 20
    assert kind_of(tmp_path) is None and kind_of(tmp_path / "c") == "comparison"  # no manifest: not a comparison
    with pytest.raises(DatasetError, match="is not a comparison"):
        read_comparison(tmp_path)
    (tmp_path / "c" / "games.parquet").write_bytes(b"not parquet")
    with pytest.raises(DatasetError, match="cannot be read"):
        read_comparison(tmp_path / "c")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(policies=["greedy"]), "at least 2 policies"),
        (dict(policies=["greedy", "greedy"]), "at least 2 different policies"),
        (dict(policies=["greedy", "greedy", "random"]), "give one policy per seat"),
        (dict(policies=["greedy", "random"], precision=2.0), "precision must be a number above 0 and below 1, not 2.0"),
        (dict(policies=["greedy", "random"], players=7), "players must be a whole number from 2 to 5, not 7"),
    ],
)
def test_bad_input(kwargs, message):
    args = dict(players=2, games=100, seed=1) | kwargs
    with pytest.raises(SimulationError, match=message):
        compare(**args)


def test_a_line_up_is_played_in_every_rotation_and_its_seats_pool_their_wins():
    """``greedy balanced balanced``: one greedy seat against two balanced, every rotation of the
    line-up on each deal; balanced's win share is its two seats' share together."""
    result = compare(["greedy", "balanced", "balanced"], players=3, games=300, seed=4)
    assert result.games_per_block == 3
    seats = result.seats
    per_game = seats.groupby("game_id")["policy"].apply(lambda p: sorted(p.astype(str)))
    assert all(p == ["balanced", "balanced", "greedy"] for p in per_game)
    assert sorted(seats.loc[seats["policy"] == "greedy", "seat"].value_counts().tolist()) == [100, 100, 100]
    share = result.table["win_share"]
    assert abs(share["greedy"] + share["balanced"] - 1.0) < 1e-9
    won = seats["won"] / seats.groupby("game_id")["won"].transform("sum")
    assert abs(won[seats["policy"] == "greedy"].sum() / 300 - share["greedy"]) < 1e-9


def test_rounds_of_blocks_come_in_order_with_the_games_of_plain_runs_and_closing_stops_the_threads():
    """The local executor plays rounds of blocks ahead of the one being summed; the rounds still
    come in order, each arrangement's games are those run_games plays for its line-up, and
    closing the results early leaves no thread behind."""
    import threading

    from smsim.policies.registry import resolve_policy, ship_policy
    from smsim.runs.batch import run_games
    from smsim.runs.executors import LocalExecutor, Task
    from smsim.studies.compare import RANK, TOTAL, WON, play_round_task

    names = ["balanced", "random"]
    shipped = [ship_policy(resolve_policy(n)) for n in names]
    arrs = arrangements(names, 2)
    rounds = [(f, 4) for f in range(0, 40, 4)]
    tasks = [
        Task(play_round_task, (first, n, arrs, shipped, names, 2, 7, Rules().to_dict(), 2, False), f"b{first}")
        for first, n in rounds
    ]
    got = LocalExecutor().run(tasks, ordered=True, ahead=2)
    for (first, n), (i, games) in zip(rounds[:3], got):
        assert (games.first, games.blocks) == (first, n) and tasks[i].args[0] == first
        for a, arrangement in enumerate(arrs):
            score, _player, _ = run_games(n, 2, [names[i] for i in arrangement], 7, Rules(), first=first, threads=1)
            np.testing.assert_array_equal(games.won[:, a], score[:, :, WON])
            np.testing.assert_array_equal(games.total[:, a], score[:, :, TOTAL])
            np.testing.assert_array_equal(games.rank[:, a], score[:, :, RANK])
    got.close()
    assert not [t.name for t in threading.enumerate() if t.name.startswith(("smsim-play", "smsim-tasks"))]


def test_a_policy_error_in_a_later_round_reaches_the_caller_without_hanging(tmp_path):
    """A user policy that breaks the interface only now and then (one placement in a thousand or
    so) stops every thread of the rounds in play, however far ahead they are, and compare reports it."""
    from smsim.errors import SimulationError

    policy = tmp_path / "rarely_bad.py"
    policy.write_text(
        "from numba import njit\n"
        "from smsim.layout import CTX_DECISION, Decision\n"
        "from smsim.policies.interface import POLICY_SIG\n"
        "PLACE = int(Decision.PLACE)\n"
        "@njit(POLICY_SIG, cache=True)\n"
        "def rarely_bad(ctx, dice, cands, n, city, occ, player, pirates, rules, params, rng):\n"
        "    if ctx[CTX_DECISION] == PLACE and (dice[0] + 7 * dice[1] + 49 * dice[2] + 343 * n) % 997 == 0:\n"
        "        return n\n"
        "    return 0\n"
    )
    with pytest.raises(SimulationError, match="outside the legal candidates"):
        compare([f"{policy}:rarely_bad", "random"], 2, 200_000, seed=1, keep_games=False)
