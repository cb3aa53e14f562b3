"""The one branch that calls a seat's policy (STYLE §4).

Built-in bots are data: ``policy_kind`` int64[P] (a :class:`PolicyKind` per seat) and
``policy_params`` float64[P, N_PARAMS], so any mix of bots runs in one cached kernel.
"""

from enum import IntEnum

from numba import njit

from smsim.policies.heuristics import greedy_choice_nb, random_choice_nb


class PolicyKind(IntEnum):
    RANDOM = 0
    GREEDY = 1


@njit(cache=True, inline="always")
def choose_nb(kind, params, ctx, dice, cands, n, occ, player, rules, rng, seat, values):
    """Row of cands[:n] that the seat's policy picks."""
    if kind == 1:
        return greedy_choice_nb(params, ctx, dice, cands, n, occ, player, rules, rng, seat, values)
    return random_choice_nb(n, rng, seat)
