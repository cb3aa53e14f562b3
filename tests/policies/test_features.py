"""The heuristic's position features against hand-computed values (docs/rules.md §5, §6)."""

import numpy as np

from smsim import layout as L
from smsim.policies import features as F
from smsim.policies import heuristic_layout as HL
from smsim.rules import R_CHURCH_SERIES_VP as R_SERIES
from tests.helpers import RULES_NB, state_from_cities

CITY = """
+ . . . . . +
. C C . . . .
. C . . . . .
. C . . . . .
. . . . . . .
. . . . . . .
+ . . . . . +
"""


def with_churches(*sizes):
    text = CITY
    cells = [(4, 1), (4, 2), (4, 3), (4, 4), (4, 5), (5, 1), (5, 2)]
    rows = [list(line.split()) for line in text.strip().splitlines()]
    for (r, c), size in zip(cells, sizes):
        rows[r][c] = str(size)
    return state_from_cities("\n".join(" ".join(r) for r in rows))


def test_church_value_realized_and_potential():
    _city, occ, _player = with_churches(1, 2, 4)
    # realized: series 1-2 = 4 VP; potential: the gap at 3 would lift 1-2-.-4 to 13, over 1 + 1 gap
    assert F.church_value_nb(occ, 0, RULES_NB, 0, 0.0) == 4.0
    assert F.church_value_nb(occ, 0, RULES_NB, 0, 1.0) == 4.0 + (13 - 4) / 2
    # adding the missing 3 realizes it
    assert F.church_value_nb(occ, 0, RULES_NB, 3, 0.0) == 13.0


def test_church_value_second_series_layer():
    _city, occ, _player = with_churches(1, 1, 2, 3)
    assert F.church_value_nb(occ, 0, RULES_NB, 0, 0.0) == 8 + 1  # 1-2-3 and a lone 1


def test_defence_gain_counts_the_attacks_newly_held():
    _city, _occ, player = state_from_cities(CITY)
    params = np.zeros(HL.N_PARAMS)
    params[HL.P_DEFENCE], params[HL.P_PIRATE_NEXT], params[HL.P_PIRATE_LATER] = 0.1, 1.0, 0.5
    pirates = np.zeros(L.N_PIRATE_FIELDS, dtype=np.int64)
    # 1 seat: rows of 2 boxes. Defence 0 -> 3 holds attack 1 (strength 1, the next) and
    # attack 2 (strength 3, later). With the row's last box left, the next attack is urgent.
    pirates[L.PIRATE_BOXES] = 1
    v = F.defence_gain_nb(params, player, pirates, 0, RULES_NB, 3)
    assert np.isclose(v, 0.3 + 1.0 * 5 + 0.5 * 5)
    # with the whole row ahead, it weighs like a later one
    pirates[L.PIRATE_BOXES] = 0
    v = F.defence_gain_nb(params, player, pirates, 0, RULES_NB, 3)
    assert np.isclose(v, 0.3 + (0.5 + 0.5 * 0.5) * 5 + 0.5 * 5)
    # after two attacks, 3 more defence (0 -> 3) holds nothing still to come (6, 8, 10, 12)
    pirates[L.PIRATE_ATTACKS], pirates[L.PIRATE_BOXES] = 2, 4
    assert np.isclose(F.defence_gain_nb(params, player, pirates, 0, RULES_NB, 3), 0.3)


def test_estimate_and_lead():
    _city, occ, player = state_from_cities(CITY, CITY, coins=5, logs=2)
    player[0, L.VP], player[1, L.VP] = 10, 4
    player[1, L.CANNONS_LOST] = 1
    # seat 0: 10 + 2 (coins) + 2 (logs); seat 1: 4 + 2 + 2 - 5
    assert F.estimate_total_nb(occ, player, 0, RULES_NB) == 14
    assert F.lead_nb(occ, player, 0, RULES_NB) == 14 - 3


def test_turn_table_best_values_match_brute_force():
    """memo[M_BEST]: the best value with n dice showing a symbol, using any k <= n + r of them
    after r affordable rotations, each costing coin * rotation_cost; 0 when nothing is better."""
    from smsim.play.loop import new_work
    from smsim.policies.registry import POLICIES

    city, occ, player = state_from_cities(CITY.replace(". C C . . . .", ". C C 1 2 . .", 1), CITY, coins=5, logs=1)
    w = new_work(2)
    w.city[:], w.occ[:], w.player[:] = city, occ, player
    for name in ("balanced", "greedy", "merchant"):
        params = POLICIES[name].params
        w.memo[0] = -1.0
        F.turn_table_nb(params, w.ctx, w.occ, w.player, w.pirates, w.memo, 0, RULES_NB)
        rotation = params[HL.P_COIN] * 2
        affordable = 5 // 2
        for symbol in range(5):
            exact = [w.memo[HL.M_EXACT + symbol * HL.K_SPAN + k] for k in range(HL.K_SPAN)]
            for n in range(6):
                brute = 0.0
                for r in range(0, min(affordable, 5 - n) + 1):
                    for k in range(1, n + r + 1):
                        brute = max(brute, exact[k] - r * rotation)
                assert np.isclose(w.memo[HL.M_BEST + symbol * HL.K_SPAN + n], brute), (name, symbol, n)


def random_cities(n_cities, seed):
    """Random reachable-looking cities: each space empty, a wall, a crate, a house, a church or
    a person, with coins, logs and soldiers, for comparing scans with cell-by-cell values."""
    from smsim.engine.city import set_city_nb

    rng = np.random.default_rng(seed)
    codes = np.arange(L.N_CELL_CODES)
    codes = codes[codes != int(L.Cell.TOWER)]
    for _ in range(n_cities):
        city = np.zeros((1, 49), dtype=np.int8)
        occ = np.zeros((1, L.N_CELL_CODES), dtype=np.uint64)
        player = np.zeros((1, L.N_PLAYER_FIELDS), dtype=np.int64)
        cells = np.zeros(49, dtype=np.int8)
        p_empty = rng.uniform(0.2, 0.95)
        for c in range(49):
            if c in (0, 6, 42, 48):
                cells[c] = int(L.Cell.TOWER)
            elif rng.random() >= p_empty:
                cells[c] = rng.choice(codes[1:])
        set_city_nb(city, occ, player, 0, cells)
        player[0, L.COINS] = rng.integers(0, 12)
        player[0, L.LOGS] = rng.integers(0, 6)
        player[0, L.SOLDIERS] = rng.integers(0, 3)
        pirates = np.array([rng.integers(0, 20), rng.integers(0, 3)] + [-1] * (L.N_PIRATE_FIELDS - 2))
        yield occ, player, pirates.astype(np.int64)


def cell_value_reference(params, occ, player, pirates, what, c):
    """The value of ``what`` on cell c, term by term as the module docstring and the weights
    describe them; persons by ``person_cell_value_nb``."""
    near = int(L.NEIGH8_MASK[c])
    side = int(L.SIDE_OF_CELL[c])

    def count(mask):
        return bin(int(mask) & near).count("1")

    intact = side >= 0 and not ((int(player[0, L.SIDES_BROKEN]) | int(player[0, L.SIDES_DONE])) >> side) & 1
    side_walls = bin(int(occ[0, L.Cell.WALL]) & int(L.SIDE_MASK[side])).count("1") if side >= 0 else 0
    if what == L.Cell.WALL:
        return 1.0 + side_walls + 0.1 * params[HL.P_WALL_PROGRESS] if intact else 0.0
    if what >= L.PERSON_0:
        person = what - L.PERSON_0
        starts = F.house_starts_nb(occ, 0)
        houses = F.houses_at_nb(starts, F.house_cap_nb(player, 0, RULES_NB), c) if person == L.PERSON_ARCHITECT else 0
        return F.person_cell_value_nb(params, occ, player, pirates, 0, RULES_NB, person, c, houses)
    v = -(params[HL.P_OUTER_BREAK] * (1.0 + side_walls) if intact else 0.0)
    crates = count(occ[0, L.Cell.CRATE])
    churches = sum(count(occ[0, L.Cell.CHURCH_1 + i]) for i in range(5))
    if what == L.Cell.CRATE:
        return v + params[HL.P_CRATE_CLUSTER] * crates
    if what >= L.Cell.CHURCH_1:
        v += params[HL.P_CHURCH_CLUSTER] * churches + 0.1 * params[HL.P_CHURCH_CLUSTER] * count(occ[0, L.Cell.EMPTY])
    return v - params[HL.P_MERCHANT_SPOT] * 0.25 * crates


def test_best_persons_scan_equals_the_best_cell_of_each_person():
    from smsim.policies.registry import POLICIES

    out = np.zeros(16)
    for occ, player, pirates in random_cities(30, seed=5):
        empty = [c for c in range(49) if int(occ[0, L.Cell.EMPTY]) >> c & 1]
        starts = F.house_starts_nb(occ, 0)
        cap = F.house_cap_nb(player, 0, RULES_NB)
        for params in [spec.params for spec in POLICIES.values() if spec.params is not None and spec.base is None]:
            best_houses, best_crates = F.best_persons_nb(params, occ, player, pirates, 0, RULES_NB, starts, out, 3)
            for p in range(L.N_PERSONS):
                cell_values = [
                    F.person_cell_value_nb(
                        params,
                        occ,
                        player,
                        pirates,
                        0,
                        RULES_NB,
                        p,
                        c,
                        F.houses_at_nb(starts, cap, c) if p == L.PERSON_ARCHITECT else 0,
                    )
                    for c in empty
                ]
                assert abs(out[3 + p] - (max(cell_values) if empty else HL.NEG)) < 1e-9
            crates = int(occ[0, L.Cell.CRATE])
            assert best_crates == max((bin(int(L.NEIGH8_MASK[c]) & crates).count("1") for c in empty), default=0)
            assert best_houses == max((F.houses_at_nb(starts, cap, c) for c in empty), default=0)


def test_series_value_equals_the_layer_by_layer_definition():
    """series_value_nb reads each layer's prefix, top and gaps from tables; the values must be
    those of walking every layer size by size (the docstring's definition), to the last bit."""
    import itertools

    vp = [int(RULES_NB[R_SERIES + i]) for i in range(6)]

    def reference(counts, extra, weight):
        have = [c + (1 if extra == size else 0) for size, c in zip(range(1, 6), counts)]
        realized = potential = 0.0
        layer = 1
        while True:
            sizes = [size for size in range(1, 6) if have[size - 1] >= layer]
            if not sizes:
                return realized + weight * potential
            prefix = 0
            while prefix < 5 and have[prefix] >= layer:
                prefix += 1
            top = max(sizes)
            gaps = sum(1 for size in range(prefix + 1, top) if have[size - 1] < layer)
            realized += vp[prefix]
            potential += (vp[top] - vp[prefix]) / (1.0 + gaps)
            layer += 1

    for counts in itertools.product(range(4), repeat=5):
        for extra in range(6):
            for weight in (0.0, 0.9):
                assert F.series_value_nb(counts, RULES_NB, extra, weight) == reference(counts, extra, weight)
