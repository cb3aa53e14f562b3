"""One seat's city: cells, bit masks, connected groups and placement (docs/rules.md §2, §3, §5).

State of seat s, mutated in place by the ``apply_*`` functions:

- ``city[s]``: int8[49], Cell codes, cell = r * 7 + c.
- ``occ[s]``: uint64[N_CELL_CODES], bit c of ``occ[s, code]`` set iff ``city[s, c] == code``;
  ``occ[s, L.CELL_EMPTY]`` is the set of empty spaces.
- ``player[s]``: int64[N_PLAYER_FIELDS], indexed by the layout constants (COINS, ...).
- ``rules``: int64[N_RULE_FIELDS] from ``Rules.to_nb()``.
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from smsim import layout as L
from smsim import rules as R
from smsim.engine.memory import hot_njit

ZERO = np.uint64(0)
ONE = np.uint64(1)
ALL_CELLS = np.uint64((1 << L.N_CELLS) - 1)
# a shift by one column must not wrap into the next row
NOT_COL_0 = np.uint64(sum(1 << L.cell_index(r, 0) for r in range(L.SIZE)) ^ ((1 << L.N_CELLS) - 1))
NOT_COL_LAST = np.uint64(sum(1 << L.cell_index(r, L.SIZE - 1) for r in range(L.SIZE)) ^ ((1 << L.N_CELLS) - 1))
U1 = np.uint64(1)
U_ROW = np.uint64(L.SIZE)  # a shift by one row


# -- bit tricks: LLVM's ctpop and cttz, which numba does not expose -------------------------------
@intrinsic
def popcount_nb(typingctx, x):
    """Number of set bits of a uint64."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_bit_nb(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (count trailing zeros)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@hot_njit(inline="always")
def bit_nb(cell):
    return ONE << np.uint64(cell)


@hot_njit(inline="always")
def spread4_nb(m):
    """Cells orthogonally adjacent to any cell of m (towers and m itself not removed)."""
    return ((m << U_ROW) | (m >> U_ROW) | ((m << U1) & NOT_COL_0) | ((m >> U1) & NOT_COL_LAST)) & ALL_CELLS


@hot_njit
def component4_nb(seed, allowed):
    """The orthogonally connected part of ``allowed`` reachable from the cells of ``seed``."""
    comp = seed & allowed
    while True:
        grown = (comp | spread4_nb(comp)) & allowed
        if grown == comp:
            return comp
        comp = grown


@hot_njit
def group_starts_nb(empty, k):
    """Empty cells that can start a group of k orthogonally connected new cells.

    A connected set of size k can be grown from any of its cells, so a cell can start one iff
    its orthogonal component of empty cells has at least k cells (docs/rules.md §5 Crate, Architect).
    """
    ok = ZERO
    left = empty
    while left != ZERO:
        comp = component4_nb(left & (ZERO - left), empty)  # lowest remaining cell's component
        if popcount_nb(comp) >= k:
            ok |= comp
        left &= ~comp
    return ok


@hot_njit
def largest_group_upto_nb(empty, cap):
    """min(cap, size of the largest orthogonally connected set of empty cells), growing each
    group only until it reaches ``cap``: early in the game the first group does, in a few steps."""
    best = 0
    left = empty
    while left != ZERO:
        comp = left & (ZERO - left)
        while True:
            grown = (comp | spread4_nb(comp)) & empty
            if grown == comp:
                break
            comp = grown
            if popcount_nb(comp) >= cap:
                return cap
        best = max(best, popcount_nb(comp))
        if best >= cap:
            return cap
        left &= ~comp
    return best


@hot_njit(inline="always")
def church_mask_nb(occ, s):
    m = ZERO
    for size in range(L.N_CHURCH_SIZES):
        m |= occ[s, L.CELL_CHURCH_1 + size]
    return m


@hot_njit(inline="always")
def count_person_types_nb(occ, s, mask):
    """Distinct person types standing on the cells of ``mask``."""
    n = 0
    for p in range(L.N_PERSONS):
        if occ[s, L.PERSON_0 + p] & mask != ZERO:
            n += 1
    return n


@hot_njit(inline="always")
def defence_nb(player, s, rules):
    """docs/rules.md §6: soldier_defence per soldier + side_defence per complete side."""
    return (
        player[s, L.SOLDIERS] * rules[R.R_SOLDIER_DEFENCE]
        + popcount_nb(np.uint64(player[s, L.SIDES_DONE])) * rules[R.R_SIDE_DEFENCE]
    )


@hot_njit(inline="always")
def fill_cell_nb(city, occ, player, s, cell, code):
    """Put ``code`` on an empty space; a non-wall on an outer space destroys its side (§3)."""
    b = bit_nb(cell)
    city[s, cell] = code
    occ[s, L.CELL_EMPTY] &= ~b
    occ[s, code] |= b
    player[s, L.N_EMPTY] -= 1
    side = L.SIDE_OF_CELL[cell]
    if side >= 0 and code != L.CELL_WALL:
        player[s, L.SIDES_BROKEN] |= 1 << side


@hot_njit
def apply_person_nb(occ, player, s, cell, person, rules):
    """Take the effect of the person just placed on ``cell`` (docs/rules.md §5 Head), at once and
    only now; the architect's houses are a further decision, made by the caller.
    Returns the VP or coins gained."""
    near = L.NEIGH8_MASK[cell]
    gain = 0
    if person == L.PERSON_CITIZEN:
        gain = rules[R.R_CITIZEN_VP]
        player[s, L.VP] += gain
        player[s, L.VP_CITIZEN] += gain
    elif person == L.PERSON_SOLDIER:
        player[s, L.SOLDIERS] += 1
    elif person == L.PERSON_PRIEST:
        gain = rules[R.R_PRIEST_VP_PER_CHURCH] * popcount_nb(near & church_mask_nb(occ, s))
        player[s, L.VP] += gain
        player[s, L.VP_PRIEST] += gain
    elif person == L.PERSON_MERCHANT:
        gain = rules[R.R_MERCHANT_COINS_PER_CRATE] * popcount_nb(near & occ[s, L.CELL_CRATE])
        player[s, L.COINS] += gain
        player[s, L.COINS_MERCHANT] += gain
    elif person == L.PERSON_JUGGLER:
        gain = rules[R.R_JUGGLER_VP_PER_TYPE] * count_person_types_nb(occ, s, near)
        player[s, L.VP] += gain
        player[s, L.VP_JUGGLER] += gain
    elif person == L.PERSON_NOBLE:
        gain = rules[R.R_NOBLE_VP]
        player[s, L.VP] += gain
        player[s, L.VP_NOBLE] += gain
    return gain


@hot_njit
def max_houses_nb(occ, player, s, architect_cell, rules):
    """Most houses the architect just placed on ``architect_cell`` can build (§5 Architect):
    limited by the rule, the logs, and the largest group of empty cells touching him."""
    cap = min(rules[R.R_ARCHITECT_MAX_HOUSES], player[s, L.LOGS])
    empty = occ[s, L.CELL_EMPTY]
    touching = empty & L.NEIGH8_MASK[architect_cell]
    best = 0
    left = touching
    while left != ZERO and best < cap:
        comp = component4_nb(left & (ZERO - left), empty)
        n = popcount_nb(comp)
        if n > best:
            best = n
        left &= ~comp
    return min(best, cap)


@hot_njit
def newly_complete_sides_nb(occ, player, s):
    """Mask of sides whose five spaces are all walls and were not complete before (§5 Wall)."""
    walls = occ[s, L.CELL_WALL]
    new = 0
    for side in range(L.N_SIDES):
        if (player[s, L.SIDES_DONE] >> side) & 1 == 0 and walls & L.SIDE_MASK[side] == L.SIDE_MASK[side]:
            new |= 1 << side
    return new


@hot_njit
def reset_city_nb(city, occ, player, s, start_crates, rules):
    """Seat s's start state (docs/rules.md §1): coins (and the seat's ``seat_coins``, §7), logs,
    the printed crates."""
    for c in range(L.N_CELLS):
        city[s, c] = L.CELL_EMPTY
    for code in range(occ.shape[1]):
        occ[s, code] = ZERO
    for f in range(player.shape[1]):
        player[s, f] = 0
    for f in range(L.N_SIDES):
        player[s, L.SIDE_ROUND + f] = -1
    for f in range(L.MAX_PIRATE_ROWS):
        player[s, L.ATTACK_DEFENCE + f] = -1
        player[s, L.ATTACK_SIDES + f] = -1
    for c in L.CORNERS:
        city[s, c] = L.CELL_TOWER
        occ[s, L.CELL_TOWER] |= bit_nb(c)
    occ[s, L.CELL_EMPTY] = L.SPACES_MASK
    player[s, L.N_EMPTY] = L.N_SPACES
    player[s, L.COINS] = rules[R.R_START_COINS] + rules[R.R_SEAT_COINS + s]  # seat_coins: 0 past its list
    player[s, L.LOGS] = rules[R.R_START_LOGS]
    for i in range(start_crates.shape[0]):
        fill_cell_nb(city, occ, player, s, start_crates[i], L.CELL_CRATE)


@hot_njit
def set_city_nb(city, occ, player, s, cells):
    """Seat s's city becomes ``cells`` (int8[49] Cell codes): masks, empty count, sides.
    For scoring a written city; coins, logs and the rest of ``player`` are left as they are."""
    for code in range(occ.shape[1]):
        occ[s, code] = ZERO
    n_empty = 0
    broken = 0
    for c in range(L.N_CELLS):
        code = cells[c]
        city[s, c] = code
        occ[s, code] |= bit_nb(c)
        if code == L.CELL_EMPTY and L.SPACES_MASK & bit_nb(c) != ZERO:
            n_empty += 1
        side = L.SIDE_OF_CELL[c]
        if side >= 0 and code != L.CELL_EMPTY and code != L.CELL_WALL:
            broken |= 1 << side
    done = 0
    for side in range(L.N_SIDES):
        if occ[s, L.CELL_WALL] & L.SIDE_MASK[side] == L.SIDE_MASK[side]:
            done |= 1 << side
    player[s, L.N_EMPTY] = n_empty
    player[s, L.SIDES_BROKEN] = broken
    player[s, L.SIDES_DONE] = done
