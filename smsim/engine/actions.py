"""What a seat may legally do with its dice (docs/rules.md §3, §5): the candidate lists.

Each ``list_*_nb`` writes rows into ``cands`` (int64[MAX_CANDS, CAND_WIDTH], columns per
``layout.Decision``) and returns how many. Nothing here changes the state.
"""

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import (
    ZERO,
    group_starts_nb,
    largest_group_upto_nb,
    lowest_bit_nb,
    popcount_nb,
    spread4_nb,
)
from smsim.engine.memory import hot_njit


@hot_njit
def count_faces_nb(dice, counts):
    """counts: int64[N_FACES] <- how many of the dice show each face."""
    for f in range(L.N_FACES):
        counts[f] = 0
    for d in range(L.N_DICE):
        counts[dice[d]] += 1


@hot_njit(inline="always")
def add_use_nb(cands, n, symbol, k, rotated, person):
    cands[n, L.C_SYMBOL] = symbol
    cands[n, L.C_K] = k
    cands[n, L.C_ROTATED] = rotated
    cands[n, L.C_PERSON] = person
    return n + 1


@hot_njit
def list_uses_nb(dice, counts, coins, occ, s, rules, cands):
    """Every legal (symbol, k, rotated, person), then the row 'use no die' when allowed.

    k dice = any number of dice showing the symbol plus ``rotated`` dice turned to it, each
    showing neither the symbol nor swords and costing rules[R_ROTATION_COST] (§3). Using no die
    is allowed only under allow_pass or when no legal use needs no rotation (§3 [decision]).
    """
    count_faces_nb(dice, counts)
    cost = rules[R.R_ROTATION_COST]
    delivery = rules[R.R_LOG_DELIVERY_COST]
    empty = occ[s, L.CELL_EMPTY]
    # the most dice each symbol can use, whatever they cost (logs: any number, if paid for)
    # in Face order: LOG, CRATE, WALL, CROSS, HEAD (a church or a person takes one empty space)
    k_max_space = L.N_DICE if empty != ZERO else 0
    k_max = (
        L.N_DICE,
        largest_group_upto_nb(empty, L.N_DICE),
        popcount_nb(empty & L.OUTER_MASK),
        k_max_space,
        k_max_space,
    )
    n = 0
    plain_use = False
    for symbol in range(L.N_SYMBOLS):
        shown = counts[symbol]
        rotatable = L.N_DICE - shown - counts[L.FACE_SWORDS]
        for rotated in range(rotatable + 1):
            if rotated * cost > coins:
                break
            if symbol == L.FACE_LOG and coins - rotated * cost < delivery:
                continue
            for used in range(shown + 1):
                k = used + rotated
                if k == 0 or k > k_max[symbol]:
                    continue
                if rotated == 0:
                    plain_use = True
                if symbol == L.FACE_HEAD:
                    for person in range(L.N_PERSONS):
                        if L.PERSON_HEADS[person] == k:
                            n = add_use_nb(cands, n, symbol, k, rotated, person)
                else:
                    n = add_use_nb(cands, n, symbol, k, rotated, -1)
    if rules[R.R_ALLOW_PASS] != 0 or not plain_use:
        n = add_use_nb(cands, n, L.NO_SYMBOL, 0, 0, -1)
    return n


@hot_njit
def forgo_uses_nb(forgo, cands, n):
    """The USE rows of cands[:n] left to a seat that forgoes the parts of mask ``forgo``
    (``layout.FORGO_PARTS``), moved to the front in their order; their number. Where every row is
    forgone, all n stay: the rules then force a forgone use (restricted play never breaks a rule)."""
    kept = 0
    for i in range(n):
        if not use_forgone_nb(forgo, cands, i):
            kept += 1
    if kept == 0 or kept == n:
        return n
    j = 0
    for i in range(n):
        if not use_forgone_nb(forgo, cands, i):
            for c in range(L.CAND_WIDTH):
                cands[j, c] = cands[i, c]
            j += 1
    return j


@hot_njit(inline="always")
def use_forgone_nb(forgo, cands, i):
    symbol = cands[i, L.C_SYMBOL]
    if symbol == L.NO_SYMBOL:
        return False
    if cands[i, L.C_ROTATED] > 0 and forgo & L.FORGO_ROTATIONS:
        return True
    if symbol == L.FACE_HEAD:
        return (forgo & L.FORGO_PERSON[cands[i, L.C_PERSON]]) != 0
    return (forgo & L.FORGO_SYMBOL[symbol]) != 0


@hot_njit
def forgo_persons_nb(forgo, cands, n):
    """The BONUS_PERSON rows of cands[:n] whose person mask ``forgo`` does not forgo, to the front;
    their number (all n where every one is forgone: the bonus person is still placed)."""
    j = 0
    for i in range(n):
        if (forgo & L.FORGO_PERSON[cands[i, 0]]) == 0:
            cands[j, 0] = cands[i, 0]
            j += 1
    return j if j > 0 else n  # none kept: none was moved either


@hot_njit(inline="always")
def list_cells_nb(cells_mask, cands):
    """One PLACE row per cell of the mask, in cell order."""
    n = 0
    m = cells_mask
    while m != ZERO:
        cands[n, 0] = lowest_bit_nb(m)
        m &= m - np.uint64(1)
        n += 1
    return n


@hot_njit
def group_cells_nb(empty, group, k_total):
    """Cells where the next cell of an orthogonally connected group of k_total new cells may go.

    The first cell must start a group that can reach k_total cells; every later cell must touch
    the group placed so far (which then always can be completed).
    """
    if group == ZERO:
        return group_starts_nb(empty, np.int64(k_total))
    return spread4_nb(group) & empty


@hot_njit
def house_cells_nb(empty, group, k_total, architect_cell):
    """Next house of k_total: the first touches the architect (8-neighbourhood) and can start a
    group of k_total; later ones touch the houses placed so far (§5 Architect)."""
    if group == ZERO:
        return group_starts_nb(empty, np.int64(k_total)) & L.NEIGH8_MASK[architect_cell]
    return spread4_nb(group) & empty


@hot_njit(inline="always")
def place_allowed_nb(what, empty, group, k_total, anchor):
    """Cells where the next cell of a placement of k_total cells of Cell code ``what`` may go
    (docs/rules.md §5): walls on empty outer spaces; crates and houses as one orthogonally connected
    group (houses: the first touching the architect on ``anchor``); a church or a person on any
    empty space. ``group`` holds the cells placed so far in this placement."""
    if what == L.CELL_WALL:
        return empty & L.OUTER_MASK
    if what == L.CELL_CRATE:
        return group_cells_nb(empty, group, np.int64(k_total))
    if what == L.CELL_HOUSE:
        return house_cells_nb(empty, group, np.int64(k_total), np.int64(anchor))
    return empty


@hot_njit(inline="always")
def list_keeps_nb(cands):
    """KEEP candidates: every mask of dice to roll again, 0 = stop rolling (docs/rules.md §3)."""
    for mask in range(L.N_KEEP_MASKS):
        cands[mask, 0] = mask
    return L.N_KEEP_MASKS


@hot_njit(inline="always")
def list_houses_nb(h_max, cands):
    """HOUSES candidates: 0 .. h_max houses (docs/rules.md §5 Architect)."""
    for h in range(h_max + 1):
        cands[h, 0] = h
    return h_max + 1


@hot_njit(inline="always")
def list_sides_nb(sides, cands):
    """BONUS_SIDE candidates: the sides of mask ``sides`` whose bonus is still to take."""
    n = 0
    for side in range(L.N_SIDES):
        if (sides >> side) & 1:
            cands[n, 0] = side
            n += 1
    return n


@hot_njit(inline="always")
def list_bonus_persons_nb(heads, cands):
    """BONUS_PERSON candidates: the persons of at most ``heads`` heads (docs/rules.md §5 Wall)."""
    n = 0
    for p in range(L.N_PERSONS):
        if L.PERSON_HEADS[p] <= heads:
            cands[n, 0] = p
            n += 1
    return n
