"""Final scoring, tie-break and ranks (docs/rules.md §4, §5 Cross).

``score[s, field]`` (int64[P, N_SCORE_FIELDS]) receives each seat's breakdown; the fields are
the ``layout.S_*`` constants (``layout.SCORE``).
"""

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import defence_nb, popcount_nb
from smsim.engine.memory import cached_njit, hot_njit, loop_njit

# the fields of ``score`` are declared once, in ``layout.SCORE``
SCORE_FIELD_NAMES = L.SCORE.columns()


@hot_njit
def score_church_series_nb(church_counts, series_vp, series_out):
    """End-of-game VP of one seat's churches (docs/rules.md §5 Cross).

    Parameters
    ----------
    church_counts : ndarray(int64, shape=(5,))
        Churches of size 1..5.
    series_vp : ndarray(int64, shape=(6,))
        VP of a series of length 0..5 (``rules[R_CHURCH_SERIES_VP:]``).
    series_out : ndarray(int64, shape=(5,))
        Receives the number of series of length 1..5.

    Series i (1, 2, ...) takes one church of each size 1, 2, ... while the i-th church of that
    size exists, so its length is the number of leading sizes with at least i churches.
    """
    for n in range(L.N_CHURCH_SIZES):
        series_out[n] = 0
    vp = 0
    i = 1
    while True:
        length = 0
        while length < L.N_CHURCH_SIZES and church_counts[length] >= i:
            length += 1
        if length == 0:
            return vp
        series_out[length - 1] += 1
        vp += series_vp[length]
        i += 1


@loop_njit
def score_seat_nb(occ, player, s, rules, counts, series, row):
    """Seat s's final-scoring breakdown (docs/rules.md §4) into ``row`` (a ``layout.SCORE`` row, its
    rank and win left alone), ``counts`` and ``series`` int64[5] scratch; returns the total. A
    seat's ``seat_vp`` (§7) counts in its total. The one formula of the final score: the game's
    end (``score_game_nb``) and the round snapshots (``snapshot_round_nb``) both use it."""
    series_vp = rules[R.R_CHURCH_SERIES_VP : R.R_CHURCH_SERIES_VP + L.N_CHURCH_SIZES + 1]
    for size in range(L.N_CHURCH_SIZES):
        counts[size] = popcount_nb(occ[s, L.CELL_CHURCH_1 + size])
        row[L.S_CHURCHES + size] = counts[size]
    church_vp = score_church_series_nb(counts, series_vp, series)
    for n in range(L.N_CHURCH_SIZES):
        row[L.S_SERIES + n] = series[n]
    empty = player[s, L.N_EMPTY]
    row[L.S_EARNED] = player[s, L.VP]
    row[L.S_CHURCH_VP] = church_vp
    row[L.S_COINS_VP] = player[s, L.COINS] // rules[R.R_COINS_PER_VP]
    row[L.S_LOGS_VP] = player[s, L.LOGS] * rules[R.R_VP_PER_LOG]
    row[L.S_CANNON_VP] = -player[s, L.CANNONS_LOST] * rules[R.R_CANNON_PENALTY]
    row[L.S_FULL_CITY_VP] = rules[R.R_FULL_CITY_VP] if empty == 0 else 0
    row[L.S_SEAT_VP] = rules[R.R_SEAT_VP + s]  # the seat's compensation (docs/rules.md §7), 0 by default
    row[L.S_EMPTY] = empty
    row[L.S_TOTAL] = (
        row[L.S_EARNED]
        + church_vp
        + row[L.S_COINS_VP]
        + row[L.S_LOGS_VP]
        + row[L.S_CANNON_VP]
        + row[L.S_FULL_CITY_VP]
        + row[L.S_SEAT_VP]
    )
    return row[L.S_TOTAL]


@cached_njit(_nrt=True)  # allocates its scratch, once a game: outside hot_njit
def score_game_nb(occ, player, rules, score):
    """Fill ``score`` for every seat: the breakdown, then ranks and wins (docs/rules.md §4)."""
    n_players = player.shape[0]
    counts = np.zeros(L.N_CHURCH_SIZES, dtype=np.int64)
    series = np.zeros(L.N_CHURCH_SIZES, dtype=np.int64)
    for s in range(n_players):
        score_seat_nb(occ, player, s, rules, counts, series, score[s])
    n_winners = 0
    for s in range(n_players):
        better = 0
        for o in range(n_players):
            if score[o, L.S_TOTAL] > score[s, L.S_TOTAL] or (
                score[o, L.S_TOTAL] == score[s, L.S_TOTAL] and score[o, L.S_EMPTY] > score[s, L.S_EMPTY]
            ):
                better += 1
        score[s, L.S_RANK] = 1 + better
        score[s, L.S_WON] = 1 if better == 0 else 0
        n_winners += score[s, L.S_WON]
    for s in range(n_players):
        score[s, L.S_SHARED] = 1 if score[s, L.S_WON] == 1 and n_winners > 1 else 0
    return n_winners


ROUND_SCRATCH = 2 * L.N_CHURCH_SIZES + L.N_SCORE_FIELDS  # int64 scratch of ``snapshot_round_nb``


@hot_njit
def snapshot_round_nb(occ, player, pirates, rules, scratch, out):
    """Every seat's position now into ``out`` (int16[P, N_ROUND_FIELDS], ``layout.ROUND``): its
    score if the game ended now, what makes it up and what the city holds. ``scratch``:
    int64[ROUND_SCRATCH]. No allocation."""
    counts = scratch[: L.N_CHURCH_SIZES]
    series = scratch[L.N_CHURCH_SIZES : 2 * L.N_CHURCH_SIZES]
    row = scratch[2 * L.N_CHURCH_SIZES :]
    for s in range(player.shape[0]):
        out[s, L.RS_SCORE] = score_seat_nb(occ, player, s, rules, counts, series, row)
        out[s, L.RS_VP] = player[s, L.VP]
        out[s, L.RS_CHURCH_VP] = row[L.S_CHURCH_VP]
        out[s, L.RS_COINS] = player[s, L.COINS]
        out[s, L.RS_LOGS] = player[s, L.LOGS]
        out[s, L.RS_CANNONS_LOST] = player[s, L.CANNONS_LOST]
        out[s, L.RS_DEFENCE] = defence_nb(player, s, rules)
        out[s, L.RS_SIDES_DONE] = popcount_nb(np.uint64(player[s, L.SIDES_DONE]))
        out[s, L.RS_N_EMPTY] = player[s, L.N_EMPTY]
        out[s, L.RS_WALLS] = popcount_nb(occ[s, L.CELL_WALL])
        out[s, L.RS_CRATES] = popcount_nb(occ[s, L.CELL_CRATE])
        churches = 0
        for size in range(L.N_CHURCH_SIZES):
            churches += counts[size]
        out[s, L.RS_CHURCHES] = churches
        persons = 0
        for person in range(L.N_PERSONS):
            persons += popcount_nb(occ[s, L.PERSON_0 + person])
        out[s, L.RS_PERSONS] = persons
        out[s, L.RS_PIRATE_BOXES] = pirates[L.PIRATE_BOXES]
        out[s, L.RS_PIRATE_ATTACKS] = pirates[L.PIRATE_ATTACKS]
