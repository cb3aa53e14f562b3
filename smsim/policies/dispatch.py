"""The one branch that calls a seat's policy (STYLE §4).

Built-in bots are data: ``kind`` int64[P] (a :class:`PolicyKind` per seat) and ``params``
float64[P, N_PARAMS]. A user's policy is a function of ``interface.POLICY_SIG`` in the seat's
slot of a 5-tuple of functions. Any mix of bots runs in one cached kernel.
"""

from enum import IntEnum

from smsim import layout as L
from smsim.engine.memory import hot_njit
from smsim.policies.heuristics import heuristic_choice_nb, random_choice_nb


class PolicyKind(IntEnum):
    RANDOM = 0
    HEURISTIC = 1  # the parameterised heuristic; every built-in but random is a preset of it
    USER = 2  # the seat's function in the tuple


@hot_njit(inline="always")
def choose_nb(seats, s, w, rules):
    """Row of w.cands[:n] that seat s's policy picks (n = w.ctx[CTX_N]). Only the branch taken
    touches the seat's weights or function."""
    kind = seats.kind[s]
    n = w.ctx[L.CTX_N]
    if kind == 1:
        return heuristic_choice_nb(seats.params[s], s, w, rules)
    if kind == 2:
        fn = seats.fns[s]
        return fn(w.ctx, w.dice, w.cands, n, w.city, w.occ, w.player, w.pirates, rules, seats.params[s], w.rng)
    return random_choice_nb(n, w.rng, s)
