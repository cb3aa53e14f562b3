"""The pirate track (docs/rules.md §6).

``pirates``: int64[N_PIRATE_FIELDS]: boxes crossed so far, attacks made so far. A row has
``pirate_boxes_per_player * P`` boxes; finishing a row is an attack at that row's strength.
"""

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import defence_nb, popcount_nb
from smsim.engine.events import record_attack_nb
from smsim.engine.memory import hot_njit


@hot_njit
def mark_swords_nb(n_swords, rnd, pirates, player, rules, trace, trace_n):
    """Cross one box per sword in round ``rnd``; each finished row attacks every seat (several
    per turn possible), recording its round and every seat's defence and sides complete.

    A seat whose defence is below the strength loses one cannon. After the last row, swords are
    ignored. Each attack is recorded in the trace. Returns the number of attacks made.
    """
    n_players = player.shape[0]
    row_len = rules[R.R_PIRATE_BOXES_PER_PLAYER] * n_players
    n_rows = rules[R.R_N_PIRATE_ROWS]
    made = 0
    for _ in range(n_swords):
        if pirates[L.PIRATE_ATTACKS] >= n_rows:
            break
        pirates[L.PIRATE_BOXES] += 1
        if pirates[L.PIRATE_BOXES] == row_len * (pirates[L.PIRATE_ATTACKS] + 1):
            row = pirates[L.PIRATE_ATTACKS]
            strength = rules[R.R_PIRATE_STRENGTHS + row]
            lost = 0
            pirates[L.PIRATE_ATTACK_ROUND + row] = rnd
            for s in range(n_players):
                defence = defence_nb(player, s, rules)
                player[s, L.ATTACK_DEFENCE + row] = defence
                player[s, L.ATTACK_SIDES + row] = popcount_nb(np.uint64(player[s, L.SIDES_DONE]))
                if defence < strength:
                    player[s, L.CANNONS_LOST] += 1
                    lost |= 1 << s
            record_attack_nb(trace, trace_n, row, strength, np.int64(lost), player, rules)
            pirates[L.PIRATE_ATTACKS] += 1
            made += 1
    return made
