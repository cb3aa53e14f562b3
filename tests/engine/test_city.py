"""Placement and the persons' effects (docs/rules.md §5), against the rulebook's worked examples."""

import numpy as np
from numba import njit

from smsim import layout as L
from smsim.engine.actions import group_cells_nb, house_cells_nb
from smsim.engine.city import (
    apply_person_nb,
    defence_nb,
    fill_cell_nb,
    group_starts_nb,
    largest_group_upto_nb,
    max_houses_nb,
    newly_complete_sides_nb,
    reset_city_nb,
)
from smsim.layout import Cell, Person
from smsim.rules import Rules
from tests.helpers import RULES_NB, cell, state_from_cities

EMPTY_CITY = """
+ . . . . . +
. C C . . . .
. C . . . . .
. C . . . . .
. . . . . . .
. . . . . . .
+ . . . . . +
"""


def place_person(city, occ, player, s, rc, person):
    fill_cell_nb(city, occ, player, s, cell(*rc), L.PERSON_0 + int(person))
    return apply_person_nb(occ, player, s, cell(*rc), int(person), RULES_NB)


def test_s9_merchant_7_then_4():
    """Merchant: placed with 7 adjacent crates earns 7 coins; a second merchant with 4 adjacent crates earns 4."""
    city, occ, player = state_from_cities(
        """
        + . . . . . +
        . C C C . . .
        . C . C C . .
        . C C . C . .
        . . . . . . .
        . . . . . . .
        + . . . . . +
    """,
        coins=0,
    )
    assert place_person(city, occ, player, 0, (2, 2), Person.MERCHANT) == 7
    assert player[0, L.COINS] == 7
    # crates are not used up: the second merchant counts 4 of the same crates
    assert place_person(city, occ, player, 0, (3, 3), Person.MERCHANT) == 4
    assert player[0, L.COINS] == 11


def test_s9_juggler_three_types_6vp():
    """Juggler: adjacent to a merchant, two architects and a soldier scores 6 VP (3 types)."""
    city, occ, player = state_from_cities("""
        + . . . . . +
        . C C . . . .
        . C m a . . .
        . C a . s . .
        . . . . . . .
        . . . . . . .
        + . . . . . +
    """)
    assert place_person(city, occ, player, 0, (3, 3), Person.JUGGLER) == 6
    assert player[0, L.VP] == 6 and player[0, L.VP_JUGGLER] == 6


def test_s9_architect_two_logs_two_houses_6vp():
    """Architect with 2 logs used: 2 houses, 6 VP; logs are not paid for when used."""
    from smsim.play.loop import Seats, new_work, person_nb
    from smsim.policies.heuristics import N_PARAMS

    @njit
    def place_person_nb(person, role, s, w, seats, rules):
        person_nb(person, role, s, w, seats, rules, None)  # compiled code only: Python cannot call the loop's functions

    from smsim.policies.interface import placeholder_policy
    from smsim.policies.registry import Marks

    city, occ, player = state_from_cities(EMPTY_CITY, coins=3, logs=2)
    w = new_work(1)
    w.city[:], w.occ[:], w.player[:] = city, occ, player
    # random picks the architect's cell, how many houses and where: check every outcome obeys the rule
    kind, params = np.zeros(1, dtype=np.int64), np.zeros((1, N_PARAMS))
    seats = Seats(kind, params, (placeholder_policy(),) * 5, kind, params, kind, params, Marks(None, None, None))
    arch = cell(4, 4)
    assert max_houses_nb(w.occ, w.player, 0, arch, RULES_NB) == 2  # limited by the 2 logs
    first = house_cells_nb(w.occ[0, 0], np.uint64(0), 2, arch)
    assert int(first) == int(L.NEIGH8_MASK[arch])  # all 8 neighbours are empty and can start 2
    seen_two = False
    for _ in range(50):
        w.city[:], w.occ[:], w.player[:] = city, occ, player
        place_person_nb(int(Person.ARCHITECT), 0, 0, w, seats, RULES_NB)
        houses = [c for c in range(49) if w.city[0, c] == Cell.HOUSE]
        (arch_cell,) = [c for c in range(49) if w.city[0, c] == L.PERSON_0 + int(Person.ARCHITECT)]
        assert len(houses) <= 2
        assert w.player[0, L.LOGS] == 2 - len(houses)
        assert w.player[0, L.VP] == 3 * len(houses) == w.player[0, L.VP_HOUSES]
        assert w.player[0, L.COINS] == 3  # using logs costs no coin
        if len(houses) == 2:
            assert any(int(L.NEIGH8_MASK[arch_cell]) >> h & 1 for h in houses)
            assert abs(houses[0] - houses[1]) in (1, 7)  # orthogonal neighbours
            seen_two = True
    assert seen_two


def test_architect_houses_limited_by_the_space_touching_him():
    _city, occ, player = state_from_cities(
        """
        + . # # # # +
        c c c . . . .
        c a c . . . .
        c c c . . . .
        . . . . . . .
        . . . . . . .
        + . . . . . +
    """,
        logs=3,
    )
    # the only empty cell touching the architect at (2,1) is none: all 8 neighbours are filled
    assert max_houses_nb(occ, player, 0, cell(2, 1), RULES_NB) == 0


def test_s9_defence_soldier_and_side_3():
    """Defence: one soldier and one complete side = 3."""
    _city, _occ, player = state_from_cities(
        """
        + # # # # # +
        . C C . . . .
        . C s . . . .
        . C . . . . .
        . . . . . . .
        . . . . . . .
        + . . . . . +
    """,
        soldiers=1,
    )
    assert player[0, L.SIDES_DONE] == 1 << L.Side.TOP
    assert defence_nb(player, 0, RULES_NB) == 3


def test_priest_counts_adjacent_churches_diagonals_included_once():
    city, occ, player = state_from_cities("""
        + . . . . . +
        . C C 1 . . .
        . C . . 5 . .
        . C 2 . . . .
        . . . . . . .
        . . . . . . .
        + . . . . . +
    """)
    assert place_person(city, occ, player, 0, (2, 3), Person.PRIEST) == 3
    fill_cell_nb(city, occ, player, 0, cell(3, 3), int(Cell.CHURCH_4))
    assert player[0, L.VP] == 3  # later churches do not pay an earlier priest


def test_non_wall_on_an_outer_space_destroys_its_side():
    city, occ, player = state_from_cities(EMPTY_CITY)
    for c in range(1, 5):
        fill_cell_nb(city, occ, player, 0, cell(0, c), int(Cell.WALL))
    assert newly_complete_sides_nb(occ, player, 0) == 0
    fill_cell_nb(city, occ, player, 0, cell(0, 5), int(Cell.CRATE))
    assert player[0, L.SIDES_BROKEN] == 1 << L.Side.TOP
    assert newly_complete_sides_nb(occ, player, 0) == 0
    fill_cell_nb(city, occ, player, 0, cell(6, 1), int(Cell.WALL))
    assert player[0, L.SIDES_BROKEN] == 1 << L.Side.TOP  # walls destroy nothing


def test_completing_a_side_is_noticed_once():
    city, occ, player = state_from_cities(EMPTY_CITY)
    for r in range(1, 6):
        fill_cell_nb(city, occ, player, 0, cell(r, 6), int(Cell.WALL))
    assert newly_complete_sides_nb(occ, player, 0) == 1 << L.Side.RIGHT


def test_crate_groups_must_be_orthogonally_connected_and_fit():
    _city, occ, _player = state_from_cities("""
        + . c c c c +
        c C C c . c c
        . C c c c c .
        c C c c c c c
        c c c c c c c
        . . c . . c c
        + . c c c c +
    """)
    empty = occ[0, 0]
    # components of empty cells: {(5,0),(5,1),(6,1)}, {(5,3),(5,4)} and four single cells
    assert [largest_group_upto_nb(empty, cap) for cap in (1, 2, 3, 4, 5, 45)] == [1, 2, 3, 3, 3, 3]

    def cells(mask):
        return sorted(c for c in range(49) if int(mask) >> c & 1)

    assert cells(group_starts_nb(empty, 3)) == [cell(5, 0), cell(5, 1), cell(6, 1)]
    assert cells(group_starts_nb(empty, 2)) == [cell(5, 0), cell(5, 1), cell(5, 3), cell(5, 4), cell(6, 1)]
    assert cells(group_starts_nb(empty, 4)) == []
    # after a first crate, the next must touch the group orthogonally: (6,1) touches (5,0) only diagonally
    first = np.uint64(1 << cell(5, 0))
    assert cells(group_cells_nb(empty & ~first, first, 3)) == [cell(5, 1)]


def largest_group_reference(cells: set[int]) -> int:
    """Largest orthogonally connected set of ``cells``, by breadth-first search."""
    best, seen = 0, set()
    for start in cells:
        if start in seen:
            continue
        seen.add(start)
        queue, size = [start], 0
        while queue:
            c = queue.pop()
            size += 1
            r, col = divmod(c, 7)
            for rr, cc in ((r - 1, col), (r + 1, col), (r, col - 1), (r, col + 1)):
                n = rr * 7 + cc
                if 0 <= rr < 7 and 0 <= cc < 7 and n in cells and n not in seen:
                    seen.add(n)
                    queue.append(n)
        best = max(best, size)
    return best


def test_largest_group_up_to_a_cap_agrees_with_a_breadth_first_search():
    """The early-stopping search (the engine's crate legality) equals min(cap, largest group)
    on random sets of empty spaces, sparse to full."""
    rng = np.random.default_rng(7)
    spaces = [c for c in range(49) if int(L.SPACES_MASK) >> c & 1]
    for trial in range(400):
        cells = {c for c in spaces if rng.random() < trial / 400}
        empty = np.uint64(sum(1 << c for c in cells))
        full = largest_group_reference(cells)
        for cap in (1, 3, 5, 45):
            assert largest_group_upto_nb(empty, cap) == min(cap, full)


def test_start_coins_include_the_seat_compensation():
    """docs/rules.md §1 and §7 (seat compensation): seat s starts with start_coins + seat_coins[s],
    0 extra past the end of the list; logs and the printed crates are the same for every seat."""
    rules = Rules(start_coins=2, seat_coins=(0, 3, -2))
    n = 5
    city = np.zeros((n, 49), dtype=np.int8)
    occ = np.zeros((n, L.N_CELL_CODES), dtype=np.uint64)
    player = np.full((n, L.N_PLAYER_FIELDS), 99, dtype=np.int64)
    for s in range(n):
        reset_city_nb(city, occ, player, s, rules.start_crate_cells(), rules.to_nb())
    assert list(player[:, L.COINS]) == [2, 5, 0, 2, 2]
    assert list(player[:, L.LOGS]) == [2] * n and list(player[:, L.N_EMPTY]) == [41] * n
