"""The pirate track (docs/rules.md §6), against the rulebook's worked examples."""

import numpy as np

from smsim import layout as L
from smsim.engine import events as E
from smsim.engine.pirates import mark_swords_nb
from smsim.rules import Rules

NO_TRACE = np.zeros((0, 8), dtype=np.int64)


def setup(n_players, soldiers, rules=Rules()):
    player = np.zeros((n_players, L.N_PLAYER_FIELDS), dtype=np.int64)
    player[:, L.SOLDIERS] = soldiers
    pirates = np.zeros(L.N_PIRATE_FIELDS, dtype=np.int64)
    pirates[L.PIRATE_ATTACK_ROUND :] = -1
    return player, pirates, rules.to_nb()


def mark(n, pirates, player, rules_nb, trace=NO_TRACE):
    return mark_swords_nb(n, 7, pirates, player, rules_nb, trace, np.zeros(1, dtype=np.int64))


def test_s9_pirates_4p_rows_of_8_row_3_attacks_with_strength_6():
    """Pirates, 4 players: rows of 8; a turn that crosses the last box of row 3 triggers a
    strength-6 attack and every player with defence 0 to 5 loses a cannon."""
    player, pirates, rules_nb = setup(4, soldiers=[0, 5, 6, 9])
    # rows 1 and 2 (strengths 1 and 3): seats 0 loses twice
    assert mark(16, pirates, player, rules_nb) == 2
    assert list(player[:, L.CANNONS_LOST]) == [2, 0, 0, 0]
    assert mark(7, pirates, player, rules_nb) == 0  # 23 of 24 boxes: no attack yet
    assert mark(1, pirates, player, rules_nb) == 1  # the last box of row 3
    assert list(player[:, L.CANNONS_LOST]) == [3, 1, 0, 0]  # defence 0 and 5 < 6 lose, 6 and 9 hold
    # every seat's defence at each attack, and the round of the attacks, are recorded
    assert list(player[:, L.ATTACK_DEFENCE + 2]) == [0, 5, 6, 9]
    assert list(pirates[L.PIRATE_ATTACK_ROUND : L.PIRATE_ATTACK_ROUND + 3]) == [7, 7, 7]


def test_s9_3_player_pirate_row_has_6_boxes():
    """A 3-player pirate row has 6 boxes."""
    player, pirates, rules_nb = setup(3, soldiers=0)
    assert mark(5, pirates, player, rules_nb) == 0
    assert mark(1, pirates, player, rules_nb) == 1
    assert list(player[:, L.CANNONS_LOST]) == [1, 1, 1]


def test_one_turn_can_finish_two_rows_each_its_own_attack():
    player, pirates, rules_nb = setup(2, soldiers=[2, 4])
    assert mark(3, pirates, player, rules_nb) == 0
    trace = np.zeros((16, 8), dtype=np.int64)
    n = np.zeros(1, dtype=np.int64)
    # 2 players: rows of 4; 3 + 5 swords finish rows 1 (strength 1) and 2 (strength 3)
    assert mark_swords_nb(5, 9, pirates, player, rules_nb, trace, n) == 2
    attacks = trace[: n[0]][trace[: n[0], 0] == E.EV_ATTACK]
    rows = attacks[attacks[:, 1] >= 0]
    assert [tuple(r[1:5]) for r in rows] == [(0, 1, 0, 2), (1, 3, 1, 2)]  # row, strength, lost mask, defence 0
    assert list(player[:, L.CANNONS_LOST]) == [1, 0]
    assert list(pirates[L.PIRATE_ATTACK_ROUND : L.PIRATE_ATTACK_ROUND + 3]) == [9, 9, -1]


def test_swords_after_the_sixth_attack_are_ignored():
    player, pirates, rules_nb = setup(2, soldiers=0)
    assert mark(24, pirates, player, rules_nb) == 6
    assert list(player[:, L.CANNONS_LOST]) == [6, 6]
    assert mark(30, pirates, player, rules_nb) == 0
    assert pirates[L.PIRATE_BOXES] == 24 and pirates[L.PIRATE_ATTACKS] == 6


def test_variant_rows_and_strengths():
    player, pirates, rules_nb = setup(
        3, soldiers=[0, 1, 2], rules=Rules(pirate_boxes_per_player=1, pirate_strengths=(2,))
    )
    assert mark(10, pirates, player, rules_nb) == 1  # one row of 3 boxes, then nothing
    assert list(player[:, L.CANNONS_LOST]) == [1, 1, 0]


def test_sides_complete_at_each_attack_are_recorded_beside_the_defence():
    """The report splits defence into walls and soldiers: each attack records the seat's complete
    sides (side_defence each) next to its total defence."""
    player, pirates, rules_nb = setup(2, soldiers=[1, 0])
    player[0, L.SIDES_DONE] = 0b0101  # two sides and one soldier
    player[1, L.SIDES_DONE] = 0b0001
    assert mark(4, pirates, player, rules_nb) == 1
    assert list(player[:, L.ATTACK_SIDES]) == [2, 1]
    assert list(player[:, L.ATTACK_DEFENCE]) == [2 * Rules().side_defence + 1, Rules().side_defence]
