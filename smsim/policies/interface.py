"""The policy interface: the signature every policy function has (docs/policies.md).

A policy is called at every decision with the legal candidates and a read-only view of the
game, and returns the row of ``cands`` it picks::

    from numba import njit
    from smsim.policies.interface import POLICY_SIG

    @njit(POLICY_SIG, cache=True)
    def first_choice(ctx, dice, cands, n, city, occ, player, pirates, rules, params, rng):
        return 0

Arguments (all arrays C-contiguous; never write to them):

- ``ctx`` int64[N_CTX]: the decision (``ctx[CTX_DECISION]``, a ``layout.Decision``), the seat,
  round, roll, symbol, dice used, what is being placed, ... (``layout.CTX_*``).
- ``dice`` int64[5]: the faces (``layout.Face``) of the five dice.
- ``cands`` int64[MAX_CANDS, 4], ``n``: the legal candidates are rows 0..n-1; their columns are
  given per decision in ``layout.Decision``.
- ``city`` int8[P, 49], ``occ`` uint64[P, 17], ``player`` int64[P, N_PLAYER_FIELDS]: every
  seat's city (``layout.Cell`` codes), its bit masks per cell code and its counters.
- ``pirates`` int64[2]: boxes crossed and attacks made. ``rules`` int64[N_RULE_FIELDS]:
  ``Rules.to_nb()``, indexed by ``smsim.rules.R_*``.
- ``params`` float64[N_PARAMS]: the seat's weights (from a weights file, or zeros).
- ``rng`` uint64[P]: the policy streams; draw with ``smsim.engine.dice.rand_below_nb(rng, seat, n)``.

Return an int64 in 0..n-1. Anything else stops the run with an error naming the policy.
"""

import threading

from numba import njit, types

POLICY_SIG = types.int64(
    types.int64[::1],  # ctx
    types.int64[::1],  # dice
    types.int64[:, ::1],  # cands
    types.int64,  # n
    types.int8[:, ::1],  # city
    types.uint64[:, ::1],  # occ
    types.int64[:, ::1],  # player
    types.int64[::1],  # pirates
    types.int64[::1],  # rules
    types.float64[::1],  # params
    types.uint64[::1],  # rng
)
MAX_SEATS = 5  # the engine always takes 5 policy functions, so it compiles once for every P


@njit(cache=True)
def no_user_policy(ctx, dice, cands, n, city, occ, player, pirates, rules, params, rng):
    """Stands in the function tuple for seats played by a built-in bot; never called. Compiled
    for POLICY_SIG by ``placeholder_policy`` when a line-up is first played, not at import: a
    command answers bad input before anything is compiled."""
    return -1


_COMPILING = threading.Lock()  # threads that make line-ups at once compile it once


def placeholder_policy():
    """``no_user_policy``, compiled for ``POLICY_SIG`` (or loaded from the on-disk cache)."""
    with _COMPILING:
        if not no_user_policy.signatures:
            no_user_policy.compile(POLICY_SIG)
            # one signature and no other, as ``@njit(POLICY_SIG)`` leaves a user's policy: the play
            # loop types every seat's function alike and is compiled once for any line-up
            no_user_policy.disable_compile()
    return no_user_policy
