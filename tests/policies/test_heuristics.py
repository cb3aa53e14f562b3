"""The heuristic's value terms against hand-computed values (RULES.md §5, §6)."""

import numpy as np

from smsim import layout as L
from smsim.policies import heuristics as H
from tests.helpers import RULES_NB, state_from_cities

CITY = """
+ . . . . . +
. C C . . . .
. C . . . . .
. C . . . . .
. . . . . . .
. . . . . . .
+ . . . . . +
"""


def with_churches(*sizes):
    text = CITY
    cells = [(4, 1), (4, 2), (4, 3), (4, 4), (4, 5), (5, 1), (5, 2)]
    rows = [list(line.split()) for line in text.strip().splitlines()]
    for (r, c), size in zip(cells, sizes):
        rows[r][c] = str(size)
    return state_from_cities("\n".join(" ".join(r) for r in rows))


def test_church_value_realized_and_potential():
    city, occ, player = with_churches(1, 2, 4)
    # realized: series 1-2 = 4 VP; potential: the gap at 3 would lift 1-2-.-4 to 13, over 1 + 1 gap
    assert H.church_value_nb(occ, 0, RULES_NB, 0, 0.0) == 4.0
    assert H.church_value_nb(occ, 0, RULES_NB, 0, 1.0) == 4.0 + (13 - 4) / 2
    # adding the missing 3 realizes it
    assert H.church_value_nb(occ, 0, RULES_NB, 3, 0.0) == 13.0


def test_church_value_second_series_layer():
    city, occ, player = with_churches(1, 1, 2, 3)
    assert H.church_value_nb(occ, 0, RULES_NB, 0, 0.0) == 8 + 1  # 1-2-3 and a lone 1


def test_defence_gain_counts_the_attacks_newly_held():
    city, occ, player = state_from_cities(CITY)
    params = np.zeros(H.N_PARAMS)
    params[H.P_DEFENCE], params[H.P_PIRATE_NEXT], params[H.P_PIRATE_LATER] = 0.1, 1.0, 0.5
    pirates = np.zeros(L.N_PIRATE_FIELDS, dtype=np.int64)
    # 1 seat: rows of 2 boxes. Defence 0 -> 3 holds attack 1 (strength 1, the next) and
    # attack 2 (strength 3, later). With the row's last box left, the next attack is urgent.
    pirates[L.PIRATE_BOXES] = 1
    v = H.defence_gain_nb(params, player, pirates, 0, RULES_NB, 3)
    assert np.isclose(v, 0.3 + 1.0 * 5 + 0.5 * 5)
    # with the whole row ahead, it weighs like a later one
    pirates[L.PIRATE_BOXES] = 0
    v = H.defence_gain_nb(params, player, pirates, 0, RULES_NB, 3)
    assert np.isclose(v, 0.3 + (0.5 + 0.5 * 0.5) * 5 + 0.5 * 5)
    # after two attacks, 3 more defence (0 -> 3) holds nothing still to come (6, 8, 10, 12)
    pirates[L.PIRATE_ATTACKS], pirates[L.PIRATE_BOXES] = 2, 4
    assert np.isclose(H.defence_gain_nb(params, player, pirates, 0, RULES_NB, 3), 0.3)


def test_pick_best_breaks_ties_uniformly():
    rng = np.array([12345], dtype=np.uint64)
    values = np.array([1.0, 3.0, 3.0, 3.0, 2.0])
    picks = np.bincount([H.pick_best_nb(values, 5, rng, 0) for _ in range(3000)], minlength=5)
    assert picks[0] == picks[4] == 0
    assert all(900 < picks[i] < 1100 for i in (1, 2, 3))


def test_estimate_and_lead():
    city, occ, player = state_from_cities(CITY, CITY, coins=5, logs=2)
    player[0, L.VP], player[1, L.VP] = 10, 4
    player[1, L.CANNONS_LOST] = 1
    # seat 0: 10 + 2 (coins) + 2 (logs); seat 1: 4 + 2 + 2 - 5
    assert H.estimate_total_nb(occ, player, 0, RULES_NB) == 14
    assert H.lead_nb(occ, player, 0, RULES_NB) == 14 - 3


def test_turn_table_best_values_match_brute_force():
    """memo[M_BEST]: the best value with n dice showing a symbol, using any k <= n + r of them
    after r affordable rotations, each costing coin * rotation_cost; 0 when nothing is better."""
    from smsim.engine.game import new_work_nb
    from smsim.policies.registry import POLICIES

    city, occ, player = state_from_cities(CITY.replace(". C C . . . .", ". C C 1 2 . .", 1), CITY, coins=5, logs=1)
    w = new_work_nb(2, np.zeros((0, 8), dtype=np.int64))
    w.city[:], w.occ[:], w.player[:] = city, occ, player
    for name in ("balanced", "greedy", "merchant"):
        params = POLICIES[name].params
        w.memo[0] = -1.0
        H.turn_table_nb(params, w.ctx, w.occ, w.player, w.pirates, w.memo, 0, RULES_NB)
        rotation = params[H.P_COIN] * 2
        affordable = 5 // 2
        for symbol in range(5):
            exact = [w.memo[H.M_EXACT + symbol * 6 + k] for k in range(6)]
            for n in range(6):
                brute = 0.0
                for r in range(0, min(affordable, 5 - n) + 1):
                    for k in range(1, n + r + 1):
                        brute = max(brute, exact[k] - r * rotation)
                assert np.isclose(w.memo[H.M_BEST + symbol * 6 + n], brute), (name, symbol, n)
