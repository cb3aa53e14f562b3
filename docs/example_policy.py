"""An example smsim policy: churches in series order, persons otherwise.

Run it:  smsim simulate --players 3 --policy docs/example_policy.py:next_church --policy balanced
"""

from numba import njit

from smsim import layout as L
from smsim.layout import C_K, C_PERSON, C_ROTATED, C_SYMBOL, CTX_DECISION, CTX_SEAT
from smsim.policies.interface import POLICY_SIG


@njit(POLICY_SIG, cache=True)
def next_church(ctx, dice, cands, n, city, occ, player, pirates, rules, params, rng):
    """Keep crosses; build the smallest church size the city lacks; else the biggest person."""
    seat = ctx[CTX_SEAT]
    decision = ctx[CTX_DECISION]
    if decision == L.DECISION_KEEP:
        # row i of a KEEP decision is the reroll mask i: roll again every die not showing a cross
        mask = 0
        for d in range(5):
            if dice[d] != L.FACE_CROSS:
                mask |= 1 << d
        return mask
    if decision == L.DECISION_USE:
        want = 0  # the smallest size with no church yet (0: the series is complete)
        for size in range(5, 0, -1):
            if occ[seat, L.CELL_CHURCH_1 + size - 1] == 0:
                want = size
        best, best_score = 0, -2
        for i in range(n):
            if cands[i, C_ROTATED] > 0:
                continue  # never pay for a rotation
            score = 0
            if cands[i, C_SYMBOL] == L.FACE_CROSS:
                score = 100 if cands[i, C_K] == want else -1  # only the size the series lacks
            elif cands[i, C_SYMBOL] == L.FACE_HEAD:
                score = 10 + cands[i, C_K] + (1 if cands[i, C_PERSON] >= 0 else 0)
            elif cands[i, C_SYMBOL] >= 0:
                score = cands[i, C_K]
            if score > best_score:
                best, best_score = i, score
        return best
    # every other decision (cells, houses, bonus order, bonus person): the first candidate
    return 0


# optional: a weight vector the engine hands to this policy as `params` (up to N_PARAMS values)
next_church_params = [0.0]
