"""Board geometry computed from coordinates (RULES.md §2)."""

import numpy as np

from smsim import layout as L


def popcount(x) -> int:
    return bin(int(x)).count("1")


def test_forty_five_spaces_twenty_outer_twenty_five_inner():
    assert (L.N_SPACES, L.N_OUTER, L.N_INNER) == (45, 20, 25)


def test_inner_spaces_have_8_neighbours_except_inner_corners_with_7():
    for r in range(1, 6):
        for c in range(1, 6):
            expected = 7 if (r, c) in {(1, 1), (1, 5), (5, 1), (5, 5)} else 8
            assert popcount(L.NEIGH8_MASK[L.cell_index(r, c)]) == expected, (r, c)


def test_outer_spaces_have_5_neighbours_or_4_next_to_a_tower():
    for r in range(7):
        for c in range(7):
            if not L.is_outer(r, c):
                continue
            next_to_tower = any(
                abs(r - tr) <= 1 and abs(c - tc) <= 1 for tr, tc in ((0, 0), (0, 6), (6, 0), (6, 6))
            )
            assert popcount(L.NEIGH8_MASK[L.cell_index(r, c)]) == (4 if next_to_tower else 5), (r, c)


def test_adjacency_is_symmetric_and_excludes_towers_and_self():
    for a in range(49):
        for b in range(49):
            ab = bool(int(L.NEIGH8_MASK[a]) >> b & 1)
            ba = bool(int(L.NEIGH8_MASK[b]) >> a & 1)
            assert ab == ba
        assert not int(L.NEIGH8_MASK[a]) >> a & 1
        for corner in L.CORNERS:
            assert not int(L.NEIGH8_MASK[a]) >> corner & 1


def test_spaces_touching_diagonally_across_a_tower_are_adjacent():
    assert int(L.NEIGH8_MASK[L.cell_index(0, 1)]) >> L.cell_index(1, 0) & 1
    assert not int(L.NEIGH4_MASK[L.cell_index(0, 1)]) >> L.cell_index(1, 0) & 1


def test_orthogonal_neighbours_are_a_subset_of_adjacent():
    for a in range(49):
        assert int(L.NEIGH4_MASK[a]) & ~int(L.NEIGH8_MASK[a]) == 0


def test_four_sides_of_five_outer_spaces_each():
    cells = sorted(int(c) for c in L.SIDE_CELLS.reshape(-1))
    outer = sorted(L.cell_index(r, c) for r in range(7) for c in range(7) if L.is_outer(r, c))
    assert cells == outer
    assert [popcount(m) for m in L.SIDE_MASK] == [5, 5, 5, 5]
    assert all(L.side_of(0, c) == L.Side.TOP for c in range(1, 6))
    assert all(L.side_of(r, 6) == L.Side.RIGHT for r in range(1, 6))
    assert all(L.side_of(6, c) == L.Side.BOTTOM for c in range(1, 6))
    assert all(L.side_of(r, 0) == L.Side.LEFT for r in range(1, 6))
    assert np.all(L.SIDE_OF_CELL[[L.cell_index(3, 3), 0, 6, 42, 48]] == -1)
