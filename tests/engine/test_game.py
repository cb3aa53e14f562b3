"""The course of a game by the rules, step by step, without a policy (docs/rules.md §1, §3-§6)."""

import numpy as np

from smsim import layout as L
from smsim.engine import game as G
from smsim.rules import Rules
from tests.helpers import RULES_NB


def fresh(players=2, rules=Rules()):
    city = np.zeros((players, L.N_CELLS), dtype=np.int8)
    occ = np.zeros((players, L.N_CELL_CODES), dtype=np.uint64)
    player = np.zeros((players, L.N_PLAYER_FIELDS), dtype=np.int64)
    pirates = np.full(L.N_PIRATE_FIELDS, 99, dtype=np.int64)
    G.start_game_nb(city, occ, player, pirates, rules.start_crate_cells(), rules.to_nb())
    return city, occ, player, pirates


def test_start_game_gives_coins_logs_printed_crates_and_an_empty_track():
    city, _occ, player, pirates = fresh(3)
    assert list(player[:, L.COINS]) == [3, 3, 3] and list(player[:, L.LOGS]) == [2, 2, 2]
    assert list(player[:, L.N_EMPTY]) == [45 - 4] * 3
    assert (city == L.Cell.CRATE).sum(axis=1).tolist() == [4, 4, 4]
    assert pirates[L.PIRATE_BOXES] == 0 and pirates[L.PIRATE_ATTACKS] == 0
    assert np.all(pirates[L.PIRATE_ATTACK_ROUND :] == -1)
    assert np.all(player[:, L.SIDE_ROUND : L.SIDE_ROUND + 4] == -1)


def test_paying_for_a_use_rotations_and_a_log_delivery():
    _, _, player, _ = fresh()
    costs = G.pay_for_use_nb(player, 0, int(L.Face.LOG), 3, 1, RULES_NB)
    assert costs == (2, 2)  # one rotation at 2 coins, one delivery at 2 coins
    assert player[0, L.COINS] == 3 - 4
    assert player[0, L.LOGS] == 2 + 3 and player[0, L.LOGS_DELIVERED] == 3
    assert player[0, L.N_ROTATED] == 1 and player[0, L.N_PASSES] == 0
    G.pay_for_use_nb(player, 1, L.NO_SYMBOL, 0, 0, RULES_NB)
    assert player[1, L.N_PASSES] == 1 and player[1, L.COINS] == 3


def test_houses_cost_a_log_each_and_give_their_vp():
    _, _, player, _ = fresh()
    G.pay_for_houses_nb(player, 0, 2, RULES_NB)
    assert player[0, L.LOGS] == 0 and player[0, L.LOGS_USED] == 2
    assert player[0, L.VP] == 6 and player[0, L.VP_HOUSES] == 6


def test_side_bonuses_as_the_rules_set_them():
    _, _, player, _ = fresh()
    kinds = [G.give_side_bonus_nb(player, 0, int(side), RULES_NB) for side in L.Side]
    assert [(int(k), int(a)) for k, a in kinds] == [
        (L.BonusKind.PERSON, 3),
        (L.BonusKind.COINS, 2),
        (L.BonusKind.VP, 3),
        (L.BonusKind.COINS, 2),
    ]
    assert player[0, L.COINS] == 3 + 4 and player[0, L.COINS_WALL_BONUS] == 4
    assert player[0, L.VP] == 3 and player[0, L.VP_WALL_BONUS] == 3


def test_a_seat_left_out_of_a_sides_bonus_receives_nothing():
    """wall_bonus_seats (docs/rules.md §7): seat 1 is left out of the right and bottom bonuses."""
    _, _, player, _ = fresh()
    rules = Rules(wall_bonus_seats=(31, 31 & ~0b10, 31 & ~0b10, 31)).to_nb()
    for s in (0, 1):
        got = [G.give_side_bonus_nb(player, s, int(side), rules) for side in (L.Side.RIGHT, L.Side.BOTTOM)]
        want = [(L.BonusKind.COINS, 2), (L.BonusKind.VP, 3)] if s == 0 else [(L.BonusKind.NONE, 0)] * 2
        assert [(int(k), int(a)) for k, a in got] == want
    assert player[0, L.COINS_WALL_BONUS] == 2 and player[0, L.VP_WALL_BONUS] == 3
    assert player[1, L.COINS] == 3 and player[1, L.COINS_WALL_BONUS] == 0 and player[1, L.VP] == 0


def test_completed_sides_remember_their_round():
    _, _, player, _ = fresh()
    G.complete_sides_nb(player, 1, 0b0101, 7)
    assert player[1, L.SIDES_DONE] == 0b0101
    assert list(player[1, L.SIDE_ROUND : L.SIDE_ROUND + 4]) == [7, -1, 7, -1]


def test_finish_game_scores_and_fills_the_outcome():
    _, occ, player, pirates = fresh(2)
    player[1, L.N_EMPTY] = 0
    player[0, L.VP] = 4
    score = np.zeros((2, L.N_SCORE_FIELDS), dtype=np.int64)
    out = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
    G.finish_game_nb(occ, player, pirates, np.array([0, -1]), 12, True, RULES_NB, score, out)
    assert out[L.G_ROUNDS] == 12 and out[L.G_ABORTED] == 0 and out[L.G_FILLED] == 0b10
    # seat 1: full city 5 VP + 3 coins // 2 + 2 logs = 8; seat 0: 4 + 1 + 2 = 7
    assert list(score[:, L.S_TOTAL]) == [7, 8] and out[L.G_WINNERS] == 1 and score[1, L.S_WON] == 1
    assert G.city_full_nb(player) and not G.city_full_nb(player[:1])
