"""Final scoring (docs/rules.md §4, §5 Cross), against the rulebook's worked examples."""

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.scoring import score_church_series_nb, score_game_nb
from smsim.layout import S_CHURCH_VP, S_RANK, S_SEAT_VP, S_SHARED, S_TOTAL, S_WON
from smsim.play.api import score_city
from smsim.play.board import parse_city
from smsim.rules import Rules
from tests.helpers import RULES_NB, state_from_cities

SERIES_VP = RULES_NB[R.R_CHURCH_SERIES_VP : R.R_CHURCH_SERIES_VP + 6]  # series of length 0..5


def church_vp(counts):
    series = np.zeros(5, dtype=np.int64)
    vp = score_church_series_nb(np.array(counts, dtype=np.int64), SERIES_VP, series)
    return vp, list(series)


def test_s9_church_sizes_score_25():
    """Churches: sizes three 1s, two 2s, one 3, one 4, two 5s score 25 VP (20 + 4 + 1)."""
    vp, series = church_vp([3, 2, 1, 1, 2])
    assert vp == 25
    assert series == [1, 1, 0, 0, 1]  # one series each of length 1, 2 and 5


def test_s9_size_5_church_adds_7():
    """A size 5 church adds 7 VP (13 to 20) when sizes 1-4 are present."""
    assert church_vp([1, 1, 1, 1, 0])[0] == 13
    assert church_vp([1, 1, 1, 1, 1])[0] == 20


def test_churches_not_in_a_run_from_size_1_score_nothing():
    assert church_vp([0, 3, 2, 1, 1])[0] == 0
    assert church_vp([2, 0, 5, 5, 5])[0] == 2


def test_written_city_scores_every_part():
    city = parse_city("""
        + # # # # # +
        1 C C 2 3 c #
        p C a a m j #
        . C . . . . #
        . . . . . . #
        . . . . . . #
        + . . . . . +
    """)
    result = score_city(city, coins=7, logs=3, cannons=2, vp=11)
    assert result["church_vp"] == 8 and result["series"] == [3]
    assert (result["coins"], result["logs"], result["cannons"], result["full_city"]) == (3, 3, -10, 0)
    assert result["total"] == 11 + 8 + 3 + 3 - 10


def test_full_city_bonus_and_tie_break_on_empty_spaces():
    full = "\n".join(["+ # # # # # +"] + ["# c c c c c #"] * 5 + ["+ # # # # # +"])
    one_left = full.replace("# c c c c c #", "# c c c c . #", 1)
    _city, occ, player = state_from_cities(full, one_left, one_left)
    player[0, L.VP] = 0
    player[1, L.VP] = 5  # equal totals: 5 (full city) vs 5 earned
    player[2, L.VP] = 5
    score = np.zeros((3, L.N_SCORE_FIELDS), dtype=np.int64)
    winners = score_game_nb(occ, player, RULES_NB, score)
    assert list(score[:, S_TOTAL]) == [5, 5, 5]
    # tie on VP: more empty spaces wins; seats 1 and 2 are still tied and share the win
    assert list(score[:, S_RANK]) == [3, 1, 1]
    assert list(score[:, S_WON]) == [0, 1, 1] and list(score[:, S_SHARED]) == [0, 1, 1]
    assert winners == 2
    assert score[0, S_CHURCH_VP] == 0


def test_seat_vp_counts_in_the_total_before_ranks():
    """docs/rules.md §7 (seat compensation): seat_vp is added to each seat's total, and ranks and
    the tie-break are decided on that total; a seat past the end of the list gets 0."""
    full = "\n".join(["+ # # # # # +"] + ["# c c c c c #"] * 5 + ["+ # # # # # +"])
    one_left = full.replace("# c c c c c #", "# c c c c . #", 1)
    _, occ, player = state_from_cities(full, one_left, one_left)
    player[:, L.VP] = [0, 5, 5]  # printed game: 5 (full city) each, seats 1 and 2 share the win (above)
    score = np.zeros((3, L.N_SCORE_FIELDS), dtype=np.int64)
    winners = score_game_nb(occ, player, Rules(seat_vp=(1, -1)).to_nb(), score)
    assert list(score[:, S_SEAT_VP]) == [1, -1, 0]
    assert list(score[:, S_TOTAL]) == [6, 4, 5]
    assert list(score[:, S_RANK]) == [1, 3, 2] and list(score[:, S_WON]) == [1, 0, 0] and winners == 1
    # a compensation that ties seat 0 with seat 2: the tie-break (more empty spaces) gives seat 2 the win
    score[:] = 0
    score_game_nb(occ, player, Rules(seat_vp=(0, -1)).to_nb(), score)
    assert list(score[:, S_TOTAL]) == [5, 4, 5] and list(score[:, S_RANK]) == [2, 3, 1]
