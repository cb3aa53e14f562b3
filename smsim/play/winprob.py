"""Every seat's probability of winning from a position: the features of a seat's round snapshot
(``layout.ROUND``) and a conditional logit over the seats, jitted, so that millions of positions
are read in seconds and the play loop can read them too. The model's file, its fit and its
calibration are ``smsim/studies/winprob.py``'s.

The model: seat i's utility is ``coef[stage] . features_i`` and its win probability
``exp(u_i) / sum_j exp(u_j)``, the probabilities of the seats summing to 1 (a shared win counts
1/k to each of its k winners). The coefficients depend on the player count and the game's
*stage*, how near its end is: the game ends after the round in which a city fills, so the
fewest empty spaces of any seat (``STAGE_EDGES``) say how much the rest of the game can still
change. Features common to every seat (the pirate track itself) cancel in a logit over the
seats and are used only through what they do to each seat (its shortfall against the next
attack).

>>> int(N_WIN_FEATURES), stage_of(45), stage_of(0)
(15, 7, 0)
"""

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.memory import cached_njit, hot_njit

FEATURES = L.Record(
    "win-probability feature",
    "WF_",
    "N_WIN_FEATURES",
    (
        ("score", 1, "the seat's score if the game ended now (VP)"),
        ("lead", 1, "that score minus the best other seat's (VP)"),
        ("coins", 1, "coins held"),
        ("logs", 1, "logs held"),
        ("n_empty", 1, "empty spaces left"),
        (
            "shortfall",
            1,
            "the next pirate attack's strength minus the seat's defence, at least 0 (0 once no attack is left)",
        ),
        ("shortfall_near", 1, "the shortfall, times the share of the attack's row already crossed"),
        ("walls", 1, "walls in the city"),
        ("churches", 1, "churches in the city"),
        ("persons", 1, "persons in the city"),
        ("crates", 1, "crates in the city"),
        ("seat", L.MAX_PLAYERS - 1, "1 for seat k, k = 1 .. 4 (seat 0: none): the seat order"),
    ),
)
FEATURES.export(globals())  # defines WF_* and N_WIN_FEATURES (used below under noqa: F821)
FEATURE_NAMES = FEATURES.columns()

# A stage is the fewest empty spaces of any seat, in [STAGE_EDGES[k], STAGE_EDGES[k + 1]).
STAGE_EDGES = np.array([0, 3, 6, 9, 13, 18, 25, 33, L.N_SPACES + 1], dtype=np.int64)
N_STAGES = len(STAGE_EDGES) - 1


@hot_njit
def stage_of(fewest_empty):
    """The stage of a position whose fullest city has ``fewest_empty`` empty spaces."""
    for k in range(N_STAGES):
        if fewest_empty < STAGE_EDGES[k + 1]:
            return k
    return N_STAGES - 1


@hot_njit
def seat_features_nb(position, s, rules, out):
    """Seat s's features (``FEATURES``) from one position, int16[P, N_ROUND_FIELDS] (a round
    snapshot's rows, seat by seat), into ``out`` float64[N_WIN_FEATURES]; returns the stage."""
    n_players = position.shape[0]
    best_other = -1 << 30
    fewest = L.N_SPACES
    for o in range(n_players):
        fewest = min(fewest, np.int64(position[o, L.RS_N_EMPTY]))
        if o != s:
            best_other = max(best_other, np.int64(position[o, L.RS_SCORE]))
    me = position[s]
    for f in range(N_WIN_FEATURES):  # noqa: F821
        out[f] = 0.0
    out[WF_SCORE] = me[L.RS_SCORE]  # noqa: F821
    out[WF_LEAD] = me[L.RS_SCORE] - best_other  # noqa: F821
    out[WF_COINS] = me[L.RS_COINS]  # noqa: F821
    out[WF_LOGS] = me[L.RS_LOGS]  # noqa: F821
    out[WF_N_EMPTY] = me[L.RS_N_EMPTY]  # noqa: F821
    attacks = np.int64(me[L.RS_PIRATE_ATTACKS])
    if attacks < rules[R.R_N_PIRATE_ROWS]:
        short = max(0, rules[R.R_PIRATE_STRENGTHS + attacks] - np.int64(me[L.RS_DEFENCE]))
        row = rules[R.R_PIRATE_BOXES_PER_PLAYER] * n_players
        out[WF_SHORTFALL] = short  # noqa: F821
        out[WF_SHORTFALL_NEAR] = short * (me[L.RS_PIRATE_BOXES] - attacks * row) / row  # noqa: F821
    out[WF_WALLS] = me[L.RS_WALLS]  # noqa: F821
    out[WF_CHURCHES] = me[L.RS_CHURCHES]  # noqa: F821
    out[WF_PERSONS] = me[L.RS_PERSONS]  # noqa: F821
    out[WF_CRATES] = me[L.RS_CRATES]  # noqa: F821
    if s > 0:
        out[WF_SEAT + s - 1] = 1.0  # noqa: F821
    return stage_of(fewest)


@hot_njit
def win_probabilities_nb(position, coef, rules, scratch, out):
    """Every seat's win probability from one position (int16[P, N_ROUND_FIELDS]) into ``out``
    float64[P]: the logit over the seats with ``coef`` float64[N_STAGES, N_WIN_FEATURES] (the
    player count's). ``scratch``: float64[N_WIN_FEATURES]. No allocation."""
    n_players = position.shape[0]
    top = -np.inf
    for s in range(n_players):
        stage = seat_features_nb(position, s, rules, scratch)
        u = 0.0
        for f in range(N_WIN_FEATURES):  # noqa: F821
            u += coef[stage, f] * scratch[f]
        out[s] = u
        top = max(top, u)
    total = 0.0
    for s in range(n_players):
        out[s] = np.exp(out[s] - top)
        total += out[s]
    for s in range(n_players):
        out[s] /= total


@hot_njit
def outcome_credits_nb(position, out):
    """Each seat's share of the win from a finished game's position (int16[P, N_ROUND_FIELDS]) into
    ``out`` float64[P]: the most VP, then the most empty spaces (docs/rules.md §4); seats still
    tied share it."""
    n_players = position.shape[0]
    best = -1 << 30
    for s in range(n_players):
        best = max(best, np.int64(position[s, L.RS_SCORE]) * 64 + position[s, L.RS_N_EMPTY])
    winners = 0
    for s in range(n_players):
        out[s] = 1.0 if np.int64(position[s, L.RS_SCORE]) * 64 + position[s, L.RS_N_EMPTY] == best else 0.0
        winners += out[s] > 0.0
    for s in range(n_players):
        out[s] /= winners


@hot_njit
def position_values_nb(position, over, coef, rules, scratch, out):
    """Every seat's win probability from one position into ``out`` float64[P]: where the game is
    ``over``, its outcome (``outcome_credits_nb``), else the model's (``win_probabilities_nb``)."""
    if over:
        outcome_credits_nb(position, out)
    else:
        win_probabilities_nb(position, coef, rules, scratch, out)


@cached_njit(_nrt=True)  # allocates its scratch, once a call
def win_probabilities_many_nb(positions, coef, rules):
    """``win_probabilities_nb`` over positions int16[n, P, N_ROUND_FIELDS]: float64[n, P]."""
    out = np.zeros((positions.shape[0], positions.shape[1]), dtype=np.float64)
    scratch = np.zeros(N_WIN_FEATURES, dtype=np.float64)  # noqa: F821
    for i in range(positions.shape[0]):
        win_probabilities_nb(positions[i], coef, rules, scratch, out[i])
    return out


@cached_njit(_nrt=True)
def features_many_nb(positions, rules):
    """Every seat's features and stage over positions int16[n, P, N_ROUND_FIELDS]: (float64[n, P,
    N_WIN_FEATURES], int64[n]) (a position's stage is the same for each of its seats)."""
    n, n_players = positions.shape[0], positions.shape[1]
    x = np.zeros((n, n_players, N_WIN_FEATURES), dtype=np.float64)  # noqa: F821
    stage = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for s in range(n_players):
            stage[i] = seat_features_nb(positions[i], s, rules, x[i, s])
    return x, stage
