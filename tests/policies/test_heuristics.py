"""The heuristic's decisions: ties, placement values against the cell-by-cell reference, and the
``noise`` weight (a share of decisions picked at random)."""

import numpy as np
import pytest

from smsim import layout as L
from smsim.play.loop import new_work
from smsim.policies import heuristic_layout as HL
from smsim.policies import heuristics as H
from smsim.policies.features import house_gain_nb
from smsim.policies.registry import POLICIES
from smsim.rules import Rules
from smsim.runs.batch import run_games
from tests.helpers import RULES_NB
from tests.policies.test_features import cell_value_reference, random_cities


def test_pick_best_breaks_ties_uniformly():
    rng = np.array([12345], dtype=np.uint64)
    values = np.array([1.0, 3.0, 3.0, 3.0, 2.0])
    picks = np.bincount([H.pick_best_nb(values, 5, rng, 0) for _ in range(3000)], minlength=5)
    assert picks[0] == picks[4] == 0
    assert all(900 < picks[i] < 1100 for i in (1, 2, 3))


def test_place_values_equal_the_cell_by_cell_values():
    """place_values_nb hoists what cells share out of its loop; each value must still be the
    cell's own, for every kind of cell and person, for several presets."""
    from smsim.policies.registry import POLICIES

    whats = [
        L.Cell.WALL,
        L.Cell.CRATE,
        L.Cell.HOUSE,
        *range(L.Cell.CHURCH_1, L.Cell.CHURCH_1 + 5),
        *range(L.PERSON_0, L.PERSON_0 + L.N_PERSONS),
    ]
    cands = np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64)
    values = np.zeros(L.MAX_CANDS)
    checked = 0
    presets = [
        spec.params for spec in POLICIES.values() if spec.params is not None and spec.base is None
    ]  # every weight set
    for occ, player, pirates in random_cities(30, seed=3):
        empty = [c for c in range(49) if int(occ[0, L.Cell.EMPTY]) >> c & 1]
        cands[: len(empty), 0] = empty
        for params in presets:
            for what in whats:
                H.place_values_nb(params, occ, player, pirates, 0, RULES_NB, int(what), cands, len(empty), values)
                expected = [cell_value_reference(params, occ, player, pirates, int(what), c) for c in empty]
                np.testing.assert_allclose(values[: len(empty)], expected, rtol=0, atol=1e-9)
                checked += len(empty)
    assert checked > 10_000


def noisy(name: str, noise: float) -> np.ndarray:
    params = POLICIES[name].params.copy()
    params[HL.P_NOISE] = noise
    return params


def house_picks(params: np.ndarray, decisions: int, n: int = 10) -> np.ndarray:
    """The seat's picks at ``decisions`` HOUSES decisions of rows 0 .. n-1 houses: the heuristic
    (houses gain) always takes the last row, ``random`` any row."""
    w = new_work(2)
    w.rng[:] = 987654321
    w.ctx[L.CTX_DECISION] = L.DECISION_HOUSES
    w.ctx[L.CTX_N] = n
    w.cands[:n, 0] = np.arange(n)
    return np.array([H.heuristic_choice_nb(params, 1, w, RULES_NB, None) for _ in range(decisions)])


def test_noise_picks_at_random_that_share_of_the_decisions():
    assert house_gain_nb(POLICIES["greedy"].params, RULES_NB) > 0  # the heuristic's pick: the last row
    assert set(house_picks(noisy("greedy", 0.0), 2000)) == {9}
    for noise in (0.1, 0.5, 0.9):
        picks = house_picks(noisy("greedy", noise), 20_000)
        random_share = np.mean(picks != 9) / 0.9  # a random pick is the last row 1 time in 10
        assert random_share == pytest.approx(noise, abs=0.025), noise
        assert np.bincount(picks, minlength=10)[:9].min() > 0.8 * 20_000 * noise / 10  # uniform among the rows


def test_noise_one_draws_as_random_does():
    """At noise 1 no coin is drawn: the seat's stream gives exactly ``random``'s picks."""
    rng = np.array([0, 987654321], dtype=np.uint64)
    expected = [H.random_choice_nb(10, rng, 1) for _ in range(500)]
    assert list(house_picks(noisy("balanced", 1.0), 500)) == expected


def same_games(a: list, b: list, players: int, seed: int = 5, games: int = 200) -> bool:
    x, y = (run_games(games, players, p, seed, Rules(), threads=1) for p in (a, b))
    return all(np.array_equal(u, v) for u, v in zip(x, y))


def test_noise_zero_plays_the_preset_and_noise_one_plays_random():
    """Whole games, every seat's decisions: the noiseless weights play the preset's games, the
    fully noisy ones ``random``'s (the dice and the seats' streams are the same), and a share in
    between plays other games."""
    assert same_games(["greedy-noise-0", "balanced-noise-0"], ["greedy", "balanced"], 2)
    assert same_games(["greedy-noise-100"], ["random"], 3)
    assert same_games(["balanced", "balanced-noise-100", "walls"], ["balanced", "random", "walls"], 3)
    assert not same_games(["greedy-noise-50"], ["greedy"], 2)
    assert not same_games(["greedy-noise-50"], ["random"], 2)
