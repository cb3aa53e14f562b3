"""Strength and character of the built-ins, asserted with intervals from ``smsim.compare``: blocks
of every seat arrangement on the same dice, so every policy sits in every seat equally, and the
intervals are over blocks, which are independent (issue: heuristic policies).

The default suite proves each claim on a small sample; the same claims on larger samples, with
tighter margins of safety, are marked slow."""

import numpy as np
import pandas as pd
import pytest

from smsim.intervals import Z_95, mean_and_interval
from smsim.studies.compare import Comparison, compare

Z = 3.0  # a 3-sigma margin: such a test fails by chance about once in 700 runs, and never here
SLOW = pytest.mark.slow


def lower_bound(result: Comparison, policy: str) -> float:
    """The policy's win share minus Z standard errors (from its 95% interval over blocks)."""
    row = result.table.loc[policy]
    se = (row.win_hi - row.win_lo) / (2 * Z_95)
    return row.win_share - Z * se


@pytest.mark.parametrize("games", [400, pytest.param(8000, marks=SLOW)])
def test_balanced_beats_random_in_4_player_games(games):
    result = compare(["balanced", "random"], 4, games, seed=17)
    assert lower_bound(result, "balanced") > 0.5, result.table


@pytest.mark.parametrize("games", [1200, pytest.param(8000, marks=SLOW)])
def test_balanced_beats_greedy_in_4_player_games(games):
    result = compare(["balanced", "greedy"], 4, games, seed=17)
    assert lower_bound(result, "balanced") > 0.5, result.table


@pytest.mark.parametrize("archetype", ["greedy", "churches", "walls", "merchant", "builder", "jugglers"])
@pytest.mark.parametrize("games", [200, pytest.param(2000, marks=SLOW)])
def test_every_builtin_beats_random(archetype, games):
    result = compare([archetype, "random"], 4, games, seed=19)
    assert lower_bound(result, archetype) > 0.5, result.table


ARCHETYPES = ["churches", "walls", "merchant", "builder", "jugglers"]


@pytest.fixture(scope="module", params=[3600, pytest.param(24000, marks=SLOW)])
def archetype_table(request) -> pd.DataFrame:
    """5-player games of the five archetypes, every seat arrangement of them (120) per block."""
    return compare(ARCHETYPES, 5, request.param, seed=23).seats


def assert_leads(seats: pd.DataFrame, archetype: str, column: str, others=None, higher=True) -> None:
    """In the same blocks, the archetype's mean of ``column`` exceeds (or is below) each other's
    by Z standard errors over blocks."""
    per_block = seats.groupby(["block", "policy"], observed=True)[column].mean().unstack()
    sign = 1 if higher else -1
    for other in others or [a for a in ARCHETYPES if a != archetype]:
        diff, lo, _, n = mean_and_interval(sign * (per_block[archetype] - per_block[other]).to_numpy())
        se = (diff - lo) / Z_95
        assert n > 1 and diff > Z * se, (column, archetype, other, per_block.mean().to_dict())


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


def test_a_policy_level_with_itself_is_not_declared_stronger():
    # the same weights under two names on common dice: every block is a dead heat, and neither
    # passes the bar the tests above set
    from dataclasses import replace

    from smsim.policies.registry import POLICIES

    twin = replace(POLICIES["balanced"], name="balanced-twin")
    result = compare(["balanced", twin], 4, 400, seed=29)
    assert not lower_bound(result, "balanced") > 0.5 and not lower_bound(result, "balanced-twin") > 0.5
    assert np.allclose(result.table["win_share"], 0.5), result.table
