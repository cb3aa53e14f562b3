"""Search from any decision: the ``rollout`` policy and the candidate evaluation behind
``smsim advise``.

A continuation copies a game at one of its decisions (the state at the start of the decision's
turn, and the rows picked before it in that turn), forces one candidate there and plays the copy
to the end with every seat's base policy (``play.continue_game_nb``). Its dice after the forced
rows come from a stream keyed by (seed, game, decision number, playout), never from the real
game's: a search cannot see the future, and its games stay deterministic from the seed whatever
the threads or batches. Continuation k of every candidate uses the same stream (common random
numbers), so candidates are compared on the same dice.

``rollout`` searches KEEP and USE decisions (its knobs: ``policies/rollout.py``); every other
decision of its seat is its base policy's.
"""

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from smsim import layout as L
from smsim.engine.dice import game_key_nb
from smsim.engine.memory import hot_njit, loop_njit
from smsim.play.loop import (
    Seats,
    choose_nb,
    continue_game_nb,
    new_work,
    play_game_nb,
    playout_key_nb,
    search_nb,
)
from smsim.policies import rollout as RO

# Per-thread scratch of the search: the continuation's Work, its score and outcome, the candidate
# rows and their values.
Search = namedtuple("Search", ["cw", "score", "game_out", "rows"])


def new_search(n_players: int) -> Search:
    """Fresh search scratch for one thread (allocated in Python, as ``play.new_work``)."""
    return Search(
        new_work(n_players),
        np.zeros((n_players, L.N_SCORE_FIELDS), dtype=np.int64),
        np.zeros(L.N_GAME_FIELDS, dtype=np.int64),
        np.zeros(L.MAX_CANDS, dtype=np.int64),
    )


@hot_njit(inline="always")
def outcome_nb(score, game_out, s, margin):
    """Seat s's result of a continuation: its win share (a shared win split) plus ``margin``
    times its VP margin over the best other seat."""
    best_other = -(1 << 30)
    for o in range(score.shape[0]):
        if o != s and score[o, L.S_TOTAL] > best_other:
            best_other = score[o, L.S_TOTAL]
    share = score[s, L.S_WON] / max(game_out[L.G_WINNERS], 1)
    return share + margin * (score[s, L.S_TOTAL] - best_other)


@hot_njit(inline="always")
def add_row_nb(rows, m, row):
    for i in range(m):
        if rows[i] == row:
            return m
    rows[m] = row
    return m + 1


@loop_njit
def rollout_nb(seats, s, w, rules, search):
    """``rollout``'s pick at a KEEP or USE decision of seat s (see the module docstring)."""
    params = seats.params[s]
    decision = w.ctx[L.CTX_DECISION]
    n = w.ctx[L.CTX_N]
    base_row = choose_nb(seats, s, w, rules)  # the base policy's pick (USE: its values in w.values)
    searched = params[RO.RO_SEARCH_KEEP] if decision == L.DECISION_KEEP else params[RO.RO_SEARCH_USE]
    if n <= 1 or searched <= 0.0 or base_row < 0 or base_row >= n:
        return base_row
    rows = search.rows
    m = add_row_nb(rows, 0, base_row)
    if decision == L.DECISION_KEEP:
        m = add_row_nb(rows, m, 0)  # stop rolling
        for symbol in range(L.N_SYMBOLS):  # roll again every die not showing the symbol
            mask = 0
            for d in range(L.N_DICE):
                if w.dice[d] != symbol:
                    mask |= 1 << d
            m = add_row_nb(rows, m, mask)
    else:
        limit = min(int(params[RO.RO_CANDIDATES]), n)
        by_value = seats.base_kind[s] == L.POLICY_KIND_HEURISTIC
        while m < limit:  # the base policy's best by its own values (else in candidate order)
            best = -1
            for i in range(n):
                taken = False
                for j in range(m):
                    if rows[j] == i:
                        taken = True
                if not taken and (best < 0 or (by_value and w.values[i] > w.values[best])):
                    best = i
            m = add_row_nb(rows, m, best)
    playouts = int(params[RO.RO_PLAYOUTS])
    margin = params[RO.RO_MARGIN]
    base = Seats(seats.base_kind, seats.base_params, seats.fns, seats.base_kind, seats.base_params)
    game_key = w.keys[0]
    index = w.ctx[L.CTX_INDEX]
    pick = base_row
    best_total = -1e300
    for c in range(m):
        total = 0.0
        for k in range(playouts):
            key = playout_key_nb(game_key, index, k)
            continue_game_nb(w.snap, w.tape, w.tape_n[0], rows[c], game_key, key, search.cw, base, rules,
                             search.score, search.game_out)  # fmt: skip
            total += outcome_nb(search.score, search.game_out, s, margin)
        if total > best_total + 1e-9:  # ties keep the earlier candidate: the base policy's pick first
            best_total = total
            pick = rows[c]
    return pick


@overload(search_nb, jit_options={"_nrt": False, "cache": True})
def _search_with_scratch(seats, s, w, rules, search):
    if isinstance(search, types.BaseNamedTuple) and search.instance_class is Search:
        return lambda seats, s, w, rules, search: rollout_nb(seats, s, w, rules, search)
    return None


@njit(cache=True)
def play_one_search_nb(seed_key, game, rules, start_crates, kind, params, fns, base_kind, base_params, w, search,
                       capture_at):
    """One game alone on ``w`` (``play.new_work`` with a trace), any line-up, ``search`` the
    search scratch (``new_search``); the decision numbered ``capture_at`` (-1: none) is captured
    in ``w`` for ``evaluate_nb``. Returns (score, game_out, rows traced)."""
    n_players = kind.shape[0]
    w.cap.at[0] = capture_at
    score = np.zeros((n_players, L.N_SCORE_FIELDS), dtype=np.int64)
    game_out = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
    seats = Seats(kind, params, fns, base_kind, base_params)
    play_game_nb(game_key_nb(seed_key, game), w, seats, rules, start_crates, score, game_out, search)
    return score, game_out, w.trace_n[0]


@njit(cache=True)
def evaluate_nb(w, cw, rules, fns, base_kind, base_params, rows, first_playout, win, vp, margin_vp):
    """Continuations of the decision captured in ``w`` (``play_one_search_nb``), played on ``cw``
    (``play.new_work``): for each of
    ``rows`` (candidate rows) and playout k, the deciding seat's win share ``win[c, k]``, final VP
    ``vp[c, k]`` and VP margin over the best other seat ``margin_vp[c, k]``, every seat played by
    its base policy. Playout k uses dice stream ``first_playout + k`` for every candidate."""
    n_players = base_kind.shape[0]
    score = np.zeros((n_players, L.N_SCORE_FIELDS), dtype=np.int64)
    game_out = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
    seats = Seats(base_kind, base_params, fns, base_kind, base_params)
    cap = w.cap
    s = cap.ctx[L.CTX_SEAT]
    index = cap.ctx[L.CTX_INDEX]
    for c in range(rows.shape[0]):
        for k in range(win.shape[1]):
            key = playout_key_nb(w.keys[0], index, first_playout + k)
            continue_game_nb(cap.snap, cap.tape, cap.at[2], rows[c], w.keys[0], key, cw, seats, rules, score,
                             game_out)  # fmt: skip
            win[c, k] = outcome_nb(score, game_out, s, 0.0)
            vp[c, k] = score[s, L.S_TOTAL]
            margin_vp[c, k] = outcome_nb(score, game_out, s, 1.0) - win[c, k]
