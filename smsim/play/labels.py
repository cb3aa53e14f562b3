"""A search's values of moves, as labels for a learned policy (``smsim learn``).

``label_decision_nb`` replays game ``game`` with the student's line-up up to its decision number
``decision``, runs the teacher's search there (``rollout`` knobs, continuations played by the
student: ``search.search_decision_nb``) and leaves in ``feats`` the learned policy's features of
every candidate the search weighed (``policies.learned``), computed from the state at the
decision with the student's base heuristic. The search's results stay in its scratch, for the
caller to read each candidate's mean and standard error.

Deterministic from (seed, game, decision): the game's dice and the continuations' streams are
keyed by them, so labels never depend on threads or on which part of a dataset asks. Compiled
``nogil``: a part's games run on several threads at once.
"""

import numpy as np

from smsim import layout as L
from smsim.engine.dice import game_key_nb
from smsim.engine.memory import cached_njit
from smsim.play.loop import Seats, new_game_memo_nb, play_game_nb
from smsim.play.search import ordered_by_values_nb, search_decision_nb
from smsim.policies.heuristics import heuristic_values_nb
from smsim.policies.learned import best_value_nb, candidate_features_nb, decision_inputs_nb


@cached_njit(nogil=True)
def label_decision_nb(seed_key, game, decision, rules, start_crates, kind, params, fns, marks, knobs, w, search, feats):
    """Label decision number ``decision`` (-1: none, only play the game) of game ``game``, played
    by seats ``kind``/``params`` (each its own base: the student), with the teacher's ``knobs``.
    Returns (decisions in the game, the decision's kind, candidates weighed m, the teacher's pick
    among them, the seat), m = 0 where the teacher does not search it. ``feats[i]`` holds the
    features of candidate ``search.rows[i]``. ``marks``: ``registry.line_up_marks`` of the student's line-up."""
    n_players = kind.shape[0]
    w.cap.at[0] = decision
    w.cap.at[1] = 0
    score = np.zeros((n_players, L.N_SCORE_FIELDS), dtype=np.int64)
    game_out = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
    seats = Seats(kind, params, fns, kind, params, kind, params, marks)
    play_game_nb(game_key_nb(seed_key, game), w, seats, rules, start_crates, score, game_out, None)
    total = w.ctx[L.CTX_INDEX]
    cap = w.cap
    if decision < 0 or cap.at[1] == 0:
        return total, -1, 0, -1, -1
    d = cap.ctx[L.CTX_DECISION]
    s = cap.ctx[L.CTX_SEAT]
    if d != L.DECISION_USE and d != L.DECISION_PLACE:
        return total, d, 0, -1, s
    m, c = search_decision_nb(
        knobs,
        d,
        cap.ctx[L.CTX_N],
        cap.at[3],
        cap.values,
        cap.dice,
        ordered_by_values_nb(kind[s]),
        cap.snap,
        cap.tape,
        cap.at[2],
        w.keys[0],
        cap.ctx[L.CTX_INDEX],
        0,
        s,
        seats,
        rules,
        search,
    )
    if c < 0:
        return total, d, 0, -1, s
    # the features, from the state at the decision and the student's base heuristic (its weights
    # lead its vector, whether it is a heuristic or a learned model)
    now = cap.now
    new_game_memo_nb(w.memo)
    values = w.values
    heuristic_values_nb(params[s], s, now.ctx, cap.cands, now.occ, now.player, now.pirates, w.memo, values, rules)
    best = best_value_nb(values, now.ctx[L.CTX_N])
    shared = decision_inputs_nb(s, now.ctx, now.occ, now.player, now.pirates, rules)
    for i in range(m):
        candidate_features_nb(
            s,
            now.ctx,
            cap.dice,
            cap.cands,
            now.occ,
            now.player,
            now.pirates,
            rules,
            values,
            best,
            shared,
            search.rows[i],
            feats[i],
            0,
        )
    return total, d, m, c, s
