"""The luck of the dice (play/loop.py's Luck, studies/luck.py): the first roll's expectation
against a brute-force enumeration, luck of mean 0, and a mirror's gap of 0 with or without it."""

from functools import cache
from itertools import product

import numpy as np
import pytest

from smsim import layout as L
from smsim.errors import LuckError
from smsim.policies.exact_keep import (
    EMPTY,
    FIRST_FINAL,
    N_NODES,
    NODE_COUNTS,
    best_within_nb,
    expect_nb,
    first_roll_values_nb,
)
from smsim.studies import luck as LK
from smsim.studies.winprob import fit_winprob


def test_the_first_roll_layers_are_the_brute_force_expectations():
    """With random values of the 252 final rolls, the layers' value of the roll to come and of
    every first roll equal an enumeration of every die, every keep and every reroll."""
    rng = np.random.default_rng(3)
    index = {tuple(int(c) for c in NODE_COUNTS[n]): n for n in range(N_NODES)}
    value = {tuple(int(c) for c in NODE_COUNTS[n]): float(rng.normal()) for n in range(FIRST_FINAL, N_NODES)}

    def counts(dice) -> tuple:
        return tuple(dice.count(f) for f in range(L.N_FACES))

    @cache
    def expected(kept: tuple, rolls_left: int) -> float:
        """Keep ``kept`` and roll the rest, ``rolls_left`` rolls still to make (this one included)."""
        rest = L.N_DICE - sum(kept)
        total = 0.0
        for faces in product(range(L.N_FACES), repeat=rest):
            c = list(kept)
            for f in faces:
                c[f] += 1
            total += holding(tuple(c), rolls_left - 1)
        return total / L.N_FACES**rest

    @cache
    def holding(final: tuple, rerolls: int) -> float:
        """Five dice in hand with ``rerolls`` rerolls left: stop, or keep a smaller multiset."""
        best = value[final]
        if rerolls:
            dice = [f for f in range(L.N_FACES) for _ in range(final[f])]
            for mask in range(1, 1 << L.N_DICE):
                kept = counts([d for i, d in enumerate(dice) if not (mask >> i) & 1])
                best = max(best, expected(kept, rerolls))
        return best

    last = np.zeros(N_NODES)
    for c, v in value.items():
        last[index[c]] = v
    two = np.zeros(N_NODES)
    expect_nb(last)
    best_within_nb(last, two)
    expect_nb(two)
    best = np.zeros(N_NODES)
    first_roll_values_nb(last, two, np.zeros(N_NODES), best)
    assert best[EMPTY] == pytest.approx(expected((0,) * L.N_FACES, 3), abs=1e-12)
    for c in list(value)[::25]:
        assert best[index[c]] == pytest.approx(holding(c, 2), abs=1e-12)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    from smsim.runs.batch import simulate_to

    path = str(tmp_path_factory.mktemp("luck") / "bal2")
    simulate_to(path, 2000, 2, ["balanced"], seed=61, rounds=True)
    return fit_winprob([path])


def test_luck_has_mean_0_and_taking_it_out_narrows_a_gap_without_moving_it(model):
    """greedy against balanced: the gap as played and with the luck taken out agree (their
    intervals overlap), the second no wider; a seat's luck has mean 0 and explains some of its result."""
    result = LK.luck_match(LK.LuckPlan("greedy", "balanced", 2, 600, seed=62), model, threads=2)
    t = result.table.set_index("figure")
    assert t.loc["luck_mean", "lo"] < 0 < t.loc["luck_mean", "hi"]
    assert t.loc["gap", "hi"] < 0 and t.loc["gap_adjusted", "hi"] < 0  # greedy is the weaker
    assert max(t.loc["gap", "lo"], t.loc["gap_adjusted", "lo"]) < min(t.loc["gap", "hi"], t.loc["gap_adjusted", "hi"])
    assert t.loc["narrower", "value"] >= 1.0 and 0.01 < t.loc["explained", "value"] < 0.9
    rows = result.rows
    assert len(rows) == 600 * 2 * 2 and set(rows["rotation"]) == {0, 1}
    assert np.allclose(rows.groupby(["block", "rotation"])["credit"].sum(), 1.0)
    assert (rows["rolls"] > 0).all()


def test_a_mirror_has_no_gap_as_played_or_with_the_luck_taken_out(model):
    """A policy against itself on every rotation of the same dice plays the same games: its share
    is exactly parity, and the adjustment (fitted to a constant) leaves it there."""
    t = LK.luck_match(LK.LuckPlan("balanced", "balanced", 2, 40, seed=3), model, threads=1).table.set_index("figure")
    assert t.loc["gap", "value"] == pytest.approx(0.0, abs=1e-12)
    assert t.loc["gap_adjusted", "value"] == pytest.approx(0.0, abs=1e-9)


def test_cross_fitting_never_weighs_a_row_with_coefficients_fitted_on_it():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 2))
    y = 0.5 + x @ np.array([0.3, -0.2]) + rng.normal(scale=0.1, size=400)
    adjusted, coefs = LK.cross_fitted(y, x)
    assert coefs.shape == (2, 2) and np.allclose(coefs, [[0.3, -0.2]] * 2, atol=0.05)
    first = np.arange(400) < 200
    np.testing.assert_allclose(adjusted[first], y[first] - x[first] @ coefs[1])
    assert adjusted.std() < 0.12 and abs(adjusted.mean() - 0.5) < 0.02  # the noise left, sd 0.1


def test_bad_plans_are_refused_in_one_line(model):
    with pytest.raises(LuckError, match="--stated must be a heuristic"):
        LK.verify_plan(LK.LuckPlan("balanced", "greedy", stated="learned"))
    with pytest.raises(LuckError, match="--players"):
        LK.verify_plan(LK.LuckPlan("balanced", "greedy", players=6))
    from smsim.errors import WinProbError

    with pytest.raises(WinProbError, match="fitted on 2 players, not on 3"):
        LK.play_match(LK.LuckPlan("balanced", "greedy", players=3, blocks=2), model)
