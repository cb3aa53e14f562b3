"""One game through the Python API (smsim.play.api): a game alone at any int64 index, a written
city scored, and the line-up checks every layer above applies."""

import numpy as np
import pytest

from smsim.errors import PolicyError, SimulationError
from smsim.play.api import MAX_GAME_INDEX, play_game, score_city, verify_lineup, verify_players
from smsim.play.board import EMPTY_CITY, parse_city
from smsim.rules import Rules


def test_players_and_line_ups_are_checked():
    assert verify_players(2) == 2 and verify_lineup(3, ["greedy"])[1][2].name == "greedy"
    with pytest.raises(SimulationError, match="players must be a whole number from 2 to 5, not 1"):
        verify_players(1)
    with pytest.raises(SimulationError, match="whole number"):
        verify_players(True)
    with pytest.raises(PolicyError, match="got 2 policies for 3 players"):
        verify_lineup(3, ["greedy", "random"])


def test_the_last_int64_game_index_plays():
    traced = play_game(2, seed=1, game=MAX_GAME_INDEX, policies=["random"])
    assert traced.records[0]["game"] == MAX_GAME_INDEX and traced.records[-1]["type"] == "end"


def test_score_city_full_city_bonus():
    full = "\n".join(["+ # # # # # +"] + ["# 1 2 3 4 5 #"] * 5 + ["+ # # # # # +"])
    result = score_city(parse_city(full), coins=3, logs=0, cannons=0, vp=0)
    assert result["full_city"] == 5
    assert result["series"] == [5, 5, 5, 5, 5] and result["church_vp"] == 100
    assert result["coins"] == 1 and result["total"] == 106


def test_score_city_follows_the_rules_variant():
    rules = Rules(church_series_vp=(2, 5, 9, 14, 21), coins_per_vp=3, full_city_vp=0)
    city = parse_city(EMPTY_CITY.replace("+ . . . . . +", "+ 1 2 . . . +", 1))
    result = score_city(city, coins=7, rules=rules)
    assert (result["church_vp"], result["coins"], result["total"]) == (5, 2, 7)  # VP
    assert (result["coins_left"], result["logs_left"], result["cannons_lost"]) == (7, 0, 0)  # counts
    assert np.array_equal(city, parse_city(EMPTY_CITY.replace("+ . . . . . +", "+ 1 2 . . . +", 1)))
