"""The win probability's features and logit, jitted (play/winprob.py), against the same read by hand."""

import numpy as np
import pytest

from smsim import layout as L
from smsim.play import winprob as W
from smsim.rules import Rules
from smsim.runs.batch import simulate


@pytest.fixture(scope="module")
def positions():
    """Positions of real 3-player games: int16[n, 3, N_ROUND_FIELDS]."""
    _, _, rounds = simulate(40, 3, ["balanced", "greedy", "random"], seed=5, rounds=True)
    rounds = rounds.sort_values(["game", "round", "seat"])
    return rounds[list(L.ROUND.columns())].to_numpy(np.int16).reshape(-1, 3, L.N_ROUND_FIELDS)


def by_hand(position: np.ndarray, s: int, rules: Rules) -> tuple[np.ndarray, int]:
    """A seat's features and the position's stage, read from the field names."""
    col = {name: i for i, name in enumerate(L.ROUND.columns())}
    me, players = position[s], len(position)
    x = dict.fromkeys(W.FEATURE_NAMES, 0.0)
    x.update(
        score=me[col["score"]],
        coins=me[col["coins"]],
        logs=me[col["logs"]],
        n_empty=me[col["n_empty"]],
        walls=me[col["walls"]],
        churches=me[col["churches"]],
        persons=me[col["persons"]],
        crates=me[col["crates"]],
    )
    x["lead"] = me[col["score"]] - max(position[o, col["score"]] for o in range(players) if o != s)
    attacks = me[col["pirate_attacks"]]
    if attacks < len(rules.pirate_strengths):
        short = max(0, rules.pirate_strengths[attacks] - me[col["defence"]])
        row = rules.pirate_boxes_per_player * players
        x["shortfall"] = short
        x["shortfall_near"] = short * (me[col["pirate_boxes"]] - attacks * row) / row
    if s:
        x[f"seat_{s}"] = 1.0
    fewest = position[:, col["n_empty"]].min()
    stage = int(np.searchsorted(W.STAGE_EDGES, fewest, side="right")) - 1
    return np.array([x[name] for name in W.FEATURE_NAMES]), stage


def test_features_are_the_snapshot_read_by_hand(positions):
    rules = Rules()
    x, stage = W.features_many_nb(positions, rules.to_nb())
    assert x.shape == (len(positions), 3, W.N_WIN_FEATURES)
    for i in range(0, len(positions), 7):
        for s in range(3):
            mine, k = by_hand(positions[i], s, rules)
            np.testing.assert_allclose(x[i, s], mine)
            assert stage[i] == k
    assert set(stage) == set(range(W.N_STAGES))  # the games pass through every stage
    assert x[:, :, W.FEATURE_NAMES.index("shortfall")].max() > 0


def test_the_logit_over_the_seats():
    """Probabilities sum to 1; a model that knows nothing gives 1/P; one that reads only the score
    gives p proportional to exp(b * score), whatever the stage."""
    rng = np.random.default_rng(1)
    positions = rng.integers(0, 40, size=(200, 4, L.N_ROUND_FIELDS)).astype(np.int16)
    rules = Rules().to_nb()
    zero = np.zeros((W.N_STAGES, W.N_WIN_FEATURES))
    np.testing.assert_allclose(W.win_probabilities_many_nb(positions, zero, rules), 0.25)
    coef = zero.copy()
    coef[:, W.WF_SCORE] = 0.3
    p = W.win_probabilities_many_nb(positions, coef, rules)
    score = positions[:, :, L.RS_SCORE].astype(float)
    expected = np.exp(0.3 * score) / np.exp(0.3 * score).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(p, expected, rtol=1e-12)
    coef[W.N_STAGES - 1, W.WF_SEAT] = 5.0  # seat 1 favoured at the first stage only
    q = W.win_probabilities_many_nb(positions, coef, rules)
    first = np.array([W.stage_of(m) for m in positions[:, :, L.RS_N_EMPTY].min(axis=1)]) == W.N_STAGES - 1
    assert first.any() and (q[first, 1] > p[first, 1]).all()
    np.testing.assert_allclose(q[~first], p[~first])


def test_a_finished_games_value_is_its_outcome_as_the_studies_read_it(positions):
    """``outcome_credits_nb`` (the luck's value of a game over) gives what ``studies.winprob.
    outcome_credit`` does: the most VP, then the most empty spaces, a tie shared; ``position_values_nb``
    gives it where the game is over and the model's probabilities where it is not."""
    from smsim.studies.winprob import outcome_credit

    rules = Rules().to_nb()
    coef = np.random.default_rng(3).normal(scale=0.1, size=(W.N_STAGES, W.N_WIN_FEATURES))
    out, scratch, model = np.zeros(positions.shape[1]), np.zeros(W.N_WIN_FEATURES), np.zeros(positions.shape[1])
    tied = positions[:40].copy()
    tied[:, 1, [L.RS_SCORE, L.RS_N_EMPTY]] = tied[:, 0, [L.RS_SCORE, L.RS_N_EMPTY]]  # seats 1 and 2 tied
    shared = 0
    for position in np.concatenate([positions, tied]):
        W.position_values_nb(position, True, coef, rules, scratch, out)
        np.testing.assert_allclose(out, outcome_credit(position))
        shared += (out > 0).sum() > 1
        W.position_values_nb(position, False, coef, rules, scratch, out)
        W.win_probabilities_nb(position, coef, rules, scratch, model)
        np.testing.assert_array_equal(out, model)
    assert shared >= 30  # the ties were read as ties
