"""Final scoring, tie-break and ranks (docs/rules.md §4, §5 Cross).

``score[s, field]`` (int64[P, N_SCORE_FIELDS]) receives each seat's breakdown; the fields are
the ``layout.S_*`` constants (``layout.SCORE``).
"""

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import popcount_nb
from smsim.engine.memory import cached_njit, hot_njit

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


@cached_njit(_nrt=True)  # allocates its scratch, once a game: outside hot_njit
def score_game_nb(occ, player, rules, score):
    """Fill ``score`` for every seat: the breakdown, then ranks and wins (docs/rules.md §4); a
    seat's ``seat_vp`` (§7) counts in its total before ranks are decided."""
    n_players = player.shape[0]
    counts = np.zeros(L.N_CHURCH_SIZES, dtype=np.int64)
    series = np.zeros(L.N_CHURCH_SIZES, dtype=np.int64)
    series_vp = rules[R.R_CHURCH_SERIES_VP : R.R_CHURCH_SERIES_VP + L.N_CHURCH_SIZES + 1]
    for s in range(n_players):
        for size in range(L.N_CHURCH_SIZES):
            counts[size] = popcount_nb(occ[s, L.CELL_CHURCH_1 + size])
            score[s, L.S_CHURCHES + size] = counts[size]
        church_vp = score_church_series_nb(counts, series_vp, series)
        for n in range(L.N_CHURCH_SIZES):
            score[s, L.S_SERIES + n] = series[n]
        empty = player[s, L.N_EMPTY]
        score[s, L.S_EARNED] = player[s, L.VP]
        score[s, L.S_CHURCH_VP] = church_vp
        score[s, L.S_COINS_VP] = player[s, L.COINS] // rules[R.R_COINS_PER_VP]
        score[s, L.S_LOGS_VP] = player[s, L.LOGS] * rules[R.R_VP_PER_LOG]
        score[s, L.S_CANNON_VP] = -player[s, L.CANNONS_LOST] * rules[R.R_CANNON_PENALTY]
        score[s, L.S_FULL_CITY_VP] = rules[R.R_FULL_CITY_VP] if empty == 0 else 0
        score[s, L.S_SEAT_VP] = rules[R.R_SEAT_VP + s]  # the seat's compensation (docs/rules.md §7), 0 by default
        score[s, L.S_EMPTY] = empty
        score[s, L.S_TOTAL] = (
            score[s, L.S_EARNED] + church_vp + score[s, L.S_COINS_VP] + score[s, L.S_LOGS_VP]
            + score[s, L.S_CANNON_VP] + score[s, L.S_FULL_CITY_VP] + score[s, L.S_SEAT_VP]
        )
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
