"""The learned policy in the play loop: its features, its candidates and its picks."""

from __future__ import annotations

import numpy as np
import pytest

from smsim import layout as L
from smsim.policies.learned import (
    MODEL,
    N_PLACE_FEATURES,
    N_USE_FEATURES,
    PF_BEST,
    PF_VALUE,
    PF_VALUE_PLACED,
    UF_BEST,
    UF_CHURCH_SIZE,
    UF_SYMBOL,
    UF_VALUE,
    UF_VALUE_SYMBOL,
    keep_candidates_nb,
)
from smsim.policies.model import PLACE_NAMES, USE_NAMES, Model
from smsim.policies.registry import POLICIES, PolicySpec
from smsim.rules import Rules
from smsim.runs.batch import run_games


def model_spec(use: list[float], place: list[float], **limits) -> PolicySpec:
    model = Model(POLICIES["balanced"].weights(), use, place, **limits)
    return PolicySpec("student", L.PolicyKind.LEARNED, model.vector())


def value_only(**limits) -> PolicySpec:
    use, place = [0.0] * len(USE_NAMES), [0.0] * len(PLACE_NAMES)
    use[UF_VALUE] = place[PF_VALUE] = 1.0
    return model_spec(use, place, **limits)


def test_a_model_of_the_heuristic_value_over_every_move_plays_the_heuristic_game_for_game():
    # every move scored (no candidate left out), score = the heuristic's value: the same picks
    # and the same tie-breaking draws, so the same games, bit for bit
    every = value_only(use_candidates=L.MAX_CANDS, place_candidates=L.MAX_CANDS, place_gap=0.0)
    for players in (2, 4):
        ours = run_games(300, players, [every], 17, Rules(), threads=1)
        theirs = run_games(300, players, [POLICIES["balanced"]], 17, Rules(), threads=1)
        for a, b in zip(ours, theirs):
            assert np.array_equal(a, b)


def test_a_model_that_ignores_the_value_plays_other_games_and_loses():
    # scoring the moves by nothing but "dice turned" (more is better): the plumbing really
    # consults the coefficients, and a silly model is beaten
    use, place = [0.0] * len(USE_NAMES), [0.0] * len(PLACE_NAMES)
    use[USE_NAMES.index("rotated")] = 1.0
    silly = model_spec(use, place)
    score, _, _ = run_games(400, 2, [silly, POLICIES["balanced"]], 4, Rules(), threads=1)
    wins = score[:, :, L.S_WON]
    assert wins[:, 0].sum() < wins[:, 1].sum() * 0.8


def test_learned_games_do_not_depend_on_threads():
    spec = POLICIES["learned"]
    one = run_games(200, 4, [spec, POLICIES["balanced"]] * 2, 9, Rules(), threads=1)
    two = run_games(200, 4, [spec, POLICIES["balanced"]] * 2, 9, Rules(), threads=2)
    for a, b in zip(one, two):
        assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "wanted, gap, expected",
    [
        (3, 0.0, [1, 0, 1, 1, 0]),  # the 3 best; the tie at 2.0 goes to the earlier row
        (6, 0.0, [1, 1, 1, 1, 1]),
        (6, 1.5, [1, 0, 1, 1, 0]),  # none more than 1.5 below the best (3.0)
        (1, 0.0, [0, 0, 0, 1, 0]),
    ],
)
def test_the_moves_scored_are_the_heuristics_best_as_rollout_takes_them(wanted, gap, expected):
    values = np.array([2.0, 1.0, 2.0, 3.0, 1.0])
    model = np.zeros(MODEL.size)
    model[MODEL.offset("use_candidates")] = wanted
    model[MODEL.offset("place_candidates")] = wanted
    model[MODEL.offset("place_gap")] = gap
    kept = np.zeros(5)
    best = keep_candidates_nb(model, L.DECISION_PLACE, values, 5, kept)
    assert best == 3.0 and kept.tolist() == expected


def test_feature_layouts_are_declared_once_and_fit_the_params_vector():
    assert len(USE_NAMES) == N_USE_FEATURES and len(PLACE_NAMES) == N_PLACE_FEATURES
    assert MODEL.size <= POLICIES["balanced"].params.size
    assert USE_NAMES[UF_VALUE] == "value" and USE_NAMES[UF_BEST] == "best"
    assert USE_NAMES[UF_SYMBOL + L.Face.CROSS] == "symbol_4" and USE_NAMES[UF_CHURCH_SIZE] == "church_size_1"
    assert USE_NAMES[UF_VALUE_SYMBOL] == "value_symbol_1"
    assert PLACE_NAMES[PF_VALUE_PLACED] == "value_placed_1" and PLACE_NAMES[PF_BEST] == "best"


def test_the_loop_scores_a_move_as_each_unit_summed_in_feature_order():
    """``score_nb`` (feature-major weights, zero features skipped) gives, to the bit, the sum each
    unit's dot product makes in feature order, and what numpy computes from the model file."""
    from smsim.policies.learned import LM_PLACE, LM_PLACE_UNITS, LM_USE, LM_USE_UNITS, MAX_HIDDEN, score_nb
    from smsim.policies.registry import LEARNED_FILE

    model = Model.load(LEARNED_FILE)
    assert model.hidden > 0
    vector = model.vector()
    rng = np.random.default_rng(11)
    z = np.zeros(MAX_HIDDEN)
    for kind, coef, units, names, layer in (
        ("USE", LM_USE, LM_USE_UNITS, USE_NAMES, model.use_units),
        ("PLACE", LM_PLACE, LM_PLACE_UNITS, PLACE_NAMES, model.place_units),
    ):
        f = len(names)
        x = rng.normal(size=(50, f)) * (rng.random((50, f)) < 0.5)  # half the features at zero
        want = model.score(kind, x)
        for row, feats in enumerate(x):
            by_unit = 0.0
            for c, v in zip(model.use if kind == "USE" else model.place, feats):
                by_unit += c * v
            for w, b, o in zip(layer.weights, layer.bias, layer.out):
                s = b
                for c, v in zip(w, feats):
                    s += c * v
                if s > 0.0:
                    by_unit += o * s
            got = score_nb(vector, coef, units, model.hidden, feats, f, z)
            assert got == by_unit
            assert got == pytest.approx(want[row], rel=1e-9, abs=1e-9)
