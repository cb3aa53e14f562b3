"""The heuristic's decisions: ties, and placement values against the cell-by-cell reference."""

import numpy as np

from smsim import layout as L
from smsim.policies import heuristics as H
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

    whats = [L.Cell.WALL, L.Cell.CRATE, L.Cell.HOUSE, *range(L.Cell.CHURCH_1, L.Cell.CHURCH_1 + 5),
             *range(L.PERSON_0, L.PERSON_0 + L.N_PERSONS)]  # fmt: skip
    cands = np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64)
    values = np.zeros(L.MAX_CANDS)
    checked = 0
    presets = [spec.params for spec in POLICIES.values() if spec.params is not None and spec.base is None]  # every weight set
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


