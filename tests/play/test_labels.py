"""Labels of a search's values: the teacher's candidates, pick and features at one decision."""

from __future__ import annotations

import numpy as np

from smsim import layout as L
from smsim.engine.dice import seed_key
from smsim.play.labels import label_decision_nb
from smsim.play.loop import new_work
from smsim.play.search import new_search
from smsim.policies.learned import MAX_FEATURES, UF_BEST, UF_VALUE
from smsim.policies.registry import POLICIES, line_up_marks, policy_arrays, rollout_spec
from smsim.rules import Rules

KNOBS = rollout_spec({"budget": 32, "place_budget": 16, "min_playouts": 4}, POLICIES["balanced"]).params


def label(game: int, decision: int, players: int = 3):
    rules = Rules()
    specs = [POLICIES["balanced"]] * players
    kind, params, fns = policy_arrays(specs)
    w, search = new_work(players), new_search(players, 32)
    feats = np.zeros((L.MAX_CANDS, MAX_FEATURES))
    out = label_decision_nb(
        seed_key(5),
        game,
        decision,
        rules.to_nb(),
        rules.start_crate_cells(),
        kind,
        params,
        fns,
        line_up_marks(specs),
        KNOBS,
        w,
        search,
        feats,
    )
    return out, w, search, feats


def test_every_searched_decision_of_a_game_is_labelled_alike_twice():
    (total, kind, m, pick, seat), _, _, _ = label(0, -1)
    assert total > 50 and kind == -1 and m == 0
    searched = 0
    for d in range(0, total, 3):
        (t, kind, m, pick, seat), w, search, feats = label(0, d)
        assert t == total and 0 <= seat < 3
        if kind not in (L.DECISION_USE, L.DECISION_PLACE):
            assert m == 0  # KEEP is not searched by the teacher's knobs, houses and bonuses never
            continue
        if m == 0:
            continue
        searched += 1
        assert 0 <= pick < m and search.rows[0] == w.cap.at[3]  # candidate 0: the base policy's own pick
        assert len(set(search.rows[:m].tolist())) == m
        # the base pick is the heuristic's best: its value feature is the largest, marked best
        values = feats[:m, UF_VALUE] if kind == L.DECISION_USE else feats[:m, 0]
        assert values[0] == values.max() and feats[0, UF_BEST if kind == L.DECISION_USE else 1] == 1.0
        again = label(0, d)
        assert again[0] == (t, kind, m, pick, seat) and np.array_equal(again[3][:m], feats[:m])
        assert np.array_equal(again[2].win, search.win)
    assert searched >= 5


def test_a_decision_past_the_end_of_the_game_is_not_labelled():
    (total, _, _, _, _), _, _, _ = label(1, -1)
    (t, kind, m, pick, _seat), _, _, _ = label(1, total + 5)
    assert t == total and kind == -1 and m == 0 and pick == -1
