"""Strength and character of the built-ins, asserted with confidence intervals over enough
games, every policy in every seat equally (issue: heuristic policies)."""

import numpy as np
import pytest

from smsim.layout import S_WON
from smsim.rules import Rules
from smsim.sim import run_games, simulate

Z = 3.0  # a 3-sigma margin: such a test fails by chance about once in 700 runs, and never here


def win_share(a: str, b: str, games: int, players: int = 4, seed: int = 17) -> tuple[float, float]:
    """Mean share of the win taken by a's seats in tables of a and b alternating, both
    arrangements played equally (so each policy sits in each seat equally); and its std error."""
    shares = []
    for flip in (0, 1):
        table = [a if (s + flip) % 2 == 0 else b for s in range(players)]
        score, _, _ = run_games(games // 2, players, table, seed, Rules(), first=flip * games)
        won = score[:, :, S_WON].astype(float)
        mine = np.array([p == a for p in table])
        shares.append(won[:, mine].sum(1) / won.sum(1))
    share = np.concatenate(shares)
    return share.mean(), share.std(ddof=1) / np.sqrt(len(share))


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_balanced_beats_random_and_greedy_in_4_player_games(opponent):
    share, se = win_share("balanced", opponent, 4000)
    assert share - Z * se > 0.5, (share, se)


@pytest.mark.parametrize("archetype", ["greedy", "churches", "walls", "merchant", "builder", "jugglers"])
def test_every_builtin_beats_random(archetype):
    share, se = win_share(archetype, "random", 1000)
    assert share - Z * se > 0.5, (share, se)


ARCHETYPES = ["churches", "walls", "merchant", "builder", "jugglers"]


@pytest.fixture(scope="module")
def archetype_table():
    """5-player games of the five archetypes, each in each seat equally."""
    frames = []
    for shift in range(5):
        table = [ARCHETYPES[(s + shift) % 5] for s in range(5)]
        seats, _ = simulate(600, 5, table, seed=23, first=shift * 600)
        frames.append(seats)
    import pandas as pd

    return pd.concat(frames)


def assert_leads(seats, archetype, column, others=None, higher=True):
    """The archetype's mean of ``column`` exceeds (or is below) each other's by 3 std errors."""
    g = seats.groupby("policy", observed=True)[column]
    mean, se = g.mean(), g.std(ddof=1) / np.sqrt(g.size())
    sign = 1 if higher else -1
    for other in others or [a for a in ARCHETYPES if a != archetype]:
        diff = sign * (mean[archetype] - mean[other])
        assert diff > Z * np.hypot(se[archetype], se[other]), (column, archetype, other, mean.to_dict())


def test_churches_completes_longer_series_than_walls(archetype_table):
    assert_leads(archetype_table, "churches", "longest_series", ["walls"])
    assert_leads(archetype_table, "churches", "church_vp")


def test_walls_completes_sides_and_loses_fewer_cannons(archetype_table):
    assert_leads(archetype_table, "walls", "sides_completed")
    assert_leads(archetype_table, "walls", "cannons_lost", ["churches"], higher=False)


def test_merchant_earns_most_coins_from_merchants(archetype_table):
    assert_leads(archetype_table, "merchant", "coins_merchant")


def test_builder_scores_most_from_houses(archetype_table):
    assert_leads(archetype_table, "builder", "vp_houses")
    assert_leads(archetype_table, "builder", "logs_delivered")


def test_jugglers_score_most_from_jugglers(archetype_table):
    assert_leads(archetype_table, "jugglers", "vp_juggler")
